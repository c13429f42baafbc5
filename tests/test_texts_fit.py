"""Every text of the table, in both languages, where it is shown, fits the
16 columns without a cut word.

The table is driven through whole deals of every variant (both modes, both
languages) with the longest seat names a table can hold and names that differ
only in their number ("Platz 1", "Platz 2"); at every screen drawn the score
sheet, this deal's pages, the undo question and the settlement's pages are
drawn too; every message the table can put on the message row is shown in
the middle of a trick; the setup's every question and answer, the
enrolment's lines and a revoke's notice and settlement are rendered.  Each row
must

* lose no character: nothing is written past column 16 (a dropped word, as
  "Leser die Mitte" lost its "aus", shows here), and
* hold whole words only: each word is a word of the table's texts, of the
  names, a number or a card -- or shortened on purpose with a period ("Jürg.",
  "Pl.1": the start of such a word and, for a numbered name, its number).
  "Haferltaro", "centr" or "Ann" fail.
"""
from __future__ import annotations

import re
import types
from array import array
from pathlib import Path

import pytest

from host_sim.players import AutoPlayers
from host_sim.scenario import Run
from host_sim.table import VirtualTable
from table import messages, names, registry, screens, texts
from table.names import card_text
from table.rows import RowWriter
from table.settings import SEAT_NAMES, Settings
from table.setup import Setup
from tapp import errors as E
from tapp.catalog import players_of, variant_ids
from tests.shown_view import Shown

COLS = 16
# the longest names a seat may have (settings.MAX_NAME: 12), names that differ
# only in their number, and a name with a space
LONG_SEATS = ["Marie-Louise", "Platz 1", "Platz 2", "Franziskaner", "Anna Lena"]
SEPARATORS = re.compile(r"[ :,/<>*()→]+")      # → joins a card and who gets it


def _words(text):
    return [w for w in SEPARATORS.split(text) if w]


def _vocabulary(seats):
    """Every word the table's texts, names and cards hold, in both languages."""
    vocab = {"G", "x", "+/-", "-", "+"}      # the header's dealer mark, "x2", the head
    for line in texts.DATA.decode().split("\n"):       # the one store's display texts
        vocab.update(_words(line.replace("%s", " ")))
    for pair in names.SHORT.values():        # contracts said short beside a name
        for line in pair:
            vocab.update(_words(line))
    for code in range(len(registry.NAMES)):
        for lang in ("de", "en"):
            vocab.update(_words(registry.short_text(code, lang)))
            for packed in (64 + 5, 2 * 64 + 30):
                vocab.update(_words(registry.short_text(code, lang, packed)))
    for name in seats:
        vocab.update(_words(name))
        vocab.add(name.replace(" ", ""))
    vocab.update(card_text(c, german) for c in range(36) for german in (False, True))
    vocab.update(names.SUIT_SYMBOLS + names.GERMAN_SYMBOLS)
    vocab.update(registry.card_label(c) for c in range(36))
    return vocab


def _whole(word, vocab):
    """A whole word, a number, or a word shortened on purpose: "Jürg." (the
    start of a word and a period), "Pl.1" (and its trailing number)."""
    if word in vocab or re.fullmatch(r"[+-]?\d+|x\d+", word):
        return True
    m = re.fullmatch(r"(.+?)\.(\d*)", word)
    if not m:
        return False
    stem, digits = m.groups()
    for w in vocab:
        if len(w) > len(stem) and w.startswith(stem):
            if not digits:
                return True
    if digits:               # "Pl.1": the start of a numbered name and its number
        return any(n.startswith(stem) and n.replace(" ", "").endswith(digits)
                   for n in LONG_SEATS + ["Seat 12", "Platz 12"])
    return False


class Checker:
    """Watches the screens: every row written is checked (``failures``)."""

    def __init__(self, vocab):
        self.vocab = vocab
        self.failures = []
        self.rows = 0

    def row(self, text, where):
        self.rows += 1
        bad = [w for w in _words(text) if not _whole(w, self.vocab)]
        if bad:
            self.failures.append("%s: %r cut: %s" % (where, text, bad))

    def lost(self, text, where):
        self.failures.append("%s: characters lost past column 16 in %r" % (where, text))


