"""Open mode: duties recorded as assertions, revokes proven by later cards.

In open mode the table does not know the hands (RULES.md 3.3).  A card off the
led suit asserts "void in that suit" (and in trumps, if it is no trump); a trump
that does not beat the best one on a trump lead asserts "no higher trump" (the
over-trump duty, 1.5 rule 4).  A later card that contradicts an assertion
proves a revoke, kept with its key ``trick * 8 + position`` so the earliest
offence decides the settlement (3.4, D41).  Nothing here allocates.
"""
from . import errors as E
from .cards import CARD_RANK, CARD_SUIT

# Revoke rules beyond the duty codes of errors.py.
RUFER_CARD = 15
RULE_NAMES = {E.MUST_FOLLOW: "must_follow", E.MUST_TRUMP: "must_trump",
              E.MUST_OVERTRUMP: "must_overtrump", RUFER_CARD: "rufer_card"}

MAX_REVOKES = 16


class RevokeProofs:
    """The assertion tables and proven revokes of one deal (mixed into Deal)."""

    def init_proofs(self, n):
        # key = trick * 8 + position, 0 = none
        self.void_at = [0] * (4 * n)
        self.void_rule = [0] * (4 * n)
        self.above_at = [0] * (2 * n)
        self.above_b = [0] * (2 * n)
        self.rev_seat = [0] * MAX_REVOKES
        self.rev_key = [0] * MAX_REVOKES
        self.rev_rule = [0] * MAX_REVOKES
        self.rev_count = 0

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

    def deciding_revoke(self):
        """Index of the revoke that decides the settlement (D41), or -1."""
        best = -1
        for i in range(self.rev_count):
            if best < 0 or self.rev_key[i] < self.rev_key[best]:
                best = i
        return best

    def earliest_revoke(self, since):
        """Of the revokes proven from index ``since`` on (by one card), the one
        with the earliest offence (trick, then position: RULES.md 3.3), or -1."""
        best = -1
        i = since
        while i < self.rev_count:
            if best < 0 or self.rev_key[i] < self.rev_key[best]:
                best = i
            i += 1
        return best
