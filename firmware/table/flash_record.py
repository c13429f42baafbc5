"""The journal's flash area as bytes: its sectors' and records' layout, and a
``Reader`` of the records (table/flash_log.py writes them; table/journal_flash.py
reads the sessions' lines through it).

A sector: a 16-byte header programmed right after its erase, then records::

    0..3   b"TJNL"   4  format version (1)   5  0
    6..9   sequence number (big-endian): the order of the sectors in the log
    10..13 CRC-32 of bytes 0..9
    14     0xFF while its records count; programmed to 0 when they are dropped
    15     0xFF
    16..   records, packed; a record never crosses into the next sector

A record: a tag (``L`` a line, ``S`` the header line of a new session, then
the session's number in 2 bytes), the line's length (2 bytes), a check byte
(0xA5 XOR the head's other bytes), then the line itself (JSON, tab, CRC-32:
the record format's journal line, whose CRC tells a whole record from a torn
one).
"""
try:
    from micropython import const
except ImportError:  # CPython
    const = lambda x: x  # noqa: E731  (a def would clash with the stub's signature in pyright)

from tapp.record import crc_hex

SECTOR = const(4096)
PAGE = const(256)
HEAD = const(16)            # a sector's header
_MAX_HEAD = const(6)         # a record's head: tag, length, [number], check
PAYLOAD = SECTOR - HEAD     # a sector's bytes for records
MAX_LINE = PAYLOAD - _MAX_HEAD   # the longest line a record holds
VERSION = const(1)
TAG_LINE = const(0x4C)      # "L"
TAG_SESSION = const(0x53)   # "S"
MAGIC = b"TJNL"
LIVE = const(0xFF)
ERASED = const(0xFF)

# what a position in a sector holds (``look``)
END = const(0)              # the sector has no room for a record head here
EMPTY = const(1)            # erased: no record starts here
GOOD = const(2)             # a whole record
TORN = const(3)             # a whole head, its line not: cut by the power, or damaged
GARBAGE = const(4)          # bytes that are no record's head

def ceil_page(x):
    return (x + PAGE - 1) & ~(PAGE - 1)


def head_size(tag):
    return 6 if tag == TAG_SESSION else 4


class Reader:
    """Records of the log's device read back through a window of its bytes
    (``size`` of them: a sector for the power-up's read, a page for a line
    now and then; a longer record gets a window of its size), ``look``'s
    answers in its fields.  Each reader has its own: reading changes nothing
    of the log's."""

    def __init__(self, dev, size):
        self.dev = dev
        self.buf = bytearray(size)
        self.s = -1               # the sector in ``buf`` (-1: none) ...
        self.base = 0             # ... its bytes from this offset ...
        self.len = 0              # ... this many
        self.at = 0               # ``look``: the line's offset in ``buf``...
        self.n = 0                # ... its length
        self.tag = 0              # ... the record's tag
        self.number = 0           # ... a session record's number
        self.next = 0             # ... where the next record may start
        self.end = 0              # ... where writing may go on after it

    def forget(self, s):
        """Sector ``s`` was written: what ``buf`` holds of it is old."""
        if self.s == s:
            self.s = -1

    def window(self, s, pos, n):
        """Sector ``s``'s bytes ``pos`` to ``pos + n`` in ``buf``: where they start there."""
        if s == self.s and self.base <= pos and pos + n <= self.base + self.len:
            return pos - self.base
        if n > len(self.buf):
            self.buf = bytearray(n)
        k = min(len(self.buf), SECTOR - pos)
        self.s = -1
        self.dev.readblocks(s, memoryview(self.buf)[0:k], pos)
        self.s = s
        self.base = pos
        self.len = k
        return 0

    def look(self, s, pos):
        """What ``pos`` in sector ``s`` holds: END, EMPTY, GOOD, TORN (a
        whole head, the line not: a record cut by the power or damaged) or
        GARBAGE (no head).  ``next``: where a record may start after it;
        ``end``: where writing may go on after it -- for a torn record the
        page after the bytes it could have reached, which nothing is ever
        programmed over.  For GOOD: ``tag``, ``number``, the line's ``n``
        bytes at ``buf[at:]`` (``line()``)."""
        if pos > SECTOR - 4:
            self.next = self.end = SECTOR
            return END
        tag = self.buf[self.window(s, pos, 1)]
        if tag == ERASED:                  # nothing starts here: the next record, if
            self.next = ceil_page(pos + 1)  # any, was written at a page
            return EMPTY
        size = self._head(s, tag, pos)
        if size < 0:                       # a torn or damaged head: look on byte by byte
            self.next = pos + 1
            self.end = ceil_page(pos + _MAX_HEAD)
            return GARBAGE
        self.next = pos + size
        self.at = self.window(s, pos, size) + size - self.n
        if not _whole_line(self.buf, self.at, self.n):
            self.end = ceil_page(pos + size)
            return TORN
        self.end = self.next
        self.tag = tag
        return GOOD

    def _head(self, s, tag, pos):
        """The record's size if its head at ``pos`` is whole (its line's
        length ``n`` and ``number`` set), else -1."""
        hs = head_size(tag)
        if (tag != TAG_LINE and tag != TAG_SESSION) or pos + hs > SECTOR:
            return -1
        i = self.window(s, pos, hs)
        b = self.buf
        check = 0xA5
        for k in range(i, i + hs - 1):
            check ^= b[k]
        if check != b[i + hs - 1]:
            return -1
        n = (b[i + 1] << 8) | b[i + 2]
        if n < 10 or pos + hs + n > SECTOR:
            return -1
        self.n = n
        self.number = (b[i + 3] << 8) | b[i + 4] if tag == TAG_SESSION else 0
        return hs + n

    def line(self):
        """The line ``look`` found (str)."""
        return str(memoryview(self.buf)[self.at:self.at + self.n], "utf-8")

    def is_deal(self):
        """Is the line ``look`` found a deal event (its canonical JSON)?"""
        return self.buf.find(b'"ev":"deal"', self.at, self.at + self.n) >= 0


def line_head(w, r, n):
    """The head of a line's record (``n`` bytes of line) at ``w[r]``."""
    w[r] = TAG_LINE
    w[r + 1] = n >> 8
    w[r + 2] = n & 0xFF
    w[r + 3] = 0xA5 ^ TAG_LINE ^ (n >> 8) ^ (n & 0xFF)


def session_head(w, r, number, n):
    """The head of a session's first record (its number, ``n`` bytes of
    header line) at ``w[r]``."""
    w[r] = TAG_SESSION
    w[r + 1] = n >> 8
    w[r + 2] = n & 0xFF
    w[r + 3] = number >> 8
    w[r + 4] = number & 0xFF
    w[r + 5] = 0xA5 ^ TAG_SESSION ^ (n >> 8) ^ (n & 0xFF) ^ (number >> 8) ^ (number & 0xFF)


def _whole_line(b, at, n):
    """Do the ``n`` bytes at ``b[at]`` end in a tab and the CRC-32 of what
    precedes it (the record format's journal line)?"""
    end = at + n
    if b[end - 9] != 9:
        return False
    want = crc_hex(memoryview(b)[at:end - 9])
    for i in range(8):
        if b[end - 8 + i] != ord(want[i]):
            return False
    return True
