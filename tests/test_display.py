"""SSD1306 driver (firmware/drivers/ssd1306.py) against the chip model (host_sim).

The driver runs unchanged under CPython with the pure-Python framebuf
stand-in (drivers/fbuf.py); the model decodes what goes over the emulated I2C
bus into GDDRAM, which must equal the driver's framebuffer byte for byte.
Prints the I2C cost of a full and of a typical dirty update (docs/design.md, principle 7).
"""

from __future__ import annotations

import struct
import zlib
from pathlib import Path

import pytest

from drivers import fbuf
from host_sim.board import display_rig
from host_sim.i2c_bus import I2CBus
from host_sim.ssd1306_model import SSD1306Model
from tools import mpvm

ADDR = 0x3C


make = display_rig


def test_init_sequence_configures_the_panel() -> None:
    bus, model, oled = make()
    assert model.unknown == []
    assert model.display_on and oled.powered
    assert model.mem_mode == 0  # horizontal
    assert model.charge_pump
    assert model.mux == 63 and model.com_pins == 0x12
    assert model.seg_remap and model.com_scan_dec
    assert model.contrast == 0x7F and not model.inverted and not model.entire_on
    assert model.ram == oled.buffer == bytearray(1024)
    # init = 1 command transaction + the first full update (window + data)
    assert bus.transactions == 3
    print(f"\ninit: {bus.transactions} I2C transactions, {bus.bytes} bytes")


def test_full_update_byte_count() -> None:
    bus, model, oled = make()
    model.ram[:] = b"\xaa" * 1024  # the panel holds garbage
    bus.reset_counts()
    model.reset_counts()
    oled.fill(1)
    assert oled.show(full=True) == 8
    assert model.data_bytes == 1024
    assert model.ram == oled.buffer == bytearray(b"\xff" * 1024)
    # one window command (0x21 0 127 0x22 0 7) and one data transaction
    assert bus.transactions == 2
    assert model.command_bytes == 6
    assert bus.bytes == (1 + 6) + (1 + 1024)
    assert model.commands == [(0x21, 0, 127), (0x22, 0, 7)]
    print(f"\nfull update: {bus.transactions} I2C transactions, {bus.bytes} payload bytes "
          f"({bus.wire_bytes} on the wire with address bytes), 1024 of them pixel data")


def test_no_change_sends_nothing() -> None:
    bus, model, oled = make()
    bus.reset_counts()
    assert oled.show() == 0
    assert oled.dirty_pages() == 0
    assert bus.transactions == 0 and bus.bytes == 0


def test_one_text_line_sends_one_page() -> None:
    bus, model, oled = make(log=True)
    oled.text_line(0, "Tapp  Runde 3")
    oled.text_line(7, "OK=weiter")
    oled.show()
    bus.reset_counts()
    model.reset_counts()
    oled.text_line(3, "Farbe bedienen!")
    assert oled.dirty_pages() == 1 << 3
    assert oled.show() == 1
    assert model.commands == [(0x21, 0, 127), (0x22, 3, 3)]
    assert model.data_bytes == 128
    assert bus.transactions == 2 and bus.bytes == 7 + 129
    assert model.ram == oled.buffer
    assert model.text_rows()[3] == "Farbe bedienen!"
    assert model.text_rows()[0] == "Tapp  Runde 3"
    print(f"\ndirty update (one text line): {bus.transactions} I2C transactions, "
          f"{bus.bytes} payload bytes ({bus.wire_bytes} on the wire), 128 of them pixel data")


def test_two_separate_pages_and_an_adjacent_run() -> None:
    bus, model, oled = make()
    bus.reset_counts()
    model.reset_counts()
    oled.pixel(5, 1, 1)  # page 0
    oled.pixel(9, 50, 1)  # page 6
    assert oled.show() == 2
    assert bus.transactions == 4 and model.data_bytes == 256
    bus.reset_counts()
    model.reset_counts()
    oled.fill_rect(10, 20, 30, 20, 1)  # rows 20..39: pages 2..4, one run
    assert oled.show() == 3
    assert bus.transactions == 2 and model.data_bytes == 384
    assert model.commands == [(0x21, 0, 127), (0x22, 2, 4)]
    assert model.ram == oled.buffer
    assert model.visible(10, 20) and model.visible(39, 39) and not model.visible(40, 39)


