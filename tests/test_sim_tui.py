"""The terminal virtual table (tools/tapptable/sim_tui.py) driven by Textual's pilot.

A whole deal of Tapp is played by key presses only: the dealer deals (d), the
simulated people move (a), and for "you" (seat 0) the cards are chosen with
left/right and put on the reader with enter. Once a card that breaks the rules
is tried: the OLED in the view (switched to its text rows with z) shows the
table's refusal, and the card is lifted (l). Once an accepted card is taken
back with a long OK and OK (the table's undo). The view runs without the wall
clock (``realtime=False``): only the actions move the virtual clock, so every
run is the same.

The main screen is kept as a snapshot: the SVG screenshot is saved, and the
OLED's 32 half-block rows read out of it are compared with
tests/sim_tui_oled_expected.txt (``TAPPTABLE_UPDATE_SNAPSHOTS=1`` rewrites it).
"""

from __future__ import annotations

import asyncio
import html
import json
import os
import re
from pathlib import Path

from host_sim.players import menu_entries
from tools.tapptable.sim_text import card_text
from tools.tapptable.sim_tui import OledView, SimApp

ROOT = Path(__file__).resolve().parent.parent

SIZE = (180, 50)                   # wide and tall enough for the pixel OLED
SMALL = (110, 36)                  # the OLED as its text rows (and a quicker screen)
SEATS = ("Anna", "Bert", "Cora")
EXPECTED = ROOT / "tests" / "sim_tui_oled_expected.txt"
REFUSALS = ("Farbe bedienen!", "Trumpf!", "Übertrumpfen!")


def run(coro):
    return asyncio.run(coro)


def oled_text(app):
    """The OLED's text rows as the view shows them (text mode, z)."""
    return app.query_one(OledView).text()


async def select(pilot, app, code):
    """Move the card cursor to ``code`` with the arrow keys (the shorter way)."""
    s = app.seating
    hand = s.your_hand()
    steps = (hand.index(code) - s.selected) % len(hand)
    key = "right"
    if steps > len(hand) // 2:
        key, steps = "left", len(hand) - steps
    for _ in range(steps):
        await pilot.press(key)
    assert s.your_hand()[s.selected] == code


def nearest(app, cards):
    """Of ``cards``, the one nearest the card cursor."""
    s = app.seating
    hand = s.your_hand()
    n = len(hand)
    return min(cards, key=lambda c: min((hand.index(c) - s.selected) % n,
                                        (s.selected - hand.index(c)) % n))


