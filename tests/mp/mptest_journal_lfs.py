# The journal as files on littlefs (firmware/table/journal_files.py: the
# fallback where littlefs covers the whole flash, the stock and ROMFS
# firmware) inside real MicroPython, with the power cut in every flash
# operation of every append.  (The journal in its own flash area:
# mptest_journal_flash.py.)
# mp-heapsize: 2m
#
# The first played-out deal of a golden record of every variant
# (tests/golden/) is played through the engine's Session while every accepted
# event is journalled (create_journal, FileJournal.append) on vfs.VfsLfs2
# mounted as the rp2 port mounts it (progsize 256) on mpflash.FlashDev:
# emulated NOR flash with the Pico's 4096-byte erase blocks, 16 of them.  The
# uncut run records every flash operation; a cut is rebuilt from that log (the
# firmware is deterministic: test_replayed_cut_equals_live_cut checks it
# against live cuts).  For every event k and every flash operation (erase or
# program) the append of event k's line makes, the flash a cut leaves behind
# is rebuilt twice -- the operation done half (half a block erased, half the
# buffer programmed) and done whole, the power gone right after -- then
# "powered on": mounted, last_journal(root), its events folded into a fresh
# Session.  The state (phase, turn, trick, last trick, balances, pot, deals
# played, contract) must be the one after event k-1 or after event k (after k
# only when line k reached the flash whole), the journal's lines exactly the
# lines written before, nothing raised, ``dropped`` counting a torn line; then
# the table writes on (the lost event again, or the next one) and that reads
# back too.  The header's own write is cut the same way (then there is no
# session, or an empty one).
#
# littlefs commits a file's new size atomically with its metadata, so a cut
# append leaves the old or the new file, never a torn line; the torn-line
# path (dropped == 1, the file rewritten without it) is driven by writing a
# torn line through the file system, with the power cut in every operation
# of the rewrite too.
#
# Under CPython the same tests run on littlefs-python (host_sim/lfs_vfs.py) on
# the same emulated flash.  The wasm port has no vfs.VfsLfs2: there the
# littlefs tests say they do not apply (mpcheck.py, counted and checked by
# tests/test_micropython.py) and the journal round trip (torn tail dropped and
# counted) runs on its in-memory file system, with a deal generated in the VM.
#
# Numbers (flash operations, cuts run, how many came back with the old or
# the new line, torn lines seen, time) are printed per record: about 3000
# cuts over the eleven records (one per variant, each up to its first
# played-out deal), one to four seconds per record on the unix port.  The
# test command cuts every other operation of each line's write (and always
# its last; some 1600 cuts); the slow extras (TAPP_SLOW=1, ``dev.py test
# --slow``) every one.
import gc
import json
import os

import mpflash as F
import pytest  # under MicroPython: tests/mp/pytest.py (parametrize)
from mpcheck import not_applicable
from random_deals import Lcg, random_deal_events

from table.journal_files import create_journal, last_journal
from tapp.session import Session

try:
    from time import ticks_diff, ticks_ms
except ImportError:  # CPython
    import time

    def ticks_ms():
        return int(time.time() * 1000)

    def ticks_diff(a, b):
        return a - b

try:
    import micropython
except ImportError:  # CPython
    micropython = None

if micropython is None:  # CPython: littlefs (host_sim/lfs_vfs.py) found by path, as on the device
    from host_sim import flash as host_flash

    host_flash.install()
    os = host_flash.FlashOs()
    open = host_flash.flash_open

BLOCKS = 16            # 64 KB of 4096-byte erase blocks (the Pico's file system is ~1.4 MB)
LIVE = "/mpjl_live"
CUT = "/mpjl_cut"
PLAIN = "/mpjl_tmp"
NO_LFS = "no vfs.VfsLfs2 (littlefs) on this port"
if micropython is None:  # CPython (mprunner.py runs there too): the host's temp folder
    import tempfile
    PLAIN = tempfile.gettempdir() + "/mpjl_tmp"

_HERE = __file__.replace("\\", "/")
GOLDEN = _HERE[:_HERE.rfind("/mp/")] + "/golden/"

