"""The readers job's round (firmware/table/reader_round.py): which reader is
switched on and scanned when, and the sweep a new card on the seat on turn
starts -- every field on at once, then every reader looked at for the card
at once (ReaderSet.wake, then at the next step ReaderSet.select), the seat
on turn's confirming read taken last;
what that look cannot settle is scanned one by one after -- before the
arbiter may take the card.
Run on the fake board's readers (host_sim/vm/fake_board.py), which record
here which reader was armed and scanned at each step."""

from host_sim.vm.fake_board import Clock, FakeReaders, Pad, Sticker
from table.app import SETTLE_MS
from table.presence import EV_PLACED, Presence
from table.reader_round import ReaderRound

CARD = bytes.fromhex("04a1b2c3d4e5f6")
OTHER = bytes.fromhex("04a1b2c3d4e5f7")
THIRD = bytes.fromhex("04a1b2c3d4e5f8")
FOURTH = bytes.fromhex("04a1b2c3d4e5f9")


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

    def wake(self, j, mask):
        self.log.append(("sweep", mask))
        return FakeReaders.wake(self, j, mask)

    def select(self, live):
        self.log.append(("select", live))
        FakeReaders.select(self, live)

    def record(self, i, raw):
        self.log.append(("record", i))
        FakeReaders.record(self, i, raw)


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


def test_the_seat_on_turn_is_scanned_every_step_and_two_fields_are_on_at_a_time():
    readers, clock, _presence, rr = _round()
    steps = _steps(readers, clock, rr, 12)
    for step in steps:
        armed = [op[1] for op in step if op[0] == "arm"]
        assert armed[0] == 2 and len(armed) == 2 and armed[1] != 2   # the hot one and one other
    others = [op[1] for step in steps for op in step if op[0] == "arm" and op[1] != 2]
    assert sorted(others[:5]) == [0, 1, 3, 4, 5]         # the others in turn, each once
    for before, step in zip(steps[:-1], steps[1:], strict=True):
        scanned = [op[1] for op in step if op[0] == "scan"]
        assert scanned == [op[1] for op in before if op[0] == "arm"]   # armed one step ahead
    assert rr.sweeping == 0 and rr.polls == 12


def _new_card_on_turn(readers, clock, rr, presence, ms=5):
    """A trick's card on seat 4, then the new card on the seat on turn (2),
    stepped until the hot reader's scan saw it; that step's log."""
    _steps(readers, clock, rr, 6)
    readers.pads[4].place(Sticker(OTHER))          # a trick's card on another seat
    _steps(readers, clock, rr, 12)
    _placed(presence)
    readers.pads[2].place(Sticker(CARD))
    first = []
    while not rr.sweeping:                         # until the hot reader sees it
        first = _steps(readers, clock, rr, 1, ms)[0]
        assert rr.polls < 40
    return first


def test_a_new_card_on_turn_switches_every_field_on_and_looks_at_every_reader_at_once():
    readers, clock, presence, rr = _round()
    first = _new_card_on_turn(readers, clock, rr, presence)
    assert first[0] == ("scan", 2)                 # the hot reader saw the new card ...
    assert [op for op in first if op[0] == "arm"] == [("arm", i) for i in range(5, -1, -1)]
    steps = _steps(readers, clock, rr, 1)          # ... every field went on at once
    assert steps[0] == [("sweep", 0b111111)]       # every reader woken at once (the WUPA)
    assert rr.sweeping and rr.wait(5) == 0         # ... and at the very next step
    steps = _steps(readers, clock, rr, 1)
    assert steps[0][0] == ("select", 0b010100)     # the SELECT where a card answered
    # the empty ones read nothing, as they did before (a look: nothing to record,
    # ReaderSet.quiet), 4 holds its own card (a look), the hot reader's card
    # answered: its confirming read, last
    assert [op for op in steps[0][1:]] == [("record", 2)]
    assert rr.sweeping == 0
    assert _placed(presence) == [(2, CARD)]        # taken once every other reader looked


