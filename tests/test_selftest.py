"""The bring-up self-test (firmware/bringup/selftest.py) against the chip models.

A simulated builder reads the report lines and does what they ask: puts a card
on the reader named, lifts it, presses the button named.  Faults are wired
into the simulated board: a reader that does not answer, two swapped
chip-selects, a stuck button, a display that does not acknowledge.
"""
from types import SimpleNamespace

import pytest

from boards.common import Board
from bringup import selftest as S
from drivers import leds as L
from drivers import mfrc522 as M
from drivers import ssd1306
from drivers.buttons import ButtonPad
from drivers.buzzer import Buzzer
from drivers.leds import SeatLeds
from drivers.reader_set import ReaderSet
from host_sim.board import OLED_ADDR, SimBoard
from host_sim.i2c_bus import I2CBus
from host_sim.mfrc522_model import MFRC522Model, Tag
from host_sim.pins import ButtonPin, NeoPixelModel, PWMModel
from host_sim.spi_bus import SpiBus
from host_sim.ssd1306_model import SSD1306Model

UID = bytes.fromhex("04a1b2c3d4e580")   # an NTAG213 sticker (7-byte UID)
SEATS = 5                               # five seats and the centre: the full table


class Builder:
    """Follows the prompts: ``chips[i]`` is the reader physically at the place the
    firmware calls reader i (so a mis-wired board puts the card on the right
    reader and the firmware sees it elsewhere)."""

    def __init__(self, sim, chips, pins, ignore=()):
        self.sim = sim
        self.chips = chips
        self.pins = pins
        self.ignore = set(ignore)       # prompts this builder does not follow
        self.lines = []
        self.todo = []                  # (ms, action)
        self.tag = Tag(UID)
        self.names = S.reader_names(len(chips))
        self.answers = {}               # item -> "yes" / "no" / "again" (default yes)
        self.also = {}                  # reader index -> another reader that reads the card too
        self.short = set()              # readers whose range ends below the spacer

    def report(self, line):
        self.lines.append(line)
        item, _, text = line.partition(": ")
        if item in self.ignore:
            return
        if text.startswith("place a card"):
            i = self.names.index(item)
            self.chips[i].place(self.tag)
            if i in self.also:                     # lies where a second reader reads it
                self.chips[self.also[i]].place(Tag(UID))
        elif text.startswith("lay the card on a"):
            if self.names.index(item) in self.short:
                for c in self.chips:
                    c.clear()
            self.press("ok")
        elif text.startswith("remove"):
            for c in self.chips:
                c.clear()
        elif "press OK = yes" in text:
            answer = self.answers.get(item, "yes")
            self.answers[item] = "yes" if answer == "again" else answer
            self.press({"yes": "ok", "no": "next", "again": "prev"}[answer])
        elif text.startswith("press"):
            self.press(text.split()[1].lower())

    def press(self, key):
        pin = self.pins[S.KEYS.index(key)]
        now = self.sim.ticks_ms()
        self.todo += [(now + 60, pin.press), (now + 300, pin.release)]

    def sleep_ms(self, ms):
        self.sim.clock.advance(ms * 1000)
        now = self.sim.ticks_ms()
        for t in [t for t in self.todo if t[0] <= now]:
            self.todo.remove(t)
            t[1]()

    def run(self, board, **kw):
        return S.run_selftest(board, self.report, sleep_ms=self.sleep_ms, **kw)

    def said(self, item):
        return [ln for ln in self.lines if ln.startswith(item + ": ")]


def sim_board():
    sim = SimBoard(seats=SEATS)
    return sim, Builder(sim, sim.chips, sim.button_pins)


def outcome(results):
    return {item: ok for item, ok, _ in results}


def failed(results):
    return sorted({item for item, ok, _ in results if not ok})


