"""The card-presence arbiter (firmware/table/presence.py) under CPython.

Observations are fed by hand (reader, status, UID, time) and the settled
events are checked: one placement per stay (repeats after a collision, a fault
or a short drop-out are not new placements), moves between two readers in
both orders and quick moves, a card that goes before it settled, collisions,
faults, the queue overflow, the ticks wrap; and once against the real
ReaderSet on the chip models (``feed``).
"""

from __future__ import annotations

import pytest

from drivers import mfrc522 as M
from table import presence as P

A = bytes.fromhex("04a1b2c3d4e5f6")
B = bytes.fromhex("deadbeef")
C = bytes.fromhex("04010203040506070809")

ABSENT, PRESENT, COLLISION, ERROR = P.ABSENT, P.PRESENT, P.COLLISION, P.ERROR


def drain(arb) -> list[tuple]:
    out = []
    while arb.pending():
        code = arb.pop()
        out.append((P.EVENT_NAMES[code], arb.reader, bytes(arb.uid_view())))
    assert arb.pop() == P.EV_NONE
    return out


class Feed:
    """Observations at a time; the events each produced, with their time."""

    def __init__(self, n=2, **kw):
        self.arb = P.Presence(n, **kw)
        self.log: list[tuple] = []

    def see(self, t: int, i: int, status: int, uid: bytes = b"") -> list[tuple]:
        self.arb.observe(i, status, uid, t)
        ev = drain(self.arb)
        self.log += [(t,) + e for e in ev]
        return ev

    def run(self, t0: int, t1: int, step: int, reports) -> None:
        """Every `step` ms from t0 to t1 (exclusive) each reader i reports reports[i]."""
        for t in range(t0, t1, step):
            for i, r in enumerate(reports):
                if r is not None:
                    self.see(t, i, *r)

    def events(self, name=None):
        return [e for e in self.log if name is None or e[1] == name]

    def placed_at(self) -> list[bytes]:
        buf = bytearray(10)
        return [bytes(buf[: self.arb.placed_uid(i, buf)]) for i in range(self.arb.n)]


def test_status_codes_are_the_drivers() -> None:
    assert (P.ABSENT, P.PRESENT, P.COLLISION, P.ERROR, P.OTHER) == (
        M.ABSENT, M.PRESENT, M.COLLISION, M.ERROR, M.OTHER)
    assert len(P.EVENT_NAMES) == P.EV_OVERFLOW + 1


def test_placed_once_after_settle_then_lifted_after_gone() -> None:
    f = Feed(settle_ms=100, gone_ms=200)
    assert f.see(0, 0, PRESENT, A) == []
    assert f.see(60, 0, PRESENT, A) == []
    assert f.see(100, 0, PRESENT, A) == [("placed", 0, A)]
    f.run(120, 1000, 20, [(PRESENT, A)])
    assert f.events() == [(100, "placed", 0, A)]
    assert f.arb.where(A) == 0 and f.placed_at() == [A, b""]
    assert f.see(1000, 0, ABSENT) == []
    assert f.see(1150, 0, ABSENT) == []
    assert f.see(1200, 0, ABSENT) == [("lifted", 0, A)]
    assert f.arb.where(A) == -1 and f.arb.placed_len(0) == 0


def test_settle_zero_places_at_first_sight() -> None:
    f = Feed(settle_ms=0, gone_ms=0)
    assert f.see(5, 1, PRESENT, B) == [("placed", 1, B)]
    assert f.see(6, 1, ABSENT) == [("lifted", 1, B)]


@pytest.mark.parametrize("gap", ["collision", "short drop-out", "fault", "collision+fault"])
def test_repeated_report_is_not_a_second_placement(gap: str) -> None:
    f = Feed()
    f.run(0, 200, 20, [(PRESENT, A)])
    assert f.events("placed") == [(100, "placed", 0, A)]
    between = {"collision": [(COLLISION,)] * 10, "short drop-out": [(ABSENT,)] * 9,
               "fault": [(ERROR,)] * 50,
               "collision+fault": [(COLLISION,)] * 3 + [(ERROR,)] * 3 + [(COLLISION,)] * 3}[gap]
    t = 200
    for r in between:
        f.see(t, 0, *r)
        t += 20
    f.run(t, t + 1000, 20, [(PRESENT, A)])
    assert f.events("placed") == [(100, "placed", 0, A)]
    assert f.events("lifted") == []
    names = [e[1] for e in f.events()]
    want = {"collision": ["collision", "collision_over"], "short drop-out": [],
            "fault": ["reader_fault", "reader_back"],
            "collision+fault": ["collision", "reader_fault", "reader_back"]}[gap]
    assert names[1:] == want + (["collision_over"] if gap == "collision+fault" else [])


