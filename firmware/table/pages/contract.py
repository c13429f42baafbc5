"""Row 1 of the auction and the play, and a call as the menu names it.

Row 1 names the contract and who plays it: the contract (said short where
the row is tight), its trump's symbol unless the name says the suit, and
the doubling ("x4") -- in the header instead when it would leave the
declarer's name too little room (``times_up``).  In the auction it names
the standing call and its caller ("Herz-Rufer Cora"), or who speaks first.
A call is written as the menu names it (``call``: the word, the contract,
the trump's symbol, the value); the play page's seat rows and its undo
question write calls with it too.  Counted and written in small functions,
allocating nothing (a frame over 11 words would go on the heap).
"""
from .. import names, texts
from ..names import SUITS
from ..rows import COLS, width
from .parts import declared, name_in, says, up_to_8

try:
    from micropython import const
except ImportError:  # CPython
    const = lambda x: x  # noqa: E731

# row 1's keys in the auction (a contract's are below 1024 * 1024 * 5 * 7)
_AUCTION_KEYS = const(1 << 28)


def contract_line(s):
    """Row 1: the contract and who plays it; in the auction the standing
    call and its caller, or who speaks first."""
    view = s.view
    w = s.w
    cid = view.contract()
    if view.expects() == "call" and cid is None:
        _auction_line(s)
    elif cid is None or view.declarer() < 0:
        w.begin(1)
        if cid is not None:
            w.contract(cid)
        w.end()
    else:
        w.begin(1)
        declared(s, cid, view.declarer(), contract_right)


def contract_key(s, j):
    """What row 1 shows once the contract is known, as a number (the
    contract -- ``j``, its ``names.contract_number`` -- its declarer, trump
    and doubling: a card laid leaves the row alone); in the auction the
    standing call's place among the calls (an undo has every row written
    anew: table/game.py ``undone``) and who is on turn; -1 where the calls
    go on after the contract."""
    view = s.view
    if view.expects() == "call":
        if view.contract() is not None:
            return -1
        k = standing(view)
        return _AUCTION_KEYS + (k + 1) * 16 + (view.turn() + 1 if k < 0 else 0)
    if j < 0:
        return -1
    t = view.trump()
    k = (j * 6 + view.declarer() + 1) * 5 + (SUITS.find(t) + 1 if t else 0)
    return k * 1024 + (view.multiplier() & 1023)


def contract_right(s, cid, short):
    """The contract, its trump's symbol and the doubling (``declared``; the
    header shows the doubling where it would leave the name too little)."""
    s.w.contract(cid, short)
    _trump(s, cid, short)
    if not times_up(s):
        _times(s.w, s.view.multiplier())


def times_up(s):
    """The doubling when row 1 cannot hold it beside the contract and a
    readable name (names.MIN_NAME; "Aufnehmen ♣ x32") -- the header shows
    it then, in place of its "G:Anna" -- else 0.  Counted, not written, in
    small functions: nothing is allocated."""
    view = s.view
    m = view.multiplier()
    if m < 2 or view.contract() is None or view.declarer() < 0:
        return 0
    return 0 if _name_room(s, m) >= _name_needs(s) else m


def _name_room(s, m):
    """Row 1's columns for the name beside the contract (said short where it
    has a short name), its trump's symbol and the doubling ``m``."""
    cid = s.view.contract()
    short = cid in names.SHORT
    return COLS - 3 - width(m) - _contract_width(s.w, cid, short) - \
        _symbol_width(s, cid, short)


def _symbol_width(s, cid, short):
    trump = s.view.trump()
    suit = SUITS.find(trump) if trump and len(trump) == 1 else -1
    return 2 if suit >= 0 and not _names_suit(s.w, cid, suit, short) else 0


def _name_needs(s):
    """The columns the declarer's name must keep: names.MIN_NAME, or all of it."""
    n = len(s.seat_names[s.view.declarer()])
    return n if n < names.MIN_NAME else names.MIN_NAME


