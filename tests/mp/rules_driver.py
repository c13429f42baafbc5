"""Rules-example helpers: drive a real ``tapp.session.Session`` through its door.

Seats follow docs/rules section 4: 0 Anton, 1 Berta, 2 Charlotte, 3 Dieter.
Everything goes through ``Session.apply`` (deal, auction, exchange, rufer,
announcements, card play).  ``finish`` is the one shortcut: for examples that
only state card points it sets the trick totals on the live deal and calls the
session's own settle-and-book step (``Session._finish``), so the real auction,
exchange, settlement and ledger are still exercised without playing 33 cards.
"""
from tapp.cards import CARD_CODES, DECKS, mask_cards
from tapp.dealing import deal_out
from tapp.phases import DONE, PLAY
from tapp.session import Session

ANTON, BERTA, CHARLOTTE, DIETER = 0, 1, 2, 3
SEAT_NAMES = ["Anton", "Berta", "Charlotte", "Dieter", "Emil"]  # docs/rules section 4, plus a fifth
_INITIAL = {"A": ANTON, "B": BERTA, "C": CHARLOTTE, "D": DIETER}


# ----- sessions and events --------------------------------------------------------


def new_session(variant, players=3, first_dealer=0, options=None, mode="strict"):
    """A Session for a docs/record-format.md header built from these fields."""
    return Session({
        "record": 1, "variant": variant, "players": players,
        "seats": SEAT_NAMES[:players], "options": dict(options or {}),
        "first_dealer": first_dealer, "mode": mode,
    })


def ok(session, ev):
    """Apply one event that must be accepted; return its outcome."""
    out = session.apply(ev)
    assert out.get("ok") is True, "event %r refused: %r" % (ev, out)
    return out


def feed(session, events):
    """Apply events that must all be accepted with a plain ``{"ok": true}``."""
    for ev in events:
        out = ok(session, ev)
        assert out == {"ok": True}, "event %r: unexpected outcome %r" % (ev, out)


def refused(session, ev, error):
    """Apply an event that must be refused with ``error``."""
    out = session.apply(ev)
    assert out.get("ok") is False and out.get("error") == error, (
        "event %r: expected %s, got %r" % (ev, error, out))
    return out


def bid(seat, call, contract=None, trump=None):
    ev = {"ev": "bid", "seat": seat, "call": call}
    if contract is not None:
        ev["contract"] = contract
    if trump is not None:
        ev["trump"] = trump
    return ev


def play(seat, card):
    return {"ev": "play", "seat": seat, "card": card}


def bid_value(seat, call, value):
    """A ladder call carrying a target: ``mehr`` (Haferl steps) or ``raise`` (D28)."""
    return {"ev": "bid", "seat": seat, "call": call, "value": value}


def announce(seat, what):
    return {"ev": "announce", "seat": seat, "what": what}


def exchange(seat, discard):
    return {"ev": "exchange", "seat": seat, "discard": discard}


# ----- dealing ---------------------------------------------------------------------------


def ordered_deal(session):
    """Hands and talon from dealing the unshuffled deck in the variant's packets.

    For examples where only the card points matter: a complete, disjoint deal
    that the strict-mode ``deal`` event accepts.
    """
    rules = session.rules
    cards = [CARD_CODES[c] for c in mask_cards(DECKS[rules.deck])]
    return deal_out(rules, session.view.dealer(), cards)


def deal(session, hands=None, talon=None):
    """Send the ``deal`` event for the expected dealer; return (hands, talon).

    Without ``hands`` the unshuffled deck is dealt (``ordered_deal``).  In open
    mode hands and talon are sent as ``null``.
    """
    if hands is None:
        hands, talon = ordered_deal(session)
    ev = {"ev": "deal", "dealer": session.view.dealer(), "hands": hands, "talon": talon}
    if not session.rules.strict:
        ev["hands"] = None
        ev["talon"] = None
    feed(session, [ev])
    return hands, talon


def check_hands(hands, talon, deck_size=36):
    """Hand-designed deals must be complete and disjoint."""
    cards = [c for h in hands for c in h] + list(talon or [])
    assert len(cards) == len(set(cards)) == deck_size, "deal not complete/disjoint"