def test_glimpses_keep_a_card_that_keeps_dropping_out() -> None:
    """The driver reported the card gone (three misses), then its single reads
    catch it every other poll, never twice in a row, so it is never confirmed
    again: the card is still there and is not lifted."""
    f = Feed(settle_ms=100, gone_ms=200)
    f.run(0, 200, 20, [(PRESENT, A)])
    for t in range(200, 1500, 60):
        f.see(t, 0, ABSENT)
        if t % 120 == 80:
            f.arb.glimpse(0, A)
    assert [e[1] for e in f.events()] == ["placed"]
    f.arb.glimpse(0, B)  # another card's read proves nothing
    f.arb.glimpse(1, A)  # nor a read on another reader
    f.run(1500, 1800, 60, [(ABSENT,)])
    assert [e[1] for e in f.events()] == ["placed", "lifted"]
    # the last read was at 1400: the gone time began with the next report (1460)
    assert f.events("lifted")[0][0] == 1680
    f.arb.glimpse(0, A)  # a read never places a card
    f.run(1800, 2000, 20, [(ABSENT,)])
    assert f.events("placed") == [(100, "placed", 0, A)]


def test_a_second_card_then_the_first_one_removed() -> None:
    f = Feed()
    f.run(0, 200, 20, [(PRESENT, A)])
    f.run(200, 400, 20, [(COLLISION,)])
    f.run(400, 800, 20, [(PRESENT, B)])  # A taken away, B stays
    assert [e[1:] for e in f.events()] == [
        ("placed", 0, A), ("collision", 0, b""), ("collision_over", 0, b""),
        ("lifted", 0, A), ("placed", 0, B)]
    # B settles 100 ms after it was first reported (400); A goes when B settles
    assert f.events("placed")[-1][0] == 500 and f.events("lifted")[0][0] == 500


def test_move_old_reader_releases_first() -> None:
    f = Feed(settle_ms=100, gone_ms=200)
    f.run(0, 200, 20, [(PRESENT, A), (ABSENT,)])
    f.run(200, 260, 20, [(ABSENT,), (ABSENT,)])  # in the hand
    f.run(260, 700, 20, [(ABSENT,), (PRESENT, A)])
    assert [e[1:] for e in f.events()] == [
        ("placed", 0, A), ("lifted", 0, A), ("placed", 1, A)]
    # B settles at 360, before A's gone time (200 + 200): lifted right before placed
    assert [e[0] for e in f.events()] == [100, 360, 360]


def test_move_new_reader_reports_before_the_old_one_releases() -> None:
    f = Feed(settle_ms=100, gone_ms=200)
    f.run(0, 200, 20, [(PRESENT, A), (ABSENT,)])
    # both report A for 300 ms (the old one's debounce, or cross-talk)
    f.run(200, 500, 20, [(PRESENT, A), (PRESENT, A)])
    assert f.placed_at() == [A, b""]  # still where it was: B gets nothing yet
    f.run(500, 1000, 20, [(ABSENT,), (PRESENT, A)])
    # B alone from 500 (its first observation after A stopped reporting it) + 100
    assert [e[1:] for e in f.events()] == [
        ("placed", 0, A), ("lifted", 0, A), ("placed", 1, A)]
    assert [e[0] for e in f.events()] == [100, 600, 600]


def test_two_readers_both_report_then_it_stays_on_the_old_one() -> None:
    f = Feed()
    f.run(0, 200, 20, [(PRESENT, A), (ABSENT,)])
    f.run(200, 600, 20, [(PRESENT, A), (PRESENT, A)])
    f.run(600, 1200, 20, [(PRESENT, A), (ABSENT,)])
    assert [e[1:] for e in f.events()] == [("placed", 0, A)]


def test_new_uid_on_two_readers_belongs_to_neither() -> None:
    f = Feed()
    f.run(0, 1000, 20, [(PRESENT, C), (PRESENT, C)])
    assert f.events() == [] and f.arb.where(C) == -1
    f.run(1000, 1200, 20, [(PRESENT, C), (ABSENT,)])
    # reader 0 is observed first in each pass: at 1000 reader 1 still reported C,
    # so reader 0 sees it alone from 1020 on
    assert [e[:3] for e in f.events()] == [(1120, "placed", 0)]


def test_order_of_observations_does_not_matter_for_a_move() -> None:
    f = Feed(n=3)
    f.run(0, 200, 20, [None, None, (PRESENT, A)])
    for t in range(200, 700, 20):  # B observed before A in each pass
        f.see(t, 1, PRESENT, A)
        f.see(t, 2, PRESENT if t < 300 else ABSENT, A if t < 300 else b"")
    assert [e[1:] for e in f.events()] == [
        ("placed", 2, A), ("lifted", 2, A), ("placed", 1, A)]
    # at 300 reader 2 had not yet been observed empty: B is alone from 320
    assert [e[0] for e in f.events()][1:] == [420, 420]


