"""table/screens.py writes its rows character by character (no strings, no
allocation); these tests hold it to the rows as strings the screens used to
build (a reference composer kept here) and to the pixels ``font.line`` draws
for those strings, over whole simulated deals of several variants in both
languages; and check the table texts' lookup (table/texts.py, table/names.py).
"""
from __future__ import annotations

import io
import types

import pytest

from drivers import ssd1306
from table import font, names, screens, texts
from table.game import needs_hold
from table.names import (
    SUIT_SYMBOLS,
    VARIANTS,
    call_label,
    card_text,
    contract_name,
    short_name,
    suit_name,
)
from table.texts import text
from tapp.cards import CODE_INDEX
from tapp.dealing import TALON
from tests.shown_view import Shown

COLS = 16


# ---------------------------------------------------------------- the reference


def _short(view, seat, width=8):
    return short_name(view.seat_name(seat), width)


def _room(right):
    return min(COLS - 1 - len(right), 8) if right else 8


def _pad(left, right, width=COLS):
    gap = width - len(left) - len(right)
    return left + " " * gap + right if gap > 0 else (left + " " + right)[:width]


def _place(left, right):
    """The screens' right-first rows: the right part at the edge, no padding
    without one."""
    if not right:
        return left
    gap = COLS - len(left) - len(right)
    return (left + " " * max(gap, 1) + right)[:COLS]


def _joined(left, right):
    return left + " " + right if left and right else left + right


def _says(tv, key, seat):
    t = text(key, tv.language())
    return t % _short(tv.engine(), seat, min(COLS - len(t) + 2, 8))


def _header(tv, dealer):
    view = tv.engine()
    name = VARIANTS.get(view.variant(), view.variant())
    seat = view.seat_name(view.dealer())
    if dealer and (tv.engine().in_deal() or tv.mode() == "dealing") \
            and len(name) + 3 + len(seat) <= COLS:
        return (_pad(name, "G:" + seat), True)
    return (name, True)


def compose(tv):
    """The 8 rows as (text, inverted): the screens' rows built as strings."""
    lang = tv.language()
    if tv.overlay() == "scores":
        return _scores(tv)
    if tv.overlay() == "undo":
        return [_header(tv, True)] + _body(tv)[:5] + [("", False),
                                                      (text("undo_q", lang), True)]
    if tv.overlay() == "info":
        return [_header(tv, True)] + _info(tv)
    if tv.mode() == "dealing":
        return [_header(tv, True)] + _dealing(tv)
    if tv.mode() in ("result", "over"):
        return [_header(tv, False)] + _result(tv)
    return [_header(tv, True)] + _body(tv)


def _calls(view):
    out = []
    for i in range(view.calls_made()):
        c = view.call_made(i)
        out.append((c[1], {"call": c[2], **{k: v for k, v in zip(
            ("contract", "trump", "value"), c[3:], strict=True) if v is not None}}))
    return out


def _standing(view, lang):
    calls = _calls(view)
    for k in range(len(calls) - 1, -1, -1):
        seat, ev = calls[k]
        if ev["call"] not in ("pass", "weg", "nicht_herz"):
            if ev["call"] == "hold":
                for j in range(k - 1, -1, -1):
                    if "contract" in calls[j][1]:
                        return seat, contract_name(calls[j][1]["contract"], lang)
            return seat, call_label(ev, lang)
    return -1, ""


def _body(tv):
    view = tv.engine()
    lang = tv.language()
    seats = view.active_seats()
    if tv.menu_size() and len(seats) > 4 and (tv.message()
                                         or needs_hold(tv.menu_event(tv.menu_pos()))):
        rows = [(_status(tv), False)]
    else:
        rows = [(_contract_line(tv), False)]
    turn = view.turn()
    cards = {}
    if tv.clearing() or (view.trick_size() == 0 and tv.trick_shown()):
        last = view.last_trick()
        if last is not None:
            k = seats.index(last["leader"])
            order = seats[k:] + seats[:k]
            for i, code in enumerate(last["cards"]):
                cards[order[i]] = card_text(CODE_INDEX[code])
    else:
        for i in range(view.trick_size()):
            cards[view.trick_seat(i)] = card_text(view.trick_card(i))
    if view.trick_number() <= 1 and view.trick_size() == 0 and not tv.clearing() \
            and view.expects() != "card":
        cards = {}
        for seat, ev in _calls(view):
            cards[seat] = call_label(ev, lang)
    winner = view.last_winner() if tv.clearing() else -1
    for seat in seats[:5]:
        mark = "*" if seat == winner else (">" if seat == turn else " ")
        right = cards.get(seat, "")
        room = COLS - 1 - len(right) if right else COLS
        rows.append((_place(mark + _short(view, seat, room - 1 if room < 9 else 8), right),
                     False))
    while len(rows) < 5:
        rows.append(("", False))
    if len(rows) < 6:
        rows.append((_status(tv), False))
    if tv.menu_size():
        rows.append(("<" + short_name(tv.menu_label(tv.menu_pos()), COLS - 2) + ">", True))
    elif len(seats) > 4 and tv.message():
        rows.append((tv.message(), False))
    elif tv.clearing():
        rows.append((text("clear", lang), False))
    elif turn >= 0:
        rows.append((_says(tv, "turn", turn), False))
    else:
        rows.append(("", False))
    return rows


