"""The journal as files on littlefs: one file per session under
``<root>/journal/`` (``s0001.jsonl``, ``s0002.jsonl`` ...).  The table uses
it where littlefs covers the whole flash (the stock or ROMFS firmware: no
flash area of the journal's own, table/journal.py ``open_journals``) and on a
host's disk; the rules it keeps are table/journal.py's.

``FileJournals(root)`` is the store: ``create(header)`` starts the next
file, ``last()`` reads the newest back after a power-up: a torn last line
(power cut inside a write, erased flash) or any line whose CRC does not
match is dropped and counted, nothing before it is lost.

Space on flash:

* free space is the flash's blocks (``statvfs``'s total) less what the files
  and folders take by their sizes (``used_blocks``) and less ``_RESERVE_BLOCKS``,
  which play never uses (littlefs needs free blocks to commit anything at all,
  and a file open for appending holds a block or two more than its size).
  ``statvfs``'s own free count is not used: littlefs works it out by walking
  its blocks, including those in flight, and on a full flash it exceeds the
  total and wraps to a huge number (MicroPython's VfsLfs2 subtracts unsigned);
  it also differs between littlefs builds by a block or two, where the sizes
  of the files are the same on every runtime;
* old sessions are removed as table/journal.py ``make_room`` says: a file is
  a finished session once a newer one has started;
* an append the flash refuses (``OSError``) sets ``failed`` and closes the
  file at once, so a line that did not reach the flash can never be committed
  later; ``reopen()`` reads back what the flash holds.
"""
import os

from tapp.record import MAX_LINE, OVERLONG, LineReader, parse_line

from .files import join
from .journal import DEAL_BYTES, FLASH_ERROR, NO_ROOM, TAIL, SessionJournal, line_of, make_room

try:
    from micropython import const
except ImportError:  # CPython
    const = lambda x: x  # noqa: E731

FOLDER = "journal"
_RESERVE_BLOCKS = const(4)        # free blocks play never uses (littlefs commits need some)
INLINE = 512              # littlefs keeps a file this small inside its folder's blocks
ENOSPC = 28

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


def sessions(root):
    """Session file names under root, oldest first."""
    try:
        names = os.listdir(join(root, FOLDER))
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


def file_blocks(nbytes, size):
    """Blocks of ``size`` bytes a file of ``nbytes`` takes on littlefs: none up
    to INLINE bytes (it lives in its folder's metadata), else its bytes in
    blocks that also hold a few pointers (16 bytes a block counted)."""
    return (nbytes + size - 17) // (size - 16) if nbytes > INLINE else 0


def used_blocks(path, size):
    """Blocks of ``size`` bytes that the folder ``path`` and everything in it
    take on littlefs: a folder a pair of metadata blocks, a file its
    ``file_blocks``."""
    n = 2
    for name in os.listdir(path):
        p = join(path, name)
        st = os.stat(p)
        if st[0] & 0x4000:
            n += used_blocks(p, size)
        else:
            n += file_blocks(st[6], size)
    return n


_HOST_DISK = const(1 << 29)      # free bytes a host's big disk counts as (a small int)


def geometry(root):
    """(block size, blocks) of the flash holding ``root``; None where the port
    has no ``statvfs``; (1, _HOST_DISK) on a host's big disk."""
    try:
        st = os.statvfs(root)
    except (OSError, AttributeError):
        return None
    if st[2] > _HOST_DISK // st[0]:
        return 1, _HOST_DISK
    return st[0], st[2]


def free_bytes(root):
    """Bytes the flash holding ``root`` has free beyond the reserve, counted
    from the files' sizes (see the module's notes); -1 where the port has no
    ``statvfs``; a host's big disk: _HOST_DISK."""
    geo = geometry(root)
    if geo is None:
        return -1
    if geo[0] == 1:
        return geo[1]
    return _beyond_reserve(geo, used_blocks(root, geo[0]))


def _beyond_reserve(geo, used):
    free = geo[1] - used - _RESERVE_BLOCKS
    return free * geo[0] if free > 0 else 0


def _rewrite(path):
    """Copy the whole lines to a new file and rename it over the old one, so the
    next append does not follow a torn line (read and written line by line)."""
    tmp = path + ".tmp"
    with open(tmp, "w") as dst:
        for line in file_lines(path):
            dst.write(line + "\n")
    os.rename(tmp, path)


def make_room_files(root, running, deal_bytes=DEAL_BYTES):
    """Remove finished sessions, oldest first, by table/journal.py
    ``make_room``; never the ``running`` session (a file name)."""
    finished = [n for n in sessions(root) if n != running]

    def drop_oldest(_newest):
        os.remove(join(root, FOLDER, finished.pop(0)))
        return True
    make_room(len(finished), lambda: free_bytes(root), drop_oldest, deal_bytes)


