"""Deck enrolment: the table asks for the cards one by one and learns their tags.

    e = Enrolment(reg, deck_id, "d36")   # reg: a loaded registry.Registry
                              # (german=True: cards named in the German pattern)
    e.status                  # OK, or why enrolment cannot run (BAD_KIND, ...)
    e.expected()              # the card to place next, or -1 when the deck is complete
    e.prompt("de")            # "Lege: ♥10" (or "Deck komplett"; German: Eichel-Ober
                              # as its glyph and "O", where a French deck's is "♣Q")
    code = e.offer(uid)       # a tag seen on the centre reader -> ACCEPTED or a refusal
    e.text(code, "de")        # "Erfasst: ♥10", "Karte aus Deck 2", ...
    e.undo_last()             # take back the last accepted card -> its card int or -1

The order is fixed: suits C, S, H, D and ranks A 10 K Q J 9 8 7 6 within
each, only the cards of the deck's kind, skipping cards already enrolled.  The
registry saves the deck file after every accepted card, so after a power cut
a new Enrolment on the reloaded registry resumes at the first missing card
and at most the card being placed is lost.

Outcome codes are registry codes (``registry.NAMES``, ``registry.short_text``);
ACCEPTED is ``registry.OK``.  A deck for a German-suited game (the setup's,
names.german_suited) is asked for in its own pattern: the stickers are the
same, Eichel-Ober is enrolled where a French deck's Kreuz-Dame is.
"""
from . import registry as R
from .names import card_text
from .texts import text

ACCEPTED = R.OK


class Enrolment:
    def __init__(self, registry, deck_id, kind, german=False):
        self.registry = registry
        self.deck_id = deck_id
        self.kind = kind
        self.german = german     # the cards named in the German pattern
        self.order = ()
        self.last_card = -1      # the card of the last accepted offer
        self.conflict = -1       # the entry the last refused offer collided with
        self._history = []       # cards accepted by this enrolment, oldest first
        have = registry.kind(deck_id)
        if have is None:
            self.status = registry.create_deck(deck_id, kind)
        elif have != kind:
            self.status = R.DECK_EXISTS   # the id is taken by a deck of another kind
        else:
            self.status = R.OK
        if self.status == R.OK:
            self.order = tuple(R.kind_cards(kind))

    def expected(self):
        """The next card to place (card int), or -1 when done or not ready."""
        if self.status != R.OK:
            return -1
        reg = self.registry
        for card in self.order:
            if not reg.has_card(self.deck_id, card):
                return card
        return -1

    def done(self):
        return self.status == R.OK and self.expected() < 0

    def progress(self):
        """(cards enrolled, cards in the deck's kind)."""
        return len(self.order) - len(self.registry.missing(self.deck_id)), len(self.order)

    def prompt(self, lang="de"):
        """One display line: the card to place next, or why nothing is asked."""
        if self.status != R.OK:
            return R.short_text(self.status, lang)
        card = self.expected()
        if card < 0:
            return R.short_text(R.COMPLETE, lang)
        return text("enrol_next", lang) % card_text(card, self.german)

    def offer(self, uid):
        """A tag seen while ``expected()`` is asked for: ACCEPTED (enrolled
        and saved) or a refusal code (nothing changed): BAD_UID (not a card
        sticker), UID_ENROLLED / UID_OTHER_DECK (``self.conflict`` names the
        entry), COMPLETE, STORAGE, FULL, or the setup ``status``."""
        self.conflict = -1
        if self.status != R.OK:
            return self.status
        if len(uid) not in R.UID_LENS:
            return R.BAD_UID
        card = self.expected()
        if card < 0:
            return R.COMPLETE
        reg = self.registry
        code = reg.add(self.deck_id, card, uid)
        if code == R.OK:
            self.last_card = card
            self._history.append(card)
        elif code == R.UID_ENROLLED and self._just_before(card, reg.conflict):
            # the card enrolled last, still lying on the centre (read again
            # after a power cut, or laid again): no refusal, nothing changes
            self.last_card = R.card_of(reg.conflict)
            return ACCEPTED
        else:
            self.conflict = reg.conflict
        return code

    def _just_before(self, card, packed):
        """Is ``packed`` (a registry value, R.pack) this deck's card just before ``card``?"""
        k = self.order.index(card)
        return R.deck_of(packed) == self.deck_id and k > 0 \
            and R.card_of(packed) == self.order[k - 1]

    def text(self, code, lang="de"):
        """The display line for an outcome of ``offer`` (or ``undo_last``'s NOTHING)."""
        if code == ACCEPTED and self.last_card >= 0:
            return text("enrol_got", lang) % card_text(self.last_card, self.german)
        return R.short_text(code, lang, self.conflict, self.german)

    def undo_last(self):
        """Take back the last accepted card (saved at once) and ask for it again.
        After a power cut (no history here) the last enrolled card in the
        order is taken back.  Returns that card int, or -1 if there was
        nothing to take back or the flash refused (then nothing changed)."""
        if self.status != R.OK:
            return -1
        reg = self.registry
        card = -1
        while self._history and card < 0:
            c = self._history[-1]
            if reg.has_card(self.deck_id, c):
                card = c
            else:
                self._history.pop()   # removed behind our back
        if card < 0:
            for c in self.order:
                if reg.has_card(self.deck_id, c):
                    card = c
        if card < 0:
            return -1
        if reg.remove_card(self.deck_id, card) != R.OK:
            return -1
        if self._history and self._history[-1] == card:
            self._history.pop()
        self.last_card = -1
        return card