def test_a_whole_deal_by_keys_with_a_refusal_and_an_undo():
    async def play():
        app = SimApp(seed=1, realtime=False, auto=False, seats=SEATS)
        async with app.run_test(size=SMALL) as pilot:
            s = app.seating
            table = s.table
            view = s.view
            tv = s.table_view
            assert "Anna" in app.query_one("#cell-2-1").shown[0]    # you sit at the bottom
            assert app.query_one(OledView).compact                 # a small terminal
            await pilot.press("d")                                 # the dealer deals
            assert tv.mode() == "play" and len(s.your_hand()) == 11
            refused = undone = mine = 0
            for _ in range(400):
                if tv.mode() != "play":
                    break
                if tv.menu_size() and s.you in s.people.menu_seats():
                    journal = len(table.journal_lines())
                    await pilot.press("a")                         # not theirs to answer
                    assert len(table.journal_lines()) == journal and tv.menu_size()
                    await pilot.press("o")                         # you choose the first
                    continue
                if s.actor() != s.you or tv.menu_size() or view.expects() != "card" \
                        or tv.clearing():
                    await pilot.press("a")                         # the others (or a menu)
                    continue
                hand = s.your_hand()
                legal = [c for c in view.legal_cards() if c in hand]
                wrong = [c for c in hand if c not in legal]
                if not refused and wrong and view.trick_size():
                    wrong = [nearest(app, wrong)]
                    await select(pilot, app, wrong[0])
                    await pilot.press("enter")
                    assert tv.refused(s.you)
                    shown = "\n".join(oled_text(app))             # the OLED's text rows
                    assert any(r in shown for r in REFUSALS), shown
                    assert tv.message() in shown
                    assert table.leds()[s.you] == "refused"
                    assert s.on_reader(s.you) == [wrong[0]]
                    await pilot.press("l")                         # take it back
                    assert not tv.refused(s.you) and not s.on_reader(s.you)
                    assert table.leds()[s.you] != "refused"
                    refused += 1
                    continue
                legal = [nearest(app, legal)]
                await select(pilot, app, legal[0])
                before = len(table.journal_lines())
                await pilot.press("enter")
                assert len(table.journal_lines()) == before + 1
                mine += 1
                if not undone and view.trick_size() and tv.mode() == "play":
                    await pilot.press("O")                         # long OK: undo?
                    assert "Rückgängig? OK" in table.screen()[7]
                    await pilot.press("o")
                    assert '"ev":"undo"' in table.journal_lines()[-1]
                    assert "Zurückgenommen" in "\n".join(table.screen())
                    await pilot.press("l")                         # lift the taken-back card
                    assert legal[0] in s.your_hand()               # back in the hand
                    undone += 1
            assert tv.mode() == "result", table.screen()
            assert refused == 1 and undone == 1 and mine >= 8
            result = view.last_result()
            assert sum(result["payments"]) + result["pot"] == 0
            assert table.screen()[1].startswith("Abrechnung")
            await pilot.press("o")                                 # the next deal
            assert "gibt" in table.screen()[1]
            assert not any(s.on_reader(r) for r in range(4))     # the last trick picked up
            assert "press d" in app.query_one("#hint").shown or "deals" in \
                app.query_one("#hint").shown
    run(play())


def test_buttons_and_cards_by_mouse_and_seat_switching():
    async def play():
        app = SimApp(seed=2, realtime=False, auto=False, seats=SEATS)
        async with app.run_test(size=SIZE) as pilot:
            s = app.seating
            await pilot.press("d")
            assert s.table_view.menu_size()
            journal = len(s.table.journal_lines())
            start = s.table_view.menu_pos()
            await pilot.click("#next")                   # the menu's next entry
            assert s.table_view.menu_pos() == (start + 1) % s.table_view.menu_size()
            await pilot.click("#prev")
            assert s.table_view.menu_pos() == start
            await pilot.click("#ok")                     # the entry shown is chosen
            assert len(s.table.journal_lines()) == journal + 1
            hand = s.your_hand()                         # click the fourth card
            x = 2 + len("Your hand (Anna)  ") + sum(len(card_text(c)) + 1 for c in hand[:3])
            await pilot.click("#hand", offset=(x, 1))
            assert s.selected == 3
            spans = app.query_one("#hand").spans
            assert [i for _line, _a, _b, i in spans] == list(range(len(s.your_hand())))
            await pilot.press("s")                       # act for the next seat
            assert s.you == 1 and "you: Bert" in app.sub_title
            assert "Bert" in app.query_one("#cell-2-1").shown[0]
            await pilot.click("#cell-0-2")               # a click on a seat: be that seat
            assert s.you == 0
            await pilot.press("<")                       # long prev: the score sheet
            assert s.table_view.overlay() == "scores"
            await pilot.press("o")                       # OK closes it
            assert s.table_view.overlay() != "scores"
    run(play())


def oled_rows_of_svg(svg):
    """The OLED's 32 lines out of a Textual SVG screenshot: the text runs of 128 half
    blocks (blank lines have no text run: filled in by their position)."""
    found = {}
    for x, y, body in re.findall(r'<text[^>]*x="([\d.]+)" y="([\d.]+)"[^>]*>(.*?)</text>', svg):
        text = html.unescape(body).replace("\xa0", " ")
        if len(text) == 128 and set(text) <= set(" ▀▄█"):
            found[float(y)] = (float(x), text)
    assert found, "no OLED rows in the screenshot"
    top = min(found)
    step = 24.4                                          # Rich's SVG line height
    rows = [" " * 128] * 32
    for y, (_x, text) in found.items():
        rows[round((y - top) / step)] = text
    return rows


