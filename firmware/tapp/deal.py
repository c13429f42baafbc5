"""One deal: hands, auction, exchange, the generic trick engine (RULES.md 1.5).

The card-play path (``play``) allocates nothing once a deal is under way: all
state lives in lists made in the constructor and it answers with an error code
(DESIGN.md principle 4).  In strict mode the hands are known and an illegal card
is refused (RULES.md 3.2); in open mode duties are recorded as assertions and a
revoke is proven when a later card contradicts one (RULES.md 3.3).
"""
from . import errors as E
from .auction import PROTOCOLS, Ladder
from .cards import (
    BETTEL_ORDER,
    CARD_BIT,
    CARD_POINTS,
    CARD_RANK,
    CARD_SUIT,
    DECKS,
    HEARTS,
    NORMAL_ORDER,
)
from .variants import (
    C_GOAL,
    C_ORDER,
    C_TALON,
    C_TRUMP,
    GOAL_ALL_TRICKS,
    GOAL_NO_TRICK,
    NO_CONTRACT,
    ORDER_BETTEL,
    TALON_EXCHANGE,
    TRUMP_ANY,
    TRUMP_CHOOSE,
)

# Phases of a deal.
HANDS = 0      # strict mode: waiting for hands to be scanned
AUCTION = 1
EXCHANGE = 2   # declarer picks up the talon and discards
DECLARE = 3    # declarer names the trump
RUFER = 4      # declarer calls a card (tapp_modern Rufer)
PLAY = 5
DONE = 6

PHASE_NAMES = ("hands", "auction", "exchange", "declare", "rufer", "play", "done")

# Revoke rules beyond the duty codes of errors.py.
RUFER_CARD = 15
RULE_NAMES = {E.MUST_FOLLOW: "must_follow", E.MUST_TRUMP: "must_trump",
              E.MUST_OVERTRUMP: "must_overtrump", RUFER_CARD: "rufer_card"}

MAX_REVOKES = 16


