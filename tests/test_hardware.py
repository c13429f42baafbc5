"""hardware/: the pin maps are sound, the firmware's board files agree with them, and
the committed wiring diagrams and pin tables are what tools/wiring.py draws now."""
import copy
import csv
import importlib

import pytest

from tools import wiring as W

BOARDS = W.BOARDS


@pytest.fixture(params=BOARDS)
def board(request):
    return request.param


def test_pin_map_is_sound(board):
    assert W.problems(W.load(board)) == []


def test_board_file_agrees_with_pin_map(board):
    hw = W.load(board)
    assert W.disagreements(hw, W.board_file(hw)) == []


def test_board_module_pins_are_the_parsed_ones(board):
    """The AST read of the board file is what the firmware actually imports."""
    hw = W.load(board)
    mod = importlib.import_module("boards.%s" % board)
    assert {k: W.plain(v) for k, v in mod.PINS.items()} == hw["assign"]
    assert mod.SETTINGS["spi_baud"] == hw["spi_baud"]


@pytest.mark.parametrize("path", sorted(W.outputs(), key=str), ids=lambda p: p.name)
def test_generated_files_are_up_to_date(path):
    want = W.outputs()[path]
    have = path.read_text(encoding="utf-8") if path.exists() else ""
    assert have == want, "%s is out of date: run  %s" % (path.relative_to(W.ROOT), W.REGEN)


def test_readme_has_both_pin_tables():
    text = W.README.read_text(encoding="utf-8")
    for b in BOARDS:
        assert "<!-- pins:%s -->" % b in text
        assert W.pin_table(W.load(b)) in text


def test_svg_is_well_formed_and_names_every_pin(board):
    import xml.etree.ElementTree as ET

    hw = W.load(board)
    svg = W.render(hw, board)
    ET.fromstring(svg.encode())
    for job, pin in W.jobs(hw["assign"]):
        assert "%s · pin %s" % (W.label(hw, pin), hw["pins"][str(pin)]["header"]) in svg, job
    for name in W.seat_names(len(hw["assign"]["reader_cs"])):
        assert "%s reader" % name in svg


def test_drawing_joins_no_two_nets(board):
    """No junction dot on another net's wire, no wire running along another's."""
    svg = W.draw(W.load(board), board)
    assert len(svg.dots) > 30 and len({n for n, _, _ in svg.wires}) > 20
    assert W.geometry_problems(svg) == []


def test_geometry_check_sees_the_old_miso_over_mosi_layout():
    """The fault it was written for: the MCU's MISO row 2 px above reader 1's MOSI
    branch, through the MOSI trunk's junction dot."""
    s = W.Svg()
    s.line([(330, 178), (940, 178), (940, 400)], net="miso")
    s.line([(920, 154), (920, 400)], net="mosi")
    s.line([(920, 180), (1180, 180)], net="mosi")
    s.dot(920, 180, net="mosi")
    s.line([(900, 130), (900, 400)], net="sck")      # crossed at a right angle: fine
    probs = W.geometry_problems(s)
    _one(probs, "dot of mosi at (920, 180) touches a miso wire")
    _one(probs, "miso wire", "runs along mosi wire")
    assert not [p for p in probs if "sck" in p]
    s.dot(700, 50, net="sck")
    _one(W.geometry_problems(s), "dot of sck at (700, 50) is on no sck wire")


def test_drawing_has_the_input_pull_downs(board):
    hw = W.load(board)
    svg = W.render(hw, board)
    n = len(hw["assign"]["reader_cs"])
    buttons = 0 if hw["assign"]["buttons_pull_up"] else 3     # the ESP32's button pull-ups
    assert svg.count(">10k<") == n + buttons


# ------------------------------------------------------------------ the checker catches faults

def _mutated(board, **assign):
    hw = copy.deepcopy(W.load(board))
    hw["assign"].update(assign)
    return hw


def _one(problems, *words):
    hits = [p for p in problems if all(w in p for w in words)]
    assert hits, problems
    return hits[0]


def test_pin_used_twice():
    _one(W.problems(_mutated("pico", buzzer=13)), "GP13 used twice", "ws2812", "buzzer")
    cs = list(W.load("esp32")["assign"]["reader_cs"])
    cs[5] = cs[0]
    _one(W.problems(_mutated("esp32", reader_cs=cs)), "GPIO13 used twice")


def test_input_only_pin_as_output():
    _one(W.problems(_mutated("esp32", ws2812=34, spi_miso=19)), "ws2812", "GPIO34",
         "cannot drive an output", "input only")
    cs = list(W.load("esp32")["assign"]["reader_cs"])
    cs[2] = 37
    p = W.problems(_mutated("esp32", reader_cs=cs))
    _one(p, "seat 3", "GPIO37", "not on header")


def test_input_only_buttons_need_external_pull_ups():
    _one(W.problems(_mutated("esp32", buttons_pull_up=True)), "button PREV", "no internal pull-up")


@pytest.mark.parametrize("pin,flag", [(0, "strapping"), (2, "strapping"), (5, "strapping"),
                                      (12, "strapping"), (15, "strapping"), (6, "flash"),
                                      (11, "flash"), (1, "console"), (16, "psram"),
                                      (17, "psram")])