@pytest.fixture
def checker(monkeypatch):
    """Screens that report a character written past column 16 of a row and
    check every row they show."""
    check = Checker(_vocabulary(LONG_SEATS + list(SEAT_NAMES) + ["Seat 1", "Seat 2"]))
    plain_begin = RowWriter.begin
    plain_end = RowWriter.end
    plain_blank = RowWriter.blank

    def begin(self, row, invert=False):
        self.cut_before = self.cut
        plain_begin(self, row, invert)

    def written(self):
        text_ = self.text_rows()[self.row]
        if self.cut != getattr(self, "cut_before", self.cut):
            check.lost(text_, "row %d" % self.row)
        check.row(text_, "row %d" % self.row)

    def end(self, aligned=True):
        plain_end(self, aligned)
        written(self)

    def blank(self, row):
        plain_blank(self, row)
        written(self)

    monkeypatch.setattr(RowWriter, "begin", begin)
    monkeypatch.setattr(RowWriter, "end", end)
    monkeypatch.setattr(RowWriter, "blank", blank)
    return check


def _every_page(table):
    """The overlays and pages of the table's current screen, drawn in turn."""
    view = table.app.view
    scr = table.app.screens
    for overlay in ("scores", "info", "undo", ""):
        for page in range(4):
            scr.compose(Shown(view, overlay, page))
    scr.compose(view)


def _messages(lang):
    """Every line the table puts on its message row."""
    out = [texts.error_text(code, lang) for code in range(1, len(E.NAMES))]
    back = texts.text("put_back", lang)      # with a name, shortened as the table does
    out.append(back % names.short_name(LONG_SEATS[0], min(8, COLS - len(back) + 2)))
    for key in ("one_card", "unknown", "other_deck", "not_now", "clear",
                "undone", "nothing_undo", "hold_ok", "centre_down", "deal_again", "sure_q"):
        out.append(texts.text(key, lang))
    out.append(texts.text("reader_down", lang) % "5")
    out.append(texts.text("discard_again", lang) % "2/3")
    return out


def _variant_cases():
    for variant in variant_ids():
        for n in sorted(set(players_of(variant))):
            yield variant, n


# each variant and number of players in both modes, the languages taking turns
CASES = [(v, n, mode, ("de", "en")[(k + m) % 2]) for k, (v, n) in enumerate(_variant_cases())
         for m, mode in enumerate(("strict", "open"))]


@pytest.mark.parametrize("variant,players,mode,lang", CASES,
                         ids=["%s-%d-%s-%s" % c for c in CASES])
def test_every_screen_of_a_deal_fits_without_a_cut_word(checker, variant, players, mode,
                                                        lang):
    seats = (LONG_SEATS * 2)[:players]
    table = VirtualTable(variant, players, mode, lang=lang, seats=seats)
    people = AutoPlayers(table, seed=players, illegal_once=True)
    plain = table.app.screens.draw
    count = [0]

    told = []

    def draw(view, fresh=False):
        plain(view, fresh)
        count[0] += 1
        if count[0] % 9 == 0 or view.mode() == "result":
            _every_page(table)
        if not told and view.mode() == "play" and not view.menu_size():
            told.append(view.message())    # every message, mid-trick, where it is shown
            for msg in _messages(lang):
                table.app.screens.compose(Shown(view, message=msg))
            plain(view)

    table.app.screens.draw = draw
    people.play_deal()
    if not told:                         # thrown in: no card played, a deal more
        people.next_deal()
        people.play_deal()
    table.app.screens.draw = plain
    assert told and checker.rows > 100
    assert not checker.failures, "\n".join(checker.failures[:20])


@pytest.mark.parametrize("lang", ("de", "en"))
def test_a_revoke_and_its_settlement_fit(checker, lang):
    run = Run("revoke")
    seats = "Franziskaner,Marie-Louise,Jürgen"
    failures = run.run_lines([
        "table variant=wuerttemberg players=3 mode=open seed=5 lang=%s seats=%s" % (lang, seats),
        "auction", "place 1 CA", "place 2 D10", "place 0 C6", "lift all", "place 1 CQ",
        "place 2 C7", "expect view revoke_count 1"])
    assert not failures, failures
    _every_page(run.table)
    run.run_lines(["press ok", "place 0 CJ", "lift all", "autoplay"])
    _every_page(run.table)
    assert run.table.view.last_result()["penalty"]["seat"] == 2
    assert not checker.failures, "\n".join(checker.failures[:20])


