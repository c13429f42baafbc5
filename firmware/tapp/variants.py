"""Variant tables (docs/rules section 2): rules as data, not branches.

Each variant is a dict of plain values.  A contract row is a tuple indexed by
the ``C_*`` constants.  ``resolve`` turns a record header into the settings a
Session plays by, and refuses bad headers with a one-line reason.
"""
from .cards import HEARTS

try:
    from micropython import const
except ImportError:  # CPython
    const = lambda x: x  # noqa: E731

# Contract row fields.
C_ID = 0
C_RANK = 1
C_TRUMP = 2    # a suit int, or TRUMP_CHOOSE / TRUMP_NONE
C_TALON = 3    # TALON_*
C_GOAL = 4     # GOAL_*
C_VALUE = 5    # settlement value, meaning depends on the variant's settle kind
C_ORDER = 6    # rank order: ORDER_NORMAL or ORDER_BETTEL
C_FLAGS = 7    # F_* bits; appended by Rules from the table's ``flags``

F_RUFER = 1    # the declarer calls a card after the exchange (D12)
F_OUVERT = 2   # the declarer's hand is exposed before the first lead

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
NO_CONTRACT = ("", 0, TRUMP_NONE, TALON_UNUSED, GOAL_POINTS, 0, ORDER_NORMAL, 0)

# Auction protocols of docs/rules 1.8 (auction.PROTOCOLS maps them to classes).
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


# docs/rules 2.1: value = x * m per defender -> (numerator, denominator) of x.
WUERTTEMBERG = _tapp3((
    ("frage", 1, HEARTS) + _F + ((1, 1), ORDER_NORMAL),
    ("solo", 2, HEARTS) + _D + ((2, 1), ORDER_NORMAL),
), 3)

# docs/rules 2.2: Frage ceil(x/4), Suit Solo ceil(x/2), Heart Solo x.
TAPP_CLASSIC = _tapp3((
    ("frage", 1, HEARTS) + _F + ((1, 4), ORDER_NORMAL),
    ("suit_solo", 2, TRUMP_CHOOSE) + _D + ((1, 2), ORDER_NORMAL),
    ("heart_solo", 3, HEARTS) + _D + ((1, 1), ORDER_NORMAL),
), 2)

# docs/rules 2.3: fixed values in cents per defender.
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
    "flags": {"suit_rufer": F_RUFER, "heart_rufer": F_RUFER, "bettel_ouvert": F_OUVERT},
    # D10: the Frage's value is an option
    "row_options": (("frage_value", None, "frage", C_VALUE, None),),
    "settle": "fixed",
    "announce": (),
    "draw": False,
    "options": {"pack": 36, "first_bidder": "forehand", "frage_value": 5,
                "bettel_order": "bettel", "ramsch_tie": "all_tied_pay"},
    "choices": {"pack": (36, 32), "first_bidder": ("forehand", "middlehand"),
                "bettel_order": ("bettel", "normal"),
                "ramsch_tie": ("all_tied_pay", "none_pay")},
}

# Options every variant has (docs/rules 3.4).
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


# Bounds of the integer options (RFC 8259 numbers have none; the engine needs
# some).  Money is in the session's smallest unit (cents): MONEY_MAX = 1000.00
# is far above any table's stake, and small enough that a deal's largest
# payment -- a fixed amount x 32 (Kontra..Hirsch), a Muhr stake x 3 x 2 x 4, a
# per-point rate x 60 points x 2 (Durch) x 32 -- stays far below 2**30, the
# small-int limit of the 32-bit device: no long ints, the same arithmetic on
# every runtime, and a number CPython can always print.
MONEY_MAX = 100000
INT_OPTION_RANGES = {
    "pot_ante": (0, MONEY_MAX),           # Tapp pot ante per deal, Haferl session ante
    "frage_value": (0, MONEY_MAX),        # tapp_modern: the Frage's value (D10)
    "bank_ante": (0, MONEY_MAX),          # per-point Tarock: session ante into the bank
    "durch_bonus": (0, MONEY_MAX),        # fixed-payment Tarock: added for a Durch
    "bettel_base": (0, MONEY_MAX),        # tarock_bettel: x4 is the Bettel's value
    "stake": (0, MONEY_MAX),              # Herzblatt family: the unit stake
    "start_balance": (0, 100 * MONEY_MAX),  # scharfer_tarock: every balance starts here
    "schneider_limit": (0, 120),          # card points: a deal has 120 in all
}
_RATE_MAX = const(10000)   # rate a/b per card point: a 0..10000, b 1..10000 (0.0001..10000)


def shown_value(v):
    """A header value for an error message: short, one line, and printed the same
    by CPython and MicroPython (no float or container reprs, no dict order)."""
    if v is None:
        return "null"
    if isinstance(v, bool):
        return "true" if v else "false"
    if _is_int(v):
        return str(v) if -1000000000 < v < 1000000000 else "a huge integer"
    if isinstance(v, str):
        return '"' + v + '"'
    if isinstance(v, float):
        return "a number with a fraction or exponent"
    if isinstance(v, list):
        return "a list"
    if isinstance(v, dict):
        return "an object"
    return "a " + type(v).__name__


def _same_kind(v, ref):
    """``v`` has the type of ``ref`` (a choice): no 3.0 for 3, no true for 1."""
    if isinstance(ref, bool):
        return isinstance(v, bool)
    if isinstance(ref, int):
        return _is_int(v)
    return isinstance(v, str)


def resolve_options(table, given):
    """Defaults overlaid with the header's options, each one checked: choices by
    type and value, integers within INT_OPTION_RANGES, rates and amounts within
    _RATE_MAX and MONEY_MAX.  Options are checked in name order, so a header with
    several bad ones gets the same message on every runtime (MicroPython's dicts
    have no insertion order)."""
    opts = {}
    for src in (COMMON_OPTIONS, table["options"]):
        for k in src:
            opts[k] = src[k]
    if given is None:
        return opts
    if not isinstance(given, dict):
        raise HeaderError("options must be an object")
    for k in given:
        if not isinstance(k, str):
            raise HeaderError("option names must be strings")
    choices = table["choices"]
    for k in sorted(given):
        v = given[k]
        if k == "players":
            continue  # docs/rules lists it as an option; the header field rules
        if k not in opts:
            raise HeaderError("unknown option: " + shown_value(k))
        allowed = choices.get(k) or COMMON_CHOICES.get(k)
        parse = PARSERS.get(k)
        if parse is not None:
            v = parse(k, v)
            top = _RATE_MAX if parse is parse_rate else MONEY_MAX
            if v[0] > top or v[1] > top:
                raise HeaderError("option " + k + ": amounts must be at most " + str(top))
        elif allowed is not None:
            if not _same_kind(v, allowed[0]) or v not in allowed:
                raise HeaderError("bad value for option " + k + ": " + shown_value(v))
        else:
            lo, hi = INT_OPTION_RANGES.get(k, (0, MONEY_MAX))
            if not _is_int(v) or v < lo or v > hi:
                raise HeaderError("option " + k + " must be an integer "
                                  + str(lo) + ".." + str(hi))
        opts[k] = v
    return opts
    if not isinstance(given, dict):
        raise HeaderError("options must be an object")
    choices = table["choices"]
    for k in given:
        v = given[k]
        if k == "players":
            continue  # docs/rules lists it as an option; the header field rules
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