def test_a_good_table_passes_every_step():
    sim, who = sim_board()
    results = who.run(sim)
    names = S.reader_names(SEATS + 1)
    assert failed(results) == []
    items = [r[0] for r in results]
    # every part, in the documented order: display, bus, versions, buttons, LEDs,
    # buzzer, then per reader its card and its range
    assert items == (["display", "spi bus"] + names + ["button " + k for k in S.KEYS]
                     + ["leds", "buzzer"] + [nm for nm in names for _ in range(2)])
    assert who.lines[-1] == "selftest: all ok"
    assert "spi bus: ok MISO reads 0x00 with no reader selected" in " ".join(who.lines)
    for nm in names:
        assert nm + ": ok NXP MFRC522 v2.0 (VersionReg 0x92)" in who.lines
        assert nm + ": ok card %s read, by this reader only" % UID.hex() in who.lines
        assert nm + ": ok card read 10 mm above the play area" in who.lines
    assert "leds: ok all 5 LEDs showed red, green and blue" in who.lines
    assert "buzzer: ok four rising notes heard" in who.lines
    # the display ends on the verdict; every LED showed red, green and blue, then green
    rows = sim.oled.text_rows()
    assert rows[0].strip() == "SELFTEST" and rows[1].strip() == "ALL OK"
    for seat in range(SEATS):
        seen = {colours[seat] for colours in sim.strip.history}
        for state in (L.REFUSED, L.PLAYED, L.TURN):
            assert sim.leds.colour(state) in seen
    assert sim.strip.colours == [sim.leds.colour(L.PLAYED)] * SEATS
    # the buzzer played the scale, then the accept blip
    freqs = [f for _, _, f in sim.pwm.tones() if f]
    assert freqs[:4] == list(S.SCALE[0::2])
    assert freqs[-1] == 2093


def test_display_test_pattern_reaches_the_panel():
    sim, who = sim_board()
    frames = []
    orig = who.sleep_ms

    def sleep_and_look(ms):
        if not who.lines:               # the display step reports only at its end
            frames.append(sim.oled.lit_count())
        orig(ms)
    who.sleep_ms = sleep_and_look
    who.run(sim)
    # all 8192 pixels on, then the checkerboard's half
    assert 128 * 64 in frames and 128 * 64 // 2 in frames


def test_missing_reader():
    sim, who = sim_board()
    sim.chips[2].disconnect()           # seat 3: unplugged (MISO pulled low)
    results = who.run(sim)
    assert failed(results) == ["seat 3"]
    detail = [d for item, ok, d in results if item == "seat 3"]
    assert len(detail) == 1             # no card was asked for on it
    assert detail[0].startswith("not connected (VersionReg reads 0x00): the seat cable")
    assert not any("place a card" in ln for ln in who.said("seat 3"))
    assert who.lines[-1] == "selftest: 1 failed: seat 3"
    assert sim.strip.colours[2] == sim.leds.colour(L.REFUSED)
    assert sim.oled.text_rows()[1].strip() == "1 FAILED"


def test_reader_that_never_leaves_reset():
    sim, who = sim_board()
    sim.chips[0].disconnect(miso=0xFF)  # MISO floating high: PowerDown always set
    results = who.run(sim)
    assert failed(results) == ["seat 1"]
    assert "never leaves reset" in dict((i, d) for i, _, d in results)["seat 1"]


def _third_reader(version):
    """The SimBoard of one seat and the centre, plus a third reader answering
    ``version`` (the last, so the firmware calls it the centre)."""
    sim = SimBoard(seats=1)
    bus = sim.bus
    cs = bus.pin("cs_third")
    chip = MFRC522Model(bus, cs, name="third", version=version)
    rd = M.MFRC522(bus, cs, sleep_us=bus.sleep_us)
    readers = ReaderSet(sim.readers.readers + [rd], sleep_us=bus.sleep_us,
                          ticks_ms=sim.ticks_ms)
    board = Board(readers, sim.display, sim.buttons, sim.leds, sim.buzzer, sim.ticks_ms, None)
    return sim, board, Builder(sim, sim.chips + [chip], sim.button_pins)


@pytest.mark.parametrize("version,name", [(0x88, "FM17522 clone"), (0xB2, "FM17522 clone"),
                                          (0x12, "clone marked NXP"), (0x90, "clone (v0.0)")])
def test_clone_chip_passes_with_a_note(version, name):
    sim, board, who = _third_reader(version)
    results = who.run(board)
    assert failed(results) == []
    first = [d for i, ok, d in results if i == "centre"][0]
    assert first.startswith("%s (VersionReg 0x%02x): a clone" % (name, version))
    assert "centre: ok card %s read, by this reader only" % UID.hex() in who.lines


@pytest.mark.parametrize("version,words", [
    (0x82, "VersionReg 0x82 is 0x92 (NXP MFRC522 v2.0) with one bit misread: a marginal wire"),
    (0x5A, "VersionReg 0x5a: not an MFRC522 nor a known clone")])
def test_refused_chip_is_named(version, words):
    sim, board, who = _third_reader(version)
    results = who.run(board)
    assert failed(results) == ["centre"]
    assert dict((i, d) for i, _, d in results)["centre"].startswith(words)


