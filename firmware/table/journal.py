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

* ``journal_flash.FlashJournals`` -- the journal's own flash area (the
  table's firmware on the Pico: boards/pico.py), records appended by page
  program into a ring of erased sectors (table/flash_log.py;
  docs/record-format.md, "Journal on the device");
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

The card play, the line written most, goes onto the journal's own flash area
without allocating (journal_flash.py: formatted into the page buffer;
tests/mp/mptest_app_heap.py checks it under ``heap_lock``).  Only the store
the board has is imported (the RAM it takes).
"""
from tapp.cards import CODE_INDEX
from tapp.jsonout import dumps
from tapp.record import parse_line, with_crc

DEAL_BYTES = 2048         # a deal's journal, before the session has an average
WARN_DEALS = 10           # from this many deals left the table warns
CLEAN_DEALS = 15          # old sessions go while fewer deals than this fit (the Pico's
                          # 52 KiB hold about 28-44: finished sessions stay for an evening)
TAIL = 32                 # lines of the running session the console may ask again

# why an append was refused (``refused``): the same words on every runtime
NO_ROOM = "no_room"               # a new deal would not fit whole, or the flash is full
LINE_TOO_LONG = "line_too_long"   # longer than a record holds (flash_log.MAX_LINE)
FLASH_ERROR = "flash_error"       # the flash refused an erase or a program


def is_play(ev):
    """A card play of the engine's own shape (seat 0-9, a known card), the
    one the journal formats without allocating."""
    if len(ev) != 3 or ev.get("ev") != "play":
        return False
    seat = ev.get("seat")
    card = ev.get("card")
    return type(seat) is int and 0 <= seat < 10 and type(card) is str and card in CODE_INDEX


# The last session header's line (the header, its line): made ahead on the
# setup's last screen (table/app.py ``_session_ahead``), taken by the OK that
# starts the session -- dumps held that press's step 5.5 ms on the Pico.
_HEADER = [None, ""]


def line_of(ev):
    """The journal line of an event or of a session's header (no "ev"): its
    canonical JSON (tapp.jsonout.dumps) and the CRC.  A card play is formatted
    directly: the same text, without dumps' 2.5 KB of heap
    (tests/mp/mptest_app_heap.py checks the text).  A header's line is kept,
    the last one (a header is a new dict each time: table/settings.py)."""
    if is_play(ev):
        return with_crc('{"seat":%d,"card":"%s","ev":"play"}' % (ev["seat"], ev["card"]))
    if "ev" in ev:
        return with_crc(dumps(ev))
    if _HEADER[0] != ev:
        _HEADER[1] = with_crc(dumps(ev))
        _HEADER[0] = ev
    return _HEADER[1]


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

    def line_reader(self):
        """Something ``line(k, reader)`` reads with, kept by a caller that reads
        often (None: this journal needs none)."""
        return None

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
        first = line_of(header)
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

    def line(self, k, reader=None):
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

    def prepare(self):
        """Flash work ahead of need before a session runs (table/app.py): none in RAM."""
        return False


def open_journals(board, root):
    """The table's store: the journal's own flash area when the board has
    one (``board.journal_flash``, a block device), else files on ``root``."""
    dev = getattr(board, "journal_flash", None)
    if dev is not None:
        from .journal_flash import FlashJournals
        return FlashJournals(dev)
    from .journal_files import FileJournals
    return FileJournals(root)
