"""Variant tables (RULES.md section 2): rules as data, not branches.

Each variant is a dict of plain values.  A contract row is a tuple indexed by
the ``C_*`` constants.  ``resolve`` turns a record header into the settings a
Session plays by, and refuses bad headers with a one-line reason.
"""
from .cards import HEARTS

# Contract row fields.
C_ID = 0
C_RANK = 1
C_TRUMP = 2    # a suit int, or TRUMP_CHOOSE / TRUMP_NONE
C_TALON = 3    # TALON_*
C_GOAL = 4     # GOAL_*
C_VALUE = 5    # settlement value, meaning depends on the variant's settle kind
C_ORDER = 6    # rank order: ORDER_NORMAL or ORDER_BETTEL

TRUMP_NONE = -1
TRUMP_CHOOSE = -2   # declarer names C, S or D
TRUMP_ANY = -3      # declarer names any suit

TALON_EXCHANGE = 0    # declarer picks up the talon and discards as many
TALON_DECLARER = 1    # untouched, counts for the declarer
TALON_UNUSED = 2      # untouched; card points do not matter
TALON_LAST_TRICK = 3  # to the winner of the last trick (Ramsch)

GOAL_POINTS = 0      # d >= target
GOAL_NO_TRICK = 1    # Bettel
GOAL_ALL_TRICKS = 2  # Rufer, Durch
GOAL_RAMSCH = 3      # fewest points, everyone for himself
GOAL_LAST_TRICK = 4  # braun_solo all passed: the last trick wins

ORDER_NORMAL = 0
ORDER_BETTEL = 1

# The contract of a deal before (or without) an auction winner: thrown in.
NO_CONTRACT = ("", 0, TRUMP_NONE, TALON_UNUSED, GOAL_POINTS, 0, ORDER_NORMAL)

# Auction protocols of RULES.md 1.8 (auction.PROTOCOLS maps them to classes).
AUCTION_NAMED = "A"
AUCTION_LEVELS = "B"
AUCTION_TWO_ROUNDS = "C"
AUCTION_LADDER = "D"
AUCTION_SCHARF = "E"
AUCTION_ASK = "F"
AUCTION_SUITS = "G"

_F = (TALON_EXCHANGE, GOAL_POINTS)
_D = (TALON_DECLARER, GOAL_POINTS)


def _tapp3(contracts, tout_factor):
    """The two 19th-century games share everything but contracts and Tout factor."""
    return {
        "players": (3,),
        "direction": 1,
        "deck": {3: "d36"},
        "deal": {3: (-3, 4, 3, 4)},   # tapp of 3 first, then 4-3-4 from forehand
        "auction": AUCTION_NAMED,
        "contracts": contracts,
        "settle": "excess",
        "announce": ("tout",),
        "options": {"pot": False, "pot_ante": 2, "tout_factor": tout_factor},
        "choices": {"pot": (False, True), "tout_factor": (2, 3)},
    }


# RULES.md 2.1: value = x * m per defender -> (numerator, denominator) of x.
WUERTTEMBERG = _tapp3((
    ("frage", 1, HEARTS) + _F + ((1, 1), ORDER_NORMAL),
    ("solo", 2, HEARTS) + _D + ((2, 1), ORDER_NORMAL),
), 3)

# RULES.md 2.2: Frage ceil(x/4), Suit Solo ceil(x/2), Heart Solo x.
TAPP_CLASSIC = _tapp3((
    ("frage", 1, HEARTS) + _F + ((1, 4), ORDER_NORMAL),
    ("suit_solo", 2, TRUMP_CHOOSE) + _D + ((1, 2), ORDER_NORMAL),
    ("heart_solo", 3, HEARTS) + _D + ((1, 1), ORDER_NORMAL),
), 2)

