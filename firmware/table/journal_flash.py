"""The journal's sessions in its own flash area (table/flash_log.py: a ring
of sectors, records appended by page program; docs/record-format.md,
"Journal on the device"), the store table/journal.py ``open_journals`` picks
where the board has such an area.

A session is its first record (its header line, tagged with the session's
number) and the records after it up to the next session's; ``FlashJournals``
reads them all at power-up and keeps where each session starts,
``FlashJournal`` is the session in play: a card play is formatted straight
into the log's page buffer and programmed, allocating nothing; another
event's line is written into a small fixed buffer (tapp/jsonout.py: the
bytes ``dumps`` gives, without its KB or two of garbage a line on the Pico),
and only a line longer than that goes through ``dumps``.
"""
from tapp.cards import CARD_CODES, CODE_INDEX
from tapp.jsonout import JsonBytes

from . import crc_buf as C
from . import flash_record as L
from .flash_log import FlashLog
from .flash_record import line_head
from .journal import (
    DEAL_BYTES,
    FLASH_ERROR,
    LINE_TOO_LONG,
    NO_ROOM,
    TAIL,
    SessionJournal,
    is_play,
    line_of,
    make_room,
    session_name,
)

_PLAY_HEAD = b'{"seat":'
_PLAY_CARD = b',"card":"'
_PLAY_END = b'","ev":"play"}'
_CODES = [code.encode() for code in CARD_CODES]   # a card's code, for formatting it

RESERVE = L.PAYLOAD        # flash bytes play never counts on (a long deal, sectors' ends)
_NUM, _SEC, _POS, _SEQ = 0, 1, 2, 3          # a session's entry: its number, where it starts
_LINES, _BYTES, _USED, _DEALS, _TORN = 0, 1, 2, 3, 4    # a finished session's counts
_CRC = C.state()           # the card play's CRC (one append at a time)
# The longest line (JSON, tab, CRC) written from ``_LINE``: its record (a
# 4-byte head, PAGE + 1 bytes at most) then spans at most the two pages of the
# log's ``win`` wherever it begins (``commit``).
_SHORT = L.PAGE - 3
_LINE = JsonBytes(_SHORT)  # an event's line, before it is programmed


