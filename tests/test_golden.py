"""Golden playthroughs: checked-in records and the outcome lines they must give.

Any change of engine behaviour shows up as a diff of a ``.out`` file, and the
same files are replayed inside both MicroPython VMs (like MicroPython's own
``.exp`` tests).  After an intended rule change, regenerate with
``TAPP_GOLDEN_UPDATE=1 .venv/bin/python -m pytest tests/test_golden.py`` and
review the diff before committing.
"""
import io
import os
from pathlib import Path

import pytest

from tapp.replay import replay_stream
from tools.tapptable.mpreplay import run_replay, split_batch
from tools.tapptable.simulate import Simulator

HERE = Path(__file__).parent / "golden"
UPDATE = os.environ.get("TAPP_GOLDEN_UPDATE") == "1"
# (file stem, variant, players, mode, options, deals)
GAMES = [
    ("wuerttemberg_3_strict_pot", "wuerttemberg", 3, "strict", {"pot": True}, 4),
    ("tapp_classic_3_open", "tapp_classic", 3, "open", {}, 4),
    ("tapp_modern_3_strict", "tapp_modern", 3, "strict", {}, 5),
    ("tapp_modern_4_open_pack32", "tapp_modern", 4, "open", {"pack": 32}, 5),
    ("tarock_simple_4_strict_per_point", "tarock_simple", 4, "strict",
     {"doubling": "kontra_re"}, 4),
    ("tarock_bettel_3_open", "tarock_bettel", 3, "open", {}, 4),
    ("haferltarock_3_strict", "haferltarock", 3, "strict", {"self_raise": True}, 4),
    ("berliner_4_open", "berliner", 4, "open", {"shortfall": "refill"}, 4),
    ("scharfer_tarock_3_strict", "scharfer_tarock", 3, "strict", {"doubling": "extended"}, 4),
    ("herzblatt_2_strict", "herzblatt", 2, "strict", {}, 4),
    ("herzblatt_5_open", "herzblatt", 5, "open", {}, 4),
    ("herzblatt_muhr_3_strict", "herzblatt_muhr", 3, "strict", {}, 4),
    ("braun_solo_4_open", "braun_solo", 4, "open", {"all_pass": "last_trick"}, 4),
]


def _replay(path):
    buf = io.StringIO()
    with open(path) as f:
        replay_stream(f.readline, buf.write)
    return buf.getvalue()


def _write_record(stem, variant, players, mode, options, deals):
    sim = Simulator(variant, players, 2026, mode, options=options)
    (HERE / (stem + ".jsonl")).write_text("\n".join(sim.record_lines(deals)) + "\n")


@pytest.mark.parametrize("game", GAMES, ids=[g[0] for g in GAMES])
def test_golden_playthrough(game):
    stem = game[0]
    record, expected = HERE / (stem + ".jsonl"), HERE / (stem + ".out")
    if UPDATE:
        _write_record(*game)
        expected.write_text(_replay(record))
    assert record.is_file() and expected.is_file(), "regenerate with TAPP_GOLDEN_UPDATE=1"
    got = _replay(record)
    assert got == expected.read_text()
    assert '"result"' in got


@pytest.mark.parametrize("vm", ["unix", "wasm"])
def test_golden_playthroughs_in_micropython(vm):
    records = [HERE / (g[0] + ".jsonl") for g in GAMES]
    proc = run_replay(records, vm)
    assert proc.returncode == 0, proc.stdout[-2000:] + proc.stderr[-2000:]
    got = list(split_batch(proc.stdout).values())
    assert len(got) == len(records)
    for path, text in zip(records, got, strict=True):
        assert text == path.with_suffix(".out").read_text(), path.name
