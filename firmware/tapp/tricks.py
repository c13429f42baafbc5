"""The generic trick engine (docs/rules 1.5): duties, trick winner, card points.

The card-play path (``play``) allocates nothing once a deal is under way: all
state lives in lists made when the deal is set up and it answers with an error
code (DESIGN.md principle 4).  In strict mode the hands are known and an
illegal card is refused (docs/rules 3.2); in open mode duties are recorded as
assertions and a revoke is proven when a later card contradicts one
(``revokes.RevokeProofs``, docs/rules 3.3).
"""
from . import errors as E
from .cards import BIT_COUNT, CARD_BIT, CARD_POINTS, CARD_RANK, CARD_SUIT, NCARDS, mask_cards
from .phases import DONE, PLAY
from .revokes import RevokeProofs
from .variants import C_GOAL, GOAL_ALL_TRICKS, GOAL_NO_TRICK, NO_CONTRACT


class Tricks(RevokeProofs):
    """Trick state and card play of one deal (the base of Deal)."""

    # The deal's hands and contract the trick engine reads (set by
    # Deal.__init__ and its steps; declared here for the type checker).
    deck = ()
    hands = []
    known = []
    used = []
    aside = []
    active = []
    contract = NO_CONTRACT
    announced = []

    def card_holder(self, card):
        """Seat whose known hand holds ``card``, else -1 (on the card-play path)."""
        i = 0
        while i < self.nact:
            seat = self.active[i]
            if self.known[seat] and self.hands[seat * 4 + CARD_SUIT[card]] & CARD_BIT[card]:
                return seat
            i += 1
        return -1

    def init_tricks(self, rules, active):
        self.rules = rules
        n = rules.players
        self.nact = len(active)
        self.next_seat = [-1] * n
        self.pos_of = [-1] * n
        for i, s in enumerate(active):
            self.next_seat[s] = active[(i + 1) % self.nact]
            self.pos_of[s] = i
        self.ntricks = rules.hand_size
        self.tcards = [0] * self.nact
        self.tcount = 0
        self.led = -1
        self.overtrump = rules.overtrump     # docs/rules 1.5 rule 4 (herzblatt family)
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
        self.init_proofs(n, self.ntricks)

    # ----- trick play ------------------------------------------------------------
    #
    # The card-play path allocates nothing, not even VM frames: MicroPython puts a
    # call's frame on the heap (freed on return) when its locals plus stack exceed
    # 11 words, so these functions are kept small and loop with ``while`` (a ``for``
    # over a list holds a 4-slot iterator on the stack).  ``micropython.mem_total()``
    # around a play stays flat (tests/mp/mptest_heap.py, ``tapptable bench``).

    def play(self, seat, card):
        """Play ``card`` for ``seat``; an error code, the state unchanged on error.

        Check order per docs/record-format.md convention 12.
        """
        err = self._refusal(seat, card)
        if err:
            return err
        self._take(seat, card)
        return E.OK

    def _refusal(self, seat, card):
        if self.phase != PLAY:
            return E.WRONG_PHASE
        if card < 0 or card >= NCARDS:
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
        """docs/rules 1.5 rules 1, 2 and 4 for a known hand (``base`` = seat * 4)."""
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

    def _winner_index(self):
        """Position in the trick of the card that wins it (docs/rules 1.5)."""
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
        """docs/rules D15: a trick-goal contract ends at the trick that decides it."""
        if self.declarer < 0:
            return False
        goal = self.contract[C_GOAL]
        if goal == GOAL_NO_TRICK:
            return winner == self.declarer
        if goal == GOAL_ALL_TRICKS or self.rules.all_tricks_announced(self.announced):
            return winner != self.declarer
        return False

    def legal_masks(self, out):
        """Per-suit masks of the cards the seat to play may play now, written into
        ``out`` (4 ints); the count.  Strict mode only (a known hand), else 0.
        Allocates nothing (small frames): the device lights LEDs from it and the
        simulator picks from it.
        """
        seat = self.turn
        out[0] = out[1] = out[2] = out[3] = 0
        if self.phase != PLAY or not self.known[seat]:
            return 0
        base = seat * 4
        s = self._forced_suit(base)
        if s < 0:
            out[0] = self.hands[base]
            out[1] = self.hands[base + 1]
            out[2] = self.hands[base + 2]
            out[3] = self.hands[base + 3]
        else:
            out[s] = self._beating(base, s)
        return BIT_COUNT[out[0]] + BIT_COUNT[out[1]] + BIT_COUNT[out[2]] + BIT_COUNT[out[3]]

    def _forced_suit(self, base):
        """The suit a known hand must play (the led suit, else trump), or -1."""
        if not self.tcount:
            return -1
        s = self.led
        if self.hands[base + s]:
            return s
        s = self.trump
        if s >= 0 and self.hands[base + s]:
            return s
        return -1

    def _beating(self, base, s):
        """Cards of suit ``s`` allowed under the over-trump duty (1.5 rule 4)."""
        m = self.hands[base + s]
        if self.overtrump and s == self.trump and self.led == s and self.top_trump >= 0:
            b = m & ((1 << (8 - self.top_trump)) - 1)
            if b:
                return b
        return m

    def legal_cards(self, seat):
        """Card ints ``seat`` may play now (strict: his known hand), allocates."""
        if seat != self.turn:
            return []
        masks = [0, 0, 0, 0]
        self.legal_masks(masks)
        return mask_cards(masks)