def test_quick_moves_never_two_places() -> None:
    f = Feed(n=3, settle_ms=100, gone_ms=200)
    f.run(0, 200, 20, [(PRESENT, A), (ABSENT,), (ABSENT,)])
    f.run(200, 260, 20, [(ABSENT,), (PRESENT, A), (ABSENT,)])  # 60 ms on B
    f.run(260, 320, 20, [(ABSENT,), (ABSENT,), (PRESENT, A)])  # 60 ms on C
    f.run(320, 900, 20, [(ABSENT,), (PRESENT, A), (ABSENT,)])  # then stays on B
    assert [e[1:] for e in f.events()] == [
        ("placed", 0, A), ("lifted", 0, A), ("placed", 1, A)]
    # and back to A before A's gone time: nothing at all
    g = Feed(n=3)
    g.run(0, 200, 20, [(PRESENT, A), (ABSENT,), (ABSENT,)])
    g.run(200, 260, 20, [(ABSENT,), (PRESENT, A), (ABSENT,)])
    g.run(260, 900, 20, [(PRESENT, A), (ABSENT,), (ABSENT,)])
    assert [e[1:] for e in g.events()] == [("placed", 0, A)]


def test_lift_before_settle_is_nothing() -> None:
    f = Feed()
    f.run(0, 80, 20, [(PRESENT, B)])
    f.run(80, 600, 20, [(ABSENT,)])
    assert f.events() == []
    # and a different card taking its place just restarts the settle time
    f.run(600, 680, 20, [(PRESENT, B)])
    f.run(680, 900, 20, [(PRESENT, A)])
    assert [e[:3] for e in f.events()] == [(780, "placed", 0)]


def test_swap_on_one_reader() -> None:
    f = Feed(settle_ms=100, gone_ms=300)
    f.run(0, 200, 20, [(PRESENT, A)])
    f.run(200, 500, 20, [(PRESENT, B)])  # swapped without an empty poll
    assert [e[1:] for e in f.events()] == [
        ("placed", 0, A), ("lifted", 0, A), ("placed", 0, B)]
    assert [e[0] for e in f.events()] == [100, 300, 300]


def test_collision_without_a_placed_card() -> None:
    f = Feed()
    f.run(0, 300, 20, [(COLLISION,)])
    f.run(300, 500, 20, [(PRESENT, B)])
    assert [e[:3] for e in f.events()] == [
        (0, "collision", 0), (300, "collision_over", 0), (400, "placed", 0)]
    assert f.arb.collision(0) is False


def test_fault_then_empty_lifts_after_gone() -> None:
    f = Feed()
    f.run(0, 200, 20, [(PRESENT, A)])
    f.run(200, 5000, 100, [(ERROR,)])
    assert f.arb.fault(0) and f.placed_at()[0] == A  # kept while the reader is down
    f.run(5000, 5400, 20, [(ABSENT,)])
    assert [e[:3] for e in f.events()] == [
        (100, "placed", 0), (200, "reader_fault", 0), (5000, "reader_back", 0),
        (5200, "lifted", 0)]


def test_card_moves_away_from_a_faulty_reader() -> None:
    f = Feed()
    f.run(0, 200, 20, [(PRESENT, A), (ABSENT,)])
    f.run(200, 600, 20, [(ERROR,), (PRESENT, A)])
    assert [e[:4] for e in f.events()] == [
        (100, "placed", 0, A), (200, "reader_fault", 0, b""), (300, "lifted", 0, A),
        (300, "placed", 1, A)]


def test_queue_overflow_is_reported() -> None:
    arb = P.Presence(6, settle_ms=0, gone_ms=0, queue=4)
    uids = [bytes((4, k, 1, 2, 3, 4, 5)) for k in range(6)]
    for i in range(6):
        arb.observe(i, PRESENT, uids[i], 0)  # six placements, room for three
    assert arb.pending() == 4 and arb.overflows == 3
    ev = drain(arb)
    assert ev == [("placed", 0, uids[0]), ("placed", 1, uids[1]), ("placed", 2, uids[2]),
                  ("overflow", 3, b"")]
    # the state is whole: the application resynchronises from it
    assert [arb.where(u) for u in uids] == [0, 1, 2, 3, 4, 5]
    # there is room again: nothing else lost
    arb.observe(0, ABSENT, b"", 1)
    assert drain(arb) == [("lifted", 0, uids[0])] and arb.overflows == 3
    # the ring wraps around correctly
    for k in range(10):
        for j in range(1, 6):      # the other readers are looked at too (a real poll round)
            arb.observe(j, PRESENT, uids[j], 2 + 2 * k)
        arb.observe(0, PRESENT, uids[0], 2 + 2 * k)
        arb.observe(0, ABSENT, b"", 3 + 2 * k)
        assert drain(arb) == [("placed", 0, uids[0]), ("lifted", 0, uids[0])]
    with pytest.raises(ValueError):
        P.Presence(2, queue=1)


