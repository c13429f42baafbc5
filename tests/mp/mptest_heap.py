"""The card-play path allocates nothing once a deal is under way (docs/design.md, principle 4).

Under MicroPython every card play but the deal's last runs with
``micropython.heap_lock()`` held: any allocation raises MemoryError.  Under
CPython the same plays run unlocked, so the scenario itself is still checked.
"""
from random_deals import Lcg, new_session

from tapp.cards import CARD_CODES, DECKS, LOWEST_BIT, mask_cards
from tapp.dealing import deal_out

try:
    import micropython
except ImportError:  # CPython
    micropython = None


def _start_play(variant, players, seed):
    """A strict session whose deal is at its first card (through the public
    door), and the events after the deal event that got it there."""
    rng = Lcg(seed)
    s = new_session(variant, players, mode="strict")
    rules = s.rules
    view = s.view
    cards = mask_cards(DECKS[rules.deck])
    while True:
        rng.shuffle(cards)
        hands, talon = deal_out(rules, view.dealer(), [CARD_CODES[c] for c in cards])
        s.apply({"ev": "deal", "dealer": view.dealer(), "hands": hands, "talon": None})
        calls = []
        # forehand plays a point game (Solo-like, or the soloist's spiele), the rest pass
        while view.expects() == "call":
            legal = view.legal_calls()
            pick = [ev for ev in legal if not calls and (
                ev.get("contract") in ("solo", "heart_solo", "suit_solo")
                or ev["call"] == "spiele")]
            pick = pick or [ev for ev in legal if ev.get("contract") in (
                "solo", "heart_solo", "suit_solo")]
            pick = pick or [ev for ev in legal if ev["call"] in ("pass", "weg")] or legal
            calls.append(pick[0])
            s.apply(pick[0])
        if view.expects() == "discard":   # lay the picked-up skat back
            calls.append({"ev": "exchange", "seat": view.declarer(), "discard": view.talon()})
            s.apply(calls[-1])
        if view.expects() == "declare":
            calls.append(view.legal_calls()[0])
            s.apply(calls[-1])
        if view.expects() == "card":
            return s, calls
        s.apply({"ev": "redeal", "reason": "test"} if view.in_deal() else {})


def _first_legal(view, masks):
    """The lowest legal card of the seat to play, found without allocating."""
    view.legal_masks(masks)
    s = 0
    while not masks[s]:
        s += 1
    return s * 9 + LOWEST_BIT[masks[s]]


def _is_last(s):
    """Is the next card the deal's last (it settles, and allocates the result)?"""
    view = s.view
    return (view.trick_number() == s.rules.hand_size
            and view.trick_size() == len(view.active_seats()) - 1)


def _locked_plays(s):
    """Play every card but the last through ``Session.play`` with the heap
    locked; count the plays."""
    view = s.view
    masks = [0, 0, 0, 0]
    plays = 0
    while view.expects() == "card":
        seat = view.turn()
        card = _first_legal(view, masks)
        if _is_last(s):
            assert s.play(seat, card) == 0
            break
        if micropython is not None:
            micropython.heap_lock()
        try:
            err = s.play(seat, card)
        finally:
            if micropython is not None:
                micropython.heap_unlock()
        assert err == 0, err
        plays += 1
    assert not view.in_deal() and view.last_result() is not None
    return plays


def test_card_play_allocates_nothing_wuerttemberg():
    s, _ = _start_play("wuerttemberg", 3, 3)
    assert _locked_plays(s) == 32
    assert s.view.deals_played() == 1 and s.view.dealer() == 1   # settled, rotated


def test_card_play_allocates_nothing_tapp_modern_4():
    s, _ = _start_play("tapp_modern", 4, 5)
    assert _locked_plays(s) == 31


def test_refused_cards_allocate_nothing():
    s, _ = _start_play("tapp_classic", 3, 9)
    view = s.view
    masks = [0, 0, 0, 0]
    seat = view.turn()
    other = (seat + 1) % view.players()
    card = _first_legal(view, masks)
    if micropython is not None:
        micropython.heap_lock()
    try:
        wrong_turn = s.play(other, card)
        unknown = s.play(seat, -1)
        beyond = s.play(seat, 99)
    finally:
        if micropython is not None:
            micropython.heap_unlock()
    assert wrong_turn == 5 and unknown == 1 and beyond == 1


