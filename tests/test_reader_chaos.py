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

from drivers import mfrc522 as M
from tools.tapptable import bench_readers as B


@pytest.mark.parametrize("seed", [11, 12])
def test_chaos_run_is_clean(seed: int) -> None:
    rep = B.chaos_report(seed, 7000)
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


class DipSwaps(B.Chaos):
    """Chaos of one kind: a card lies on a reader, the reader's supply dips around
    the moment the card is swapped for another (up to 150 ms either side), the new
    card stays 1.1-1.7 s.  Counts ``stale``: a report of a card that had left the
    reader before its last dip, in any poll after the one that found the dip."""

    def __init__(self, seed):
        super().__init__(seed)
        self.dips = [-1.0] * self.n
        self.c["stale"] = 0
        self.c["swaps"] = 0

    def _start_episode(self):
        rnd = self.rnd
        free = [r for r in range(self.n) if self.free[r]]
        if not free or len(self.hand) < 2:
            return
        r = rnd.choice(free)
        k = self.hand.pop(rnd.randrange(len(self.hand)))
        k2 = self.hand.pop(rnd.randrange(len(self.hand)))
        self.free[r] = False
        self.place(r, k)
        t_swap = rnd.uniform(200, 1000)
        self.at(t_swap + rnd.uniform(-150, 150), self.brownout, r)
        self.at(t_swap, self.remove, r, k)
        self.at(t_swap + rnd.choice((0, 0, rnd.uniform(0, 60))), self.place, r, k2)
        self.at(t_swap + 200 + rnd.uniform(900, 1500), self._end, [r], [(r, k2)], [k])
        self.c["swaps"] += 1

    def brownout(self, r):
        super().brownout(r)
        self.dips[r] = self.now()

    def step(self, start_episodes=True):
        i = self.steps % self.n
        faults = self.rs.faults(i)
        super().step(start_episodes)
        if self.rs.faults(i) != faults or self.rs.status[i] != M.PRESENT:
            return                          # the poll that found the dip cannot know
        k = self.index[self.rs.uid(i)]
        if (i, k) in self.open_stay:
            return
        s = self.last_stay.get((i, k))
        if s is not None and s.t_off <= self.dips[i]:
            self.c["stale"] += 1


@pytest.mark.parametrize("seed", [21, 22])
def test_after_a_supply_dip_nothing_from_before_is_reported(seed: int) -> None:
    ch = DipSwaps(seed)
    ch.run(4000)
    rep = ch.report()
    assert rep["swaps"] >= 40 and rep["brownouts"] == rep["swaps"], rep
    assert rep["faults"] >= rep["brownouts"] // 2, rep     # most dips were found
    assert rep["stale"] == 0, rep
    bad = {k: rep[k] for k in B.MUST_BE_ZERO if rep[k]}
    assert not bad, rep