def test_a_row_sends_only_the_characters_that_changed() -> None:
    """The screen's rows (table/rows.py) mark the characters they changed:
    a card laid on a seat's row sends those cells, not the page."""
    from table.rows import RowWriter
    bus, model, oled = make()
    w = RowWriter(oled)
    w.begin(2)
    w.add("Cora")
    w.right()
    w.add("-")
    w.end()
    oled.show()
    assert model.text_rows()[2].rstrip() == "Cora           -"
    bus.reset_counts()
    model.reset_counts()
    w.begin(2)
    w.add("Cora")
    w.right()
    w.add("H10")
    w.end()
    assert oled.show() == 1
    # "-" at column 15 became "H10" at 13..15: cells 13..15, columns 104..127
    assert model.commands == [(0x21, 104, 127), (0x22, 2, 2)]
    assert model.data_bytes == 24 and bus.bytes == 7 + 25
    assert model.ram == oled.buffer and oled.dirty_pages() == 0
    assert model.text_rows()[2] == "Cora         H10"
    bus.reset_counts()
    w.begin(2, invert=True)          # inverted: every cell changed, the whole page goes
    w.add("Cora")
    w.end()
    assert oled.show() == 1 and bus.bytes == 7 + 129 and model.ram == oled.buffer


def test_a_row_draws_only_its_changed_cells_until_something_else_drew() -> None:
    """A row redraws only the cells whose characters changed (the mark ">"
    at column 0 and the card at 13..15: four cells, not sixteen); after
    ``forget()`` -- something else drew on the display, as the self-test does
    -- each row is drawn whole at its next change (Screens.draw_rows)."""
    from table.rows import RowWriter
    from table.screens import Screens
    _bus, _model, oled = make()
    w = RowWriter(oled)

    def seat_row(mark, card):
        w.begin(2)
        w.put(ord(mark))
        w.add("Cora")
        w.right()
        w.add(card)
        w.end()
    seat_row(">", "")
    page = bytes(oled.buffer[256:384])
    oled.buffer[256 + 8 * 7] = 0x5A          # a stray byte in cell 7 (not the row's)
    seat_row(" ", "H10")
    after = bytes(oled.buffer[256:384])
    assert after[8 * 7] == 0x5A                       # cell 7 was not drawn again
    assert after[8:8 * 7] == page[8:8 * 7] and after[8 * 8:8 * 13] == page[8 * 8:8 * 13]
    assert after[:8] != page[:8]                      # the mark's cell was
    assert after[8 * 13:] != page[8 * 13:]
    screens = Screens(oled)
    screens.w = w
    screens.draw_rows([("", False)] * 2 + [(" Cora        H10", False)] + [("", False)] * 5)
    assert oled.buffer[256 + 8 * 7] == 0x5A           # the row did not change: not drawn
    seat_row(">", "H10")
    assert oled.buffer[256 + 8 * 7] == 0                # changed after forget: drawn whole


def test_a_mark_that_misses_a_change_still_gets_it_shown() -> None:
    """A mark only chooses what goes first: a pixel drawn outside it keeps
    the page dirty, and the next show sends the page whole."""
    bus, model, oled = make()
    oled.text(">", 64, 24)
    oled.pixel(3, 25, 1)             # not marked
    oled.mark(3, 64, 71)
    assert oled.show() == 1
    assert model.commands[-2:] == [(0x21, 64, 71), (0x22, 3, 3)]
    assert oled.dirty_pages() == 1 << 3 and model.ram != oled.buffer
    bus.reset_counts()
    assert oled.show() == 1 and bus.bytes == 7 + 129
    assert model.ram == oled.buffer and oled.dirty_pages() == 0


def test_drawing_helpers_match_pixel_for_pixel() -> None:
    bus, model, oled = make()
    oled.text("Herz", 3, 5)  # not on the 8-pixel grid: spans pages 0 and 1
    oled.hline(0, 63, 128, 1)
    oled.vline(127, 0, 64, 1)
    oled.rect(20, 30, 40, 12, 1)
    oled.line(0, 0, 60, 25, 1)
    oled.show()
    assert model.ram == oled.buffer
    for y in range(64):
        for x in range(128):
            assert model.visible(x, y) == oled.pixel(x, y), (x, y)