class FileJournal(SessionJournal):
    """One session's journal file, opened for appending.  Only the header and
    the last ``TAIL`` lines stay in RAM: a long session costs flash, not heap;
    ``read_lines()`` reads the whole session back from flash."""

    def __init__(self, path, header_line, count, tail, size=0, deals=0):
        SessionJournal.__init__(self, header_line, count, size, deals, size)
        self.path = path
        self.recent = list(tail)     # its last lines (at most TAIL)
        self.header_used = len(header_line) + 1 if header_line else 0
        self.root = path[:path.rfind("/" + FOLDER + "/")] or "/"
        self._geometry = None        # (block size, blocks), asked once
        self._others = -1            # blocks the other files take (-1: count them)
        try:
            self._file = open(path, "a")
        except OSError:              # no room even to open it
            self._file = None
            self.failed = True

    def free_bytes(self):
        """``free_bytes(root)`` without walking the flash at every deal (nor
        asking ``statvfs``, which walks littlefs's blocks): the flash's size
        and what the other files take are counted once (the latter again after
        old sessions were removed), this file's blocks follow from the bytes
        written to it."""
        geo = self._geometry
        if geo is None:
            geo = self._geometry = geometry(self.root)
            if geo is None:
                return -1
        size = geo[0]
        if size == 1:
            return geo[1]
        if self._others < 0:
            try:
                mine = file_blocks(os.stat(self.path)[6], size)
            except OSError:
                mine = 0
            self._others = used_blocks(self.root, size) - mine
        return _beyond_reserve(geo, self._others + file_blocks(self.size, size))

    def name(self):
        return self.path[self.path.rfind("/") + 1:]

    def make_room(self, per):
        make_room_files(self.root, self.name(), per)
        self._others = -1

    def write_line(self, line):
        """Write and flush ``line``; OSError when the flash refuses it (the
        file is closed then: what did not reach the flash stays off it)."""
        if self._file is None:
            raise OSError(ENOSPC)        # a write failed before: reopen() first
        try:
            self._file.write(line + "\n")
            self._file.flush()
        except OSError:
            self.failed = True
            self.close()
            raise
        sync = getattr(os, "sync", None)
        if sync is not None:
            sync()
        self.size += len(line) + 1
        self.used = self.size
        if self.header_used == 0:
            self.header_used = len(line) + 1
        if self.header_line is None:
            self.header_line = line
        self.count += 1
        self.recent.append(line)
        if len(self.recent) > TAIL:
            self.recent.pop(0)

    def write_event(self, ev):
        try:
            self.write_line(line_of(ev))
        except OSError as exc:
            return NO_ROOM if exc.args and exc.args[0] == ENOSPC else FLASH_ERROR
        return None

    def reopen(self):
        """After a failed append: the session as the flash holds it (a new
        journal read back from the file, as at a power-up)."""
        self.close()
        return read_back(self.path)

    def line(self, k, reader=None):
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
        return file_lines(self.path)

    def tail(self, n):
        return self.recent[-n:]

    def close(self):
        """Close the file; a flash that refuses the final commit changes nothing."""
        f = self._file
        self._file = None
        if f is not None:
            try:
                f.close()
            except OSError:
                pass


def _raw_lines(path):
    """Every line of the file ``path`` as the shared line reader gives it
    (bytes valid until the next one)."""
    with open(path, "rb") as f:
        reader = _LINES.reader(f)
        try:
            while True:
                raw = reader.readline()
                if raw is None:
                    return
                yield raw
        finally:
            _LINES.release(reader)


def file_lines(path):
    """The whole lines of the session file ``path``, read one by one (closing
    this closes the file and gives the line buffer back at once)."""
    raws = _raw_lines(path)
    try:
        for raw in raws:
            if _whole(raw):
                yield bytes(raw).decode()
    finally:
        raws.close()


def create_journal(root, header):
    """A new session file (the next number), the header written and flushed."""
    folder = join(root, FOLDER)
    try:
        os.mkdir(folder)
    except OSError:
        pass                    # it exists
    names = sessions(root)
    number = int(names[-1][1:-6]) + 1 if names else 1
    name = "s%04d.jsonl" % number
    make_room_files(root, name)
    path = join(folder, name)
    journal = FileJournal(path, None, 0, [])
    try:
        journal.write_line(line_of(header))
    except OSError:
        pass                    # failed is set: the table says the flash is full
    return journal


def last_journal(root):
    """The newest session's journal read back (for resuming), or None."""
    names = sessions(root)
    if not names:
        return None
    return read_back(join(root, FOLDER, names[-1]))


class FileJournals:
    """The sessions as files under ``<root>/journal/`` (table/journal.py's
    store interface)."""

    def __init__(self, root):
        self.root = root

    def create(self, header):
        return create_journal(self.root, header)

    def prepare(self):
        """Flash work ahead of need before a session runs: littlefs has none."""
        return False

    def last(self):
        return last_journal(self.root)

    def sessions(self):
        """(name, bytes) of every session file, oldest first."""
        out = []
        for name in sessions(self.root):
            try:
                out.append((name, os.stat(join(self.root, FOLDER, name))[6]))
            except OSError:
                pass
        return out

    def lines(self, name):
        """The lines of the session file ``name`` (a generator), or None."""
        if name not in sessions(self.root):
            return None
        return file_lines(join(self.root, FOLDER, name))


def read_back(path):
    """The session in the file ``path`` read back for appending, or None."""
    header = None
    count = 0
    tail = []
    dropped = 0
    size = 0
    deals = 0
    for raw in _raw_lines(path):
        if not _whole(raw):
            dropped += 1    # torn (power cut in a write, erased flash) or corrupt
            continue
        line = bytes(raw).decode()
        if header is None:
            header = line
        elif '"ev":"deal"' in line:
            deals += 1
        count += 1
        size += len(raw) + 1
        tail.append(line)
        if len(tail) > TAIL:
            tail.pop(0)
    if header is None:
        return None
    if dropped:
        try:
            _rewrite(path)
        except OSError:          # no room for the copy: the torn line stays (dropped
            try:                 # again at every reading)
                os.remove(path + ".tmp")
            except OSError:
                pass
    journal = FileJournal(path, header, count, tail, size, deals)
    journal.dropped = dropped
    return journal