def exchange_talon_back(session, hands_talon):
    """Frage exchange: the declarer picks up the talon and lays the same 3/4 cards away."""
    _hands, talon = hands_talon
    seat = session.view.declarer()
    feed(session, [{"ev": "exchange", "seat": seat, "discard": list(talon)}])


# ----- finishing a deal with chosen card points -----------------------------------------


def finish(session, d, declarer_tricks=None, early_end=False):
    """End the deal in play with declarer-side card points ``d`` (so ``e = 120 - d``).

    The defenders' points go to the first defender; tricks default to a plausible
    split (all tricks to the declarer when ``e = 0``).  Returns the docs/record-format.md
    ``result`` dict from the session's settle-and-book step.
    """
    deal_ = session._deal  # noqa: SLF001 -- the test seam (module docstring)
    assert deal_.phase == PLAY, "finish() needs a deal in the play phase"
    decl = deal_.declarer
    defenders = [s for s in deal_.active if s != decl]
    n = deal_.ntricks
    if declarer_tricks is None:
        declarer_tricks = n if d == 120 else n // 2 + (1 if d > 60 else 0)
    points = [0] * session.rules.players
    tricks = [0] * session.rules.players
    points[defenders[0]] = 120 - d
    tricks[decl] = declarer_tricks
    # an early end (D15) stops at the first trick the defenders take
    tricks[defenders[0]] = 1 if early_end else n - declarer_tricks
    deal_.seat_points = points
    deal_.seat_tricks = tricks
    deal_.early_end = early_end
    deal_.phase = DONE
    return session._finish()  # noqa: SLF001 -- the rules tests set the deal's end from inside


def finish_ramsch(session, points, tricks, last_winner):
    """End a Ramsch deal with final per-seat card points (tapp included).

    ``points`` already include the tapp, so the seat points are set to them and
    the last-trick winner receives ``120 - sum`` = 0 extra from the engine.
    """
    deal_ = session._deal  # noqa: SLF001 -- the test seam (module docstring)
    assert deal_.phase == PLAY and deal_.declarer < 0
    assert sum(points) == 120
    deal_.seat_points = list(points)
    deal_.seat_tricks = list(tricks)
    deal_.last_winner = last_winner
    deal_.phase = DONE
    return session._finish()  # noqa: SLF001 -- the rules tests set the deal's end from inside


# ----- card-by-card play ---------------------------------------------------------------


def parse_trick(spec):
    """``"C:DK B:C6 A:D9"`` -> [(2, "DK"), (1, "C6"), (0, "D9")] (seat initials)."""
    out = []
    for item in spec.split():
        who, card = item.split(":")
        out.append((_INITIAL[who], card))
    return out


def play_tricks(session, tricks, first_n=1):
    """Play whole tricks and check each trick object exactly.

    ``tricks`` is a list of ``(spec, winner, points)``; every card but the last
    of a trick must answer ``{"ok": true}``; the last answers with the trick
    object (and possibly the result).  Returns the outcome of the very last card.
    """
    out = None
    for i, (spec, winner, points) in enumerate(tricks):
        cards = parse_trick(spec)
        for seat, card in cards[:-1]:
            feed(session, [play(seat, card)])
        seat, card = cards[-1]
        out = ok(session, play(seat, card))
        assert out["trick"] == {
            "n": first_n + i, "leader": cards[0][0], "cards": [c for _, c in cards],
            "winner": winner, "points": points,
        }, "trick %d: %r" % (first_n + i, out)
        if i < len(tricks) - 1:
            assert set(out) == {"ok", "trick"}, out
    return out


def check_result(result, **expected):
    """Assert the listed result fields and, for a declarer game, d + e = 120 (docs/rules 1.6)."""
    for key, value in expected.items():
        assert result.get(key) == value, "result[%r] = %r, expected %r (result %r)" % (
            key, result.get(key), value, result)
    points = result.get("points")
    if points is not None:
        assert sum(points) == 120, "card points must total 120: %r" % (points,)
    assert sum(result["payments"]) + result["pot"] == 0, "payments not zero-sum"
