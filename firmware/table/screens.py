"""The 128x64 screens: 8 text rows of 16 columns, read at a glance.

Row 0 (inverted) names the game and the dealer; the rows below show what the
table is doing (dealing, the trick by seat, the result, the score sheet) and
row 7 the prompt: the menu entry to choose with prev/next/OK, or whose turn it
is.  A screen is drawn only when the game says something changed
(``game.dirty``); the display driver then sends only the changed pages.
"""
from tapp.cards import CODE_INDEX
from tapp.dealing import TALON

from . import font
from .game import DEALING, OVER, RESULT
from .names import CARD_TEXT, SUIT_SYMBOLS, VARIANTS, contract_name, suit_name
from .texts import text

ROWS = 8
COLS = 16
_BLANK = ("", False)


def _name(rules, seat, width=8):
    return rules.seats[seat][:width]


def _pad(left, right, width=COLS):
    """``left`` and ``right`` on one line, right-aligned (by characters)."""
    gap = width - len(left) - len(right)
    return left + " " * gap + right if gap > 0 else (left + " " + right)[:width]


class Screens:
    """Draws the game's state on a display with ``text``/``pixel``/``fill_rect``."""

    def __init__(self, display):
        self.display = display
        self.rows = [""] * ROWS        # what each row shows now (text and inversion)
        self.inverted = bytearray(ROWS)
        self.given = [""] * ROWS       # each row's text as given, before it was cut

    def _row(self, row, s, invert=False):
        if self.given[row] == s and self.inverted[row] == invert:
            return                     # unchanged: not even cut again (a cut copies)
        self.given[row] = s
        s = font.fit(s, COLS)
        if self.rows[row] == s and self.inverted[row] == invert:
            return
        self.rows[row] = s
        self.inverted[row] = 1 if invert else 0
        font.line(self.display, row, s, invert)

    def draw(self, game):
        """Render the game into the display's buffer (the app sends the changed
        pages, a few per step)."""
        self.draw_rows(self.compose(game))
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
        self._row(row, entry[0], entry[1])

    def text_rows(self):
        """What the screen shows, row by row (for the console and tests)."""
        return list(self.rows)

    # ----- composing -------------------------------------------------------------------

    def compose(self, game):
        """The 8 rows as (text, inverted) for the game's state."""
        view = game.view
        rules = game.rules
        lang = game.lang
        out = [(_pad(VARIANTS.get(rules.variant, rules.variant)[:10],
                     "G:" + _name(rules, view.dealer(), 5)), True)]
        if game.confirm_undo:
            body = self._body(game)
            return out + body[:5] + [("", False), (text("undo_q", lang), True)]
        if game.scores:
            return out + self._scores(game)
        if game.step == DEALING:
            out += self._dealing(game)
        elif game.step in (RESULT, OVER):
            out += self._result(game)
        else:
            out += self._body(game)
        return out

    def _body(self, game):
        view = game.view
        rules = game.rules
        lang = game.lang
        rows = [(self._contract_line(game), False)]
        seats = view.active_seats()
        turn = view.turn()
        cards = {}
        if game.clearing or (view.trick_size() == 0 and game.trick_shown):
            last = view.last_trick()
            if last is not None:
                order = seats[seats.index(last["leader"]):] + seats[:seats.index(last["leader"])]
                for i, code in enumerate(last["cards"]):
                    cards[order[i]] = CARD_TEXT[CODE_INDEX[code]]
        else:
            for i in range(view.trick_size()):
                cards[view.trick_seat(i)] = CARD_TEXT[view.trick_card(i)]
        winner = view.last_winner() if game.clearing else -1
        for seat in seats[:5]:
            mark = "*" if seat == winner else (">" if seat == turn else " ")
            card = cards.get(seat, "")
            rows.append((_pad(mark + _name(rules, seat), card), False))
        while len(rows) < 5:
            rows.append(("", False))
        if len(rows) < 6:               # up to 4 seats: a message row above the prompt
            rows.append((self._status(game), False))
        if game.menu:
            label = game.menu[game.menu_pos][0]
            rows.append(("<" + font.fit(label, COLS - 2) + ">", True))
        elif len(seats) > 4 and game.message:
            rows.append((game.message, False))   # 5 seats: the message takes the prompt row
        elif game.clearing:
            rows.append((text("clear", lang), False))
        elif turn >= 0:
            rows.append((text("turn", lang) % _name(rules, turn), False))
        else:
            rows.append(("", False))
        return rows

    def _status(self, game):
        """The message row: a refusal or warning, else the finished trick."""
        view = game.view
        if game.message:
            return game.message
        if game.clearing:
            return (text("wins", game.lang) % _name(game.rules, view.last_winner())
                    + " " + str(view.last_points()))
        return ""

    def _contract_line(self, game):
        view = game.view
        lang = game.lang
        cid = view.contract()
        if cid is None or view.declarer() < 0:
            if cid is not None:
                return contract_name(cid, lang)
            phase = view.expects()
            return text("calls", lang) % "" if phase == "call" else ""
        line = _name(game.rules, view.declarer(), 6) + " " + contract_name(cid, lang)
        trump = view.trump()
        if trump and suit_name(trump, lang) not in line:
            line += " " + SUIT_SYMBOLS["CSHD".index(trump)]
        if view.multiplier() > 1:
            line += " x" + str(view.multiplier())
        return line

    def _dealing(self, game):
        view = game.view
        rules = game.rules
        lang = game.lang
        seen, total, short = game.dealing_missing()
        rows = [(text("deal_centre", lang) % _name(rules, view.dealer()), False),
                (text("deal_count", lang) % ("%d/%d" % (seen, total)), False)]
        nxt = game.next_receiver()
        if nxt == TALON:
            rows.append((text("deal_to", lang) % text("talon", lang), False))
        elif nxt >= 0:
            rows.append((text("deal_to", lang) % _name(rules, nxt), False))
        else:
            rows.append(("", False))
        for seat in game.deal_active[:3]:
            rows.append((_pad(_name(rules, seat), "%d/%d" % (len(game.dealt[seat]),
                                                            rules.hand_size)), False))
        while len(rows) < 6:
            rows.append(("", False))
        rows.append((game.message or (text("missing", lang) % ",".join(
            _name(rules, s, 4) for s in short) if short else ""), False))
        return rows

    def _result(self, game):
        view = game.view
        rules = game.rules
        lang = game.lang
        r = view.last_result()
        rows = [(text("result", lang), False)]
        if r is None:
            return rows
        if r["contract"] is None:
            rows.append((text("thrown_in", lang), False))
        else:
            who = _name(rules, r["declarer"], 6) + " " if r["declarer"] is not None else ""
            state = {True: "won", False: "lost", None: "draw"}[r["won"]]
            rows.append((who + contract_name(r["contract"], lang), False))
            pts = r["points"]
            detail = ":".join(str(p) for p in pts) if pts else ""
            rows.append((_pad(detail, text(state, lang) if r["declarer"] is not None
                              else ""), False))
        for seat in range(rules.players)[:4]:
            rows.append((_pad(_name(rules, seat, 6), "%+d %d" % (
                r["payments"][seat], r["balances"][seat])), False))
        rows = rows[:6]
        while len(rows) < 6:
            rows.append(("", False))
        last = text("session_over", lang) if game.step == OVER else text("next_deal", lang)
        rows.append((last, True))
        return rows

    def _scores(self, game):
        view = game.view
        rules = game.rules
        lang = game.lang
        rows = [(text("scores", lang), False),
                (text("deals", lang) % view.deals_played(), False)]
        for seat in range(rules.players)[:5]:
            rows.append((_pad(_name(rules, seat), str(view.balance(seat))), False))
        if view.pot():
            rows.append((_pad(text("pot", lang), str(view.pot())), False))
        rows = rows[:7]
        while len(rows) < 7:
            rows.append(("", False))
        return rows
