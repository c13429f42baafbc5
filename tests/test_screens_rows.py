"""table/screens.py writes its rows character by character (no strings, no
allocation); these tests hold it to the rows as strings the screens used to
build (a reference composer kept here) and to the pixels ``font.line`` draws
for those strings, over whole simulated deals of several variants in both
languages; and check the table texts' lookup (table/texts.py, table/names.py).
"""
from __future__ import annotations

import io
import sys
import types
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT / "firmware") not in sys.path:
    sys.path.insert(0, str(ROOT / "firmware"))

from drivers import ssd1306  # noqa: E402
from table import font, names, screens, texts  # noqa: E402
from table.game import DEALING, OVER, RESULT  # noqa: E402
from table.names import (  # noqa: E402
    SUIT_SYMBOLS,
    VARIANTS,
    card_text,
    contract_name,
    suit_name,
)
from table.texts import text  # noqa: E402
from tapp.cards import CODE_INDEX  # noqa: E402
from tapp.dealing import TALON  # noqa: E402

COLS = 16


# ---------------------------------------------------------------- the reference


def _name(rules, seat, width=8):
    return rules.seats[seat][:width]


def _pad(left, right, width=COLS):
    gap = width - len(left) - len(right)
    return left + " " * gap + right if gap > 0 else (left + " " + right)[:width]


def compose(game):
    """The 8 rows as (text, inverted): the screens' rows built as strings."""
    view = game.view
    rules = game.rules
    lang = game.lang
    out = [(_pad(VARIANTS.get(rules.variant, rules.variant)[:10],
                 "G:" + _name(rules, view.dealer(), 5)), True)]
    if game.confirm_undo:
        return out + _body(game)[:5] + [("", False), (text("undo_q", lang), True)]
    if game.scores:
        return out + _scores(game)
    if game.step == DEALING:
        return out + _dealing(game)
    if game.step in (RESULT, OVER):
        return out + _result(game)
    return out + _body(game)


def _body(game):
    view = game.view
    rules = game.rules
    lang = game.lang
    rows = [(_contract_line(game), False)]
    seats = view.active_seats()
    turn = view.turn()
    cards = {}
    if game.clearing or (view.trick_size() == 0 and game.trick_shown):
        last = view.last_trick()
        if last is not None:
            k = seats.index(last["leader"])
            order = seats[k:] + seats[:k]
            for i, code in enumerate(last["cards"]):
                cards[order[i]] = card_text(CODE_INDEX[code])
    else:
        for i in range(view.trick_size()):
            cards[view.trick_seat(i)] = card_text(view.trick_card(i))
    winner = view.last_winner() if game.clearing else -1
    for seat in seats[:5]:
        mark = "*" if seat == winner else (">" if seat == turn else " ")
        rows.append((_pad(mark + _name(rules, seat), cards.get(seat, "")), False))
    while len(rows) < 5:
        rows.append(("", False))
    if len(rows) < 6:
        rows.append((_status(game), False))
    if game.menu:
        rows.append(("<" + font.fit(game.menu[game.menu_pos][0], COLS - 2) + ">", True))
    elif len(seats) > 4 and game.message:
        rows.append((game.message, False))
    elif game.clearing:
        rows.append((text("clear", lang), False))
    elif turn >= 0:
        rows.append((text("turn", lang) % _name(rules, turn), False))
    else:
        rows.append(("", False))
    return rows


def _status(game):
    view = game.view
    if game.message:
        return game.message
    if game.clearing:
        return (text("wins", game.lang) % _name(game.rules, view.last_winner())
                + " " + str(view.last_points()))
    return ""


def _contract_line(game):
    view = game.view
    lang = game.lang
    cid = view.contract()
    if cid is None or view.declarer() < 0:
        if cid is not None:
            return contract_name(cid, lang)
        return text("calls", lang) % "" if view.expects() == "call" else ""
    line = _name(game.rules, view.declarer(), 6) + " " + contract_name(cid, lang)
    trump = view.trump()
    if trump and suit_name(trump, lang) not in line:
        line += " " + SUIT_SYMBOLS["CSHD".index(trump)]
    if view.multiplier() > 1:
        line += " x" + str(view.multiplier())
    return line


def _dealing(game):
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


def _result(game):
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


def _scores(game):
    view = game.view
    rules = game.rules
    lang = game.lang
    rows = [(text("scores", lang), False), (text("deals", lang) % view.deals_played(), False)]
    for seat in range(rules.players)[:5]:
        rows.append((_pad(_name(rules, seat), str(view.balance(seat))), False))
    if view.pot():
        rows.append((_pad(text("pot", lang), str(view.pot())), False))
    rows = rows[:7]
    while len(rows) < 7:
        rows.append(("", False))
    return rows


class _I2C:
    def writeto(self, addr, buf, stop=True):
        return len(buf) + 1

    def writevto(self, addr, vector, stop=True):
        return 1


def _expected(game):
    """The reference rows, cut to 16 columns as shown, and their pixels."""
    rows = compose(game)
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

    def draw(self, game):
        plain(self, game)
        want_rows, want_inv, want_pixels = _expected(game)
        assert self.text_rows() == want_rows, (self.text_rows(), want_rows)
        assert [bool(v) for v in self.inverted] == want_inv
        assert bytes(self.display.buffer) == bytes(want_pixels), want_rows
        seen["draws"] += 1
        seen["screens"].add((game.step, game.confirm_undo, game.scores, game.clearing))
        if seen["draws"] % 7 == 0:           # the same screen again: nothing is drawn
            calls = []
            cells = font.cells
            font.cells = lambda *a: calls.append(a)
            try:
                game.dirty = True
                plain(self, game)
            finally:
                font.cells = cells
            assert calls == [], calls
            # and the score sheet and the undo question, while at it
            for flag in ("scores", "confirm_undo"):
                setattr(game, flag, True)
                plain(self, game)
                assert self.text_rows() == _expected(game)[0]
                setattr(game, flag, False)
                plain(self, game)

    monkeypatch.setattr(screens.Screens, "draw", draw)
    args = types.SimpleNamespace(variant=variant, players=players, mode=mode, lang=lang,
                                 seed=seed, runtime="cpython")
    sim_text.autoplay(args, out=io.StringIO())
    assert seen["draws"] > 20
    assert any(step == RESULT or step == OVER for step, _u, _s, _c in seen["screens"])
    assert any(clearing for _st, _u, _s, clearing in seen["screens"])


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
