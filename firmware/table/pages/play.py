"""The auction and the play: a row per seat, the standing call, the prompt.

Row 1 names the contract and who plays it (in the auction the standing call
and its caller, or who speaks first); rows 2-6 a seat each (up to 5: its
mark -- ">" on turn, "*" the trick's winner while it is cleared -- its name
and its card, in the auction its last call); with up to 4 seats row 6 is the
message row (a refusal, the finished trick, "OK lang drücken", who speaks);
row 7 the menu entry between "<" ">", or whose turn it is ("Bert drückt 1/3"
while he lays away).  With 5 seats row 1 is the message row while there is
one to say (the contract comes back after it).  Whose turn it is, the
trick's winner and its points stay on screen at every seat count: a message
while the trick is cleared moves "Bert sticht 25" to row 7.  The undo
question takes rows 6 and 7: what it takes back ("Bert ♦A") and the
question.  A Rufer call is shown until the first card: "Cora ruft ♥8" on the
message row, the hand-over on the seat rows ("♥8→Cora" at its holder,
"♣8→Bert" at the declarer).

A seat's row during the play names what it shows (``key``): a card laid
writes only the rows of the seats whose card or mark changed.
"""
from tapp.cards import CODE_INDEX

from .. import names, texts
from ..names import SUITS
from ..rows import COLS, width
from .parts import Page as Base
from .parts import (
    declared,
    header,
    header_key,
    name_in,
    says,
    seat_right_row,
    up_to_8,
    wins,
)

_ARROW = 0x2192                  # →


class Page(Base):
    def __init__(self):
        self.menu = False            # a menu on the prompt row
        self.seats = []              # the deal's active seats
        self.undo = False            # the undo question is asked
        self.calls = False           # the seat rows show the auction's calls
        self.handover = False        # the seat rows show the Rufer's hand-over
        self.up = 0                  # the doubling shown in the header (row 1 is full)

    def start(self, s, fresh):
        table = s.table
        self.menu = table.menu_size() > 0
        self.seats = s.active()
        self.undo = table.overlay() == "undo"
        self.calls = _auction_shown(s)
        self.handover = _handing_over(s)
        self.up = times_up(s)

    def key(self, s, r):
        if r == 0:
            return header_key(s) * 64 + self.up
        i = r - 2
        if 0 <= i < len(self.seats) and i < 5 and not self.calls and not self.handover \
                and not (r == 6 and self.undo):
            seat = self.seats[i]
            return (seat * 37 + card_of(s, seat) + 1) * 3 + _mark(s, seat)
        return -1

    def row(self, s, r):
        if r == 0:
            header(s, True, self.up)
        elif r == 1:
            self._row_one(s)
        elif r == 7:
            self._prompt(s)
        elif r == 6 and self.undo:
            s.w.begin(6)
            _undo_target(s)
            s.w.end(False)
        elif r - 2 < len(self.seats) and r - 2 < 5:
            self._seat_row(s, self.seats[r - 2], r)
        elif r == 6:
            s.w.begin(6)
            _status(s)
            s.w.end(False)
        else:
            s.w.blank(r)

    def _row_one(self, s):
        table = s.table
        if len(self.seats) > 4 and (table.message() or table.clearing() or
                                    self.menu and table.menu_needs_hold()):
            s.w.begin(1)             # 5 seats: row 1 is the message row
            _status(s)
            s.w.end(False)
        else:
            _contract_line(s)

    def _seat_row(self, s, seat, r):
        """(Small methods: a frame over 11 words would go on the heap.)"""
        s.w.begin(r)
        s.w.right()
        if self.calls:
            _seat_call(s, seat)
        elif self.handover:
            _handing(s, seat)
        else:
            _seat_card(s, seat)
        seat_right_row(s, seat, _MARKS[_mark(s, seat)])

    def _prompt(self, s):
        w = s.w
        table = s.table
        if self.undo:
            w.begin(7, True)
            w.text("undo_q")
        elif self.menu:
            w.begin(7, True)
            w.put(60)                # <
            w.short(table.menu_label(table.menu_pos()), COLS - 2)
            w.put(62)                # >
        else:
            w.begin(7)
            self._turn(s)
        w.end(False)

    def _turn(self, s):
        table = s.table
        if table.clearing() and table.message():
            wins(s)                  # the message row is taken: the winner here
        elif table.clearing():
            s.w.text("clear")
        elif s.view.expects() == "discard":
            _laying(s)
        elif s.view.turn() >= 0:
            says(s, "turn", s.view.turn())


_MARKS = b" >*"


def _seat_card(s, seat):
    card = card_of(s, seat)
    if card >= 0:
        s.w.card(card)


def _mark(s, seat):
    """0: none, 1: the seat on turn (">"), 2: the trick's winner while it is cleared ("*")."""
    view = s.view
    if s.table.clearing() and seat == view.last_winner():
        return 2
    return 1 if seat == view.turn() else 0


def _auction_shown(s):
    """Do the seat rows show the calls (before the first card)?"""
    view = s.view
    return view.trick_number() <= 1 and view.trick_size() == 0 \
        and not s.table.clearing() and view.expects() != "card"


def card_of(s, seat):
    """The card shown at ``seat``: of the trick being played, or of the last
    one while it is cleared; -1 none."""
    view = s.view
    table = s.table
    if table.clearing() or (view.trick_size() == 0 and table.trick_shown()):
        card = table.last_trick_card(seat)
        return card if card != -2 else _from_last_trick(view, seat)
    i = 0
    while i < view.trick_size():
        if view.trick_seat(i) == seat:
            return view.trick_card(i)
        i += 1
    return -1


