"""Display names: cards with suit symbols, contracts, calls, variants.

Card text is the suit symbol and the rank (``♥10``, ``♠Q``); the display font
draws the symbols (table/font.py).  Names are short enough for a 16-column line.

Two card patterns (docs/rules 1.1: the engine only knows codes, a display may
show either name set): French (♣ ♠ ♥ ♦; A 10 K Q J) and German (Eichel, Grün,
Herz, Schellen as the font's own glyphs U+E000..U+E003; A 10 K O U, Ober and
Unter).  ``GERMAN_SUITED`` names the variants played with German-suited
cards; ``card_text(card, german)`` and ``suit_code(s, german)`` give either.

The contracts', calls' and games' names are texts of table/texts.py (the one
text store: ``c_`` + a contract's id, ``k_`` + a call's word, ``g_`` + a
variant's id, German and English); the screens draw them from there without
making a str (``contract_number``, ``call_number``, ``variant_number``).
"""
from tapp.cards import CARD_RANK, CARD_SUIT, RANKS

from . import texts

SUIT_SYMBOLS = ("\u2663", "\u2660", "\u2665", "\u2666")   # ♣ ♠ ♥ ♦ for C S H D
SUIT_CODES = (0x2663, 0x2660, 0x2665, 0x2666)            # the same, as code points
SUITS = "CSHD"
SUIT_WORDS = ("Kreuz", "Clubs", "Pik", "Spades", "Herz", "Hearts", "Karo", "Diamonds")
# the German pattern: the font's glyphs for Eichel, Grün, Herz, Schellen
GERMAN_SYMBOLS = ("\ue000", "\ue001", "\ue002", "\ue003")
GERMAN_CODES = (0xE000, 0xE001, 0xE002, 0xE003)
GERMAN_WORDS = ("Eichel", "Acorns", "Grün", "Leaves", "Herz", "Hearts", "Schellen", "Bells")
GERMAN_RANKS = ("A", "10", "K", "O", "U", "9", "8", "7", "6")    # Sau/Daus, Ober, Unter
# docs/rules 2.1, 2.4-2.8: Württemberg Tarock and the Bavarian family are played
# with German-suited cards (Württemberg with either; the table shows German)
GERMAN_SUITED = ("wuerttemberg", "tarock_simple", "tarock_bettel", "haferltarock",
                 "berliner", "scharfer_tarock")

_C0 = texts.number("c_", "frage")      # the contracts' first name (German)
_CALLS_AT = texts.number("k_", "pass")     # and the calls' first: the contracts' end


def __getattr__(name):
    # CARD_TEXT (the 36 card texts) only for the host tools that use it: the
    # firmware draws cards without it (36 strs would sit in the heap).
    if name == "CARD_TEXT":
        return tuple(card_text(c) for c in range(36))
    raise AttributeError(name)


def _named(name, en):
    """Bit s set when the name (bytes) holds the word of suit s (English:
    "Heart Solo" holds "Hearts" too)."""
    bits = 0
    for s in range(4):
        word = SUIT_WORDS[2 * s + en]
        if (word[:-1] if word.endswith("s") else word).encode() in name:
            bits |= 1 << s
    return bits


def _suits_named():
    """Per contract name j: the suits its name holds (``_named``), so the
    screen can leave out the suit symbol."""
    out = bytearray(_CALLS_AT - _C0)
    for j in range(_C0, _CALLS_AT):
        out[j - _C0] = _named(texts.DATA[texts.OFF[j]:texts.OFF[j + 1] - 1], j & 1)
    return out


SUITS_NAMED = _suits_named()


def suits_named(j):
    """The suits (bit s: suit s) the contract name number ``j`` holds."""
    return SUITS_NAMED[j - _C0]


# Where a contract shares a row with its declarer's name (the play's row 1,
# the settlement): the names that would leave the player's name fewer than 4
# columns ("C. Bettel ouvert") are said as players say them short, in whole
# words (German, English; a suit's symbol follows where the short name does
# not name it: "Cora Solo ♦").
SHORT = {"bettel_ouvert": ("Ouvert", "Ouvert"), "diamond_solo": ("Karo-Solo", "Solo")}
SHORT_SUITS = {}          # per short name: the suits it names (German, English)
for _cid in SHORT:
    SHORT_SUITS[_cid] = (_named(SHORT[_cid][0].encode(), 0), _named(SHORT[_cid][1].encode(), 1))
