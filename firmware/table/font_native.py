"""table/font.py's cell copy as machine code (viper): a cell's 8 bytes copied into the
display's buffer without a Python loop per byte.

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
