"""The 128x64 screens: 8 text rows of 16 columns, read at a glance.

Row 0 (inverted) names the game and, while his deal is on, the dealer; the
rows below show what the table is doing, one page at a time, each page a
module of table/pages/ imported when it is first shown (the device has
little heap): the auction and the play (``play``: each seat's last call or
card, the standing call, the prompt; the undo question over it), the
dealing, the settlement's pages (``result``), the score sheet (``scores``),
this deal's points and last trick (``info``) and a revoke's notice
(``notice``).  Nothing is cut at the edge: a name that does not fit is
shortened where it shows ("Jürg.", "Pl.1"), a row's right part (a card, a
call, numbers) first and the name in the room left (tests/test_texts_fit.py).
The screens read the table only through its view (table/table_view.py,
``app.view``) and the engine's view it hands out; the current mode decides
when to draw (table/modes.py), the display job then sends the changed pages.

A redraw writes only what changed: ``draw(view)`` asks the page which
rows' inputs changed (``key(r)``: a small int naming what row r shows, -1
when it cannot say) and writes the first ``ROWS_PER_STEP`` of them (three: a
card laid changes three rows, one step; a whole new screen takes three steps,
not one of 23 ms on the Pico), the body before the header (a card laid shows
first), each row after the first only while the step, at the pace of its
longest row so far, ends within ``_ROWS_US`` (on the Pico asking the eight
rows' keys takes 2-4 ms: three rows after that held a step 10-12 ms);
``step()`` writes any left at the following steps.
Rows are written character by character over what is shown (table/rows.py),
so a redraw allocates nothing
(tests/mp/mptest_app_heap.py), except the view's active seats once per deal,
its result once when the result screen comes up and, after a power-up or an
undo, its last trick.  Cards show in the deck's pattern: a German-suited
game's (names.german_suited: Württemberg, the Bavarian family) with the
German suits' glyphs and Ober and Unter.
"""
from array import array

from drivers.ticks import ticks_diff

from . import names
from .rows import ROWS, RowWriter, code_points

try:
    from micropython import const
except ImportError:  # CPython
    const = lambda x: x  # noqa: E731

# Rows written a display step: three -- a card laid (three rows) is drawn in
# one step, a whole new screen in three of at most 10 ms on the Pico (eight rows
# in one took 23 ms; two a step put the card's three rows over two steps:
# median 36 -> 46 ms; docs/benchmarks.md).  While rows are due the readers and
# the console step aside (table/app.py), so the steps between cost the screen
# little.
ROWS_PER_STEP = 3
# ... and a row after a step's first is begun only where the step, at the
# pace of its longest row so far, ends within this (µs on the board's clock;
# a row takes 1-4 ms on the Pico, the pages sent after them 1-1.5 ms more):
# the display's steps stay within 10 ms.  Without a µs clock (the simulator's
# virtual one stands still while the table computes) every step writes three.
_ROWS_US = const(8000)
# table/pages/, most needed first (``preload``)
PAGES = ("dealing", "play", "result", "scores", "notice", "info")
# the order the rows are written in when several are due
ORDER = b"\x02\x03\x04\x05\x06\x07\x01\x00"
_BLANK = ("", False)