# the deal of one golden record per variant (tapp_modern with 4 and herzblatt
# with 5 players: the largest tables)
RECORDS = ("wuerttemberg_3_strict_pot", "tapp_modern_4_open_pack32", "haferltarock_3_strict",
           "herzblatt_5_open", "scharfer_tarock_3_strict", "tapp_classic_3_open",
           "tarock_simple_4_strict_per_point", "tarock_bettel_3_open", "berliner_4_open",
           "herzblatt_muhr_3_strict", "braun_solo_4_open")


_POOL = []


def _buffers():
    """Six flash-sized buffers, made once: 64 KB allocations again and again
    would fragment the test's heap.  0: the live flash, 1: the flash as
    formatted, 2: after the last line, 3: the flash powered on after a cut,
    4: the flash before line k, 5: the cut image."""
    if not _POOL:
        gc.collect()
        for _ in range(6):
            _POOL.append(bytearray(BLOCKS * F.ERASE_BLOCK))
    return _POOL


def _fresh():
    """An erased flash device on buffer 0."""
    buf = _buffers()[0]
    F.erase(buf, 0, len(buf))
    return F.FlashDev(BLOCKS, data=buf, share=True)


def _state(view):
    return (view.phase(), view.turn(), view.trick(), view.last_trick(), view.balances(),
            view.pot(), view.deals_played(), view.contract())


PLAYED_OUT = 20     # events of a deal that was played (not passed out or ended early)


def _first_deal(name):
    """(header, the record's events up to the end of its first played-out deal:
    a deal everybody passed has too few events to test)."""
    f = open(GOLDEN + name + ".jsonl")
    try:
        header = json.loads(f.readline())
        events = []
        start = 0
        for line in f:
            ev = json.loads(line)
            if ev["ev"] == "deal" and events:
                if len(events) - start >= PLAYED_OUT:
                    break
                start = len(events)
            events.append(ev)
    finally:
        f.close()
    return header, events


def _session_file(root):
    names = os.listdir(root + "/journal")
    names = [n for n in names if n.endswith(".jsonl")]
    assert len(names) == 1, names
    return root + "/journal/" + names[0]


def _raw(root):
    try:
        names = os.listdir(root + "/journal")
    except OSError:
        return None
    names = [n for n in names if n.endswith(".jsonl")]
    if not names:
        return None
    f = open(root + "/journal/" + names[0], "rb")
    try:
        return f.read()
    finally:
        f.close()


def _content(lines):
    return "".join(line + "\n" for line in lines).encode()


class Played:
    """The uncut run: the freshly formatted flash, then per line k (0 = the
    header) the flash operations of its write and the state after it."""

    def __init__(self, name, mtime=True):
        self.name = name
        self.header, self.events = _first_deal(name)
        bufs = _buffers()
        self.logs = []          # the flash operations writing line k
        self.lines = None       # every line as written
        self.states = []        # state after line k
        bd = _fresh()
        F.format_lfs(bd)
        self.start = bufs[1]
        self.start[:] = bd.data
        F.mount(bd, LIVE, mtime=mtime)
        try:
            bd.log = []
            journal = create_journal(LIVE, self.header)
            self.logs.append(bd.log)
            session = Session(self.header)
            self.states.append(_state(session.view))     # after the header: a fresh session
            for ev in self.events:
                out = session.apply(ev)
                assert out.get("ok"), (name, ev, out)
                bd.log = []
                journal.append(ev)
                self.logs.append(bd.log)
                self.states.append(_state(session.view))
            bd.log = None
            self.lines = list(list(journal.read_lines()))
            journal.close()
        finally:
            F.umount(LIVE)
        self.end = bufs[2]
        self.end[:] = bd.data
        self.scratch = bufs[3]      # the flash powered on after a cut
        assert len(self.lines) == len(self.events) + 1

    def snapshot(self, k, out):
        """The flash before line k was written, in ``out``."""
        out[:] = self.start
        for j in range(k):
            for op in self.logs[j]:
                F.apply_op(out, F.ERASE_BLOCK, op)
        return out


class Stats:
    def __init__(self):
        self.cuts = 0
        self.torn = 0
        self.old = 0
        self.new = 0
        self.none = 0


def _fold(journal):
    s = Session(journal.header())
    for ev in journal.events():
        out = s.apply(ev)
        assert out.get("ok"), (ev, out)
    return s


