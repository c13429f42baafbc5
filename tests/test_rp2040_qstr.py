"""The Pico's qstr pool: room below its 15 KB step.

MicroPython interns every name (and every short string) of an imported .mpy
as a qstr; on the rp2 port the pool grows in chunks that double (20, 40, ...
1,280 entries: 2,540 in seven).  The 2,541st qstr made at run time allocates
an eighth chunk of 2,560 entries at once -- 15 KB of heap, nearly all of it
empty (docs/benchmarks.md, "The qstr pool").  Before this was found the
session made 2,545 and the eighth chunk ate the heap the table missed.

This test imports, at the REPL of the emulated Pico, every module the table
runs on a Pico from the ROMFS image ``tapptable build`` makes -- all but the
console's commands loaded on first use, the self-test and the replay -- and
holds the count below the step with room for what a session interns as it
plays (one-character strings and the like; the bench's session, its probe and
a console client included: under 2,470).
A new module or many new names show up here first: make room (fewer module
level names, ``_NAME = const(...)`` for a module's own ints, no
'"key":'-style literals), or say why the step is worth it.
"""
from __future__ import annotations

import re
from pathlib import Path

import pytest

from host_sim.rp2040.emulator import Pico, flash_image
from host_sim.rp2040.table import bootrom_path, firmware_uf2
from tools.tapptable import deploy as D
from tools.tapptable import fsimage

ROOT = Path(__file__).resolve().parent.parent
STEP = 2540             # qstrs in the first seven chunks of the rp2 port's pool
ROOM = 60               # kept free for what a session interns as it runs
NOT_RUN = {             # modules the Pico's build carries but does not import while it plays
    "table.console_admin",          # console commands loaded on first use:
    "table.console_play",           # set, registry, enrol, selftest; undo, place,
    "table.console_reads",          # press, repl; view, score, journal, readers,
    "table.console_tasks",          # log, help; journal and score answers
    "bringup.selftest",              # the bring-up self-test (OK held at power-up)
    "bringup.selftest_readers",
}


def run_time_modules():
    """The modules of the Pico's build (``deploy.sources``: what goes onto the
    board) but main.py and NOT_RUN, as import names."""
    names = []
    for rel, _path in D.sources(ROOT / "firmware", "pico"):
        parts = rel.with_suffix("").parts
        if len(parts) > 1 and parts[-1] != "__init__":
            names.append(".".join(parts))
    return [n for n in names if n not in NOT_RUN]


def test_not_run_names_modules_that_exist():
    every = set(".".join(rel.with_suffix("").parts)
                for rel, _path in D.sources(ROOT / "firmware", "pico"))
    assert NOT_RUN <= every, NOT_RUN - every


@pytest.fixture(scope="module")
def repl(tmp_path_factory):
    out = tmp_path_factory.mktemp("build") / "pico"
    D.build("pico", out, src=ROOT / "firmware", log=lambda s: None)
    files = fsimage.build_files(out, True)
    del files["main.py"]                       # the REPL, nothing of the table started
    pico = Pico(flash_image(firmware_uf2(True), files=files,
                            romfs_image=(out / "romfs.img").read_bytes()), bootrom_path())
    try:
        pico.boot_to_repl()
        yield pico
    finally:
        pico.close()


def test_the_table_keeps_below_the_qstr_pools_eighth_chunk(repl):
    repl.exec_raw("import micropython")
    for name in run_time_modules():
        repl.exec_raw("__import__(%r)" % name, limit_us=60_000_000)
    info = repl.exec_raw("micropython.qstr_info()")
    pools, qstrs = map(int, re.search(r"n_pool=(\d+), n_qstr=(\d+)", info).groups())
    print("every module imported: %d qstrs in %d chunks (at most %d)" % (qstrs, pools, STEP - ROOM))
    assert pools == 7 and qstrs <= STEP - ROOM, (
        "%d qstrs in %d chunks: the table's modules leave fewer than %d of the %d "
        "below the 15 KB step" % (qstrs, pools, ROOM, STEP))
