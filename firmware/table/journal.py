"""The event log behind one small interface: what the table has accepted.

The game calls ``append(event)`` for every accepted input event; it returns
once the line is written and flushed, so a power cut loses at most the event
being entered ("append, flush, then act").  Lines are docs/record-format.md lines with the
journal's tab + CRC-32 suffix; the first line is the session's header, so a
journal file is a record that ``tapptable replay`` reads.

``MemoryJournal`` keeps the lines in RAM (tests, a table without flash).
``FileJournal`` keeps one file per session under ``<root>/journal/``
(``s0001.jsonl``, ``s0002.jsonl`` ...): ``create_journal(root, header)`` starts
one, ``last_journal(root)`` finds the
newest session after a power-up and reads it back: a torn last line (power cut
inside a write, erased flash) or any line whose CRC does not match is dropped
and counted, nothing before it is lost.  Old sessions are kept until space
runs low, then removed oldest first.
"""
import os

from tapp.cards import CODE_INDEX
from tapp.jsonout import dumps
from tapp.record import MAX_LINE, OVERLONG, LineReader, parse_line, with_crc

FOLDER = "journal"
KEEP_FREE = 64 * 1024     # bytes of flash to keep free for the session in play

class _LineBuffer:
    """The journal's readers run one after another (power-up, rewrite, resume;
    the console's download has its own): they share one line buffer, taken
    when this module is imported -- at power-up, before the heap is fragmented.
    A reader started while another holds it gets a buffer of its own."""

    def __init__(self):
        self.buf = bytearray(MAX_LINE)
        self.holder = None

    def reader(self, f):
        if self.holder is not None:
            return LineReader(f)
        self.holder = LineReader(f, line=self.buf)
        return self.holder

    def release(self, reader):
        if self.holder is reader:
            self.holder = None


_LINES = _LineBuffer()


def line_of(ev):
    """The journal line of an event: its canonical JSON (tapp.jsonout.dumps) and
    the CRC.  A card play, the line written most, is formatted directly: the
    same text, but about 0.2 KB of heap instead of dumps' 2.5 KB (measured in
    the MicroPython VM, tests/mp/mptest_app_heap.py, which checks the text)."""
    if len(ev) == 3 and ev.get("ev") == "play":
        seat = ev.get("seat")
        card = ev.get("card")
        if type(seat) is int and 0 <= seat < 10 and type(card) is str and card in CODE_INDEX:
            return with_crc('{"seat":%d,"card":"%s","ev":"play"}' % (seat, card))
    return with_crc(dumps(ev))


class MemoryJournal:
    def __init__(self, header):
        self.lines = [with_crc(dumps(header))]

    def append(self, ev):
        self.lines.append(line_of(ev))

    def tail(self, n):
        """The last ``n`` lines (for screens and the console)."""
        return self.lines[-n:]

    def line(self, k):
        return self.lines[k]

    def read_lines(self):
        return iter(self.lines)

    def __len__(self):
        return len(self.lines)


def _join(*parts):
    out = parts[0].rstrip("/")
    for p in parts[1:]:
        out += "/" + p
    return out


def _sessions(root):
    """Session file names under root, oldest first."""
    try:
        names = os.listdir(_join(root, FOLDER))
    except OSError:
        return []
    out = [n for n in names if n.startswith("s") and n.endswith(".jsonl")
           and n[1:-6].isdigit()]
    out.sort()
    return out


def _whole(raw):
    """A journal line as the device writes it: JSON, tab, CRC-32 that matches."""
    if raw is OVERLONG or len(raw) < 10 or raw[len(raw) - 9] != 0x09:
        return False
    return parse_line(raw) is not None


def _free_bytes(root):
    try:
        st = os.statvfs(root)
    except (OSError, AttributeError):
        return -1
    return st[0] * st[3]


