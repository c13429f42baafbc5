"""Display names: cards with suit symbols, contracts, calls, variants.

Card text is the suit symbol and the rank (``♥10``, ``♠Q``); the display font
draws the symbols (table/font.py).  Names are short enough for a 16-column line.
"""
from tapp.cards import RANKS

SUIT_SYMBOLS = ("\u2663", "\u2660", "\u2665", "\u2666")   # ♣ ♠ ♥ ♦ for C S H D
SUIT_WORDS = {"C": ("Kreuz", "Clubs"), "S": ("Pik", "Spades"), "H": ("Herz", "Hearts"),
              "D": ("Karo", "Diamonds")}

# Card texts, made once (the play path must not build strings).
CARD_TEXT = tuple(SUIT_SYMBOLS[c // 9] + RANKS[c % 9] for c in range(36))

CONTRACTS = {
    "frage": ("Frage", "Frage"), "heart_frage": ("Herz-Frage", "Heart Frage"),
    "solo": ("Solo", "Solo"), "suit_solo": ("Farb-Solo", "Suit Solo"),
    "heart_solo": ("Herz-Solo", "Heart Solo"), "bettel": ("Bettel", "Bettel"),
    "bettel_ouvert": ("Bettel ouvert", "Bettel ouvert"),
    "suit_rufer": ("Rufer", "Rufer"), "heart_rufer": ("Herz-Rufer", "Heart Rufer"),
    "suit_durch": ("Durch", "Durch"), "heart_durch": ("Herz-Durch", "Heart Durch"),
    "ramsch": ("Ramsch", "Ramsch"), "pickup": ("Aufnehmen", "Pick-up"),
    "hand": ("Hand", "Hand"), "soloist": ("Solo", "Solo"),
    "diamond_solo": ("Karo-Solo", "Diamond Solo"), "spade_solo": ("Pik-Solo", "Spade Solo"),
    "club_solo": ("Kreuz-Solo", "Club Solo"), "last_trick": ("Letzter Stich", "Last trick"),
}

CALLS = {
    "pass": ("passe", "pass"), "hold": ("halte", "hold"), "spiele": ("spiele", "play"),
    "weg": ("weg", "pass"), "besser": ("besser", "better"),
    "am_besten": ("am besten", "best"), "vorn": ("vorn", "first"), "mehr": ("mehr", "more"),
    "herz": ("Herz", "Hearts"), "nicht_herz": ("nicht Herz", "not Hearts"),
    "raise": ("Hand", "Hand"), "declare": ("", ""), "bid": ("", ""),
    "tout": ("Tout", "Tout"), "kontra": ("Kontra", "Kontra"), "re": ("Re", "Re"),
    "supp": ("Supp", "Supp"), "resupp": ("Resupp", "Resupp"), "hirsch": ("Hirsch", "Hirsch"),
    "66": ("66", "66"), "du": ("Du", "Du"),
}

VARIANTS = {
    "wuerttemberg": "Württ. Tarock", "tapp_classic": "Tapp", "tapp_modern": "Tapp neu",
    "tarock_simple": "Tarock", "tarock_bettel": "Tarock Bettel",
    "haferltarock": "Haferltarock", "berliner": "Berliner", "scharfer_tarock": "Scharfer T.",
    "herzblatt": "Herzblatt", "herzblatt_muhr": "Herzblatt Muhr", "braun_solo": "Brauns Solo",
}


def _pick(pair, lang):
    return pair[1] if lang == "en" else pair[0]


def contract_name(cid, lang="de"):
    return _pick(CONTRACTS[cid], lang) if cid in CONTRACTS else cid


def suit_name(letter, lang="de"):
    return _pick(SUIT_WORDS[letter], lang) if letter in SUIT_WORDS else ""


def call_label(ev, lang="de"):
    """A short label for a call / announcement event offered by the view."""
    word = ev.get("call") or ev.get("what")
    parts = []
    base = _pick(CALLS[word], lang) if word in CALLS else word
    if base:
        parts.append(base)
    if "contract" in ev:
        parts.append(contract_name(ev["contract"], lang))
    if "trump" in ev:
        parts.append(SUIT_SYMBOLS["CSHD".index(ev["trump"])])
    if "value" in ev:
        parts.append(str(ev["value"]))
    return " ".join(parts)