def _check_cut(played, k, image, stats):
    """Power on with ``image`` (a cut in line k's write): the journal holds
    lines 0..k-1 or 0..k, the state matches, the table writes on."""
    lines = played.lines
    scratch = played.scratch
    scratch[:] = image
    bd = F.FlashDev(BLOCKS, data=scratch, share=True)
    F.mount(bd, CUT)
    try:
        raw = _raw(CUT)
        journal = last_journal(CUT)
        stats.cuts += 1
        if journal is None:             # only while the header was written
            assert k == 0, (played.name, k)
            stats.none += 1
            return
        n = len(journal)
        assert n in (k, k + 1) and n >= 1, (played.name, k, n)
        assert list(journal.read_lines()) == lines[:n], (played.name, k)
        # a torn line of line k (or erased bytes after the good lines) is dropped
        whole = _content(lines[:n])
        torn = raw != whole
        if torn:
            assert raw.startswith(whole), (played.name, k, raw[len(whole) - 20:])
            stats.torn += 1
        assert journal.dropped == (1 if torn else 0), (played.name, k, journal.dropped)
        if n == k + 1:
            stats.new += 1
        else:
            stats.old += 1
        s = _fold(journal)
        assert _state(s.view) == played.states[n - 1], (played.name, k, n)
        # the table writes on: the lost line again, or the next one
        if n <= len(played.events):
            journal.append(played.events[n - 1])
        journal.close()
        again = last_journal(CUT)
        want = min(n + 1, len(lines))
        assert again.dropped == 0 and list(again.read_lines()) == lines[:want], (played.name, k)
        again.close()
    finally:
        F.umount(CUT)


def _cut_record(name, every=1):
    """Every (or every ``every``-th, always the last) operation of every
    line's write, cut half and whole.  Returns the Stats."""
    t0 = ticks_ms()
    played = Played(name)
    stats = Stats()
    bufs = _buffers()
    flash = bufs[4]             # the flash before line k: operations done whole
    flash[:] = played.start
    image = bufs[5]
    ops = 0
    for k in range(len(played.lines)):
        log = played.logs[k]
        ops += len(log)
        assert log, (name, k, "a line written without a flash operation")
        for i in range(len(log)):
            check = i % every == 0 or i == len(log) - 1
            if check:                   # operation i done half, the power gone
                image[:] = flash
                F.apply_op(image, F.ERASE_BLOCK, log[i], F.half(log[i]))
                _check_cut(played, k, image, stats)
            F.apply_op(flash, F.ERASE_BLOCK, log[i])
            if check:                   # operation i done whole, the power gone
                _check_cut(played, k, flash, stats)
    assert flash == played.end          # the replay is the uncut run
    print("%s: %d events, %d flash operations in their appends, %d cuts (%d old state, "
          "%d new, %d no session, %d torn lines), %d ms"
          % (name, len(played.events), ops, stats.cuts, stats.old, stats.new, stats.none,
             stats.torn, ticks_diff(ticks_ms(), t0)))
    assert stats.new and stats.old
    return stats


@pytest.mark.parametrize("record", RECORDS)
def test_power_cut_in_every_append(record):
    if not F.LFS:
        not_applicable(NO_LFS)
    _cut_record(record, 1 if os.getenv("TAPP_SLOW") == "1" else 2)


