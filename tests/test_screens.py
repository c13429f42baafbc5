"""The screens by what they show: the rows the display model reads back from
its pixels at each page of a session (as the scenario files check them), and
the redraw spread over the display job's steps -- a row or two a step, only
the rows whose inputs changed, and once the rows due are written the screen
is the one a whole redraw of the same view makes.
"""
from __future__ import annotations

import io
import types

import pytest

from drivers import ssd1306
from host_sim.scenario import Run
from table import font, screens
from table.rows import COLS, RowWriter
from tests.shown_view import Shown


class _I2C:
    """A bus that takes every write (the driver's buffer is what is compared)."""

    def writeto(self, addr, buf, stop=True):
        return len(buf) + 1

    def writevto(self, addr, vector, stop=True):
        return 1


def _screens():
    return screens.Screens(ssd1306.SSD1306(_I2C()))


def _shown(scr):
    return scr.text_rows(), [bool(v) for v in scr.w.inverted], bytes(scr.display.buffer)


# ---------------------------------------------------------------- the pages, read back

PAGES = [
    ("the dealing", ["table variant=tapp_modern players=3 mode=strict seed=3 lang=de",
                     "deal 7"],
     ["Tapp neu  G:Anna", "Anna gibt", "Karte 7/33", "an Bert", "Cora        4/11",
      "Bert        3/11", "Anna        0/11", "fehlt: 3 Spieler"]),
    ("the auction", ["deal", "call"],
     ["Tapp neu  G:Anna", "Bert sagt:", " Cora        weg", ">Bert", " Anna", "", "",
      "<weg>"]),
    ("a trick", ["auction", "play turn legal", "play turn legal"],
     ["Tapp neu  G:Anna", "Ramsch", " Cora         ♣A", " Bert         ♣K", ">Anna", "", "",
      "Anna ist dran"]),
    ("the trick complete", ["play turn legal"],
     ["Tapp neu  G:Anna", "Ramsch", "*Cora         ♣A", " Bert         ♣K",
      " Anna        ♣10", "", "Cora sticht 25", "Tisch abräumen"]),
    ("this deal's points", ["hold next"],
     ["Tapp neu  G:Anna", "Augen bisher", " Cora         25", " Bert          0",
      " Anna          0", "", "", "OK: zurück"]),
    ("the last trick again", ["press next"],
     ["Tapp neu  G:Anna", "Letzter Stich 1", "*Cora         ♣A", " Bert         ♣K",
      " Anna        ♣10", "", "Cora sticht 25", "OK: zurück"]),
    ("the next trick", ["press ok", "lift all"],
     ["Tapp neu  G:Anna", "Ramsch", ">Cora", " Bert", " Anna", "", "", "Cora ist dran"]),
    ("the undo question", ["play turn legal", "hold ok"],
     ["Tapp neu  G:Anna", "Ramsch", " Cora         ♣Q", ">Bert", " Anna", "", "Cora ♣Q",
      "Rückgängig? OK"]),
    ("undone", ["press ok"],
     ["Tapp neu  G:Anna", "Ramsch", ">Cora", " Bert", " Anna", "", "Zurückgenommen",
      "Cora ist dran"]),
    ("the score sheet", ["lift all", "hold prev"],
     ["Spielstand   1/1", "Spiele: 0", "Anna           0", "Bert           0",
      "Cora           0", "", "", "OK: zurück"]),
    ("the settlement", ["press ok", "autoplay"],
     ["Tapp neu", "Abrechnung   1/2", "Ramsch", "39:39:42", "", "", "", "OK: neues Spiel"]),
    ("its payments", ["press next"],
     ["Tapp neu", "Abrechnung   2/2", "       +/- Stand", "Anna    +5     5",
      "Bert    +5     5", "Cora   -10   -10", "", "OK: neues Spiel"]),
    ("a deal of the score sheet", ["hold prev", "press prev"],
     ["Spielstand   2/2", "Spiel 1", "       +/- Stand", "Anna    +5     5",
      "Bert    +5     5", "Cora   -10   -10", "", "OK: zurück"]),
]


def test_each_page_as_the_display_shows_it():
    """A session of Tapp turned through every page: the 8 rows read back off
    the display model's pixels, whole."""
    run = Run("pages")
    for what, lines, rows in PAGES:
        assert not run.run_lines(lines), what
        assert run.table.screen() == rows, what


# ---------------------------------------------------------------- a redraw, step by step

DEALS = [("herzblatt", 5, "strict", "de", 1), ("herzblatt", 5, "open", "en", 2),
         ("tapp_modern", 4, "strict", "en", 3), ("tapp_modern", 3, "open", "de", 4),
         ("wuerttemberg", 3, "strict", "de", 5), ("haferltarock", 4, "open", "en", 6),
         ("tarock_bettel", 3, "strict", "en", 7), ("berliner", 4, "strict", "de", 8)]