def test_the_look_waits_for_the_cards_settle_time():
    """Steps 1 ms apart: the look at every reader waits until the card has
    lain SETTLE_MS since the hot reader read it (the readers job waits the
    rest: App.wait_after), then places it."""
    readers, clock, presence, rr = _round()
    _new_card_on_turn(readers, clock, rr, presence, ms=1)
    read_at = clock.now - 1
    assert rr.wait(5) == SETTLE_MS - 1
    waited = []
    while not readers.log or readers.log[0][0] != "sweep":
        waited += _steps(readers, clock, rr, 1, ms=1)
        assert len(waited) < 10
    assert clock.now - 1 - read_at >= SETTLE_MS
    assert all(step == [] for step in waited[:-1]), waited    # nothing until then
    assert rr.wait(5) == 0 and _steps(readers, clock, rr, 1, ms=1)[0][0][0] == "select"
    assert rr.sweeping == 0 and rr.wait(5) == 5
    assert _placed(presence) == [(2, CARD)]


def test_what_the_look_cannot_settle_waits_for_the_rounds_scan():
    """A second new card on an empty reader answers the look (another card):
    that reader is left, its field off, to the round's next scan of it, and
    the hot reader's card is placed at its read after that."""
    readers, clock, presence, rr = _round()
    _steps(readers, clock, rr, 12)                 # every reader scanned: all in use
    readers.pads[2].place(Sticker(CARD))
    while not rr.sweeping:
        _steps(readers, clock, rr, 1)
        assert rr.polls < 40
    readers.pads[0].place(Sticker(OTHER))          # meanwhile, on seat 0
    steps = _steps(readers, clock, rr, 2)
    assert steps[0][0] == ("sweep", 0b111111)
    assert ("record", 0) not in steps[1] and ("record", 2) in steps[1]
    assert rr.sweeping == 0 and _placed(presence) == []    # seat 0 has not been looked at
    placed = []
    seat0_scanned = False
    while len(placed) < 2:
        step = _steps(readers, clock, rr, 1)[0]
        seat0_scanned = seat0_scanned or ("scan", 0) in step
        now = _placed(presence)
        if (2, CARD) in now:                       # at a read of the hot reader ...
            assert seat0_scanned and ("scan", 2) in step    # ... after seat 0's scan
        placed += now
        assert clock.now < 1000, placed
    assert sorted(placed) == [(0, OTHER), (2, CARD)]


def test_a_sweep_whose_seat_is_no_longer_on_turn_is_dropped():
    """The turn moves on while the sweep waits for its card (an undo): the
    look is not made for the new seat on turn; every field goes off and the
    round goes on, which places the card once it settles by its reads."""
    readers, clock, presence, rr = _round()
    _new_card_on_turn(readers, clock, rr, presence, ms=1)
    rr.hot = 3
    steps = _steps(readers, clock, rr, 6, ms=1)
    assert rr.sweeping == 0
    assert not any(op[0] == "sweep" for step in steps for op in step)
    placed = []
    for _ in range(40):
        _steps(readers, clock, rr, 1)
        placed += _placed(presence)
    assert placed == [(2, CARD)]


def test_a_turn_that_moves_between_the_looks_two_halves_drops_the_sweep():
    """The look's WUPA went out (``wake``), then the turn moved on (an undo)
    before its second half: no SELECT is sent for the old seat's card, every
    field goes off, and the round places the card by its reads."""
    readers, clock, presence, rr = _round()
    _new_card_on_turn(readers, clock, rr, presence)
    assert _steps(readers, clock, rr, 1)[0] == [("sweep", 0b111111)]
    rr.hot = 3
    steps = _steps(readers, clock, rr, 6)
    assert rr.sweeping == 0
    assert not any(op[0] in ("sweep", "select") for step in steps for op in step)
    placed = []
    for _ in range(40):
        _steps(readers, clock, rr, 1)
        placed += _placed(presence)
    assert placed == [(2, CARD)]


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