def _short_names(w, cid, suit):
    return names.SHORT_SUITS[cid][1 if w.lang == "en" else 0] >> suit & 1 != 0


def _contract_width(w, cid, short):
    """Columns of contract ``cid``'s name (``short``: its short name)."""
    if short:
        return len(names.SHORT[cid][1 if w.lang == "en" else 0])
    j = names.contract_number(cid, w.lang)
    return len(cid) if j < 0 else w.number_len(j)


def _times(w, m):
    if m > 1:
        w.put(32)
        w.put(120)                   # x
        w.num(m)


def _trump(s, cid, short=False):
    """The trump's symbol, unless the contract's name (``short``: its short
    name) names the suit."""
    trump = s.view.trump()
    if not trump:
        return
    suit = SUITS.find(trump) if len(trump) == 1 else -1
    if suit >= 0 and not _names_suit(s.w, cid, suit, short):
        s.w.put(32)
        s.w.suit(suit)


def _names_suit(w, cid, suit, short):
    """Does contract ``cid``'s name (``short``: its short name) hold the word
    of ``suit`` (then its symbol is left out)?"""
    if short and cid in names.SHORT:
        return _short_names(w, cid, suit)
    return _contract_names(w, cid, suit)


def _contract_names(w, cid, suit):
    """Does contract ``cid``'s name hold the word of ``suit``?"""
    j = names.contract_number(cid, w.lang)
    if j < 0:
        return cid.find(names.suit_word(suit, w.lang, w.german)) >= 0
    return names.suits_named(j) >> suit & 1 != 0


def _auction_line(s):
    view = s.view
    w = s.w
    k = standing(view)
    w.begin(1)
    if k >= 0:
        w.right()
        _standing_call(s, k)
        named_left(s, view.call_made(k)[1])
        w.end(False)
    else:
        if view.turn() >= 0:
            says(s, "calls", view.turn())
        w.end()


def standing(view):
    """The number of the auction's standing call: the last one that is not
    a pass (-1: none yet)."""
    k = view.calls_made() - 1
    while k >= 0:
        word = view.call_made(k)[2]
        if word != "pass" and word != "weg" and word != "nicht_herz":
            return k
        k -= 1
    return -1


def _standing_call(s, k):
    """The standing call: "halte" names the contract it holds."""
    view = s.view
    c = view.call_made(k)
    if c[2] == "hold":
        j = k - 1
        while j >= 0:
            if view.call_made(j)[3] is not None:
                s.w.contract(view.call_made(j)[3])
                return
            j -= 1
    call(s, c)


def named_left(s, seat):
    """The right part is written: the seat's name in the room left; in
    English with a colon, the call quoted ("Cora: play", not "Cora play")."""
    w = s.w
    room = w.left()
    if w.lang == "en":
        name_in(s, seat, up_to_8(room - 1))
        w.put(58)                    # :
    else:
        name_in(s, seat, up_to_8(room))


def call(s, c):
    """A call as the menu names it (names.call_label): the word, the
    contract, the trump's symbol, the value."""
    w = s.w
    sep = call_word(w, c[2])
    if c[3] is not None:
        _space_if(w, sep)
        w.contract(c[3])
        sep = True
    if c[4] is not None:
        _space_if(w, sep)
        w.suit(SUITS.find(c[4]))
        sep = True
    if c[5] is not None:
        _space_if(w, sep)
        w.num(c[5])


def call_word(w, word):
    """A call's or an announcement's word (none for "bid", "declare"): written?"""
    j = names.call_number(word, w.lang)
    if j >= 0 and texts.OFF[j + 1] - 1 > texts.OFF[j]:
        w.text_number(j)
        return True
    if j < 0:
        w.add(word)
        return True
    return False


def _space_if(w, sep):
    if sep:
        w.put(32)
