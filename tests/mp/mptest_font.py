# German text and card symbols (firmware/table/font.py) under real MicroPython.
#
# * identical pixels on every runtime: a sample screen drawn through the real
#   SSD1306 driver (C framebuf in both VMs, drivers/fbuf.py on CPython) hashes to
#   SCREEN_SHA256, and the calls a bare recording display receives hash to
#   CALLS_SHA256 -- both constants come from CPython, and tests/test_font.py runs
#   this module there too;
# * the extra glyphs land in the framebuffer byte for byte as font.GLYPHS, the
#   ASCII around them as the C framebuf draws it;
# * allocation: once the characters of a string have been met (iterating a str
#   interns each character the first time the VM meets it, which takes heap only
#   when the qstr pool needs a new chunk), ``line`` and ``text`` allocate
#   nothing -- micropython.heap_lock() on both VMs, and mem_total() deltas of 0
#   on the unix port (printed).
import binascii
import hashlib

from drivers import ssd1306
from table import font

try:
    import micropython
except ImportError:  # CPython
    micropython = None

SCREEN = (
    ("  W\u00fcrttemberg", True),
    ("Stich 3 \u00b7 Sitz 2", False),
    ("\u266510 \u2660Q \u2666A \u26637", False),
    ("Farbe bedienen!", False),
    ("Must follow suit", False),
    ("Gr\u00f6\u00dfe: \u00c4\u00d6\u00dc \u00e4\u00f6\u00fc\u00df", False),
    ("caf\u00e9 \u20ac \U0001f0a1 \u2192 \u00b7 zu lang f\u00fcr eine Zeile", False),
    (" OK \u2192 weiter", True),
)
UMLAUTS = "K\u00f6nig \u00fcber \u00c4\u00d6\u00dc \u00df"
SYMBOLS = "\u266510 \u2660Q \u2192 \u00b7"
SCREEN_SHA256 = "15061b616906b00b92f34eb6efecaef8deb47246b0aea259fc4332d1fc29da9a"
CALLS_SHA256 = "01056a41231ba0b1bc2bda0c1aa49fae30026f12ba1d13893d97263741c84949"


class NullI2C:
    def writeto(self, addr, buf, stop=True):
        return len(buf) + 1

    def writevto(self, addr, vector, stop=True):
        return 1


class Recorder:
    """A display without framebuf: keeps every call it gets as text."""

    def __init__(self):
        self.log = []

    def text(self, s, x, y, c):
        self.log.append("t %s %d %d %d" % (binascii.hexlify(s.encode()).decode(), x, y, c))

    def pixel(self, x, y, c):
        self.log.append("p %d %d %d" % (x, y, c))

    def fill_rect(self, x, y, w, h, c):
        self.log.append("r %d %d %d %d %d" % (x, y, w, h, c))


def _sha(data):
    return binascii.hexlify(hashlib.sha256(data).digest()).decode()


def _screen():
    oled = ssd1306.SSD1306(NullI2C())
    row = 0
    for s, inv in SCREEN:
        font.line(oled, row, s, inv)
        row += 1
    font.text(oled, "\u00e4\u2666x", 101, 27, 1)  # off the grid, over other text
    return oled


def _mem_total():
    f = getattr(micropython, "mem_total", None) if micropython is not None else None
    return f() if f is not None else None


def _cost(fn):
    """Bytes allocated by one call of fn (mem_total; None where the port lacks it)."""
    before = _mem_total()
    fn()
    after = _mem_total()
    return None if before is None else after - before


def _locked(fn):
    if micropython is None:
        fn()
        return
    micropython.heap_lock()
    try:
        fn()
    finally:
        micropython.heap_unlock()


def test_screen_pixels_are_the_same_on_every_runtime():
    oled = _screen()
    got = _sha(bytes(oled.buffer))
    if got != SCREEN_SHA256:
        print("  screen sha256 %s, buffer:" % got)
        print("  " + binascii.hexlify(bytes(oled.buffer)).decode())
    assert got == SCREEN_SHA256, got


