"""The readers job's round (firmware/table/reader_round.py): which reader is
switched on and scanned when, and the sweep a new card on the seat on turn
starts -- every field on at once, three empty readers a step or one that read
a card (only looked at for the new card) and an empty one, the seat on turn last --
before the arbiter may take the card.
Run on the fake board's readers (host_sim/vm/fake_board.py), which record
here which reader was armed and scanned at each step."""

from host_sim.vm.fake_board import Clock, FakeReaders, Pad, Sticker
from table.app import SETTLE_MS
from table.presence import EV_PLACED, Presence
from table.reader_round import ReaderRound

CARD = bytes.fromhex("04a1b2c3d4e5f6")
OTHER = bytes.fromhex("04a1b2c3d4e5f7")


class Recording(FakeReaders):
    """FakeReaders that note each arm and poll, per step."""

    def __init__(self, n):
        FakeReaders.__init__(self, [Pad() for _ in range(n)])
        self.log = []

    def arm(self, i):
        self.log.append(("arm", i))

    def poll(self, i):
        self.log.append(("scan", i))
        FakeReaders.poll(self, i)

    def holds(self, i, j):
        self.log.append(("look", i))
        return FakeReaders.holds(self, i, j)


def _round(n=6, hot=2):
    readers = Recording(n)
    clock = Clock()
    presence = Presence(n, settle_ms=SETTLE_MS)
    rr = ReaderRound(readers, presence, clock)
    rr.hot = hot
    return readers, clock, presence, rr


def _steps(readers, clock, rr, k, ms=5):
    """k steps, ``ms`` apart; what each did."""
    out = []
    for _ in range(k):
        readers.log = []
        rr.step()
        out.append(readers.log)
        clock.now += ms
    return out


def _placed(presence):
    out = []
    while presence.pending():
        if presence.pop() == EV_PLACED:
            out.append((presence.reader, bytes(presence.uid_view())))
    return out


def test_the_seat_on_turn_is_every_other_reader_and_one_field_is_on_at_a_time():
    readers, clock, _presence, rr = _round()
    steps = _steps(readers, clock, rr, 12)
    armed = [op[1] for step in steps for op in step if op[0] == "arm"]
    hot, others = (armed[0::2], armed[1::2]) if armed[0] == 2 else (armed[1::2], armed[0::2])
    assert hot == [2] * 6                                 # the hot reader every other step
    assert sorted(set(others)) == [0, 1, 3, 4, 5]         # the others in turn
    for before, step in zip(steps[:-1], steps[1:], strict=True):
        scanned = [op[1] for op in step if op[0] == "scan"]
        assert scanned == [op[1] for op in before if op[0] == "arm"]   # armed one step ahead
    assert rr.sweeping == 0 and rr.polls == 12


def test_a_new_card_on_turn_switches_every_field_on_and_sweeps_with_the_hot_reader_last():
    readers, clock, presence, rr = _round()
    _steps(readers, clock, rr, 6)
    readers.pads[4].place(Sticker(OTHER))          # a trick's card on another seat
    _steps(readers, clock, rr, 12)
    _placed(presence)
    readers.pads[2].place(Sticker(CARD))
    first = []
    while not rr.sweeping:                         # until the hot reader sees it
        first = _steps(readers, clock, rr, 1)[0]
        assert rr.polls < 40
    assert first[0] == ("scan", 2)                 # the hot reader saw the new card ...
    assert [op for op in first if op[0] == "arm"] == [("arm", i) for i in range(5, -1, -1)]
    steps = []                                     # ... and every field went on at once
    while rr.sweeping:
        steps += _steps(readers, clock, rr, 1)
        assert len(steps) < 10, steps
    sweep = [op for step in steps for op in step if op[0] != "arm"]
    assert [op[1] for op in sweep] == [0, 1, 3, 4, 5, 2], sweep   # each other once, hot last
    assert ("look", 4) in sweep                    # 4 holds a card: looked at for the new one
    per_step = [[op[1] for op in step] for step in steps]
    assert per_step == [[0, 1, 3], [4, 5], [2]], per_step   # 4 read a card last time
    assert not any(op[0] == "arm" for step in steps for op in step)
    assert _placed(presence) == [(2, CARD)]        # taken once every other reader looked


def test_a_card_over_two_readers_is_nobodys_and_swept_for_once():
    """The sweep finds the card on the next seat's reader too: nobody's, and
    no second sweep (the readers job would run without its waits); the
    normal round goes on, and the card is the seat on turn's once it lies
    there alone."""
    readers, clock, presence, rr = _round()
    _steps(readers, clock, rr, 6)
    readers.pads[2].place(Sticker(CARD))
    readers.pads[3].place(Sticker(CARD))           # the same card read by the next seat too
    steps = _steps(readers, clock, rr, 40)
    assert _placed(presence) == [] and rr.sweeping == 0
    assert sum(1 for step in steps if step.count(("arm", 0)) and step.count(("arm", 5))) == 1
    readers.pads[3].clear()                        # it settles on the seat on turn
    _steps(readers, clock, rr, 40)
    assert _placed(presence) == [(2, CARD)]


def test_an_injected_tag_is_reported_instead_of_what_the_reader_reads():
    readers, clock, presence, rr = _round()
    rr.inject(0, CARD)
    assert rr.injected(0) and not rr.injected(1)
    _steps(readers, clock, rr, 30)
    assert _placed(presence) == [(0, CARD)]
    rr.inject(0, None)
    assert not rr.injected(0)
