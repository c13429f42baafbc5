"""The 128x64 screens: 8 text rows of 16 columns, read at a glance.

Row 0 (inverted) names the game and the dealer; the rows below show what the
table is doing (dealing, the trick by seat, the result, the score sheet) and
row 7 the prompt: the menu entry to choose with prev/next/OK, or whose turn it
is.  A screen is drawn only when the game says something changed
(``game.dirty``); the display driver then sends only the changed pages.

Allocation: a screen is not built as strings.  Each row is written character
by character (code points) over the row shown, a preallocated ``array``, its
pieces put at their columns (a seat's name left, its card right-aligned;
texts straight from the bytes of table/texts.py and table/names.py, numbers
digit by digit); a row whose characters or inversion changed is drawn
(font.cells).  So a redraw -- after a card play too -- allocates nothing
(tests/mp/mptest_app_heap.py), except the view's active seats once per deal,
its result once when the result screen comes up and, after a power-up or an
undo, its last trick.  ``text_rows()`` makes the rows' strs on demand.

The writer's methods are small on purpose: MicroPython puts a call's frame on
the heap when its locals and stack exceed about 11 words.
"""
from array import array

from tapp.cards import CODE_INDEX, RANKS
from tapp.dealing import TALON

from . import font, names, texts
from .game import DEALING, OVER, RESULT
from .names import SUIT_CODES, SUIT_WORDS, SUITS, SUITS_NAMED, VARIANTS

ROWS = 8
COLS = 16
_BLANK = ("", False)
# bytes of a UTF-8 sequence by its first byte's high nibble
_SEQ = b"\x01\x01\x01\x01\x01\x01\x01\x01\x01\x01\x01\x01\x02\x02\x03\x04"


def _code(data, i):
    """The code point of the UTF-8 sequence at ``data[i]``."""
    b = data[i]
    if b < 0x80:
        return b
    if b < 0xE0:
        return (b & 0x1F) << 6 | data[i + 1] & 0x3F
    if b < 0xF0:
        return ((b & 0x0F) << 6 | data[i + 1] & 0x3F) << 6 | data[i + 2] & 0x3F
    return (((b & 0x07) << 6 | data[i + 1] & 0x3F) << 6 | data[i + 2] & 0x3F) << 6 \
        | data[i + 3] & 0x3F


