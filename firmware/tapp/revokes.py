"""Open mode: duties recorded as assertions, revokes proven by later cards.

In open mode the table does not know the hands (docs/rules 3.3).  A card off the
led suit asserts "void in that suit" (and in trumps, if it is no trump); a trump
that does not beat the best one on a trump lead asserts "no higher trump" (the
over-trump duty, 1.5 rule 4).  A later card that contradicts an assertion
proves a revoke, kept with its key ``trick * 8 + position`` so the earliest
offence decides the settlement (3.4, D41).  Nothing here allocates.
"""
from . import errors as E
from .cards import CARD_RANK, CARD_SUIT

try:
    from micropython import const
except ImportError:  # CPython
    const = lambda x: x  # noqa: E731

# Revoke rules beyond the duty codes of errors.py.
_RUFER_CARD = const(15)
RULE_NAMES = {E.MUST_FOLLOW: "must_follow", E.MUST_TRUMP: "must_trump",
              E.MUST_OVERTRUMP: "must_overtrump", _RUFER_CARD: "rufer_card"}

_MAX_REVOKES = const(16)


class RevokeProofs:
    """The assertion tables and proven revokes of one deal (mixed into Deal)."""

    # Fixed attributes (no per-instance dict on CPython: faster on the card-play
    # path; MicroPython ignores __slots__).
    __slots__ = ("void_at", "void_rule", "claim_width", "claim_at", "claim_b",
                 "rev_seat", "rev_key", "rev_rule", "rev_count")

    # State of the trick engine and the deal these proofs read (set by
    # Tricks.init_tricks and Deal.__init__; declared here for the type checker).
    n: int
    trick_no: int
    tcount: int
    led: int
    trump: int
    top_trump: int
    overtrump: bool
    declarer: int
    rufer_card: int
    strength: tuple

    def init_proofs(self, n, ntricks, strict):
        """The tables, in open mode only: in strict mode every hand is known
        before the first card and an illegal card is refused, never asserted."""
        self.claim_width = ntricks          # "no trump above b" claims: key, b
        self.rev_count = 0
        if strict:
            none = []       # never written: no assertion in strict mode
            self.void_at = self.void_rule = self.claim_at = self.claim_b = none
            self.rev_seat = self.rev_key = self.rev_rule = none
            return
        # key = trick * 8 + position, 0 = none
        self.void_at = [0] * (4 * n)
        self.void_rule = [0] * (4 * n)
        self.claim_at = [0] * (n * ntricks)
        self.claim_b = [0] * (n * ntricks)
        self.rev_seat = [0] * _MAX_REVOKES
        self.rev_key = [0] * _MAX_REVOKES
        self.rev_rule = [0] * _MAX_REVOKES

    def _assert_open(self, seat, card):
        """docs/rules 3.3: prove earlier assertions, then record new ones."""
        s = CARD_SUIT[card]
        k = seat * 4 + s
        if self.void_at[k]:
            self._revoke(seat, self.void_at[k], self.void_rule[k])
            self.void_at[k] = 0
        if card == self.rufer_card and seat != self.declarer:
            self._revoke(seat, self.trick_no * 8 + self.tcount, _RUFER_CARD)
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
        """Rule 3 proof: a trump above some ``b`` he asserted nothing above proves
        every such claim; the earliest is the revoke, all of them are used up."""
        key = self._claims_below(seat * self.claim_width, st)
        if key:
            self._revoke(seat, key, E.MUST_OVERTRUMP)

    def _claims_below(self, i, st):
        """Clear the seat's claims (slots from ``i``) with ``b`` below strength
        ``st``; the earliest key among them, or 0.  (Few locals: a small frame.)"""
        k = self.claim_width
        key = 0
        while k:
            if self.claim_at[i] and st > self.claim_b[i]:
                if not key or self.claim_at[i] < key:
                    key = self.claim_at[i]
                self.claim_at[i] = 0
            i += 1
            k -= 1
        return key

    def _assert_overtrump(self, seat, st):
        """Rule 3: on a trump lead, a trump not beating the best one asserts that
        he holds none above it (one claim per trick: ``ntricks`` slots a seat)."""
        top = self.top_trump
        if not (self.tcount and self.led == self.trump and 0 <= st < top):
            return
        i = seat * self.claim_width
        while self.claim_at[i]:
            i += 1
        self.claim_at[i] = self.trick_no * 8 + self.tcount
        self.claim_b[i] = top

    def _revoke(self, seat, key, rule):
        i = self.rev_count
        if i < _MAX_REVOKES:
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
        with the earliest offence (trick, then position: docs/rules 3.3), or -1."""
        best = -1
        i = since
        while i < self.rev_count:
            if best < 0 or self.rev_key[i] < self.rev_key[best]:
                best = i
            i += 1
        return best
