"""The view's questions the table's screens ask one by one, allocation-free:
the calls of the auction (``calls_made``/``call_made``), the proven revokes
(``revoke_count``/``revoke_seat``/``revoke_trick``/``revoke_rule``), the last
trick card by card (``last_trick_card``/``last_trick_seat``), the score
sheet deal by deal (``deal_payment``), the Rufer call (``rufer_call``) and
what undo takes back (``undo_kind``/``undo_seat``/``undo_card``) -- each checked against the answers
that build lists and dicts (``revokes``, ``last_trick``, ``last_result``)
and the events given, and read with the heap locked; and what the table asks
of the variant instead of the engine's rules (``seat_names``, ``strict``,
``hand_size``, ``deck_cards``, the dealing order).

Runs under CPython (pytest collects it through tests/mp/) and inside both
MicroPython VMs (tests/test_micropython.py).
"""
from random_deals import Lcg, new_session

from tapp.cards import CARD_CODES, CODE_INDEX, mask_cards

try:
    import micropython
except ImportError:  # CPython
    micropython = None


def _locked(fn):
    """``fn()`` with the heap locked (MicroPython); its answer."""
    if micropython is not None:
        micropython.heap_lock()
    try:
        return fn()
    finally:
        if micropython is not None:
            micropython.heap_unlock()


def _strict_deal(s, seed):
    cards = list(s.view.deck_cards())
    Lcg(seed).shuffle(cards)
    assert s.deal(s.view.dealer(), bytes(cards)) == 0


def test_the_calls_are_told_in_order_and_gone_with_the_deal():
    s = new_session("wuerttemberg", 3)
    view = s.view
    _strict_deal(s, 3)
    said = []
    while view.expects() == "call":
        seat = view.turn()
        bid = view.legal_bids()[-1] if not said else ("pass", None, None, None)
        assert s.bid(seat, *bid) == 0
        said.append((seat, bid[0], bid[1]))
        assert _locked(view.calls_made) == len(said)
        assert _locked(lambda s=seat: view.last_call_of(s)) == len(said) - 1
    for seat in range(3):                          # each seat's last call, or none
        mine = [k for k, c in enumerate(said) if c[0] == seat]
        assert view.last_call_of(seat) == (mine[-1] if mine else -1)
    k = [0]
    got = []

    def read():
        c = view.call_made(k[0])
        return c

    while k[0] < len(said):
        c = _locked(read)
        got.append((c[1], c[2], c[3]))
        assert c[0] == "bid"
        k[0] += 1
    assert got == said
    assert view.call_made(len(said)) is None
    assert s.apply({"ev": "undo"})["ok"]          # the last call taken back
    assert view.calls_made() == len(said) - 1
    while view.in_deal():                          # play the deal out
        if view.expects() == "discard":
            assert s.apply({"ev": "exchange", "seat": view.declarer(),
                            "discard": view.talon()})["ok"]
        elif view.expects() == "call":
            assert s.bid(view.turn(), "pass") == 0
        else:
            assert s.play(view.turn(), _first_legal(view)) == 0
    assert view.calls_made() == 0 and view.last_call_of(said[0][0]) == -1


def _first_legal(view):
    masks = [0, 0, 0, 0]
    view.legal_masks(masks)
    return mask_cards(masks)[0]


def test_last_trick_and_deal_payments_agree_with_the_dicts():
    s = new_session("tapp_modern", 4)
    view = s.view
    assert view.last_trick_card(0) == -1 and view.last_trick_seat(0) == -1   # none yet
    for deal_no in range(2):
        _strict_deal(s, 11 + deal_no)
        while view.expects() == "call":
            assert s.bid(view.turn(), *view.legal_bids()[0]) == 0
        while view.in_deal():
            if view.expects() == "card":
                before = view.trick_number()
                assert s.play(view.turn(), _first_legal(view)) == 0
                if view.in_deal() and view.trick_number() != before:
                    last = view.last_trick()
                    n = len(last["cards"])
                    cards = [_locked(lambda i=i: view.last_trick_card(i)) for i in range(n)]
                    seats = [_locked(lambda i=i: view.last_trick_seat(i)) for i in range(n)]
                    assert [CARD_CODES[c] for c in cards] == last["cards"]
                    assert seats[0] == last["leader"]
                    assert sorted(seats) == sorted(view.active_seats())
            elif view.expects() in ("call", "declare", "rufer") and view.legal_calls():
                assert s.apply(view.legal_calls()[0])["ok"]
            elif view.expects() == "discard":
                assert s.apply({"ev": "exchange", "seat": view.declarer(),
                                "discard": view.talon()})["ok"]
            else:
                _rufer(s)
        r = view.last_result()
        pay = [_locked(lambda seat=seat, k=deal_no: view.deal_payment(k, seat))
               for seat in range(4)]
        assert pay == r["payments"], (pay, r)
    last = view.last_trick()          # the settled deal's last trick, as the dict
    assert CARD_CODES[view.last_trick_card(0)] == last["cards"][0]
    assert view.last_trick_seat(0) == last["leader"]
    total = [sum(view.deal_payment(k, seat) for k in range(2)) for seat in range(4)]
    start = view.balance(0) - total[0]
    assert [view.balance(seat) - total[seat] for seat in range(4)] == [start] * 4