def _wins(tv):
    view = tv.engine()
    t = text("wins", tv.language())
    room = COLS + 1 - len(t) - len(str(view.last_points()))
    return t % _short(tv.engine(), view.last_winner(), min(room, 8)) + " " + str(
        view.last_points())


def _status(tv):
    view = tv.engine()
    if tv.message():
        return tv.message()
    if tv.clearing():
        return _wins(tv)
    if tv.menu_size() and needs_hold(tv.menu_event(tv.menu_pos())):
        return text("hold_ok", tv.language())
    if view.expects() == "call" and _standing(view, tv.language())[0] >= 0 and view.turn() >= 0:
        return _says(tv, "calls", view.turn())
    return ""


def _contract_line(tv):
    view = tv.engine()
    lang = tv.language()
    cid = view.contract()
    if view.expects() == "call" and cid is None:
        seat, label = _standing(view, lang)
        if seat >= 0:
            return _joined(_short(tv.engine(), seat, _room(label)), label)
        return _says(tv, "calls", view.turn()) if view.turn() >= 0 else ""
    if cid is None or view.declarer() < 0:
        return contract_name(cid, lang) if cid is not None else ""
    right = contract_name(cid, lang)
    trump = view.trump()
    if trump and suit_name(trump, lang) not in right:
        right += " " + SUIT_SYMBOLS["CSHD".index(trump)]
    if view.multiplier() > 1:
        right += " x" + str(view.multiplier())
    return _joined(_short(tv.engine(), view.declarer(), _room(right)), right)


def _dealing(tv):
    view = tv.engine()
    lang = tv.language()
    order = [tv.deal_seat(i) for i in range(tv.deal_seats())]
    seen = sum(tv.dealt(s) for s in order)
    total = view.hand_size() * len(order)
    short = [s for s in order if tv.dealt(s) < view.hand_size()]
    rows = [(_says(tv, "deal_centre", view.dealer()), False),
            (text("deal_count", lang) % ("%d/%d" % (seen, total)), False)]
    nxt = tv.next_receiver()
    if nxt == TALON:
        rows.append((text("deal_to", lang) % text("talon", lang), False))
    elif nxt >= 0:
        rows.append((_says(tv, "deal_to", nxt), False))
    else:
        rows.append(("", False))
    for seat in order[:3]:
        right = "%d/%d" % (tv.dealt(seat), view.hand_size())
        rows.append((_place(_short(view, seat, _room(right)), right), False))
    while len(rows) < 6:
        rows.append(("", False))
    missing = ""
    if short:
        room = COLS - len(text("missing", lang)) + 2
        width = (room - len(short) + 1) // len(short)
        if width < 4:
            missing = text("missing_n", lang) % len(short)
        else:
            missing = text("missing", lang) % ",".join(_short(view, s, width) for s in short)
    rows.append((tv.message() or missing, False))
    return rows


def _signed(n):
    return "+%d" % n if n > 0 else str(n)


def _money(tv, pays, bals):
    """The head row and a row per seat: payment and balance columns."""
    lang = tv.language()
    wp = max([len(text("col_pay", lang))] + [len(_signed(p)) for p in pays])
    wb = max([len(text("col_total", lang))] + [len(str(b)) for b in bals])
    rows = [(_place("", text("col_pay", lang).rjust(wp) + " "
                    + text("col_total", lang).rjust(wb)), False)]
    for seat in range(len(pays)):
        right = _signed(pays[seat]).rjust(wp) + " " + str(bals[seat]).rjust(wb)
        rows.append((_place(_short(tv.engine(), seat, _room(right)), right), False))
    return rows


