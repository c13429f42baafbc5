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
        # forehand plays the cheapest point game: a Solo-like contract, no exchange
        for ev in s.legal_calls():
            if ev.get("contract") in ("solo", "heart_solo", "suit_solo"):
                s.apply(ev)
                break
        while s.deal.phase == D.AUCTION:
            s.apply({"ev": "bid", "seat": s.turn(), "call": "pass"
                     if variant != "tapp_modern" else "weg"})
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
