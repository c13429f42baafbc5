"""The deck registry: which NFC tag UID is which card of which deck.

A deck has an id (1..99), a kind (a key of ``tapp.cards.DECKS``: "d36", "d32",
"d24", ...) and one tag UID (4, 7 or 10 bytes) per enrolled card.  Card ints
are ``suit * 9 + rank`` as in ``tapp/cards.py``.

    reg = Registry("/")              # "/" on the device, a temp folder in tests
    problems = reg.load()            # every <root>/decks/<id>.txt; bad files are skipped
    reg.create_deck(1, "d36")        # -> OK or an error code
    reg.add(1, card, uid)            # -> OK or an error code (saved to flash at once)
    v = reg.lookup(uid_view)         # -> deck_id * 64 + card, or -1; allocates nothing
    deck_of(v), card_of(v)

Refusals are small int codes (``NAMES`` for the console, ``short_text`` for
the 16-column display in German or English).  After a refused ``add`` the
entry it collided with is in ``reg.conflict`` (a packed value, or -1), and
``short_text(code, lang, reg.conflict)`` names it ("Karte aus Deck 2").

The deck files (``<root>/decks/<id>.txt``, also the download/upload format)
are table/deck_file.py's; the sorted UID slots behind ``lookup`` are
table/uid_slots.py's.  Files are written as ``<id>.tmp`` and renamed over
``<id>.txt``, so a power cut leaves the old or the new file; ``load`` removes
a left-over ``.tmp`` and recovers one whose ``.txt`` is missing if its CRC is
right.
"""
import os

from tapp.cards import CARD_BIT, CARD_CODES, CARD_SUIT, DECKS, NCARDS, mask_count

from . import texts
from .deck_file import (
    DECK_MAX,
    DECK_MIN,
    MAX_FILE,
    DeckFileError,
    format_lines,
    in_mask,
    parse_lines,
)
from .files import ensure_dir, exists, join, read_limited, remove_quietly, write_atomic
from .names import card_text
from .uid_slots import UidSlots

try:
    from micropython import const
except ImportError:  # CPython
    const = lambda x: x  # noqa: E731

UID_LENS = (4, 7, 10)
_CAPACITY = const(360)            # UIDs held at most: ten full 36-card decks
DIR = "decks"

# ------------------------------------------------------------ error codes

OK = 0
UID_ENROLLED = 1      # this tag is already a card of this deck
UID_OTHER_DECK = 2    # this tag is a card of another deck
CARD_ENROLLED = 3     # this card of this deck already has a tag
UNKNOWN_DECK = 4      # no deck with this id
BAD_UID = 5           # not a card sticker's UID (length not 4, 7 or 10)
NOT_IN_SET = 6        # the card is not part of the deck's kind
BAD_DECK_ID = 7       # deck ids are 1..99
BAD_KIND = 8          # unknown deck kind
DECK_EXISTS = 9       # create_deck on an id in use
FULL = 10             # _CAPACITY UIDs are enrolled
CORRUPT = 11          # a deck file or upload that fails its checks
STORAGE = 12          # the flash refused a write (nothing changed)
NOTHING = 13          # nothing to take back
COMPLETE = 14         # every card of the deck is enrolled

# Per code its stable word (the console's error word).  Its texts are the
# store's (table/texts.py, keyed by the word): the display line in German and
# English ``r_`` + the word (``rf_`` + the word: the lines naming the entry a
# refusal collided with, card label or deck id, alternatives split by "|", the
# first that fits 16 columns used) and the console's message ``r_`` + the word.
# NAMES, MESSAGES, SHORT_DE and SHORT_EN are made when asked for.
WORDS = ("ok uid_enrolled uid_other_deck card_enrolled unknown_deck bad_uid not_in_set "
         "bad_deck_id bad_kind deck_exists full corrupt storage nothing complete ")
_TABLES = ("NAMES", "MESSAGES", "SHORT_DE", "SHORT_EN")
DISPLAY_COLUMNS = 16


# A registry value packs a deck id and a card in one small int: deck_id * 64 + card
# (cards are 0..35 < 64).  pack/deck_of/card_of are the only code that knows it.
def pack(deck_id, card):
    return deck_id << 6 | card


def deck_of(packed):
    return packed >> 6


def card_of(packed):
    return packed & 63


# A card for the display: suit symbol and rank, e.g. "♥10" (one writer of card text)
card_label = card_text


def _word(code):
    """The stable word of ``code``."""
    if not 0 <= code < WORDS.count(" "):
        raise IndexError(code)
    return WORDS.split()[code]