class FlashJournals:
    """The sessions in the journal's own flash area (table/flash_log.py on
    the block device ``dev``), read when made: a session is its first record
    (its header line, tagged with the session's number) and the records that
    follow it, up to the next session's."""

    def __init__(self, dev):
        self.log = FlashLog(dev)
        self.read()

    def prepare(self):
        """Erase the next sector ahead of need before a session runs (the
        idle job, during the setup: a new session's header then takes a page
        program, not the erases of a blank area): True when it did."""
        return self.log.prepare()

    def read(self):
        """Read the whole area (a power-up, or after a refused append)."""
        self.entries = []            # [number, sector, position, seq] per session, oldest first
        self.counts = []             # [lines, bytes, flash bytes, deals, torn] per session
        self.places = []             # the newest session's last records (sector * SECTOR + pos)
        self.running = None          # the journal of the newest session, once taken up
        self.log.scan(self._visit)
        # records before the oldest session's header are nobody's: their sectors go
        self.log.release_before(self.entries[0][_SEC] if self.entries else -1)

    def _visit(self, s, pos, good):
        log = self.log
        r = log.scanner
        if not good:
            if self.counts:
                self.counts[-1][_TORN] += 1
            return
        if r.tag == L.TAG_SESSION:
            self.entries.append([r.number, s, pos, log.seqs[s]])
            self.counts.append([0, 0, 0, 0, 0])
            self.places = []
        elif not self.entries:
            return                   # the last records of a dropped session
        c = self.counts[-1]
        c[_LINES] += 1
        c[_BYTES] += r.n + 1
        c[_USED] += r.next - pos
        if r.is_deal():
            c[_DEALS] += 1
        self.places.append(s * L.SECTOR + pos)
        if len(self.places) > TAIL:
            self.places.pop(0)

    def last(self):
        """The newest session, taken up for appending; None when there is none."""
        if not self.entries:
            return None
        entry = self.entries[-1]
        c = self.counts[-1]
        journal = FlashJournal(self, entry, self.line_at(_place(entry)), c)
        for where in self.places:
            journal.note(where)
        self.running = journal
        return journal

    def create(self, header):
        """A new session (the next number), its header on flash; the old
        sessions make room first.  A session the flash does not take has
        ``failed`` set (the table says the flash is full)."""
        number = self.entries[-1][_NUM] + 1 if self.entries else 1
        self.finish()
        self.make_room(DEAL_BYTES, len(self.entries))
        line = line_of(header)
        data = line.encode()
        log = self.log
        ok = log.write(L.TAG_SESSION, number & 0xFFFF, data)
        size = L.head_size(L.TAG_SESSION) + len(data)
        entry = [number, log.wsec, log.wpos - size, log.seqs[log.wsec] if ok else -1]
        journal = FlashJournal(self, entry, line, [1, len(data) + 1, size, 0, 0])
        if ok:
            journal.note(_place(entry))
            self.entries.append(entry)
            self.counts.append(None)       # (the running journal counts for itself)
            self.running = journal
        else:
            journal.refuse(LINE_TOO_LONG if len(data) > L.MAX_LINE else _why(log))
        return journal

    def finish(self):
        """The running session's counts kept as a finished one's."""
        j = self.running
        if j is not None and self.entries and self.entries[-1] is j.entry:
            self.counts[-1] = [j.count, j.size, j.used, j.deals, j.dropped]
        self.running = None

    def free_bytes(self):
        """Flash bytes a deal may count on (a sector's payload held back)."""
        free = self.log.free_bytes() - RESERVE
        return free if free > 0 else 0

    def make_room(self, per, finished):
        """Drop old sessions by the rules (``make_room``); ``finished``: how
        many of the oldest may go."""
        make_room(finished, self.free_bytes, self.drop_oldest, per)

    def drop_oldest(self, newest):
        """Drop the oldest session -- with any others that start in its first
        sector, which goes with it -- by releasing the sectors before the next
        session's first one.  False (nothing dropped) if the running session
        would go too, or the newest finished one unless ``newest``, or no
        sector can be released."""
        entries = self.entries
        first = entries[0][_SEC]
        k = 1
        while k < len(entries) and entries[k][_SEC] == first:
            k += 1
        finished = len(entries) - (self.running is not None)
        if k > finished or k == finished and not newest:
            return False
        if not self.log.release_before(entries[k][_SEC] if k < len(entries) else -1):
            return False
        del entries[:k]
        del self.counts[:k]
        return True

    def sessions(self):
        """(name, bytes) of every session, oldest first."""
        j = self.running
        return [(session_name(e[_NUM]), j.size if j is not None and e is j.entry
                 else c[_BYTES]) for e, c in zip(self.entries, self.counts)]

    def lines(self, name):
        """The lines of the session ``name`` (a generator), or None."""
        for entry in self.entries:
            if session_name(entry[_NUM]) == name:
                return self.walk(entry, 1 << 30)
        return None

    def walk(self, entry, limit):
        """The lines of the session of ``entry``, its header first, at most
        ``limit``: read from flash record by record (a sector released or
        written over meanwhile ends it)."""
        log = self.log
        r = log.reader()
        s, pos, seq = entry[_SEC], entry[_POS], entry[_SEQ]
        k = 0
        while k < limit and s >= 0:
            if log.seqs[s] != seq:
                return
            what = r.look(s, pos)
            if what == L.END:
                s = log.after(s)
                seq = log.seqs[s] if s >= 0 else -1
                pos = L.HEAD
                continue
            pos = r.next
            if what == L.GOOD:
                if r.tag == L.TAG_SESSION and k:
                    return               # the next session's header
                k += 1
                yield r.line()

    def line_at(self, where, reader=None):
        """The line of the record at ``where`` (sector * SECTOR + position)."""
        r = reader or self.log.reader()
        if r.look(where // L.SECTOR, where % L.SECTOR) != L.GOOD:
            raise IndexError(where)
        return r.line()


def _place(entry):
    return entry[_SEC] * L.SECTOR + entry[_POS]


class FlashJournal(SessionJournal):
    """The running session in the flash area, appended record by record; the
    places of its last ``TAIL`` records kept (the console asks for recent
    lines).  ``counts``: [lines, bytes, flash bytes, deals, torn] so far."""

    def __init__(self, store, entry, header_line, counts):
        SessionJournal.__init__(self, header_line, counts[_LINES], counts[_BYTES],
                                counts[_DEALS], counts[_USED])
        self.dropped = counts[_TORN]
        self.header_used = L.head_size(L.TAG_SESSION) + len(header_line.encode())
        self.store = store
        self.log = store.log
        self.entry = entry
        self.where = [-1] * TAIL     # the last records' places (sector * SECTOR + position)
        self.last = TAIL - 1         # the slot of the newest

    def name(self):
        return session_name(self.entry[_NUM])

    def note(self, where):
        """A record of this session went on flash at ``where``."""
        self.last = self.last + 1 if self.last + 1 < TAIL else 0
        self.where[self.last] = where

    def free_bytes(self):
        return self.store.free_bytes()

    def make_room(self, per):
        self.store.make_room(per, len(self.store.entries) - 1)

    def prepare(self):
        return self.log.prepare()

    def write_event(self, ev):
        if is_play(ev):
            return self._write_play(ev["seat"], _CODES[CODE_INDEX[ev["card"]]])
        n = _LINE.object_at(ev, 0)
        if 0 < n <= _SHORT - 9:
            return self._write_short(n)
        data = line_of(ev).encode()
        if len(data) > L.MAX_LINE:
            return LINE_TOO_LONG
        if not self.log.write(L.TAG_LINE, 0, data):
            return _why(self.log)
        self._written(len(data), 4 + len(data))
        return None


    def _written(self, n, size):
        """A record of a line of ``n`` bytes, ``size`` on flash, went on."""
        log = self.log
        self.note(log.wsec * L.SECTOR + log.wpos - size)
        self.count += 1
        self.size += n + 1
        self.used += size

    def _write_short(self, n):
        """The line whose JSON ``_LINE`` holds (``n`` bytes), signed, as one
        record through the log's page buffer (as a card play's)."""
        _sign(_LINE.buf, 0, n)
        n += 9
        log = self.log
        r = log.reserve(4 + n)
        if r < 0:
            return _why(log)
        line_head(log.win, r, n)
        log.win[r + 4:r + 4 + n] = _LINE.view[:n]
        if not log.commit(4 + n):
            return FLASH_ERROR
        self._written(n, 4 + n)
        return None

    def _write_play(self, seat, code):
        """A card play formatted straight into the log's page buffer and
        programmed: nothing allocated (and no frame over 11 words, which
        MicroPython would put on the heap)."""
        r = self.log.reserve(45 + len(code))
        if r < 0:
            return _why(self.log)
        _format_play(self.log.win, r, seat, code)
        if not self.log.commit(45 + len(code)):
            return FLASH_ERROR
        self._written(41 + len(code), 45 + len(code))
        return None

    def reopen(self):
        """After a refused append: the session as the flash holds it (the
        area read again, as at a power-up); None if it never reached it."""
        store = self.store
        store.read()
        if not store.entries or store.entries[-1][_NUM] != self.entry[_NUM]:
            return None
        return store.last()

    def tail(self, n):
        """The last ``n`` lines (at most TAIL), read from flash."""
        k = min(n, TAIL, self.count)
        r = self.log.reader()
        return [self.store.line_at(self.where[(self.last - k + 1 + i) % TAIL], r)
                for i in range(k)]

    def line(self, k, reader=None):
        """Line k of the session (0: the header); ``reader``: one of
        ``line_reader``'s that the caller keeps for its reads (the console's
        live events read a line each: a reader made for each was 300 bytes
        of garbage on the Pico), else one is made."""
        back = self.count - 1 - k
        if 0 <= back < TAIL:
            where = self.where[(self.last - back) % TAIL]
            if reader is not None:
                reader.forget(where // L.SECTOR)   # it may have read this before the write
            return self.store.line_at(where, reader)
        for i, line in enumerate(self.read_lines()):
            if i == k:
                return line
        raise IndexError(k)

    def line_reader(self):
        return self.log.reader()

    def read_lines(self):
        """Every line of the session, read from flash one by one."""
        return self.store.walk(self.entry, self.count)


def _why(log):
    """Why the log took no record: the device refused, or there is no room."""
    return FLASH_ERROR if log.failed else NO_ROOM


def _format_play(w, r, seat, code):
    """The record of ``{"seat":S,"card":"C","ev":"play"}`` and its CRC at ``w[r]``."""
    n = len(code)
    line_head(w, r, 41 + n)
    n = _put_play(w, r + 4, seat, code)
    _sign(w, r + 4, n)


def _put_play(w, o, seat, code):
    w[o:o + 8] = _PLAY_HEAD
    w[o + 8] = 0x30 + seat
    w[o + 9:o + 18] = _PLAY_CARD
    o += 18
    w[o:o + len(code)] = code
    o += len(code)
    w[o:o + 14] = _PLAY_END
    return o + 14


def _sign(w, o, end):
    """The journal line's suffix after ``w[o:end]``: a tab, its CRC-32."""
    C.start(_CRC)
    C.feed(_CRC, w, o, end)
    w[end] = 9
    C.put_hex(_CRC, w, end + 1)