def test_changes_move_with_every_event_queued_or_lost_and_only_then() -> None:
    """``changes`` (a console watches it instead of every reader at every
    step) moves with each event, also one the full queue lost, and stays
    put while the readers report what they reported."""
    f = Feed()
    seen = []

    def moved(t0, t1, reports):
        before = f.arb.changes
        f.run(t0, t1, 20, reports)
        seen.append(f.arb.changes - before)

    moved(0, 90, [(PRESENT, A)])            # seen, not yet settled
    moved(100, 400, [(PRESENT, A)])         # placed, then the same again and again
    moved(400, 1000, [(COLLISION,)])        # a collision (the card stays placed)
    moved(1000, 1200, [(PRESENT, A)])       # the collision over
    moved(1200, 1800, [(ERROR,)])           # a fault
    moved(1800, 2200, [(ABSENT,)])          # back, and lifted after gone_ms
    assert seen == [0, 1, 1, 1, 1, 2]
    assert len(f.events()) == f.arb.changes == 6
    arb = P.Presence(6, settle_ms=0, gone_ms=0, queue=4)
    for i in range(6):                      # six placements, three of them lost
        arb.observe(i, PRESENT, bytes((4, i, 1, 2)), 0)
    assert arb.overflows == 3 and arb.changes == 6


def test_no_card_settles_before_every_reader_had_a_look() -> None:
    """A card held over two readers, one polled far more often: it belongs to
    neither until the other reader has been looked at (and did not catch it)."""
    arb = P.Presence(3, settle_ms=100, gone_ms=200)
    for j in range(3):
        arb.observe(j, ABSENT, b"", 0)
    for t in range(10, 200, 10):              # reader 0 polled every 10 ms
        arb.observe(0, PRESENT, A, t)
    assert drain(arb) == []                   # readers 1 and 2 not looked at since
    arb.glimpse(1, A)                         # reader 1's single read catches it too
    arb.observe(1, ABSENT, b"", 200)          # (not yet confirmed there)
    arb.observe(2, ABSENT, b"", 200)
    arb.observe(0, PRESENT, A, 210)
    assert drain(arb) == []                   # caught elsewhere: nobody's
    arb.glimpse(1, b"")                       # reader 1 lets go of it ...
    arb.observe(1, ABSENT, b"", 220)
    arb.observe(0, PRESENT, A, 230)
    assert drain(arb) == [("placed", 0, A)]


def test_ticks_wrap() -> None:
    top = (1 << 30) - 1
    assert P.ticks_diff(10, top - 9) == 20 and P.ticks_diff(top - 9, 10) == -20
    f = Feed()
    f.see(top - 59, 0, PRESENT, A)
    assert f.see(top, 0, PRESENT, A) == []
    assert f.see(39, 0, PRESENT, A) == []  # 99 ms
    assert f.see(40, 0, PRESENT, A) == [("placed", 0, A)]  # 100 ms, across the wrap


def test_uid_lengths_and_views() -> None:
    f = Feed(n=3, settle_ms=0)
    for i, u in enumerate((A, B, C)):
        assert f.see(0, i, PRESENT, memoryview(bytearray(u))) == [("placed", i, u)]
    assert f.placed_at() == [A, B, C]
    # a present status without a UID counts as empty
    assert f.see(1, 1, PRESENT, b"") == []


def test_feed_from_a_real_reader_set() -> None:
    from host_sim.board import reader_rig
    from host_sim.mfrc522_model import Tag

    rig = reader_rig(2)
    arb = P.Presence(2)
    events = []

    def cycle(k=1):
        for _ in range(k):
            for i in range(2):
                rig.rs.poll(i)
                arb.feed(rig.rs, i, rig.ticks_ms())
                events.extend(drain(arb))

    tag = Tag(A)
    rig.chips[0].place(tag)
    cycle(10)
    assert events == [("placed", 0, A)]
    rig.chips[0].remove(tag)
    rig.chips[1].place(tag)
    cycle(20)
    assert events == [("placed", 0, A), ("lifted", 0, A), ("placed", 1, A)]