@pytest.mark.parametrize("lang", ("de", "en"))
def test_a_rufer_call_and_its_hand_over_fit(checker, lang):
    """The Rufer's prompts, its give menu and the hand-over on the seat rows
    ("Franz. ruft ♥8", "♥8→Franz."), strict and open, with long names; the
    undo question over them and the open lay-away's prompt too."""
    run = Run("rufer")
    seats = "Anna,Franziskaner,Marie-Louise"      # Marie-Louise calls Franziskaner's card
    words = ("spiele", "weg", "Herz-Rufer") if lang == "de" else ("play", "pass", "Heart Rufer")
    talon = "Stock" if lang == "de" else "Talon"
    bid = ["table variant=tapp_modern players=3 mode=strict seed=1 lang=%s seats=%s" % (
        lang, seats), "deal", "call " + words[0], "call " + words[1], "call " + words[1],
        "call " + words[2]]
    for pick, give in (("call", "call"), ("call ♣A", "call " + talon)):
        assert not run.run_lines(bid + [pick])
        _every_page(run.table)
        assert not run.run_lines([give])
        assert run.table.view.rufer_call(0) >= 0
        assert "\u2192" in "".join(run.table.screen()) or talon in give, run.table.screen()
        _every_page(run.table)
    table = "table variant=tapp_modern players=4 mode=open seed=1 lang=%s " \
        "seats=Anna,Bert,Franziskaner,Marie-Louise" % lang
    auction = [table, "call " + words[0]] + ["call " + words[1]] * 3
    assert not run.run_lines(auction + ["call Frage"])
    assert ("drückt" if lang == "de" else "buries") in run.table.screen()[6]
    _every_page(run.table)                          # "Marie. drückt"
    assert not run.run_lines(auction + ["call Rufer", "call Rufer ♦", "call ♣A"])
    _every_page(run.table)
    assert not run.run_lines(["call ♦7"])
    _every_page(run.table)                          # "gibt ♦7"
    run.table.close()
    assert not checker.failures, "\n".join(checker.failures[:20])


@pytest.mark.parametrize("lang", ("de", "en"))
def test_every_setup_question_and_answer_fits(checker, lang):
    values = Settings(None)
    for key, value in (("players", 5), ("language", lang), ("seat_names", list(LONG_SEATS))):
        assert values.set(key, value), key
    scr = screens.Screens(types.SimpleNamespace(
        text=lambda *a: None, pixel=lambda *a: None, fill_rect=lambda *a: None,
        width=128, buffer=bytearray(1024)))
    for variant in variant_ids():
        # every game with five seats' names (set: no check against the game's counts)
        assert values.set("variant", variant) and values.set("options", {})
        setup = Setup(values)
        for step, (_key, _label, choices) in enumerate([setup.question(k) for k in setup.keys()]):
            setup.step = step
            for pos in range(len(choices)):
                setup.pos = pos
                scr.draw_rows(setup.rows())
    assert not checker.failures, "\n".join(checker.failures[:20])


def test_the_checker_sees_a_row_cut_at_the_edge(checker):
    """The watch itself: a row longer than 16 columns is reported, and so is a
    word cut at the edge."""
    scr = screens.Screens(types.SimpleNamespace(
        text=lambda *a: None, pixel=lambda *a: None, fill_rect=lambda *a: None,
        width=128, buffer=bytearray(1024)))
    scr.draw_rows([("Leser die Mitte aus", False)])
    assert any("lost" in f for f in checker.failures), checker.failures
    checker.failures.clear()
    scr.draw_rows([("Reader the centr", False)])
    assert checker.failures and "centr" in checker.failures[0], checker.failures


def test_a_cut_word_fails_and_a_shortened_one_passes():
    vocab = _vocabulary(LONG_SEATS)
    for bad in ("Haferltaro", "centr", "Ann", "Sea", "Platz", "Plat1"):
        assert not _whole(bad, vocab) or bad == "Platz", bad
    for good in ("Haferltarock", "Marie.", "Pl.1", "Platz1", "♥10", "+120", "x2", "1/2"):
        assert all(_whole(w, vocab) for w in _words(good)), good
    assert not _whole("Mar.9", vocab)


def test_the_dealing_screen_names_every_seat_still_short(checker):
    """Dealing over the centre: "fehlt:" names each seat still short in the
    room there is, or counts them -- never a name hidden behind the edge."""
    table = VirtualTable("herzblatt", 5, "strict", lang="de", seats=LONG_SEATS)
    assert table.app.view.mode() == "dealing"
    people = AutoPlayers(table, seed=1, illegal_once=False)
    people.deal_cards(4)
    assert table.screen()[7] == "fehlt: 5 Spieler", table.screen()
    people.deal_cards(20)
    assert table.screen()[7].startswith("fehlt: "), table.screen()
    people.deal_cards()
    assert table.app.view.mode() == "play"
    assert not checker.failures, "\n".join(checker.failures[:20])


