"""Random legal deals for the engine tests that run under MicroPython too.

Plain Python that runs unchanged under CPython, the unix port and the 32-bit
WebAssembly port: no pytest, no random module (a small LCG instead).
"""
from rules_driver import finish, new_session, ok

from tapp.cards import CARD_CODES

__all__ = ["Lcg", "feed", "finish", "new_session", "random_deal_events"]


def feed(session, events):
    """Apply events, each must be accepted (tricks and results too); return the
    last outcome."""
    out = None
    for ev in events:
        out = ok(session, ev)
    return out


class Lcg:
    """Deterministic small-int PRNG (values stay below 2**30 on 32-bit ports)."""

    def __init__(self, seed):
        self.x = seed % 1000003

    def below(self, n):
        self.x = (self.x * 1103 + 12345) % 1000003
        return self.x % n

    def bits(self, n):
        """A number below 2**n (``random.getrandbits``' shape; n <= 16)."""
        return self.below(1 << n)

    def choice(self, seq):
        return seq[self.below(len(seq))]

    def shuffle(self, seq):
        for i in range(len(seq) - 1, 0, -1):
            j = self.below(i + 1)
            seq[i], seq[j] = seq[j], seq[i]


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
