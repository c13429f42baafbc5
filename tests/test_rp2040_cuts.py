"""Issue 26 section 3 on the emulated Pico: a power cut in and after the
flash operations of a session, each powered up on MicroPython's rp2 port in
rp2040js (host_sim/rp2040/), the firmware unchanged, its journal in its own
area at the top of the ROMFS partition (boards/pico.py, 13 sectors).

The session: the journal's area is first filled as a table leaves it after
17 deals in nine sessions (played by the CPython table on the NOR model:
the journal's bytes are the same on the Pico, tests/test_rp2040_table.py;
the ring has come round once), so that on the Pico the next sector is
erased ahead within the first deal.  The Pico takes the last session up, a
new session is started (its next sector erased ahead; over ``--slow``'s six
deals, a new session every second, the oldest ones are dropped) and the
simulated players play one deal in open mode.  Meanwhile the emulated serial flash
records every page program and sector erase (serial_flash.mjs, ``oplog``)
and after each step of the table's jobs that did flash work the host notes
what the table had shown: its session, its lines, the cards on the readers.
A few cuts are also taken live (``arm_cut``: the power goes part of the way
into an erase or a program) and must leave what the log rebuilds.

For each cut (in an operation: half of its bytes done; right after it) the
flash is rebuilt from the log and a new Pico powers up on it (resuming): it
must have every line of the session it had shown, no line that was never
written (in any session the flash holds), and the journal and screen of the
CPython table powered up on the same flash, whose journal's area it leaves
byte for byte.  A power-up costs about 8 s (3.4 s of the Pico's time builds
the application and resumes from the full area): by default three cuts of a
one-deal session (under a minute); ``--slow`` (``TAPP_SLOW=1``) six deals
and every operation, in and after: over 300 cuts, the better part of an hour.
"""
import os

import pytest
from played_sessions import check_resumed, play_sessions
from run_once import built_once

from boards import pico as pico_board
from host_sim.rp2040.emulator import flash_image
from host_sim.rp2040.table import (
    Rp2040Table,
    cpython_on_flash,
    enrolled_files,
    firmware_files,
    firmware_uf2,
)
from host_sim.table import VirtualTable
from host_sim.vm.nor_flash import ERASE_BLOCK, NorFlash, apply_op, half, load_log
from table.app import BOOT_LOOK_MS, NEW_SESSION
from table.journal_flash import FlashJournals
from tools.tapptable import fsimage

ARGS = ("wuerttemberg", 3, "open")
AREA = slice(fsimage.JOURNAL_OFFSET, fsimage.JOURNAL_OFFSET + fsimage.JOURNAL_BYTES)
FILLED = 17                   # deals on the area before (the ring is about to come round)
RESUMED_MS = BOOT_LOOK_MS + 100
PARTS = 2                     # the slow sweep in parts (each worker records the session)
DURATION_US = {"program": 400, "erase": 45_000}    # serial_flash.mjs's typical times
LIVE = (("erase", 1, 0.3), ("program", 3, 0.5), ("program", 2, 0.1))  # kind, nth, part


def filled_flash(seed):
    """The Pico's flash with the firmware, a deck enrolled, and the journal's
    area as a table leaves it after FILLED deals (the CPython table's); and
    every session's lines."""
    table = VirtualTable(*ARGS, journal_flash=NorFlash(pico_board.JOURNAL_SECTORS))
    lines = {}
    play_sessions(table, FILLED, 2, seed,
                  session_done=lambda: lines.update({table.journal_name():
                                                     table.journal_lines()}))
    files, romfs_image = firmware_files(True)
    image = bytearray(flash_image(firmware_uf2(True), files=dict(files, **enrolled_files(1)),
                                  romfs_image=romfs_image))
    image[AREA] = table.journal_flash.data
    return bytes(image), lines