def _display(code, lang, forms=False):
    """The display line of ``code`` (table/texts.py ``r_`` + its word; ``rf_``:
    the forms naming a collision, "" if it has none)."""
    word = _word(code)
    if code == NOTHING:
        if forms:
            return ""
        key = "nothing_undo"            # the table's own "Nichts zurück"
    else:
        key = ("rf_" if forms else "r_") + word
    return texts.text(key, lang) if texts.index(texts.KEYS, key) >= 0 else ""


def __getattr__(name):
    # NAMES, MESSAGES, SHORT_DE, SHORT_EN: tuples by code, made when asked for
    if name not in _TABLES:
        raise AttributeError(name)
    n = WORDS.count(" ")
    if name == "NAMES":
        return tuple(WORDS.split())
    if name == "MESSAGES":
        return tuple(message(code) for code in range(n))
    return tuple(_display(code, "en" if name == "SHORT_EN" else "de") for code in range(n))


def short_text(code, lang="de", packed=-1, german=False):
    """The display line for ``code``; with ``packed`` (``reg.conflict``) the
    uid/card refusals name the card or deck they collided with (``german``:
    the card in the German pattern)."""
    if packed >= 0:
        forms = _display(code, lang, True)
        for form in forms.split("|") if forms else ():
            s = form % deck_of(packed) if "%d" in form else \
                form % card_label(card_of(packed), german)
            if len(s) <= DISPLAY_COLUMNS:
                return s
    return _display(code, lang)


def message(code, packed=-1):
    """The console message for ``code`` (English), naming the collision if given."""
    from .messages import message
    m = message("r_" + _word(code))
    if packed >= 0 and code in (UID_ENROLLED, UID_OTHER_DECK, CARD_ENROLLED):
        m += " (deck %d, %s)" % (deck_of(packed), CARD_CODES[card_of(packed)])
    return m


def kind_cards(kind):
    """Card ints of a deck kind in enrolment order (C, S, H, D; A 10 K Q J 9 8 7 6)."""
    masks = DECKS[kind]
    return [c for c in range(NCARDS) if in_mask(masks, c)]


def _deck_id_ok(deck_id):
    return isinstance(deck_id, int) and not isinstance(deck_id, bool) \
        and DECK_MIN <= deck_id <= DECK_MAX


