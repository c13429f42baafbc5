"""Seeded chaos on six MFRC522 models: the real ReaderSet and the presence arbiter.

tools/tapptable/bench_readers.py plays cards the rough way (quick moves between
readers and back, a second card on a reader, flaky stickers, field drop-outs,
supply dips, readers that stop answering) and checks every report against the
physical truth. Here a short run (a few seconds) must come out clean: no wrong
UID, no missed card, and from the arbiter no repeated placement and no card on
two seats at once -- while the driver's own debounced reports do show repeats
and two-seat moments, so the run did exercise what the arbiter is for. The
checker itself is checked too: an arbiter without a lift grace time repeats.
The long run is ``python -m tools.tapptable.bench_readers 300000``.
"""

from __future__ import annotations

import pytest

from tools.tapptable import bench_readers as B


@pytest.mark.parametrize("seed", [11, 12])
def test_chaos_run_is_clean(seed: int) -> None:
    rep = B.chaos_report(seed, 5000)
    bad = {k: rep[k] for k in B.MUST_BE_ZERO if rep[k]}
    assert not bad, rep
    # the run was chaotic enough to mean something
    assert rep["placements"] >= 120 and rep["must_report"] >= 60, rep
    for k in ("moves", "collisions", "dropouts", "brownouts", "disconnects"):
        assert rep[k] > 0, (k, rep)
    assert rep["recoveries"] > 0 and rep["recoveries"] == rep["faults"], rep
    assert rep["drv_repeats"] > 0 and rep["drv_two_seat"] > 0, rep
    assert rep["ev_placed"] == rep["ev_lifted"] > 0, rep  # every card went again
    assert rep["ev_fault"] == rep["ev_back"] > 0, rep


def test_checker_sees_repeats_of_an_arbiter_without_lift_grace() -> None:
    ch = B.Chaos(7, gone_ms=0)
    ch.run(5000)
    rep = ch.report()
    assert rep["arb_repeats"] > 0, rep
    assert rep["arb_two_seat"] == 0 and rep["arb_wrong_uids"] == 0, rep


def test_main_prints_the_counts(capsys) -> None:
    assert B.main(["400", "3"]) == 0
    out = capsys.readouterr().out
    for word in ("placements", "wrong UIDs", "missed", "repeats", "two-seat", "recoveries",
                 "OK"):
        assert word in out, out
