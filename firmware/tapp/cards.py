"""Cards, suits, ranks and decks (docs/rules 1.1-1.3).

A card is a small int ``suit * 9 + rank``; rank 0 is the Ace and 8 the Six, so a
lower rank index is a higher card in the normal order.  Hands and card sets are
kept as one 9-bit mask per suit: a 36-card mask in one int would be a
heap-allocated long on a 32-bit port (docs/design.md, principle 4).
"""

from array import array

try:
    from micropython import const
except ImportError:  # CPython
    const = lambda x: x  # noqa: E731

SUITS = "CSHD"
CLUBS = 0
SPADES = 1
HEARTS = 2
DIAMONDS = 3
NO_TRUMP = -1

RANKS = ("A", "10", "K", "Q", "J", "9", "8", "7", "6")
# docs/rules 1.1: A 11, 10 10, K 4, Q/Ober 3, J/Unter 2, the rest 0.
RANK_POINTS = (11, 10, 4, 3, 2, 0, 0, 0, 0)
NCARDS = 36
_FULL_SUIT = const(0x1FF)

# Strength of each rank index in an order (higher beats lower), docs/rules 1.3.
NORMAL_ORDER = (8, 7, 6, 5, 4, 3, 2, 1, 0)
# Bettel order: A > K > Q > J > 10 > 9 > 8 > 7 > 6 (the Ten drops below the Jack).
BETTEL_ORDER = (8, 4, 7, 6, 5, 3, 2, 1, 0)

# small numbers as bytes: a quarter of a tuple's heap on the device
CARD_SUIT = bytes(c // 9 for c in range(NCARDS))
CARD_RANK = bytes(c % 9 for c in range(NCARDS))
CARD_BIT = tuple(1 << (c % 9) for c in range(NCARDS))
CARD_POINTS = bytes(RANK_POINTS[c % 9] for c in range(NCARDS))
CARD_CODES = tuple(SUITS[c // 9] + RANKS[c % 9] for c in range(NCARDS))
CODE_INDEX = {code: i for i, code in enumerate(CARD_CODES)}

# A card's power in a trick (docs/rules 1.3, 1.5): 0 for a card of neither the
# led suit nor trump, 1 + its strength in the rank order for a card of the led
# suit, TRUMP_POWER + 1 + its strength for a trump; the highest power wins the
# trick.  ``powers(bettel, trump)`` gives the table of a rank order and trump
# suit (-1: none): bytes, a card's power at ``led * NCARDS + card``, made on
# first use -- 176 bytes on the Pico (as 4 tuples of 36 a table took 672: a
# session meeting each trump and the Bettel order came to hold ten, its free
# heap sinking deal by deal by 0.7 KB a new table).
TRUMP_POWER = 16
_POWERS = [None] * 10  # type: list


def powers(bettel, trump):
    """The power table of the Bettel (1) or normal (0) order and a trump suit
    (above)."""
    i = 5 * bettel + trump + 1
    t = _POWERS[i]
    if t is None:
        order = BETTEL_ORDER if bettel else NORMAL_ORDER
        b = bytearray(4 * NCARDS)       # (bytes of an iterator keep its spare room)
        for k in range(4 * NCARDS):
            c = k % NCARDS
            b[k] = (TRUMP_POWER + 1 + order[c % 9] if c // 9 == trump
                    else 1 + order[c % 9] if c // 9 == k // NCARDS else 0)
        t = _POWERS[i] = bytes(b)
    return t

# Lowest set bit index of every 9-bit mask, for allocation-free iteration.
def _lowest_bit(m):
    if not m:
        return -1
    r = 0
    while not m & 1:
        m >>= 1
        r += 1
    return r


LOWEST_BIT = array("b", [_lowest_bit(m) for m in range(_FULL_SUIT + 1)])   # -1 for none
BIT_COUNT = bytes(bin(m).count("1") for m in range(_FULL_SUIT + 1))
# WIDTH[n]: how many random bits draw a number below n (n < 64): a uniform draw
# is getrandbits(WIDTH[n]), drawn again while it is n or more
WIDTH = bytes(len(bin(n - 1)) - 2 if n > 1 else 0 for n in range(64))


def nth_bit_table():
    """``t[m][k]``: the rank of the k-th card (from 0) of the suit mask ``m``, 0
    past its last card.  Some 25 KB of tuples: made when first asked, by
    whoever draws cards (``View.random_legal_card``, the simulator), never on
    the device's own paths."""
    rows = []
    for m in range(_FULL_SUIT + 1):
        row = []
        rest = m
        for _ in range(9):
            row.append(LOWEST_BIT[rest] if rest else 0)
            rest &= rest - 1
        rows.append(tuple(row))
    return tuple(rows)

# docs/rules 1.2: which ranks each deck keeps, per suit (bit r = rank index r).
_A_TO_7 = const(0xFF)  # no Sixes
DECKS = {
    "d36": (_FULL_SUIT, _FULL_SUIT, _FULL_SUIT, _FULL_SUIT),
    "d32": (_A_TO_7, _A_TO_7, _A_TO_7, _A_TO_7),
    "d24": (0x3F, 0x3F, 0x3F, 0x3F),
    # Herzblatt (docs/rules 1.2, D36): A..J = 0x1F, A..8 = 0x7F, A..9 = 0x3F.
    "hb2": (0x1F, 0x1F, 0x1F, 0x1F),
    "hb3": (0x7F, 0x7F, 0x3F, 0x3F),   # no 7s, no H8/D8
    "hb4": (_A_TO_7, _A_TO_7, 0xBF, 0xBF),  # no H8/D8
    "hb4_7": (_A_TO_7, _A_TO_7, 0x7F, 0x7F),  # option four_player_removed = H7,D7
    "hb5": (_A_TO_7, _A_TO_7, _A_TO_7, _A_TO_7),
}


_DECK_CARDS = {}


def deck_cards(deck):
    """The card ints of deck ``deck`` (a DECKS name) in order, as bytes made
    once per deck (every session of the deck needs them)."""
    b = _DECK_CARDS.get(deck)
    if b is None:
        b = _DECK_CARDS[deck] = bytes(mask_cards(DECKS[deck]))
    return b


def card_index(code):
    """Card int for a code such as ``"S10"``, or -1 for an unknown code."""
    return CODE_INDEX.get(code, -1) if isinstance(code, str) else -1


def suit_index(letter):
    """Suit int for ``"C"``/``"S"``/``"H"``/``"D"``, or -1."""
    if isinstance(letter, str) and len(letter) == 1:
        return SUITS.find(letter)
    return -1


def suit_letter(suit):
    return SUITS[suit] if suit >= 0 else None


def mask_cards(masks, base=0):
    """Card ints of the 4 per-suit masks ``masks[base:base+4]`` (allocates)."""
    out = []
    for s in range(4):
        m = masks[base + s]
        while m:
            r = LOWEST_BIT[m]
            m &= m - 1
            out.append(s * 9 + r)
    return out


def mask_count(masks, base=0):
    return (BIT_COUNT[masks[base]] + BIT_COUNT[masks[base + 1]]
            + BIT_COUNT[masks[base + 2]] + BIT_COUNT[masks[base + 3]])


def mask_points(masks, base=0):
    total = 0
    for s in range(4):
        m = masks[base + s]
        while m:
            r = LOWEST_BIT[m]
            m &= m - 1
            total += RANK_POINTS[r]
    return total