class Registry(UidSlots):
    """UID -> (deck, card) for every enrolled deck; persisted under ``root``
    (None: memory only, nothing is read or written)."""

    def __init__(self, root, capacity=_CAPACITY):
        UidSlots.__init__(self, capacity)
        self.root = root
        self._decks = {}          # deck id -> [kind, mask C, mask S, mask H, mask D]
        self.conflict = -1        # after a refused add: the entry it collided with
        self.problems = []        # after load: (file name, code, reason)

    def _cards_of(self, deck_id):
        """[(card, uid)] of a deck in card order."""
        out = []
        for i in range(self._n):
            v = self._val(i)
            if deck_of(v) == deck_id:
                out.append((card_of(v), self._uid(i)))
        out.sort(key=lambda cu: cu[0])
        return out

    def _drop_deck_slots(self, deck_id):
        i = 0
        while i < self._n:
            if deck_of(self._val(i)) == deck_id:
                self._delete(i)
            else:
                i += 1

    def _has(self, deck_id, card):
        d = self._decks[deck_id]
        return d[1 + CARD_SUIT[card]] & CARD_BIT[card] != 0

    def _mark(self, deck_id, card, on):
        d = self._decks[deck_id]
        bit = CARD_BIT[card]
        if on:
            d[1 + CARD_SUIT[card]] |= bit
        else:
            d[1 + CARD_SUIT[card]] &= ~bit

    # ------------------------------------------------------------ queries

    def decks(self):
        """[(deck_id, kind, enrolled count)] sorted by id."""
        out = []
        for deck_id in sorted(self._decks):
            d = self._decks[deck_id]
            out.append((deck_id, d[0], mask_count(d, 1)))
        return out

    def kind(self, deck_id):
        d = self._decks.get(deck_id)
        return d[0] if d else None

    def has_deck(self, deck_id):
        return deck_id in self._decks

    def count(self, deck_id=None):
        """UIDs enrolled in one deck, or in all."""
        if deck_id is None:
            return self._n
        return mask_count(self._decks[deck_id], 1) if deck_id in self._decks else 0

    def has_card(self, deck_id, card):
        """True if the card of the deck has a tag (False for an unknown deck)."""
        return deck_id in self._decks and 0 <= card < NCARDS and self._has(deck_id, card)

    def uid_of(self, deck_id, card):
        """The UID (bytes) enrolled for a card of a deck, or None."""
        i = self._slot_of(pack(deck_id, card))
        return self._uid(i) if i >= 0 else None

    def missing(self, deck_id):
        """Card ints of the deck's kind not yet enrolled, in enrolment order
        ([] for an unknown deck)."""
        if deck_id not in self._decks:
            return []
        return [c for c in kind_cards(self._decks[deck_id][0]) if not self._has(deck_id, c)]

    def complete(self, deck_id):
        """True when every card of the deck's kind is enrolled: its masks hold
        the kind's (``missing``, card by card, took 1.2 ms of the Pico's step
        that starts a session)."""
        d = self._decks.get(deck_id)
        if d is None:
            return False
        kind = DECKS[d[0]]
        s = 0
        while s < 4:
            if d[1 + s] & kind[s] != kind[s]:
                return False
            s += 1
        return True

    # ------------------------------------------------------------ changes

    def create_deck(self, deck_id, kind, save=True):
        """A new, empty deck; saved at once (so its kind survives a power cut)."""
        if not _deck_id_ok(deck_id):
            return BAD_DECK_ID
        if kind not in DECKS:
            return BAD_KIND
        if deck_id in self._decks:
            return DECK_EXISTS
        self._decks[deck_id] = [kind, 0, 0, 0, 0]
        if save and not self._save_or_false(deck_id):
            del self._decks[deck_id]
            return STORAGE
        return OK

    def add(self, deck_id, card, uid, save=True):
        """Enrol ``uid`` as ``card`` of deck ``deck_id``; saved at once.
        Returns OK or a refusal (then nothing changed; ``self.conflict`` names
        the entry it collided with for UID_ENROLLED/UID_OTHER_DECK/CARD_ENROLLED)."""
        self.conflict = -1
        if deck_id not in self._decks:
            return UNKNOWN_DECK
        if not isinstance(card, int) or not 0 <= card < NCARDS \
                or not in_mask(DECKS[self._decks[deck_id][0]], card):
            return NOT_IN_SET
        if len(uid) not in UID_LENS:
            return BAD_UID
        found, pos = self._find(uid)
        if found:
            self.conflict = self._val(pos)
            return UID_ENROLLED if deck_of(self.conflict) == deck_id else UID_OTHER_DECK
        if self._has(deck_id, card):
            self.conflict = pack(deck_id, card)
            return CARD_ENROLLED
        if self._n >= self.capacity:
            return FULL
        self._insert(pos, bytes(uid), pack(deck_id, card))
        self._mark(deck_id, card, True)
        if save and not self._save_or_false(deck_id):
            self._delete(pos)
            self._mark(deck_id, card, False)
            return STORAGE
        return OK

    def remove_card(self, deck_id, card, save=True):
        """Take back one enrolled card: OK, UNKNOWN_DECK, NOTHING or STORAGE."""
        if deck_id not in self._decks:
            return UNKNOWN_DECK
        i = self._slot_of(pack(deck_id, card)) if 0 <= card < NCARDS else -1
        if i < 0:
            return NOTHING
        uid = self._uid(i)
        self._delete(i)
        self._mark(deck_id, card, False)
        if save and not self._save_or_false(deck_id):
            self._insert(self._find(uid)[1], uid, pack(deck_id, card))
            self._mark(deck_id, card, True)
            return STORAGE
        return OK

    def remove_deck(self, deck_id):
        """Forget a deck and delete its file: OK, UNKNOWN_DECK or STORAGE."""
        if deck_id not in self._decks:
            return UNKNOWN_DECK
        if self.root is not None:
            path = self._path(deck_id, ".txt")
            try:
                if exists(path):
                    os.remove(path)
            except OSError:
                return STORAGE
            remove_quietly(self._path(deck_id, ".tmp"))
        self._drop_deck_slots(deck_id)
        del self._decks[deck_id]
        return OK

    # ------------------------------------------------------------ files

    def _dir(self):
        return join(self.root, DIR)

    def _path(self, deck_id, ext):
        return join(self.root, DIR, "%d%s" % (deck_id, ext))

    def export(self, deck_id):
        """The deck file's lines (without newlines), or None for an unknown deck."""
        if deck_id not in self._decks:
            return None
        return format_lines(deck_id, self._decks[deck_id][0], self._cards_of(deck_id))

    def save(self, deck_id):
        """Write one deck's file atomically: OK, UNKNOWN_DECK or STORAGE."""
        if deck_id not in self._decks:
            return UNKNOWN_DECK
        return OK if self._save_or_false(deck_id) else STORAGE

    def _save_or_false(self, deck_id):
        if self.root is None:
            return True
        lines = self.export(deck_id) or []
        try:
            ensure_dir(self._dir())
            write_atomic(self._path(deck_id, ".txt"), "".join(x + "\n" for x in lines))
        except OSError:
            return False
        return True

    def _conflicts(self, deck_id, cards):
        """The first UID of ``cards`` enrolled in another deck, as (card, packed), or None."""
        for card, uid in cards:
            found, pos = self._find(uid)
            if found and deck_of(self._val(pos)) != deck_id:
                return card, self._val(pos)
        return None

    def _take(self, deck_id, kind, cards):
        """Replace deck ``deck_id`` in memory by ``kind`` and ``cards`` (checked)."""
        if deck_id in self._decks:
            self._drop_deck_slots(deck_id)
        self._decks[deck_id] = [kind, 0, 0, 0, 0]
        for card, uid in cards:
            self._insert(self._find(uid)[1], uid, pack(deck_id, card))
            self._mark(deck_id, card, True)

    def _check_new(self, deck_id, cards):
        """None if ``cards`` can replace deck ``deck_id``, else (code, reason)."""
        clash = self._conflicts(deck_id, cards)
        if clash is not None:
            return UID_OTHER_DECK, "%s: UID is %s of deck %d" % (
                CARD_CODES[clash[0]], CARD_CODES[card_of(clash[1])], deck_of(clash[1]))
        old = self.count(deck_id)
        if self._n - old + len(cards) > self.capacity:
            return FULL, "registry full"
        return None

    def import_lines(self, lines, save=True):
        """Take a deck file's lines (an upload; str or bytes, with or without
        newlines).  A valid deck replaces the deck with its id (saved at
        once); returns (code, deck_id or 0, reason): OK, CORRUPT (reason
        says why), UID_OTHER_DECK, FULL or STORAGE.  A refusal changes nothing."""
        try:
            deck_id, kind, cards = parse_lines(lines)
        except DeckFileError as e:
            return CORRUPT, 0, str(e)
        bad = self._check_new(deck_id, cards)
        if bad is not None:
            return bad[0], deck_id, bad[1]
        old = None
        if deck_id in self._decks:
            old = (self._decks[deck_id][0], self._cards_of(deck_id))
        self._take(deck_id, kind, cards)
        if save and not self._save_or_false(deck_id):
            if old is None:
                self._drop_deck_slots(deck_id)
                del self._decks[deck_id]
            else:
                self._take(deck_id, old[0], old[1])
            return STORAGE, deck_id, "could not write the deck file"
        return OK, deck_id, ""

    def load(self):
        """Read every ``<root>/decks/<id>.txt`` (replacing what is in memory).

        A file that fails its checks is skipped and reported; the other decks
        load.  Returns (and keeps in ``self.problems``) a list of
        (file name, code, reason)."""
        self._n = 0
        self._decks = {}
        self.problems = []
        if self.root is None:
            return self.problems
        try:
            names = os.listdir(self._dir())
        except OSError:
            return self.problems   # no decks yet
        ids = []
        for name in names:
            dot = name.find(".")
            stem = name[:dot] if dot > 0 else ""
            ext = name[dot:] if dot > 0 else ""
            if ext not in (".txt", ".tmp") or not stem.isdigit():
                continue
            deck_id = int(stem)
            if _deck_id_ok(deck_id) and str(deck_id) == stem and deck_id not in ids:
                ids.append(deck_id)
        ids.sort()
        for deck_id in ids:
            self._load_one(deck_id)
        return self.problems

    def _read_deck(self, path):
        """parse_lines of a file, or raises DeckFileError / OSError."""
        text = read_limited(path, MAX_FILE)
        if text is None:
            raise DeckFileError("too long or not UTF-8")
        return parse_lines(text.split("\n"))

    def _load_one(self, deck_id):
        txt = self._path(deck_id, ".txt")
        tmp = self._path(deck_id, ".tmp")
        name = "%d.txt" % deck_id
        if exists(txt):
            remove_quietly(tmp)   # a save cut before its rename: the old file stands
            path = txt
        else:
            path = tmp            # a save cut between remove and rename
        try:
            got_id, kind, cards = self._read_deck(path)
        except OSError:
            self.problems.append((name, STORAGE, "unreadable"))
            return
        except DeckFileError as e:
            if path == tmp:
                remove_quietly(tmp)
                return
            self.problems.append((name, CORRUPT, str(e)))
            return
        if got_id != deck_id:
            self.problems.append((name, CORRUPT, "holds deck %d" % got_id))
            return
        bad = self._check_new(deck_id, cards)
        if bad is not None:
            self.problems.append((name, bad[0], bad[1]))
            return
        self._take(deck_id, kind, cards)
        if path == tmp:
            try:
                os.rename(tmp, txt)
            except OSError:
                pass