def _rewrite(path):
    """Copy the whole lines to a new file and rename it over the old one, so the
    next append does not follow a torn line (read and written line by line)."""
    tmp = path + ".tmp"
    with open(path, "rb") as src, open(tmp, "w") as dst:
        reader = _LINES.reader(src)
        try:
            while True:
                raw = reader.readline()
                if raw is None:
                    break
                if _whole(raw):
                    dst.write(bytes(raw).decode() + "\n")
        finally:
            _LINES.release(reader)
    os.rename(tmp, path)


def make_room(root, keep=()):
    """Remove old sessions, oldest first, while flash is short of space."""
    for name in _sessions(root):
        free = _free_bytes(root)
        if free < 0 or free >= KEEP_FREE:
            return
        if name in keep:
            continue
        os.remove(_join(root, FOLDER, name))


TAIL = 32                 # lines a file journal keeps in RAM (the console follows them)


class FileJournal:
    """One session's journal file, opened for appending.  Only the header and
    the last ``TAIL`` lines stay in RAM: a long session costs flash, not heap;
    ``read_lines()`` reads the whole session back from flash."""

    def __init__(self, path, header_line, count, tail):
        self.path = path
        self.header_line = header_line
        self.count = count           # lines in the file (dropped lines excluded)
        self.recent = list(tail)     # its last lines (at most TAIL)
        self.dropped = 0             # torn or corrupt lines found when it was read
        self._file = open(path, "a")

    def write_line(self, line):
        self._file.write(line + "\n")
        self._file.flush()
        sync = getattr(os, "sync", None)
        if sync is not None:
            sync()
        if self.header_line is None:
            self.header_line = line
        self.count += 1
        self.recent.append(line)
        if len(self.recent) > TAIL:
            self.recent.pop(0)

    def append(self, ev):
        self.write_line(line_of(ev))

    def header(self):
        return parse_line(self.header_line)

    def line(self, k):
        """Line k of the session (0: the header); from RAM when it is recent."""
        first = self.count - len(self.recent)
        if k >= first:
            return self.recent[k - first]
        for i, line in enumerate(self.read_lines()):
            if i == k:
                return line
        raise IndexError(k)

    def read_lines(self):
        """Every line of the session, read from flash one by one."""
        with open(self.path, "rb") as f:
            reader = _LINES.reader(f)
            try:
                while True:
                    raw = reader.readline()
                    if raw is None:
                        return
                    if _whole(raw):
                        yield bytes(raw).decode()
            finally:
                _LINES.release(reader)

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

    def tail(self, n):
        return self.recent[-n:]

    def close(self):
        self._file.close()

    def __len__(self):
        return self.count


def create_journal(root, header):
    """A new session file (the next number), the header written and flushed."""
    folder = _join(root, FOLDER)
    try:
        os.mkdir(folder)
    except OSError:
        pass                    # it exists
    names = _sessions(root)
    number = int(names[-1][1:-6]) + 1 if names else 1
    make_room(root, keep=names[-1:] if names else [])
    path = _join(folder, "s%04d.jsonl" % number)
    journal = FileJournal(path, None, 0, [])
    journal.write_line(with_crc(dumps(header)))
    return journal


def last_journal(root):
    """The newest session's journal read back (for resuming), or None."""
    names = _sessions(root)
    if not names:
        return None
    path = _join(root, FOLDER, names[-1])
    header = None
    count = 0
    tail = []
    dropped = 0
    with open(path, "rb") as f:
        reader = _LINES.reader(f)
        try:
            while True:
                raw = reader.readline()
                if raw is None:
                    break
                if not _whole(raw):
                    dropped += 1    # torn (power cut in a write, erased flash) or corrupt
                    continue
                line = bytes(raw).decode()
                if header is None:
                    header = line
                count += 1
                tail.append(line)
                if len(tail) > TAIL:
                    tail.pop(0)
        finally:
            _LINES.release(reader)
    if header is None:
        return None
    if dropped:
        _rewrite(path)
    journal = FileJournal(path, header, count, tail)
    journal.dropped = dropped
    return journal
