"""The settlement: page 1 what was played and what decided it, then every
seat's payment and balance (5 seats a page); "1/2" on row 1.

Page 1: row 2 the contract and its declarer (or "thrown in"); row 3 the card
points and won or lost ("Stiche 0:1" where the tricks decide, as in a Durch;
the state on row 4 when both do not fit); then what decided it: a revoke
("Verstoß! Cora", "in Stich 1", the duty where a row is left; docs/rules 3.4)
or, for a trick-goal contract broken before its last trick, that trick ("in
Stich 2": the deal ended there, docs/rules D15, so no points are counted for
cards never played); then the pot; row 7 what OK does.
"""
from ..rows import COLS, width
from .money import Money
from .notice import in_trick_row
from .parts import Page as Base
from .parts import contract_only, declared, header, name_in, page_count_row, rule


class Page(Base):
    def __init__(self):
        # the view's last result (a dict copy), taken once while the result
        # screen is shown: it is redrawn at each button press
        self.result = None
        self.result_key = -1
        self.pages = 1
        self.page = 0
        self.decided_at = 3          # row 3 holds the state too (else row 4 does)
        self.after = 3               # the first row after what was played and decided
        self.broken = 0              # the trick a trick-goal contract was broken in (0: none)
        self.money = Money()

    def start(self, s, fresh):
        view = s.view
        if fresh or self.result is None or self.result_key != view.deals_played():
            self.result = view.last_result()
            self.result_key = view.deals_played()
        self.pages = 1 + (view.players() + 4) // 5
        self.page = s.table.page() % self.pages
        r = self.result
        if r is None:
            return
        if self.page:
            self.money.measure(s, 5 * (self.page - 1), r, 0)
        elif r["contract"] is None:
            self.after = 3
        else:
            self.after = 4 if _fits(s, r) else 5
            self.broken = _broken_in(view, r)

    def row(self, s, r):
        res = self.result
        if r == 0:
            header(s, False)
        elif r == 1:
            page_count_row(s, 1, "result", self.page, self.pages)
        elif res is None:
            s.w.blank(r)
        elif self.page:
            self._money_row(s, r)
        else:
            self._outcome_row(s, r, res)

    def _money_row(self, s, r):
        money = self.money
        if r == 2:
            money.heads(s, 2)
        elif r - 3 < money.seats(s):
            money.seat_row(s, r, money.first + r - 3)
        elif r == 7:
            self._next(s)
        else:
            s.w.blank(r)

    def _outcome_row(self, s, r, res):
        if r == 2:
            _played(s, res)
        elif r < self.after:
            _decided(s, r, res, self.after)
        elif r == 7:
            self._next(s)
        else:
            self._why_row(s, r, res.get("penalty"))

    def _why_row(self, s, r, pen):
        """Below what was played: a revoke that decided it, the trick a
        contract was broken in, the pot."""
        at = self.after
        broken = 1 if self.broken and pen is None else 0
        if pen is not None and r < at + 3:
            _penalty(s, r - at, pen, r)
        elif broken and r == at:
            in_trick_row(s, r, self.broken)
        elif pen is None and r == at + broken and s.view.pot():
            _pot(s, r)
        else:
            s.w.blank(r)

    def _next(self, s):
        """Row 7: the table's news (the flash running full), else what OK does."""
        w = s.w
        table = s.table
        w.begin(7, True)
        if table.news():
            w.add(table.news())
        else:
            w.text("session_over" if table.mode() == "over" else "next_deal")
        w.end()


def _played(s, res):
    """Row 2: the contract and its declarer, or "thrown in"."""
    w = s.w
    w.begin(2)
    if res["contract"] is None:
        w.text("thrown_in")
        w.end()
        return
    if res["declarer"] is None:
        w.contract(res["contract"])
        w.end()
        return
    declared(s, res["contract"], res["declarer"], contract_only)


def _by_tricks(res):
    return res["target"] is None and res["declarer"] is not None and res["tricks"]


def _broken_in(view, res):
    """The trick a trick-goal contract ended in before the deal's last one
    (docs/rules D15: lost there), 0 when it was played out."""
    if not _by_tricks(res):
        return 0
    n = res["tricks"][0] + res["tricks"][1]
    return n if n < view.hand_size() else 0


def _fits(s, res):
    """Do the points (or tricks) and the state fit on row 3 together?"""
    w = s.w
    n = _pair_width(res["tricks"] if _by_tricks(res) else res["points"])
    if _by_tricks(res):
        n += w.text_len("tricks") - 2
    state = _state_key(res)
    return n + 1 + (w.text_len(state) if state else 0) <= COLS


def _pair_width(pts):
    n = 0
    k = 0
    while pts and k < len(pts):
        n += (1 if k else 0) + width(pts[k])
        k += 1
    return n


def _decided(s, r, res, at):
    """"61:59 gewonnen" on row 3; where they do not fit, the state on row 4."""
    w = s.w
    w.begin(r)
    if r == 4:
        _state(w, res)
        w.end()
        return
    if at == 4:
        w.right()
        _state(w, res)
        w.left()
    if _by_tricks(res):
        w.text_head("tricks")
        _pair(w, res["tricks"])
        w.text_tail("tricks")
    else:
        _pair(w, res["points"])
    w.end()


def _state_key(res):
    if res["declarer"] is None:
        return ""
    return "draw" if res["won"] is None else ("won" if res["won"] else "lost")


def _state(w, res):
    key = _state_key(res)
    if key:
        w.text(key)


def _pair(w, pts):
    """"61:59", "30:50:40": the ints of a list, colon between."""
    k = 0
    while pts and k < len(pts):
        if k:
            w.put(58)                # :
        w.num(pts[k])
        k += 1


def _penalty(s, i, pen, r):
    """Three rows: "Verstoß! Cora", "in Stich 1", the duty."""
    w = s.w
    if i == 0:
        w.begin(r)
        w.text("revoke")
        w.put(32)
        name_in(s, pen["seat"], COLS - 1 - w.text_len("revoke"))
        w.end()
    elif i == 1:
        in_trick_row(s, r, pen["trick"])
    else:
        w.begin(r)
        rule(s, pen["rule"])
        w.end()


def _pot(s, r):
    w = s.w
    w.begin(r)
    w.text("pot")
    w.right()
    w.num(s.view.pot())
    w.end()
