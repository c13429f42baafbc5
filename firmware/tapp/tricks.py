"""The generic trick engine (docs/rules 1.5): duties, trick winner, card points.

The card-play path (``play``) allocates nothing once a deal is under way: all
state lives in lists made when the deal is set up and it answers with an error
code (docs/design.md, principle 4).  In strict mode the hands are known and an
illegal card is refused (docs/rules 3.2); in open mode duties are recorded as
assertions and a revoke is proven when a later card contradicts one
(``revokes.RevokeProofs``, docs/rules 3.3).
"""
from . import errors as E
from .cards import (
    BETTEL_ORDER,
    CARD_BIT,
    CARD_POINTS,
    CARD_SUIT,
    NCARDS,
    TRUMP_POWER,
    powers,
)
from .phases import DONE, PLAY
from .revokes import RevokeProofs
from .variants import C_GOAL, GOAL_ALL_TRICKS, GOAL_NO_TRICK


class Tricks(RevokeProofs):
    """Trick state and card play of one deal (the base of Deal)."""

    __slots__ = ("rules", "phase", "nact", "next_seat", "pos_of", "ntricks", "played", "tbase",
                 "tcount", "led", "overtrump", "top_trump", "leader", "turn", "trick_no",
                 "seat_points", "seat_tricks", "last_leader", "last_winner",
                 "last_points", "early_end", "powers", "power", "win_seat", "win_power",
                 "tpoints", "stop_win", "stop_loss", "on_done", "due")

    # The deal's hands and contract the trick engine reads (set by
    # Deal.__init__ and its steps; declared here for the type checker).
    strict: bool
    deck: tuple
    hands: list
    known: list
    used: list
    aside: list
    active: tuple
    contract: tuple
    announced: list

    def card_holder(self, card):
        """Seat whose known hand holds ``card``, else -1 (on the card-play path)."""
        i = 0
        while i < self.nact:
            seat = self.active[i]
            if self.known[seat] and self.hands[seat * 4 + CARD_SUIT[card]] & CARD_BIT[card]:
                return seat
            i += 1
        return -1

    def init_tricks(self, rules, active, next_seat, pos_of):
        """``next_seat`` and ``pos_of`` per seat (``Rules.seating``)."""
        self.rules = rules
        n = rules.players
        self.nact = len(active)
        self.next_seat = next_seat
        self.pos_of = pos_of
        self.ntricks = rules.hand_size
        # every card of the deal in the order played (undo replays them); the
        # current trick's are played[tbase:tbase + tcount]
        self.played = [0] * (self.nact * self.ntricks)
        self.tbase = 0
        self.tcount = 0
        self.led = -1
        self.overtrump = rules.overtrump     # docs/rules 1.5 rule 4 (herzblatt family)
        self.top_trump = -1                  # strength of the best trump in this trick
        self.leader = active[0]
        self.turn = active[0]
        self.trick_no = 1
        self.seat_points = [0] * n
        self.seat_tricks = [0] * n
        self.last_leader = -1
        self.last_winner = -1
        self.last_points = 0
        self.early_end = False
        # the trick so far: its best card (seat and power in the trick) and card
        # points; ``power`` is where the led suit's powers begin in the deal's
        # ``powers`` (cards.powers: a card's at power + card)
        self.powers = b""
        self.power = 0
        self.win_seat = -1
        self.win_power = 0
        self.tpoints = 0
        self.stop_win = -1                   # the deal ends when this seat wins a trick
        self.stop_loss = -1                  # ... or when this seat loses one (D15)
        # called when the last trick ends the deal (Session: settle the deal and
        # rotate the dealer, whichever door the card came through)
        self.on_done = None
        self.due = [0, 0, 0, 0]              # legal_in's answer for _duty (no allocation)
        self.init_proofs(n, self.ntricks, rules.strict)

    def start_play(self):
        """The card play begins: the rank order and trump are fixed now."""
        self.powers = powers(1 if self.strength is BETTEL_ORDER else 0, self.trump)
        self.set_goal()
        self.phase = PLAY

    def set_goal(self):
        """docs/rules D15: a trick-goal contract ends at the trick that decides it
        (Bettel: when the declarer wins one; Durch, Rufer, Tout: when he loses one)."""
        self.stop_win = self.stop_loss = -1
        if self.declarer < 0:
            return
        goal = self.contract[C_GOAL]
        if goal == GOAL_NO_TRICK:
            self.stop_win = self.declarer
        elif goal == GOAL_ALL_TRICKS or self.rules.all_tricks_announced(self.announced):
            self.stop_loss = self.declarer

    # ----- trick play ------------------------------------------------------------
    #
    # The card-play path allocates nothing, not even VM frames: MicroPython puts a
    # call's frame on the heap (freed on return) when its locals plus stack exceed
    # 11 words, so these functions are kept small and loop with ``while`` (a ``for``
    # over a list holds a 4-slot iterator on the stack).  ``micropython.mem_total()``
    # around a play stays flat (tests/mp/mptest_heap.py, ``tapptable bench``).

    def play(self, seat, card):
        """Play ``card`` for ``seat``; an error code, the state unchanged on error.

        A card of his known hand that leads, follows the led suit, or is
        played by a seat void in it with no trump he must play instead, is
        accepted at once (no call: it passes every check); the duties of a
        card otherwise (``_duty``, over-trumping) and any card not in his known
        hand go through the checks in the order of docs/record-format.md
        convention 12.  The accepted card goes to the
        trick, which keeps its best card so far (docs/rules 1.5: the highest
        trump, else the highest card of the led suit) by power (cards.powers).
        """
        if seat != self.turn or not 0 <= card < NCARDS:
            return self._refusal(seat, card)
        s = CARD_SUIT[card]
        bit = CARD_BIT[card]
        if self.phase != PLAY or not self.hands[seat * 4 + s] & bit:
            if self._refusal(seat, card):
                return self._refusal(seat, card)    # refused: the check again names why
        elif self.tcount and (self.overtrump or s != self.led and (
                self.hands[seat * 4 + self.led] or self.trump >= 0 and s != self.trump
                and self.hands[seat * 4 + self.trump])) and self._duty(seat, card):
            return self._duty(seat, card)   # in his hand: only the duties can refuse it
        # The bit is set in his hand and clear in ``used``: - and + clear and set
        # it (CPython runs them faster than & ~ and |).  Strict mode knows every
        # hand before the auction (phase HANDS until then) and keeps no ``used``
        # (see _played).
        if self.strict:
            self.hands[seat * 4 + s] -= bit
        else:
            if self.known[seat]:
                self.hands[seat * 4 + s] -= bit
            else:
                self._assert_open(seat, card)
            self.used[s] += bit
        n = self.tcount
        self.played[self.tbase + n] = card
        self.tpoints += CARD_POINTS[card]
        if not n:
            self.led = s
            self.power = s * NCARDS
            self.win_power = 0
        p = self.powers[self.power + card]
        if p > self.win_power:
            self.win_seat = seat
            self.win_power = p
            if p > TRUMP_POWER:
                self.top_trump = p - TRUMP_POWER - 1
        self.tcount = n + 1
        if n + 1 < self.nact:
            self.turn = self.next_seat[seat]
            return E.OK
        # The trick is complete: its best card takes it and leads next (here,
        # not in a method: a call costs as much as this whole step).
        self.seat_points[self.win_seat] += self.tpoints
        self.seat_tricks[self.win_seat] += 1
        self.last_leader = self.leader
        self.last_winner = self.leader = self.turn = self.win_seat
        self.last_points = self.tpoints
        self.tpoints = 0
        self.tbase += self.nact
        self.tcount = 0
        self.top_trump = -1
        self.trick_no += 1
        if self.trick_no > self.ntricks:
            self.phase = DONE
        elif self.win_seat == self.stop_win or (self.stop_loss >= 0
                                                and self.win_seat != self.stop_loss):
            self.early_end = True    # docs/rules D15 (set_goal)
            self.phase = DONE
        else:
            return E.OK
        if self.on_done is not None:
            self.on_done()
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
        if self._played(s, bit):
            return E.CARD_USED
        if self.aside[s] & bit:
            return E.NOT_IN_HAND
        if not self.known[seat]:
            return E.NOT_IN_HAND if self.card_holder(card) >= 0 else E.OK
        if not self.hands[seat * 4 + s] & bit:
            return E.NOT_IN_HAND
        if self.tcount:
            return self._duty(seat, card)
        return E.OK

    def _played(self, s, bit):
        """Has the deck's card (suit ``s``, ``bit``) been played this deal?  Open
        mode keeps ``used``.  In strict mode every card not played is in a known
        hand or aside (talon, discards), so ``used`` need not be kept per card."""
        if not self.strict:
            return self.used[s] & bit
        m = self.aside[s]
        i = 0
        while i < self.nact:
            m |= self.hands[self.active[i] * 4 + s]
            i += 1
        return not m & bit

    def legal_in(self, hand, base, out):
        """The one statement of what may go to the trick now (docs/rules 1.5
        rules 1, 2 and 4): of the hand ``hand[base:base + 4]`` (suit masks),
        the cards that may, written into ``out`` (4 ints), and the duty that
        limits them to one suit: E.OK (leading, or void in the led suit and in
        trump: any card), E.MUST_FOLLOW (the led suit; on a trump lead only
        the higher trumps if he has one) or E.MUST_TRUMP (void in it: trump).
        ``Session.play``, the view's legal cards and the robots all ask this;
        it allocates nothing."""
        out[0] = out[1] = out[2] = out[3] = 0
        if self.tcount:
            s = self.led
            duty = E.MUST_FOLLOW
            if not hand[base + s]:
                s = self.trump
                duty = E.MUST_TRUMP
            if s >= 0 and hand[base + s]:
                out[s] = hand[base + s]
                if self.overtrump and s == self.led and s == self.trump and self.top_trump >= 0:
                    higher = out[s] & ((1 << (8 - self.top_trump)) - 1)
                    if higher:
                        out[s] = higher
                return duty
        out[0] = hand[base]
        out[1] = hand[base + 1]
        out[2] = hand[base + 2]
        out[3] = hand[base + 3]
        return E.OK

    def _duty(self, seat, card):
        """docs/rules 1.5 rules 1, 2 and 4 for a card of a known hand: E.OK or
        the duty it breaks (``legal_in``); a card of the led suit that is
        refused is a trump not above the trick's best (rule 4)."""
        due = self.due
        duty = self.legal_in(self.hands, seat * 4, due)
        s = CARD_SUIT[card]
        if due[s] & CARD_BIT[card]:
            return E.OK
        return E.MUST_OVERTRUMP if s == self.led and duty == E.MUST_FOLLOW else duty

    def last_trick_cards(self):
        """The cards of the last completed trick, in the order played (a list)."""
        return self.played[self.tbase - self.nact:self.tbase]
