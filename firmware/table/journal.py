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
from tapp.record import OVERLONG, LineReader, parse_line, with_crc

FOLDER = "journal"
KEEP_FREE = 64 * 1024     # bytes of flash to keep free for the session in play


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


def _rewrite(path, lines):
    """Write the good lines to a new file and rename it over the old one, so the
    next append does not follow a torn line."""
    tmp = path + ".tmp"
    with open(tmp, "w") as f:
        for line in lines:
            f.write(line + "\n")
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


class FileJournal:
    """One session's journal file, opened for appending."""

    def __init__(self, path, lines):
        self.path = path
        self.lines = lines          # what is in the file (dropped lines excluded)
        self.dropped = 0            # torn or corrupt lines found when it was read
        self._file = open(path, "a")

    def write_line(self, line):
        self._file.write(line + "\n")
        self._file.flush()
        sync = getattr(os, "sync", None)
        if sync is not None:
            sync()
        self.lines.append(line)

    def append(self, ev):
        self.write_line(line_of(ev))

    def header(self):
        return parse_line(self.lines[0])

    def events(self):
        """The session's events (dicts), in order."""
        return [parse_line(line) for line in self.lines[1:]]

    def iter_events(self):
        """The same events one by one: a power-up folds them without holding
        them all as dicts at once (a long session's dicts take several times
        the heap of its lines)."""
        lines = self.lines
        k = 1
        while k < len(lines):
            yield parse_line(lines[k])
            k += 1

    def tail(self, n):
        return self.lines[-n:]

    def close(self):
        self._file.close()

    def __len__(self):
        return len(self.lines)


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
    journal = FileJournal(path, [])
    journal.write_line(with_crc(dumps(header)))
    return journal


def last_journal(root):
    """The newest session's journal read back (for resuming), or None."""
    names = _sessions(root)
    if not names:
        return None
    path = _join(root, FOLDER, names[-1])
    lines = []
    dropped = 0
    with open(path, "rb") as f:
        reader = LineReader(f)
        while True:
            raw = reader.readline()
            if raw is None:
                break
            if not _whole(raw):
                dropped += 1    # torn (power cut in a write, erased flash) or corrupt
                continue
            lines.append(bytes(raw).decode())
    if not lines:
        return None
    if dropped:
        _rewrite(path, lines)
    journal = FileJournal(path, lines)
    journal.dropped = dropped
    return journal