def _open_twin(variant, players, seed):
    """A strict session at its first card and an open-mode twin fed the same
    calls, with the hands and discards unknown as at an open table."""
    s, calls = _start_play(variant, players, seed)
    o = new_session(variant, players, mode="open", first_dealer=s.view.dealer())
    events = [{"ev": "deal", "dealer": s.view.dealer(), "hands": None, "talon": None}]
    for ev in calls:
        if ev["ev"] == "exchange":
            ev = {"ev": "exchange", "seat": ev["seat"], "discard": None}
        events.append(ev)
    for ev in events:
        out = o.apply(ev)
        assert out["ok"], (ev, out)
    return s, o


def test_open_mode_card_play_allocates_nothing():
    """Open mode records void and over-trump assertions: still no allocation."""
    for variant, players, seed in (("wuerttemberg", 3, 4), ("herzblatt", 4, 2)):
        s, o = _open_twin(variant, players, seed)
        assert o.view.expects() == "card" and o.view.trump() == s.view.trump()
        masks = [0, 0, 0, 0]
        plays = 0
        while s.view.expects() == "card":
            seat = s.view.turn()
            card = _first_legal(s.view, masks)
            last = _is_last(s)
            assert s.play(seat, card) == 0
            if last:
                assert o.play(seat, card) == 0
                break
            if micropython is not None:
                micropython.heap_lock()
            try:
                err = o.play(seat, card)
            finally:
                if micropython is not None:
                    micropython.heap_unlock()
            assert err == 0, err
            plays += 1
        assert plays == s.rules.hand_size * len(s.view.active_seats()) - 1
        assert o.view.last_result()["points"] == s.view.last_result()["points"]


def test_card_play_allocates_no_frames_either():
    """heap_lock() hides VM frames that go to the heap when unlocked; the unix
    port's mem_total() counts every byte ever allocated, so it must stay flat
    over ``Session.play`` (log entry included: a fixed buffer) and the view's
    allocation-free questions."""
    mem_total = getattr(micropython, "mem_total", None)
    for variant, players, seed in (("tapp_classic", 3, 6), ("herzblatt", 5, 3)):
        s, o = _open_twin(variant, players, seed)
        view = s.view
        masks = [0, 0, 0, 0]
        grew = 0
        plays = 0
        while view.expects() == "card":
            if _is_last(s):
                break          # the deal's last card settles (allocates by design)
            m0 = mem_total() if mem_total else 0
            seat = view.turn()
            card = _first_legal(view, masks)
            a = s.play(seat, card)
            b = o.play(seat, card)
            shown = view.trick_size() + view.points(seat) + view.last_winner()
            m1 = mem_total() if mem_total else 0
            assert a == 0 and b == 0 and shown >= -1, (a, b)
            grew += m1 - m0
            plays += 1
        assert plays == s.rules.hand_size * len(view.active_seats()) - 1
        assert grew == 0, (variant, grew)


def test_undo_takes_back_the_card_through_the_door():
    """Undo after a card played through ``Session.play`` takes back that card."""
    s, _ = _start_play("wuerttemberg", 3, 3)
    view = s.view
    masks = [0, 0, 0, 0]
    seat = view.turn()
    card = _first_legal(view, masks)
    assert s.play(seat, card) == 0 and view.trick_size() == 1
    assert s.apply({"ev": "undo"}) == {"ok": True}
    assert view.trick_size() == 0 and view.turn() == seat and view.expects() == "card"


def test_every_trick_power_table_together_takes_little_heap():
    """A session that meets each trump and the Bettel order makes all ten of
    the trick's power tables (tapp/cards.py ``powers``); as tuples of ints they
    took 6.7 KB of the Pico's heap (12 KB here, the 64-bit port), lost deal
    by deal over an evening.  As bytes the ten take 1.8 KB on the Pico, under
    4 KB here (with the list that holds them and what a collection may leave),
    and each gives a card's power at ``led * 36 + card``."""
    import gc

    from tapp.cards import BETTEL_ORDER, NCARDS, NORMAL_ORDER, TRUMP_POWER, powers
    measured = hasattr(gc, "mem_alloc")   # (CPython: the tables' values only)
    before = 0
    if measured:
        gc.collect()
        before = gc.mem_alloc()
    tables = [powers(bettel, trump) for bettel in (0, 1) for trump in (-1, 0, 1, 2, 3)]
    if measured:
        gc.collect()
        taken = gc.mem_alloc() - before
        assert taken < 4096, taken
    for k, t in enumerate(tables):
        bettel, trump = k // 5, k % 5 - 1
        order = BETTEL_ORDER if bettel else NORMAL_ORDER
        for led in range(4):
            for c in range(NCARDS):
                want = (TRUMP_POWER + 1 + order[c % 9] if c // 9 == trump
                        else 1 + order[c % 9] if c // 9 == led else 0)
                assert t[led * NCARDS + c] == want, (bettel, trump, led, c)
