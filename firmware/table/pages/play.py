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

A seat's row during the play names what it shows (``key``), and so does
row 1 once the contract is known: a card laid writes only the rows of the
seats whose card or mark changed (and the message and prompt rows).  In the
auction a seat's row is named by its last call's place among the deal's
calls and its mark, row 1 by the standing call's place: a move in the menu
writes the menu row alone (an undo has every row written anew:
``Game.undone``).  Row 1 (the
contract, the standing call) and a call written out are pages/contract.py's.
"""
from array import array

from tapp.cards import CODE_INDEX

from .. import names
from ..rows import COLS
from .contract import (
    call,
    call_word,
    contract_key,
    contract_line,
    named_left,
    standing,
    times_up,
)
from .parts import Page as Base
from .parts import (
    header,
    header_key,
    name_in,
    says,
    seat_right_row,
    up_to_8,
    wins,
)

try:
    from micropython import const
except ImportError:  # CPython
    const = lambda x: x  # noqa: E731

# the rows' keys besides a seat's card (below 37 * 8 * 3): each kind its own range
_BLANK_KEY = const(0x7FFF)              # the message row, blank
_STATUS_KEYS = const(0x8000)            # the message row saying who calls, or how to choose a stake
_CALL_KEYS = const(0x10000)             # a seat's row in the auction: its last call and mark

# what the message row says (``_status_kind``); _NOTHING: it is blank
_NOTHING = const(0)
_MESSAGE = const(1)
_WINS = const(2)
_HOLD = const(3)
_CALLS = const(4)
_LAYING = const(5)
_PICKING = const(6)
_HANDING = const(7)

_ARROW = const(0x2192)                  # →


class Page(Base):
    def __init__(self):
        self.menu = False            # a menu on the prompt row
        self.seats = []              # the deal's active seats
        self.undo = False            # the undo question is asked
        self.calls = False           # the seat rows show the auction's calls
        self.handover = False        # the seat rows show the Rufer's hand-over
        self.up = 0                  # the doubling shown in the header (row 1 is full)
        # what the seat rows' keys read, read once per draw (not per row)
        self.last = False            # they show the last trick (cleared, or just taken)
        self.turn = -1               # the seat on turn
        self.winner = -1             # the trick's winner while it is cleared, else -1
        self.cards = array("b", [-1] * 8)   # the card each seat's row shows (-1: none)
        self.cid = None              # the contract row 1 names, and its number (names)
        self.cnum = -1

    def start(self, s, fresh):
        table = s.table
        self.menu = table.menu_size() > 0
        self.seats = s.active()
        self.undo = table.overlay() == "undo"
        self.calls = _auction_shown(s)
        self.handover = _handing_over(s)
        self.up = times_up(s)
        self._seat_inputs(s)

    def _seat_inputs(self, s):
        view = s.view
        clearing = s.table.clearing()
        self.last = clearing or _just_taken(s)
        self.turn = view.turn()
        self.winner = view.last_winner() if clearing else -1
        self._seat_cards(s)

    def _seat_cards(self, s):
        """The card each seat's row shows, read once a draw: of the trick
        being played, or of the last one while it is shown.  (Small methods:
        a frame over 11 words would go on the heap.)"""
        cards = self.cards
        i = 0
        while i < 8:
            cards[i] = -1
            i += 1
        if self.last:
            self._last_cards(s)
            return
        view = s.view
        i = view.trick_size()
        while i:
            i -= 1
            cards[view.trick_seat(i)] = view.trick_card(i)

    def _last_cards(self, s):
        seats = self.seats
        i = 0
        while i < len(seats):
            self.cards[seats[i]] = _last_card(s, seats[i])
            i += 1

    def key(self, s, r):
        if r == 0:
            return header_key(s) * 64 + self.up
        if r == 1:
            return contract_key(s, self._contract_number(s)) if len(self.seats) <= 4 else -1
        i = r - 2
        if 0 <= i < len(self.seats) and i < 5 and not self.handover \
                and not (r == 6 and self.undo):
            if self.calls:
                return self._call_key(s, self.seats[i])
            return self._seat_key(s, self.seats[i])
        if r == 6 and not self.undo and i >= len(self.seats):
            return _status_key(s)
        return -1

    def _contract_number(self, s):
        """The contract's ``names.contract_number``, looked up once per contract."""
        cid = s.view.contract()
        if cid != self.cid:
            self.cid = cid
            self.cnum = -1 if cid is None else names.contract_number(cid)
        return self.cnum

    def _seat_key(self, s, seat):
        """What a seat's row shows: its card and its mark (``cards``,
        ``_mark``: what ``start`` read)."""
        return (seat * 37 + self.cards[seat] + 1) * 3 + self._mark(seat)

    def _call_key(self, s, seat):
        """What a seat's row shows in the auction: its last call, named by its
        place among the deal's calls (an undo has every row written anew:
        ``Game.undone``), and its mark -- a move in the menu writes no seat row."""
        return _CALL_KEYS + ((s.view.last_call_of(seat) + 1) * 8 + seat) * 3 + self._mark(seat)

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
            contract_line(s)

    def _seat_row(self, s, seat, r):
        """(Small methods: a frame over 11 words would go on the heap.)"""
        s.w.begin(r)
        s.w.right()
        if self.calls:
            _seat_call(s, seat)
        elif self.handover:
            _handing(s, seat)
        else:
            self._seat_card(s, seat)
        seat_right_row(s, seat, _MARKS[self._mark(seat)])

    def _seat_card(self, s, seat):
        card = self.cards[seat]
        if card >= 0:
            s.w.card(card)

    def _mark(self, seat):
        """0: none, 1: the seat on turn (">"), 2: the trick's winner while it
        is cleared ("*"): from what ``start`` read, as the row's key."""
        return 2 if seat == self.winner else 1 if seat == self.turn else 0

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


