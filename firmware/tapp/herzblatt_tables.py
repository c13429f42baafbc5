"""Variant tables of the Herzblatt family (docs/rules 2.10-2.12)."""
from .cards import HEARTS
from .variants import (
    AUCTION_ASK,
    AUCTION_SUITS,
    GOAL_LAST_TRICK,
    GOAL_POINTS,
    ORDER_NORMAL,
    TALON_EXCHANGE,
    TALON_LAST_TRICK,
    TRUMP_NONE,
)

# docs/rules 1.2 / D36 / D37: decks and packets per player count (skat of 2).
DECKS = {2: "hb2", 3: "hb3", 4: "hb4", 5: "hb5"}
DEALS = {2: (3, -2, 3, 3), 3: (3, -2, 3, 2), 4: (3, -2, 4), 5: (3, -2, 3)}

_SOLOIST = ("soloist", 1, HEARTS, TALON_EXCHANGE, GOAL_POINTS, "stake", ORDER_NORMAL)


def _herzblatt(contracts, auction, settle, announce, target, options, choices):
    opts = {"stake": 10, "four_player_removed": "H8,D8"}
    opts.update(options)
    ch = {"four_player_removed": ("H8,D8", "H7,D7")}
    ch.update(choices)
    return {
        "players": (2, 3, 4, 5), "direction": 1, "deck": DECKS, "deal": DEALS,
        "auction": auction, "contracts": contracts, "settle": settle,
        "announce": announce, "target": target, "overtrump": True, "draw": False,
        "options": opts, "choices": ch,
    }


# docs/rules 2.10: Braun 1966; 66 to win, schneider stakes, loss_multiplier (D35).
HERZBLATT = _herzblatt((_SOLOIST,), AUCTION_ASK, "herzblatt", (), 66,
                       {"loss_multiplier": 2}, {"loss_multiplier": (1, 2)})

# docs/rules 2.11: Muhr 2014; more points than the defenders, 66/Du, contra/re.
HERZBLATT_MUHR = _herzblatt((_SOLOIST,), AUCTION_ASK, "muhr",
                            ("66", "du", "kontra", "re"), 61,
                            {"schneider_limit": 33}, {})
HERZBLATT_MUHR["double_needs_unasked"] = True   # 2.11: only defenders never asked

# docs/rules 2.12 (D40): ascending suit bids, Herzblatt settlement.
BRAUN_SOLO = _herzblatt(tuple(
    (cid, rank, suit, TALON_EXCHANGE, GOAL_POINTS, "stake", ORDER_NORMAL)
    for cid, rank, suit in (("diamond_solo", 1, 3), ("heart_solo", 2, 2),
                            ("spade_solo", 3, 1), ("club_solo", 4, 0))
), AUCTION_SUITS, "herzblatt", (), 66,
    {"loss_multiplier": 2, "all_pass": "redeal"},
    {"loss_multiplier": (1, 2), "all_pass": ("redeal", "last_trick")})
BRAUN_SOLO["last_trick_game"] = ("last_trick", 0, TRUMP_NONE, TALON_LAST_TRICK,
                                  GOAL_LAST_TRICK, "stake", ORDER_NORMAL)