def test_on_the_chip_models_the_fields_settle_while_the_new_card_is_read():
    """The real drivers (host_sim chip models): the hot reader's scan switches
    every other field on as soon as the new card answers its WUPA, so the
    sweep's look need not wait for them afterwards -- only for what is left
    of the card's and the fields' settle time; where nothing is left it
    follows at the very next step (no wait: ``wait`` is 0), its own step
    (scan and look in one held the loop 15 ms on the Pico) -- and it places
    the card."""
    from host_sim.board import reader_rig
    from host_sim.mfrc522_model import Tag
    t = reader_rig(4)
    presence = Presence(4, settle_ms=SETTLE_MS)
    rr = ReaderRound(t.rs, presence, t.ticks_ms)
    rr.hot = 1
    for _ in range(10):                            # every reader looked at: all in use
        rr.step()
        t.bus.sleep_us(5000)
    t.chips[1].place(Tag(CARD))
    steps = 0
    while not rr.sweeping:                         # the scan that reads the new card
        began = t.ticks_ms()
        rr.step()
        steps += 1
        assert steps < 4
        if not rr.sweeping:
            t.bus.sleep_us(5000)
    assert began <= t.rs.ahead_at                  # the fields went on during the scan ...
    assert _placed(presence) == [] and rr.wait(5) == 0    # ... so the look follows at once
    looked = t.ticks_ms()
    rr.step()                                      # its WUPA to every reader ...
    assert _placed(presence) == [] and rr.wait(5) == 0
    woken = t.ticks_ms()
    rr.step()                                      # ... and its SELECT at the next step
    assert _placed(presence) == [(1, CARD)]
    assert rr.sweeping == 0 and not any(c.field_on for c in t.chips)
    print("\nscan %d ms, then the sweep's look %d + %d ms (field settle %d ms)"
          % (looked - began, woken - looked, t.ticks_ms() - woken, 5))


def test_the_sweep_waits_for_fields_switched_on_late():
    """A sweep whose fields went on only when it started (no scan arming
    them ahead: the fake readers) waits their settle time before its look."""
    readers, clock, presence, rr = _round()
    readers.settle_us = 5000
    rr = ReaderRound(readers, presence, clock)
    rr.hot = 2
    _new_card_on_turn(readers, clock, rr, presence, ms=1)    # (the clock 1 ms on)
    assert rr.sweeping and rr.wait(5) == 4
    assert _steps(readers, clock, rr, 3, ms=1) == [[], [], []]   # nothing looked at yet
    assert rr.wait(5) == 1
    clock.now += 1
    assert _steps(readers, clock, rr, 1)[0][0] == ("sweep", 0b111111)


def test_where_the_seat_on_turn_holds_a_placed_card_no_step_scans_two_cards():
    """A finished trick's cards lie, the next leader's on the hot reader: a
    step that scanned the hot one leaves the scan of the other switched on,
    where that one read a card, to the next step, and the job does not wait
    in between (its field is on and settled) -- two scans reading a card held
    the loop 12-14 ms on the Pico.  Every reader is still scanned in turn."""
    readers, clock, presence, rr = _round()
    readers.pads[4].place(Sticker(OTHER))          # a trick's card on another seat
    _steps(readers, clock, rr, 12)
    readers.pads[2].place(Sticker(CARD))           # the next leader's, on the hot reader
    _steps(readers, clock, rr, 30)
    assert sorted(_placed(presence)) == [(2, CARD), (4, OTHER)]
    steps = []
    for _ in range(36):
        readers.log = []
        rr.step()
        steps.append(([op[1] for op in readers.log if op[0] == "scan"], rr.wait(5)))
        clock.now += 5
    for scanned, _wait in steps:
        assert len([i for i in scanned if i in (2, 4)]) <= 1, steps    # one card read a step
    split = [k for k, (scanned, wait) in enumerate(steps[:-1]) if scanned == [2] and wait == 0]
    assert split, steps
    assert all(steps[k + 1][0] == [4] for k in split), steps        # the other's at the next
    scanned = {i for s, _w in steps for i in s}
    assert scanned == {0, 1, 2, 3, 4, 5}                             # every reader in turn
    assert all(wait == 5 for k, (s, wait) in enumerate(steps) if k not in split)


def test_at_a_power_up_no_step_reads_two_cards():
    """At a power-up the cards lying are placed anew, no reader scanned yet:
    where the reader scanned as the hot one read a card -- also one the turn
    moved off between its field and its scan, as the game takes its journal
    up -- the other reader switched on is scanned at the next step (two
    cards read in one held the Pico's loop 14.3-14.5 ms).  Every card is
    placed."""
    for moved in (False, True):
        readers, clock, presence, rr = _round(hot=0)
        for i, uid in enumerate((CARD, OTHER, THIRD, FOURTH)):
            readers.pads[i].place(Sticker(uid))
        steps = []
        for k in range(60):
            readers.log = []
            rr.step()
            if k == 0 and moved:
                rr.hot = 3                      # the turn is elsewhere now
            steps.append([op[1] for op in readers.log if op[0] == "scan"])
            clock.now += 5
        assert not [s for s in steps if len([i for i in s if i < 4]) > 1], (moved, steps)
        assert sorted(_placed(presence)) == sorted(
            [(0, CARD), (1, OTHER), (2, THIRD), (3, FOURTH)]), moved