def _rufer(s):
    """tapp_modern's Rufer: call a card the declarer lacks, give the first he holds."""
    view = s.view
    decl = view.declarer()
    own = view.hand(decl)
    talon = view.talon()
    for c in s.view.deck_cards():
        code = CARD_CODES[c]
        if code not in own:
            give = None if code in talon else own[0]
            if s.apply({"ev": "rufer", "seat": decl, "card": code, "give": give})["ok"]:
                return
    raise AssertionError("no Rufer card")


def test_revokes_one_by_one_as_the_list():
    """Open mode: a seat that showed out of the led suit and later plays it
    has revoked; the one-by-one answers are the ``revokes()`` list."""
    s = new_session("wuerttemberg", 3, mode="open")
    view = s.view
    assert s.apply({"ev": "deal", "dealer": 0, "hands": None, "talon": None})["ok"]
    while view.expects() == "call":
        bid = view.legal_bids()[-1] if view.calls_made() == 0 else ("pass", None, None, None)
        assert s.bid(view.turn(), *bid) == 0
    if view.expects() == "discard":
        assert s.apply({"ev": "exchange", "seat": view.declarer(), "discard": None})["ok"]
    # trick 1: hearts led, the second seat plays a club (asserts: no heart)
    seats = []
    for code in ("HK", "CA", "HQ"):
        seats.append(view.turn())
        assert s.apply({"ev": "play", "seat": view.turn(), "card": code})["ok"]
    offender = seats[1]
    # the offender leads or follows later with a heart: the revoke is proven
    k = 0
    while view.revoke_count() == 0 and k < 6:
        seat = view.turn()
        code = ("HA", "H8", "HJ", "H9", "H10", "H7")[k] if seat == offender else \
            ("S9", "S10", "SK", "SQ", "SA", "S8")[k]
        assert s.apply({"ev": "play", "seat": seat, "card": code})["ok"], (seat, code)
        k += 1
    assert _locked(view.revoke_count) == 1
    want = view.revokes()
    got = [{"seat": _locked(lambda: view.revoke_seat(0)),
            "trick": _locked(lambda: view.revoke_trick(0)),
            "rule": _locked(lambda: view.revoke_rule(0))}]
    assert got == want and want[0]["seat"] == offender and want[0]["trick"] == 1, want
    assert want[0]["rule"] == "must_follow"


def test_what_the_table_asks_of_the_variant_allocates_nothing():
    """The screens and the game ask the view, not the engine's rules, for the
    seats, the mode and the sizes: answers made once, read with the heap locked,
    and the same as the session's header and its deals say."""
    s = new_session("haferltarock", 4)
    view = s.view
    names = _locked(lambda: view.seat_names())
    assert names is view.seat_names() and len(names) == 4
    assert [view.seat_name(k) for k in range(4)] == list(names)
    assert _locked(lambda: view.strict()) is True
    assert _locked(lambda: view.hand_size()) == 11 and _locked(lambda: view.talon_size()) == 3
    assert _locked(lambda: view.active_count()) == 3          # the dealer sits out
    assert _locked(lambda: view.deck_cards()) is view.deck_cards()
    assert len(view.deck_cards()) == 3 * 11 + 3 == 36
    order = view.deal_order(0)
    assert len(order) == 36 and 0 not in order and order[:5] == [1, 1, 1, 1, 2]  # packets of 4
    assert view.active_order(0) == view.active_seats() == [1, 2, 3]
    hands, talon = view.deal_out(0, [CARD_CODES[c] for c in view.deck_cards()])
    assert [len(h) for h in hands] == [0, 11, 11, 11] and len(talon) == 3
    assert view.contract_ids() == ["pickup", "hand"]
    assert [view.trump_suits(c) for c in view.contract_ids()] == ["CSHD", "CSHD"]
    assert not view.ouvert()                                  # no deal yet
    t = new_session("tapp_modern", 3).view          # a suit game names C, S or D
    assert [c for c in t.contract_ids() if t.trump_suits(c)] == [
        "suit_solo", "suit_rufer", "suit_durch"]
    assert t.trump_suits("suit_solo") == "CSD" and t.trump_suits("heart_solo") == ""


