"""The score sheet (prev held): page 1 the totals -- deals played, each seat's
balance, the pot --, then deal by deal its payments and the balances after
it (prev from the totals: the last deal); OK goes back."""
from .money import Money
from .parts import Page as Base
from .parts import page_count_row, seat_right_row, text_row


class Page(Base):
    def __init__(self):
        self.pages = 1
        self.page = 0
        self.money = Money()

    def start(self, s, fresh):
        view = s.view
        self.pages = view.deals_played() + 1
        self.page = s.table.page() % self.pages
        if self.page:
            self.money.measure(s, 0, None, self.page - 1)

    def row(self, s, r):
        if r == 0:
            page_count_row(s, 0, "scores", self.page, self.pages, True)
        elif r == 1:
            self._title(s)
        elif self.page:
            self._deal_row(s, r)
        else:
            self._total_row(s, r)

    def _title(self, s):
        w = s.w
        w.begin(1)
        if self.page:
            w.text_head("deal_no")
            w.num(self.page)
            w.text_tail("deal_no")
        else:
            w.text_head("deals")
            w.num(s.view.deals_played())
            w.text_tail("deals")
        w.end()

    def _deal_row(self, s, r):
        money = self.money
        if r == 2:
            money.heads(s, 2)
        elif r - 3 < money.seats(s):
            money.seat_row(s, r, r - 3)
        else:
            _back(s, r)

    def _total_row(self, s, r):
        view = s.view
        n = view.players() if view.players() < 5 else 5
        if r - 2 < n:
            w = s.w
            w.begin(r)
            w.right()
            w.num(view.balance(r - 2))
            seat_right_row(s, r - 2)
        elif r - 2 == n and view.pot():
            w = s.w
            w.begin(r)
            w.text("pot")
            w.right()
            w.num(view.pot())
            w.end()
        else:
            _back(s, r)


def _back(s, r):
    """Row 7 says how to go back when it is free."""
    if r == 7:
        text_row(s, 7, "ok_back", True)
    else:
        s.w.blank(r)
