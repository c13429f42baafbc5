"""German text and card symbols on the display (firmware/table/font.py) under CPython.

The real SSD1306 driver draws on the chip model (host_sim), and the pixels are
read back from the model: every extra glyph is distinct (from each other, the
placeholder box and framebuf's ASCII font), lower-case umlauts are framebuf's
letters plus dots above the x-height, capital umlauts keep the baseline,
lengths count characters, ``line`` clears its row, inverted rows, text cut at
the right edge, unknown characters as boxes, and ``text_rows()`` reads it all
back; tests/mp/mptest_font.py (the same pixels inside MicroPython) passes here
too. The picture in the firmware README (docs/images/font-sample.png) is
checked to be the current rendering; ``python tests/test_font.py`` rewrites it.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from drivers import fbuf
from host_sim.board import display_rig
from host_sim.ssd1306_model import PLACEHOLDER_CHAR, SSD1306Model
from table import font

ROOT = Path(__file__).resolve().parent.parent

SAMPLE_PNG = ROOT / "docs" / "images" / "font-sample.png"
BOX = "\u00e9"  # a character without a glyph: drawn as the placeholder box
EXTRA = font.CHARS  # ä ö ü Ä Ö Ü ß ♣ ♠ ♥ ♦ → · and the German suits


def cell(model: SSD1306Model, col: int, row: int) -> tuple[tuple[int, ...], ...]:
    """The 8x8 pixels of text cell (col, row) as the model shows them, row by row."""
    return tuple(tuple(model.visible(8 * col + x, 8 * row + y) for x in range(8))
                 for y in range(8))


def drawn(s: str) -> tuple[SSD1306Model, list[tuple[tuple[int, ...], ...]]]:
    """Draw s through driver and model, 16 characters a text row from row 0;
    the model's cells per character."""
    bus, model, oled = display_rig()
    for row in range(0, len(s), 16):
        font.line(oled, row // 16, s[row:row + 16])
    oled.show()
    return model, [cell(model, i % 16, i // 16) for i in range(len(s))]


def ascii_cell(ch: str) -> tuple[tuple[int, ...], ...]:
    off = (ord(ch) - 32) * 8
    cols = fbuf.FONT[off:off + 8]
    return tuple(tuple((cols[x] >> y) & 1 for x in range(8)) for y in range(8))


def test_glyph_data_shape() -> None:
    assert isinstance(font.GLYPHS, bytes)
    assert len(font.CHARS) == 17 and len(set(font.CHARS)) == 17
    assert font.PLACEHOLDER == len(font.CHARS)
    assert len(font.GLYPHS) == 8 * (len(font.CHARS) + 1)
    assert EXTRA == "äöüÄÖÜß\u2663\u2660\u2665\u2666\u2192\u00b7\ue000\ue001\ue002\ue003"
    assert all(ord(ch) > 127 for ch in EXTRA)
    assert [font.glyph_index(ch) for ch in EXTRA] == list(range(17))
    assert font.glyph_index("A") == -1 and font.glyph_index(BOX) == font.PLACEHOLDER


def test_every_glyph_is_distinct_and_not_the_placeholder() -> None:
    model, cells = drawn(EXTRA + BOX)
    box = cells[-1]
    assert box == cells[-1] and sum(map(sum, box)) > 0  # visible
    glyphs = dict(zip(EXTRA, cells[:-1], strict=True))
    for ch, c in glyphs.items():
        assert sum(map(sum, c)) > 0, ch
        assert c != box, ch
    assert len(set(glyphs.values())) == len(glyphs)
    # and none looks like an ASCII character of framebuf's font, nor the box
    ascii_cells = {ascii_cell(chr(code)): chr(code) for code in range(32, 127)}
    for ch, c in list(glyphs.items()) + [(BOX, box)]:
        assert c not in ascii_cells, (ch, ascii_cells.get(c))
    # text_rows() stays unambiguous for inverted rows: no glyph is another's negative
    keys = {bytes(font.GLYPHS[i:i + 8]) for i in range(0, len(font.GLYPHS), 8)}
    keys |= {bytes(fbuf.FONT[i:i + 8]) for i in range(0, 95 * 8, 8)}
    for i in range(0, len(font.GLYPHS), 8):
        assert bytes(b ^ 0xFF for b in font.GLYPHS[i:i + 8]) not in keys


def test_glyph_pixels_are_the_data() -> None:
    # the model shows exactly GLYPHS: column bytes, bit 0 on top (MONO_VLSB)
    model, cells = drawn(EXTRA + BOX)
    for i, c in enumerate(cells):
        cols = font.GLYPHS[8 * i:8 * i + 8]
        assert c == tuple(tuple((cols[x] >> y) & 1 for x in range(8)) for y in range(8))


def test_the_pictures_in_font_py_are_the_data() -> None:
    # the '#'/'.' drawings in font.py's comments show exactly the glyph bytes
    src = (ROOT / "firmware" / "table" / "font.py").read_text(encoding="utf-8").splitlines()
    art = [ln[4:].split() for ln in src if ln.startswith("#   ") and set(ln[4:]) <= set("#. ")]
    art = [row for row in art if row]
    assert len(art) == 24  # three bands of 8 rows
    pictures = []
    for band in (art[:8], art[8:16], art[16:]):
        for g in range(len(band[0])):
            pictures.append([band[y][g] for y in range(8)])
    assert len(pictures) == len(font.CHARS) + 1
    for i, rows in enumerate(pictures):
        cols = bytes(sum(1 << y for y in range(8) if rows[y][x] == "#") for x in range(8))
        assert cols == font.GLYPHS[8 * i:8 * i + 8], i


@pytest.mark.parametrize(("umlaut", "base"), [("ä", "a"), ("ö", "o"), ("ü", "u")])
def test_lower_case_umlauts_differ_only_above_the_x_height(umlaut: str, base: str) -> None:
    model, cells = drawn(umlaut + base)
    u, b = cells
    assert b == ascii_cell(base)  # the base letter comes from framebuf's font
    assert u[2:] == b[2:]  # x-height (rows 2-6) and descender row unchanged
    assert not any(b[0]) and not any(b[1])  # nothing above the x-height in the base
    assert sum(u[0]) == 4 and not any(u[1])  # two 2-pixel dots, one row of air
    assert u[0] == (0, 1, 1, 0, 0, 1, 1, 0)


@pytest.mark.parametrize(("umlaut", "base", "small"), [("Ä", "A", "ä"), ("Ö", "O", "ö"),
                                                       ("Ü", "U", "ü")])
def test_capital_umlauts_fit_eight_rows_on_the_baseline(umlaut: str, base: str,
                                                       small: str) -> None:
    model, cells = drawn(umlaut + base + small)
    u, b, s = cells
    assert u[6] == b[6]  # the same bottom row on the baseline
    assert not any(u[7]) and not any(b[7])  # no descender
    assert any(u[0]) and any(b[0])  # dots in row 0, where the capital begins
    assert u != b and u != s  # neither the plain capital nor the lower-case umlaut
    # the squeezed body is still as wide as the capital's
    assert [any(r[x] for r in u[1:]) for x in range(8)] == [
        any(r[x] for r in b) for x in range(8)]


def test_sharp_s_and_symbols_sit_in_the_cell() -> None:
    model, cells = drawn("ß\u2663\u2660\u2665\u2666\u2192\u00b7")
    ss, *symbols = cells
    assert any(ss[0]) and any(ss[6]) and any(ss[7])  # ascender height, descender
    for c in symbols:
        assert not any(c[7])  # on the baseline like capitals
        assert not any(r[0] for r in c)  # column 0 free: a gap to the glyph before
    suits = symbols[:4]
    assert all(sum(r.count(1) for r in c) >= 20 for c in suits)  # solid, readable
    dot = symbols[-1]
    assert sum(map(sum, dot)) == 4 and dot[3][3] and dot[4][4]


def test_width_and_fit_count_characters() -> None:
    assert font.width("") == 0
    assert font.width("Käse") == 32 and len("Käse".encode()) == 5
    assert font.width("\u266510") == 24
    assert font.width("Grüße ÄÖÜ \u2192 \u00b7") == 8 * 13
    assert font.fit("Würfelbecher", 3) == "Wür"
    assert font.fit("\u2665\u2660\u2666\u2663", 2) == "\u2665\u2660"
    s = "Farbe"
    assert font.fit(s, 5) is s and font.fit(s, 16) is s  # no copy when nothing is cut
    assert font.fit(s, 0) == "" and font.fit(s, -1) == ""
    assert font.COLUMNS == 16 and font.WIDTH == 128


def test_text_returns_the_pen_position_and_reads_back() -> None:
    bus, model, oled = display_rig()
    x = font.text(oled, "K\u00f6nig", 0, 8)
    assert x == 40
    x = font.text(oled, " \u2665" + "10", x, 8)
    assert x == 72
    assert font.text(oled, "ab", 8, 16, 1) == 24
    oled.show()
    assert model.text_rows()[1] == "König ♥10"
    assert model.text_rows()[2] == " ab"


def test_text_rows_reads_every_glyph() -> None:
    bus, model, oled = display_rig()
    font.line(oled, 0, "Grüße aus Ulm")
    font.line(oled, 1, "ÄÖÜ äöü ß")
    font.line(oled, 2, "\u266510 \u2660Q \u2666A \u26637")
    font.line(oled, 3, "OK \u2192 weiter \u00b7 1")
    font.line(oled, 4, "caf" + BOX + " \u20ac5 \U0001f0a1")
    oled.show()
    rows = model.text_rows()
    assert rows[0] == "Grüße aus Ulm"
    assert rows[1] == "ÄÖÜ äöü ß"
    assert rows[2] == "♥10 ♠Q ♦A ♣7"
    assert rows[3] == "OK → weiter · 1"
    # unknown characters: one box each (also a 4-byte one), never dropped
    assert rows[4] == "caf" + PLACEHOLDER_CHAR + " " + PLACEHOLDER_CHAR + "5 " + PLACEHOLDER_CHAR


def test_line_clears_its_row_only() -> None:
    bus, model, oled = display_rig()
    oled.fill(1)
    font.line(oled, 3, "Stich \u2665")
    oled.show()
    assert model.text_rows()[3] == "Stich ♥"
    for y in range(64):
        if 24 <= y < 32:
            continue
        assert all(model.visible(x, y) for x in range(128)), y  # other rows untouched
    assert not any(model.visible(x, y) for y in range(24, 32) for x in range(56, 128))
    # drawing a shorter text over a longer one leaves nothing behind
    font.line(oled, 3, "Ü")
    oled.show()
    assert model.text_rows()[3] == "Ü"
    assert not any(model.visible(x, y) for y in range(24, 32) for x in range(8, 128))


def test_inverted_row_is_the_negative() -> None:
    s = "Trumpf: \u2665 \u00c4"
    bus, model, oled = display_rig()
    font.line(oled, 5, s)
    font.line(oled, 6, s, invert=True)
    font.line(oled, 7, s, True)
    oled.show()
    for y in range(8):
        for x in range(128):
            lit = model.visible(x, 40 + y)
            assert model.visible(x, 48 + y) == 1 - lit, (x, y)
            assert model.visible(x, 56 + y) == 1 - lit, (x, y)
    assert model.text_rows()[5:8] == [s, s, s]
    # back to normal: the same row redrawn without inversion
    font.line(oled, 6, s)
    oled.show()
    assert [model.visible(x, 48 + y) for y in range(8) for x in range(128)] == [
        model.visible(x, 40 + y) for y in range(8) for x in range(128)]


def test_long_text_is_cut_at_the_right_edge() -> None:
    bus, model, oled = display_rig()
    long_mixed = "Ä\u2665b" * 8  # 24 characters, mixed path
    long_ascii = "0123456789abcdefXYZ"  # 19 characters, one display.text call
    font.line(oled, 0, long_mixed)
    font.line(oled, 1, long_ascii, invert=True)
    oled.show()
    rows = model.text_rows()
    assert rows[0] == long_mixed[:16] and rows[1] == long_ascii[:16]
    assert model.text_rows()[2:] == [""] * 6  # no wrap into the next rows
    assert font.text(oled, long_mixed, 0, 16) == 8 * 24  # the pen goes on


class Recorder:
    """A minimal display: records the calls the font makes."""

    def __init__(self, width: int | None = None) -> None:
        self.calls: list[tuple] = []
        if width is not None:
            self.width = width

    def text(self, s: str, x: int, y: int, c: int) -> None:
        self.calls.append(("text", s, x, y, c))

    def pixel(self, x: int, y: int, c: int) -> None:
        self.calls.append(("pixel", x, y, c))

    def fill_rect(self, x: int, y: int, w: int, h: int, c: int) -> None:
        self.calls.append(("fill_rect", x, y, w, h, c))


def test_ascii_goes_to_display_text_and_nothing_is_drawn_off_screen() -> None:
    d = Recorder()
    s = "Farbe bedienen!"
    assert font.text(d, s, 4, 9, 0) == 4 + 8 * 15
    assert d.calls == [("text", s, 4, 9, 0)]  # one call with the very string
    assert d.calls[0][1] is s
    d = Recorder()
    font.line(d, 2, "a\u00e4b")  # no text_line: clears with fill_rect
    assert d.calls[0] == ("fill_rect", 0, 16, 128, 8, 0)
    assert d.calls[1] == ("text", "a", 0, 16, 1)
    assert d.calls[-1] == ("text", "b", 16, 16, 1)
    pixels = [c for c in d.calls if c[0] == "pixel"]
    assert {c[1] for c in pixels} <= set(range(8, 16)) and all(c[3] == 1 for c in pixels)
    assert len(pixels) == sum(bin(b).count("1") for b in font.GLYPHS[:8])
    d = Recorder(width=40)  # a display's own width is its right edge
    font.text(d, "\u2665" * 10, 0, 0)
    assert max(c[1] for c in d.calls) == 39
    d = Recorder()
    font.text(d, "x\u2665" * 20, 0, 0)
    assert max(c[1] for c in d.calls if c[0] == "pixel") < 128
    assert max(c[2] for c in d.calls if c[0] == "text") < 128


def test_works_on_a_bare_framebuffer() -> None:
    # any object with text/pixel/fill_rect: the same pixels as through the driver
    buf = bytearray(1024)
    fb = fbuf.FrameBuffer(buf, 128, 64, fbuf.MONO_VLSB)
    bus, model, oled = display_rig()
    for d in (fb, oled):
        font.line(d, 0, "Größe \u2665 \u2192 é")
        font.line(d, 4, "Über \u2660Q", invert=True)
        font.text(d, "ä\u2666", 3, 50)
    oled.show()
    assert buf == oled.buffer == model.ram


def test_the_micropython_checks_pass_under_cpython() -> None:
    # tests/mp/mptest_font.py pins the pixels by hashes taken here: the VMs must match
    import importlib.util

    spec = importlib.util.spec_from_file_location(
        "mptest_font", ROOT / "tests" / "mp" / "mptest_font.py")
    assert spec is not None and spec.loader is not None
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    names = sorted(n for n in dir(mod) if n.startswith("test_"))
    assert len(names) == 7
    for n in names:
        getattr(mod, n)()


def sample_screen() -> SSD1306Model:
    bus, model, oled = display_rig()
    font.line(oled, 0, "  Württemberg", invert=True)
    font.line(oled, 1, "Stich 3 \u00b7 Sitz 2")
    font.line(oled, 2, "\u266510 \u2660Q \u2666A \u26637")
    font.line(oled, 3, "Farbe bedienen!")
    font.line(oled, 4, "Must follow suit")
    font.line(oled, 5, "Trumpf: \u2665 Herz")
    font.line(oled, 6, "Größe: ÄÖÜ äöüß")
    font.line(oled, 7, " OK \u2192 weiter", invert=True)
    oled.show()
    return model


def test_sample_screen_picture_is_current() -> None:
    model = sample_screen()
    assert model.text_rows() == [
        "  Württemberg", "Stich 3 · Sitz 2", "♥10 ♠Q ♦A ♣7", "Farbe bedienen!",
        "Must follow suit", "Trumpf: ♥ Herz", "Größe: ÄÖÜ äöüß", " OK → weiter"]
    assert SAMPLE_PNG.is_file(), "run: .venv/bin/python tests/test_font.py"
    assert SAMPLE_PNG.read_bytes() == model.to_png(), (
        "docs/images/font-sample.png is stale; run: .venv/bin/python tests/test_font.py")
    print("\n" + model.to_text())


if __name__ == "__main__":
    SAMPLE_PNG.parent.mkdir(parents=True, exist_ok=True)
    print(sample_screen().save_png(SAMPLE_PNG))