def test_contrast_power_save_and_invert_show_in_the_model() -> None:
    bus, model, oled = make()
    oled.text_line(0, "Hi")
    oled.show()
    lit = model.lit_count()
    assert lit > 0
    bus.reset_counts()
    oled.contrast(10)
    assert model.contrast == 10 and bus.transactions == 1 and bus.bytes == 3
    bright = model.to_png(scale=1)
    oled.contrast(255)
    assert model.contrast == 255 and model.to_png(scale=1) != bright
    oled.power_save(True)
    assert not model.display_on and model.lit_count() == 0
    oled.power_save(False)
    assert model.display_on and model.lit_count() == lit
    oled.invert(True)
    assert model.inverted and model.lit_count() == 128 * 64 - lit
    oled.invert(False)
    assert model.lit_count() == lit
    assert model.unknown == []


def test_writes_survive_a_bus_error() -> None:
    bus, model, oled = make()
    oled.text_line(2, "x")
    del bus.devices[ADDR]  # the display drops off the bus
    with pytest.raises(OSError):
        oled.show()
    bus.attach(ADDR, model)
    assert oled.dirty_pages() == 1 << 2  # still dirty: sent again next time
    assert oled.show() == 1 and model.ram == oled.buffer


def test_no_display_answering_is_not_an_error_until_shown() -> None:
    """Nothing at 0x3C or 0x3D (none fitted, SDA/SCL swapped): the driver is made,
    draws into its buffer, and ``show()`` raises OSError as for a loose wire."""
    from drivers import ssd1306

    bus = I2CBus()
    oled = ssd1306.SSD1306(bus)
    assert not oled.present and oled.found() == "" and oled.addr == ADDR
    oled.text_line(0, "hello")
    with pytest.raises(OSError):
        oled.show()
    with pytest.raises(OSError):
        oled.init_display(clear=False)
    model = SSD1306Model()
    bus.attach(0x3D, model)                   # a module strapped to SA0 = 1
    oled.init_display(clear=False)
    assert oled.present and oled.found() == "0x3d"
    assert model.ram == oled.buffer and model.text_rows()[0].startswith("hello")


def test_display_at_0x3d_is_found_by_the_constructor() -> None:
    from drivers import ssd1306

    bus = I2CBus()
    model = bus.attach(0x3D, SSD1306Model())
    oled = ssd1306.SSD1306(bus)
    assert oled.present and oled.addr == 0x3D and model.display_on
    oled.text_line(1, "x")
    assert oled.show() == 1 and model.ram == oled.buffer


def test_model_decodes_page_mode_and_co_bit_commands() -> None:
    # a micropython-lib style driver: each command byte with its own 0x80 control
    # byte, and page addressing with 0xB0 | page and the column nibbles
    bus = I2CBus()
    model = bus.attach(ADDR, SSD1306Model())
    assert isinstance(model, SSD1306Model)
    for c in (0xAE, 0x20, 0x02, 0xA1, 0xC8, 0x81, 0x33, 0x8D, 0x14, 0xAF):
        bus.writeto(ADDR, bytes((0x80, c)))
    assert model.mem_mode == 2 and model.contrast == 0x33 and model.display_on
    bus.writeto(ADDR, bytes((0x80, 0xB5, 0x80, 0x0A, 0x80, 0x11)))  # page 5, column 0x1A
    bus.writeto_mem(ADDR, 0x40, b"\x01\x02\x03")
    assert model.ram[5 * 128 + 0x1A:5 * 128 + 0x1D] == b"\x01\x02\x03"
    # vertical mode: data walks down the pages of a 2-column window
    bus.writeto(ADDR, bytes((0x00, 0x20, 0x01, 0x21, 4, 5, 0x22, 6, 7)))
    bus.writeto(ADDR, bytes((0x40, 1, 2, 3, 4)))
    assert (model.ram[6 * 128 + 4], model.ram[7 * 128 + 4],
            model.ram[6 * 128 + 5], model.ram[7 * 128 + 5]) == (1, 2, 3, 4)
    assert model.unknown == []
    bus.writeto(ADDR, bytes((0x80, 0xFE)))
    assert model.unknown == [0xFE]


