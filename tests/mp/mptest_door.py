"""The engine's one door and its view: whole deals through ``Session.play`` and
``Session.apply``, settlement, dealer rotation, undo, bounded no-ops, the
dealing helper, and the three rule clarifications as named tests.

Runs under CPython (pytest collects it through tests/mp/) and inside both
MicroPython VMs (tests/test_micropython.py).
"""
# mp-heapsize: 512k
# (``View.random_legal_card`` makes its table of 512 x 9 ranks on first use:
# about 45 KB on the 64-bit unix port, more than the default heap spares)
from random_deals import Lcg, new_session

from tapp import errors as E
from tapp.cards import (
    CARD_BIT,
    CARD_CODES,
    CARD_SUIT,
    CODE_INDEX,
    DECKS,
    LOWEST_BIT,
    mask_cards,
    mask_count,
)
from tapp.dealing import TALON, deal_out, receivers
from tapp.rules import Rules
from tapp.variants import HeaderError

CASES = (("wuerttemberg", 3), ("tapp_modern", 4), ("haferltarock", 4), ("herzblatt", 5),
         ("scharfer_tarock", 3), ("braun_solo", 3))


def _random_card(view, masks, rng):
    n = view.legal_masks(masks)
    k = rng.below(n)
    s = 0
    while True:
        m = masks[s]
        while m:
            if not k:
                return s * 9 + LOWEST_BIT[m]
            k -= 1
            m &= m - 1
        s += 1


def _bid_event(seat, b):
    """The ``bid`` event dict of ``Session.bid(seat, *b)``."""
    ev = {"ev": "bid", "seat": seat, "call": b[0]}
    for key, v in (("contract", b[1]), ("trump", b[2]), ("value", b[3])):
        if v is not None:
            ev[key] = v
    return ev


