"""The event log behind one small interface: what the table has accepted.

The game calls ``append(event)`` for every accepted input event; it returns
once the line is on flash, so a power cut loses at most the event being
entered ("append, then act").  Lines are docs/record-format.md lines with the
journal's tab + CRC-32 suffix; a session's first line is its header, so a
session read back is a record that ``tapptable replay`` reads.

A table keeps its sessions in a *store* (``app.journals``): ``create(header)``
starts the next session, ``last()`` takes up the newest after a power-up,
``sessions()`` lists them (``s0001.jsonl``, ``s0002.jsonl`` ...: the console's
``journal list``), ``lines(name)`` reads one back.  Three stores, one
interface:

* ``FlashJournals`` -- the journal's own flash area (the table's firmware
  on the Pico: boards/pico.py), records appended by page program into a ring
  of erased sectors (table/flash_log.py; docs/record-format.md, "Journal on
  the device");
* ``journal_files.FileJournals`` -- a file per session on littlefs, where
  littlefs covers the whole flash (the stock or ROMFS firmware) or on a
  host's disk;
* ``MemoryJournals`` -- RAM only (a table without flash, tests).

``open_journals(board, root)`` picks the first two by the board.

Space (docs/record-format.md): a new deal is journalled only if a whole deal
still fits (this session's bytes per deal so far; ``DEAL_BYTES`` before its
first), so a deal once begun can be finished; ``deals_left()`` says how many
fit, and the table warns from ``WARN_DEALS`` on.  Finished sessions are
dropped, oldest first, when a session starts and before each deal, while
fewer than ``CLEAN_DEALS`` deals fit (``make_room``); never the running one,
and the newest finished one only when not even one deal would fit.  A line
the flash does not take sets ``failed`` (``append`` never raises: the
card-play path stays free of exception handlers, a bigger frame would go on
the heap); ``reopen()`` reads back what the flash holds and the table resumes
from it as after a power cut (table/app.py).

The card play, the line written most, goes onto flash without allocating
(``FlashJournal``: formatted into the page buffer; tests/mp/mptest_app_heap.py
checks it under ``heap_lock``).
"""
from tapp.cards import CARD_CODES, CODE_INDEX
from tapp.jsonout import dumps
from tapp.record import parse_line, with_crc

from . import crc_buf as C
from . import flash_log as L
from .flash_log import line_head

DEAL_BYTES = 2048         # a deal's journal, before the session has an average
WARN_DEALS = 10           # from this many deals left the table warns
CLEAN_DEALS = 40          # old sessions go while fewer deals than this fit
TAIL = 32                 # lines of the running session the console may ask again

# why an append was refused (``refused``): the same words on every runtime
NO_ROOM = "no_room"               # a new deal would not fit whole, or the flash is full
LINE_TOO_LONG = "line_too_long"   # longer than a record holds (flash_log.MAX_LINE)
FLASH_ERROR = "flash_error"       # the flash refused an erase or a program

_PLAY_HEAD = b'{"seat":'
_PLAY_CARD = b',"card":"'
_PLAY_END = b'","ev":"play"}'
_CODES = [code.encode() for code in CARD_CODES]   # a card's code, for formatting it


def is_play(ev):
    """A card play of the engine's own shape (seat 0-9, a known card), the
    one the journal formats without allocating."""
    if len(ev) != 3 or ev.get("ev") != "play":
        return False
    seat = ev.get("seat")
    card = ev.get("card")
    return type(seat) is int and 0 <= seat < 10 and type(card) is str and card in CODE_INDEX


def line_of(ev):
    """The journal line of an event: its canonical JSON (tapp.jsonout.dumps) and
    the CRC.  A card play is formatted directly: the same text, without dumps'
    2.5 KB of heap (tests/mp/mptest_app_heap.py checks the text)."""
    if is_play(ev):
        return with_crc('{"seat":%d,"card":"%s","ev":"play"}' % (ev["seat"], ev["card"]))
    return with_crc(dumps(ev))


def session_name(number):
    return "s%04d.jsonl" % number


def make_room(finished, free, drop_oldest, per):
    """Drop finished sessions (``finished`` of them), oldest first, while
    ``free()`` holds fewer than ``CLEAN_DEALS`` deals of ``per`` bytes; the
    newest finished one only when not one deal fits.  ``drop_oldest(newest)``
    drops the oldest (``newest``: even if that is, or takes with it, the
    newest finished one) and says whether it did (False stops)."""
    for k in range(finished):
        got = free()
        if got < 0 or got >= CLEAN_DEALS * per:
            return
        if k == finished - 1 and got >= per:
            return
        if not drop_oldest(got < per):
            return


