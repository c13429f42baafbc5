"""The parts several pages show: the header, seats' names, the trick's winner."""
from tapp import errors as E

from .. import names, texts
from ..rows import COLS, width


class Page:
    """What a page does by default: nothing to take at a change, no row it can name."""

    def start(self, s, fresh):
        """Take what the rows share from the view (``fresh``: a first show)."""

    def key(self, s, r):
        return -1


def header(s, dealer, times=0):
    """Row 0: the game's name; "G:" and the dealer's whole name when they fit
    (the dealing screen names him anyway), while his deal is on: between
    deals the view's dealer is already the next one.  ``times``: the deal's
    doubling ("x8") in their place, where row 1 has no room for it (alone
    where the game's name leaves it no room: "Tarock Bettel" and x32)."""
    w = s.w
    j = names.variant_number(s.view.variant(), w.lang)
    w.begin(0, True)
    if not times or _variant_len(s, j) + 2 + width(times) <= COLS:
        if j < 0:
            w.add(s.view.variant())
        else:
            w.text_number(j)
    if times:
        w.right()
        w.put(120)                   # x
        w.num(times)
    elif dealer and dealer_shown(s):
        w.right()
        w.add("G:")
        w.codes(s.name_codes[s.view.dealer()])
    w.end()


def _variant_len(s, j):
    """Columns of the game's name (text number ``j``; -1: its id), counted
    once per name (the header's key asks at every draw)."""
    if j < 0:
        return len(s.view.variant())
    if j != _NAME_LEN[0]:
        _NAME_LEN[1] = s.w.number_len(j)
        _NAME_LEN[0] = j
    return _NAME_LEN[1]


_NAME_LEN = [-1, 0]              # the text number whose columns were counted last, and them


def dealer_shown(s):
    """Does the header name the dealer (while his deal is on and it fits)?"""
    view = s.view
    return (view.in_deal() or s.table.mode() == "dealing") and \
        _variant_len(s, names.variant_number(view.variant(), s.w.lang)) + 3 + \
        len(s.seat_names[view.dealer()]) <= COLS


def header_key(s):
    """What the dealer's header shows: the dealer, and whether he is named."""
    return s.view.dealer() * 2 + (1 if dealer_shown(s) else 0)


def up_to_8(room):
    """A name's columns: the room left, at most 8."""
    return room if room < 8 else 8


def name_in(s, seat, columns):
    """The seat's name in at most ``columns`` (shortened where it shows)."""
    codes = s.name_codes[seat]
    if len(codes) <= columns:
        s.w.codes(codes)
    else:
        s.w.short(s.seat_names[seat], columns)


def declared(s, cid, seat, right):
    """The row begun: contract ``cid`` on the right (``right(s, cid, short)``
    writes it with what follows it: the trump, the doubling) and its
    declarer ``seat`` in the room left.  The name keeps names.MIN_NAME
    columns (or all of it): a contract that would leave it less is said
    short ("Cora Ouvert" for "C. Bettel ouvert", names.SHORT)."""
    w = s.w
    w.right()
    right(s, cid, False)
    room = w.left()
    if room < names.MIN_NAME and room < len(s.seat_names[seat]) and cid in names.SHORT:
        w.drop_right()
        w.right()
        right(s, cid, True)
        room = w.left()
    name_in(s, seat, up_to_8(room))
    w.end(False)


def contract_only(s, cid, short):
    """``declared``'s ``right`` for the contract's name alone."""
    s.w.contract(cid, short)


def says(s, key, seat):
    """"Anna ist dran", "Bert sagt:": the text ``key`` with a seat's name."""
    s.w.text_head(key)
    name_in(s, seat, _room_in(s.w, key))
    s.w.text_tail(key)


def _room_in(w, key):
    """The columns a name has in the text ``key`` (its "%s")."""
    return up_to_8(COLS - w.text_len(key) + 2)


def says_row(s, row, key, seat):
    s.w.begin(row)
    says(s, key, seat)
    s.w.end()


def wins(s):
    """"Bert sticht 14": the last trick's winner (his name as long as the
    points leave room for) and its card points."""
    w = s.w
    view = s.view
    w.text_head("wins")
    room = COLS + 1 - w.text_len("wins") - width(view.last_points())
    name_in(s, view.last_winner(), up_to_8(room))
    w.text_tail("wins")
    w.put(32)
    w.num(view.last_points())


def rule(s, broken):
    """The duty a revoke broke, as the refusal of that card says it."""
    w = s.w
    if broken == "rufer_card":
        w.text("called_card")
    else:
        w.text_number(texts.error_number(E.NAMES.index(broken), w.lang))


def text_row(s, row, key, invert=False):
    """Row ``row`` says the text ``key``."""
    s.w.begin(row, invert)
    s.w.text(key)
    s.w.end()


def page_count_row(s, row, key, page, pages, invert=False):
    """"Abrechnung  1/2": the text ``key`` and the page turned to."""
    w = s.w
    w.begin(row, invert)
    w.right()
    w.fraction(page + 1, pages)
    w.left()
    w.text(key)
    w.end()


def seat_right_row(s, seat, mark=0):
    """End a row whose right part is written: ``mark`` (a space, ">", "*"
    or 0: none) and the seat's name in the room left."""
    w = s.w
    room = w.left()
    if mark:
        w.put(mark)
        name_in(s, seat, room - 1 if room < 9 else 8)
    else:
        name_in(s, seat, up_to_8(room))
    w.end()