def test_texts_fit_and_are_found_by_key():
    """Every table text (both languages) leaves room in its slot for at least
    a shortened name or a number of four columns ("Pl.1", "2/3"): the screens
    shorten a name to the room there is; every refusal line fits as it is."""
    numbers = {"enrol": "99", "deal_count": "36/36", "discard_again": "3/3", "seat": "6",
               "trick": "10", "points": "120", "deals": "999", "deal_no": "999",
               "in_trick": "10", "last_trick": "10", "tricks": "10:10", "missing_n": "5",
               "reader_down": "5", "flash_low": "99"}
    for key in texts.KEYS.split():
        for lang in ("de", "en"):
            t = texts.text(key, lang)
            filled = t.replace("%s", numbers.get(key, "Pl.1")).replace("%d", "99")
            forms = filled.split("|")    # a registry line's forms: the first that fits
            assert min(len(f) for f in forms) <= COLS, (key, lang, filled)
    for code in range(len(E.NAMES)):
        for lang in ("de", "en"):
            assert 0 < len(texts.error_text(code, lang)) <= COLS
            assert texts.error_text(code, lang) == texts.text("e_" + E.NAMES[code], lang)
    assert texts.error_text(E.MUST_FOLLOW) == "Farbe bedienen!"
    assert texts.error_text(E.MUST_OVERTRUMP, "de") == "\u00dcbertrumpfen!"
    assert texts.error_text(E.NOT_YOUR_TURN, "en") == "Not your turn"
    assert texts.error_text(E.NOT_YOUR_TURN) is texts.error_text(E.NOT_YOUR_TURN)
    # one keyed format: every text the table shows is a texts.KEYS key, each
    # key once, each with a German and an English line
    keys = texts.KEYS.split()
    assert len(keys) == len(set(keys)) and len(texts.OFF) == 2 * len(keys) + 1
    for code in range(len(registry.NAMES)):
        for lang in ("de", "en"):
            assert 0 < len(registry.short_text(code, lang)) <= COLS, (code, lang)
    assert registry.short_text(registry.NOTHING) == texts.text("nothing_undo")


def test_the_console_s_and_the_self_test_s_texts_are_the_store_s():
    """The second part of the one store (table/messages.py, English: the
    console, the self-test):
    the same keyed format, every key once with one line; the self-test's
    display rows (ts_, and a t_ line's forms after "|") fit 16 columns with
    their slot filled; every engine error and registry outcome has its
    console message there."""
    keys = messages.MESSAGE_KEYS.split()
    assert len(keys) == len(set(keys)) == messages.MESSAGES.count(b"\n")
    assert messages.MESSAGE_KEYS.endswith(" ") and "  " not in messages.MESSAGE_KEYS
    for k, line in zip(keys, messages.MESSAGES.decode().split("\n")[:-1], strict=True):
        assert messages.message(k) == line and line, k
        rows = line.split("|")[0 if k.startswith("ts_") else 1:]
        assert not rows or k.startswith("t"), k     # "|" only in the self-test's
        for row in rows:                # "press NEXT", "99 FAILED", "card 10 mm up"
            assert len(row.replace("%s", "NEXT").replace("%d", "99")) <= COLS, (k, row)
    assert len([k for k in keys if k.startswith("t") and "|" in messages.message(k)]) >= 10
    for word in E.NAMES:
        assert messages.message("e_" + word)
    for word in registry.NAMES:
        assert messages.message("r_" + word) == registry.message(registry.NAMES.index(word))
    assert messages.message("e_must_follow") == "Farbe bedienen! Follow the suit that was led"
    assert messages.message("nosuch", "nosuch") == "nosuch"
    for bad in ("e_", "", "bad_line ", "ad_line"):
        with pytest.raises(KeyError):
            messages.message(bad)


FIRMWARE = Path(__file__).resolve().parent.parent / "firmware" / "table"
# a refusal's English written where it is said: Failure(code, "words"), fail(rid,
# code, "words"), set's ("bad_args", "words") -- not the store's (a bare format
# such as "%s: %s", an exception's name and words, is no text)
INLINE = re.compile(r'(?:Failure\(|fail\(rid, |return )"\w+", f?"[^"]*[A-Za-z]{3}')