def test_main_screen_snapshot(tmp_path):
    """The SVG screenshot of the main screen once dealt; its OLED rows."""
    async def shoot():
        app = SimApp(seed=1, realtime=False, auto=False, seats=SEATS)
        async with app.run_test(size=SIZE) as pilot:
            await pilot.press("d")                       # dealt: the auction begins
            await pilot.pause()
            oled = app.query_one(OledView)
            assert not oled.compact                      # pixel for pixel
            path = app.save_screenshot("main.svg", str(tmp_path))
            pixels = oled.text()
            await pilot.press("z")                       # z: its text rows instead
            assert oled.compact and oled.text() == [
                (row + " " * 16)[:16] for row in app.seating.table.screen()]
            await pilot.press("z")
            assert not oled.compact and oled.text() == pixels
            return Path(path).read_text(encoding="utf-8"), pixels
    svg, shown = run(shoot())
    rows = oled_rows_of_svg(svg)
    assert len(rows) == 32, len(rows)                   # 128x64 pixels, two rows per line
    assert rows == shown
    plain = html.unescape(re.sub(r"<[^>]+>", "", svg.split("</style>")[-1]))
    plain = plain.replace("\xa0", " ")
    for words in ("Your hand (Anna)", "cards ↓", "centre", "Bert", "Cora", "PREV", "NEXT", "OK"):
        assert words in plain, words
    got = "\n".join(rows) + "\n"
    if os.environ.get("TAPPTABLE_UPDATE_SNAPSHOTS"):
        EXPECTED.write_text(got, encoding="utf-8")
    assert got == EXPECTED.read_text(encoding="utf-8")


def test_record_steps_forward_and_back(tmp_path):
    """--record: the events go into a fresh table through the front door."""
    from host_sim.table import AutoPlayers, VirtualTable
    table = VirtualTable(seats=("Anna", "Bert", "Cora"))
    AutoPlayers(table, seed=4).play_deal()
    record = tmp_path / "deal.jsonl"
    record.write_text("\n".join(table.journal_lines()) + "\n", encoding="utf-8")
    events = len(table.journal_lines()) - 1

    async def step():
        app = SimApp(record=str(record), realtime=False)
        async with app.run_test(size=SIZE) as pilot:
            for _ in range(events):
                await pilot.press("n")
            s = app.seating
            assert s.table_view.mode() == "result"
            assert s.view.last_result() == table.view.last_result()
            assert [line.split("\t")[0] for line in s.table.journal_lines()] == \
                [line.split("\t")[0] for line in table.journal_lines()]
            await pilot.press("p")                       # one back: the last card unplayed
            assert app.seating is not s and app.seating.mode() == "play"
            assert app.record.pos == events - 1
            assert "event %d/%d" % (events - 1, events) in app.query_one("#hint").shown
    run(step())


# ----------------------------------------------------------------- a person at the table