class Deal:
    """State of one deal; built by Session from the variant settings."""

    def __init__(self, rules, dealer):
        n = rules.players
        self.rules = rules
        self.n = n
        self.dealer = dealer
        self.strict = rules.strict
        active = rules.active_order(dealer)
        self.active = active                 # seats in play order, forehand first
        self.nact = len(active)
        self.next_seat = [-1] * n
        self.pos_of = [-1] * n
        for i, s in enumerate(active):
            self.next_seat[s] = active[(i + 1) % self.nact]
            self.pos_of[s] = i
        self.deck = DECKS[rules.deck]
        self.hand_size = rules.hand_size
        self.talon_size = rules.talon_size
        self.ntricks = rules.hand_size
        self.hands = [0] * (4 * n)
        self.known = [False] * n             # hand known to the engine
        self.used = [0, 0, 0, 0]             # played to a trick this deal
        self.aside = [0, 0, 0, 0]            # known to lie in the talon/discards
        self.talon = [0, 0, 0, 0]
        self.talon_known = False
        self.phase = HANDS
        order = rules.bidding_order(active)
        if rules.options.get("berliner"):
            # RULES.md 2.7, D29: only the last seat in the bidding may bid Pick-up
            self.auction = Ladder(order, rules.contracts, active[-1])
        else:
            self.auction = PROTOCOLS[rules.auction](order, rules.contracts)
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
        # trick state
        self.tcards = [0] * self.nact
        self.tcount = 0
        self.led = -1
        self.overtrump = rules.overtrump     # RULES.md 1.5 rule 4 (herzblatt family)
        self.top_trump = -1                  # strength of the best trump in this trick
        self.leader = active[0]
        self.turn = active[0]
        self.trick_no = 1
        self.seat_points = [0] * n
        self.seat_tricks = [0] * n
        self.last_cards = [0] * self.nact
        self.last_leader = -1
        self.last_winner = -1
        self.last_points = 0
        self.early_end = False
        # open-mode assertions: key = trick * 8 + position, 0 = none
        self.void_at = [0] * (4 * n)
        self.void_rule = [0] * (4 * n)
        self.above_at = [0] * (2 * n)
        self.above_b = [0] * (2 * n)
        self.rev_seat = [0] * MAX_REVOKES
        self.rev_key = [0] * MAX_REVOKES
        self.rev_rule = [0] * MAX_REVOKES
        self.rev_count = 0

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

    def card_holder(self, card):
        """Seat whose known hand holds ``card``, else -1 (on the card-play path)."""
        i = 0
        while i < self.nact:
            seat = self.active[i]
            if self.known[seat] and self.hands[seat * 4 + CARD_SUIT[card]] & CARD_BIT[card]:
                return seat
            i += 1
        return -1

    def all_hands_known(self):
        for seat in self.active:
            if not self.known[seat]:
                return False
        return True

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
        self.raise_ok = (isinstance(a, Ladder) and not a.challenged
                         and bool(self.rules.options.get("self_raise")))
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
        """Contract, exchange, trump, Rufer call, then play (RULES.md 2.x "Exchange")."""
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
            self.phase = PLAY

    def trump_choices(self):
        """Suits the declarer may name now (RULES.md 2.6 herz_neischaugn, 2.7)."""
        t = self.contract[C_TRUMP]
        if t >= 0:
            return (t,)
        if t == TRUMP_CHOOSE:
            return (0, 1, 3)
        opts = self.rules.options
        if self.contract[C_TALON] == TALON_EXCHANGE and (
                opts.get("herz_neischaugn") or (opts.get("berliner_hearts")
                                                and self.declarer == self.active[-1])):
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
            if self.known[decl]:
                self.hands[decl * 4 + gs] &= ~gbit
                self.hands[decl * 4 + s] |= bit
            if holder >= 0:
                self.hands[holder * 4 + s] &= ~bit
                self.hands[holder * 4 + gs] |= gbit
            self.rufer_card = card
        self.rufer_done = True
        self._next_step()
        return E.OK

    def can_announce(self):
        return self.phase == PLAY and self.trick_no == 1 and self.tcount == 0

    # ----- trick play ------------------------------------------------------------
    #
    # The card-play path allocates nothing, not even VM frames: MicroPython puts a
    # call's frame on the heap (freed on return) when its locals plus stack exceed
    # 11 words, so these functions are kept small and loop with ``while`` (a ``for``
    # over a list holds a 4-slot iterator on the stack).  ``micropython.mem_total()``
    # around a play stays flat (tests/mp/mptest_heap.py, ``tapptable bench``).

    def play(self, seat, card):
        """Play ``card`` for ``seat``; an error code, the state unchanged on error.

        Check order per RECORD.md convention 12.
        """
        err = self._refusal(seat, card)
        if err:
            return err
        self._take(seat, card)
        return E.OK

    def _refusal(self, seat, card):
        if self.phase != PLAY:
            return E.WRONG_PHASE
        if card < 0:
            return E.UNKNOWN_CARD
        s = CARD_SUIT[card]
        bit = CARD_BIT[card]
        if not self.deck[s] & bit:
            return E.NOT_IN_DECK
        if seat != self.turn:
            return E.NOT_YOUR_TURN
        if self.used[s] & bit:
            return E.CARD_USED
        if self.aside[s] & bit:
            return E.NOT_IN_HAND
        if not self.known[seat]:
            return E.NOT_IN_HAND if self.card_holder(card) >= 0 else E.OK
        if not self.hands[seat * 4 + s] & bit:
            return E.NOT_IN_HAND
        if self.tcount:
            return self._duty(seat * 4, s, card)
        return E.OK

    def _duty(self, base, s, card):
        """RULES.md 1.5 rules 1, 2 and 4 for a known hand (``base`` = seat * 4)."""
        led = self.led
        if s != led:
            if self.hands[base + led]:
                return E.MUST_FOLLOW
            if self.trump >= 0 and s != self.trump and self.hands[base + self.trump]:
                return E.MUST_TRUMP
            return E.OK
        if self.overtrump and s == self.trump and self.top_trump >= 0:
            return self._overtrump_duty(base, card)
        return E.OK

    def _overtrump_duty(self, base, card):
        top = self.top_trump
        if self.strength[CARD_RANK[card]] < top and \
                self.hands[base + self.trump] & ((1 << (8 - top)) - 1):
            return E.MUST_OVERTRUMP
        return E.OK

    def _take(self, seat, card):
        """The accepted card goes to the trick."""
        s = CARD_SUIT[card]
        if self.known[seat]:
            self.hands[seat * 4 + s] &= ~CARD_BIT[card]
        else:
            self._assert_open(seat, card)
        self.used[s] |= CARD_BIT[card]
        self.tcards[self.tcount] = card
        if s == self.trump and self.strength[CARD_RANK[card]] > self.top_trump:
            self.top_trump = self.strength[CARD_RANK[card]]
        if self.tcount == 0:
            self.led = s
        self.tcount += 1
        if self.tcount < self.nact:
            self.turn = self.next_seat[seat]
        else:
            self._finish_trick()

    def _assert_open(self, seat, card):
        """RULES.md 3.3: prove earlier assertions, then record new ones."""
        s = CARD_SUIT[card]
        k = seat * 4 + s
        if self.void_at[k]:
            self._revoke(seat, self.void_at[k], self.void_rule[k])
            self.void_at[k] = 0
        if card == self.rufer_card and seat != self.declarer:
            self._revoke(seat, self.trick_no * 8 + self.tcount, RUFER_CARD)
        if self.overtrump and s == self.trump:
            self._prove_overtrump(seat, self.strength[CARD_RANK[card]])
            self._assert_overtrump(seat, self.strength[CARD_RANK[card]])
        if self.tcount and s != self.led:
            self._assert_void(seat, s)

    def _assert_void(self, seat, s):
        """Rules 1 and 2: a card off the led suit asserts void in it (and in trumps)."""
        key = self.trick_no * 8 + self.tcount
        k = seat * 4 + self.led
        if not self.void_at[k]:
            self.void_at[k] = key
            self.void_rule[k] = E.MUST_FOLLOW
        if self.trump >= 0 and self.led != self.trump and s != self.trump:
            k = seat * 4 + self.trump
            if not self.void_at[k]:
                self.void_at[k] = key
                self.void_rule[k] = E.MUST_TRUMP

    def _prove_overtrump(self, seat, st):
        """Rule 3 proof: a trump above a ``b`` he asserted nothing above."""
        slot = seat
        while slot < 2 * self.n:    # slot 1 the earliest assertion, slot 2 the strongest
            at = self.above_at[slot]
            if at and st > self.above_b[slot]:
                self._revoke(seat, at, E.MUST_OVERTRUMP)
                self.above_at[seat] = 0
                self.above_at[seat + self.n] = 0
                return
            slot += self.n

    def _assert_overtrump(self, seat, st):
        """Rule 3: on a trump lead, a trump not beating the best one asserts that
        he holds none above it."""
        top = self.top_trump
        if not (self.tcount and self.led == self.trump and 0 <= st < top):
            return
        key = self.trick_no * 8 + self.tcount
        if not self.above_at[seat]:
            self.above_at[seat] = key
            self.above_b[seat] = top
        slot = seat + self.n
        if not self.above_at[slot] or top < self.above_b[slot]:
            self.above_at[slot] = key
            self.above_b[slot] = top

    def _revoke(self, seat, key, rule):
        i = self.rev_count
        if i < MAX_REVOKES:
            self.rev_seat[i] = seat
            self.rev_key[i] = key
            self.rev_rule[i] = rule
            self.rev_count = i + 1

    def _winner_index(self):
        """Position in the trick of the card that wins it (RULES.md 1.5)."""
        best = self.tcards[0]
        bi = 0
        i = 1
        while i < self.nact:
            c = self.tcards[i]
            if CARD_SUIT[c] == CARD_SUIT[best]:
                if self.strength[CARD_RANK[c]] > self.strength[CARD_RANK[best]]:
                    best = c
                    bi = i
            elif CARD_SUIT[c] == self.trump:
                best = c
                bi = i
            i += 1
        return bi

    def _trick_points(self):
        """Card points of the trick; the trick is copied for the outcome."""
        pts = 0
        i = 0
        while i < self.nact:
            pts += CARD_POINTS[self.tcards[i]]
            self.last_cards[i] = self.tcards[i]
            i += 1
        return pts

    def _finish_trick(self):
        bi = self._winner_index()
        pts = self._trick_points()
        winner = self.active[(self.pos_of[self.leader] + bi) % self.nact]
        self.seat_points[winner] += pts
        self.seat_tricks[winner] += 1
        self.last_leader = self.leader
        self.last_winner = winner
        self.last_points = pts
        self.tcount = 0
        self.top_trump = -1
        self.trick_no += 1
        self.leader = winner
        self.turn = winner
        if self.trick_no > self.ntricks:
            self.phase = DONE
        elif self._goal_decided(winner):
            self.early_end = True
            self.phase = DONE

    def _goal_decided(self, winner):
        """RULES.md D15: a trick-goal contract ends at the trick that decides it."""
        if self.declarer < 0:
            return False
        goal = self.contract[C_GOAL]
        if goal == GOAL_NO_TRICK:
            return winner == self.declarer
        if goal == GOAL_ALL_TRICKS or self.rules.all_tricks_announced(self.announced):
            return winner != self.declarer
        return False

    # ----- questions -----------------------------------------------------------

    def legal_cards(self, seat):
        """Card ints ``seat`` may play now (strict: his known hand), allocates."""
        out = []
        if self.phase != PLAY or seat != self.turn or not self.known[seat]:
            return out
        base = seat * 4
        hands = self.hands
        suits = (0, 1, 2, 3)
        if self.tcount:
            led = self.led
            tr = self.trump
            if hands[base + led]:
                suits = (led,)
            elif tr >= 0 and hands[base + tr]:
                suits = (tr,)
        beat = 0x1FF
        if self.overtrump and self.tcount and self.led == self.trump and self.top_trump >= 0:
            m = hands[base + self.trump] & ((1 << (8 - self.top_trump)) - 1)
            if m:
                beat = m
        for s in suits:
            m = hands[base + s]
            if s == self.trump:
                m &= beat
            r = 0
            while m:
                if m & 1:
                    out.append(s * 9 + r)
                m >>= 1
                r += 1
        return out

    def deciding_revoke(self):
        """Index of the revoke that decides the settlement (D41), or -1."""
        best = -1
        for i in range(self.rev_count):
            if best < 0 or self.rev_key[i] < self.rev_key[best]:
                best = i
        return best
