"""table/font.py's cell copy as machine code (viper): a cell's 8 bytes copied into the
display's buffer without a Python loop per byte; and a str's UTF-8 bytes read
in place (``str_bytes``).

Imported by table/font.py where the port compiles viper (the Pico's and the
ESP32's builds, the unix port); where it cannot (CPython, the WebAssembly
port) the import fails and font's own loop runs -- the same bytes
(tests/mp/mptest_font.py).
"""
# viper's ptr8 is a builtin of its emitter, and the stubs type micropython.viper
# for functions without arguments: the checks that cannot know better are off here
# pyright: reportUndefinedVariable=false, reportArgumentType=false, reportCallIssue=false
import micropython


@micropython.viper
def put(buf, at: int, src, off: int, inv: int):
    """``src[off:off + 8]`` (each byte xor ``inv``) into ``buf[at:at + 8]``."""
    b = ptr8(buf)
    s = ptr8(src)
    end = at + 8
    while at < end:
        b[at] = s[off] ^ inv
        at += 1
        off += 1


@micropython.viper
def str_bytes(s, n: int, out) -> int:
    """The UTF-8 bytes of the first ``n`` characters of the str ``s`` into
    ``out``: how many, or -1 if they do not fit.  Read where the str keeps
    them: ``s[i]`` would make a 1-character str, which MicroPython looks up
    among its interned strings -- some 0.25 ms a character on the Pico."""
    p = ptr8(s)
    o = ptr8(out)
    cap = int(len(out))
    i = 0
    while n > 0:
        b = p[i]
        k = 1 if b < 0xC0 else 2 if b < 0xE0 else 3 if b < 0xF0 else 4
        if i + k > cap:
            return -1
        while k > 0:
            o[i] = p[i]
            i += 1
            k -= 1
        n -= 1
    return i