@pytest.mark.parametrize("per_step", [screens.ROWS_PER_STEP, 2])
@pytest.mark.parametrize("variant,players,mode,lang,seed", DEALS)
def test_rows_written_step_by_step_make_the_whole_screen(monkeypatch, variant, players,
                                                         mode, lang, seed, per_step):
    """Over a whole deal: no display step writes more than ROWS_PER_STEP rows;
    once the rows due are written, the screen (rows, inversion, pixels) is
    the one a whole redraw of that view makes -- also when the view turns to
    another page, overlay or message between two draws (the table's budget,
    three rows a step, and a smaller one)."""
    from tools.tapptable import sim_text

    monkeypatch.setattr(screens, "ROWS_PER_STEP", per_step)

    written = [0]
    plain_begin = RowWriter.begin

    def begin(self, row, invert=False):
        written[0] += 1
        plain_begin(self, row, invert)

    monkeypatch.setattr(RowWriter, "begin", begin)
    plain_draw = screens.Screens.draw
    plain_step = screens.Screens.step
    seen = {"draws": 0, "complete": 0}
    other = _screens()                    # a second screen turned through the pages
    other.watched = False

    def counted(call, scr, *args):
        written[0] = 0
        call(scr, *args)
        assert written[0] <= screens.ROWS_PER_STEP, written[0]

    def whole(view):
        ref = _screens()
        ref.watched = False               # (its own steps are not checked,
        mark = written[0]                 # nor its rows counted)
        ref.compose(view)
        written[0] = mark
        return _shown(ref)

    def step(self):
        if not getattr(self, "watched", True):
            plain_step(self)
            return
        counted(plain_step, self)
        if not self.due and self.page is not None:
            seen["complete"] += 1
            assert _shown(self) == whole(self.table)

    def draw(self, view, fresh=False):
        counted(plain_draw, self, view, fresh)
        seen["draws"] += 1
        if seen["draws"] % 5 == 0:        # the same view under every page, in turn
            for overlay in ("scores", "undo", "info", "notice", None):
                for page in range(3):
                    shown = Shown(view, overlay, page, "Farbe bedienen!" if page else None)
                    plain_draw(other, shown)
                    while other.due:
                        counted(plain_step, other)
                    assert _shown(other) == whole(shown), (overlay, page)

    monkeypatch.setattr(screens.Screens, "draw", draw)
    monkeypatch.setattr(screens.Screens, "step", step)
    args = types.SimpleNamespace(variant=variant, players=players, mode=mode, lang=lang,
                                 seed=seed, runtime="cpython")
    sim_text.autoplay(args, out=io.StringIO())
    assert seen["draws"] > 20 and seen["complete"] > 20, seen


def _rows_written(monkeypatch):
    """The rows every RowWriter writes from now on, in order (a list that fills)."""
    rows = []
    plain_begin = RowWriter.begin

    def begin(self, row, invert=False):
        rows.append(row)
        plain_begin(self, row, invert)

    monkeypatch.setattr(RowWriter, "begin", begin)
    return rows


def test_a_card_laid_writes_its_own_row_first_and_few_others(monkeypatch):
    """Mid-trick, a card laid: the first display step after it writes the
    player's row, and the rows whose inputs did not change (the header, the
    contract's row, the other seats' rows) are not written at all."""
    run = Run("card")
    assert not run.run_lines(["table variant=tapp_modern players=4 mode=strict seed=3",
                              "deal", "auction", "play turn legal"])
    table = run.table
    rows = _rows_written(monkeypatch)
    seat = table.view.turn()
    row = 2 + table.view.active_seats().index(seat)
    assert not run.run_lines(["play turn legal"])
    assert rows[0] == row, rows
    assert 0 not in rows and 1 not in rows and len(rows) <= 4, rows
    assert table.view.trick_size() == 2
    assert len(table.screen()[row]) == COLS, table.screen()     # its card at the edge


def test_a_move_in_the_auction_menu_writes_the_menu_row_alone(monkeypatch):
    """In the auction a press of next moves the menu: only the prompt row is
    written (the seat rows, the standing call and who calls keep their keys),
    and a call made writes fewer rows than the whole screen."""
    run = Run("menu")
    assert not run.run_lines(["table variant=tapp_modern players=4 mode=strict seed=3",
                              "deal"])
    table = run.table
    assert table.view.expects() == "call" and table.app.view.menu_size() > 1
    rows = _rows_written(monkeypatch)
    assert not run.run_lines(["press next"])
    assert rows == [7], rows
    del rows[:]
    assert not run.run_lines(["press ok"])
    assert 0 not in rows and 0 < len(rows) < 8, rows