class SessionJournal:
    """What a session on flash shares, whatever holds it: the counts, the
    space rules, ``append``.  A subclass writes (``write_event``: None, or
    the word why the flash did not take it), says what is free
    (``free_bytes``) and makes room (``make_room(per)``)."""

    def __init__(self, header_line, count, size, deals, used):
        self.header_line = header_line
        self.count = count          # lines (the header too; torn ones not)
        self.size = size            # bytes of the lines, a newline each (a download's size)
        self.used = used            # bytes they take on flash
        self.header_used = 0        # ... of which the header's
        self.deals = deals          # deal events
        self.dropped = 0            # torn lines found when it was read back
        self.failed = False         # an append was refused: reopen() before the next
        self.refused = None         # ... and why (NO_ROOM, LINE_TOO_LONG, FLASH_ERROR)

    def deal_bytes(self):
        """What a deal of this session takes on flash: its average so far
        (DEAL_BYTES before its first deal)."""
        if not self.deals:
            return DEAL_BYTES
        per = (self.used - self.header_used) // self.deals + 1
        return per if per > 256 else 256

    def free_bytes(self):
        """Bytes a new deal may use (-1: no way to tell)."""
        return -1

    def make_room(self, per):
        """Drop finished sessions by the rules (``make_room`` above)."""

    def deals_left(self):
        """How many more deals fit on the flash (-1: no way to tell)."""
        free = self.free_bytes()
        return free // self.deal_bytes() if free >= 0 else -1

    def room_for_deal(self):
        """Make room for one more deal (old sessions dropped by the rules,
        only when the flash is short); whether it fits."""
        per = self.deal_bytes()
        free = self.free_bytes()
        if 0 <= free < CLEAN_DEALS * per:
            self.make_room(per)
            free = self.free_bytes()
        return free < 0 or free >= per

    def append(self, ev):
        """Put the event's line on flash.  When the flash refuses it, or for a
        new deal that would not fit whole, nothing is kept and ``failed`` is
        set (the caller takes the session up again: ``reopen``)."""
        if self.failed:
            return
        deal = ev.get("ev") == "deal"
        if deal:
            if not self.room_for_deal():
                self.refuse(NO_ROOM)
                return
            self.deals += 1
        why = self.write_event(ev)
        if why is not None:
            self.refuse(why)
            if deal:
                self.deals -= 1

    def refuse(self, why):
        """Nothing more is written until ``reopen``: ``why`` says the reason."""
        self.failed = True
        self.refused = why

    def write_event(self, ev):
        return FLASH_ERROR

    def prepare(self):
        """Flash work done ahead of need when nothing waits (table/app.py):
        whether there was any.  Only the flash area has some."""
        return False

    def header(self):
        return parse_line(self.header_line)

    def name(self):
        """The session's name in ``journal list`` (None: kept in RAM only)."""
        return None

    def read_lines(self):
        return iter(())

    def iter_events(self):
        """The session's events one by one: a power-up folds them without
        holding them all (as lines or dicts) at once."""
        first = True
        for line in self.read_lines():
            if first:
                first = False
                continue
            yield parse_line(line)

    def events(self):
        """The session's events (dicts), in order."""
        return list(self.iter_events())

    def close(self):
        """Nothing stays unwritten after an append."""

    def __len__(self):
        return self.count


class MemoryJournal(SessionJournal):
    """A session in RAM (a table without flash, tests): never refuses a line."""

    def __init__(self, header):
        first = with_crc(dumps(header))
        SessionJournal.__init__(self, first, 1, len(first) + 1, 0, 0)
        self.lines = [first]

    def write_event(self, ev):
        line = line_of(ev)
        self.lines.append(line)
        self.count += 1
        self.size += len(line) + 1
        return None

    def deals_left(self):
        """RAM has no flash to fill: no way to tell (-1)."""
        return -1

    def reopen(self):
        """RAM never refuses a line: the same journal."""
        return self

    def tail(self, n):
        """The last ``n`` lines (for screens and the console)."""
        return self.lines[-n:]

    def line(self, k):
        return self.lines[k]

    def read_lines(self):
        return iter(list(self.lines))


class MemoryJournals:
    """Sessions in RAM: only the running one is kept."""

    def create(self, header):
        return MemoryJournal(header)

    def last(self):
        return None

    def sessions(self):
        return []

    def lines(self, name):
        return None


# ----- the journal's own flash area -------------------------------------------------

RESERVE = L.PAYLOAD        # flash bytes play never counts on (a long deal, sectors' ends)
_NUM, _SEC, _POS, _SEQ = 0, 1, 2, 3          # a session's entry: its number, where it starts
_LINES, _BYTES, _USED, _DEALS, _TORN = 0, 1, 2, 3, 4    # a finished session's counts
_CRC = C.state()           # the card play's CRC (one append at a time)


class FlashJournals:
    """The sessions in the journal's own flash area (table/flash_log.py on
    the block device ``dev``), read when made: a session is its first record
    (its header line, tagged with the session's number) and the records that
    follow it, up to the next session's."""

    def __init__(self, dev):
        self.log = L.FlashLog(dev)
        self.read()

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
        line = with_crc(dumps(header))
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
            journal.failed = True
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
        data = line_of(ev).encode()
        if len(data) > L.MAX_LINE:
            return LINE_TOO_LONG
        if not self.log.write(L.TAG_LINE, 0, data):
            return self._why()
        self._written(len(data), 4 + len(data))
        return None

    def _why(self):
        return FLASH_ERROR if self.log.failed else NO_ROOM

    def _written(self, n, size):
        """A record of a line of ``n`` bytes, ``size`` on flash, went on."""
        log = self.log
        self.note(log.wsec * L.SECTOR + log.wpos - size)
        self.count += 1
        self.size += n + 1
        self.used += size

    def _write_play(self, seat, code):
        """A card play formatted straight into the log's page buffer and
        programmed: nothing allocated (and no frame over 11 words, which
        MicroPython would put on the heap)."""
        r = self.log.reserve(45 + len(code))
        if r < 0:
            return self._why()
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

    def line(self, k):
        """Line k of the session (0: the header)."""
        back = self.count - 1 - k
        if 0 <= back < TAIL:
            return self.store.line_at(self.where[(self.last - back) % TAIL])
        for i, line in enumerate(self.read_lines()):
            if i == k:
                return line
        raise IndexError(k)

    def read_lines(self):
        """Every line of the session, read from flash one by one."""
        return self.store.walk(self.entry, self.count)


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


def open_journals(board, root):
    """The table's store: the journal's own flash area when the board has
    one (``board.journal_flash``, a block device), else files on ``root``."""
    dev = getattr(board, "journal_flash", None)
    if dev is not None:
        return FlashJournals(dev)
    from .journal_files import FileJournals
    return FileJournals(root)
