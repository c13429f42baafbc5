"""Random legal deals for the engine tests that run under MicroPython too.

Plain Python that runs unchanged under CPython, the unix port and the 32-bit
WebAssembly port: no pytest, no random module (a small LCG instead).
"""
from rules_driver import finish, new_session, ok

from tapp.cards import CARD_CODES

try:                     # inside MicroPython: host_sim/vm/ is on the path
    from lcg import Lcg
except ImportError:      # CPython: the package's module
    from host_sim.vm.lcg import Lcg

__all__ = ["Lcg", "feed", "finish", "new_session", "random_deal_events"]


def feed(session, events):
    """Apply events, each must be accepted (tricks and results too); return the
    last outcome."""
    out = None
    for ev in events:
        out = ok(session, ev)
    return out


def random_deal_events(session, rng):
    """Play one random legal deal through ``session``; return its result."""
    view = session.view
    cards = list(view.deck_cards())
    rng.shuffle(cards)
    dealer = view.dealer()
    hands, _talon = view.deal_out(dealer, [CARD_CODES[c] for c in cards])
    out = session.apply({"ev": "deal", "dealer": dealer, "hands": hands, "talon": None})
    assert out["ok"], out
    while "result" not in out:
        seat = view.turn()
        expects = view.expects()
        if expects in ("call", "declare"):
            ev = rng.choice(view.legal_calls())
        elif expects == "discard":
            pool = view.hand(seat) + view.talon()
            rng.shuffle(pool)
            ev = {"ev": "exchange", "seat": seat, "discard": pool[:view.talon_size()]}
        elif expects == "rufer":
            own = view.hand(seat)
            called = rng.choice([CARD_CODES[c] for c in cards if CARD_CODES[c] not in own])
            give = None if called in view.talon() else rng.choice(own)
            ev = {"ev": "rufer", "seat": seat, "card": called, "give": give}
        else:
            ev = {"ev": "play", "seat": seat, "card": rng.choice(view.legal_cards())}
        out = session.apply(ev)
        assert out["ok"], (ev, out)
    return out["result"]
