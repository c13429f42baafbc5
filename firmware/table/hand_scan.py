"""Strict dealing: the table learns the hands as the cards are dealt.

The dealer deals over the centre reader in the variant's packet order
(``tapp.dealing.receivers``: forehand first, the talon's packets where the
rules put them), so each card passing the centre belongs to the next receiver;
a player may instead sweep his cards over his own seat reader (a hand swept
complete is skipped in the centre's order).  ``HandScan`` keeps what was
seen; the game (table/game.py) turns a complete scan into the ``deal`` event.

    scan = HandScan(view, dealer, centre)     # the session's view
    out = scan.offer(reader, card)     # ACCEPTED, TO_TALON or a refusal
    scan.complete()                    # every active seat has its hand
    scan.hands()                       # the deal event's "hands"

What was scanned lives in RAM only: the journal gets the ``deal`` event
with the first card taken and the hands (``hand`` events, docs/record-format.md)
once they are complete, so after a power cut in between the table knows a
deal was being dealt and asks for it from the start at once.
"""
from tapp import errors as E
from tapp.cards import CARD_BIT, CARD_CODES, CARD_SUIT, DECKS
from tapp.dealing import TALON

ACCEPTED = 0            # the card went to a seat's hand
TO_TALON = -1           # the card went to the talon (no sound: the dealer goes on)
NOT_NOW = -2            # no card is due there (a full hand, a seat sitting out)
NOT_DUE = -2            # next_receiver(): no more cards over the centre


class HandScan:
    """One deal being scanned (strict mode)."""

    def __init__(self, view, dealer, centre):
        self.deck = DECKS[view.deck()]   # per suit: the cards of the deck
        self.hand_size = view.hand_size()
        self.players = view.players()
        self.centre = centre
        self.seen = [0, 0, 0, 0]         # per suit: the cards already scanned
        self.dealt = [[] for _ in range(self.players)]   # codes per seat
        self.k = 0                       # the next slot of the centre's order
        self.order = view.deal_order(dealer)
        self.active = view.active_order(dealer)   # the seats receiving cards

    def offer(self, reader, card):
        """A card (int) seen on ``reader``: ACCEPTED, TO_TALON, NOT_NOW or an
        engine error code (E.CARD_USED, E.NOT_IN_DECK); a refusal changes nothing."""
        s = CARD_SUIT[card]
        bit = CARD_BIT[card]
        if self.seen[s] & bit:
            return E.CARD_USED
        if not self.deck[s] & bit:
            return E.NOT_IN_DECK
        if reader == self.centre:
            k = self._slot()
            if k >= len(self.order):
                return NOT_NOW
            seat = self.order[k]
            self.k = k + 1
            if seat == TALON:
                self.seen[s] |= bit
                return TO_TALON
        else:
            seat = reader
            if self.short(seat) <= 0:
                return NOT_NOW
        self.seen[s] |= bit
        self.dealt[seat].append(CARD_CODES[card])
        return ACCEPTED

    def _slot(self):
        """The centre's next slot: past those of hands already swept complete."""
        k = self.k
        while k < len(self.order):
            seat = self.order[k]
            if seat == TALON or len(self.dealt[seat]) < self.hand_size:
                return k
            k += 1
        return k

    def short(self, seat):
        """Cards still due to ``seat`` (0 when complete or sitting out)."""
        if seat not in self.active:
            return 0
        return self.hand_size - len(self.dealt[seat])

    def complete(self):
        for seat in self.active:
            if self.short(seat):
                return False
        return True

    def hands(self):
        """The ``deal`` event's hands: a list per seat, [] for a seat sitting out."""
        return [self.dealt[seat] if seat in self.active else []
                for seat in range(self.players)]

    def dealt_count(self, seat):
        """Cards scanned for ``seat`` so far."""
        return len(self.dealt[seat])

    def seats(self):
        """How many seats the deal goes to (``seat(i)``: which, in dealing order)."""
        return len(self.active)

    def seat(self, i):
        return self.active[i]

    def scanned(self):
        """Cards scanned so far, all seats."""
        seen = 0
        i = 0
        while i < len(self.active):
            seen += len(self.dealt[self.active[i]])
            i += 1
        return seen

    def due(self):
        """Cards the deal scans in all (hand size times seats dealt to)."""
        return self.hand_size * len(self.active)

    def seen_card(self, card):
        return self.seen[CARD_SUIT[card]] & CARD_BIT[card] != 0

    def next_receiver(self):
        """The seat of the next card over the centre, TALON, or NOT_DUE."""
        k = self._slot()
        return self.order[k] if k < len(self.order) else NOT_DUE
