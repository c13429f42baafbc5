"""A revoke proven (open mode): "Verstoß!", who, in which trick, the duty broken."""
from ..rows import COLS
from .parts import Page as Base
from .parts import header, name_in, rule, text_row


class Page(Base):
    def row(self, s, r):
        view = s.view
        w = s.w
        k = view.revoke_count() - 1
        if r == 0:
            header(s, True)
        elif k < 0 or r > 4 and r < 7:
            w.blank(r)
        elif r == 1:
            text_row(s, 1, "revoke", True)
        elif r == 2:
            w.begin(2)
            name_in(s, view.revoke_seat(k), COLS)
            w.end()
        elif r == 3:
            in_trick_row(s, 3, view.revoke_trick(k))
        elif r == 4:
            w.begin(4)
            rule(s, view.revoke_rule(k))
            w.end()
        else:
            text_row(s, 7, "ok_on", True)


def in_trick_row(s, row, trick):
    """"in Stich 2"."""
    w = s.w
    w.begin(row)
    w.text_head("in_trick")
    w.num(trick)
    w.text_tail("in_trick")
    w.end()