def _from_last_trick(view, seat):
    """The card ``seat`` laid in the view's last trick, or -1 (allocates: used
    after a power-up or an undo, when the game has no record of that trick)."""
    last = view.last_trick()
    if last is None:
        return -1
    seats = view.active_seats()
    k = (seats.index(seat) - seats.index(last["leader"])) % len(seats)
    cards = last["cards"]
    return CODE_INDEX[cards[k]] if k < len(cards) else -1


def _seat_call(s, seat):
    """The seat's last call in this deal's auction (none: nothing)."""
    view = s.view
    k = view.calls_made() - 1
    while k >= 0:
        c = view.call_made(k)
        if c[1] == seat:
            _call(s, c)
            return
        k -= 1


def _call(s, c):
    """A call as the menu names it (names.call_label): the word, the
    contract, the trump's symbol, the value."""
    w = s.w
    sep = _word(w, c[2])
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


def _word(w, word):
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


def _status(s):
    """The message row: a refusal or warning, else the finished trick, else
    in the auction who speaks."""
    view = s.view
    table = s.table
    if table.message():
        s.w.add(table.message())
    elif table.clearing():
        wins(s)
    elif table.menu_needs_hold():
        s.w.text("hold_ok")          # a stake: how to choose it
    elif view.expects() == "call" and _standing(view) >= 0 and view.turn() >= 0:
        says(s, "calls", view.turn())
    elif view.expects() == "discard" and table.menu_size():
        _laying(s)                   # the menu takes the prompt row
    elif view.expects() == "rufer":
        _calling(s, table.rufer_pick())
    elif _handing_over(s):
        _calling(s, view.rufer_call(0))


def _says_left(s, key, seat, tail=0):
    """The right part is written (a card, a count): the text ``key`` with the
    seat's name in the room left before it ("Cora ruft ♥8"), and ``tail``
    (a character, 0: none) after the text."""
    w = s.w
    room = w.left() - w.text_len(key) + 2 - (1 if tail else 0)
    w.text_head(key)
    name_in(s, seat, up_to_8(room))
    w.text_tail(key)
    if tail:
        w.put(tail)


def _laying(s):
    """"Bert drückt 1/3": the declarer lays away, the discards counted so far
    (strict mode; open mode: the table does not see them)."""
    view = s.view
    w = s.w
    w.right()
    if view.strict():
        w.fraction(s.table.discards_taken(), view.talon_size())
    _says_left(s, "lays_away", view.declarer())


def _calling(s, card):
    """"Cora ruft ♥8" (before the card is picked: "Cora ruft:")."""
    w = s.w
    w.right()
    if card >= 0:
        w.card(card)
    _says_left(s, "rufer", s.view.declarer(), 0 if card >= 0 else 58)    # :


def _handing_over(s):
    """Is a Rufer call shown on the seat rows (made, and no card played yet)?"""
    view = s.view
    return view.rufer_call(0) >= 0 and view.expects() == "card" and \
        view.trick_number() == 1 and view.trick_size() == 0 and not s.table.clearing()


def _handing(s, seat):
    """A seat row's right part during the hand-over: the holder's "♥8→Cora",
    the declarer's "♣8→Bert" ("gibt ♣8" when open mode does not know the
    holder, "♥8 im Stock" when the called card lies there)."""
    view = s.view
    holder = view.rufer_call(2)
    if seat == holder:
        _to(s, view.rufer_call(0), view.declarer())
    elif seat != view.declarer():
        return
    elif view.rufer_call(1) < 0:
        _card_in(s.w, "in_talon", view.rufer_call(0))
    elif holder >= 0:
        _to(s, view.rufer_call(1), holder)
    else:
        _card_in(s.w, "gives", view.rufer_call(1))


def _to(s, card, seat):
    """"♥8→Cora": a card and who gets it (his name in at most 5 columns)."""
    s.w.card(card)
    s.w.put(_ARROW)
    name_in(s, seat, 5)


def _card_in(w, key, card):
    """The text ``key`` with a card in its "%s"."""
    w.text_head(key)
    w.card(card)
    w.text_tail(key)


def _undo_target(s):
    """Above the undo question: what it takes back -- "Bert ♦A" (a card),
    "Cora Herz-Rufer" (a call), "Cora Tout", "Cora ruft ♥8", "Cora drückt"
    (the lay-away), "Anna gibt" (the deal); blank: nothing."""
    view = s.view
    w = s.w
    kind = view.undo_kind()
    seat = view.undo_seat()
    w.right()
    if kind == "play":
        w.card(view.undo_card())
    elif kind == "bid":
        _call(s, view.call_made(view.calls_made() - 1))
    elif kind == "announce":
        _word(w, view.undo_word())
    elif kind == "rufer":
        w.card(view.undo_card())
        _says_left(s, "rufer", seat)
        return
    elif kind == "exchange" or kind == "deal":
        _says_left(s, "lays_away" if kind == "exchange" else "deal_centre", seat)
        return
    else:
        return
    _named_left(s, seat)


def _contract_line(s):
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


def _named_left(s, seat):
    """The right part is written: the seat's name in the room left; in
    English with a colon, the call quoted ("Cora: play", not "Cora play")."""
    w = s.w
    room = w.left()
    if w.lang == "en":
        name_in(s, seat, up_to_8(room - 1))
        w.put(58)                    # :
    else:
        name_in(s, seat, up_to_8(room))


def _auction_line(s):
    view = s.view
    w = s.w
    k = _standing(view)
    w.begin(1)
    if k >= 0:
        w.right()
        _standing_call(s, k)
        _named_left(s, view.call_made(k)[1])
        w.end(False)
    else:
        if view.turn() >= 0:
            says(s, "calls", view.turn())
        w.end()


def _standing(view):
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
    _call(s, c)


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
