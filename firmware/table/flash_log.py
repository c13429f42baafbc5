"""The journal's own flash area: records appended by page program to a ring of
erased sectors (docs/record-format.md, "Journal on the device").

The area is a block device with MicroPython's extended block protocol, as
``rp2.Flash(start=, len=)`` gives it on the Pico: ``readblocks(block, buf,
offset)``, ``writeblocks(block, buf, offset)`` (a page program: whole 256-byte
pages, bits only cleared), ``ioctl(6, block)`` (erase a 4096-byte sector),
``ioctl(4)``/``ioctl(5)`` (count, size).  This module knows sectors and
records, not what a record says (table/journal.py reads the lines).

The sectors' and records' layout, and reading records back, are
table/flash_record.py's.

Why it is safe at every cut (a cut inside an erase or a program leaves part
of it done, the rest as it was):

* a sector without a valid header (never used, half erased, its header cut)
  is erased again before use;
* a record whose line fails its CRC is torn: it is skipped, and nothing is
  ever programmed over it: writing goes on at the first page after it
  (after its length when its head is whole, else after the longest head),
  which no page of it reached.  An erased byte where a record would start
  means nothing starts there: the next record, if any, starts at a page.
  Reading goes on right after a torn record's length, or byte by byte after
  a damaged head, so bytes damaged in the middle cost only their record;
* each program writes 0xFF everywhere but on the record's own bytes, so a
  cut one leaves the records before it as they were.

The write position only moves forward; ``prepare()`` erases the next sector
ahead of need (the table calls it when nothing waits: table/app.py), and an
append that finds no prepared sector erases one itself (``fallbacks``
counts those).  Nothing in the append path allocates.
"""
try:
    from micropython import const
except ImportError:  # CPython
    const = lambda x: x  # noqa: E731  (a def would clash with the stub's signature in pyright)

from . import crc_buf as C
from .flash_record import (
    EMPTY,
    END,
    ERASED,
    GARBAGE,
    GOOD,
    HEAD,
    LIVE,
    MAGIC,
    MAX_LINE,
    PAGE,
    PAYLOAD,
    SECTOR,
    TAG_SESSION,
    TORN,
    VERSION,
    Reader,
    ceil_page,
    head_size,
    line_head,
    session_head,
)

# what a sector is to the writer (``kind``)
_FREE = const(0)             # no valid header, or released: erased before use
_READY = const(1)            # erased, its header programmed, no record yet
_USED = const(2)             # holds records

_FF_PAGE = bytes((ERASED,)) * PAGE