async def person_keys(pilot, app, revoke=False):
    """One move by keys for you if the table waits for you (your menu, your
    discards, your card, a trick to clear, the result); else ``a`` (the others).
    ``revoke``: in open mode, a card against the duties when you have one.
    Returns "revoked" when it played one."""
    s = app.seating
    tv, view = s.table_view, s.view
    s.follow()
    if tv.mode() == "result":
        await pilot.press("o")
        return "next"
    if tv.mode() != "play":
        await pilot.press("a")
        return ""
    if tv.clearing():
        await pilot.press("L")
        return "cleared"
    if tv.menu_size() and s.you in s.people.menu_seats():
        await pilot.press("o")                       # the entry shown: pass / play on
        return "answered"
    if view.expects() == "discard" and view.declarer() == s.you:
        await select(pilot, app, s.your_hand()[0])
        await pilot.press("c")
        if not view.strict() and len(s.people.discards) >= view.talon_size():
            await pilot.press("o")
        return "laid away"
    if view.expects() == "card" and view.turn() == s.you and not tv.menu_size():
        if s.on_reader(s.you):
            await pilot.press("l")
            return "lifted"
        hand = s.your_hand()
        legal = s.people.legal_cards(s.you)
        wrong = [c for c in hand if c not in legal]
        card = nearest(app, wrong) if revoke and wrong and view.trick_size() else \
            nearest(app, legal)
        await select(pilot, app, card)
        await pilot.press("enter")
        return "revoked" if card in wrong else "played"
    await pilot.press("a")
    return ""


# what you do by keys in a deal of seed 3: answer the first question, play
# cards, clear tricks; and, at the result, start the next deal
YOU_DO = {"answered", "played", "cleared", "next"}


def test_two_deals_by_keys_in_a_small_terminal():
    """80x24: the hint line and the key help stay in view; whole deals by
    keys, the simulated people never answering your questions, until two deals
    are settled (the second started from the result) and you did each of
    YOU_DO.  Every deal repeats the same steps (five took 24 s here; many deals:
    the session scenarios, in both runtimes)."""
    async def play():
        app = SimApp(seed=3, realtime=False, auto=False, seats=SEATS)
        async with app.run_test(size=(80, 24)) as pilot:
            s = app.seating
            for wid in ("#hint", "#keys"):
                region = app.query_one(wid).region
                assert region.height and region.y + region.height <= 24, (wid, region)
            assert "q quit" in str(app.query_one("#keys").render())
            await pilot.press("d")
            done = set()
            for _ in range(3000):
                if s.view.deals_played() >= 2:
                    break
                if s.mode() == "play" and s.table_view.menu_size() \
                        and s.you in s.people.menu_seats():
                    journal = len(s.table.journal_lines())
                    await pilot.press("a")               # not for the others to answer
                    assert len(s.table.journal_lines()) == journal
                if s.mode() == "dealing" and s.view.dealer() == s.you:
                    await pilot.press("d")
                    continue
                done.add(await person_keys(pilot, app))
                assert app.query_one("#hint").shown, s.table.screen()
            assert s.view.deals_played() >= 2, s.table.screen()
            assert done >= YOU_DO, done
    run(play())


def test_the_declarer_sees_the_talon_before_laying_away():
    """Württemberg, you (Bert, the forehand) declare a Frage: while you lay away,
    the talon is in your hand (hand size + talon), and the hint says so."""
    async def play():
        for seed in range(1, 8):
            app = SimApp("wuerttemberg", seed=seed, realtime=False, auto=False, seats=SEATS)
            async with app.run_test(size=SMALL) as pilot:
                s = app.seating
                await pilot.press("s")               # you are Bert, the forehand
                await pilot.press("d")
                for _ in range(60):
                    s.follow()
                    if s.view.expects() == "discard" or s.view.expects() == "card":
                        break
                    if s.table_view.menu_size() and s.you in s.people.menu_seats():
                        menu = menu_entries(s.table_view)   # you bid: you declare
                        k = next((i for i, (_l, ev) in enumerate(menu)
                                  if ev and ev.get("call") not in ("pass", "weg")), 0)
                        while s.table_view.menu_pos() != k:
                            await pilot.press("full_stop")
                        await pilot.press("o")
                    else:
                        await pilot.press("a")
                if s.view.expects() != "discard" or s.view.declarer() != s.you:
                    continue
                talon = s.people.talon()
                view = s.view
                hand = s.your_hand()
                assert len(hand) == view.hand_size() + view.talon_size()
                assert set(talon) <= set(hand)
                assert "took up the talon" in app.query_one("#hint").shown
                for _ in range(view.talon_size()):
                    await select(pilot, app, s.your_hand()[0])
                    await pilot.press("c")
                assert s.view.expects() != "discard"
                assert len(s.your_hand()) == view.hand_size()
                return seed
        raise AssertionError("no seed made you the declarer of a game with the talon")
    run(play())