# RULES.md 2.3: fixed values in cents per defender.
_U = TALON_UNUSED
TAPP_MODERN = {
    "players": (3, 4),
    "direction": -1,
    "deck": {3: "d36", 4: "d36"},
    "deal": {3: (4, 3, -3, 4), 4: (3, -2, 2, -2, 3)},
    "deal32": {4: (3, -2, 2, -2, 2)},
    "auction": AUCTION_TWO_ROUNDS,
    "contracts": (
        ("frage", 1, HEARTS) + _F + (5, ORDER_NORMAL),
        ("suit_solo", 2, TRUMP_CHOOSE) + _D + (5, ORDER_NORMAL),
        ("heart_solo", 3, HEARTS) + _D + (10, ORDER_NORMAL),
        ("bettel", 4, TRUMP_NONE, _U, GOAL_NO_TRICK, 15, ORDER_BETTEL),
        ("suit_rufer", 5, TRUMP_CHOOSE, _U, GOAL_ALL_TRICKS, 15, ORDER_NORMAL),
        ("heart_rufer", 6, HEARTS, _U, GOAL_ALL_TRICKS, 30, ORDER_NORMAL),
        ("bettel_ouvert", 7, TRUMP_NONE, _U, GOAL_NO_TRICK, 30, ORDER_BETTEL),
        ("suit_durch", 8, TRUMP_CHOOSE, _U, GOAL_ALL_TRICKS, 30, ORDER_NORMAL),
        ("heart_durch", 9, HEARTS, _U, GOAL_ALL_TRICKS, 60, ORDER_NORMAL),
    ),
    "all_pass": ("ramsch", 0, TRUMP_NONE, TALON_LAST_TRICK, GOAL_RAMSCH, 5,
                 ORDER_NORMAL),
    "settle": "fixed",
    "announce": (),
    "draw": False,
    "options": {"pack": 36, "first_bidder": "forehand", "frage_value": 5,
                "bettel_order": "bettel", "ramsch_tie": "all_tied_pay"},
    "choices": {"pack": (36, 32), "first_bidder": ("forehand", "middlehand"),
                "bettel_order": ("bettel", "normal"),
                "ramsch_tie": ("all_tied_pay", "none_pay")},
}

# Options every variant has (RULES.md 3.4).
COMMON_OPTIONS = {"revoke_penalty": "forfeit"}
COMMON_CHOICES = {"revoke_penalty": ("forfeit", "none")}


class HeaderError(Exception):
    """A record header the engine cannot play by (one-line reason)."""


def _digits(text):
    """ASCII digits only (str.isdigit also accepts superscripts and other scripts)."""
    if not text:
        return False
    for ch in text:
        if ch < "0" or ch > "9":
            return False
    return True


def parse_rate(key, v):
    """A rational rate: an int, ``"a/b"`` or ``[a, b]`` -> (a, b) with b > 0."""
    if _is_int(v) and v >= 0:
        return (v, 1)
    if isinstance(v, str) and v.count("/") == 1:
        a, b = v.split("/")
        if _digits(a) and _digits(b) and int(b) > 0:
            return (int(a), int(b))
    if isinstance(v, list) and len(v) == 2 and _is_int(v[0]) and _is_int(v[1]) \
            and v[0] >= 0 and v[1] > 0:
        return (v[0], v[1])
    raise HeaderError("option " + key + " must be a rate such as 1, \"1/2\" or [1, 2]")


def parse_pair(key, v):
    """Simple/schneider amounts: ``"25/30"`` or ``[25, 30]`` -> (25, 30)."""
    if isinstance(v, (str, list)):
        return parse_rate(key, v)
    raise HeaderError("option " + key + " must be simple/schneider amounts such as [25, 30]")


PARSERS = {"rate_frage": parse_rate, "rate_solo": parse_rate,
           "fixed_frage": parse_pair, "fixed_solo": parse_pair,
           "fixed_heart_solo": parse_pair}


def _is_int(v):
    return isinstance(v, int) and not isinstance(v, bool)


def resolve_options(table, given):
    """Defaults overlaid with the header's options, each one checked."""
    opts = {}
    for src in (COMMON_OPTIONS, table["options"]):
        for k in src:
            opts[k] = src[k]
    if given is None:
        return opts
    if not isinstance(given, dict):
        raise HeaderError("options must be an object")
    choices = table["choices"]
    for k in given:
        v = given[k]
        if k == "players":
            continue  # RULES.md lists it as an option; the header field rules
        if k not in opts:
            raise HeaderError("unknown option: " + str(k))
        allowed = choices.get(k) or COMMON_CHOICES.get(k)
        parse = PARSERS.get(k)
        if parse is not None:
            v = parse(k, v)
        elif allowed is not None:
            if v not in allowed or isinstance(v, bool) != isinstance(allowed[0], bool):
                raise HeaderError("bad value for option " + k + ": " + str(v))
        elif not _is_int(v) or v < 0:
            raise HeaderError("option " + k + " must be a non-negative integer")
        opts[k] = v
    return opts


