"""Power cuts of the whole application inside the MicroPython unix port, with
its flash on littlefs (``vfs.VfsLfs2`` as the rp2 port mounts it) on emulated
NOR flash with the Pico's 4 KB erase blocks (tests/mp/mpflash.py), the chip
models bridged from the host (host_sim/vm_table.py).

A deal is played by the simulated players with every flash operation logged
(an erase, or a program of bytes) and, after each game step, how many
operations and journal lines there were: so each operation is known to belong
to the append of one journal line.  Then the flash a power cut leaves is
rebuilt for cuts in the middle of an operation (half a block erased, half the
bytes programmed) and right after one, and a new VM powers up on it.  It must
resume with exactly the lines that were whole on the flash -- never fewer than
before that append began, all of them once its last operation is done -- and
the state and the screen must equal those of the table powered up under
CPython on a journal of just those lines (the runtimes' screens are equal
byte for byte: tests/test_vm_table.py).

Cuts: after every append, in the middle of the append's last operation, and in
the middle of and after every operation of three appends (the first card, a
trick's end, the deal's end), so about 100 power-ups per variant.
"""
import importlib.util
import json
import os
import shutil
from pathlib import Path

import pytest

from host_sim.table import AutoPlayers, VirtualTable
from host_sim.vm_table import VmTable
from table.app import BOOT_LOOK_MS
from tapp.record import Replayer

# a table powered up on a journal has resumed once its readers have looked for
# the cards the journal expects on them (BOOT_LOOK_MS) and a game step followed
RESUMED_MS = BOOT_LOOK_MS + 100


def _load_mpflash():
    """tests/mp/mpflash.py (the VM's emulated flash), here to rebuild cut images."""
    spec = importlib.util.spec_from_file_location(
        "mpflash", Path(__file__).parent / "mp" / "mpflash.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


mpflash = _load_mpflash()

CASES = [("wuerttemberg", 3, "strict", 4), ("tapp_modern", 3, "open", 3)]


def _state(view):
    return {"phase": view.phase(), "turn": view.turn(), "trick": view.trick(),
            "last": view.last_trick(), "balances": view.balances(), "pot": view.pot(),
            "deals": view.deals_played(), "contract": view.contract(),
            "expects": view.expects()}


def _logged_deal(tmp_path, variant, players, mode, seed):
    """Play a deal on flash, logging every operation; (snapshot, log, marks, lines)."""
    image = str(tmp_path / "flash.img")
    table = VmTable(variant, players, mode, flash=image)
    try:
        snapshot_path = str(tmp_path / "snapshot.img")
        table.save_flash(snapshot_path)
        ops0 = table.flash.ops
        table.flash.start_log()
        marks = [(0, table.app.view.journal_length())]

        def after(name):
            if name == "game":
                mark = (table.flash.ops - ops0, table.app.view.journal_length())
                if mark != marks[-1]:
                    marks.append(mark)
        table.after_step = after
        AutoPlayers(table, seed=seed, illegal_once=False).play_deal()
        table.after_step = None
        log_path = str(tmp_path / "ops.bin")
        table.flash.save_log(log_path)
        lines = table.journal_lines()
    finally:
        table.close()
    with open(snapshot_path, "rb") as f:
        snapshot = f.read()
    return snapshot, mpflash.load_log(log_path), marks, lines


def _appends(marks):
    """Per journal append: (first operation, end operation, lines before, after)."""
    out = []
    for (ops_a, lines_a), (ops_b, lines_b) in zip(marks, marks[1:], strict=False):
        if lines_b == lines_a + 1 and ops_b > ops_a:
            out.append((ops_a, ops_b, lines_a, lines_b))
    return out


def _reference(tmp_path, template, variant, players, mode, lines):
    """The table under CPython powered up on a journal of ``lines``."""
    root = tmp_path / ("ref%d" % len(lines))
    if not root.exists():
        shutil.copytree(os.path.join(template, "decks"), root / "decks")
        (root / "journal").mkdir()
        (root / "journal" / "s0001.jsonl").write_text("".join(x + "\n" for x in lines))
    table = VirtualTable(variant, players, mode, root=str(root), enrolled=False,
                         resume=True)
    table.wait(RESUMED_MS)
    return _state(table.view), table.screen()


@pytest.mark.parametrize("variant,players,mode,seed", CASES)
def test_power_cuts_on_littlefs_in_the_vm(tmp_path, variant, players, mode, seed):
    snapshot, log, marks, lines = _logged_deal(tmp_path, variant, players, mode, seed)
    appends = _appends(marks)
    assert len(lines) > 30 and len(appends) >= len(lines) - 3, (len(lines), marks[:5])
    assert sum(1 for _b, offset, _d in log if offset < 0), "no erase in a whole deal?"
    template = VirtualTable(variant, players, mode).root      # decks for the references
    cuts = []
    for _first, end, before, after in appends:
        cuts.append((end - 1, True, before, after))        # inside the last operation
        cuts.append((end - 1, False, after, after))        # right after it: all kept
    for first, end, before, after in (appends[0], appends[len(appends) // 2],
                                      appends[-1]):
        for op in range(first, end - 1):
            cuts.append((op, True, before, after))
            cuts.append((op, False, before, after))
    image = bytearray(len(snapshot))
    refs = {}
    seen = {"old": 0, "new": 0}
    for op, half, low, high in cuts:
        mpflash.cut_image(snapshot, log, op, half, image, mpflash.ERASE_BLOCK)
        path = tmp_path / "cut.img"
        path.write_bytes(image)
        table = VmTable(variant, players, mode, flash=str(path), enrolled=False,
                        resume=True)
        try:
            table.wait(RESUMED_MS)
            got = table.journal_lines()
            assert low <= len(got) <= high and got == lines[:len(got)], (op, half, len(got))
            if len(got) not in refs:
                refs[len(got)] = _reference(tmp_path, template, variant, players, mode,
                                            got)
            state, screen = refs[len(got)]
            assert _state(table.view) == state, (op, half, len(got))
            assert table.screen() == screen, (op, half, len(got))
        finally:
            table.close()
        seen["new" if len(got) == high else "old"] += 1
    print("%s: %d lines, %d flash operations, %d cuts (%d kept the line, %d not)" % (
        variant, len(lines), len(log), len(cuts), seen["new"], seen["old"]))
    assert seen["old"] and seen["new"]
    header = json.loads(lines[0].split("\t")[0])
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