class Screens:
    """Draws what the table's view says on a display with ``text``/``pixel``/``fill_rect``."""

    def __init__(self, display, ticks_us=None):
        self.display = display
        # the board's µs clock (``_ROWS_US``; none: time stands, three rows a step)
        self.ticks_us = ticks_us or (lambda: 0)
        self.since = 0                    # when the display's step began (ticks_us)
        self.last = 0                     # ... its last row
        self.top = -1                     # ... its longest row so far (µs; -1: none yet)
        self.w = RowWriter(display)       # the rows shown and the pen (table/rows.py)
        # what the rows are written from, read by the pages: the table's view
        # ``table`` and the engine's view of its session ``view`` (set by
        # draw(), not here: their type is the views', never None, where they
        # are read); the seats' names
        self.view_shown = None            # the engine's view last drawn (``is``: a new session)
        self.seat_names = ()
        self.name_codes = ()              # the names' code points (array each), per session
        self.seats = ()                   # the view's active seats, kept per deal
        self.seats_view = None
        self.seats_key = -1
        self.due = 0                      # rows still to write (bits)
        self.keys = array("i", [-1] * ROWS)   # what each row was written from (-1: unsaid)
        self.page = None                  # the page shown (table/pages/), None: rows given
        self.given = None                 # the rows a mode gave (set_rows), while page is None
        self.loaded = {}                  # the pages imported, by name

    # ----- the current mode draws ---------------------------------------------------------

    def draw(self, table, fresh=False):
        """The table's view ``table`` changed: the rows whose inputs changed are
        due (``fresh``: every row); the first of them are written now, the
        others by ``step()``."""
        self.since = self.ticks_us()
        self._start(table, fresh)
        self._next()

    def step(self):
        """Write the next ``ROWS_PER_STEP`` rows due (the display job, each
        step; fewer where they would hold it over ``_ROWS_US``)."""
        if self.due:
            self.since = self.ticks_us()
            self._next()

    def _next(self):
        """The next rows due, from the step begun at ``since``."""
        page = self.page
        self.top = -1
        if page is None:
            self._given_rows()
            return
        n = ROWS_PER_STEP
        i = 0
        while self.due and n:
            r = ORDER[i]
            i += 1
            if self.due >> r & 1:
                if not self._room():
                    return
                self.due &= ~(1 << r)
                page.row(self, r)
                n -= 1

    def _room(self):
        """May the next row be begun in this step: its first, or one that at
        the pace of the step's longest row so far (``top``, µs) ends within
        ``_ROWS_US``?"""
        now = self.ticks_us()
        row = ticks_diff(now, self.last)  # the row written since the last look
        if self.top < 0:
            self.top = 0
        elif row > self.top:
            self.top = row
        self.last = now
        return not self.top or ticks_diff(now, self.since) + self.top < _ROWS_US

    def compose(self, table):
        """Write the whole screen of the table's view ``table`` at once (every
        row, as a first show would; for tests and measurements)."""
        self._start(table, True)
        while self.due:
            self.step()

    def set_rows(self, lines):
        """A mode's 8 (text, inverted) rows (the setup, the enrolment, a full
        flash): the rows that differ from the ones it gave last are due, the
        first ``ROWS_PER_STEP`` written now, any others by ``step()``."""
        last = self.given if self.page is None else None
        self.page = None
        self.given = lines
        n = len(lines)
        r = 0
        while r < ROWS:
            entry = lines[r] if r < n else _BLANK
            if last is None or r >= len(last) or last[r] != entry:
                self.due |= 1 << r
            r += 1
        self.step()

    def _given_rows(self):
        lines = self.given
        if lines is None:
            return
        n = 0
        r = 0
        while self.due and r < ROWS and n < ROWS_PER_STEP:
            if self.due >> r & 1:
                if not self._room():
                    return
                self.due &= ~(1 << r)
                self._entry(r, lines[r] if r < len(lines) else _BLANK)
                n += 1
            r += 1

    def draw_rows(self, lines):
        """Render 8 (text, inverted) rows at once (tests; the app's redraw);
        unchanged rows are not redrawn."""
        self.page = None
        self.given = None
        self.due = 0
        self.w.forget()
        n = len(lines)
        row = 0
        while row < ROWS:
            self._entry(row, lines[row] if row < n else _BLANK)
            row += 1

    def _entry(self, row, entry):
        w = self.w
        w.begin(row, entry[1])
        w.add(entry[0])
        w.end()

    # ----- what is shown ------------------------------------------------------------------

    def text_rows(self):
        """What the screen shows, row by row (for the console and tests)."""
        return self.w.text_rows()

    def rows(self):
        """What the screen shows as (text, inverted) rows (``draw_rows``' input)."""
        inv = self.w.inverted
        return [(t, bool(inv[r])) for r, t in enumerate(self.text_rows())]

    # ----- the page and its rows due ------------------------------------------------------

    def _start(self, table, fresh):
        self.table = table
        view = table.engine()
        fresh = fresh or view is not self.view_shown
        self.view = view
        self.view_shown = view
        self._names(view.seat_names())
        self.w.lang = table.language()
        self.w.german = names.german_suited(view.variant())
        page = self._page(table)
        if page is not self.page:
            fresh = True
            self.page = page
        page.start(self, fresh)
        self._due_rows(page, fresh)

    def _due_rows(self, page, fresh):
        r = 0
        while r < ROWS:
            k = page.key(self, r)
            if fresh or k < 0 or k != self.keys[r]:
                self.due |= 1 << r
            self.keys[r] = k
            r += 1

    def _names(self, seat_names):
        """The seats' names, and their code points made once per session (a
        name written from a str costs a 1-character str's lookup per letter)."""
        if seat_names is not self.seat_names:
            self.seat_names = seat_names
            self.name_codes = [code_points(name) for name in seat_names]

    def _page(self, table):
        """The page the view shows: an overlay's, else the mode's."""
        over = table.overlay()
        if over == "scores" or over == "info" or over == "notice":
            return self._loaded(over)
        mode = table.mode()
        if over != "undo" and mode == "dealing":
            return self._loaded("dealing")
        if over != "undo" and (mode == "result" or mode == "over"):
            return self._loaded("result")
        return self._loaded("play")

    def _loaded(self, name):
        page = self.loaded.get(name)
        if page is None:
            page = _import(name).Page()
            self.loaded[name] = page
        return page

    def preload(self):
        """Import the next page not yet imported: True if one was (the idle
        job's work ahead of need, ``App.idle_work``: on the Pico a page's
        first import took a display step of 50-80 ms)."""
        for name in PAGES:
            if name not in self.loaded:
                self._loaded(name)
                return True
        return False

    def active(self):
        """The view's active seats (a list made once per deal, not per redraw)."""
        view = self.view
        key = (view.deals_played() * 64 + view.dealer()) * 2 + (1 if view.in_deal() else 0)
        if view is not self.seats_view or key != self.seats_key:
            self.seats = view.active_seats()
            self.seats_view = view
            self.seats_key = key
        return self.seats


def _import(name):
    """The page module ``name`` of table/pages/, imported now if not yet."""
    if name == "play":
        from .pages import play as page
    elif name == "dealing":
        from .pages import dealing as page
    elif name == "result":
        from .pages import result as page
    elif name == "scores":
        from .pages import scores as page
    elif name == "info":
        from .pages import info as page
    else:
        from .pages import notice as page
    return page
