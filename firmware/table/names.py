"""Display names: cards with suit symbols, contracts, calls, variants.

Card text is the suit symbol and the rank (``♥10``, ``♠Q``); the display font
draws the symbols (table/font.py).  Names are short enough for a 16-column line.

Two card patterns (docs/rules 1.1: the engine only knows codes, a display may
show either name set): French (♣ ♠ ♥ ♦; A 10 K Q J) and German (Eichel, Grün,
Herz, Schellen as the font's own glyphs U+E000..U+E003; A 10 K O U, Ober and
Unter).  ``GERMAN_SUITED`` names the variants played with German-suited
cards; ``card_text(card, german)`` and ``suit_code(s, german)`` give either.

Contract and call names live in one bytes constant, ``DATA`` (German, then
English, each ended by a newline; all ASCII), found by their ids in
``CONTRACT_IDS`` and ``CALL_IDS`` as the table texts are (table/texts.py):
from a ROMFS image they stay in flash instead of two dicts of str pairs in the
heap.  The screens draw them from ``DATA`` without making a str.
"""
from tapp.cards import CARD_RANK, CARD_SUIT, RANKS

from .texts import index, offsets

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

CONTRACT_IDS = (
    "frage heart_frage solo suit_solo heart_solo bettel bettel_ouvert suit_rufer "
    "heart_rufer suit_durch heart_durch ramsch pickup hand soloist diamond_solo "
    "spade_solo club_solo last_trick "
)
CALL_IDS = (
    "pass hold spiele weg besser am_besten vorn mehr herz nicht_herz raise declare bid "
    "tout kontra re supp resupp hirsch 66 du auch "
)

DATA = (
    # contracts (CONTRACT_IDS)
    b"Frage\nFrage\n"                            # frage
    b"Herz-Frage\nHeart Frage\n"                 # heart_frage
    b"Solo\nSolo\n"                              # solo
    b"Farb-Solo\nSuit Solo\n"                    # suit_solo
    b"Herz-Solo\nHeart Solo\n"                   # heart_solo
    b"Bettel\nBettel\n"                          # bettel
    b"Bettel ouvert\nBettel ouvert\n"            # bettel_ouvert
    b"Rufer\nRufer\n"                            # suit_rufer
    b"Herz-Rufer\nHeart Rufer\n"                 # heart_rufer
    b"Durch\nDurch\n"                            # suit_durch
    b"Herz-Durch\nHeart Durch\n"                 # heart_durch
    b"Ramsch\nRamsch\n"                          # ramsch
    b"Aufnehmen\nPick-up\n"                      # pickup
    b"Hand\nHand\n"                              # hand
    b"Solo\nSolo\n"                              # soloist
    b"Karo-Solo\nDiamond Solo\n"                 # diamond_solo
    b"Pik-Solo\nSpade Solo\n"                    # spade_solo
    b"Kreuz-Solo\nClub Solo\n"                   # club_solo
    b"Letzter Stich\nLast trick\n"               # last_trick
    # calls (CALL_IDS)
    b"passe\npass\n"                             # pass
    b"halte\nhold\n"                             # hold
    b"spiele\nplay\n"                            # spiele
    b"weg\npass\n"                               # weg
    b"besser\nbetter\n"                          # besser
    b"am besten\nbest\n"                         # am_besten
    b"vorn\nfirst\n"                             # vorn
    b"mehr\nmore\n"                              # mehr
    b"Herz\nHearts\n"                            # herz
    b"nicht Herz\nnot Hearts\n"                  # nicht_herz
    b"Hand\nHand\n"                              # raise
    b"\n\n"                                      # declare
    b"\n\n"                                      # bid
    b"Tout\nTout\n"                              # tout
    b"Kontra\nKontra\n"                          # kontra
    b"Re\nRe\n"                                  # re
    b"Supp\nSupp\n"                              # supp
    b"Resupp\nResupp\n"                          # resupp
    b"Hirsch\nHirsch\n"                          # hirsch
    b"66\n66\n"                                  # 66
    b"Du\nDu\n"                                  # du
    b"auch\nme too\n"                            # auch (the ladder's second step)
)
OFF = offsets(DATA)       # name j is DATA[OFF[j]:OFF[j + 1] - 1]
_CALLS_AT = 2 * CONTRACT_IDS.count(" ")

VARIANTS = {
    "wuerttemberg": "Württ. Tarock", "tapp_classic": "Tapp", "tapp_modern": "Tapp neu",
    "tarock_simple": "Tarock", "tarock_bettel": "Tarock Bettel",
    "haferltarock": "Haferltarock", "berliner": "Berliner", "scharfer_tarock": "Scharfer T.",
    "herzblatt": "Herzblatt", "herzblatt_muhr": "Herzblatt Muhr", "braun_solo": "Brauns Solo",
}


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
    out = bytearray(_CALLS_AT)
    for j in range(_CALLS_AT):
        out[j] = _named(DATA[OFF[j]:OFF[j + 1] - 1], j & 1)
    return out


SUITS_NAMED = _suits_named()

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


def __getattr__(name):
    # CARD_TEXT (the 36 card texts) only for the host tools that use it: the
    # firmware draws cards without it (36 strs would sit in the heap).
    if name == "CARD_TEXT":
        return tuple(card_text(c) for c in range(36))
    raise AttributeError(name)


def contract_number(cid, lang="de"):
    """The number ``j`` of contract ``cid``'s name in ``lang`` (``DATA[OFF[j]:
    OFF[j + 1] - 1]``), or -1 for an id without a name."""
    k = index(CONTRACT_IDS, cid) if isinstance(cid, str) else -1
    if k < 0:
        return -1
    return 2 * k + 1 if lang == "en" else 2 * k


def call_number(word, lang="de"):
    """The number ``j`` of call ``word``'s name in ``lang`` (``DATA[OFF[j]:
    OFF[j + 1] - 1]``, empty for ``bid`` and ``declare``), or -1."""
    k = index(CALL_IDS, word) if isinstance(word, str) else -1
    if k < 0:
        return -1
    return _CALLS_AT + 2 * k + (1 if lang == "en" else 0)


def _name(j):
    return DATA[OFF[j]:OFF[j + 1] - 1].decode()


def contract_name(cid, lang="de"):
    j = contract_number(cid, lang)
    return cid if j < 0 else _name(j)


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
    base = _name(j) if j >= 0 else word
    if base:
        parts.append(base)
    if "contract" in ev:
        parts.append(contract_name(ev["contract"], lang))
    if "trump" in ev:
        parts.append((GERMAN_SYMBOLS if german else SUIT_SYMBOLS)[SUITS.index(ev["trump"])])
    if "value" in ev:
        parts.append(str(ev["value"]))
    return " ".join(parts)