def test_hearts_and_diamonds_are_red(tmp_path):
    async def shoot():
        app = SimApp(seed=1, realtime=False, auto=False, seats=SEATS)
        async with app.run_test(size=SMALL) as pilot:
            await pilot.press("d")
            hand = app.seating.your_hand()
            path = app.save_screenshot("hand.svg", str(tmp_path))
            return hand, Path(path).read_text(encoding="utf-8")
    hand, svg = run(shoot())
    styles = dict(re.findall(r"\.(terminal-[\w-]+) \{[^}]*fill: (#[0-9a-f]{6})", svg))
    colours = {}
    for cls, body in re.findall(r'<text class="([\w-]+)"[^>]*>(.*?)</text>', svg):
        text = html.unescape(body).replace("\xa0", " ").strip()
        if text in [card_text(c) for c in hand]:
            colours[text] = styles.get(cls)
    red = {card_text(c) for c in hand if c[0] in "HD"}
    black = {card_text(c) for c in hand if c[0] in "CS"}
    assert red and black and set(colours) >= red | black, colours
    assert {colours[c] for c in red} == {"#ff5f5f"}
    assert "#ff5f5f" not in {colours[c] for c in black}


def test_open_mode_a_revoke_by_you_and_the_deal_ends():
    async def play():
        app = SimApp(mode="open", seed=2, realtime=False, auto=False, seats=SEATS)
        async with app.run_test(size=SMALL) as pilot:
            s = app.seating
            revoked = False
            for _ in range(1500):
                if s.view.deals_played() >= 1:
                    break
                done = await person_keys(pilot, app, revoke=not revoked)
                revoked = revoked or done == "revoked"
                assert "lost track" not in s.note
            assert s.view.deals_played() >= 1 and revoked
            assert s.people.behind or s.view.last_result() is not None
    run(play())


# ----- the flash directory, quitting, a power cut, the held buttons ------------------------


async def play_two_cards(pilot, app):
    """Deal, answer every menu, and play until two cards lie in the trick."""
    s = app.seating
    await pilot.press("d")
    for _ in range(100):
        if s.view.trick_size() >= 2 or s.table_view.mode() != "play":
            return
        if s.table_view.menu_size() and s.you in s.people.menu_seats():
            await pilot.press("o")
        elif s.actor() == s.you and s.view.expects() == "card" and not s.table_view.menu_size():
            legal = [c for c in s.view.legal_cards() if c in s.your_hand()]
            await select(pilot, app, nearest(app, legal))
            await pilot.press("enter")
        else:
            await pilot.press("a")
    raise AssertionError("no trick begun: %r" % s.table.screen())


def test_the_terminal_keeps_its_flash_and_asks_before_quitting_a_deal(tmp_path):
    """Issue 27, 7: the terminal table keeps its flash in a directory (the
    browser's --table-dir): q during a deal under way asks first (any other key
    plays on, q again quits); started again on the same directory, the table
    takes the session up from its journal, mid-trick, and says so."""
    root = str(tmp_path / "flash")

    async def first():
        app = SimApp(seed=1, realtime=False, auto=False, seats=SEATS, root=root)
        async with app.run_test(size=SMALL) as pilot:
            await play_two_cards(pilot, app)
            s = app.seating
            await pilot.press("q")
            assert app.is_running and "q again quits" in app.message
            assert root in app.message
            await pilot.press(".")                       # any other key: play on
            await pilot.press("q")
            assert app.is_running                        # asked again
            await pilot.press("q")
            await pilot.pause()
            assert not app.is_running
            return s.view.trick(), len(s.table.journal_lines())
    trick, lines = run(first())

    async def again():
        app = SimApp(seed=1, realtime=False, auto=False, seats=SEATS, root=root)
        async with app.run_test(size=SMALL) as pilot:
            s = app.seating
            await pilot.pause()
            assert s.view.trick() == trick and len(s.table.journal_lines()) == lines
            assert "took the session up" in app.query_one("#status").shown
            assert len(s.your_hand()) + len(s.on_reader(s.you)) >= 9
            await pilot.press("a")                       # the others go on
            assert len(s.table.journal_lines()) >= lines
    run(again())


