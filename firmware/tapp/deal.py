"""One deal: the steps before play — hands, auction, exchange, trump, Rufer call.

Deal is the state of one deal; the trick engine it plays with is
``tricks.Tricks`` and the open-mode revoke proofs are ``revokes.RevokeProofs``.
Only Session changes a Deal (through these methods); screens and tools read a
deal through ``view.View``.
"""
from . import errors as E
from .auction import PROTOCOLS, Ladder
from .cards import BETTEL_ORDER, CARD_BIT, CARD_SUIT, DECKS, HEARTS, NORMAL_ORDER
from .phases import AUCTION, DECLARE, DONE, EXCHANGE, HANDS, PHASE_NAMES, PLAY, RUFER
from .revokes import RULE_NAMES
from .tricks import Tricks
from .variants import (
    C_ORDER,
    C_TALON,
    C_TRUMP,
    NO_CONTRACT,
    ORDER_BETTEL,
    TALON_EXCHANGE,
    TRUMP_ANY,
    TRUMP_CHOOSE,
)

__all__ = ("Deal", "AUCTION", "DECLARE", "DONE", "EXCHANGE", "HANDS", "PHASE_NAMES",
           "PLAY", "RUFER", "RULE_NAMES")


class Deal(Tricks):
    """State of one deal; built by Session from the variant settings."""

    __slots__ = ("n", "dealer", "strict", "active", "deck", "hand_size", "talon_size",
                 "hands", "known", "used", "aside", "talon", "talon_known",
                 "auction", "declarer", "contract", "trump", "target", "strength",
                 "exchanged", "rufer_done", "raise_ok", "announced", "rufer_card",
                 "rufer_call")

    def __init__(self, rules, dealer, dealt=None):
        """``dealt``: strict dealing, every hand and the talon at once -- 4
        per-suit masks a seat (zero for a seat sitting out), then the talon's
        (``Session.deal``); None: the hands and talon come one by one."""
        n = rules.players
        self.rules = rules
        self.n = n
        self.dealer = dealer
        self.strict = rules.strict
        active, order, next_seat, pos_of = rules.seating(dealer)
        self.active = active                 # seats in play order, forehand first
        self.deck = DECKS[rules.deck]
        self.hand_size = rules.hand_size
        self.talon_size = rules.talon_size
        self.known = [False] * n             # hand known to the engine
        self.used = [0, 0, 0, 0]             # played to a trick this deal (open mode)
        if dealt is None:
            self.hands = [0] * (4 * n)
            self.aside = [0, 0, 0, 0]        # known to lie in the talon/discards
            self.talon = [0, 0, 0, 0]
            self.talon_known = False
        else:
            k = 4 * n
            self.hands = dealt[:k]
            for seat in active:
                self.known[seat] = True
            self.talon = dealt[k:]
            self.aside = dealt[k:]           # nothing was aside before the deal
            self.talon_known = True
        self.phase = HANDS
        if rules.berliner:
            # docs/rules 2.7, D29: only the last seat in the bidding may bid Pick-up
            self.auction = Ladder(order, rules, active[-1])
        else:
            self.auction = PROTOCOLS[rules.auction](order, rules)
        self.declarer = -1
        self.contract = NO_CONTRACT
        self.trump = -1
        self.target = rules.target
        self.strength = NORMAL_ORDER
        self.exchanged = False
        self.rufer_done = False
        self.raise_ok = False                # Haferl self-raise window (D28)
        self.announced = []
        self.rufer_card = -1                 # called card now with the declarer
        # the Rufer call as the table shows it: the called card, the card given
        # for it, the seat that held it (-1: none, in the talon, not known)
        self.rufer_call = [-1, -1, -1]
        self.init_tricks(rules, active, next_seat, pos_of)

    # ----- hands -------------------------------------------------------------

    def set_hand(self, seat, cards):
        """Record a known hand (list of card ints, already validated)."""
        base = seat * 4
        for s in range(4):
            self.hands[base + s] = 0
        for c in cards:
            self.hands[base + CARD_SUIT[c]] |= CARD_BIT[c]
        self.known[seat] = True

    def set_talon(self, cards):
        for c in cards:
            self.talon[CARD_SUIT[c]] |= CARD_BIT[c]
            self.aside[CARD_SUIT[c]] |= CARD_BIT[c]
        self.talon_known = True

    def all_hands_known(self):
        for seat in self.active:
            if not self.known[seat]:
                return False
        return True

    def open_auction(self):
        """Open mode: the hands stay secret, the auction starts at once."""
        self.phase = AUCTION

    def start_auction(self):
        """Strict mode: once every hand is known the talon follows by elimination."""
        if self.strict and not self.talon_known:
            rest = [0, 0, 0, 0]
            for s in range(4):
                m = self.deck[s]
                for seat in self.active:
                    m &= ~self.hands[seat * 4 + s]
                rest[s] = m
            self.set_talon_masks(rest)
        self.phase = AUCTION

    def set_talon_masks(self, masks):
        for s in range(4):
            self.talon[s] = masks[s]
            self.aside[s] |= masks[s]
        self.talon_known = True

    # ----- after the auction ---------------------------------------------------

    def end_auction(self):
        """Set declarer and contract; the steps before play follow (``_next_step``)."""
        a = self.auction
        self.declarer = a.declarer
        row = a.contract
        if a.declarer < 0:
            row = self.rules.all_pass
            if row is None:
                self.phase = DONE  # thrown in (D02)
                return
        self.target = getattr(a, "target", self.rules.target)
        self.raise_ok = isinstance(a, Ladder) and not a.challenged and self.rules.self_raise
        if row is None:
            self.phase = DECLARE   # the declarer names the contract (protocols B, E)
            return
        self.set_contract(row, a.trump if a.declarer >= 0 else -1)

    def set_contract(self, row, trump):
        self.contract = row   # Ramsch when all passed: everyone for himself
        self.trump = row[C_TRUMP] if row[C_TRUMP] >= 0 else trump
        if row[C_ORDER] == ORDER_BETTEL and self.rules.bettel_order:
            self.strength = BETTEL_ORDER
        self._next_step()

    def _next_step(self):
        """Contract, exchange, trump, Rufer call, then play (docs/rules 2.x "Exchange")."""
        row = self.contract
        if row is NO_CONTRACT:
            self.phase = DECLARE
        elif row[C_TALON] == TALON_EXCHANGE and not self.exchanged:
            self.phase = EXCHANGE
        elif self.trump < 0 and row[C_TRUMP] in (TRUMP_CHOOSE, TRUMP_ANY):
            self.phase = DECLARE
        elif self.rules.is_rufer(row) and not self.rufer_done:
            self.phase = RUFER
        else:
            self.start_play()

    def trump_choices(self):
        """Suits the declarer may name now (docs/rules 2.6 herz_neischaugn, 2.7)."""
        t = self.contract[C_TRUMP]
        if t >= 0:
            return (t,)
        if t == TRUMP_CHOOSE:
            return (0, 1, 3)
        if self.contract[C_TALON] == TALON_EXCHANGE and \
                self.rules.only_hearts(self.declarer, self.active[-1]):
            return (HEARTS,)
        return (0, 1, 2, 3)

    def declare_trump(self, trump):
        if trump not in self.trump_choices():
            return E.ILLEGAL_CONTRACT
        self.trump = trump
        self.raise_ok = False
        self._next_step()
        return E.OK

    def exchange(self, discard):
        """Talon pickup and discards; ``discard`` is a card list or None (open mode)."""
        decl = self.declarer
        base = decl * 4
        k = self.talon_size
        if discard is None:
            if self.strict:
                return E.ILLEGAL_DISCARD
        else:
            if len(discard) != k:
                return E.ILLEGAL_DISCARD
            seen = [0, 0, 0, 0]
            for c in discard:
                s = CARD_SUIT[c]
                bit = CARD_BIT[c]
                if seen[s] & bit or self.used[s] & bit:
                    return E.ILLEGAL_DISCARD
                if self.strict:
                    if not (self.hands[base + s] | self.talon[s]) & bit:
                        return E.ILLEGAL_DISCARD
                elif self.card_holder(c) not in (-1, decl):
                    return E.ILLEGAL_DISCARD
                seen[s] |= bit
            if self.strict:
                for s in range(4):
                    self.hands[base + s] = (self.hands[base + s] | self.talon[s]) & ~seen[s]
            for s in range(4):
                self.aside[s] = seen[s]
        if discard is None:
            for s in range(4):
                self.aside[s] = 0  # the talon went into an unknown hand
        self.exchanged = True
        self.raise_ok = False
        self._next_step()
        return E.OK

    def call_rufer(self, card, give):
        """tapp_modern Rufer (D12): ``give`` is -1 when the called card is in the tapp."""
        decl = self.declarer
        s = CARD_SUIT[card]
        bit = CARD_BIT[card]
        if self.known[decl] and self.hands[decl * 4 + s] & bit:
            return E.ILLEGAL_CALL  # he must call a card he does not hold
        if give < 0:
            if self.talon_known and not self.talon[s] & bit:
                return E.ILLEGAL_CALL
            self.aside[s] |= bit
            self.talon[s] |= bit
        else:
            if self.talon_known and self.talon[s] & bit:
                return E.ILLEGAL_CALL
            gs = CARD_SUIT[give]
            gbit = CARD_BIT[give]
            if give == card or (self.known[decl] and not self.hands[decl * 4 + gs] & gbit):
                return E.NOT_IN_HAND
            holder = self.card_holder(card)
            self.rufer_call[1] = give
            self.rufer_call[2] = holder
            if self.known[decl]:
                self.hands[decl * 4 + gs] &= ~gbit
                self.hands[decl * 4 + s] |= bit
            if holder >= 0:
                self.hands[holder * 4 + s] &= ~bit
                self.hands[holder * 4 + gs] |= gbit
            self.rufer_card = card
        self.rufer_call[0] = card
        self.rufer_done = True
        self._next_step()
        return E.OK

    def self_raise(self, value):
        """Haferl self-raise (docs/rules 2.6, D28): a Hand game at target ``value``."""
        if not self.raise_ok or self.auction.raise_to(value):
            return E.ILLEGAL_CALL
        self.target = value
        self.raise_ok = False
        self.set_contract(self.auction.contract, -1)
        return E.OK

    def announce(self, what):
        """Book an announcement that ``announce.check`` allowed."""
        self.announced.append(what)
        self.set_goal()   # Tout: the deal ends at the first lost trick (D15)

    def can_announce(self):
        return self.phase == PLAY and self.trick_no == 1 and self.tcount == 0
