"""Variant tables of the Bavarian Tarock family (docs/rules 2.4-2.9).

The C_VALUE field of a contract names its tariff class: ``"frage"`` or
``"solo"`` (rates and fixed amounts come from the options), ``"bettel"``,
``"pickup"``/``"hand"`` (Haferl) — settle.py reads it.
"""
from .cards import HEARTS
from .variants import (
    AUCTION_LADDER,
    AUCTION_LEVELS,
    AUCTION_NAMED,
    AUCTION_SCHARF,
    C_TRUMP,
    GOAL_NO_TRICK,
    GOAL_POINTS,
    ORDER_BETTEL,
    ORDER_NORMAL,
    TALON_DECLARER,
    TALON_EXCHANGE,
    TALON_UNUSED,
    TRUMP_ANY,
    TRUMP_CHOOSE,
    TRUMP_NONE,
)

_X = (TALON_EXCHANGE, GOAL_POINTS)
_H = (TALON_DECLARER, GOAL_POINTS)

DOUBLING = ("off", "kontra_re", "extended")  # docs/rules 2.9

# Options shared by simple Tarock and Tarock with Bettel (docs/rules 2.4, 2.5).
_TAROCK_OPTIONS = {
    "payment": "per_point", "rate_frage": (1, 2), "rate_solo": (1, 1),
    "rounding": "up5", "bank_ante": 100, "shortfall": "cap_end",
    "fixed_frage": (25, 30), "fixed_solo": (50, 60), "fixed_heart_solo": (50, 60),
    "durch_bonus": 0, "frage_trump": "hearts", "doubling": "off",
}
_TAROCK_CHOICES = {
    "payment": ("per_point", "fixed"), "rounding": ("up5", "nearest5", "cent"),
    "shortfall": ("cap_end", "refill"), "frage_trump": ("hearts", "any"),
    "doubling": DOUBLING,
}


def _bavarian(deck, deal, auction, contracts, settle, options, choices):
    """3 active players; with 4 at the table the dealer sits out (docs/rules 1.4)."""
    return {
        "players": (3, 4), "direction": 1, "sit_out": True, "draw": settle == "tarock",
        "deck": {3: deck, 4: deck}, "deal": {3: deal, 4: deal},
        "auction": auction, "contracts": contracts, "settle": settle,
        "announce": ("kontra", "re", "supp", "resupp", "hirsch"),
        "options": options, "choices": choices,
    }


# docs/rules 2.4: Gschdaad of 3 first, then 4-3-4; protocol B; the contract is
# declared after the auction.  frage_trump = any turns the Frage trump free.
TAROCK_SIMPLE = _bavarian("d36", (-3, 4, 3, 4), AUCTION_LEVELS, (
    ("frage", 1, HEARTS) + _X + ("frage", ORDER_NORMAL),
    ("solo", 2, TRUMP_CHOOSE) + _H + ("solo", ORDER_NORMAL),
    ("heart_solo", 3, HEARTS) + _H + ("solo", ORDER_NORMAL),
), "tarock", _TAROCK_OPTIONS, _TAROCK_CHOICES)
# D16 option: frage_trump = any makes the Frage trump the declarer's free choice
TAROCK_SIMPLE["row_options"] = (("frage_trump", "any", "frage", C_TRUMP, TRUMP_ANY),)

# docs/rules 2.5 (D22, D23): five named bids, protocol A, fixed payments by default.
_BETTEL_OPTIONS = dict(_TAROCK_OPTIONS)
_BETTEL_OPTIONS["payment"] = "fixed"
_BETTEL_OPTIONS["bettel_base"] = 25
TAROCK_BETTEL = _bavarian("d36", (-3, 4, 3, 4), AUCTION_NAMED, (
    ("frage", 1, TRUMP_CHOOSE) + _X + ("frage", ORDER_NORMAL),
    ("heart_frage", 2, HEARTS) + _X + ("frage", ORDER_NORMAL),
    ("solo", 3, TRUMP_CHOOSE) + _H + ("solo", ORDER_NORMAL),
    ("heart_solo", 4, HEARTS) + _H + ("solo", ORDER_NORMAL),
    ("bettel", 5, TRUMP_NONE, TALON_UNUSED, GOAL_NO_TRICK, "bettel", ORDER_BETTEL),
), "tarock", _BETTEL_OPTIONS, _TAROCK_CHOICES)

# docs/rules 2.6 / 2.7: 4-3-Stock-4, protocol D, trump of the declarer's choice.
HAFERLTAROCK = _bavarian("d36", (4, 3, -3, 4), AUCTION_LADDER, (
    ("pickup", 1, TRUMP_ANY) + _X + ("pickup", ORDER_NORMAL),
    ("hand", 2, TRUMP_ANY) + _H + ("hand", ORDER_NORMAL),
), "haferl", {
    "pot_ante": 50, "shortfall": "cap_end", "herz_neischaugn": False,
    "self_raise": False, "raise_payment": "target", "berliner": False,
    "berliner_hearts": False, "doubling": "off",
}, {
    "shortfall": ("cap_end", "refill"), "herz_neischaugn": (False, True),
    "self_raise": (False, True), "raise_payment": ("target", "base61"),
    "berliner": (False, True), "berliner_hearts": (False, True), "doubling": DOUBLING,
})

# docs/rules 2.8 (D30-D32): 24 cards, 3-Stock-4, protocol E.
SCHARFER_TAROCK = _bavarian("d24", (3, -3, 4), AUCTION_SCHARF, (
    ("frage", 1, HEARTS) + _X + ("frage", ORDER_NORMAL),
    ("solo", 2, TRUMP_CHOOSE) + _H + ("solo", ORDER_NORMAL),
    ("heart_solo", 3, HEARTS) + _H + ("solo", ORDER_NORMAL),
), "scharf", {"start_balance": 1000, "end_when_broke": False, "doubling": "off"},
    {"end_when_broke": (False, True), "doubling": DOUBLING})