def test_quit_at_once_when_no_deal_is_under_way():
    async def play():
        app = SimApp(seed=1, realtime=False, auto=False, seats=SEATS)
        async with app.run_test(size=SMALL) as pilot:
            await pilot.press("q")
            await pilot.pause()
            assert not app.is_running
    run(play())


def test_power_cut_next_held_and_the_key_help(tmp_path):
    """P cuts the power (the table resumes mid-trick, the same screen); > holds
    NEXT: this deal's points so far, then the last trick; the key help names
    the device's buttons and their long presses as the guide does."""
    async def play():
        app = SimApp(seed=1, realtime=False, auto=False, seats=SEATS, root=str(tmp_path))
        async with app.run_test(size=SMALL) as pilot:
            keys = str(app.query_one("#keys").render())
            assert "PREV NEXT OK" in keys and "held:" in keys and "undo" not in keys
            await play_two_cards(pilot, app)
            s = app.seating
            trick = s.view.trick()
            await pilot.press("P")
            assert s.view.trick() == trick and "power cut" in app.message
            assert app.query_one(OledView).oled is s.table.board.oled
            await pilot.press(">")                       # NEXT held: points so far
            shown = "\n".join(s.table.screen())
            assert "Augen bisher" in shown, shown
            await pilot.press(".")
            assert "Letzter Stich" in "\n".join(s.table.screen()) or \
                s.view.trick_number() == 1
            await pilot.press("o")
    run(play())


def test_sim_refuses_an_option_it_would_not_use(capsys, tmp_path):
    """Never silently ignored: --table-dir where no table keeps it, --port without
    --web, --png without --scenario, --pin without --serial."""
    from tools.tapptable import cli
    for args, word in ((["--text", "--table-dir", str(tmp_path)], "--table-dir"),
                       (["--text", "--port", "9000"], "--port"),
                       (["--text", "--png", str(tmp_path)], "--png"),
                       (["--text", "--pin", "1234"], "--pin")):
        assert cli.main(["sim"] + args) == 2, args
        err = capsys.readouterr().err
        assert word in err and err.count("\n") == 1, err


def test_open_mode_ok_at_the_lay_away_waits_for_your_discards():
    """Issue 27, 10: in open mode the table cannot see discards; OK at
    "Gedrückt? OK" before you have put your cards aside is not passed on (the
    virtual table threw away three cards of its own choice): the status line
    says how many are missing; with them put aside (c), OK lays away those."""
    async def play():
        app = SimApp(mode="open", seed=3, realtime=False, auto=False, seats=SEATS)
        async with app.run_test(size=SMALL) as pilot:
            s = app.seating
            for _ in range(60):
                if s.view.expects() == "discard":
                    break
                if s.table_view.menu_size() and s.you in s.people.menu_seats():
                    await pilot.press("o")
                else:
                    await pilot.press("a")
            assert s.view.expects() == "discard", s.table.screen()
            while s.you != s.view.declarer():
                await pilot.press("s")                 # sit at the declarer's seat
            need = s.view.talon_size()
            lines = len(s.table.journal_lines())
            await pilot.press("o")
            assert len(s.table.journal_lines()) == lines
            assert "Put %d more cards aside" % need in app.query_one("#status").shown
            chosen = []
            for _ in range(need):
                chosen.append(s.your_hand()[s.selected])
                await pilot.press("c")
            await pilot.press("o")
            exchange = json.loads(s.table.journal_lines()[-1].split("\t")[0])
            assert exchange["ev"] == "exchange", exchange
            assert s.people.discards == chosen
            assert not set(chosen) & set(s.your_hand())
    run(play())