def _auction_shown(s):
    """Do the seat rows show the calls (before the first card)?"""
    view = s.view
    return view.trick_number() <= 1 and view.trick_size() == 0 \
        and not s.table.clearing() and view.expects() != "card"


def _just_taken(s):
    """The trick just cleared is still shown (the next one not yet begun)."""
    return s.view.trick_size() == 0 and s.table.trick_shown()


def _last_card(s, seat):
    """The card ``seat`` laid in the last trick (shown while it is cleared,
    or just taken), or -1."""
    card = s.table.last_trick_card(seat)
    return card if card != -2 else _from_last_trick(s.view, seat)


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
    k = s.view.last_call_of(seat)
    if k >= 0:
        call(s, s.view.call_made(k))


def _status(s):
    """The message row: a refusal or warning, else the finished trick, else
    in the auction who speaks (``_status_kind``)."""
    kind = _status_kind(s)
    view = s.view
    table = s.table
    if kind == _MESSAGE:
        s.w.add(table.message())
    elif kind == _WINS:
        wins(s)
    elif kind == _HOLD:
        s.w.text("hold_ok")          # a stake: how to choose it
    elif kind == _CALLS:
        says(s, "calls", view.turn())
    elif kind == _LAYING:
        _laying(s)                   # the menu takes the prompt row
    elif kind == _PICKING:
        _calling(s, table.rufer_pick())
    elif kind == _HANDING:
        _calling(s, view.rufer_call(0))


def _status_key(s):
    """The message row's key: blank (through a trick's cards), who calls,
    how to choose a stake; -1 for what it cannot name (a message, a trick's
    winner, the lay-away's count)."""
    kind = _status_kind(s)
    if kind == _NOTHING:
        return _BLANK_KEY
    if kind == _CALLS:
        return _STATUS_KEYS + s.view.turn()
    if kind == _HOLD:
        return _STATUS_KEYS + 0xFF
    return -1


def _status_kind(s):
    """What the message row says: a refusal or warning, the finished trick,
    how to choose a stake, who calls, who lays away, the Rufer's call, or
    nothing (the row's key: blank through a trick's cards)."""
    view = s.view
    table = s.table
    if table.message():
        return _MESSAGE
    if table.clearing():
        return _WINS
    if table.menu_needs_hold():
        return _HOLD
    expects = view.expects()
    if expects == "call" and standing(view) >= 0 and view.turn() >= 0:
        return _CALLS
    if expects == "discard" and table.menu_size():
        return _LAYING
    if expects == "rufer":
        return _PICKING
    return _HANDING if _handing_over(s) else _NOTHING


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
        call(s, view.call_made(view.calls_made() - 1))
    elif kind == "announce":
        call_word(w, view.undo_word())
    elif kind == "rufer":
        w.card(view.undo_card())
        _says_left(s, "rufer", seat)
        return
    elif kind == "exchange" or kind == "deal":
        _says_left(s, "lays_away" if kind == "exchange" else "deal_centre", seat)
        return
    else:
        return
    named_left(s, seat)

