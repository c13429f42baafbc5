"""Scenario helpers shared by the engine tests that run under MicroPython too.

Plain Python that runs unchanged under CPython, the unix port and the 32-bit
WebAssembly port: no pytest, no random module (a small LCG instead).
"""
from scenario import finish, new_session, ok

from tapp import deal as D
from tapp.cards import CARD_CODES, DECKS, mask_cards

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

    def choice(self, seq):
        return seq[self.below(len(seq))]

    def shuffle(self, seq):
        for i in range(len(seq) - 1, 0, -1):
            j = self.below(i + 1)
            seq[i], seq[j] = seq[j], seq[i]


def random_deal_events(session, rng):
    """Play one random legal deal through ``session``; return its result."""
    rules = session.rules
    cards = mask_cards(DECKS[rules.deck])
    rng.shuffle(cards)
    dealer = session.dealer
    active = rules.active_order(dealer)
    hands = [[] for _ in range(rules.players)]
    k = rules.hand_size
    for i, seat in enumerate(active):
        hands[seat] = [CARD_CODES[c] for c in cards[i * k:(i + 1) * k]]
    out = session.apply({"ev": "deal", "dealer": dealer, "hands": hands, "talon": None})
    assert out["ok"], out
    while "result" not in out:
        deal = session.deal
        seat = session.turn()
        if deal.phase in (D.AUCTION, D.DECLARE):
            ev = rng.choice(session.legal_calls())
        elif deal.phase == D.EXCHANGE:
            pool = mask_cards(deal.hands, seat * 4) + mask_cards(deal.talon)
            rng.shuffle(pool)
            ev = {"ev": "exchange", "seat": seat,
                  "discard": [CARD_CODES[c] for c in pool[:rules.talon_size]]}
        elif deal.phase == D.RUFER:
            own = mask_cards(deal.hands, seat * 4)
            called = rng.choice([c for c in cards if c not in own])
            give = None if called in mask_cards(deal.talon) else CARD_CODES[rng.choice(own)]
            ev = {"ev": "rufer", "seat": seat, "card": CARD_CODES[called], "give": give}
        else:
            ev = {"ev": "play", "seat": seat, "card": rng.choice(session.legal_cards())}
        out = session.apply(ev)
        assert out["ok"], (ev, out)
    return out["result"]