def test_calls_on_a_bare_display_are_the_same_on_every_runtime():
    d = Recorder()
    font.line(d, 0, "a\u00e4b \u2665", False)
    font.line(d, 7, "\u00dc" * 20 + "x", True)
    font.text(d, "Farbe bedienen!", 3, 5, 0)
    font.text(d, "\u00e9\u2192", -4, 60, 1)
    got = _sha("\n".join(d.log).encode())
    if got != CALLS_SHA256:
        print("  calls sha256 %s (%d calls)" % (got, len(d.log)))
    assert got == CALLS_SHA256, got
    assert d.log[0] == "r 0 0 128 8 0" and d.log[1] == "t 61 0 0 1"
    assert d.log[-1] != "t 61 0 0 1"


def test_glyphs_land_in_the_framebuffer_byte_for_byte():
    # every glyph, then the box for \u00e9, after an ASCII cell: 15 cells a row
    chars = font.CHARS + "\u00e9"
    oled = ssd1306.SSD1306(NullI2C())
    ref = ssd1306.SSD1306(NullI2C())
    ref.text("x", 0, 16, 1)
    i = 0
    while i <= font.PLACEHOLDER:
        row = 2 + i // 15
        if i % 15 == 0:
            font.line(oled, row, "x" + chars[i:i + 15])
        base = row * 128
        # ASCII cell: what the display's own font draws
        assert oled.buffer[base:base + 8] == ref.buffer[2 * 128:2 * 128 + 8]
        at = base + 8 * (i % 15 + 1)
        assert oled.buffer[at:at + 8] == font.GLYPHS[8 * i:8 * i + 8], i
        i += 1
    n = len(font.CHARS)
    assert font.width(font.CHARS) == 8 * n and font.fit(font.CHARS, 3) == font.CHARS[:3]


def test_line_and_text_allocate_nothing_once_the_characters_are_known():
    oled = ssd1306.SSD1306(NullI2C())
    ascii_text = "Farbe bedienen!"
    # characters met nowhere else in the VM: the first iteration interns them
    fresh = "Zw\u00f8lf \u01a9\u0416"
    first = (_cost(lambda: font.line(oled, 4, fresh)), _cost(lambda: font.line(oled, 4, fresh)))
    font.line(oled, 0, ascii_text)  # (the characters met once; a line stops at 16
    font.line(oled, 1, UMLAUTS)     # columns, so each text on a line of its own)
    font.line(oled, 2, SYMBOLS)
    warm = (_cost(lambda: font.line(oled, 0, ascii_text)),
            _cost(lambda: font.line(oled, 1, UMLAUTS)),
            _cost(lambda: font.line(oled, 2, SYMBOLS)),
            _cost(lambda: font.line(oled, 3, UMLAUTS, True)),
            _cost(lambda: font.text(oled, SYMBOLS, 5, 33, 1)))
    print("  mem_total bytes: line(%r) %s, line(%r) %s, line(%r) %s, inverted %s, text %s"
          % (ascii_text, warm[0], UMLAUTS, warm[1], SYMBOLS, warm[2], warm[3], warm[4]))
    print("  mem_total bytes: 3 characters never met before: first line %s, then %s" % first)
    if warm[0] is not None:
        assert warm == (0, 0, 0, 0, 0), warm
        assert first[1] == 0, first

    res = [0]

    def go():
        font.line(oled, 0, ascii_text)
        font.line(oled, 1, UMLAUTS)
        font.line(oled, 2, SYMBOLS, True)
        res[0] = font.text(oled, UMLAUTS, -3, 50, 1)
        res[0] += font.width(SYMBOLS)
        font.fit(UMLAUTS, 16)  # nothing cut: the same string back

    _locked(go)
    assert res[0] == -3 + 8 * 16 + 8 * 10, res[0]