def wired_board(seats, cs_of):
    """The SimBoard's parts, wired by hand: the reader physically at place i
    answers on chip-select ``cs_of[i]`` (the firmware still drives cs i for reader i)."""
    bus = SpiBus()
    rst = bus.pin("rst")
    n = seats + 1
    cs = [bus.pin("cs%d" % i) for i in range(n)]
    chips = [MFRC522Model(bus, cs[cs_of[i]], name="place%d" % i, rst=rst) for i in range(n)]
    drivers = [M.MFRC522(bus, cs[i], sleep_us=bus.sleep_us) for i in range(n)]
    sim = SimpleNamespace(bus=bus, clock=bus.clock, chips=chips)
    sim.ticks_ms = lambda: int(bus.clock.now_us // 1000) & 0x3FFFFFFF
    readers = ReaderSet(drivers, rst=rst, sleep_us=bus.sleep_us, ticks_ms=sim.ticks_ms)
    readers.init()
    i2c = I2CBus()
    sim.oled = i2c.attach(OLED_ADDR, SSD1306Model())
    pins = (ButtonPin("prev"), ButtonPin("next"), ButtonPin("ok"))
    sim.strip = NeoPixelModel(n=seats)
    leds = SeatLeds(sim.strip, seats)
    board = Board(readers, ssd1306.SSD1306(i2c, OLED_ADDR), ButtonPad(*pins, ticks_ms=sim.ticks_ms),
                  leds, Buzzer(PWMModel(clock=sim.ticks_ms), sim.ticks_ms), sim.ticks_ms, None)
    return sim, board, Builder(sim, chips, pins)


def test_swapped_chip_selects():
    # the readers at seat 1 and seat 2 have their CS wires swapped at the board
    sim, board, who = wired_board(SEATS, [1, 0, 2, 3, 4, 5])
    results = who.run(board)
    assert failed(results) == ["seat 1", "seat 2"]
    detail = {}
    for item, ok, d in results:
        if not ok:
            detail[item] = d
    assert detail["seat 1"].startswith("the card was read by the seat 2 reader, not by "
                                       "this one: are the chip-selects of seat 1 and seat 2 "
                                       "swapped?")
    assert "read by the seat 1 reader, not by this one" in detail["seat 2"]
    # the version check cannot see it: both chips answer
    assert sum(1 for item, ok, d in results if item == "seat 1" and ok) == 1
    assert sim.strip.colours[:3] == [board.leds.colour(L.REFUSED)] * 2 + [
        board.leds.colour(L.PLAYED)]


def test_stuck_button():
    sim, who = sim_board()
    sim.button_pins[1].press()          # NEXT shorted to ground
    results = who.run(sim)
    # LEDs and buzzer cannot be answered without NEXT: not confirmed, not "ok"
    assert failed(results) == ["button next", "buzzer", "leds"]
    d = dict((i, d) for i, _, d in results)
    assert d["button next"].startswith("stuck")
    assert d["leds"].startswith("not confirmed: OK and NEXT are needed")
    assert "button next: press NEXT" not in who.lines
    assert outcome(results)["button prev"] and outcome(results)["button ok"]


def test_ok_held_at_power_up_is_not_stuck():
    sim = SimBoard(seats=2)
    sim.button_pins[2].press()
    sim2 = SimBoard(seats=2)
    assert not S.boot_requested(sim2)
    # OK was down when the pad was made: the self-test was asked for
    pad = ButtonPad(*sim.button_pins, ticks_ms=sim.ticks_ms)
    board = Board(sim.readers, sim.display, pad, sim.leds, sim.buzzer, sim.ticks_ms, None)
    assert S.boot_requested(board)
    who = Builder(sim, sim.chips, sim.button_pins)
    who.todo.append((sim.ticks_ms() + 500, sim.button_pins[2].release))   # let go of OK
    results = who.run(board)
    assert failed(results) == []


def test_swapped_button_wires():
    sim, who = sim_board()
    who.pins = (sim.button_pins[1], sim.button_pins[0], sim.button_pins[2])
    results = who.run(sim)
    assert failed(results) == ["button next", "button prev", "buzzer", "leds"]
    d = dict((i, d) for i, _, d in results)
    assert "NEXT came instead" in d["button prev"]


def test_display_that_does_not_acknowledge():
    sim, who = sim_board()
    sim.i2c.nack(OLED_ADDR)
    results = who.run(sim)
    assert failed(results) == ["display"]
    d = dict((i, d) for i, _, d in results)["display"]
    assert "no answer at I2C address 0x3c or 0x3d" in d
    # the rest of the test ran on the report alone
    assert who.lines[-1] == "selftest: 1 failed: display"
    assert len(results) == 1 + 1 + 6 + 3 + 2 + 2 * 6


def test_display_lost_in_the_middle():
    sim, who = sim_board()
    orig = who.report

    def report(line):
        orig(line)
        if line.startswith("buzzer: ok"):
            sim.i2c.nack(OLED_ADDR)
    results = S.run_selftest(sim, report, sleep_ms=who.sleep_ms)
    assert failed(results) == ["display"]
    assert [ok for item, ok, _ in results if item == "display"] == [True, False]


def test_no_card_times_out():
    sim, who = sim_board()
    who.ignore = {"seat 4"}              # the builder never puts a card on seat 4
    results = who.run(sim, card_ms=2000)
    assert failed(results) == ["seat 4"]
    d = [d for item, ok, d in results if item == "seat 4" and not ok][0]
    assert d.startswith("no card read in 2 s")


def test_nobody_there_and_a_clock_that_stands_still():
    """Every wait ends even when sleep_ms does nothing and nobody answers a prompt."""
    sim = SimBoard(seats=1)
    lines = []
    results = S.run_selftest(sim, lines.append, sleep_ms=lambda ms: None, card_ms=300,
                             button_ms=300)
    assert failed(results) == ["button next", "button ok", "button prev", "buzzer", "centre",
                               "leds", "seat 1"]
    assert lines[-1].startswith("selftest: 7 failed")


@pytest.mark.parametrize("n", [2, 6])
def test_reader_names(n):
    names = S.reader_names(n)
    assert len(names) == n and names[-1] == "centre" and names[0] == "seat 1"


def test_wait_ok_keeps_the_verdict_until_ok():
    sim, who = sim_board()
    results = who.run(sim, wait_ok=True)
    assert failed(results) == []
    assert who.lines[-1] == "selftest: press OK to continue"
    assert not sim.button_pins[2].is_pressed and not who.todo   # pressed and let go


def test_wait_ok_ends_without_a_press():
    sim, who = sim_board()
    who.ignore = {"selftest"}
    t0 = sim.ticks_ms()
    who.run(sim, wait_ok=True)
    assert sim.ticks_ms() - t0 >= S.WAIT_OK_MS
    assert sim.oled.text_rows()[2].strip() == "OK: continue"


def test_run_at_boot_only_when_ok_was_held():
    sim, who = sim_board()
    assert S.run_at_boot(sim, who.report, who.sleep_ms) is None and who.lines == []
    sim2 = SimBoard(seats=2)
    sim2.button_pins[2].press()
    pad = ButtonPad(*sim2.button_pins, ticks_ms=sim2.ticks_ms)
    board = Board(sim2.readers, sim2.display, pad, sim2.leds, sim2.buzzer, sim2.ticks_ms, None)
    who2 = Builder(sim2, sim2.chips, sim2.button_pins)
    who2.todo.append((sim2.ticks_ms() + 500, sim2.button_pins[2].release))
    results = S.run_at_boot(board, who2.report, who2.sleep_ms)
    assert failed(results) == []
    assert who2.lines[-1] == "selftest: press OK to continue"


# ------------------------------------------------------------------ what builders get wrong

def test_no_display_at_power_up():
    """None fitted yet (or SDA/SCL swapped): the board is made, and the test runs
    on the report, the LEDs and the buzzer."""
    sim = SimBoard(seats=SEATS)
    sim.i2c.nack(OLED_ADDR)
    board = Board(sim.readers, ssd1306.SSD1306(sim.i2c), sim.buttons, sim.leds, sim.buzzer,
                  sim.ticks_ms, None)
    assert not board.display.present
    who = Builder(sim, sim.chips, sim.button_pins)
    results = who.run(board)
    assert failed(results) == ["display"]
    assert who.lines[-1] == "selftest: 1 failed: display"
    assert sim.strip.colours == [sim.leds.colour(L.PLAYED)] * SEATS


def test_display_at_0x3d():
    sim = SimBoard(seats=1)
    model = sim.i2c.devices.pop(OLED_ADDR)
    sim.i2c.attach(0x3D, model)
    board = Board(sim.readers, ssd1306.SSD1306(sim.i2c), sim.buttons, sim.leds, sim.buzzer,
                  sim.ticks_ms, None)
    who = Builder(sim, sim.chips, sim.button_pins)
    results = who.run(board)
    assert failed(results) == []
    assert dict((i, d) for i, _, d in results)["display"].startswith("at I2C address 0x3d")
    assert model.text_rows()[1].strip() == "ALL OK"


@pytest.mark.parametrize("miso,words", [
    (0x00, "not connected (VersionReg reads 0x00)"),          # the pull-down at input A
    (None, "not connected: MISO floats (VersionReg reads 0x")])  # no pull-down: noise
def test_unplugged_seat_is_not_connected(miso, words):
    sim, who = sim_board()
    sim.chips[2].disconnect(miso=miso)
    results = who.run(sim)
    assert failed(results) == ["seat 3"]
    d = dict((i, d) for i, _, d in results)["seat 3"]
    assert d.startswith(words), d
    if miso is None:
        assert "no pull-down (R15-R20)" in d


def test_table_supply_off():
    """USB only: every reader unpowered, MISO held low by the pull-down."""
    sim, who = sim_board()
    for c in sim.chips:
        c.disconnect(power=False)
    results = who.run(sim)
    assert failed(results) == ["3V3R"] + sorted(S.reader_names(SEATS + 1))
    assert dict((i, d) for i, _, d in results)["3V3R"].startswith(
        "no reader answers at all: is the table supply on?")
    assert not any("place a card" in ln for ln in who.lines)


@pytest.mark.parametrize("level", [0xFF, 0x40])
def test_miso_driven_while_no_reader_is_selected(level):
    sim, who = sim_board()
    sim.bus.idle_miso = level          # a gate wired around, an /OE tied low, no pull-down
    results = who.run(sim)
    assert failed(results) == ["spi bus"]
    d = dict((i, d) for i, _, d in results)["spi bus"]
    assert d.startswith("MISO reads 0x%02x with no reader selected" % level)


def test_cross_read_names_every_reader_that_sees_the_card():
    sim, who = sim_board()
    who.also = {2: 1}                  # a card on seat 3 is read by seat 2's reader too
    results = who.run(sim)
    assert failed(results) == ["seat 3"]
    d = [d for i, ok, d in results if i == "seat 3" and not ok][0]
    assert d.startswith("card %s read here and also by the seat 2 reader: a cross-read"
                        % UID.hex())
    assert "swapped" not in d
    assert outcome(results)["seat 2"]   # seat 2 itself read only its own card


def test_led_and_buzzer_ask_the_person():
    sim, who = sim_board()
    who.answers = {"leds": "no", "buzzer": "again"}
    results = who.run(sim)
    assert failed(results) == ["leds"]
    d = dict((i, d) for i, ok, d in results)
    assert d["leds"].startswith("an LED missed a colour or stayed dark")
    assert d["buzzer"] == "four rising notes heard"
    freqs = [f for _, _, f in sim.pwm.tones() if f]
    assert freqs[:8] == list(S.SCALE[0::2]) * 2        # played again when asked


def test_led_question_without_an_answer():
    sim, who = sim_board()
    who.ignore = {"leds"}
    results = who.run(sim, button_ms=2000)
    assert failed(results) == ["leds"]
    assert dict((i, d) for i, ok, d in results)["leds"] == "no answer in 2 s"


def test_range_check_measures_a_short_range():
    sim, who = sim_board()
    who.short = {1}                    # seat 2: the card on the 10 mm spacer is not read
    results = who.run(sim)
    assert failed(results) == ["seat 2"]
    d = [d for i, ok, d in results if i == "seat 2" and not ok][0]
    assert d.startswith("not read 10 mm above the play area")
    assert sim.strip.colours[1] == sim.leds.colour(L.REFUSED)
    results = Builder(sim, sim.chips, sim.button_pins).run(sim, lift_mm=0)
    assert failed(results) == []       # without the range check


def test_card_still_read_after_it_was_lifted_away():
    sim, who = sim_board()
    orig = who.report

    def report(line):
        orig(line)
        if line == "seat 4: remove the card":
            sim.chips[3].place(Tag(UID))     # it stays read (a far-reaching reader)
    results = S.run_selftest(sim, report, sleep_ms=who.sleep_ms)
    assert failed(results) == ["seat 4"]
    d = [d for i, ok, d in results if i == "seat 4" and not ok][0]
    assert d.startswith("the card is still read 3 s after it was to be lifted away")


def test_one_reader_at_a_time():
    """Bring-up: only seat 1's reader is plugged in; the others are not tested."""
    sim, who = sim_board()
    for c in sim.chips[1:]:
        c.disconnect()
    results = who.run(sim, readers=[0])
    assert failed(results) == []
    assert not who.said("seat 2") and not who.said("centre")
    assert sim.strip.colours[0] == sim.leds.colour(L.PLAYED)
    assert sim.strip.colours[1:] == [sim.leds.colour(L.OFF)] * (SEATS - 1)
    sim.chips[0].disconnect(power=False)               # the table supply off: USB only
    results = Builder(sim, sim.chips, sim.button_pins).run(sim, readers=[0])
    assert failed(results) == ["3V3R", "seat 1"]