def test_esp32_pins_to_avoid(pin, flag):
    _one(W.problems(_mutated("esp32", buzzer=pin)), "buzzer", "GPIO%d" % pin, flag)


def test_pin_that_does_not_exist():
    _one(W.problems(_mutated("esp32", reader_rst=20)), "GPIO20 does not exist")
    _one(W.problems(_mutated("pico", reader_rst=30)), "GP30 does not exist")
    _one(W.problems(_mutated("pico", reader_rst=25)), "GP25", "not on header")


def test_rp2040_spi_and_i2c_function_pins():
    _one(W.problems(_mutated("pico", spi_miso=17, reader_cs=[16, 20, 21, 22, 26, 27])),
         "spi_miso", "GP17 is not a MISO pin of SPI0", "GP0, GP4, GP16, GP20")
    _one(W.problems(_mutated("pico", spi_sck=10, reader_rst=18)),
         "GP10 is not a SCK pin of SPI0")        # SPI1's SCK
    _one(W.problems(_mutated("pico", i2c_sda=2, buzzer=14)),
         "GP2 is not a SDA pin of I2C0")         # I2C1's SDA
    _one(W.problems(_mutated("pico", i2c_sda=5, i2c_scl=4)), "GP5 is not a SDA pin of I2C0")


def test_rp2040_bus_id_must_exist():
    hw = W.load("pico")
    hw["spi_id"] = 2
    _one(W.problems(hw), "no SPI2")


def test_board_file_disagreement_is_named():
    hw = W.load("pico")
    bf = W.board_file(hw)
    bf["PINS"] = dict(bf["PINS"], reader_rst=8)
    bf["i2c_id"] = 1
    d = W.disagreements(hw, bf)
    _one(d, "reader_rst", "8", "9")
    _one(d, "i2c_id")


def test_too_many_readers_and_spi_clock():
    hw = _mutated("pico", reader_cs=[17, 20, 21, 22, 26, 27, 28])
    hw["spi_baud"] = 20000000
    p = W.problems(hw)
    _one(p, "7 readers")
    _one(p, "10 MHz")


# ------------------------------------------------------------------ BOM

def test_bom_covers_the_build():
    with (W.HW / "bom.csv").open(newline="", encoding="utf-8") as f:
        rows = list(csv.DictReader(f))
    assert rows
    for col in ("item", "qty", "part_number", "alternatives", "price_eur", "boards", "notes"):
        assert col in rows[0], col
    text = " ".join(" ".join(r.values()) for r in rows).lower()
    for part in ("mfrc522", "74hc125", "74ahct125", "ssd1306", "ws2812", "piezo", "ntag213",
                 "3.3 v", "pico", "esp32", "schottky"):
        assert part in text, part
    for r in rows:
        assert int(r["qty"]) > 0, r
        assert float(r["price_eur"]) >= 0, r
        assert r["boards"] in ("both", "pico", "esp32"), r
    readers = [r for r in rows if "mfrc522" in r["item"].lower()]
    assert int(readers[0]["qty"]) == W.MAX_READERS


def test_bom_adds_up_and_the_readme_says_so():
    """The README's figures are the BOM's sums (parts without the top, with it, tools)."""
    text = W.README.read_text(encoding="utf-8")
    for board in BOARDS:
        t = W.bom_totals(board)
        rows = [r for r in W.bom_rows() if r["boards"] in ("both", board)]
        total = sum(int(r["qty"]) * float(r["price_eur"]) for r in rows)
        assert abs(total - t["with_top"] - t["tools"]) < 0.005, (board, total, t)
        assert 60 < t["parts"] < t["with_top"] and t["tools"] > 0, t
        for key in ("parts", "with_top"):
            assert "%.2f EUR" % t[key] in text, (board, key, t[key])
    assert "%.2f EUR" % W.bom_totals("pico")["tools"] in text


def test_bom_has_what_a_plug_at_each_end_needs():
    rows = {r["ref"]: r for r in W.bom_rows()}
    readers = W.MAX_READERS
    assert int(rows["J1-J12"]["qty"]) == 2 * readers           # a plug at each end
    assert int(rows["CT1"]["qty"]) >= 8 * 2 * readers           # 8 contacts per housing
    assert "stranded" in rows["W1"]["part_number"].lower()
    assert "cc resistors" in rows["PS1"]["part_number"].lower()
    assert int(rows["R15-R20"]["qty"]) == readers               # the input pull-downs
    for ref in ("SW4", "W2", "TL1"):
        assert ref in rows, ref
    assert {r["boards"] for r in W.bom_rows() if r["ref"] == "X1"} == {"pico", "esp32"}


def test_a_display_on_spi_takes_three_pins():
    """The Pico's display on the readers' bus: its CS, D/C and RES, each a pin
    of its own and none of another job's; a map with two of them is named."""
    hw = W.load("pico")
    cs, dc, res = hw["assign"]["display_spi"]
    assert len({cs, dc, res}) == 3 and not W.problems(hw)
    hw["assign"]["display_spi"] = [cs, dc]
    assert any("display_spi: 2 pins" in p for p in W.problems(hw))
    hw["assign"]["display_spi"] = [cs, dc, hw["assign"]["reader_rst"]]
    assert any("used twice" in p for p in W.problems(hw))