def test_cells_draw_what_line_draws_plain_and_inverted():
    # cells() copies each cell's bytes straight into the display's buffer
    # (font's cell copy: machine code where the port compiles viper, else a
    # bytecode loop); line() draws the same text through the display's own text().
    # Every ASCII character (a control character as chr(127)), every glyph
    # and a character without one, plain and inverted, a row at a time.
    from array import array
    chars = "".join(chr(c) for c in range(1, 128)) + font.CHARS + "\u00e9"
    by_cells = ssd1306.SSD1306(NullI2C())
    by_line = ssd1306.SSD1306(NullI2C())
    codes = array("I", [0] * 16)          # as table/rows.py keeps a row
    k = 0
    row = 0
    while k < len(chars):
        part = chars[k:k + 16]
        n = 0
        for ch in part:
            codes[n] = ord(ch)
            n += 1
        invert = row % 2 == 1
        _locked(lambda r=row % 8, n=n, inv=invert: font.cells(by_cells, r, codes, n, inv))
        font.line(by_line, row % 8, part, invert)
        if row % 8 == 7 or k + 16 >= len(chars):
            assert bytes(by_cells.buffer) == bytes(by_line.buffer), (k, row)
        k += 16
        row += 1
    print("  %d characters compared cell by cell (the cell copy: %s)" % (
        len(chars), "machine code" if getattr(font, "font_native", None) else "bytecode"))


def test_cells_with_a_column_mask_draw_only_those_columns():
    # table/rows.py marks a row's changed columns (font.columns): only their
    # cells are drawn, the others keep what they showed
    from array import array
    a = "Anna  \u2665K  12/36"
    b = "Bert\u00e4 \u2660Q\u00fc 7/9x"
    mask = 0b1010011000110101
    expect_a = ssd1306.SSD1306(NullI2C())
    expect_b = ssd1306.SSD1306(NullI2C())
    font.line(expect_a, 3, a, True)
    font.line(expect_b, 3, b, True)
    got = ssd1306.SSD1306(NullI2C())
    codes = array("I", [ord(ch) for ch in a])
    font.cells(got, 3, codes, len(a), True)
    codes = array("I", [ord(ch) for ch in b])
    font.columns(mask)
    _locked(lambda: font.cells(got, 3, codes, len(b), True))
    for col in range(16):
        at = 3 * 128 + 8 * col
        want = (expect_b if mask >> col & 1 else expect_a).buffer[at:at + 8]
        assert got.buffer[at:at + 8] == want, col


# the UTF-8 bytes of each str as CPython's str.encode writes them (a str's
# characters below 0x80, to 0x7FF, to 0xFFFF and beyond: 1 to 4 bytes)
STRS = ("", "G:", "Bert ist dran", "B\u00e4rbel\u2665J\u00fcrg", "\u266510 \u2660Q",
        "x\U0001f0a1y", "Maximiliane ist dran", "caf\u00e9 \u20ac " * 6)


def test_a_strs_bytes_are_read_as_str_encode_writes_them():
    # table/rows.py writes a str from its bytes (font.str_bytes: machine code
    # where the port compiles viper, which reads them where the str keeps them;
    # s[i] would look a 1-character str up among the interned strings); the
    # same bytes on every runtime, -1 when they do not fit, nothing allocated
    out = bytearray(64)
    ways = [font.str_bytes]
    native = getattr(font, "font_native", None)
    if native is not None:
        ways.append(_python_str_bytes())
    for way in ways:
        for s in STRS:
            for n in range(len(s) + 1):
                want = s[:n].encode()
                got = way(s, n, out)
                if len(want) > len(out):
                    assert got == -1, (s, n, got)
                else:
                    assert got == len(want) and bytes(out[:got]) == want, (s, n, got)
    s = STRS[3]
    _locked(lambda: font.str_bytes(s, len(s), out))
    print("  str_bytes: %s" % ("machine code and bytecode agree" if native else "bytecode"))


def _python_str_bytes():
    """font.str_bytes's own bytecode (the port's machine code replaced it)."""
    import sys
    saved = sys.modules.pop("table.font_native", None)
    sys.modules["table.font_native"] = None        # the import fails: the bytecode stays
    try:
        sys.modules.pop("table.font")
        import table.font as plain
        return plain.str_bytes
    finally:
        sys.modules.pop("table.font", None)
        sys.modules["table.font"] = font
        if saved is not None:
            sys.modules["table.font_native"] = saved
        else:
            sys.modules.pop("table.font_native", None)