def _result(tv):
    view = tv.engine()
    lang = tv.language()
    r = view.last_result()
    pages = 1 + (view.players() + 4) // 5
    page = tv.page() % pages
    rows = [(_place(text("result", lang), "%d/%d" % (page + 1, pages)), False)]
    if r is None:
        return rows
    if page == 0:
        if r["contract"] is None:
            rows.append((text("thrown_in", lang), False))
        else:
            right = contract_name(r["contract"], lang)
            who = _short(view, r["declarer"], _room(right)) if r["declarer"] is not None \
                else ""
            rows.append((_joined(who, right), False))
            state = {True: "won", False: "lost", None: "draw"}[r["won"]]
            if r["target"] is None and r["declarer"] is not None and r["tricks"]:
                left = text("tricks", lang) % ":".join(str(p) for p in r["tricks"])
            else:
                left = ":".join(str(p) for p in r["points"]) if r["points"] else ""
            right = text(state, lang) if r["declarer"] is not None else ""
            if len(left) + 1 + len(right) <= COLS:
                rows.append((_place(left, right), False))
            else:
                rows += [(left, False), (right, False)]
        if view.pot() and "penalty" not in r:
            rows.append((_pad(text("pot", lang), str(view.pot())), False))
    else:
        seats = range(view.players())[5 * (page - 1):5 * page]
        rows += _money(tv, [r["payments"][s] for s in seats],
                       [r["balances"][s] for s in seats])
    last = text("session_over", lang) if tv.mode() == "over" else text("next_deal", lang)
    if page == 0 or view.players() - 5 * (page - 1) < 5:
        rows = rows[:6]
        while len(rows) < 6:
            rows.append(("", False))
        rows.append((last, True))
    return rows


def _scores(tv):
    view = tv.engine()
    lang = tv.language()
    pages = view.deals_played() + 1
    page = tv.page() % pages
    rows = [(_place(text("scores", lang), "%d/%d" % (page + 1, pages)), True)]
    if page:
        rows.append((text("deal_no", lang) % page, False))
        k = page - 1
        pays = [view.deal_payment(k, s) for s in range(view.players())]
        bals = [view.balance(s) - sum(view.deal_payment(j, s)
                                      for j in range(k + 1, view.deals_played()))
                for s in range(view.players())]
        rows += _money(tv, pays, bals)
    else:
        rows.append((text("deals", lang) % view.deals_played(), False))
        for seat in range(view.players())[:5]:
            right = str(view.balance(seat))
            rows.append((_place(_short(view, seat, _room(right)), right), False))
        if view.pot():
            rows.append((_pad(text("pot", lang), str(view.pot())), False))
    rows = rows[:8]
    if len(rows) < 8:
        while len(rows) < 7:
            rows.append(("", False))
        rows.append((text("ok_back", lang), True))
    return rows


def _info(tv):
    view = tv.engine()
    lang = tv.language()
    seats = view.active_seats()
    page = tv.page() % 2
    if page == 0:
        rows = [(text("points_now", lang), False)]
    elif view.last_winner() >= 0:
        rows = [(text("last_trick", lang) % (view.trick_number() - 1), False)]
    else:
        rows = [("", False)]
    last = view.last_trick()
    for seat in seats[:5]:
        if page == 0:
            right = str(view.points(seat))
        else:
            right = ""
            if last is not None:
                k = (seats.index(seat) - seats.index(last["leader"])) % len(seats)
                right = card_text(CODE_INDEX[last["cards"][k]])
        mark = "*" if page and seat == view.last_winner() else " "
        room = COLS - 1 - len(right) if right else COLS
        rows.append((_place(mark + _short(view, seat, room - 1 if room < 9 else 8), right),
                     False))
    if page and view.last_winner() >= 0:
        while len(rows) < (5 if len(seats) < 5 else 6):
            rows.append(("", False))
        rows.append((_wins(tv), False))
    elif not page and len(seats) < 5 and view.declarer() >= 0:
        decl = view.declarer()
        right = "%d:%d" % (view.points(decl), sum(view.points(x) for x in seats if x != decl))
        while len(rows) < 5:
            rows.append(("", False))
        rows.append((_place(_short(view, decl, _room(right)), right), False))
    rows = rows[:7]
    while len(rows) < 6:
        rows.append(("", False))
    if len(seats) < 5 or not page:
        while len(rows) < 6:
            rows.append(("", False))
        rows = rows[:6] + [(text("ok_back", lang), True)]
    return rows


class _I2C:
    def writeto(self, addr, buf, stop=True):
        return len(buf) + 1

    def writevto(self, addr, vector, stop=True):
        return 1