def test_replayed_cut_equals_live_cut():
    """The replayed image is what a live cut leaves: the firmware runs again
    with the power cut at operation i of line k's write."""
    if not F.LFS:
        not_applicable(NO_LFS)
    played = Played(RECORDS[0], mtime=False)   # (file times would differ between runs)
    bufs = _buffers()
    snap = bufs[4]
    image = bufs[5]
    checked = 0
    for k in (1, 2, 7, len(played.lines) - 1):
        log = played.logs[k]
        played.snapshot(k, snap)
        for i in (0, len(log) // 2, len(log) - 1):
            for half in (True, False):
                bd = _fresh()
                F.format_lfs(bd)
                F.mount(bd, LIVE, mtime=False)
                try:
                    journal = create_journal(LIVE, played.header)
                    for j in range(1, k):
                        journal.append(played.events[j - 1])
                    assert bd.data == snap, k
                    bd.cut_at(i + 1, F.half(log[i]) if half else None)
                    try:
                        journal.append(played.events[k - 1])
                    except OSError:
                        pass        # littlefs noticed the flash failing
                    try:
                        journal.close()
                    except OSError:
                        pass
                finally:
                    F.umount(LIVE)
                F.cut_image(snap, log, i, F.half(log[i]) if half else None, image)
                assert bd.data == image, (k, i, half)
                checked += 1
    print("live cut == replayed cut: %d cuts" % checked)


def _torn_cases(played, k):
    """A flash holding lines 0..k and a torn start of line k+1, written through
    the file system (a cut append never leaves one on littlefs)."""
    bd = _fresh()
    F.format_lfs(bd)
    F.mount(bd, LIVE)
    try:
        journal = create_journal(LIVE, played.header)
        for j in range(1, k + 1):
            journal.append(played.events[j - 1])
        journal.close()
        nxt = played.lines[k + 1].encode()
        f = open(_session_file(LIVE), "ab")
        f.write(nxt[:len(nxt) // 2])
        f.close()
    finally:
        F.umount(LIVE)
    return bd


def test_torn_line_dropped_and_the_rewrite_cut():
    """A torn line is dropped and counted and the file rewritten without it;
    the power cut in every operation of that rewrite still leaves lines
    0..k (with or without the torn line, which the next power-up drops)."""
    if not F.LFS:
        not_applicable(NO_LFS)
    played = Played(RECORDS[2])
    bufs = _buffers()
    before = bufs[4]
    image = bufs[5]
    cuts = 0
    for k in (1, 9, len(played.lines) - 2):
        bd = _torn_cases(played, k)
        before[:] = bd.data
        bd.log = []
        F.mount(bd, LIVE)
        try:
            journal = last_journal(LIVE)
            assert journal.dropped == 1 and list(journal.read_lines()) == played.lines[:k + 1], k
            assert _raw(LIVE) == _content(played.lines[:k + 1])   # rewritten without it
            assert _state(_fold(journal).view) == played.states[k]
            journal.close()
        finally:
            F.umount(LIVE)
        log = bd.log
        assert log, "the rewrite wrote nothing"
        for i in range(len(log)):
            for half in (True, False):
                F.cut_image(before, log, i, F.half(log[i]) if half else None, image)
                bufs[3][:] = image
                cut = F.FlashDev(BLOCKS, data=bufs[3], share=True)
                F.mount(cut, CUT)
                try:
                    journal = last_journal(CUT)
                    assert list(journal.read_lines()) == played.lines[:k + 1], (k, i, half)
                    assert journal.dropped in (0, 1), (k, i, half)
                    assert _state(_fold(journal).view) == played.states[k]
                    journal.close()
                    again = last_journal(CUT)
                    assert again.dropped == 0 and list(again.read_lines()) == played.lines[:k + 1]
                    again.close()
                finally:
                    F.umount(CUT)
                cuts += 1
    print("torn lines: 3 dropped and rewritten; %d cuts inside the rewrites" % cuts)


# ---------------------------------------------------------------- every port


class Recording:
    """A Session that keeps the events it accepted (for random_deal_events)."""

    def __init__(self, session):
        self.session = session
        self.view = session.view
        self.events = []

    def apply(self, ev):
        out = self.session.apply(ev)
        if out.get("ok"):
            self.events.append(ev)
        return out


def test_journal_round_trip_and_torn_tail_on_a_plain_file_system():
    """The port's own file system (the wasm port's in-memory one; a littlefs
    on the unix port): a deal generated in the VM is journalled, read back
    and folded; a torn tail is dropped, counted and removed."""
    header = {"record": 1, "variant": "tapp_modern", "players": 3, "first_dealer": 0,
              "mode": "strict", "seats": ["A", "B", "C"], "options": {}}
    seed = 1
    while True:          # a deal that is played out, not thrown in
        session = Recording(Session(header))
        random_deal_events(session, Lcg(seed))
        if len(session.events) > 20:
            break
        seed += 1
    events = session.events
    want = _state(session.view)

    def run(root):
        journal = create_journal(root, header)
        for ev in events:
            journal.append(ev)
        lines = list(list(journal.read_lines()))
        journal.close()
        again = last_journal(root)
        assert again.dropped == 0 and list(again.read_lines()) == lines
        assert _state(_fold(again).view) == want
        again.close()
        f = open(_session_file(root), "ab")
        f.write(b'{"ev":"play","seat":1,"ca')
        f.close()
        torn = last_journal(root)
        assert torn.dropped == 1 and list(torn.read_lines()) == lines
        torn.close()
        assert _raw(root) == _content(lines)

    if F.LFS:
        bd = _fresh()
        F.format_lfs(bd)
        F.mount(bd, LIVE)
        try:
            run(LIVE)
        finally:
            F.umount(LIVE)
    else:
        F.rmtree(PLAIN)
        os.mkdir(PLAIN)
        try:
            run(PLAIN)
        finally:
            F.rmtree(PLAIN)


# ----- a full flash (firmware/table/journal.py "Space on flash") --------------------------

FULL = "/mpjl_full"
OPEN_DEAL = {"ev": "deal", "dealer": 0, "hands": None, "talon": None}
PASS = {"ev": "bid", "seat": 1, "call": "pass"}
OPEN_HEADER = {"record": 1, "variant": "tapp_modern", "players": 3, "first_dealer": 0,
               "mode": "open"}


def _full_flash():
    """A fresh 16-block littlefs mounted at FULL (buffer 0), with the folder."""
    F.umount(FULL)
    F.format_lfs(_fresh())
    F.mount(F.FlashDev(BLOCKS, data=_buffers()[0], share=True), FULL, mtime=False)
    return FULL


def _fill(journal, deals):
    """``deals`` deals of twenty short lines each, stopping at a refusal."""
    for _ in range(deals):
        journal.append(OPEN_DEAL)
        if journal.failed:
            return
        for _ in range(20):
            journal.append(PASS)


def _count(journal):
    n = 0
    for _line in journal.read_lines():
        n += 1
    return n


def test_a_full_flash_refuses_a_deal_and_keeps_every_line():
    """Sessions fill 64 KB of littlefs: a deal starts only while a whole one fits
    (each deal holds its 21 lines), nothing is written after the refusal, the
    journal read back is exactly what was accepted; statvfs's free count wraps
    on the full flash, and the journal's own count says none is left."""
    if not F.LFS:
        not_applicable(NO_LFS)
    from table import journal_files as J
    root = _full_flash()
    try:
        journal = create_journal(root, OPEN_HEADER)
        _fill(journal, 60)
        assert journal.failed
        deals = journal.deals
        again = journal.reopen()
        lines = _count(again)                 # counted, not held: the heap is small
        assert lines == 1 + 21 * deals and again.deals == deals, (lines, deals)
        assert J.free_bytes(root) < again.deal_bytes() and again.deals_left() == 0
        again.append(OPEN_DEAL)
        assert again.failed and _count(again) == lines
        # fill the last bytes with a file of our own: littlefs's count wraps
        f = open(root + "/junk", "w")
        try:
            while True:
                f.write("x" * 256)
                f.flush()
        except OSError as exc:
            assert exc.errno == J.ENOSPC
        try:
            f.close()
        except OSError:
            pass
        st = os.statvfs(root)
        print("full flash: %d deals of %d bytes in %d blocks; statvfs free %d of %d"
              % (deals, again.deal_bytes(), BLOCKS, st[3], st[2]))
        assert J.free_bytes(root) == 0
        again.close()
    finally:
        F.umount(FULL)


def test_a_full_flash_removes_finished_sessions_oldest_first():
    """Finished sessions make room, oldest first; the running one never goes,
    and once it needs every block the newest finished one goes too."""
    if not F.LFS:
        not_applicable(NO_LFS)
    from table import journal_files as J
    root = _full_flash()
    try:
        names = []
        for _ in range(3):
            journal = create_journal(root, OPEN_HEADER)
            _fill(journal, 6)
            assert not journal.failed
            journal.close()
            names.append(journal.path[journal.path.rfind("/") + 1:])
        running = create_journal(root, OPEN_HEADER)
        mine = running.path[running.path.rfind("/") + 1:]
        _fill(running, 60)
        assert running.failed and running.deals > 6
        assert J.sessions(root) == [mine], J.sessions(root)
        running.close()
    finally:
        F.umount(FULL)
