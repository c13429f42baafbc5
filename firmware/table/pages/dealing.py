"""Strict dealing: who deals, how many cards so far, who gets the next one,
each seat's count, and who is still short (or the message).  Each row has
its key: a dealt card changes three or four rows, and writing all eight
again held the display's step 10-11 ms on the Pico."""
from tapp.dealing import TALON

from ..rows import COLS
from .parts import Page as Base
from .parts import header, header_key, name_in, says, says_row, seat_right_row


class Page(Base):
    def key(self, s, r):
        table = s.table
        if r == 0:
            return header_key(s)
        if r == 1:                       # the dealer over the centre
            return s.view.dealer()
        if r == 2:
            return table.deal_scanned() * 256 + table.deal_due()
        if r == 3:
            return table.next_receiver() + 8     # (a seat, TALON -1 or -2: none)
        if r == 7:                       # the message, else who is still short
            return -1 if table.message() else _short_seats(table)
        if r - 4 < 3 and r - 4 < table.deal_seats():
            seat = table.deal_seat(r - 4)
            return (seat * 64 + table.dealt(seat)) * 64 + s.view.hand_size() + 1
        return 0                         # blank

    def row(self, s, r):
        table = s.table
        w = s.w
        if r == 0:
            header(s, True)
        elif r == 1:
            says_row(s, 1, "deal_centre", s.view.dealer())
        elif r == 2:
            w.begin(2)
            w.text_head("deal_count")
            w.fraction(table.deal_scanned(), table.deal_due())
            w.text_tail("deal_count")
            w.end()
        elif r == 3:
            _deal_to(s)
        elif r == 7:
            _last_row(s)
        elif r - 4 < table.deal_seats() and r - 4 < 3:
            _dealt_row(s, r)
        else:
            w.blank(r)


def _deal_to(s):
    """Row 3: who gets the next card dealt over the centre."""
    w = s.w
    w.begin(3)
    nxt = s.table.next_receiver()
    if nxt == TALON:
        w.text_head("deal_to")
        w.text("talon")
        w.text_tail("deal_to")
    elif nxt >= 0:
        says(s, "deal_to", nxt)
    w.end()


def _dealt_row(s, r):
    """"Anna      5/12": a seat's cards scanned so far."""
    seat = s.table.deal_seat(r - 4)
    w = s.w
    w.begin(r)
    w.right()
    w.fraction(s.table.dealt(seat), s.view.hand_size())
    seat_right_row(s, seat)


def _last_row(s):
    table = s.table
    w = s.w
    w.begin(7)
    if table.message():
        w.add(table.message())
    elif _short_seats(table):
        _missing(s)
    w.end()


def _short_seats(table):
    """The seats still short of cards, a bit each (row 7's key, and whom it names)."""
    mask = 0
    n = table.deal_seats()
    while n:
        n -= 1
        seat = table.deal_seat(n)
        if table.deal_short(seat):
            mask |= 1 << seat
    return mask


def _missing(s):
    """"fehlt: Cora,Bert": every seat still short, each name shortened to
    fit; "fehlt: 3 Spieler" when they would be shorter than 4 columns."""
    table = s.table
    w = s.w
    mask = _short_seats(table)
    short = 0
    while mask:                      # how many: the mask's bits
        mask &= mask - 1
        short += 1
    room = COLS - w.text_len("missing") + 2
    columns = (room - short + 1) // short
    if columns < 4:
        w.text_head("missing_n")
        w.num(short)
        w.text_tail("missing_n")
        return
    w.text_head("missing")
    _short_names(s, columns)
    w.text_tail("missing")


def _short_names(s, columns):
    table = s.table
    i = 0
    first = True
    while i < table.deal_seats():
        seat = table.deal_seat(i)
        if table.deal_short(seat):
            if not first:
                s.w.put(44)          # ,
            first = False
            name_in(s, seat, columns)
        i += 1
