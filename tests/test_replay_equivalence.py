"""Replaying a record under CPython and under MicroPython gives byte-identical lines.

Many simulated records (every Tapp variant, both modes, several seeds) plus
records with corrupt and illegal lines are replayed by the CPython engine and
by the unchanged firmware engine inside the unix port (64-bit, strict heap)
and the WebAssembly port (32-bit small ints, as on the device).
"""
import io
import json
import random

import pytest

from tapp.record import with_crc
from tapp.replay import replay_stream
from tools.tapptable.mpreplay import run_replay, split_batch
from tools.tapptable.simulate import Simulator

CASES = [
    ("wuerttemberg", 3, {"pot": True}), ("wuerttemberg", 3, {}),
    ("tapp_classic", 3, {"pot": True, "tout_factor": 3}), ("tapp_classic", 3, {}),
    ("tapp_modern", 3, {}), ("tapp_modern", 4, {}), ("tapp_modern", 4, {"pack": 32}),
    ("tapp_modern", 3, {"first_bidder": "middlehand", "bettel_order": "normal",
                        "ramsch_tie": "none_pay"}),
    ("tarock_simple", 4, {"doubling": "extended"}),
    ("tarock_simple", 3, {"payment": "fixed", "rounding": "nearest5"}),
    ("tarock_bettel", 3, {"payment": "per_point", "doubling": "kontra_re"}),
    ("haferltarock", 4, {"self_raise": True, "shortfall": "refill", "pot_ante": 20}),
    ("berliner", 3, {"berliner_hearts": True}),
    ("scharfer_tarock", 4, {"doubling": "kontra_re"}),
    ("herzblatt", 2, {}), ("herzblatt", 5, {}),
    ("herzblatt_muhr", 3, {}), ("herzblatt_muhr", 4, {"schneider_limit": 30}),
    ("braun_solo", 4, {"all_pass": "last_trick"}),
]


def _mutate(lines, rng):
    """Insert illegal, corrupt and undo lines between the legal ones."""
    out = [lines[0]]
    for line in lines[1:]:
        r = rng.random()
        if r < 0.04:
            out.append(line[: rng.randrange(1, len(line))])            # torn line
        elif r < 0.08:
            ev = json.loads(line)
            if "card" in ev:
                ev["card"] = rng.choice(["X9", "H5", "SA", "D6", "CA"])
            if "seat" in ev:
                ev["seat"] = rng.randrange(-1, 6)
            out.append(json.dumps(ev))
        elif r < 0.10:
            out.append(line)
            out.append('{"ev":"undo"}')
        elif r < 0.12:
            out.append(with_crc(line))
            continue
        out.append(line)
    return out


def _records(tmp_path):
    paths = []
    for i, (variant, players, opts) in enumerate(CASES):
        for mode in ("strict", "open"):
            for seed in (1, 2):
                sim = Simulator(variant, players, seed * 100 + i, mode, options=opts)
                lines = sim.record_lines(6)
                if seed == 2:
                    lines = _mutate(lines, random.Random(i))
                p = tmp_path / ("%d_%s_%d_%s_%d.jsonl" % (i, variant, players, mode, seed))
                p.write_text("\n".join(lines) + "\n")
                paths.append(p)
    return paths


def _cpython(path):
    buf = io.StringIO()
    with open(path) as f:
        replay_stream(f.readline, buf.write)
    return buf.getvalue()


@pytest.fixture(scope="module")
def records(tmp_path_factory):
    paths = _records(tmp_path_factory.mktemp("records"))
    return paths, {str(p): _cpython(p) for p in paths}


@pytest.mark.parametrize("vm", ["unix", "wasm"])
def test_micropython_replays_byte_identical(records, vm):
    paths, expected = records
    proc = run_replay(paths, vm)
    assert proc.returncode == 0, proc.stderr[-2000:]
    got = split_batch(proc.stdout)
    if vm == "wasm":  # the VM sees /records/<i>.jsonl
        got = {str(paths[int(k.split("/")[-1].split(".")[0])]): v for k, v in got.items()}
    assert len(got) == len(paths)
    rejected = 0
    for p in paths:
        assert got[str(p)] == expected[str(p)], "outcome lines differ for %s" % p.name
        rejected += expected[str(p)].count('"ok":false')
    assert rejected > 0  # the mutated records exercised the error paths too
