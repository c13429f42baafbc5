"""Payments and balances in columns: the settlement's second page and the
score sheet's deals.  The column heads ("+/-", "Stand") right-aligned over
columns as wide as their numbers; a seat a row, its name in the room left."""
from ..rows import width
from .parts import seat_right_row


class Money:
    """The columns of up to 5 seats from ``first`` on, of the settlement ``result``
    (a dict: its payments and balances) or, ``result`` None, of score sheet
    deal ``deal`` (its payments and the balances after it)."""

    def __init__(self):
        self.first = 0
        self.result = None
        self.deal = 0
        self.pay_columns = 0
        self.total_columns = 0

    def measure(self, s, first, result, deal):
        """Take the seats' numbers and the columns' widths."""
        self.first = first
        self.result = result
        self.deal = deal
        w = s.w
        wp = w.text_len("col_pay")
        wb = w.text_len("col_total")
        seat = first
        while seat < s.view.players() and seat < first + 5:
            wp = _wider(wp, width(self.amount(s, seat, True), True))
            wb = _wider(wb, width(self.amount(s, seat, False)))
            seat += 1
        self.pay_columns = wp
        self.total_columns = wb

    def seats(self, s):
        """How many seats the columns hold."""
        n = s.view.players() - self.first
        return n if n < 5 else 5

    def amount(self, s, seat, paid):
        """A seat's payment (``paid``) or balance."""
        r = self.result
        if r is not None:
            return r["payments"][seat] if paid else r["balances"][seat]
        view = s.view
        if paid:
            return view.deal_payment(self.deal, seat)
        bal = view.balance(seat)
        k = view.deals_played() - 1
        while k > self.deal:
            bal -= view.deal_payment(k, seat)
            k -= 1
        return bal

    def heads(self, s, row):
        w = s.w
        w.begin(row)
        w.right()
        _head(w, "col_pay", self.pay_columns)
        w.put(32)
        _head(w, "col_total", self.total_columns)
        w.left()
        w.end()

    def seat_row(self, s, row, seat):
        w = s.w
        w.begin(row)
        w.right()
        w.signed(self.amount(s, seat, True), self.pay_columns, True)
        w.put(32)
        w.signed(self.amount(s, seat, False), self.total_columns, False)
        seat_right_row(s, seat)


def _head(w, key, columns):
    w.spaces(columns - w.text_len(key))
    w.text(key)


def _wider(columns, k):
    return k if k > columns else columns
