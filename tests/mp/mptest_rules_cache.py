"""``rules_for``: a new session with the same header shares the Rules of the
last one (resolved once); any other header, and every refused one, is resolved
on its own, and what a session was given cannot change what the next one gets.

Runs under CPython (pytest collects it through tests/mp/) and inside both
MicroPython VMs (tests/test_micropython.py).
"""
from tapp.rules import rules_for
from tapp.session import Session
from tapp.variants import HeaderError


def _header(**fields):
    h = {"record": 1, "variant": "haferltarock", "players": 4, "options": {},
         "seats": ["A", "B", "C", "D"], "first_dealer": 0, "mode": "strict"}
    for k in fields:
        h[k] = fields[k]
    return h


def _refused(header):
    try:
        rules_for(header)
    except HeaderError:
        return True
    return False


def test_same_header_shares_the_rules():
    a = Session(_header())
    b = Session(_header())
    assert a.rules is b.rules
    assert a.view is not b.view


def test_other_headers_get_their_own_rules():
    a = rules_for(_header())
    three = rules_for(_header(players=3, seats=["A", "B", "C"]))
    assert three is not a and three.players == 3
    refill = rules_for(_header(options={"shortfall": "refill"}))
    assert refill.options["shortfall"] == "refill"
    again = rules_for(_header())
    assert again is not refill and again.options["shortfall"] != "refill"


def test_refused_headers_stay_refused_after_a_good_one():
    rules_for(_header())
    assert _refused(_header(players=4.0))
    assert _refused(_header(players=True))
    assert _refused(_header(record=True))
    assert _refused(_header(options={"shortfall": "sometimes"}))
    assert _refused(_header(options={"shortfall": ["refill"]}))    # not a plain header
    assert rules_for(_header()).players == 4


def test_a_changed_header_does_not_reach_the_next_session():
    h = _header()
    s = Session(h)
    h["seats"][0] = "Z"
    h["options"]["shortfall"] = "refill"
    assert s.view.seat_name(0) == "A"
    t = Session(_header())
    assert t.view.seat_name(0) == "A"
    assert t.rules.options["shortfall"] != "refill"


def test_sessions_sharing_rules_play_apart():
    a = Session(_header())
    b = Session(_header())
    assert a.rules is b.rules
    dealt = bytes(a.rules.deck_cards)
    assert a.deal(a.view.dealer(), dealt) == 0
    assert a.view.phase() == "auction"
    assert b.view.phase() == "deal" and b.view.deals_played() == 0