def test_a_bettel_ouvert_hand_lies_face_up():
    """Cora (seed 1) plays Bettel ouvert: her seat shows her cards face up."""
    async def play():
        app = SimApp(seed=1, realtime=False, auto=False, seats=SEATS)
        async with app.run_test(size=SMALL) as pilot:
            s = app.seating
            await pilot.press("d")
            await pilot.press("s")
            await pilot.press("s")                       # you are Cora
            for _ in range(20):
                tv = s.table_view
                if not tv.menu_size():
                    break
                labels = [tv.menu_label(k) for k in range(tv.menu_size())]
                if s.you not in s.people.menu_seats():
                    await pilot.press("a")
                    continue
                want = "Bettel ouvert" if "Bettel ouvert" in labels else "spiele"
                while tv.menu_label(tv.menu_pos()) != want:
                    await pilot.press(".")
                await pilot.press("o")
            assert s.view.ouvert() and s.view.declarer() == 2
            await pilot.press("s")                       # Anna looks at Cora's seat
            cell = [c for c in app.query("Cell") if c.seat == 2][0]
            hand = s.hand(2)
            assert len(hand) >= 10 and all(card_text(c) in cell.shown[0] for c in hand)
    run(play())


def test_the_rufer_hand_over_and_an_undone_card_are_named():
    """Issue 27, 1 and 6: you are Bert (seed 1).  Cora plays a Herz-Rufer and
    calls a card of yours: the hint line says who gives what to whom (your
    hand shows the swap at once), the OLED too, until the first card.  Then
    your first card is taken back by an undo: the question names it first,
    and afterwards the view asks you to lift it -- not as a refused card."""
    async def play():
        app = SimApp(seed=1, realtime=False, auto=False, seats=SEATS)
        async with app.run_test(size=SMALL) as pilot:
            s = app.seating
            tv = s.table_view
            await pilot.press("d")
            await pilot.press("s")                       # you are Bert

            async def choose(label):
                labels = [tv.menu_label(k) for k in range(tv.menu_size())]
                assert label in labels, (label, labels)
                while tv.menu_label(tv.menu_pos()) != label:
                    await pilot.press("full_stop")
                await pilot.press("o")
                if tv.menu_asks_sure():           # every entry commits: OK again
                    await pilot.press("o")

            for label in ("spiele", "weg", "weg", "Herz-Rufer"):
                await choose(label)
            called = s.hand(1)[0]
            give = s.hand(2)[0]
            await choose(card_text(called))
            await choose(card_text(give) + "\u2192Bert")
            hint = app.query_one("#hint").shown
            assert "Cora called %s: you hand it to Cora and get %s face down" % (
                card_text(called), card_text(give)) in hint, hint
            assert "Cora ruft " + card_text(called) in "\n".join(oled_text(app))
            assert give in s.your_hand() and called not in s.your_hand()
            await pilot.press("a")                       # Cora leads
            card = s.view.legal_cards()[0]
            await select(pilot, app, card)
            await pilot.press("enter")
            assert s.view.turn() == 0
            assert "called" not in app.query_one("#hint").shown
            await pilot.press("O")                       # OK held: undo?
            hint = app.query_one("#hint").shown
            assert hint.startswith("Undo Bert's %s?" % card_text(card)), hint
            assert "Bert " + card_text(card) in "\n".join(oled_text(app))
            await pilot.press("o")
            hint = app.query_one("#hint").shown
            assert hint.startswith("Undo took back the card on your reader"), hint
            cell = [c for c in app.query("Cell") if c.seat == 1][0]
            assert "taken back" in cell.shown[0] and "refused" not in cell.shown[0]
            await pilot.press("l")
            assert "refused" not in app.query_one("#hint").shown
    run(play())
