"""This deal on request (next held): each seat's card points so far (up to 4
seats: the declarer's against the others' below), then the last trick again,
its winner marked, and who took it with how many points."""
from .parts import Page as Base
from .parts import header, name_in, seat_right_row, text_row, up_to_8, wins


class Page(Base):
    def __init__(self):
        self.seats = []
        self.page = 0

    def start(self, s, fresh):
        self.seats = s.active()
        self.page = s.table.page() % 2

    def row(self, s, r):
        n = len(self.seats)
        if r == 0:
            header(s, True)
        elif r == 1:
            self._title(s)
        elif r - 2 < n and r - 2 < 5:
            self._seat_row(s, r)
        elif r == 7 and (n < 5 or not self.page):
            text_row(s, 7, "ok_back", True)
        elif r == (6 if n < 5 else 7) and self.page and s.view.last_winner() >= 0:
            s.w.begin(r)
            wins(s)
            s.w.end()
        elif r == 6 and not self.page and n < 5 and s.view.declarer() >= 0:
            self._parties(s)
        else:
            s.w.blank(r)

    def _title(self, s):
        w = s.w
        view = s.view
        w.begin(1)
        if self.page == 0:
            w.text("points_now")
        elif view.last_winner() >= 0:
            w.text_head("last_trick")
            w.num(view.trick_number() - 1)
            w.text_tail("last_trick")
        w.end()

    def _seat_row(self, s, r):
        view = s.view
        seat = self.seats[r - 2]
        w = s.w
        w.begin(r)
        w.right()
        if self.page == 0:
            w.num(view.points(seat))
        else:
            _last_card(s, seat, len(self.seats))
        seat_right_row(s, seat, 42 if self.page and seat == view.last_winner() else 32)

    def _parties(self, s):
        """Row 6: "Anna     45:30", the declarer's points and the others'."""
        view = s.view
        decl = view.declarer()
        others = 0
        i = 0
        while i < len(self.seats):
            if self.seats[i] != decl:
                others += view.points(self.seats[i])
            i += 1
        w = s.w
        w.begin(6)
        w.right()
        w.num(view.points(decl))
        w.put(58)                    # :
        w.num(others)
        name_in(s, decl, up_to_8(w.left()))
        w.end()


def _last_card(s, seat, n):
    view = s.view
    k = 0
    while k < n:
        if view.last_trick_seat(k) == seat:
            s.w.card(view.last_trick_card(k))
            return
        k += 1