class FlashLog:
    """The log on the block device ``dev`` (read at once: ``scan``)."""

    def __init__(self, dev):
        self.dev = dev
        if dev.ioctl(5, 0) != SECTOR:
            raise ValueError("the journal's flash needs %d-byte sectors" % SECTOR)
        n = self.sectors = dev.ioctl(4, 0)
        if n < 3:
            raise ValueError("the journal's flash needs 3 sectors or more")
        self.seqs = [-1] * n        # each sector's sequence number (-1: none)
        self.kind = bytearray(n)    # _FREE, _READY or _USED
        self.top = -1               # the highest sequence number on the flash
        self.wsec = -1              # the sector written to (-1: none yet)
        self.wpos = SECTOR          # where its next record goes
        self.win = bytearray(2 * PAGE)        # the pages a record is programmed from
        mv = memoryview(self.win)
        self.views = (mv[0:PAGE], mv[PAGE:2 * PAGE])
        self.win[:] = _FF_PAGE * 2
        self.hbuf = bytearray(4)              # a header's check, computed
        self.scanner = Reader(dev, 2 * PAGE)  # the power-up's reading (no 4 KB block: a
                                              # fragmented heap may have none at a reopen)
        self.crc = C.state()
        self.torn = 0               # torn records met by ``scan``
        self.erases = 0             # sectors erased
        self.programs = 0           # pages programmed
        self.prepared = 0           # of the erases: ahead of need (``prepare``)
        self.fallbacks = 0          # of the erases: by an append that found none prepared
        self.failed = False         # the device refused an operation
        self.psec = 0               # the page ``_program`` programs: sector, offset
        self.poff = 0

    # ----- reading ----------------------------------------------------------------

    def reader(self, size=PAGE):
        """A Reader of its own for whoever reads records (reading changes
        nothing of the log's: the table's state stays as its doors left it)."""
        return Reader(self.dev, size)

    def header(self, s):
        """Sector ``s``'s sequence number if its header is valid and live,
        -2 - the number if valid but released, -1 if not valid."""
        r = self.scanner
        r.window(s, 0, HEAD)
        b = r.buf
        if b[0:4] != MAGIC or b[4] != VERSION:
            return -1
        h = self.hbuf
        C.start(self.crc)
        C.feed(self.crc, b, 0, 10)
        C.put_be(self.crc, h, 0)
        if b[10:14] != h[0:4]:
            return -1
        seq = (b[6] << 24) | (b[7] << 16) | (b[8] << 8) | b[9]
        return seq if b[14] == LIVE else -2 - seq

    def order(self):
        """The sectors holding records (_USED), oldest first."""
        used = [s for s in range(self.sectors) if self.kind[s] == _USED]
        used.sort(key=lambda s: self.seqs[s])
        return used

    def after(self, s):
        """The _USED sector that follows sector ``s`` in the log, or -1."""
        best = -1
        seq = self.seqs[s]
        for t in range(self.sectors):
            if self.kind[t] == _USED and self.seqs[t] > seq and (
                    best < 0 or self.seqs[t] < self.seqs[best]):
                best = t
        return best

    def scan(self, visit):
        """Read the whole area (a power-up): every sector's header, then each
        record oldest first, ``visit(s, pos, whole)`` (for a whole one with
        ``scanner``'s answers set); torn records are counted (``torn``); the
        write position follows the last record, never on a torn one."""
        self.torn = 0
        self.top = -1
        self.failed = False
        for s in range(self.sectors):
            seq = self.header(s)
            self.seqs[s] = seq if seq >= 0 else -1
            self.kind[s] = _FREE
            if seq >= 0:
                self.kind[s] = _READY if self._blank_from(s, HEAD) == HEAD else _USED
            self.top = max(self.top, seq if seq >= 0 else -2 - seq)
        self.wsec = -1
        self.wpos = SECTOR
        for s in self.order():
            self.wsec = s
            self.wpos = self._walk(s, visit)
        if self.wsec >= 0:
            self.wpos = self._blank_from(self.wsec, self.wpos)
        self._settle_ready()

    def _blank_from(self, s, end):
        """``end``, or the page after the last byte of sector ``s`` at or after
        it that is not erased: where writing may go on."""
        r = self.scanner
        p = SECTOR - PAGE
        while p >= end:
            i = r.window(s, p, PAGE)
            if r.buf[i:i + PAGE] != _FF_PAGE:
                break
            p -= PAGE
        if p < 0:
            return end
        i = r.window(s, p, PAGE) - p
        last = p + PAGE - 1
        while last >= end and r.buf[i + last] == ERASED:
            last -= 1
        return end if last < end else ceil_page(last + 1)

    def _walk(self, s, visit):
        """Visit sector ``s``'s records (``visit(s, pos, whole)``; a run of
        garbage counts as one torn record); where writing may go on after
        the last of them."""
        r = self.scanner
        pos = HEAD
        end = HEAD
        garbage = False
        while True:
            what = r.look(s, pos)
            if what == END:
                return end
            if what == GOOD or what == TORN:
                visit(s, pos, what == GOOD)
                self.torn += what == TORN
            elif what == GARBAGE and not garbage:
                visit(s, pos, False)
                self.torn += 1
            if what != EMPTY:
                end = max(end, r.end)
            garbage = what == GARBAGE
            pos = r.next

    def _settle_ready(self):
        """A prepared sector counts only above the write position (an empty one
        below it is free: erased again before use)."""
        wseq = self.seqs[self.wsec] if self.wsec >= 0 else -1
        ready = -1
        for s in range(self.sectors):
            if self.kind[s] == _READY:
                if self.seqs[s] < wseq or ready >= 0:
                    self.kind[s] = _FREE
                else:
                    ready = s

    # ----- space ------------------------------------------------------------------

    def free_sectors(self):
        """Sectors a record may still go to (prepared or to be erased)."""
        k = 0
        for s in range(self.sectors):
            if self.kind[s] != _USED:
                k += 1
        return k

    def free_bytes(self):
        """Bytes of records that still fit: the rest of the sector written to
        and the free sectors' payload."""
        rest = SECTOR - self.wpos if self.wsec >= 0 else 0
        return rest + self.free_sectors() * PAYLOAD

    def release_before(self, s):
        """Drop the records of every sector before sector ``s`` in the log
        (oldest first: their headers programmed released); they are erased
        when the ring comes round to them.  How many were released."""
        seq = self.seqs[s] if s >= 0 else self.top + 1
        k = 0
        for t in self.order():
            if self.seqs[t] >= seq or t == self.wsec:
                break
            self._release(t)
            k += 1
        return k

    def _release(self, s):
        self.win[14] = 0
        self._flush(s, 0, 0)
        self.kind[s] = _FREE
        self.seqs[s] = -1

    # ----- writing ----------------------------------------------------------------

    def prepare(self):
        """Erase the next sector ahead of need, if none is prepared and one is
        free: True when it did (45 ms on the Pico: the caller picks a moment
        when nothing waits)."""
        if self._ready() >= 0:
            return False
        s = self._next_free()
        if s < 0:
            return False
        self.prepared += 1
        self._open_sector(s)
        return not self.failed

    def _ready(self):
        for s in range(self.sectors):
            if self.kind[s] == _READY:
                return s
        return -1

    def _next_free(self):
        """The first _FREE sector in ring order after the one written to."""
        n = self.sectors
        s = self.wsec
        for _ in range(n):
            s = s + 1 if s + 1 < n else 0
            if self.kind[s] == _FREE:
                return s
        return -1

    def _open_sector(self, s):
        """Erase sector ``s`` and program its header: it is _READY.  (Small
        frames, as in the append path: this is its fallback.)"""
        self.scanner.forget(s)
        if not _erase(self, s):
            self.failed = True
            return
        self.erases += 1
        self.top += 1
        self._header(self.win, self.top)
        self._flush(s, 0, 0)
        self.seqs[s] = self.top
        self.kind[s] = _READY

    def _header(self, w, top):
        """A sector's header with sequence number ``top`` at ``w[0:16]``."""
        w[0:4] = MAGIC
        w[4] = VERSION
        w[5] = 0
        w[6] = (top >> 24) & 0xFF
        w[7] = (top >> 16) & 0xFF
        w[8] = (top >> 8) & 0xFF
        w[9] = top & 0xFF
        C.start(self.crc)
        C.feed(self.crc, w, 0, 10)
        C.put_be(self.crc, w, 10)

    def reserve(self, size):
        """Room for a record of ``size`` bytes: the offset in ``win`` where it
        is to be put (then ``commit``), or -1 when the area is full."""
        if self.failed:
            return -1
        if self.wsec < 0 or self.wpos + size > SECTOR:
            if not self._next_sector():
                return -1
        return self.wpos & (PAGE - 1)

    def _next_sector(self):
        """Move on to the prepared sector (preparing one first if there is
        none: the fallback, counted)."""
        s = self._ready()
        if s < 0:
            s = self._next_free()
            if s < 0:
                return False
            self.fallbacks += 1
            self._open_sector(s)
            if self.failed:
                return False
        self.kind[s] = _USED
        self.wsec = s
        self.wpos = HEAD
        return True


    def commit(self, size):
        """Program the record of ``size`` bytes that ``reserve`` placed in
        ``win`` (its pages, no more) and move on; False if the device refused
        (nothing more is written at that record: the caller reads back)."""
        base = self.wpos & ~(PAGE - 1)
        last = ((self.wpos & (PAGE - 1)) + size - 1) >> 8
        s = self.wsec
        self.wpos += size
        self._flush(s, base, 0)
        if last:
            self._flush(s, base + PAGE, 1)
        return not self.failed

    def write(self, tag, number, data):
        """A record of any length (a line of ``data`` bytes, up to MAX_LINE),
        programmed page by page through ``win``; False if it did not fit or
        the device refused."""
        hs = head_size(tag)
        size = hs + len(data)
        if len(data) > MAX_LINE:
            return False
        r = self.reserve(size)
        if r < 0:
            return False
        rec = bytearray(size)
        if tag == TAG_SESSION:
            session_head(rec, 0, number, len(data))
        else:
            line_head(rec, 0, len(data))
        rec[hs:] = data
        w = self.win
        s = self.wsec
        base = self.wpos & ~(PAGE - 1)
        self.wpos += size
        done = 0
        while done < size and not self.failed:
            k = min(PAGE - r, size - done)
            w[r:r + k] = memoryview(rec)[done:done + k]
            self._flush(s, base, 0)
            done += k
            base += PAGE
            r = 0
        return not self.failed

    def _flush(self, s, offset, k):
        """Program ``win``'s page ``k`` at ``offset`` in sector ``s``, then
        erase it in RAM (0xFF: a program changes only what it is meant to)."""
        self.scanner.forget(s)
        self.psec = s
        self.poff = offset
        if not self.failed:
            if _program(self, k):
                self.programs += 1
            else:
                self.failed = True
        if k:
            self.win[PAGE:2 * PAGE] = _FF_PAGE
        else:
            self.win[0:PAGE] = _FF_PAGE


def _erase(log, s):
    """Erase sector ``s``; False if the device refused (two arguments: see
    ``_program``)."""
    try:
        log.dev.ioctl(6, s)
    except OSError:
        return False
    return True


def _program(log, k):
    """The page program of ``_flush``; False if the device refused.  (Two
    arguments: with its exception handler a bigger frame would go on the heap.)"""
    try:
        log.dev.writeblocks(log.psec, log.views[k], log.poff)
    except OSError:
        return False
    return True