def test_png_is_valid(tmp_path: Path) -> None:
    bus, model, oled = make()
    oled.text_line(0, "Tapp")
    oled.show()
    path = model.save_png(tmp_path / "screen.png", scale=3)
    data = path.read_bytes()
    assert data[:8] == b"\x89PNG\r\n\x1a\n"
    length, kind = struct.unpack(">I4s", data[8:16])
    assert kind == b"IHDR" and length == 13
    w, h, depth, colour = struct.unpack(">IIBB", data[16:26])
    assert (w, h, depth, colour) == ((128 + 4) * 3, (64 + 4) * 3, 8, 0)
    assert zlib.crc32(data[12:29]) & 0xFFFFFFFF == struct.unpack(">I", data[29:33])[0]
    # decode IDAT and check a lit and a dark pixel
    pos = 33
    idat = b""
    while pos < len(data):
        n, k = struct.unpack(">I4s", data[pos:pos + 8])
        if k == b"IDAT":
            idat += data[pos + 8:pos + 8 + n]
        pos += 12 + n
    raw = zlib.decompress(idat)
    assert len(raw) == h * (w + 1)
    stride = w + 1

    def px(x: int, y: int) -> int:
        return raw[((y + 2) * 3) * stride + 1 + (x + 2) * 3]

    lit = next((x, y) for y in range(8) for x in range(128) if model.visible(x, y))
    assert px(*lit) > 0 and px(127, 63) == 0
    assert data.endswith(b"IEND\xaeB`\x82")


def test_terminal_render() -> None:
    bus, model, oled = make()
    oled.fill_rect(0, 0, 4, 1, 1)  # row 0 only: upper half blocks
    oled.fill_rect(0, 3, 2, 1, 1)  # row 3 only: lower half in text row 1
    oled.fill_rect(0, 4, 3, 2, 1)  # rows 4-5: full blocks in text row 2
    oled.show()
    lines = model.to_text().split("\n")
    assert len(lines) == 32
    assert lines[0] == "▀▀▀▀" and lines[1] == "▄▄" and lines[2] == "███"
    assert model.to_text(ascii_only=True).split("\n")[:3] == ['""""', ",,", "###"]
    oled.text_line(0, "Herzblatt")
    oled.show()
    print("\n" + "\n".join(model.to_text().split("\n")[:4]))


def test_fbuf_text_matches_micropython_framebuf() -> None:
    # the host stand-in draws text exactly like the device's C framebuf
    code = (
        "import framebuf, binascii\n"
        "b = bytearray(1024)\n"
        "fb = framebuf.FrameBuffer(b, 128, 64, framebuf.MONO_VLSB)\n"
        "fb.text('W\\xfcrttemberg 0123', 3, 5, 1)\n"
        "fb.fill_rect(0, 40, 50, 9, 1)\n"
        "fb.text('OK', 8, 41, 0)\n"
        "fb.line(0, 0, 127, 63, 1)\n"
        "fb.rect(60, 30, 20, 10, 1)\n"
        "print(binascii.hexlify(b).decode())\n"
    )
    try:
        r = mpvm.run_unix(code)
    except mpvm.MPVMError as e:
        pytest.fail(str(e), pytrace=False)
    assert r.returncode == 0, r.stdout + r.stderr
    buf = bytearray(1024)
    fb = fbuf.FrameBuffer(buf, 128, 64, fbuf.MONO_VLSB)
    fb.text("W\xfcrttemberg 0123", 3, 5, 1)
    fb.fill_rect(0, 40, 50, 9, 1)
    fb.text("OK", 8, 41, 0)
    fb.line(0, 0, 127, 63, 1)
    fb.rect(60, 30, 20, 10, 1)
    assert buf.hex() == r.stdout.strip()


