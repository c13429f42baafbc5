"""UTF-8 text on the 8x8 display font, with German letters and card symbols.

MicroPython's ``framebuf`` font (and its stand-in ``drivers/fbuf.py``) has
ASCII only: it draws every UTF-8 byte of "König" as one cell, so umlauts
come out as two checkerboard cells and shift the rest of the line. This module
draws ASCII with the display's own ``text()`` and these characters with its own
glyphs (same cell, cap height rows 0-6, baseline row 6, descender row 7):

    ä ö ü Ä Ö Ü ß   ♣ ♠ ♥ ♦ (U+2663 U+2660 U+2665 U+2666)   → (U+2192)   · (U+00B7)
    and the German suits Eichel, Grün, Herz, Schellen (U+E000..U+E003, private
    use: Unicode has no German suit symbols; table/names.py names them)

Every other non-ASCII character draws as a box (``PLACEHOLDER``): never dropped,
never transliterated. Lengths count characters, not UTF-8 bytes.

The display is any object with ``text(s, x, y, c)`` and ``pixel(x, y, c)``
(``line`` also uses ``fill_rect(x, y, w, h, c)``, or ``text_line`` where the
display has it; an optional ``width`` attribute is the right edge, else 128):
``drivers.ssd1306.SSD1306`` or a bare ``framebuf.FrameBuffer``.

Allocation (MicroPython): drawing allocates nothing once each character of the
string has been seen before. Iterating a str makes a 1-character str per step,
which the VM interns as a qstr the first time it meets that character; that
takes heap only when the qstr pool needs a new chunk (measured on the unix port:
0 to 1808 bytes on a first call with new characters, 0 on every later call).
A string with only ASCII goes to ``display.text`` in one call; a mixed string
draws its ASCII characters one by one (no slices). The functions are split
so that every call frame stays within MicroPython's 11-word limit for frames
on the C stack (a larger frame would be allocated on the heap at each call).
The pen state lives in one module-level list, so drawing is not re-entrant
(one thread draws).
"""

from drivers.font8x8 import FONT

try:
    from micropython import const
except ImportError:  # CPython
    const = lambda x: x  # noqa: E731

WIDTH = const(128)  # default right edge: the SSD1306's 128 columns
COLUMNS = const(16)  # characters per text row at 8 pixels each
PLACEHOLDER = const(17)  # glyph index of the box for characters without a glyph

# The characters with their own glyph; the glyph of CHARS[i] is GLYPHS[8 * i:8 * i + 8].
CHARS = ("\u00e4\u00f6\u00fc\u00c4\u00d6\u00dc\u00df\u2663\u2660\u2665\u2666\u2192\u00b7"
         "\ue000\ue001\ue002\ue003")

# 8 column bytes per glyph, left to right, bit 0 = top row (MONO_VLSB, as the
# framebuf font). Lower-case umlauts are framebuf's a/o/u (rows 2-7 unchanged)
# with dots in row 0; capital umlauts are squeezed to rows 1-6 under the dots.
#   0 ä      1 ö      2 ü      3 Ä      4 Ö      5 Ü      6 ß
#   .##..##. .##..##. .##..##. .##..##. .#....#. ..#..#.. ..###...
#   ........ ........ ........ ...##... ..####.. .#....#. .##.##..
#   ..####.. ..####.. .##..##. ..####.. .##..##. .##..##. .##.##..
#   .....##. .##..##. .##..##. .##..##. .##..##. .##..##. .##.###.
#   ..#####. .##..##. .##..##. .######. .##..##. .##..##. .##...##
#   .##..##. .##..##. .##..##. .##..##. .##..##. .##..##. .##...##
#   ..#####. ..####.. ..####.. .##..##. ..####.. ..####.. .##.###.
#   ........ ........ ........ ........ ........ ........ .##.....
#
#   7 ♣      8 ♠      9 ♥      10 ♦     11 →     12 ·
#   ...###.. ....#... ..##.##. ....#... ........ ........
#   ..#####. ...###.. .####### ...###.. .....#.. ........
#   .#.###.# ..#####. .####### ..#####. .....##. ........
#   .####### .####### .####### .####### .####### ...##...
#   .####### .####### ..#####. ..#####. .####### ...##...
#   .#..#..# ..#.#.#. ...###.. ...###.. .....##. ........
#   ...###.. ...###.. ....#... ....#... .....#.. ........
#   ........ ........ ........ ........ ........ ........
#
#   German suits (the Herz has a spot, so no two glyphs are alike)
#   13 Eichel 14 Grün  15 Herz   16 Schellen 17 box
#   ....#... .....### ..##.##. ...##...  .######.
#   ..#####. ...##### .####### ..####..  .#....#.
#   .####### ..###### .###.### .#....#.  .#....#.
#   ..#####. .######. .####### .######.  .#....#.
#   ..#####. .#####.. ..#####. .#.##.#.  .#....#.
#   ..#####. .###.... ...###.. .######.  .#....#.
#   ...###.. #....... ....#... ..####..  .######.
#   ........ ........ ........ ........  ........
#
GLYPHS = (
    b"\x00\x21\x75\x54\x54\x7d\x79\x00"  #  0 ä a umlaut
    b"\x00\x39\x7d\x44\x44\x7d\x39\x00"  #  1 ö o umlaut
    b"\x00\x3d\x7d\x40\x40\x7d\x3d\x00"  #  2 ü u umlaut
    b"\x00\x79\x7d\x16\x16\x7d\x79\x00"  #  3 Ä A umlaut
    b"\x00\x3d\x7e\x42\x42\x7e\x3d\x00"  #  4 Ö O umlaut
    b"\x00\x3e\x7d\x40\x40\x7d\x3e\x00"  #  5 Ü U umlaut
    b"\x00\xfe\xff\x01\x4f\x4e\x78\x30"  #  6 ß sharp s
    b"\x00\x3c\x1a\x5f\x7f\x5f\x1a\x3c"  #  7 ♣ club
    b"\x00\x18\x3c\x5e\x7f\x5e\x3c\x18"  #  8 ♠ spade
    b"\x00\x0e\x1f\x3f\x7e\x3f\x1f\x0e"  #  9 ♥ heart
    b"\x00\x08\x1c\x3e\x7f\x3e\x1c\x08"  # 10 ♦ diamond
    b"\x00\x18\x18\x18\x18\x7e\x3c\x18"  # 11 → right arrow
    b"\x00\x00\x00\x18\x18\x00\x00\x00"  # 12 · middle dot
    b"\x00\x04\x3e\x7e\x7f\x7e\x3e\x04"  # 13 Eichel (acorn)
    b"\x40\x38\x3c\x3e\x1e\x1f\x0f\x07"  # 14 Grün (leaf)
    b"\x00\x0e\x1f\x3f\x7a\x3f\x1f\x0e"  # 15 Herz (German heart)
    b"\x00\x3c\x6a\x7b\x7b\x6a\x3c\x00"  # 16 Schellen (bell)
    b"\x00\x7f\x41\x41\x41\x41\x7f\x00"  # 17 placeholder box
)