class PlayedOnPico:
    """The uncut session on the Pico: ``snapshot`` (the flash when the log
    began), ``log`` (its operations), ``marks`` (after each step that did
    flash work: operations so far, the session shown, its lines, the uids on
    each reader), ``lines`` (each session's lines), ``live`` ((operation,
    bytes done, the flash the live cut left))."""

    def __init__(self, tmp_path, deals, seed=4):
        self.tmp = tmp_path
        image, self.lines = filled_flash(seed)
        path = tmp_path / "pico-flash.bin"
        path.write_bytes(image)
        table = Rp2040Table(*ARGS, root=str(tmp_path / "pico"), flash=str(path),
                            enrolled=False, resume=True)
        pico = table.pico
        self.live = []
        try:
            pico.save_flash(tmp_path / "start.bin")
            self.snapshot = (tmp_path / "start.bin").read_bytes()
            pico.start_oplog()
            state = pico.flash_state()
            self.ops0 = state["program"] + state["erase"]
            self.marks = [self._mark(table, 0)]
            table.after_step = lambda _name: self._after(table)
            self._arm(pico, 0)
            play_sessions(table, deals, 2, seed,
                          lambda k: k == 0 and self._new_session(table),
                          lambda: self.lines.update({table.journal_name():
                                                     table.journal_lines()}))
            table.after_step = None
            pico.on_cut = None
            pico.save_oplog(tmp_path / "ops.bin")
            state = pico.flash_state()
        finally:
            table.close()
        self.end = path.read_bytes()
        self.log = load_log(tmp_path / "ops.bin")
        self.counts = state
        assert len(self.log) == state["program"] + state["erase"] - self.ops0

    @staticmethod
    def _new_session(table):
        assert table.app.input(NEW_SESSION)
        table.wait(200)

    def _mark(self, table, ops):
        return (ops, table.journal_name(), table.app.view.journal_length(),
                [[tag.uid for tag in tags] for tags in table.tags])

    def _after(self, table):
        state = table.pico.flash_state()
        ops = state["program"] + state["erase"] - self.ops0
        if ops != self.marks[-1][0]:
            self.marks.append(self._mark(table, ops))

    def _arm(self, pico, k):
        """Arm the k-th live cut (LIVE), or none."""
        if k >= len(LIVE):
            pico.on_cut = None
            return
        kind, nth, part = LIVE[k]

        def cut():
            state = pico.flash_state()
            i = state["program"] + state["erase"] - self.ops0 - 1
            pico.run_for(DURATION_US[kind] * part)
            state = pico.flash_state()
            assert state["busy"] == kind and 0 < state["done"] < state["cells"], state
            where = self.tmp / ("live%d.bin" % k)
            pico.save_flash(where)
            self.live.append((i, state["done"], where))
            self._arm(pico, k + 1)
        pico.on_cut = cut
        pico.arm_cut(kind, nth)

    def image(self, i, done):
        """The flash a cut in operation i leaves (``done`` of its bytes; None: all)."""
        flash = bytearray(self.snapshot)
        for op in self.log[:i]:
            apply_op(flash, ERASE_BLOCK, op)
        apply_op(flash, ERASE_BLOCK, self.log[i], done)
        return flash

    def around(self, i):
        """For the step that did operation i: what the table had shown before
        it (session, lines), after it (session, lines), and the uids on the
        readers meanwhile."""
        before = self.marks[0]
        for mark in self.marks:
            if mark[0] > i:
                return before[1:3], mark[1:3], mark[3]
            before = mark
        raise AssertionError("operation %d after the last step" % i)


def power_up(played, image, i, done, tmp):
    """The Pico and the CPython table powered up on ``image`` (a cut in
    operation i, ``done`` of its bytes; the uids of the step that was cut on the
    readers; their files in ``tmp``): (session, its length, its last two lines, the screen, the
    journal's area as the flash holds it after the power-up) each."""
    tags = played.around(i)[2]
    path = tmp / "cut.bin"
    path.write_bytes(image)
    table = Rp2040Table(*ARGS, root=str(tmp / "pico"), flash=str(path),
                        enrolled=False, resume=True)
    try:
        for reader, uids in enumerate(tags):
            for uid in uids:
                table.place_tag(reader, uid, wait=False)
        table.wait(RESUMED_MS)
        n = table.app.view.journal_length()
        pico = [table.journal_name(), n, table.journal_lines(n - 2), table.screen()]
    finally:
        table.close()                                  # (its flash saved to ``path``)
    pico.append(path.read_bytes()[AREA])
    ref = cpython_on_flash(bytes(image), table.args, tmp / ("cpython-%d-%s" % (i, done)),
                           tags)
    ref.wait(RESUMED_MS - 120)
    store = ref.app.journals
    for name, _size in store.sessions():               # nothing invented, anywhere
        got = list(store.lines(name))
        assert got == played.lines[name][:len(got)], (i, name)
    lines = ref.journal_lines()
    return pico, [ref.journal_name(), len(lines), lines[-2:], ref.screen(),
                  bytes(ref.journal_flash.data)], lines