def test_the_console_says_its_answers_from_the_store():
    """Issue 28: the console's answers in detail (a_: what an argument must
    be, a note) are the store's, said by key: no English sentence is written
    in the console's modules or the settings' answers to it, and every a_
    text is said somewhere (each by its key, in code)."""
    sources = {p.name: p.read_text() for p in FIRMWARE.glob("*.py")}
    for name in ("console.py", "console_admin.py", "console_play.py", "console_tasks.py",
                 "console_link.py", "console_door.py", "settings.py"):
        assert not INLINE.findall(sources[name]), (name, INLINE.findall(sources[name]))
    code = "".join(sources.values())
    said = [k for k in messages.MESSAGE_KEYS.split() if k.startswith("a_")]
    assert len(said) >= 30
    for key in said:
        assert '"%s"' % key in code, key


def test_a_name_is_shortened_where_it_shows_and_the_screens_agree():
    """names.short_name and the screens' writer shorten alike: whole, without
    spaces, a prefix and the number, a prefix and a period."""
    cases = [("Anna", 8, "Anna"), ("Platz 1", 6, "Platz1"), ("Platz 1", 5, "Pla.1"),
             ("Platz 12", 4, "P.12"), ("Jürgen", 5, "Jürg."), ("Anna Lena", 6, "Anna."),
             ("Marie-Louise", 8, "Marie-L.")]
    scr = screens.Screens(types.SimpleNamespace(
        text=lambda *a: None, pixel=lambda *a: None, fill_rect=lambda *a: None,
        width=128, buffer=bytearray(1024)))
    for name, width, want in cases:
        assert names.short_name(name, width) == want, (name, width)
        scr.w.begin(1)
        scr.w.short(name, width)
        scr.w.end()
        assert scr.text_rows()[1] == want, (name, width)


@pytest.mark.parametrize("lang", ("de", "en"))
def test_a_contract_beside_its_declarer_leaves_his_name_readable(checker, lang):
    """Issue 27, 13: the play's row 1 and the settlement name a contract whole
    and its declarer in at least names.MIN_NAME columns (or whole): every
    contract of every variant, each trump, every doubling the variant allows
    (its widest option), the longest names and short ones ("C. Bettel ouvert"
    was shown).  A contract that would leave less is said short ("Cora
    Ouvert"); a doubling that would, moves to the header ("Haferltarock x32")."""
    from table.pages import contract, parts
    from tapp.announce import DOUBLING_CALLS
    from tapp.session import Session
    from tapp.variants import HeaderError
    scr = screens.Screens(types.SimpleNamespace(
        text=lambda *a: None, pixel=lambda *a: None, fill_rect=lambda *a: None,
        width=128, buffer=bytearray(1024)))
    scr.w.lang = lang
    shorts, ups = set(), set()
    for variant in variant_ids():
        header = {"record": 1, "variant": variant, "players": players_of(variant)[0],
                  "mode": "open", "first_dealer": 0}
        try:
            view = Session(dict(header, options={"doubling": "extended"})).view
        except HeaderError:                              # no such option
            view = Session(header).view
        calls = sum(1 for k in view.announcement_kinds() if k in DOUBLING_CALLS)
        for cid in view.contract_ids():
            for trump in list(view.trump_suits(cid) or []) + [None]:
                for times in sorted({1, 2 ** min(calls, 1), 2 ** calls}):
                    for name in ("Cora", "Marie-Louise", "Anna Lena", "Platz 1", "Franziskaner"):
                        shown = types.SimpleNamespace(
                            trump=lambda t=trump: t, multiplier=lambda m=times: m,
                            contract=lambda c=cid: c, declarer=lambda: 0,
                            variant=lambda v=variant: v)
                        s = types.SimpleNamespace(w=scr.w, seat_names=(name,), view=shown,
                                                  name_codes=[array("I", map(ord, name))])
                        for right in (parts.contract_only, contract.contract_right):
                            scr.w.begin(1)
                            parts.declared(s, cid, 0, right)
                            row = scr.text_rows()[1]     # the play's row 1 comes last
                            widths = [k for k in range(8, 0, -1) if row.startswith(
                                names.short_name(name, k) + " ")]
                            assert widths and len(names.short_name(name, widths[0])) >= min(
                                len(name), names.MIN_NAME), (variant, cid, trump, times, name,
                                                             row)
                            if names.contract_name(cid, lang) not in row:
                                shorts.add(cid)
                        if times > 1 and "x%d" % times not in row:     # row 1 of the play
                            assert contract.times_up(s) == times, (variant, cid, times, row)
                            parts.header(s, True, times)
                            assert scr.text_rows()[0].endswith("x%d" % times)
                            ups.add(variant)
    assert shorts <= set(names.SHORT) and "bettel_ouvert" in shorts, shorts
    assert "haferltarock" in ups, ups
    assert not checker.failures, "\n".join(checker.failures[:20])
