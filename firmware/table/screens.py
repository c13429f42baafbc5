"""The 128x64 screens: 8 text rows of 16 columns, read at a glance.

Row 0 (inverted) names the game and, while his deal is on, the dealer; the
rows below show what the table is doing -- dealing; the auction (each seat's
last call, the standing call); the trick by seat; a revoke's notice; the
settlement's pages (what decided it, then every payment and balance under
labelled columns); the score sheet, deal by deal; this deal's points and last
trick -- and row 7 the prompt: the menu entry to choose with prev/next/OK, or
whose turn it is.  Nothing is cut at the edge: a name that does not fit is
shortened where it shows ("Jürg.", "Pl.1"), a row's right part (a card, a
call, numbers) first and the name in the room left (tests/test_texts_fit.py).
The screens read the table only through its view (table/table_view.py,
``app.view``) and the engine's view it hands out; the current mode decides
when to draw (table/app.py), the display driver then sends only the changed
pages.

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

from tapp import errors as E
from tapp.cards import CARD_RANK, CARD_SUIT, CODE_INDEX, RANKS
from tapp.dealing import TALON

from . import font, names, texts
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
    """Draws what the table's view says on a display with ``text``/``pixel``/``fill_rect``."""

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
        # compose() keeps the table's view it draws in ``table`` and the
        # engine's view of its session in ``view`` (set there, not here: their
        # type is the views', never None, where they are read)
        self.seats = ()                  # the view's active seats, kept per deal
        self.seats_view = None
        self.seats_key = -1
        self.result = None               # the view's last result while it is shown
        self.result_key = -1
        self.seat_names = ()             # the view's seat names (set by each screen)
        self.wp = 0                      # a money table's column widths
        self.wb = 0
        self.deal = 0                    # the score sheet's deal shown (0 = the first)

    def draw(self, table):
        """Render what the table's view ``table`` shows into the display's
        buffer (the app sends the changed pages, a few per step)."""
        self.compose(table)

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

    def _card(self, card):
        """``♥10``: the suit symbol and the rank."""
        self._put(SUIT_CODES[CARD_SUIT[card]])
        self._add(RANKS[CARD_RANK[card]])

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

    # ----- fitted parts: a name shortened where it shows, a right part first ----------

    def _short(self, s, width):
        """The str ``s`` in at most ``width`` columns, as names.short_name
        shortens it (whole; without spaces; "Pl.1"; "Jürg."): no cut word."""
        n = len(s)
        if n <= width:
            self._add(s)
        elif n - s.count(" ") <= width:
            self._from(s, 0, False)
        else:
            d = _digits(s)
            if 0 < d < n and d + 2 <= width:
                self._stem(s, width - 1 - d)
                self._from(s, n - d, True)
            else:
                self._stem(s, width - 1)

    def _from(self, s, i, spaces):
        """The characters of ``s`` from ``i`` on (its spaces only if ``spaces``)."""
        while i < len(s):
            if spaces or s[i] != " ":
                self._put(ord(s[i]))
            i += 1

    def _stem(self, s, k):
        """The first ``k`` characters of ``s`` without trailing spaces, and "."."""
        while k > 0 and s[k - 1] == " ":
            k -= 1
        i = 0
        while i < k:
            self._put(ord(s[i]))
            i += 1
        self._put(46)                   # .

    def _name(self, seat, width=8):
        self._short(self.view.seat_name(seat), width)

    def _right_first(self, row, invert=False):
        """Begin ``row`` with its right part (``_left`` then writes the left one
        in the room left, ``_place`` puts the right part after it)."""
        self._begin(row, invert)
        self.kept = self.changed
        self.cur = self.right
        self.pos = 0

    def _left(self):
        """The right part is written; the columns left for the left part."""
        self.mark = self.pos            # the right part's length
        self.cur = self.shown[self.row]
        self.pos = 0
        self.changed = self.kept
        return COLS - 1 - self.mark if self.mark else COLS

    def _place(self, aligned=True):
        """The right part after the left: at the right edge, or one space on."""
        n = self.mark
        gap = COLS - self.pos - n if aligned else 1
        if gap <= 0 or not n or not aligned:
            gap = 1 if n and self.pos else 0
        while gap > 0:
            self._put(32)
            gap -= 1
        i = 0
        while i < n:
            self._put(self.right[i])
            i += 1
        self._end()

    def _text_len(self, key):
        """Characters of the text ``key`` (its UTF-8 bytes counted once each)."""
        j = texts.which(key, self.lang)
        i = texts.OFF[j]
        end = texts.OFF[j + 1] - 1
        n = 0
        while i < end:
            i += _SEQ[texts.DATA[i] >> 4]
            n += 1
        return n

    # ----- composing -------------------------------------------------------------------

    def compose(self, table):
        """Write the screen of the table's view ``table`` (a session on: its mode
        is dealing, play, result or over) over the rows shown (a changed row is
        drawn into the display's buffer); ``rows()`` reads what is shown."""
        self.table = table
        self.view = table.engine()
        self.lang = table.language()
        self.done = 0
        mode = table.mode()
        over = table.overlay()
        if mode != "result" and mode != "over" or over == "undo" or over == "scores":
            self.result = None
        if over == "scores":
            self._scores()
        elif over == "undo":
            self._header(True)
            self._body()
            self._blank(6)
            self._begin(7, True)
            self._text("undo_q")
            self._end()
        elif over == "info":
            self._header(True)
            self._info()
        elif over == "notice":
            self._header(True)
            self._notice()
        elif mode == "dealing":
            self._header(True)
            self._dealing()
        elif mode == "result" or mode == "over":
            self._header(False)
            self._result()
        else:
            self._header(True)
            self._body()
        row = 0
        while row < ROWS:
            if not self.done >> row & 1:
                self._blank(row)
            row += 1

    def _header(self, dealer):
        """Row 0: the game's name; "G:" and the dealer's whole name when they fit
        (the dealing screen names him anyway), while his deal is on: between
        deals the view's dealer is already the next one."""
        view = self.view
        name = VARIANTS.get(view.variant(), view.variant())
        self._begin(0, True)
        self._add(name)
        seat = view.dealer()
        if dealer and (view.in_deal() or self.table.mode() == "dealing") \
                and len(name) + 3 + len(view.seat_name(seat)) <= COLS:
            self._right()
            self._add("G:")
            self._add(view.seat_name(seat))
            self._pad()
        self._end()

    def _body(self):
        view = self.view
        table = self.table
        menu = table.menu_size() > 0
        if menu and len(self._active(view)) > 4 and (
                table.message() or table.menu_needs_hold()):
            self.seat_names = view.seat_names()
            self._begin(1)              # 5 seats and a menu: row 1 says it
            self._status()
            self._end()
        else:
            self._line_one()
        seats = self._seat_rows()
        if seats <= 4:                  # up to 4 seats: a message row above the prompt
            self._begin(6)
            self._status()
            self._end()
        self._begin(7, menu)
        if menu:
            self._put(60)               # <
            self._short(table.menu_label(table.menu_pos()), COLS - 2)
            self._put(62)               # >
        elif seats > 4 and table.message():
            self._add(table.message())  # 5 seats: the message takes the prompt row
        elif table.clearing():
            self._text("clear")
        elif view.turn() >= 0:
            self._says("turn", view.turn())
        self._end()

    def _says(self, key, seat):
        """"Anna ist dran", "Bert sagt:": the text ``key`` with a seat's name."""
        self._pre(key)
        room = COLS - self._text_len(key) + 2
        self._name_in(seat, room if room < 8 else 8)
        self._post()

    def _name_in(self, seat, width):
        self._short(self.seat_names[seat], width)

    def _active(self, view):
        """The view's active seats (a list made once per deal, not per redraw)."""
        key = (view.deals_played() * 64 + view.dealer()) * 2 + (1 if view.in_deal() else 0)
        if view is not self.seats_view or key != self.seats_key:
            self.seats = view.active_seats()
            self.seats_view = view
            self.seats_key = key
        return self.seats

    def _seat_rows(self):
        """Rows 2..6: a seat each (up to 5), its mark and its card (in the
        auction: its last call); blank rows below up to row 5.  Returns the
        number of seats."""
        view = self.view
        self.seat_names = view.seat_names()
        seats = self._active(view)
        i = 0
        while i < len(seats) and i < 5:
            self._seat_row(i, seats[i])
            i += 1
        while i < 4:
            self._blank(2 + i)
            i += 1
        return len(seats)

    def _seat_row(self, i, seat):
        """(Small methods: a frame over 11 words would go on the heap.)"""
        self._right_first(2 + i)
        if self._auction_shown():
            self._seat_call(self.view, seat)
        else:
            self._seat_card(seat)
        room = self._left()
        self._seat_mark(seat)
        self._name(seat, room - 1 if room < 9 else 8)
        self._place()

    def _auction_shown(self):
        """Do the seat rows show the calls (before the first card)?"""
        view = self.view
        return view.trick_number() <= 1 and view.trick_size() == 0 \
            and not self.table.clearing() and view.expects() != "card"

    def _seat_card(self, seat):
        card = self._card_of(seat)
        if card >= 0:
            self._card(card)

    def _seat_mark(self, seat):
        view = self.view
        if self.table.clearing() and seat == view.last_winner():
            self._put(42)               # * the trick's winner (while it is cleared)
        else:
            self._put(62 if seat == view.turn() else 32)    # > the seat on turn

    def _seat_call(self, view, seat):
        """The seat's last call in this deal's auction (none: nothing)."""
        k = view.calls_made() - 1
        while k >= 0:
            c = view.call_made(k)
            if c[1] == seat:
                self._call(c)
                return
            k -= 1

    def _call(self, c):
        """A call as the menu names it (names.call_label): the word, the
        contract, the trump's symbol, the value."""
        word = c[2]
        j = names.call_number(word, self.lang)
        sep = False
        if j >= 0 and names.OFF[j + 1] - 1 > names.OFF[j]:
            self._bytes(names.DATA, names.OFF[j], names.OFF[j + 1] - 1)
            sep = True
        elif j < 0:
            self._add(word)
            sep = True
        if c[3] is not None:
            if sep:
                self._put(32)
            self._contract(c[3])
            sep = True
        if c[4] is not None:
            if sep:
                self._put(32)
            self._put(SUIT_CODES[SUITS.find(c[4])])
            sep = True
        if c[5] is not None:
            if sep:
                self._put(32)
            self._num(c[5])

    def _card_of(self, seat):
        """The card shown at ``seat``: of the trick being played, or of the last
        one while it is cleared; -1 none."""
        view = self.view
        table = self.table
        if table.clearing() or (view.trick_size() == 0 and table.trick_shown()):
            card = table.last_trick_card(seat)
            return card if card != -2 else _from_last_trick(view, seat)
        i = 0
        while i < view.trick_size():
            if view.trick_seat(i) == seat:
                return view.trick_card(i)
            i += 1
        return -1

    def _status(self):
        """The message row: a refusal or warning, else the finished trick, else
        in the auction who speaks."""
        view = self.view
        table = self.table
        if table.message():
            self._add(table.message())
        elif table.clearing():
            self._wins(view)
        elif table.menu_needs_hold():
            self._text("hold_ok")       # a stake: how to choose it
        elif view.expects() == "call" and self._standing(view) >= 0 and view.turn() >= 0:
            self._says("calls", view.turn())

    def _wins(self, view):
        """"Bert sticht 14": the last trick's winner (his name as long as the
        points leave room for) and its card points."""
        self._pre("wins")
        room = COLS + 1 - self._text_len("wins") - _width(view.last_points(), False)
        self._name_in(view.last_winner(), room if room < 8 else 8)
        self._post()
        self._put(32)
        self._num(view.last_points())

    def _line_one(self):
        """Row 1: the contract and who plays it; in the auction the standing
        call and its caller, or who speaks first."""
        view = self.view
        self.seat_names = view.seat_names()
        cid = view.contract()
        if view.expects() == "call" and cid is None:
            self._auction_line(view)
        elif cid is None or view.declarer() < 0:
            self._begin(1)
            if cid is not None:
                self._contract(cid)
            self._end()
        else:
            self._right_first(1)
            self._contract(cid)
            self._trump(cid)
            self._times(view.multiplier())
            self._named_left(view.declarer())
            self._place(False)

    def _times(self, m):
        if m > 1:
            self._put(32)
            self._put(120)              # x
            self._num(m)

    def _named_left(self, seat):
        """The right part is written: the seat's name in the room left."""
        room = self._left()
        self._name_in(seat, room if room < 8 else 8)

    def _auction_line(self, view):
        k = self._standing(view)
        if k >= 0:
            self._right_first(1)
            self._standing_call(view, k)
            self._named_left(view.call_made(k)[1])
            self._place(False)
        else:
            self._begin(1)
            if view.turn() >= 0:
                self._says("calls", view.turn())
            self._end()

    def _standing(self, view):
        """The number of the auction's standing call: the last one that is not
        a pass (-1: none yet)."""
        k = view.calls_made() - 1
        while k >= 0:
            word = view.call_made(k)[2]
            if word != "pass" and word != "weg" and word != "nicht_herz":
                return k
            k -= 1
        return -1

    def _standing_call(self, view, k):
        """The standing call: "halte" names the contract it holds."""
        c = view.call_made(k)
        if c[2] == "hold":
            j = k - 1
            while j >= 0:
                if view.call_made(j)[3] is not None:
                    self._contract(view.call_made(j)[3])
                    return
                j -= 1
        self._call(c)

    def _trump(self, cid):
        """The trump's symbol, unless the contract's name names the suit."""
        trump = self.view.trump()
        if not trump:
            return
        s = SUITS.find(trump) if len(trump) == 1 else -1
        if s >= 0 and not self._contract_names(cid, s):
            self._put(32)
            self._put(SUIT_CODES[s])

    def _contract_names(self, cid, s):
        j = names.contract_number(cid, self.lang)
        if j < 0:
            word = SUIT_WORDS[2 * s + 1] if self.lang == "en" else SUIT_WORDS[2 * s]
            return cid.find(word) >= 0
        return SUITS_NAMED[j] >> s & 1 != 0

    # ----- a revoke proven (open mode) -----------------------------------------------------

    def _notice(self):
        """Rows 1-4: "Verstoß!", who, in which trick, the duty broken."""
        view = self.view
        k = view.revoke_count() - 1
        if k < 0:
            return
        self.seat_names = view.seat_names()
        self._begin(1, True)
        self._text("revoke")
        self._end()
        self._begin(2)
        self._name_in(view.revoke_seat(k), COLS)
        self._end()
        self._begin(3)
        self._pre("in_trick")
        self._num(view.revoke_trick(k))
        self._post()
        self._end()
        self._begin(4)
        self._rule(view.revoke_rule(k))
        self._end()
        self._begin(7, True)
        self._text("ok_on")
        self._end()

    def _rule(self, rule):
        """The duty a revoke broke, as the refusal of that card says it."""
        if rule == "rufer_card":
            self._text("called_card")
        else:
            j = texts.error_number(E.NAMES.index(rule), self.lang)
            self._bytes(texts.DATA, texts.OFF[j], texts.OFF[j + 1] - 1)

    # ----- dealing -----------------------------------------------------------------------

    def _dealing(self):
        view = self.view
        table = self.table
        self.seat_names = view.seat_names()
        self._begin(1)
        self._says("deal_centre", view.dealer())
        self._end()
        self._begin(2)
        self._pre("deal_count")
        self._num(table.deal_scanned())
        self._put(47)                   # /
        self._num(table.deal_due())
        self._post()
        self._end()
        self._deal_to()
        i = 0
        while i < table.deal_seats() and i < 3:
            self._dealt_row(i)
            i += 1
        self._begin(7)
        if table.message():
            self._add(table.message())
        elif self._short_seats():
            self._missing()
        self._end()

    def _deal_to(self):
        """Row 3: who gets the next card dealt over the centre."""
        self._begin(3)
        nxt = self.table.next_receiver()
        if nxt == TALON:
            self._pre("deal_to")
            self._text("talon")
            self._post()
        elif nxt >= 0:
            self._says("deal_to", nxt)
        self._end()

    def _short_seats(self):
        """How many seats are still short of cards."""
        table = self.table
        n = 0
        i = 0
        while i < table.deal_seats():
            if table.deal_short(table.deal_seat(i)):
                n += 1
            i += 1
        return n

    def _dealt_row(self, i):
        table = self.table
        seat = table.deal_seat(i)
        self._right_first(4 + i)
        self._num(table.dealt(seat))
        self._put(47)                   # /
        self._num(self.view.hand_size())
        room = self._left()
        self._name(seat, room if room < 8 else 8)
        self._place()

    def _missing(self):
        """"fehlt: Cora,Bert": every seat still short, each name shortened to
        fit; "fehlt: 3 Spieler" when they would be shorter than 4 columns."""
        table = self.table
        short = self._short_seats()
        room = COLS - self._text_len("missing") + 2
        width = (room - short + 1) // short
        if width < 4:
            self._pre("missing_n")
            self._num(short)
            self._post()
            return
        self._pre("missing")
        i = 0
        first = True
        while i < table.deal_seats():
            seat = table.deal_seat(i)
            if table.deal_short(seat):
                if not first:
                    self._put(44)       # ,
                first = False
                self._name(seat, width)
            i += 1
        self._post()

    # ----- the settlement: what was played and decided, then every payment ------------------

    def _result(self):
        # the view's last result (a dict copy), taken once while the result
        # screen is shown: it is redrawn at each button press
        view = self.view
        table = self.table
        if self.result is None or self.result_key != view.deals_played():
            self.result = view.last_result()
            self.result_key = view.deals_played()
        r = self.result
        self.seat_names = view.seat_names()
        pages = 1 + (view.players() + 4) // 5
        page = table.page() % pages
        self._right_first(1)
        self._num(page + 1)
        self._put(47)                   # /
        self._num(pages)
        self._left()
        self._text("result")
        self._place()
        if r is None:
            return
        if page == 0:
            self._outcome(r)
        else:
            self._money(5 * (page - 1), r, 2)
        if view.players() - 5 * (page - 1) < 5 or page == 0 and not self.done >> 7 & 1:
            self._begin(7, True)
            if table.news():                # the flash running full (table/app.py)
                self._add(table.news())
            else:
                self._text("session_over" if table.mode() == "over" else "next_deal")
            self._end()

    def _outcome(self, r):
        """Rows 2-6: declarer and contract; card points (tricks, where tricks
        decide) and won or lost; a revoke that decided it; the pot."""
        row = 3                         # the first row after what was played
        if r["contract"] is None:
            self._begin(2)
            self._text("thrown_in")
            self._end()
        else:
            self._right_first(2)
            self._contract(r["contract"])
            room = self._left()
            if r["declarer"] is not None:
                self._name_in(r["declarer"], room if room < 8 else 8)
            self._place(False)
            row = self._decided(r)
        pen = r.get("penalty")
        if pen is not None:
            self._penalty(pen, row)
        elif self.view.pot():
            self._begin(row)
            self._text("pot")
            self._right()
            self._num(self.view.pot())
            self._pad()
            self._end()

    def _penalty(self, pen, row):
        """Three rows from ``row``: "Verstoß! Cora", "in Stich 1", the duty."""
        self._begin(row)
        self._text("revoke")
        self._put(32)
        self._name_in(pen["seat"], COLS - 1 - self._text_len("revoke"))
        self._end()
        self._begin(row + 1)
        self._pre("in_trick")
        self._num(pen["trick"])
        self._post()
        self._end()
        self._begin(row + 2)
        self._rule(pen["rule"])
        self._end()

    def _decided(self, r):
        """Row 3: "61:59 gewonnen"; "Stiche 0:1", where the tricks decide (a
        Durch, a Bettel), and "verloren" on the next row if it does not fit;
        each seat's points where each plays alone.  The next free row."""
        tricks = r["target"] is None and r["declarer"] is not None and r["tricks"]
        self._right_first(3)
        self._state(r)
        self._left()
        if tricks:
            self._pre("tricks")
            self._pair(r["tricks"])
            self._post()
        else:
            self._pair(r["points"])
        if self.pos + 1 + self.mark <= COLS:
            self._place()
            return 4
        self.mark = 0                   # no room: the state on a row of its own
        self._end()
        self._begin(4)
        self._state(r)
        self._end()
        return 5

    def _state(self, r):
        if r["declarer"] is not None:
            self._text("draw" if r["won"] is None else ("won" if r["won"] else "lost"))

    def _pair(self, pts):
        """"61:59", "30:50:40": the ints of a list, colon between."""
        k = 0
        while pts and k < len(pts):
            if k:
                self._put(58)           # :
            self._num(pts[k])
            k += 1

    def _money(self, first, r, row):
        """A table of payments and balances from seat ``first`` on: the column
        heads at ``row``, a seat a row below (up to 5); columns as wide as
        their numbers, the names shortened to the room left."""
        players = self.view.players()
        wp = self._text_len("col_pay")
        wb = self._text_len("col_total")
        seat = first
        while seat < players and seat < first + 5:
            wp = _wider(wp, self._amount(r, seat, True), True)
            wb = _wider(wb, self._amount(r, seat, False), False)
            seat += 1
        self.wp = wp
        self.wb = wb
        self._right_first(row)
        self._column_head("col_pay", wp)
        self._put(32)
        self._column_head("col_total", wb)
        self._left()
        self._place()
        seat = first
        while seat < players and seat < first + 5:
            self._money_row(r, seat, row + 1 + seat - first)
            seat += 1

    def _amount(self, r, seat, paid):
        """A seat's payment (``paid``) or balance: of the settlement ``r``, else
        of score sheet deal ``self.deal`` (-1: the totals)."""
        if r is not None:
            return r["payments"][seat] if paid else r["balances"][seat]
        view = self.view
        if paid:
            return view.deal_payment(self.deal, seat)
        bal = view.balance(seat)
        k = view.deals_played() - 1
        while k > self.deal:
            bal -= view.deal_payment(k, seat)
            k -= 1
        return bal

    def _column_head(self, key, width):
        n = width - self._text_len(key)
        while n > 0:
            self._put(32)
            n -= 1
        self._text(key)

    def _money_row(self, r, seat, row):
        self._right_first(row)
        self._amount_in(self._amount(r, seat, True), self.wp, True)
        self._put(32)
        self._amount_in(self._amount(r, seat, False), self.wb, False)
        room = self._left()
        self._name_in(seat, room if room < 8 else 8)
        self._place()

    def _amount_in(self, n, width, sign):
        pad = width - _width(n, sign)
        while pad > 0:
            self._put(32)
            pad -= 1
        if sign and n > 0:
            self._put(43)               # +
        self._num(n)

    # ----- the score sheet: the totals, then deal by deal ---------------------------------

    def _scores(self):
        """Page 0: deals played, each seat's balance, the pot; page k: deal k's
        payments and the balances after it (prev from the totals: the last deal)."""
        view = self.view
        self.seat_names = view.seat_names()
        pages = view.deals_played() + 1
        page = self.table.page() % pages
        self._right_first(0, True)
        self._num(page + 1)
        self._put(47)                   # /
        self._num(pages)
        self._left()
        self._text("scores")
        self._place()
        self._begin(1)
        if page:
            self._pre("deal_no")
            self._num(page)
        else:
            self._pre("deals")
            self._num(view.deals_played())
        self._post()
        self._end()
        if page:
            self.deal = page - 1
            self._money(0, None, 2)
            self._back(3 + view.players())
            return
        seat = 0
        while seat < view.players() and seat < 5:
            self._right_first(2 + seat)
            self._num(view.balance(seat))
            room = self._left()
            self._name_in(seat, room if room < 8 else 8)
            self._place()
            seat += 1
        if view.pot() and seat < 6:
            self._begin(2 + seat)
            self._text("pot")
            self._right()
            self._num(view.pot())
            self._pad()
            self._end()
            seat += 1
        self._back(2 + seat)

    def _back(self, free):
        """Row 7 says how to go back when row ``free`` is still free."""
        if free <= 7:
            self._begin(7, True)
            self._text("ok_back")
            self._end()

    # ----- this deal on request: card points so far, the last trick again ------------------

    def _info(self):
        """Page 0: each seat's card points so far (up to 4 seats: the
        declarer's against the others' below); page 1: the last trick, its
        winner marked, and who took it with how many points."""
        view = self.view
        self.seat_names = view.seat_names()
        seats = self._active(view)
        page = self.table.page() % 2
        self._begin(1)
        if page == 0:
            self._text("points_now")
        elif view.last_winner() >= 0:
            self._pre("last_trick")
            self._num(view.trick_number() - 1)
            self._post()
        self._end()
        i = 0
        while i < len(seats) and i < 5:
            self._info_row(view, i, seats[i], page)
            i += 1
        if page and view.last_winner() >= 0:
            self._begin(6 if len(seats) < 5 else 7)
            self._wins(view)
            self._end()
        elif not page and len(seats) < 5 and view.declarer() >= 0:
            self._parties(view, seats)
        if len(seats) < 5 or not page:
            self._begin(7, True)
            self._text("ok_back")
            self._end()

    def _parties(self, view, seats):
        """Row 6: "Anna     45:30", the declarer's points and the others'."""
        decl = view.declarer()
        others = 0
        i = 0
        while i < len(seats):
            if seats[i] != decl:
                others += view.points(seats[i])
            i += 1
        self._right_first(6)
        self._num(view.points(decl))
        self._put(58)                   # :
        self._num(others)
        self._named_left(decl)
        self._place()

    def _info_row(self, view, i, seat, page):
        self._right_first(2 + i)
        if page == 0:
            self._num(view.points(seat))
        else:
            k = 0
            while k < len(self.seats):
                if view.last_trick_seat(k) == seat:
                    self._card(view.last_trick_card(k))
                    break
                k += 1
        room = self._left()
        self._put(42 if page and seat == view.last_winner() else 32)   # * the winner
        self._name_in(seat, room - 1 if room < 9 else 8)
        self._place()


def _digits(s):
    """How many digits end the str ``s``."""
    n = len(s)
    d = 0
    while d < n and "0" <= s[n - 1 - d] <= "9":
        d += 1
    return d


def _width(n, sign):
    """Columns of the int ``n`` written with ``_num`` (and a "+" if ``sign``)."""
    w = 1 if n < 0 or (sign and n > 0) else 0
    if n < 0:
        n = -n
    w += 1
    while n >= 10:
        n //= 10
        w += 1
    return w


def _wider(w, n, sign):
    k = _width(n, sign)
    return k if k > w else w


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
