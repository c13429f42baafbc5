"""Power cuts of the whole application inside the MicroPython unix port, its
journal in its own flash area (firmware/table/flash_log.py) on the NOR flash
model (host_sim/vm/nor_flash.py, in the VM), the chip models bridged from
the host (host_sim/vm_table.py).

As tests/test_journal.py does under CPython: deals in sessions on a small
journal area (four sectors: the ring wraps, the oldest sessions go), every
erase and page program of the last deals logged in the VM, and after each
game and flash step what the table had shown (its session and lines).  For a
cut in an operation (half of it done) and right after it, the flash is
rebuilt from the log and a new VM powers up on it: it must resume with every
line it had shown before that step, no line that was never written, and the
state and the screen of the CPython table powered up on the same flash (the
runtimes' screens are equal byte for byte: tests/test_vm_table.py).  By
default a spread part of the cuts (a VM's power-up costs half a second);
``--slow`` runs every one of them (232 and 176: over 400).
"""
import json

import pytest
from played_sessions import check_resumed, play_sessions

from host_sim.table import AutoPlayers, VirtualTable
from host_sim.vm.nor_flash import NorFlash, apply_op, half, load_log
from host_sim.vm_table import VmTable
from table.app import BOOT_LOOK_MS
from tapp.replay import Replayer

RESUMED_MS = BOOT_LOOK_MS + 100     # the readers have looked, a game step followed
JOURNAL_KB = 16                     # four sectors
SPREAD = 24                         # cuts by default (every one with --slow)
CASES = [("wuerttemberg", 3, "strict", 1), ("tapp_modern", 3, "open", 2)]


def _state(view):
    return {"phase": view.phase(), "turn": view.turn(), "trick": view.trick(),
            "last": view.last_trick(), "balances": view.balances(), "pot": view.pot(),
            "deals": view.deals_played(), "contract": view.contract(),
            "expects": view.expects()}


class PlayedInVm:
    """``warm + deals`` deals, a new session every second, in the VM; the
    last ``deals`` with every flash operation logged.  ``marks``: after each
    game and flash step that did flash work, (operations so far, the session
    shown, its lines); ``lines``: each session's lines as written."""

    def __init__(self, tmp_path, variant, players, mode, seed, warm=5, deals=4):
        self.args = (variant, players, mode)
        image = tmp_path / "journal.img"
        table = VmTable(variant, players, mode, journal=str(image), journal_kb=JOURNAL_KB)
        self.root = table.root
        self.lines = {}
        self.marks = []
        try:
            play_sessions(table, warm + deals, 2, seed,
                          lambda k: k == warm and self._start_log(table, image),
                          lambda: self._keep(table))
            table.after_step = None
            flash = table.journal_flash
            flash.save_log(str(tmp_path / "ops.bin"))
            self.end = image.read_bytes()
        finally:
            table.close()
        self.log = load_log(str(tmp_path / "ops.bin"))

    def _start_log(self, table, image):
        flash = table.journal_flash
        self.snapshot = image.read_bytes()           # (written through at every operation)
        self.ops0 = flash.ops
        flash.start_log()
        self.marks.append((0,) + self._shown(table))
        seen = [0]

        def after(name):
            if name in ("game", "idle"):
                ops = flash.ops - self.ops0
                if ops != seen[0]:
                    seen[0] = ops
                    self.marks.append((ops,) + self._shown(table))
                elif name == "game":
                    length = table.app.view.journal_length()
                    if length != self.marks[-1][2]:
                        self.marks.append((ops,) + self._shown(table))
        table.after_step = after

    @staticmethod
    def _shown(table):
        return table.journal_name(), table.app.view.journal_length()

    def _keep(self, table):
        self.lines[table.journal_name()] = table.journal_lines()

    def around(self, i):
        """What the table had shown when the step that made operation i began,
        and when it ended: ((session, lines), (session, lines))."""
        before = self.marks[0]
        after = None
        for mark in self.marks:
            if mark[0] <= i:
                before = mark
            elif after is None:
                after = mark
        after = after or self.marks[-1]
        return (before[1], before[2]), (after[1], after[2])


def _cuts(played, every):
    """(operation, bytes done) of the cuts: in and after each ``every``-th."""
    out = []
    for i, op in enumerate(played.log):
        if i % every == 0 or i == len(played.log) - 1:
            out.append((i, half(op)))
            out.append((i, None))
    return out


def _image(played, i, done):
    flash = bytearray(played.snapshot)
    for op in played.log[:i]:
        apply_op(flash, 4096, op)
    apply_op(flash, 4096, played.log[i], done)
    return flash


@pytest.mark.parametrize("variant,players,mode,seed", CASES)
def test_power_cuts_in_the_vm(tmp_path, slow, variant, players, mode, seed):
    played = PlayedInVm(tmp_path, variant, players, mode, seed)
    assert len(played.log) > 60 and any(op[1] < 0 for op in played.log)
    cuts = _cuts(played, 1 if slow else max(1, len(played.log) * 2 // SPREAD))
    if slow:
        assert len(cuts) == 2 * len(played.log)
    seen = {"kept": 0, "more": 0, "started": 0}
    path = tmp_path / "cut.img"
    for i, done in cuts:
        image = _image(played, i, done)
        path.write_bytes(image)
        before, after = played.around(i)
        table = VmTable(*played.args, root=played.root, enrolled=False, resume=True,
                        journal=str(path), journal_kb=JOURNAL_KB)
        try:
            table.wait(RESUMED_MS)
            got = table.journal_lines()
            now = table.journal_name()
            check_resumed(played.lines, before, after, now, got, seen, (i, done))
            ref = VirtualTable(*played.args, root=played.root, enrolled=False, resume=True,
                               journal_flash=NorFlash(JOURNAL_KB // 4, data=image))
            ref.wait(RESUMED_MS)
            assert ref.journal_lines() == got, (i, done)
            assert _state(table.view) == _state(ref.view), (i, done)
            assert table.screen() == ref.screen(), (i, done)
        finally:
            table.close()
    print("%s: %d flash operations, %d cuts: %r" % (variant, len(played.log), len(cuts), seen))
    assert seen["kept"] and seen["more"]
    header = json.loads(played.lines[min(played.lines)][0].split("\t")[0])
    assert header["variant"] == variant and header["mode"] == mode


def test_a_long_session_in_the_vm():
    """More deals than the VM's heap could hold as one journal answer (it ran
    out of memory after about 11 deals when the whole journal was sent per
    question): the players read it from a cursor, the table sends 32 lines per
    answer, and the session's journal read back through the bridge replays to
    the balances the VM shows."""
    table = VmTable("tapp_modern", 3, "open")
    try:
        people = AutoPlayers(table, seed=2, illegal_once=False)
        deals = 14
        for k in range(deals):
            if k:
                people.next_deal()
            people.play_deal()
        assert table.view.deals_played() == deals
        lines = table.journal_lines()
        assert len(lines) > 250 and lines[1:] == table.journal_lines(1)
        assert table.journal_lines(len(lines) - 3, len(lines) - 1) == lines[-3:-1]
        replayer = Replayer(lines[0])
        outs = [replayer.feed(line) for line in lines[1:]]
        assert not [o for o in outs if '"ok":false' in o]
        assert replayer.session.view.balances() == table.view.balances()
        print("VM long session: %d deals, %d journal lines" % (deals, len(lines)))
    finally:
        table.close()
