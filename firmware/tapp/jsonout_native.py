"""tapp/jsonout.py's copy of a plain str as machine code (viper): a str of printable ASCII
copied into a JSON line's buffer without a view of it.

Imported by tapp/jsonout.py where the port compiles viper (the Pico's and the
ESP32's builds, the unix port); where it cannot (CPython, the WebAssembly
port) the import fails and every str takes jsonout's other way -- the same
bytes (tests/mp/mptest_console_out.py).

Reading n bytes of a str of n characters stays inside it: UTF-8 has at least
one byte a character, and the first byte that is not ASCII ends the copy.
"""
# viper's ptr8 is a builtin of its emitter, and the stubs type micropython.viper
# for functions without arguments: the checks that cannot know better are off here
# pyright: reportUndefinedVariable=false, reportArgumentType=false, reportCallIssue=false
import micropython


@micropython.viper
def put_plain(buf, at: int, s, n: int) -> int:
    """The n characters of ``s`` into ``buf[at:at + n]`` when all are printable
    ASCII without a quote or a backslash: 1; else 0 (the bytes copied before
    the first other one do not count)."""
    d = ptr8(buf)
    p = ptr8(s)
    i = 0
    while i < n:
        c = p[i]
        if c < 0x20 or c > 0x7E or c == 0x22 or c == 0x5C:
            return 0
        d[at + i] = c
        i += 1
    return 1