def test_the_rufer_call_and_what_undo_takes_back_are_told_allocation_free():
    """The undo question names what undo takes back (``undo_kind``,
    ``undo_seat``, ``undo_card``) and the Rufer's hand-over is shown until the
    first card (``rufer_call``): answered with the heap locked, step by step
    through a Rufer deal and its undos."""
    s = new_session("tapp_modern", 3)
    view = s.view
    assert _locked(view.undo_kind) == "" and _locked(view.undo_seat) == -1
    assert _locked(lambda: view.rufer_call(0)) == -1
    _strict_deal(s, 5)
    assert _locked(view.undo_kind) == "deal" and _locked(view.undo_seat) == view.dealer()
    first = view.turn()
    assert s.bid(first, "spiele") == 0
    assert _locked(view.undo_kind) == "bid" and _locked(view.undo_seat) == first
    while view.expects() == "call" and view.turn() != first:
        assert s.bid(view.turn(), "weg") == 0
    assert s.apply({"ev": "bid", "seat": first, "call": "bid",
                    "contract": "heart_rufer"})["ok"]
    assert view.expects() == "rufer" and view.declarer() == first
    own = view.hand(first)
    talon = view.talon()
    holder = [seat for seat in view.active_seats() if seat != first][0]
    called = [c for c in view.hand(holder) if c not in own][0]
    give = own[0]
    assert s.apply({"ev": "rufer", "seat": first, "card": called, "give": give})["ok"]
    assert called not in talon
    assert [_locked(lambda k=k: view.rufer_call(k)) for k in range(3)] == [
        CODE_INDEX[called], CODE_INDEX[give], holder]
    assert _locked(view.undo_kind) == "rufer" and _locked(view.undo_seat) == first
    assert _locked(view.undo_card) == CODE_INDEX[called]
    played = []
    for _ in range(view.active_count() - 1):           # the trick but its last card
        seat = view.turn()
        card = _first_legal(view)
        assert s.play(seat, card) == 0
        played.append((seat, card))
        assert _locked(view.undo_kind) == "play"
        assert (_locked(view.undo_seat), _locked(view.undo_card)) == (seat, card)
        assert view.rufer_call(0) == CODE_INDEX[called]
    assert s.apply({"ev": "undo"})["ok"]
    assert (_locked(view.undo_seat), _locked(view.undo_card)) == played[-2]
    while _locked(view.undo_kind) == "play":
        assert s.apply({"ev": "undo"})["ok"]
    assert _locked(view.undo_kind) == "rufer"
    assert s.apply({"ev": "undo"})["ok"]
    assert _locked(lambda: view.rufer_call(0)) == -1 and view.undo_kind() == "bid"
    # a completed trick: undo takes back its last card, then the next lead
    r = new_session("tapp_modern", 3)
    view = r.view
    _strict_deal(r, 5)
    while view.expects() == "call":                    # all pass: Ramsch, played out
        assert r.bid(view.turn(), "weg") == 0
    played = []
    for _ in range(view.active_count() + 1):
        seat = view.turn()
        card = _first_legal(view)
        assert r.play(seat, card) == 0
        played.append((seat, card))
    assert (_locked(view.undo_seat), _locked(view.undo_card)) == played[-1]
    assert r.apply({"ev": "undo"})["ok"] and view.trick_size() == 0
    assert _locked(view.undo_kind) == "play"
    assert (_locked(view.undo_seat), _locked(view.undo_card)) == played[-2]