def _expected(tv):
    """The reference rows, cut to 16 columns as shown, and their pixels."""
    rows = compose(tv)
    rows += [("", False)] * (8 - len(rows))
    oled = ssd1306.SSD1306(_I2C())
    for r, (s, inv) in enumerate(rows):
        font.line(oled, r, font.fit(s, COLS), inv)
    return [font.fit(s, COLS) for s, _ in rows], [bool(inv) for _, inv in rows], oled.buffer


# ---------------------------------------------------------------- the comparison


CASES = [("herzblatt", 5, "strict", "de", 1), ("herzblatt", 5, "open", "en", 2),
         ("tapp_modern", 4, "strict", "en", 3), ("tapp_modern", 3, "open", "de", 4),
         ("wuerttemberg", 3, "strict", "de", 5), ("haferltarock", 4, "open", "en", 6),
         ("tarock_bettel", 3, "strict", "en", 7), ("berliner", 4, "strict", "de", 8)]


@pytest.mark.parametrize("variant,players,mode,lang,seed", CASES)
def test_every_screen_of_a_deal_is_the_reference(monkeypatch, variant, players, mode, lang,
                                                  seed):
    from tools.tapptable import sim_text

    seen = {"draws": 0, "screens": set()}
    plain = screens.Screens.draw

    def draw(self, view):
        plain(self, view)
        want_rows, want_inv, want_pixels = _expected(view)
        assert self.text_rows() == want_rows, (self.text_rows(), want_rows)
        assert [bool(v) for v in self.inverted] == want_inv
        assert bytes(self.display.buffer) == bytes(want_pixels), want_rows
        seen["draws"] += 1
        seen["screens"].add((view.mode(), view.overlay(), view.clearing()))
        if seen["draws"] % 7 == 0:           # the same screen again: nothing is drawn
            calls = []
            cells = font.cells
            font.cells = lambda *a: calls.append(a)
            try:
                plain(self, view)
            finally:
                font.cells = cells
            assert calls == [], calls
            # and the score sheet, the undo question and this deal's pages,
            # every page, and the settlement's pages, while at it
            for overlay in ("scores", "undo", "info", None):
                for page in range(3):
                    shown = Shown(view, overlay, page)
                    plain(self, shown)
                    assert self.text_rows() == _expected(shown)[0], overlay
            plain(self, view)

    monkeypatch.setattr(screens.Screens, "draw", draw)
    args = types.SimpleNamespace(variant=variant, players=players, mode=mode, lang=lang,
                                 seed=seed, runtime="cpython")
    sim_text.autoplay(args, out=io.StringIO())
    assert seen["draws"] > 20
    assert any(mode in ("result", "over") for mode, _o, _c in seen["screens"])
    assert any(clearing for _m, _o, clearing in seen["screens"])


def test_rows_of_any_text_and_the_right_edge():
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


# ---------------------------------------------------------------- the texts


def test_texts_are_found_by_whole_keys_only():
    assert texts.text("open") == "offen" and texts.text("open", "en") == "open"
    assert texts.text("discard_open") == "Gedrückt? OK"
    assert texts.text("undo_q") == "Rückgängig? OK"
    for bad in ("pen", "discard_", "", "nothing_undo "):
        with pytest.raises(KeyError):
            texts.text(bad)
    keys = texts.KEYS.split()
    assert len(texts.OFF) == 2 * len(keys) + 1
    for k in keys:
        for lang in ("de", "en"):
            j = texts.which(k, lang)
            assert texts.DATA[texts.OFF[j]:texts.OFF[j + 1] - 1].decode() == text(k, lang)


def test_names_and_the_suits_they_name():
    assert names.contract_name("heart_solo") == "Herz-Solo"
    assert names.contract_name("heart_solo", "en") == "Heart Solo"
    assert names.contract_name("nosuch") == "nosuch"
    assert names.call_label({"call": "re"}) == "Re"
    assert names.call_label({"call": "bid", "contract": "solo", "trump": "H", "value": 3},
                            "en") == "Solo ♥ 3"
    assert names.CARD_TEXT[9 * 2] == "♥A" and names.card_text(35) == "♦6"
    for cid in names.CONTRACT_IDS.split():
        for lang in ("de", "en"):
            j = names.contract_number(cid, lang)
            for s, letter in enumerate("CSHD"):
                named = suit_name(letter, lang) in contract_name(cid, lang)
                assert bool(names.SUITS_NAMED[j] >> s & 1) == named, (cid, lang, letter)