def _play_deal(s, rng, twin=None, ints=False):
    """One random deal: calls through ``apply``, cards through ``play`` (the
    deal through ``deal`` and the calls through ``bid`` if ``ints``); the twin
    gets the very same inputs as event dicts.  Returns the result."""
    view = s.view
    cards = list(s.view.deck_cards())
    rng.shuffle(cards)
    hands, talon = deal_out(s.rules, view.dealer(), [CARD_CODES[c] for c in cards])
    events = [{"ev": "deal", "dealer": view.dealer(), "hands": hands, "talon": talon}]
    masks = [0, 0, 0, 0]
    if ints:
        assert s.deal(view.dealer(), bytearray(cards)) == 0
    else:
        out = s.apply(events[0])
        assert out == {"ok": True}, out
    seat_of = [-1]
    while view.in_deal():
        seat = view.turn()
        expects = view.expects()
        n = view.legal_masks(masks)
        assert n == mask_count(masks)
        if expects == "card":
            drawn = view.random_legal_card(rng.bits, seat_of)
            assert seat_of[0] == seat and masks[drawn // 9] & (1 << (drawn % 9)), drawn
            card = _random_card(view, masks, rng)
            assert s.play(seat, card) == 0
            events.append({"ev": "play", "seat": seat, "card": CARD_CODES[card]})
            continue
        if expects in ("call", "declare") and ints:
            bids = view.legal_bids()
            assert [_bid_event(seat, b) for b in bids] == view.legal_calls()
            b = rng.choice(bids)
            assert s.bid(seat, *b) == 0, b
            events.append(_bid_event(seat, b))
            continue
        if expects == "discard" and ints:
            pool = [0, 0, 0, 0]
            n = view.discard_pool(pool)
            assert mask_cards(pool) == sorted(
                CARD_CODES.index(c) for c in view.hand(seat) + view.talon())
            assert n == mask_count(pool) == s.rules.hand_size + s.rules.talon_size
            cards = mask_cards(pool)
            discard = bytes(cards[rng.below(len(cards) - 2):][:view.talon_size()])
            assert s.exchange(seat, discard) == 0
            events.append({"ev": "exchange", "seat": seat,
                           "discard": [CARD_CODES[c] for c in discard]})
            continue
        if expects in ("call", "declare"):
            ev = rng.choice(view.legal_calls())
        elif expects == "discard":
            ev = {"ev": "exchange", "seat": seat,
                  "discard": (view.hand(seat) + view.talon())[:s.rules.talon_size]}
        else:
            own = view.hand(seat)
            called = [CARD_CODES[c] for c in list(s.view.deck_cards())
                      if CARD_CODES[c] not in own][0]
            ev = {"ev": "rufer", "seat": seat, "card": called,
                  "give": None if called in view.talon() else own[0]}
        out = s.apply(ev)
        assert out["ok"], (ev, out)
        events.append(ev)
    if twin is not None:
        for ev in events:
            last = twin.apply(ev)
            assert last["ok"], (ev, last)
        assert last["result"] == view.last_result(), (last, view.last_result())
    return view.last_result()


def test_whole_deals_through_play_settle_and_rotate():
    """``Session.play`` logs, settles and rotates exactly like ``play`` events."""
    for variant, players in CASES:
        s = new_session(variant, players)
        twin = new_session(variant, players)
        rng = Lcg(7)
        for k in range(3):
            if s.view.session_over():
                break
            dealer = s.view.dealer()
            result = _play_deal(s, rng, twin)
            assert s.view.deals_played() == k + 1
            assert result["next_dealer"] == s.view.dealer() == s.rules.next_of(dealer)
            assert result["balances"] == s.view.balances() == twin.view.balances()
            assert result["pot_total"] == s.view.pot()
            # the old dealer may not deal again (docs/record-format.md convention 4)
            if not s.view.session_over():
                stale = s.apply({"ev": "deal", "dealer": dealer, "hands": None, "talon": None})
                assert stale == {"ok": False, "error": "bad_event"}, stale


def test_deal_door_is_the_deal_event():
    """``Session.deal`` (card ints in dealing order) gives the hands, talon and
    outcomes of the ``deal`` event with those cards dealt out, deal after deal."""
    for variant, players in CASES:
        s = new_session(variant, players)
        twin = new_session(variant, players)
        rng = Lcg(11)
        for _ in range(2):
            if s.view.session_over():
                break
            _play_deal(s, rng, twin, ints=True)
            assert s.view.balances() == twin.view.balances()
        cards = list(s.view.deck_cards())
        rng.shuffle(cards)
        dealer = s.view.dealer()
        hands, talon = deal_out(s.rules, dealer, [CARD_CODES[c] for c in cards])
        if s.view.session_over():
            continue
        assert s.deal(dealer, list(cards)) == 0      # a list does as well as bytes
        assert twin.apply({"ev": "deal", "dealer": dealer, "hands": hands,
                           "talon": talon}) == {"ok": True}
        for seat in range(players):
            assert s.view.hand(seat) == twin.view.hand(seat), (variant, seat)
        assert s.view.talon() == twin.view.talon()
        assert s.view.turn() == twin.view.turn() and s.view.expects() == "call"


def test_deal_door_refuses_like_the_deal_event():
    """Every refusal of ``Session.deal`` is the error of the same deal as an
    event, and changes nothing."""
    s = new_session("tapp_modern", 4, options={"pack": 32})
    twin = new_session("tapp_modern", 4, options={"pack": 32})
    good = list(s.view.deck_cards())
    Lcg(5).shuffle(good)

    def with_card(i, c):
        cards = list(good)
        cards[i] = c
        return cards

    cases = (   # (dealer, cards, the error)
        (1, good, "bad_event"),                   # not this dealer's turn to deal
        (0, good[:-1], "bad_event"),              # a card short
        (0, good + [8], "bad_event"),             # a card too many
        (0, with_card(5, good[20]), "card_used"),
        (0, with_card(30, good[2]), "card_used"),
        (0, with_card(7, 8), "not_in_deck"),      # the Six of clubs: not in a 32-card pack
        (0, with_card(3, 36), "unknown_card"),
        (0, with_card(3, -1), "unknown_card"),
        (0, with_card(3, "CA"), "bad_event"),
        (0, with_card(3, True), "bad_event"),
        (0, 32, "bad_event"),
        (0, "CA", "bad_event"),
    )
    for dealer, cards, error in cases:
        err = s.deal(dealer, cards)
        assert E.NAMES[err] == error, (cards, E.NAMES[err], error)
        assert not s.view.in_deal() and s.view.dealer() == 0
        if isinstance(cards, list) and len(cards) == len(good):
            codes = [None if not isinstance(c, int) or isinstance(c, bool)
                     else CARD_CODES[c] if 0 <= c < 36 else "X" for c in cards]
            hands, talon = deal_out(twin.rules, 0, codes)
            out = twin.apply({"ev": "deal", "dealer": dealer, "hands": hands, "talon": talon})
            assert out["error"] == error, (out, error)
        if isinstance(cards, list) and all(
                isinstance(c, int) and not isinstance(c, bool) and 0 <= c < 256
                for c in cards):
            assert E.NAMES[s.deal(dealer, bytes(cards))] == error      # bytes alike
    assert s.deal(0, bytes(good)) == 0
    assert E.NAMES[s.deal(0, bytes(good))] == "wrong_phase"       # a deal in progress
    o = new_session("tapp_modern", 3, mode="open")
    assert E.NAMES[o.deal(0, bytes(mask_cards(DECKS["d36"])))] == "bad_event"


def test_bid_door_with_self_raises_and_declarations():
    """``Session.bid`` through Haferl self-raises (D28) and trump declarations:
    the twin fed the same calls as events ends in the same results."""
    for options in ({"self_raise": True}, {"self_raise": True, "herz_neischaugn": True}):
        s = new_session("haferltarock", 3, options=options)
        twin = new_session("haferltarock", 3, options=options)
        rng = Lcg(21)
        raised = 0
        for _ in range(12):
            if s.view.session_over():
                break
            _play_deal(s, rng, twin, ints=True)
            raised += s.view.last_result()["target"] not in (None, 61)
            assert s.view.balances() == twin.view.balances()
        assert raised, options


def _dealt_twins(variant, seed):
    """Two 3-player sessions with the same deck shuffled by ``seed`` dealt by
    seat 0: one through ``Session.deal``, its twin by the ``deal`` event."""
    s = new_session(variant, 3)
    twin = new_session(variant, 3)
    cards = mask_cards(DECKS["d36"])
    Lcg(seed).shuffle(cards)
    assert s.deal(0, bytes(cards)) == 0
    hands, talon = deal_out(twin.rules, 0, [CARD_CODES[c] for c in cards])
    assert twin.apply({"ev": "deal", "dealer": 0, "hands": hands, "talon": talon})["ok"]
    return s, twin


def test_bid_door_refuses_like_the_bid_event():
    """Every refusal of ``Session.bid`` is the error of the same ``bid`` event,
    and changes nothing."""
    assert E.NAMES[new_session("tapp_modern", 3).bid(0, "weg")] == "wrong_phase"  # no deal
    s, twin = _dealt_twins("tapp_modern", 4)
    seat = s.view.turn()
    other = (seat + 1) % 3
    cases = (
        (seat, "spiele", "bogus", None, None),
        (seat, "spiele", None, "X", None),
        (seat, "spiele", 5, None, None),
        (seat, 7, None, None, None),
        (True, "spiele", None, None, None),
        (-1, "spiele", None, None, None),
        (3, "spiele", None, None, None),
        ("0", "spiele", None, None, None),
        (other, "spiele", None, None, None),
        (seat, "hold", None, None, None),
        (seat, "declare", "frage", None, None),
        (seat, "raise", None, None, 70),
    )
    for b in cases:
        ev = {"ev": "bid", "seat": b[0], "call": b[1]}
        for key, v in (("contract", b[2]), ("trump", b[3]), ("value", b[4])):
            if v is not None:
                ev[key] = v
        want = twin.apply(ev)["error"]
        assert E.NAMES[s.bid(*b)] == want, (b, want)
        assert s.view.turn() == seat and s.view.expects() == "call"
    assert s.bid(seat, "spiele") == 0 and s.view.turn() != seat


def _at_exchange():
    """A Württemberg deal through the doors up to the Frage declarer's
    discards; (session, its twin fed the same events, declarer)."""
    s, twin = _dealt_twins("wuerttemberg", 9)
    decl = s.view.turn()
    b = (decl, "bid", "frage")
    while True:
        assert s.bid(*b) == 0, b
        assert twin.apply(_bid_event(b[0], b[1:] + (None,) * (5 - len(b))))["ok"]
        if s.view.expects() != "call":
            break
        b = (s.view.turn(), "pass")
    assert s.view.expects() == "discard" and s.view.declarer() == decl
    return s, twin, decl


def test_exchange_door_refuses_like_the_exchange_event():
    """Every refusal of ``Session.exchange`` is the error of the same
    ``exchange`` event (card ints as codes), and changes nothing; then the
    accepted discards leave both sessions alike."""
    s, twin, decl = _at_exchange()
    pool = [0, 0, 0, 0]
    assert s.view.discard_pool(pool) == 14
    own = mask_cards(pool)
    other_hand = [CARD_CODES.index(c) for c in twin.view.hand((decl + 1) % 3)]
    outside = [c for c in range(36) if not DECKS["d36"][c // 9] & 1 << (c % 9)]
    cases = [
        (decl, own[:2]), (decl, own[:4]), (decl, own[:1] * 3), (decl, []),
        (decl, own[:2] + [other_hand[0]]), (decl, own[:2] + [36]), (decl, own[:2] + [-1]),
        (decl, own[:2] + ["x"]), (decl, "abc"), (decl, None), (decl, 5),
        ((decl + 1) % 3, own[:3]), (True, own[:3]), (7, own[:3]), ("0", own[:3]),
    ]
    if outside:
        cases.append((decl, own[:2] + outside[:1]))
    for seat, discard in cases:
        codes = discard
        if isinstance(discard, list):
            codes = [CARD_CODES[c] if isinstance(c, int) and 0 <= c < 36 else
                     ("?" if isinstance(c, int) else None) for c in discard]
        want = twin.apply({"ev": "exchange", "seat": seat, "discard": codes})
        got = s.exchange(seat, discard)
        assert not want["ok"] and E.NAMES[got] == want["error"], (seat, discard, want)
        assert s.view.expects() == "discard" and s.view.discard_pool(pool) == 14
    assert s.exchange(decl, bytearray(own[-3:])) == 0
    assert twin.apply({"ev": "exchange", "seat": decl,
                       "discard": [CARD_CODES[c] for c in own[-3:]]})["ok"]
    assert s.view.talon() == twin.view.talon() and s.view.hand(decl) == twin.view.hand(decl)
    assert s.view.discard_pool(pool) == 0 and pool == [0, 0, 0, 0]
    assert E.NAMES[s.exchange(decl, own[:3])] == "wrong_phase"


def test_undo_replays_an_exchange_made_by_the_exchange_door():
    """Undo takes back discards made through ``Session.exchange``, and replays
    them when a later call is taken back."""
    s, _, decl = _at_exchange()
    view = s.view
    pool = [0, 0, 0, 0]
    view.discard_pool(pool)
    hand = view.hand(decl)
    discard = bytes(mask_cards(pool)[:3])
    assert s.exchange(decl, discard) == 0
    after = view.hand(decl)
    assert view.expects() != "discard"
    assert s.apply({"ev": "undo"}) == {"ok": True}
    assert view.expects() == "discard" and view.hand(decl) == hand
    assert s.exchange(decl, list(discard)) == 0 and view.hand(decl) == after
    if view.expects() == "declare":
        trump = view.legal_bids()[0]
        assert s.bid(decl, *trump) == 0
        assert s.apply({"ev": "undo"}) == {"ok": True}
        assert view.expects() == "declare" and view.hand(decl) == after


def test_undo_replays_calls_made_by_the_bid_door():
    """Undo takes back a call made through ``Session.bid``; a redundant declare
    through it is a no-op that undo takes back first (convention 6)."""
    s = new_session("wuerttemberg", 3)
    view = s.view
    cards = mask_cards(DECKS["d36"])
    Lcg(2).shuffle(cards)
    assert s.deal(0, bytes(cards)) == 0
    first = view.turn()
    assert s.bid(first, "bid", "solo") == 0
    while view.expects() == "call":
        assert s.bid(view.turn(), "pass") == 0
    decl = view.declarer()
    assert decl == first and view.expects() == "card" and view.contract() == "solo"
    assert s.bid(decl, "declare", "solo") == 0          # repeats what is fixed
    assert s.apply({"ev": "undo"}) == {"ok": True}       # the no-op
    assert view.expects() == "card"
    assert s.apply({"ev": "undo"}) == {"ok": True}       # the last pass
    assert view.expects() == "call" and view.contract() is None
    while view.expects() == "call":
        assert s.bid(view.turn(), "pass") == 0
    assert view.declarer() == first and view.contract() == "solo"


def test_legal_masks_allocate_nothing():
    """``view.legal_masks`` answers without allocating (heap locked; under the
    unix port ``micropython.mem_total()`` stays flat: no VM frame either)."""
    try:
        import micropython
    except ImportError:  # CPython
        micropython = None
    mem_total = getattr(micropython, "mem_total", None)
    s = new_session("wuerttemberg", 3)
    rng = Lcg(13)
    cards = mask_cards(DECKS["d36"])
    rng.shuffle(cards)
    assert s.deal(0, bytes(cards)) == 0
    view = s.view
    while view.expects() == "call":
        assert s.bid(view.turn(), *view.legal_bids()[-1]) == 0   # bid up, then pass
    if view.expects() == "discard":
        assert s.apply({"ev": "exchange", "seat": view.declarer(),
                        "discard": view.talon()})["ok"]
    masks = [0, 0, 0, 0]
    grew = 0
    while view.expects() == "card":
        m0 = mem_total() if mem_total else 0
        if micropython is not None:
            micropython.heap_lock()
        try:
            n = view.legal_masks(masks)
        finally:
            if micropython is not None:
                micropython.heap_unlock()
        grew += (mem_total() if mem_total else 0) - m0
        assert n > 0 and n == mask_count(masks)
        assert s.play(view.turn(), _random_card(view, masks, rng)) == 0
    assert grew == 0 and view.legal_masks(masks) == 0 and masks == [0, 0, 0, 0]


def _hand_masks(codes):
    """A hand of card codes as 4 suit masks (what ``hand_legal_masks`` takes)."""
    h = [0, 0, 0, 0]
    for code in codes:
        c = CODE_INDEX[code]
        h[CARD_SUIT[c]] |= CARD_BIT[c]
    return h


def _open_twin_event(ev):
    """``ev`` of a strict deal as an open-mode table journals it: the cards lie
    face down (no hands, no talon), the discards are put aside unseen."""
    if ev["ev"] == "deal":
        return {"ev": "deal", "dealer": ev["dealer"], "hands": None, "talon": None}
    if ev["ev"] == "exchange":
        return {"ev": "exchange", "seat": ev["seat"], "discard": None}
    return ev


def test_hand_legal_masks_answer_in_open_mode_too():
    """Open mode: the engine does not know the hands, so ``legal_masks`` names
    nothing; ``hand_legal_masks`` with the hand its owner holds names exactly
    the cards a strict twin of the same deal allows (the over-trump duty of
    herzblatt too), with the heap locked and ``mem_total`` flat."""
    try:
        import micropython
    except ImportError:  # CPython
        micropython = None
    mem_total = getattr(micropython, "mem_total", None)
    grew = 0
    turns = 0
    for variant, players in (("wuerttemberg", 3), ("herzblatt", 3), ("herzblatt", 5)):
        for seed in (3, 4):
            s = new_session(variant, players)
            o = new_session(variant, players, mode="open")
            rng = Lcg(seed)
            cards = list(s.view.deck_cards())
            rng.shuffle(cards)
            hands, talon = deal_out(s.rules, 0, [CARD_CODES[c] for c in cards])
            ev = {"ev": "deal", "dealer": 0, "hands": hands, "talon": talon}
            sv, ov = s.view, o.view
            want, got = [0, 0, 0, 0], [0, 0, 0, 0]
            while True:
                assert s.apply(ev)["ok"] and o.apply(_open_twin_event(ev))["ok"], ev
                if not sv.in_deal():
                    break
                if sv.expects() == "card":
                    seat = sv.turn()
                    n = sv.legal_masks(want)
                    hand = _hand_masks(sv.hand(seat))
                    assert ov.legal_masks(got) == 0       # open: the engine cannot tell
                    m0 = mem_total() if mem_total else 0
                    if micropython is not None:
                        micropython.heap_lock()
                    try:
                        k = ov.hand_legal_masks(hand, got)
                    finally:
                        if micropython is not None:
                            micropython.heap_unlock()
                    grew += (mem_total() if mem_total else 0) - m0
                    assert (k, got) == (n, want), (variant, seed, sv.trick(), hand)
                    turns += 1
                    ev = {"ev": "play", "seat": seat,
                          "card": CARD_CODES[_random_card(sv, want, rng)]}
                elif sv.expects() == "discard":
                    ev = {"ev": "exchange", "seat": sv.declarer(), "discard": sv.talon()}
                else:
                    ev = [c for c in sv.legal_calls() if c["call"] != "raise"][0]
            assert ov.hand_legal_masks([1, 1, 1, 1], got) == 0 and got == [0, 0, 0, 0]
    assert grew == 0 and turns > 50, turns


def test_undo_replays_a_deal_made_by_the_deal_door():
    s = new_session("wuerttemberg", 3)
    view = s.view
    cards = mask_cards(DECKS["d36"])
    Lcg(9).shuffle(cards)
    assert s.deal(0, bytearray(cards)) == 0
    hands = [view.hand(seat) for seat in range(3)]
    seat = view.turn()
    assert s.apply({"ev": "bid", "seat": seat, "call": "pass"})["ok"]
    assert s.apply({"ev": "undo"}) == {"ok": True}
    assert view.turn() == seat and view.expects() == "call"
    assert [view.hand(seat) for seat in range(3)] == hands
    assert s.apply({"ev": "undo"}) == {"ok": True}          # now the deal itself
    assert not view.in_deal() and view.expects() == "deal" and view.dealer() == 0


def test_undo_after_a_card_takes_back_the_card():
    s = new_session("wuerttemberg", 3)
    view = s.view
    rng = Lcg(3)
    masks = [0, 0, 0, 0]
    while True:
        cards = list(s.view.deck_cards())
        rng.shuffle(cards)
        hands, talon = deal_out(s.rules, view.dealer(), [CARD_CODES[c] for c in cards])
        s.apply({"ev": "deal", "dealer": view.dealer(), "hands": hands, "talon": talon})
        s.apply({"ev": "bid", "seat": view.turn(), "call": "bid", "contract": "frage"})
        while view.expects() == "call":
            s.apply({"ev": "bid", "seat": view.turn(), "call": "pass"})
        if view.expects() == "discard":
            break
        s.apply({"ev": "redeal", "reason": "test"})
    decl = view.declarer()
    assert s.apply({"ev": "exchange", "seat": decl, "discard": view.talon()})["ok"]
    seat = view.turn()
    card = _random_card(view, masks, rng)
    assert s.play(seat, card) == 0 and view.trick_size() == 1
    assert s.apply({"ev": "undo"}) == {"ok": True}
    assert view.expects() == "card" and view.trick_size() == 0 and view.turn() == seat
    assert s.apply({"ev": "undo"}) == {"ok": True}          # now the exchange
    assert view.expects() == "discard"


def test_redundant_declares_do_not_grow_the_state():
    """docs/record-format.md convention 6: accepted, nothing changes, nothing is logged;
    each undo of one is O(1), then undo takes back the real event before."""
    s = new_session("wuerttemberg", 3)
    view = s.view
    hands, talon = deal_out(s.rules, 0, [CARD_CODES[c] for c in mask_cards(DECKS["d36"])])
    s.apply({"ev": "deal", "dealer": 0, "hands": hands, "talon": talon})
    s.apply({"ev": "bid", "seat": view.turn(), "call": "bid", "contract": "solo"})
    while view.expects() == "call":
        s.apply({"ev": "bid", "seat": view.turn(), "call": "pass"})
    decl = view.declarer()
    assert view.expects() == "card" and view.contract() == "solo"
    declare = {"ev": "bid", "seat": decl, "call": "declare", "contract": "solo"}
    for _ in range(300):
        assert s.apply(declare) == {"ok": True}
    for _ in range(300):
        assert s.apply({"ev": "undo"}) == {"ok": True}
        assert view.contract() == "solo"
    assert s.apply({"ev": "undo"}) == {"ok": True}     # the last pass
    assert view.expects() == "call"


def test_view_answers_are_copies():
    s = new_session("tapp_modern", 3)
    hands, talon = deal_out(s.rules, 0, [CARD_CODES[c] for c in mask_cards(DECKS["d36"])])
    s.apply({"ev": "deal", "dealer": 0, "hands": hands, "talon": talon})
    view = s.view
    seat = view.turn()
    view.hand(seat).clear()
    view.balances()[0] = 999
    view.legal_calls().clear()
    assert len(view.hand(seat)) == s.rules.hand_size
    assert view.balances()[0] == 0 and view.legal_calls()
    assert view.phase() == "auction" and view.expects() == "call"


def test_dealing_helper_follows_the_packet_order():
    for variant, players in CASES:
        rules = Rules({"record": 1, "variant": variant, "players": players, "first_dealer": 0})
        seats = receivers(rules, 1)
        assert len(seats) == mask_count(DECKS[rules.deck])
        assert seats.count(TALON) == rules.talon_size
        for seat in rules.active_order(1):
            assert seats.count(seat) == rules.hand_size
        hands, talon = deal_out(rules, 1, list(range(len(seats))))
        assert sorted(sum(hands, []) + talon) == list(range(len(seats)))
    # tapp_modern, 3 players: 4 to each from forehand (seat 2: direction -1), then 3, tapp 3, 4
    rules = Rules({"record": 1, "variant": "tapp_modern", "players": 3, "first_dealer": 0})
    assert receivers(rules, 0)[:13] == [2] * 4 + [1] * 4 + [0] * 4 + [2]


# ----- the three clarifications (docs/rules 3.3/3.4, 2.12, 2.7) ---------------------------

def _replay(header, events):
    s = new_session(**header)
    outs = [s.apply(ev) for ev in events]
    for out in outs:
        assert out["ok"], outs
    return outs


def _plays(seats_cards):
    return [{"ev": "play", "seat": int(x[0]), "card": x[1:]} for x in seats_cards.split()]


def test_one_card_proving_two_revokes_names_the_earliest():
    """Herzblatt, 2 players, open.  Trick 4: Bert leads H10, Anna plays HK below
    it (asserting no trump above the Ten: over-trump duty).  Trick 5: on Bert's
    CK she throws SK (asserting no clubs and no hearts).  Her HA then proves
    both a must_trump (trick 5) and a must_overtrump (trick 4): the earliest
    offence is named (docs/rules 3.3)."""
    events = [{"ev": "deal", "dealer": 1, "hands": None, "talon": None},
              {"ev": "bid", "seat": 0, "call": "spiele"},
              {"ev": "exchange", "seat": 0, "discard": ["DQ", "DJ"]}]
    events += _plays("0CA 1CJ 0C10 1CQ 0HJ 1HQ 1H10 0HK 1CK 0SK 1SQ 0SA 0HA")
    outs = _replay({"variant": "herzblatt", "players": 2, "first_dealer": 1, "mode": "open"},
                   events)
    assert outs[-1]["revoke"] == {"seat": 0, "trick": 4, "rule": "must_overtrump"}


def test_braun_solo_last_trick_game_revoke_offender_pays_everyone():
    events = [{"ev": "deal", "dealer": 0, "hands": None, "talon": None}]
    events += [{"ev": "bid", "seat": s, "call": "pass"} for s in (1, 2, 0)]
    events += _plays("1CA 2C8 0S9 1HA 2C9 0H10 1D10 2S8 0D9 1S10 2SJ 0SA 0DK 1DQ 2H9 "
                     "0SK 1CQ 2HJ 0SQ 1CK 2HQ 0DJ 1HK 2C10")
    outs = _replay({"variant": "braun_solo", "players": 3, "first_dealer": 0, "mode": "open",
                    "options": {"all_pass": "last_trick"}}, events)
    result = outs[-1]["result"]
    assert result["payments"] == [10, 10, -20]
    assert result["penalty"] == {"seat": 2, "trick": 2, "rule": "must_follow"}


def test_berliner_hearts_without_berliner_is_a_bad_header():
    try:
        new_session("haferltarock", 3, options={"berliner_hearts": True})
    except HeaderError as exc:
        assert "berliner_hearts" in str(exc) and "berliner" in str(exc)
    else:
        raise AssertionError("berliner_hearts without berliner was accepted")
    new_session("berliner", 3, options={"berliner_hearts": True})   # the preset: fine


def test_a_middle_over_trump_claim_is_not_forgotten():
    """Herzblatt, 5 players, open: Bert plays H9 under H10 (trick 1), H8 under
    HQ (trick 2) and H7 under HJ (trick 3), then HK at trick 4.  HK proves the
    claims of tricks 2 and 3 (not trick 1: HK is below the Ten); the earliest
    proven one, trick 2, is the revoke (docs/rules 3.3)."""
    events = [{"ev": "deal", "dealer": 4, "hands": None, "talon": None},
              {"ev": "bid", "seat": 0, "call": "spiele"},
              {"ev": "exchange", "seat": 0, "discard": None}]
    events += _plays("0H10 1H9 2C8 3S8 4D9 0HQ 1H8 2C9 3S9 4D10 0HJ 1H7 2C10 3S10 4DJ "
                     "0HA 1HK")
    outs = _replay({"variant": "herzblatt", "players": 5, "first_dealer": 4, "mode": "open"},
                   events)
    assert outs[-1]["revoke"] == {"seat": 1, "trick": 2, "rule": "must_overtrump"}


def test_every_error_has_a_name_and_a_message():
    """Each code has its own word; its texts (the display's lines, the
    console's message) are the table's one store's, by the word, in every VM."""
    from table import messages, texts
    from tapp import errors as E
    assert len(E.NAMES) == len(set(E.NAMES)) == E.BAD_EVENT + 1
    for code in range(len(E.NAMES)):
        assert messages.message("e_" + E.NAMES[code])
        assert texts.error_text(code, "en") == texts.text("e_" + E.NAMES[code], "en")
    assert messages.message("e_must_follow") == "Farbe bedienen! Follow the suit that was led"
    said = messages.message("e_must_overtrump")
    assert said == "\u00dcbertrumpfen! A higher trump must be played"


def test_player_is_play_bound_to_the_deal():
    """``Session.player()``: the deal's card door -- the outcomes of ``play``
    events (a twin gets them), nothing allocated but by the card that ends
    the deal (it settles), every card refused once the deal is over."""
    try:
        import micropython
    except ImportError:  # CPython
        micropython = None
    mem_total = getattr(micropython, "mem_total", None)
    for variant, players in (("wuerttemberg", 3), ("haferltarock", 4)):
        s = new_session(variant, players)
        twin = new_session(variant, players)
        rng = Lcg(21)
        cards = list(s.view.deck_cards())
        rng.shuffle(cards)
        hands, talon = deal_out(s.rules, 0, [CARD_CODES[c] for c in cards])
        ev = {"ev": "deal", "dealer": 0, "hands": hands, "talon": talon}
        assert s.apply(ev)["ok"] and twin.apply(ev)["ok"]
        view = s.view
        while view.expects() in ("call", "declare", "discard"):
            seat = view.turn()
            if view.expects() == "discard":
                ev = {"ev": "exchange", "seat": seat, "discard": view.talon()}
                assert s.apply(ev)["ok"] and twin.apply(ev)["ok"]
                continue
            b = [b for b in view.legal_bids() if b[0] != "raise"][-1]   # bid up, then pass
            assert s.bid(seat, *b) == 0 and twin.apply(_bid_event(seat, b))["ok"]
        if view.expects() != "card":
            continue                    # thrown in
        f = s.player()
        masks = [0, 0, 0, 0]
        grew = 0
        while view.expects() == "card":
            seat = view.turn()
            card = _random_card(view, masks, rng)
            m0 = mem_total() if mem_total else 0
            err = f(seat, card)
            m1 = mem_total() if mem_total else 0
            assert err == 0
            if view.expects() == "card":
                grew += m1 - m0
            last = twin.apply({"ev": "play", "seat": seat, "card": CARD_CODES[card]})
            assert last["ok"], last
        assert grew == 0
        assert last["result"] == view.last_result(), (last, view.last_result())
        assert view.balances() == twin.view.balances() and view.dealer() == twin.view.dealer()
        assert f(seat, card) == E.WRONG_PHASE


def _accepted_cards(events, s, seat):
    """The cards of ``seat``'s hand that ``Session.play`` accepts now, each tried
    on a session fed ``events`` (so nothing is undone in ``s``); the error code
    of each refused one."""
    accepted = []
    refused = {}
    for code in s.view.hand(seat):
        card = CARD_CODES.index(code)
        t = new_session(s.rules.variant, s.rules.players)
        for ev in events:
            assert t.apply(ev)["ok"], ev
        err = t.play(seat, card)
        if err:
            refused[card] = err
        else:
            accepted.append(card)
    return accepted, refused


def _check_a_deal_card_by_card(variant, players, seed):
    """One random deal of ``variant``, every card turn checked against what
    ``play`` accepts (``_accepted_cards``); the number of card turns."""
    duties = (E.MUST_FOLLOW, E.MUST_TRUMP, E.MUST_OVERTRUMP)
    s = new_session(variant, players)
    rng = Lcg(seed)
    cards = list(s.view.deck_cards())
    rng.shuffle(cards)
    hands, talon = deal_out(s.rules, 0, [CARD_CODES[c] for c in cards])
    events = [{"ev": "deal", "dealer": 0, "hands": hands, "talon": talon}]
    assert s.apply(events[0]) == {"ok": True}
    view = s.view
    masks = [0, 0, 0, 0]
    held = [0, 0, 0, 0]
    turns = 0
    while view.in_deal():
        seat = view.turn()
        if view.expects() != "card":
            assert view.random_legal_card(rng.bits, [-1]) == -1     # no card now
            if view.expects() == "discard":
                ev = {"ev": "exchange", "seat": seat, "discard": view.talon()}
            elif view.expects() == "rufer":
                own = view.hand(seat)
                called = [CARD_CODES[c] for c in list(s.view.deck_cards())
                          if CARD_CODES[c] not in own][0]
                ev = {"ev": "rufer", "seat": seat, "card": called,
                      "give": None if called in view.talon() else own[0]}
            else:
                ev = rng.choice([c for c in view.legal_calls() if c["call"] != "raise"])
            events.append(ev)
            assert s.apply(ev)["ok"], ev
            continue
        n = view.legal_masks(masks)
        assert view.hand_legal_masks(_hand_masks(view.hand(seat)), held) == n \
            and held == masks                       # the hand's own question agrees
        accepted, refused = _accepted_cards(events, s, seat)
        assert sorted(accepted) == mask_cards(masks) and n == len(accepted), (
            variant, events, accepted, mask_cards(masks))
        # the robot's draw names the same cards: each of them, and only them
        seat_of = [-1]
        drawn = set()
        for _ in range(30 * n):
            drawn.add(view.random_legal_card(rng.bits, seat_of))
            assert seat_of[0] == seat
        assert sorted(drawn) == sorted(accepted), (variant, sorted(drawn), accepted)
        for card in refused:
            assert refused[card] in duties, (variant, CARD_CODES[card], refused[card])
            assert s.play(seat, card) == refused[card]      # refused: nothing changed
        card = _random_card(view, masks, rng)
        assert s.play(seat, card) == 0
        events.append({"ev": "play", "seat": seat, "card": CARD_CODES[card]})
        turns += 1
    return turns


def test_legal_masks_are_exactly_the_cards_play_accepts():
    """The view works the legal cards out from the hands when asked and
    ``play`` checks each card on its own (a fast path for a card that follows
    suit): for every card turn of random deals, the masks hold exactly the
    cards of the hand that play accepts, ``random_legal_card`` draws each of
    them and no other, and each other card is refused by a duty (herzblatt:
    the over-trump duty too)."""
    for variant, players in CASES + (("herzblatt", 3),):
        played = 0
        seed = 5
        while played < 2:           # two deals with cards (a deal may be thrown in)
            if _check_a_deal_card_by_card(variant, players, seed):
                played += 1
            seed += 1
            assert seed < 40, variant