_CODES = tuple(ord(ch) for ch in CHARS)  # CHARS as code points (cells() finds glyphs by them)

# pen x, pen y, colour, right edge (set by text()); the columns cells() draws next (bits)
_S = [0, 0, 1, WIDTH, 0xFFFF]


def width(s):
    """Pixel width of ``s``: 8 per character (not per UTF-8 byte)."""
    return len(s) << 3


def fit(s, columns):
    """``s`` cut to at most ``columns`` characters (copies only when it cuts)."""
    if len(s) <= columns:
        return s
    return s[:columns] if columns > 0 else ""


def glyph_index(ch):
    """Index into GLYPHS (/ 8) of the one-character string ``ch``; -1 for ASCII,
    which the display's own font draws; PLACEHOLDER for characters without a glyph."""
    if ord(ch) < 128:
        return -1
    i = CHARS.find(ch)
    return i if i >= 0 else PLACEHOLDER


def text(display, s, x, y, c=1):
    """Draw ``s`` with its top-left corner at (x, y) in colour ``c``; return the x
    after the last glyph (``x + width(s)``, also when the text runs off the edge)."""
    _S[0] = x
    _S[1] = y
    _S[2] = c
    _S[3] = getattr(display, "width", WIDTH)
    if _ascii(s):
        display.text(s, x, y, c)
    else:
        _draw(display, s)
    return x + (len(s) << 3)


def line(display, row, s, invert=False):
    """Clear text row ``row`` (0..7: pixel rows 8 * row .. 8 * row + 7) and draw ``s``
    from its left edge; ``invert``: lit background, dark text. Characters beyond
    the right edge are cut off.

    A display with ``text_line(row, s, invert)`` (``drivers.ssd1306.SSD1306``)
    clears the row itself: its ``fill_rect`` wrapper has a call frame too big for
    the C stack and would allocate 144 bytes per call on MicroPython."""
    if hasattr(display, "text_line"):
        display.text_line(row, "", invert)
    else:
        _S[3] = getattr(display, "width", WIDTH)
        display.fill_rect(0, row << 3, _S[3], 8, 1 if invert else 0)
    text(display, s, 0, row << 3, 0 if invert else 1)


def cells(display, row, codes, n, invert=False):
    """``line`` for the characters whose code points are ``codes[0:n]`` (an
    ``array`` or list of ints, n <= 16): the same pixels, without a str of the
    line (table/screens.py keeps its rows so).  A display with a ``buffer``
    that is ``width`` 128 columns of MONO_VLSB bytes (``drivers.ssd1306``: text
    row r is page r, ``buffer[128 * r:128 * (r + 1)]``) gets the glyphs' bytes
    written straight into it, framebuf's font (drivers/font8x8.py) for ASCII:
    nothing is allocated, not even a 1-character str.  Other displays get
    ``line``'s drawing, character by character."""
    _S[2] = 1 if invert else 0
    if getattr(display, "width", 0) == WIDTH and hasattr(display, "buffer"):
        _row(display.buffer, row << 7, codes, n)
    else:
        line(display, row, "", invert)      # clears the row, sets the pen (_S)
        _codes(display, codes, n)
    _S[4] = 0xFFFF


