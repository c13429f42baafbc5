"""``crc_buf.feed`` as machine code (viper): a card's journal line (some 45
bytes) takes its CRC-32 in tens of microseconds on the Pico, where the
bytecode loop takes 0.8 ms of the card's game step.

Imported by table/crc_buf.py where the port compiles viper (the Pico's and
the ESP32's builds, the unix port); where it cannot (CPython, the
WebAssembly port) the import fails and crc_buf's own loop runs -- the same
CRC (tests/mp/mptest_crc.py).  ``TABLES`` is crc_buf's table: the low
halves' 256 entries, then the high halves'.
"""
# viper's ptr8/ptr16 are builtins of its emitter, and the stubs type micropython.viper
# for functions without arguments: the checks that cannot know better are off here
# pyright: reportUndefinedVariable=false, reportArgumentType=false, reportCallIssue=false
import micropython

TABLES = None


@micropython.viper
def feed(st, buf, i: int, end: int):
    """Take ``buf[i:end]`` into the CRC state ``st`` (crc_buf.feed)."""
    s = ptr16(st)
    b = ptr8(buf)
    t = ptr16(TABLES)
    hi = int(s[0])
    lo = int(s[1])
    while i < end:
        k = (lo ^ b[i]) & 0xFF
        lo = ((lo >> 8) | ((hi & 0xFF) << 8)) ^ t[k]
        hi = (hi >> 8) ^ t[256 + k]
        i += 1
    s[0] = hi
    s[1] = lo