MIN_NAME = 4


def short_name(name, width):
    """``name`` in at most ``width`` columns, shortened only where it shows
    (table/screens.py writes the same without making a str): whole if it fits;
    else without its spaces ("Platz1"); else a prefix, a period and its
    trailing number ("Pl.1", so "Platz 1" and "Platz 2" stay apart); else a
    prefix and a period ("Jürg.")."""
    n = len(name)
    if n <= width:
        return name
    if n - name.count(" ") <= width:
        return name.replace(" ", "")
    d = 0
    while d < n and "0" <= name[n - 1 - d] <= "9":
        d += 1
    if 0 < d < n and d + 2 <= width:
        return name[:width - 1 - d].rstrip() + "." + name[n - d:]
    return name[:width - 1].rstrip() + "."


def german_suited(variant):
    """Is ``variant`` (a variant id) played with German-suited cards?"""
    return variant in GERMAN_SUITED


def suit_code(s, german=False):
    """The code point the font draws for suit ``s`` (0..3: C S H D)."""
    return GERMAN_CODES[s] if german else SUIT_CODES[s]


def rank_token(r, german=False):
    """The rank's token (0..8: A 10 K Q J 9 8 7 6): ``O``/``U`` for Ober and
    Unter in the German pattern."""
    return GERMAN_RANKS[r] if german else RANKS[r]


def suit_word(s, lang="de", german=False):
    """The suit's name: ``Eichel``/``Acorns`` or ``Kreuz``/``Clubs`` ..."""
    return (GERMAN_WORDS if german else SUIT_WORDS)[2 * s + (lang == "en")]


def card_text(card, german=False):
    """``♥10`` for the card int (a new str); the German glyph and ``O``/``U``
    for a German-suited deck."""
    if german:
        return GERMAN_SYMBOLS[CARD_SUIT[card]] + GERMAN_RANKS[CARD_RANK[card]]
    return SUIT_SYMBOLS[CARD_SUIT[card]] + RANKS[CARD_RANK[card]]


def contract_number(cid, lang="de"):
    """The number ``j`` of contract ``cid``'s name in ``lang`` (a text of
    table/texts.py), or -1 for an id without a name; allocates nothing."""
    return texts.number("c_", cid, lang)


def call_number(word, lang="de"):
    """The number ``j`` of call ``word``'s name in ``lang`` (empty for
    ``bid`` and ``declare``), or -1."""
    return texts.number("k_", word, lang)


def variant_number(vid, lang="de"):
    """The number ``j`` of the game's name of variant ``vid``, or -1."""
    return texts.number("g_", vid, lang)


def variant_name(vid, lang="de"):
    """The game's name ("Tapp neu"); the id for a variant without one."""
    j = variant_number(vid, lang)
    return vid if j < 0 else texts.text_of(j)


def contract_name(cid, lang="de"):
    j = contract_number(cid, lang)
    return cid if j < 0 else texts.text_of(j)


def short_contract(cid, lang="de"):
    """The contract's short name beside a player's (``SHORT``), or None."""
    pair = SHORT.get(cid)
    return None if pair is None else pair[1 if lang == "en" else 0]


def suit_name(letter, lang="de"):
    s = SUITS.find(letter) if isinstance(letter, str) and len(letter) == 1 else -1
    if s < 0:
        return ""
    return SUIT_WORDS[2 * s + 1] if lang == "en" else SUIT_WORDS[2 * s]


def call_label(ev, lang="de", german=False):
    """A short label for a call / announcement event offered by the view (a
    trump in the deck's pattern: ``german`` for a German-suited one)."""
    word = ev.get("call") or ev.get("what")
    parts = []
    j = call_number(word, lang)
    base = texts.text_of(j) if j >= 0 else word
    if base:
        parts.append(base)
    if "contract" in ev:
        parts.append(contract_name(ev["contract"], lang))
    if "trump" in ev:
        parts.append((GERMAN_SYMBOLS if german else SUIT_SYMBOLS)[SUITS.index(ev["trump"])])
    if "value" in ev:
        parts.append(str(ev["value"]))
    return " ".join(parts)
