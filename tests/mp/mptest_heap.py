"""The card-play path allocates nothing once a deal is under way (DESIGN.md 4).

Under MicroPython every card play but the deal's last runs with
``micropython.heap_lock()`` held: any allocation raises MemoryError.  Under
CPython the same plays run unlocked, so the scenario itself is still checked.
"""
from mpscen import Lcg, new_session

from tapp import deal as D
from tapp.cards import CARD_CODES, DECKS, mask_cards

try:
    import micropython
except ImportError:  # CPython
    micropython = None


def _start_play(variant, players, mode, seed):
    """A session whose deal is at its first card, plus the deal's true hands."""
    rng = Lcg(seed)
    s = new_session(variant, players, mode="strict")
    rules = s.rules
    cards = mask_cards(DECKS[rules.deck])
    while True:
        rng.shuffle(cards)
        active = rules.active_order(s.dealer)
        k = rules.hand_size
        hands = [[] for _ in range(players)]
        for i, seat in enumerate(active):
            hands[seat] = [CARD_CODES[c] for c in cards[i * k:(i + 1) * k]]
        s.apply({"ev": "deal", "dealer": s.dealer, "hands": hands, "talon": None})
        # forehand plays a point game (Solo-like, or the soloist's spiele), the rest pass
        first = True
        while s.deal.phase == D.AUCTION:
            calls = s.legal_calls()
            pick = [ev for ev in calls if first and (
                ev.get("contract") in ("solo", "heart_solo", "suit_solo")
                or ev["call"] == "spiele")]
            pick = pick or [ev for ev in calls if ev.get("contract") in (
                "solo", "heart_solo", "suit_solo")]
            pick = pick or [ev for ev in calls if ev["call"] in ("pass", "weg")] or calls
            s.apply(pick[0])
            first = False
        if s.deal.phase == D.EXCHANGE:   # lay the picked-up skat back
            s.apply({"ev": "exchange", "seat": s.deal.declarer,
                     "discard": [CARD_CODES[c] for c in mask_cards(s.deal.talon)]})
        if s.deal.phase == D.DECLARE:
            s.apply(s.legal_calls()[0])
        if s.deal.phase == D.PLAY:
            return s
        s.apply({"ev": "redeal", "reason": "test"} if s.deal.phase != D.DONE else {})


def _locked_plays(s):
    """Play every card but the last with the heap locked; count the plays."""
    deal = s.deal
    plays = 0
    while deal.phase == D.PLAY:
        seat = deal.turn
        card = deal.legal_cards(seat)[0]   # allocates: chosen before locking
        if deal.trick_no == deal.ntricks and deal.tcount == deal.nact - 1:
            assert deal.play(seat, card) == 0
            break
        if micropython is not None:
            micropython.heap_lock()
        try:
            err = deal.play(seat, card)
        finally:
            if micropython is not None:
                micropython.heap_unlock()
        assert err == 0, err
        plays += 1
    return plays


def test_card_play_allocates_nothing_wuerttemberg():
    s = _start_play("wuerttemberg", 3, "strict", 3)
    assert _locked_plays(s) == 32


def test_card_play_allocates_nothing_tapp_modern_4():
    s = _start_play("tapp_modern", 4, "strict", 5)
    assert _locked_plays(s) == 31


def test_refused_cards_allocate_nothing():
    s = _start_play("tapp_classic", 3, "strict", 9)
    deal = s.deal
    seat = deal.turn
    other = deal.next_seat[seat]
    card = deal.legal_cards(seat)[0]
    if micropython is not None:
        micropython.heap_lock()
    try:
        wrong_turn = deal.play(other, card)
        unknown = deal.play(seat, -1)
    finally:
        if micropython is not None:
            micropython.heap_unlock()
    assert wrong_turn == 5 and unknown == 1


def _open_twin(variant, players, seed):
    """A strict session at its first card and an open-mode twin fed the same
    events, with the hands and discards left unknown as at an open table."""
    s = _start_play(variant, players, "strict", seed)
    o = new_session(variant, players, mode="open", first_dealer=s.deal.dealer)
    for ev in s.log:
        if ev["ev"] == "deal":
            ev = {"ev": "deal", "dealer": ev["dealer"], "hands": None, "talon": None}
        elif ev["ev"] == "exchange":
            ev = {"ev": "exchange", "seat": ev["seat"], "discard": None}
        out = o.apply(ev)
        assert out["ok"], (ev, out)
    return s, o


def test_open_mode_card_play_allocates_nothing():
    """Open mode records void and over-trump assertions: still no allocation."""
    for variant, players, seed in (("wuerttemberg", 3, 4), ("herzblatt", 4, 2)):
        s, o = _open_twin(variant, players, seed)
        assert o.deal.phase == D.PLAY and o.deal.trump == s.deal.trump
        sd, od = s.deal, o.deal
        plays = 0
        while sd.phase == D.PLAY:
            seat = sd.turn
            cards = sd.legal_cards(seat)
            card = cards[-1]
            last = sd.trick_no == sd.ntricks and sd.tcount == sd.nact - 1
            assert sd.play(seat, card) == 0
            if last:
                assert od.play(seat, card) == 0
                break
            if micropython is not None:
                micropython.heap_lock()
            try:
                err = od.play(seat, card)
            finally:
                if micropython is not None:
                    micropython.heap_unlock()
            assert err == 0, err
            plays += 1
        assert plays == sd.ntricks * sd.nact - 1
        assert od.seat_points == sd.seat_points


def test_card_play_allocates_no_frames_either():
    """heap_lock() hides VM frames that go to the heap when unlocked; the unix
    port's mem_total() counts every byte ever allocated, so it must stay flat."""
    mem_total = getattr(micropython, "mem_total", None)
    for variant, players, seed in (("tapp_classic", 3, 6), ("herzblatt", 5, 3)):
        s, o = _open_twin(variant, players, seed)
        sd, od = s.deal, o.deal
        grew = 0
        plays = 0
        while sd.phase == D.PLAY:
            seat = sd.turn
            card = sd.legal_cards(seat)[0]
            if sd.trick_no == sd.ntricks and sd.tcount == sd.nact - 1:
                break          # the deal's last card settles (allocates by design)
            m0 = mem_total() if mem_total else 0
            a = sd.play(seat, card)
            b = od.play(seat, card)
            m1 = mem_total() if mem_total else 0
            assert a == 0 and b == 0, (a, b)
            grew += m1 - m0
            plays += 1
        assert plays == sd.ntricks * sd.nact - 1
        assert grew == 0, (variant, grew)