class Screens:
    """Draws the game's state on a display with ``text``/``pixel``/``fill_rect``."""

    def __init__(self, display):
        self.display = display
        self.shown = [array("I", [0] * COLS) for _ in range(ROWS)]  # code points shown
        self.lens = bytearray(ROWS)      # characters shown per row
        self.inverted = bytearray(ROWS)
        self.right = array("I", [0] * COLS)  # a row's right-aligned part, before it is placed
        self.cur = self.shown[0]         # where characters go: the row being written, or
        self.row = 0                     # its right part; the row's number,
        self.pos = 0                     # characters given (also past column 16)
        self.mark = 0                    # where the right part begins
        self.changed = False             # the row differs from what was shown
        self.kept = False
        self.done = 0                    # rows written (bits)
        self.tail = 0                    # a text's part after its "%s": start, end
        self.end = 0
        self.lang = "de"
        self.base = 0                    # the result screen's first payment row
        self.seats = ()                  # the view's active seats, kept per deal
        self.seats_view = None
        self.seats_key = -1
        self.result = None               # the view's last result while it is shown
        self.result_key = -1

    def draw(self, game):
        """Render the game into the display's buffer (the app sends the changed
        pages, a few per step)."""
        self.compose(game)
        game.dirty = False

    def draw_rows(self, lines):
        """Render 8 (text, inverted) rows; unchanged rows are not redrawn.
        (A while loop and a helper keep this frame within MicroPython's 11
        words: a larger one is put on the heap at every call.)"""
        n = len(lines)
        row = 0
        while row < ROWS:
            self._entry(row, lines[row] if row < n else _BLANK)
            row += 1

    def _entry(self, row, entry):
        self._begin(row, entry[1])
        self._add(entry[0])
        self._end()

    def text_rows(self):
        """What the screen shows, row by row (for the console and tests)."""
        out = []
        for r in range(ROWS):
            row = self.shown[r]
            out.append("".join([chr(row[i]) for i in range(self.lens[r])]))
        return out

    def rows(self):
        """What the screen shows as (text, inverted) rows (``draw_rows``' input)."""
        return [(t, bool(self.inverted[r])) for r, t in enumerate(self.text_rows())]

    # ----- the rows: written over what is shown, drawn when changed -------------------

    def _begin(self, row, invert=False):
        self.row = row
        self.cur = self.shown[row]
        self.pos = 0
        inv = 1 if invert else 0
        self.changed = inv != self.inverted[row]
        self.inverted[row] = inv

    def _end(self):
        """The row is written: its length, zeros after it; drawn if it changed."""
        row = self.row
        n = self.pos if self.pos < COLS else COLS
        if n != self.lens[row]:
            self.changed = True
            self.lens[row] = n
        cur = self.cur
        while n < COLS:
            cur[n] = 0
            n += 1
        self.done |= 1 << row
        if self.changed:
            self._draw(row)

    def _draw(self, row):
        font.cells(self.display, row, self.shown[row], self.lens[row], self.inverted[row])

    def _blank(self, row):
        self._begin(row)
        self._end()

    def _put(self, c):
        p = self.pos
        if p < COLS and self.cur[p] != c:
            self.cur[p] = c
            self.changed = True
        self.pos = p + 1

    def _add(self, s, limit=COLS):
        """The characters of the str ``s``, at most ``limit`` of them."""
        n = len(s)
        if n > limit:
            n = limit
        i = 0
        while i < n:
            self._put(ord(s[i]))
            i += 1

    def _bytes(self, data, i, end):
        """The characters of the UTF-8 bytes ``data[i:end]``."""
        while i < end:
            self._put(_code(data, i))
            i += _SEQ[data[i] >> 4]

    def _num(self, n):
        """An int in decimal."""
        if n < 0:
            self._put(45)               # -
            n = -n
        d = 1
        while d * 10 <= n:
            d *= 10
        while d:
            self._put(48 + n // d % 10)
            d //= 10

    def _text(self, key):
        """The table text ``key`` (table/texts.py) in the game's language."""
        j = texts.which(key, self.lang)
        self._bytes(texts.DATA, texts.OFF[j], texts.OFF[j + 1] - 1)

    def _pre(self, key):
        """The text ``key`` up to its "%s"; ``_post()`` writes the rest."""
        j = texts.which(key, self.lang)
        a = texts.OFF[j]
        self.end = texts.OFF[j + 1] - 1
        self.tail = texts.DATA.find(b"%s", a, self.end)
        self._bytes(texts.DATA, a, self.tail)

    def _post(self):
        self._bytes(texts.DATA, self.tail + 2, self.end)

    def _fmt(self, key, s, limit=COLS):
        """The text ``key`` with ``s`` (at most ``limit`` characters) for its "%s"."""
        self._pre(key)
        self._add(s, limit)
        self._post()

    def _name(self, game, seat, width=8):
        self._add(game.rules.seats[seat], width)

    def _card(self, card):
        """``♥10``: the suit symbol and the rank."""
        self._put(SUIT_CODES[card // 9])
        self._add(RANKS[card % 9])

    def _contract(self, cid):
        j = names.contract_number(cid, self.lang)
        if j < 0:
            self._add(cid)
        else:
            self._bytes(names.DATA, names.OFF[j], names.OFF[j + 1] - 1)

    def _right(self):
        """What follows is the row's right part (``_pad`` places it)."""
        self.mark = self.pos
        self.cur = self.right
        self.pos = 0
        self.kept = self.changed         # (writing the right part changes no row)

    def _pad(self):
        """Left part, spaces, right part at the right edge; when both do not
        fit, one space between them and the row cut."""
        n = self.pos                    # the right part's length
        self.cur = self.shown[self.row]
        self.pos = self.mark
        self.changed = self.kept
        gap = COLS - self.mark - n
        if gap <= 0:
            gap = 1
        while gap > 0:
            self._put(32)
            gap -= 1
        i = 0
        while i < n and i < COLS:
            self._put(self.right[i])
            i += 1

    # ----- composing -------------------------------------------------------------------

    def compose(self, game):
        """Write the game's screen over the rows shown (a changed row is drawn
        into the display's buffer); ``rows()`` reads what is shown."""
        self.lang = game.lang
        self.done = 0
        self._header(game)
        if game.step != RESULT and game.step != OVER or game.confirm_undo or game.scores:
            self.result = None
        if game.confirm_undo:
            self._body(game)
            self._blank(6)
            self._begin(7, True)
            self._text("undo_q")
            self._end()
        elif game.scores:
            self._scores(game)
        elif game.step == DEALING:
            self._dealing(game)
        elif game.step == RESULT or game.step == OVER:
            self._result(game)
        else:
            self._body(game)
        row = 1
        while row < ROWS:
            if not self.done >> row & 1:
                self._blank(row)
            row += 1

    def _header(self, game):
        rules = game.rules
        self._begin(0, True)
        self._add(VARIANTS.get(rules.variant, rules.variant), 10)
        self._right()
        self._add("G:")
        self._name(game, game.view.dealer(), 5)
        self._pad()
        self._end()

    def _body(self, game):
        view = game.view
        self._begin(1)
        self._contract_line(game)
        self._end()
        seats = self._seat_rows(game)
        if seats <= 4:                  # up to 4 seats: a message row above the prompt
            self._begin(6)
            self._status(game)
            self._end()
        self._begin(7, bool(game.menu))
        if game.menu:
            self._put(60)               # <
            self._add(game.menu[game.menu_pos][0], COLS - 2)
            self._put(62)               # >
        elif seats > 4 and game.message:
            self._add(game.message)     # 5 seats: the message takes the prompt row
        elif game.clearing:
            self._text("clear")
        elif view.turn() >= 0:
            self._fmt("turn", game.rules.seats[view.turn()], 8)
        self._end()

    def _active(self, view):
        """The view's active seats (a list made once per deal, not per redraw)."""
        key = (view.deals_played() * 64 + view.dealer()) * 2 + (1 if view.in_deal() else 0)
        if view is not self.seats_view or key != self.seats_key:
            self.seats = view.active_seats()
            self.seats_view = view
            self.seats_key = key
        return self.seats

    def _seat_rows(self, game):
        """Rows 2..6: a seat each (up to 5), its mark and its card; blank rows
        below up to row 5.  Returns the number of seats."""
        seats = self._active(game.view)
        i = 0
        while i < len(seats) and i < 5:
            self._seat_row(game, i, seats[i])
            i += 1
        while i < 4:
            self._blank(2 + i)
            i += 1
        return len(seats)

    def _seat_row(self, game, i, seat):
        self._begin(2 + i)
        if game.clearing and seat == game.view.last_winner():
            self._put(42)               # * the trick's winner (while it is cleared)
        else:
            self._put(62 if seat == game.view.turn() else 32)    # > the seat on turn
        self._name(game, seat)
        self._right()
        card = self._card_of(game, seat)
        if card >= 0:
            self._card(card)
        self._pad()
        self._end()

    def _card_of(self, game, seat):
        """The card shown at ``seat``: of the trick being played, or of the last
        one while it is cleared; -1 none."""
        view = game.view
        if game.clearing or (view.trick_size() == 0 and game.trick_shown):
            card = game.last_trick_card(seat)
            return card if card != -2 else _from_last_trick(view, seat)
        i = 0
        while i < view.trick_size():
            if view.trick_seat(i) == seat:
                return view.trick_card(i)
            i += 1
        return -1

    def _status(self, game):
        """The message row: a refusal or warning, else the finished trick."""
        view = game.view
        if game.message:
            self._add(game.message)
        elif game.clearing:
            self._fmt("wins", game.rules.seats[view.last_winner()], 8)
            self._put(32)
            self._num(view.last_points())

    def _contract_line(self, game):
        view = game.view
        cid = view.contract()
        if cid is None or view.declarer() < 0:
            if cid is not None:
                self._contract(cid)
            elif view.expects() == "call":
                self._fmt("calls", "")
            return
        self._name(game, view.declarer(), 6)
        self._put(32)
        self._contract(cid)
        self._trump(game, cid)
        if view.multiplier() > 1:
            self._put(32)
            self._put(120)              # x
            self._num(view.multiplier())

    def _trump(self, game, cid):
        """The trump's symbol, unless the line names the suit already."""
        trump = game.view.trump()
        if not trump:
            return
        s = SUITS.find(trump) if len(trump) == 1 else -1
        if s >= 0 and not self._names_suit(game, cid, s):
            self._put(32)
            self._put(SUIT_CODES[s])

    def _names_suit(self, game, cid, s):
        """Does "<declarer's name, 6> <contract name>" hold suit ``s``'s word?"""
        word = SUIT_WORDS[2 * s + 1] if self.lang == "en" else SUIT_WORDS[2 * s]
        k = game.rules.seats[game.view.declarer()].find(word)
        if 0 <= k and k + len(word) <= 6:
            return True
        return self._contract_names(cid, s, word)

    def _contract_names(self, cid, s, word):
        j = names.contract_number(cid, self.lang)
        if j < 0:
            return cid.find(word) >= 0
        return SUITS_NAMED[j] >> s & 1 != 0

    def _dealing(self, game):
        rules = game.rules
        self._begin(1)
        self._fmt("deal_centre", rules.seats[game.view.dealer()], 8)
        self._end()
        self._begin(2)
        self._pre("deal_count")
        self._num(self._dealt(game, -1))
        self._put(47)                   # /
        self._num(rules.hand_size * len(game.deal_active))
        self._post()
        self._end()
        self._deal_to(game)
        i = 0
        while i < len(game.deal_active) and i < 3:
            self._dealt_row(game, i)
            i += 1
        self._begin(7)
        if game.message:
            self._add(game.message)
        elif self._dealt(game, 1):
            self._missing(game)
        self._end()

    def _deal_to(self, game):
        """Row 3: who gets the next card dealt over the centre."""
        self._begin(3)
        nxt = game.next_receiver()
        if nxt == TALON:
            self._pre("deal_to")
            self._text("talon")
            self._post()
        elif nxt >= 0:
            self._fmt("deal_to", game.rules.seats[nxt], 8)
        self._end()

    def _dealt(self, game, short):
        """Cards seen so far (``short`` -1), or the seats still short of cards."""
        n = 0
        i = 0
        while i < len(game.deal_active):
            k = len(game.dealt[game.deal_active[i]])
            if short < 0:
                n += k
            elif k < game.rules.hand_size:
                n += 1
            i += 1
        return n

    def _dealt_row(self, game, i):
        seat = game.deal_active[i]
        self._begin(4 + i)
        self._name(game, seat)
        self._right()
        self._num(len(game.dealt[seat]))
        self._put(47)                   # /
        self._num(game.rules.hand_size)
        self._pad()
        self._end()

    def _missing(self, game):
        """"fehlt: Anna,Bert" (4 characters of each name)."""
        self._pre("missing")
        i = 0
        first = True
        while i < len(game.deal_active):
            seat = game.deal_active[i]
            if len(game.dealt[seat]) < game.rules.hand_size:
                if not first:
                    self._put(44)       # ,
                first = False
                self._name(game, seat, 4)
            i += 1
        self._post()

    def _result(self, game):
        # the view's last result (a dict copy), taken once while the result
        # screen is shown: it is redrawn at each button press
        if self.result is None or self.result_key != game.view.deals_played():
            self.result = game.view.last_result()
            self.result_key = game.view.deals_played()
        r = self.result
        self._begin(1)
        self._text("result")
        self._end()
        if r is None:
            return
        self._begin(2)
        if r["contract"] is None:
            self._text("thrown_in")
            self._end()
            self.base = 3               # the first payment row
        else:
            self._result_lines(game, r)
            self.base = 4
        seat = 0
        while seat < game.rules.players and seat < 4 and self.base + seat < 7:
            self._payment_row(game, r, seat)
            seat += 1
        self._begin(7, True)
        self._text("session_over" if game.step == OVER else "next_deal")
        self._end()

    def _result_lines(self, game, r):
        """Row 2: declarer and contract; row 3: the points and won/lost."""
        if r["declarer"] is not None:
            self._name(game, r["declarer"], 6)
            self._put(32)
        self._contract(r["contract"])
        self._end()
        self._begin(3)
        pts = r["points"]
        k = 0
        while pts and k < len(pts):
            if k:
                self._put(58)           # :
            if type(pts[k]) is int:
                self._num(pts[k])
            else:
                self._add(str(pts[k]))
            k += 1
        self._right()
        if r["declarer"] is not None:
            self._text("draw" if r["won"] is None else ("won" if r["won"] else "lost"))
        self._pad()
        self._end()

    def _payment_row(self, game, r, seat):
        self._begin(self.base + seat)
        self._name(game, seat, 6)
        self._right()
        if r["payments"][seat] >= 0:
            self._put(43)               # +
        self._num(r["payments"][seat])
        self._put(32)
        self._num(r["balances"][seat])
        self._pad()
        self._end()

    def _scores(self, game):
        view = game.view
        self._begin(1)
        self._text("scores")
        self._end()
        self._begin(2)
        self._pre("deals")
        self._num(view.deals_played())
        self._post()
        self._end()
        seat = 0
        while seat < game.rules.players and seat < 5:
            self._begin(3 + seat)
            self._name(game, seat)
            self._right()
            self._num(view.balance(seat))
            self._pad()
            self._end()
            seat += 1
        if view.pot() and seat < 5:
            self._begin(3 + seat)
            self._text("pot")
            self._right()
            self._num(view.pot())
            self._pad()
            self._end()


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
