"""``font.fill_row`` as machine code (viper): a row's cells copied from the
font's bytes into the display's buffer in one call, not a Python call and
loop per cell (on the Pico 0.17 ms a row of 16 cells, not 1 ms).

Imported by table/font.py where the port compiles viper (the Pico's and the
ESP32's builds, the unix port), which sets ``TABLES``: framebuf's font,
font.GLYPHS, the glyphs' code points (an ``array("H")``), the placeholder's
glyph index and font's pen state (the column mask at 4, the xor at 2).
Where it cannot (CPython, the WebAssembly port) the import fails and font's
own loop runs -- the same bytes (tests/mp/mptest_font.py).
"""
# viper's ptr8/ptr16/ptr32 are builtins of its emitter, and the stubs type micropython.viper
# for functions without arguments: the checks that cannot know better are off here
# (TABLES is set by table/font.py as soon as this module is imported)
# pyright: reportUndefinedVariable=false, reportArgumentType=false, reportCallIssue=false
# pyright: reportOptionalSubscript=false
import micropython

TABLES = None


@micropython.viper
def fill_row(buf, at: int, codes, n: int):
    """The cells of ``codes[0:n]`` (an ``array("I")``; blanks after n) whose
    bits are set in the pen's column mask into ``buf[at:]``, 8 bytes each,
    xor the pen's ``inv``."""
    t = TABLES
    pen = t[4]
    inv = int(pen[2])
    font = ptr8(t[0])
    glyphs = ptr8(t[1])
    known = ptr16(t[2])
    nk = int(len(t[2]))
    box = int(t[3])
    b = ptr8(buf)
    c = ptr32(codes)
    m = uint(pen[4])
    i = 0
    while m:
        if m & 1:
            cp = int(c[i]) if i < n else 32
            src = font
            if cp < 128:
                off = ((cp - 32) if cp >= 32 else 95) << 3
            else:
                src = glyphs
                j = 0
                while j < nk and int(known[j]) != cp:
                    j += 1
                off = (j if j < nk else box) << 3
            k = 0
            while k < 8:
                b[at + k] = src[off + k] ^ inv
                k += 1
        m = m >> 1
        at += 8
        i += 1