def test_segment_remap_acts_on_later_writes_only() -> None:
    # datasheet 10.1.8: the re-map (0xA0/0xA1) changes how column addresses map
    # to segments for data written afterwards; data already in GDDRAM stays put
    bus, model, oled = make()
    oled.fill_rect(0, 0, 3, 8, 1)  # columns 0..2 of page 0, written with 0xA1 (init)
    oled.show()
    before = [[model.visible(x, y) for x in range(128)] for y in range(64)]
    assert model.visible(0, 0) and model.visible(2, 7) and not model.visible(127, 0)
    bus.writeto(ADDR, bytes((0x00, 0xA0)))  # re-map off
    assert not model.seg_remap
    assert [[model.visible(x, y) for x in range(128)] for y in range(64)] == before
    assert model.ram == oled.buffer  # RAM unchanged
    # new data at column addresses 0..3 of page 2 lands mirrored: screen columns 127..124
    bus.writeto(ADDR, bytes((0x00, 0x21, 0, 3, 0x22, 2, 2)))
    bus.writeto(ADDR, bytes((0x40, 0x01, 0x03, 0x07, 0x0F)))
    assert [model.ram[2 * 128 + x] for x in (127, 126, 125, 124)] == [1, 3, 7, 15]
    assert model.ram[2 * 128:2 * 128 + 4] == bytes(4)
    assert model.visible(127, 16) and not model.visible(127, 17)
    assert model.visible(124, 19) and not model.visible(0, 16)
    # the old data has not moved, and switching back moves nothing either
    assert all(model.visible(x, y) == before[y][x] for y in range(8) for x in range(128))
    snapshot = bytes(model.ram)
    bus.writeto(ADDR, bytes((0x00, 0xA1)))
    assert bytes(model.ram) == snapshot and model.visible(127, 16) and model.visible(0, 0)
    # and with the re-map on again, column address 0 is screen column 0
    bus.writeto(ADDR, bytes((0x00, 0x21, 0, 0, 0x22, 3, 3)))
    bus.writeto(ADDR, bytes((0x40, 0x80)))
    assert model.ram[3 * 128] == 0x80 and model.visible(0, 31)


def _spi_rig():
    """The driver's SPI panel (SSD1306Spi) on the emulated SPI bus: the model
    behind chip-select, D/C# and RES# pins, as boards/common.py wires it."""
    from drivers import ssd1306
    from host_sim.spi_bus import SpiBus
    from host_sim.ssd1306_model import SpiPanel

    bus = SpiBus(baudrate=4_000_000)
    cs, dc, res = bus.pin("cs"), bus.pin("dc", 0), bus.pin("res")
    model = SSD1306Model()
    bus.attach(SpiPanel(model, dc, res), cs)
    return bus, model, ssd1306.SSD1306Spi(bus, (cs, dc, res), bus.sleep_us)


def test_the_panel_on_spi_shows_what_the_panel_on_i2c_shows() -> None:
    """Same drawing, same picture: the SPI panel's GDDRAM equals the driver's
    buffer and the I2C panel's, through a run of pages and a marked change
    (on I2C its span, on SPI its whole page: 0.26 ms at 4 MHz, less than the
    span's copying); the reset pulse came first and D/C# told commands from
    data."""
    spi_bus, spi_model, spi_oled = _spi_rig()
    _i2c_bus, i2c_model, i2c_oled = make()
    assert spi_model.resets == 1 and spi_model.unknown == []
    assert spi_model.display_on and spi_model.mem_mode == 0 and spi_model.charge_pump
    assert spi_oled.present and spi_oled.found() == "SPI"
    for oled in (spi_oled, i2c_oled):
        oled.text_line(0, "Tapp  Runde 3")
        oled.fill_rect(10, 20, 30, 20, 1)
        assert oled.show() == 4
        oled.mark(0, 40, 47)
        oled.text(">", 40, 0)
    spi_model.reset_counts()
    assert spi_oled.show() == i2c_oled.show() == 1
    assert spi_model.commands == [(0x21, 0, 127), (0x22, 0, 0)] and spi_model.data_bytes == 128
    assert spi_model.ram == spi_oled.buffer == i2c_model.ram
    assert spi_model.text_rows()[0] == i2c_model.text_rows()[0]
    # a whole screen on SPI: the window's 6 bytes and 1024 of data, no control bytes
    spi_bus.bytes = 0
    spi_oled.fill(1)
    assert spi_oled.show(full=True) == 8
    assert spi_bus.bytes == 6 + 1024 and spi_model.ram == spi_oled.buffer
    print(f"\nfull update on SPI: {spi_bus.bytes} bytes, "
          f"{spi_bus.bytes * 8 / 4_000_000 * 1000:.2f} ms at 4 MHz (I2C 400 kHz: 23 ms)")


def test_power_save_contrast_and_invert_on_spi() -> None:
    _bus, model, oled = _spi_rig()
    oled.contrast(0x20)
    oled.invert(True)
    oled.power_save(True)
    assert model.contrast == 0x20 and model.inverted and not model.display_on
    oled.power_save(False)
    oled.init_display(clear=False)
    assert model.display_on and not model.inverted and model.unknown == []