def test_an_undo_and_a_new_call_in_one_step_leave_no_row_behind():
    """The auction's rows are keyed by a call's place: an undo and another
    call at that place between two draws (both queued for one game step)
    must still leave the screen a whole redraw of the view makes."""
    from drivers.buttons import KEY_NEXT, KEY_OK, SHORT, event
    from table.app import UNDO

    run = Run("undo")
    assert not run.run_lines(["table variant=tapp_modern players=4 mode=strict seed=3",
                              "deal", "press next", "press ok"])
    table = run.table
    app = table.app
    made = app.view.engine().calls_made()
    undone = tuple(app.view.engine().call_made(made - 1))
    assert app.input(UNDO) and app.input(event(KEY_NEXT, SHORT)) \
        and app.input(event(KEY_NEXT, SHORT)) and app.input(event(KEY_OK, SHORT))
    table.wait(300)
    view = app.view.engine()
    assert view.calls_made() == made and tuple(view.call_made(made - 1)) != undone, undone
    ref = _screens()
    ref.compose(app.view)
    assert _shown(app.screens) == _shown(ref)


# ---------------------------------------------------------------- rows given as text


def test_rows_of_any_text_and_the_right_edge():
    """``draw_rows`` (the setup, the enrolment): any text, cut at column 16,
    drawn with the pixels ``font.line`` draws for it."""
    oled = ssd1306.SSD1306(_I2C())
    s = screens.Screens(oled)
    rows = [("Herzblatt       G:Anna", True), ("Jürgen ♥10 · → é", False),
            ("x" * 20, False), ("", True), ("\u00df\u00c4\u00d6\u00dc", False)]
    s.draw_rows(rows)
    ref = ssd1306.SSD1306(_I2C())
    for r in range(8):
        text_, inv = rows[r] if r < len(rows) else ("", False)
        font.line(ref, r, font.fit(text_, COLS), inv)
    assert s.text_rows() == [font.fit(t, COLS) for t, _ in rows] + [""] * 3
    assert bytes(oled.buffer) == bytes(ref.buffer)
    assert s.rows()[0] == ("Herzblatt       ", True)


def test_a_dealt_card_writes_only_the_rows_it_changes(monkeypatch):
    """Strict dealing, a card dealt over the centre: the count, who gets the
    next card, the receiver's row and who is still short are written; the
    header, the dealer's row and the other seats' rows are not (all eight
    written again held the display's step 10-11 ms on the Pico)."""
    run = Run("dealt")
    assert not run.run_lines(["table variant=tapp_modern players=4 mode=strict seed=3",
                              "deal 5"])
    rows = _rows_written(monkeypatch)
    assert not run.run_lines(["deal 1"])
    assert rows and 0 not in rows and 1 not in rows and len(rows) <= 5, rows
    assert 2 in rows and 3 in rows and len([r for r in rows if 4 <= r <= 6]) <= 2, rows


@pytest.mark.parametrize("row_us,per_step", [(0, 3), (1500, 3), (3000, 2), (4500, 1)])
def test_a_step_writes_only_the_rows_that_keep_it_within_its_time(monkeypatch, row_us,
                                                                    per_step):
    """On the board's µs clock a display step begins a row after its first
    only where, at the pace of its longest row so far, the step ends within
    8 ms (on the Pico the eight rows' keys and three rows held a step 10-12
    ms): rows of 1.5 ms go three a step, of 3 ms two, of 4.5 ms one; without
    a clock (the simulator's, standing while the table computes) three.  The
    screen the steps make is the one a whole redraw makes."""
    run = Run("pace")
    assert not run.run_lines(["table variant=tapp_modern players=4 mode=strict seed=3",
                              "deal", "auction", "play turn legal"])
    view = run.table.app.view
    now = [0]
    paced = screens.Screens(ssd1306.SSD1306(_I2C()), (lambda: now[0]) if row_us else None)
    plain_begin = RowWriter.begin
    written = []

    def begin(self, row, invert=False):         # a row takes row_us
        now[0] += row_us
        written.append(row)
        plain_begin(self, row, invert)

    monkeypatch.setattr(RowWriter, "begin", begin)
    steps = []
    paced.draw(view, fresh=True)
    steps.append(len(written))
    while paced.due:
        now[0] += 5000                          # the other jobs' steps between
        paced.step()
        steps.append(len(written) - sum(steps))
    assert sum(steps) == 8 and steps[:-1] == [per_step] * (len(steps) - 1), steps
    assert 0 < steps[-1] <= per_step
    whole = _screens()
    whole.compose(view)
    assert _shown(paced) == _shown(whole)