def cuts(played, every):
    """(operation, bytes done) of the cuts: in (half) and after ``every``
    operation, or three: after the new session's header, in the first erase,
    and after a program half-way through the log."""
    log = played.log
    if every:
        return [(i, d) for i, op in enumerate(log) for d in (half(op), None)]
    erase = next(i for i, op in enumerate(log) if op[1] < 0)
    middle = next(i for i in range(len(log) // 2, len(log)) if log[i][1] >= 0)
    return [(played.marks[1][0] - 1, None), (erase, half(log[erase])), (middle, None)]


def _slow(config):
    return config.getoption("--slow") or os.environ.get("TAPP_SLOW") == "1"


def pytest_generate_tests(metafunc):
    if "part" in metafunc.fixturenames:
        metafunc.parametrize("part", range(PARTS if _slow(metafunc.config) else 1))


@pytest.fixture(scope="module")
def played(tmp_path_factory, request):
    """The session, played once in the run (its tests may run on several workers)."""
    deals = 6 if _slow(request.config) else 1
    return built_once(tmp_path_factory, "rp2040-cuts-%d" % deals,
                      lambda folder: PlayedOnPico(folder, deals))


def test_live_cuts_leave_what_the_log_rebuilds(played):
    """The emulator's own cut part of the way into an erase and programs
    leaves, byte for byte, the flash rebuilt from the log with that many
    bytes of the operation done (the ground of the sweep's images)."""
    assert [played.log[i][1] < 0 for i, _, _ in played.live] == [
        kind == "erase" for kind, _, _ in LIVE]
    for i, done, where in played.live:
        assert played.image(i, done) == where.read_bytes(), (i, done)
    assert played.image(len(played.log) - 1, None) == played.end


def test_a_power_cut_in_and_after_the_flash_operations_on_the_pico(played, part, slow,
                                                                   tmp_path):
    """Each cut resumed on the Pico as CPython resumes (``part``: every
    PARTS-th cut of the slow sweep, so that pytest's workers share it)."""
    parts = PARTS if slow else 1
    log = played.log
    erases = sum(1 for op in log if op[1] < 0)
    programs = len(log) - erases
    assert erases >= (2 if slow else 1) and programs >= 30
    assert all(op[1] % 256 == 0 and len(op[2]) == 256 for op in log if op[1] >= 0)
    area = range(fsimage.JOURNAL_OFFSET // ERASE_BLOCK,
                 (fsimage.JOURNAL_OFFSET + fsimage.JOURNAL_BYTES) // ERASE_BLOCK)
    assert all(op[0] in area for op in log)          # only the journal's area is written
    first, last = ([n for n, _ in FlashJournals(NorFlash(len(area), data=flash[AREA])).sessions()]
                   for flash in (played.snapshot, played.end))
    # the new session erased a sector ahead; over the slow sweep's six deals
    # the ring comes round and the oldest sessions are dropped meanwhile
    assert first[0] < last[0] if slow else first[0] <= last[0]
    chosen = cuts(played, slow)
    assert len(chosen) >= (300 if slow else 3)
    chosen = chosen[part::parts]
    seen = {"kept": 0, "more": 0, "started": 0}
    for i, done in chosen:
        before, after, _tags = played.around(i)
        pico, ref, got = power_up(played, played.image(i, done), i, done, tmp_path)
        assert pico == ref, (i, done)                    # as CPython on the same flash
        check_resumed(played.lines, before, after, pico[0], got, seen, (i, done))
    print("the Pico: %d flash operations (%d erases, %d programs), %d cuts (part %d of %d): "
          "%r" % (len(log), erases, programs, len(chosen), part + 1, parts, seen))
    # whether a cut finds a card laid that the readers had not yet taken (then
    # the resumed table plays it: "more") depends on where in the loop's round
    # it falls; the three quick cuts need not hit a "kept", the sweep does
    assert seen["started"] and (seen["kept"] or seen["more"])
    if slow:
        assert seen["kept"] and seen["more"]