def columns(mask):
    """The next ``cells()`` on a display with a ``buffer`` draws only the
    columns whose bits are set in ``mask`` (bit c: column c; the others show
    what they showed: a card's three characters cost three cells, not
    sixteen, 0.2 ms on the Pico, not 0.9)."""
    _S[4] = mask


# ---------------------------------------------------------------- drawing
# Small functions on purpose: locals + stack of each stay within 11 words.


def _row(buf, at, codes, n):
    # the row's cells (``columns``: all 16), each 8 bytes (columns) of the page;
    # blanks after n (few locals: a frame over 11 words goes on the heap)
    mask = _S[4]
    i = 0
    while mask:
        if mask & 1:
            _cell(buf, at, codes[i] if i < n else 32)
        mask >>= 1
        at += 8
        i += 1


def _cell(buf, at, c):
    """Code point c's 8 bytes into ``buf[at:at + 8]``, inverted when ``cells``
    was asked for a lit background: framebuf's font for ASCII (a control
    character as chr(127), as framebuf draws it), GLYPHS for the others."""
    inv = 0xFF if _S[2] else 0
    if c < 128:
        _put(buf, at, FONT, (c - 32 if c >= 32 else 95) << 3, inv)
    else:
        _put(buf, at, GLYPHS, _glyph_of(c) << 3, inv)


def _put(buf, at, src, off, inv):
    """``src[off:off + 8]`` (each byte xor ``inv``) into ``buf[at:at + 8]``: no
    slice, no view, nothing allocated (machine code where the port has it:
    table/font_native.py).  Copying from the font itself, not from tables of
    a view per cell made at import, leaves 6 KB of heap free on the Pico."""
    end = at + 8
    while at < end:
        buf[at] = src[off] ^ inv
        at += 1
        off += 1


def _glyph_of(c):
    """glyph_index for a code point (no str made)."""
    i = 0
    while i < len(_CODES):
        if _CODES[i] == c:
            return i
        i += 1
    return PLACEHOLDER


def _codes(display, codes, n):
    i = 0
    while i < n:
        if _S[0] >= _S[3]:
            return  # the rest lies right of the display
        _char(display, chr(codes[i]))   # (a 1-character str is interned: no allocation)
        _S[0] += 8
        i += 1


def _ascii(s):
    for ch in s:
        if ord(ch) > 127:
            return False
    return True


def _draw(display, s):
    for ch in s:
        if _S[0] >= _S[3]:
            return  # the rest lies right of the display
        _char(display, ch)
        _S[0] += 8


def _char(display, ch):
    if ord(ch) < 128:
        display.text(ch, _S[0], _S[1], _S[2])
    elif _S[0] > -8:
        _glyph(display, glyph_index(ch) << 3)


def _glyph(display, off):
    end = off + 8
    x = _S[0]
    while off < end:
        _column(display, GLYPHS[off], x)
        off += 1
        x += 1


def _column(display, b, x):
    y = _S[1]
    while b:
        if b & 1:
            display.pixel(x, y, _S[2])
        b >>= 1
        y += 1


def str_bytes(s, n, out):
    """The UTF-8 bytes of the first ``n`` characters of the str ``s`` into
    ``out`` (a bytearray): how many, or -1 if they do not fit.  Machine code
    where the port has it (table/font_native.py), which reads them where the
    str keeps them: on MicroPython ``s[i]`` makes a 1-character str, looked
    up among the interned strings (some 0.25 ms a character on the Pico).
    Here (CPython, a port without viper) character by character, allocating
    nothing (a 1-character str is interned)."""
    i = 0
    k = 0
    while k < n and i >= 0:
        i = _utf8_into(out, i, ord(s[k]))
        k += 1
    return i


def _utf8_into(out, i, c):
    """Code point ``c`` as UTF-8 into ``out[i:]``: where it ends, or -1."""
    k = 1 if c < 0x80 else 2 if c < 0x800 else 3 if c < 0x10000 else 4
    if i + k > len(out):
        return -1
    if k == 1:
        out[i] = c
        return i + 1
    j = i + k - 1
    while j > i:                       # continuation bytes, the last first
        out[j] = 0x80 | c & 0x3F
        c >>= 6
        j -= 1
    out[i] = (0xF0, 0xE0, 0xC0)[4 - k] | c
    return i + k


try:                    # _put and str_bytes as machine code, where the port compiles viper
    from . import font_native
    _put = font_native.put  # noqa: F811  # pyright: ignore[reportAssignmentType]
    str_bytes = font_native.str_bytes  # noqa: F811  # pyright: ignore[reportAssignmentType]
except (ImportError, SyntaxError, ValueError):   # no viper; an .mpy of another arch
    pass
