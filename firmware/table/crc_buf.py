"""CRC-32 (IEEE, as binascii.crc32 and the record format's line suffix)
over part of a buffer, written into a buffer, allocating nothing.

Why not ``binascii.crc32``: on a 32-bit port its result is a big int for three
quarters of the values (small ints stop at 2**30), a heap object, and the
journal's append in steady play allocates nothing (table/journal.py).  So the
CRC is kept in two 16-bit halves, with a table of 256 entries per half (1 KB,
made at import), and its digits go straight into the record being formatted.

The state is an ``array('H', 2)``: ``start(st)``, ``feed(st, buf, i, end)``
(any number of times), then ``put_hex(st, out, at)`` (8 lowercase hex digits,
the journal line's suffix) or ``put_be(st, out, at)`` (4 bytes, big-endian).
Each function keeps its frame small: MicroPython puts a frame of more than 11
words on the heap.
"""
from array import array

from tapp.record import crc_hex

_TABLES = array("H", bytes(1024))    # the low halves' 256 entries, then the high halves'
_LO = memoryview(_TABLES)[:256]
_HI = memoryview(_TABLES)[256:]
_HEX = b"0123456789abcdef"


def _table():
    """Entry n is the CRC register's change for a byte that leaves n in its
    low byte: the CRC-32 of the one byte n ^ 0xFF, its top byte uninverted
    (the record format's own CRC, tapp/record.py, computes it)."""
    for n in range(256):
        v = int(crc_hex(bytes((n ^ 0xFF,))), 16)
        _HI[n] = (v >> 16) ^ 0xFF00
        _LO[n] = v & 0xFFFF


_table()


def state():
    """A CRC state (made once per user)."""
    return array("H", (0xFFFF, 0xFFFF))


def start(st):
    st[0] = 0xFFFF
    st[1] = 0xFFFF


def feed(st, buf, i, end):
    """Take ``buf[i:end]`` into the CRC (machine code where the port has it:
    table/crc_native.py)."""
    hi = st[0]
    lo = st[1]
    while i < end:
        k = (lo ^ buf[i]) & 0xFF
        lo = (lo >> 8) | ((hi & 0xFF) << 8)
        lo ^= _LO[k]
        hi = (hi >> 8) ^ _HI[k]
        i += 1
    st[0] = hi
    st[1] = lo


def put_hex(st, out, at):
    """The CRC's 8 hex digits into ``out[at:at + 8]``."""
    _hex4(st[0] ^ 0xFFFF, out, at)
    _hex4(st[1] ^ 0xFFFF, out, at + 4)


def _hex4(v, out, at):
    out[at] = _HEX[v >> 12]
    out[at + 1] = _HEX[(v >> 8) & 15]
    out[at + 2] = _HEX[(v >> 4) & 15]
    out[at + 3] = _HEX[v & 15]


def put_be(st, out, at):
    """The CRC's 4 bytes (big-endian) into ``out[at:at + 4]``."""
    hi = st[0] ^ 0xFFFF
    lo = st[1] ^ 0xFFFF
    out[at] = hi >> 8
    out[at + 1] = hi & 0xFF
    out[at + 2] = lo >> 8
    out[at + 3] = lo & 0xFF


try:                    # the same loop as machine code, where the port compiles viper
    from . import crc_native
    crc_native.TABLES = _TABLES
    feed = crc_native.feed  # noqa: F811  # pyright: ignore[reportAssignmentType]
except (ImportError, SyntaxError, ValueError):   # no viper; an .mpy of another arch
    pass
