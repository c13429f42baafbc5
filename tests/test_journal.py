"""The table's journal and power cuts, under CPython (firmware/table/journal.py,
flash_log.py; docs/record-format.md, "Journal on the device").

The sweep: a whole session of several deals and sessions is played by the
simulated players on a small journal area (four sectors: the ring wraps and
the oldest sessions are dropped), every erase and page program of its last
six deals logged with what the table had shown before it (the session in
play and its lines).
Then, for every operation, the flash a power cut leaves -- in the operation
(half of it done) and right after it -- is rebuilt from the log (the
firmware is deterministic: tests/mp/mptest_journal_flash.py checks a live cut
against the rebuilt one) and a table is powered up on it.  It must resume
with every line whose append had returned, no line that was never written,
its state equal to a replay of what it holds; every tenth table plays on to
the end of the deal.  The same in the MicroPython VM: tests/test_journal_vm.py.

Besides: play goes on after a cut mid-trick, cards lifted while the power was
off are not waited for, the console lists the sessions and streams a
finished one, and the journal as files (the fallback on firmware without the
journal's own area) keeps its rules.
"""
import io
import json

import pytest
from played_sessions import play_sessions

from host_sim.flash import PICO_JOURNAL_KB
from host_sim.table import AutoPlayers, VirtualTable
from host_sim.vm.nor_flash import NorFlash, apply_op, half
from table.app import BOOT_LOOK_MS, NEW_SESSION, App
from table.console import Console
from table.journal import MemoryJournal
from table.journal_files import create_journal, last_journal
from tapp.record import with_crc
from tapp.replay import Replayer

SECTORS = 4               # 16 KiB: about eight deals
RESUMED_MS = BOOT_LOOK_MS + 100     # the readers have looked, a game step followed


def _state(view):
    return {"phase": view.phase(), "turn": view.turn(), "trick": view.trick(),
            "last": view.last_trick(), "balances": view.balances(), "pot": view.pot(),
            "deals": view.deals_played(), "contract": view.contract()}


def _replayed(lines):
    rep = Replayer(lines[0])
    outs = [rep.feed(line) for line in lines[1:]]
    return rep, outs


class Played:
    """The uncut run: ``warm + deals`` deals, a new session every
    ``per_session``, on a journal area of SECTORS sectors, every operation of
    the last ``deals`` logged (the first ones fill the ring); ``kept[i]``: the
    session on the table's screen and its lines when operation i began (what
    the table had shown), ``lines``: each session's lines as written."""

    def __init__(self, variant, players, mode, warm, deals, per_session, seed=5):
        self.args = (variant, players, mode)
        table = VirtualTable(variant, players, mode, journal_flash=NorFlash(SECTORS))
        self.root = table.root
        dev = table.journal_flash
        self.lines = {}
        self.kept = []

        def before_deal(k):
            if k == warm:
                self.snapshot = bytes(dev.data)
                self.erases = dev.erases
                dev.start_log()
                dev.watch = lambda ops: self.kept.append(self._shown(table))
        play_sessions(table, warm + deals, per_session, seed, before_deal,
                      lambda: self._keep(table))
        self.log = dev.log
        self.end = bytes(dev.data)
        self.sessions = table.app.journals.sessions()
        self.erases = dev.erases - self.erases
        assert len(self.kept) == len(self.log)

    @staticmethod
    def _shown(table):
        journal = table.app.view.journal()
        return (journal.name(), len(journal)) if journal is not None else ("", 0)

    def _keep(self, table):
        journal = table.app.view.journal()
        self.lines[journal.name()] = table.journal_lines()

    def power_up(self, image):
        variant, players, mode = self.args
        table = VirtualTable(variant, players, mode, root=self.root, enrolled=False,
                             resume=True, journal_flash=NorFlash(SECTORS, data=image))
        table.wait(RESUMED_MS)
        return table


def _check(played, i, image, stats, play_on):
    """A table powered up on ``image`` (a cut in operation i) resumes with
    every line shown before it and nothing else."""
    name, shown = played.kept[i]
    table = played.power_up(image)
    store = table.app.journals
    names = [n for n, _ in store.sessions()]
    for n in names:                                   # nothing invented, anywhere
        got = list(store.lines(n))
        assert got == played.lines[n][:len(got)], (i, n)
    assert name in names, (i, name, names)           # the session shown is there...
    assert len(list(store.lines(name))) >= shown, (i, name, shown)   # ... every line of it
    journal = table.app.view.journal()
    lines = table.journal_lines()
    if journal.name() == name:
        assert shown <= len(lines) <= shown + 1, (i, shown, len(lines))
        stats["new" if len(lines) > shown else "kept"] += 1
    else:                                             # the next one was being started
        assert journal.name() > name and len(lines) == 1, (i, name, journal.name())
        stats["started"] += 1
    rep, outs = _replayed(lines)
    assert not [o for o in outs if '"ok":false' in o], i
    assert _state(table.view) == _state(rep.session.view), (i, lines[-1])
    if play_on and table.view.in_deal():
        AutoPlayers(table, seed=i, illegal_once=False).play_deal()
        rep, outs = _replayed(table.journal_lines())
        assert not [o for o in outs if '"ok":false' in o], i
        assert rep.session.view.balances() == table.view.balances(), i
        stats["played on"] += 1


def sweep(played, ops=None, play_every=10):
    """Cut in (half done) and after every operation (of ``ops``, an index
    set; None: all); the image before operation i kept up to date."""
    flash = bytearray(played.snapshot)
    image = bytearray(len(flash))
    stats = {"kept": 0, "new": 0, "started": 0, "played on": 0, "cuts": 0}
    for i, op in enumerate(played.log):
        if ops is None or i in ops:
            for done in (half(op), None):
                image[:] = flash
                apply_op(image, NorFlash(1).block_size, op, done)
                _check(played, i, image, stats, stats["cuts"] % play_every == 0)
                stats["cuts"] += 1
        apply_op(flash, 4096, op)
    assert bytes(flash) == played.end
    return stats


@pytest.fixture(scope="module")
def played():
    return Played("wuerttemberg", 3, "strict", warm=6, deals=6, per_session=2, seed=1)


def test_a_power_cut_in_and_after_every_flash_operation_of_a_session(played):
    """Six deals in three sessions on four sectors, after six that filled
    them: sectors are erased again (the ring comes round) and the oldest
    sessions are dropped; some 200 operations, 400 cuts, each resumed."""
    assert played.erases >= 2 and set(played.lines) > {n for n, _ in played.sessions}
    assert "s0001.jsonl" not in dict(played.sessions) and len(played.lines) == 6
    erases = sum(1 for op in played.log if op[1] < 0)
    stats = sweep(played)
    print("%d flash operations (%d erases), %d cuts: %r" % (
        len(played.log), erases, stats["cuts"], stats))
    assert stats["cuts"] >= 300
    assert stats["kept"] and stats["new"] and stats["started"] and stats["played on"] >= 30


def test_sectors_are_erased_ahead_only_while_nothing_waits():
    """Ten deals on a small area: every sector the deals need was erased by
    the idle job ahead of need (no append erased one), and at each of those
    erases no input was queued, no button held, no card the readers saw
    still to be settled (nor a placed one they no longer see), the screen
    showing what the game took (not between the game's step and the
    display's) and sent.  (A card laid since its reader's last look is not
    known yet: the erase may hold its notice up by its 45 ms on the Pico.)"""
    table = VirtualTable("herzblatt", 4, "strict", journal_kb=24)
    dev = table.journal_flash
    log = table.app.journals.log
    start = (log.prepared, log.fallbacks)
    erases = []

    def watch(ops):
        if dev.erases != (erases[-1][0] if erases else start[0] + 1):
            tags = table.tags
            erases.append((dev.erases, table.app.inputs_pending(),
                           [pin.is_pressed for pin in table.board.button_pins],
                           [(table.app.view.reader_raw(r) == 1) != bool(table.app.view.placed(r))
                            for r in range(len(tags))],
                           table.board.display.dirty_pages(), table.app.view.shown()))
    dev.watch = watch
    people = AutoPlayers(table, seed=7, illegal_once=False)
    for k in range(10):
        if k:
            people.next_deal()
        people.play_deal()
    # (the deals needed four sectors more than the one erased while the table was made)
    assert log.fallbacks == start[1] and log.prepared - start[0] >= 4, (log.prepared, start)
    for _, pending, buttons, unsettled, dirty, shown in erases:
        assert not pending and not any(buttons) and not any(unsettled) and not dirty
        assert shown


def test_nothing_waits_is_false_while_a_card_taken_is_not_yet_shown(monkeypatch):
    """Between the game's step that took a card and the display's step that
    shows it, the idle job (an erase, a collection) and the console must not
    step in: on the Pico either would hold the card's showing up by 45-60 ms."""
    seen = []
    run_game = App.run_game

    def recorded(app):
        run_game(app)
        if not app.view.shown():        # it took what the screen has yet to show
            seen.append(app.nothing_waits())
    monkeypatch.setattr(App, "run_game", recorded)      # (before the app's loop binds it)
    table = VirtualTable("tapp_modern", 4, "strict")
    AutoPlayers(table, seed=3, illegal_once=False).play_deal()
    assert len(seen) > 30 and not any(seen)


def test_the_first_session_on_a_blank_area_finds_a_sector_erased_during_the_setup():
    """The setup's screens leave the idle job time: it erases the blank
    area's first sector then, so the session the setup starts writes its
    header with a page program (no erase in the step that starts it: 108 ms
    on the Pico, with the game built, before this)."""
    table = VirtualTable("tapp_modern", 3, "strict", setup=True, journal_kb=24)
    log = table.app.journals.log
    # (the first setup screen is sent in one display step: the erase may be done already)
    assert table.app.view.journal() is None and log.erases <= 1
    table.wait(200)
    assert log.prepared == 1 and log.erases == 1
    presses = 0
    while table.app.view.engine() is None:
        table.press("ok")
        presses += 1
        assert presses < 20, table.screen()
    assert table.app.view.journal() is not None
    # every erase was the idle job's (the next sector is erased ahead again once
    # the session runs): none by the session's start
    assert log.fallbacks == 0 and log.erases == log.prepared, (log.erases, log.prepared)


def test_the_session_is_made_on_the_setups_last_screen(monkeypatch):
    """While the setup's last screen waits for OK the idle job makes the
    session's engine and its rules, once for those answers (the engine keeps
    the last rules made: tests/mp/mptest_rules_cache.py), and the press that
    starts the session takes that engine (on the Pico making it took some
    18 ms of its step); then it
    collects the garbage, once (the deal collects only when the heap runs
    low; CPython has no ``gc.mem_alloc``: given one here)."""
    import gc
    monkeypatch.setattr(gc, "mem_alloc", lambda: 0, raising=False)
    monkeypatch.setattr(gc, "mem_free", lambda: 1 << 20, raising=False)
    done = []
    idle_work = App.idle_work

    def recorded(app):
        what = idle_work(app)
        done.append(what)
        return what
    monkeypatch.setattr(App, "idle_work", recorded)
    table = VirtualTable("herzblatt", 4, "strict", setup=True, journal_kb=24)
    presses = 0
    while not table.screen()[0].endswith("12/13"):      # the setup's last but one
        table.press("ok")
        presses += 1
        assert presses < 20, table.screen()
    table.wait(300)
    assert "rules" not in done and "collect" not in done
    table.press("ok")
    assert table.screen()[0].endswith("13/13")
    table.wait(300)
    assert done.count("rules") == 1
    assert done.index("collect") == done.index("rules") + 1, done    # the next idle step
    table.wait(300)
    assert done.count("rules") == 1 and done.count("collect") == 1   # once for these answers
    table.press("prev", long=True)                      # back a question, an answer again
    table.press("ok")
    assert table.screen()[0].endswith("13/13")
    table.wait(300)
    assert done.count("rules") == 2 and done.count("collect") == 2
    ahead = table.app.ahead
    assert ahead is not None and ahead[0] == table.app.settings.header()
    table.press("ok")
    assert table.app.view.engine() is ahead[1].view and done.count("rules") == 2
    assert table.app.ahead is None               # taken, never used twice


def _in_trick_two():
    """A table of three played on until trick two's first card lies there."""
    table = VirtualTable("wuerttemberg", 3)
    people = AutoPlayers(table, seed=3, illegal_once=False)

    class Cut(Exception):
        pass

    def cut_in_trick_two(t):
        if t.view.in_deal() and t.view.trick_number() == 2 and t.view.trick_size() == 1:
            raise Cut

    with pytest.raises(Cut):
        for _ in range(6):
            people.play_deal(on_step=cut_in_trick_two)
            people.next_deal()
    return table


def test_play_goes_on_after_a_power_cut_mid_trick():
    table = _in_trick_two()
    before = _state(table.view)
    after = table.power_cut()
    after.wait(800)
    assert _state(after.view) == before
    result = AutoPlayers(after, seed=4, illegal_once=False).play_deal()
    rep, outs = _replayed(after.journal_lines())
    assert not [o for o in outs if '"ok":false' in o]
    assert rep.session.view.balances() == result["balances"] == after.view.balances()


def test_the_readers_look_after_a_power_up_even_while_the_display_has_rows_to_write():
    """After a power-up the readers have BOOT_LOOK_MS of time to find the cards
    lying there; the display's rows due (a screen written over several steps)
    must not take their steps meanwhile -- on the Pico, where a step lasts
    about 10 ms, a card lying mid-trick was never found and counted as gone.
    Once the look is over a screen to finish comes first again."""
    after = _in_trick_two().power_cut()
    app = after.app
    assert app.boot_look_ms() >= 0              # the look after the power-up runs
    polls = app.round.polls
    for _ in range(12):
        app.redraw()                            # every row due again
        app.poll_readers()
    assert app.round.polls == polls + 12
    after.wait(RESUMED_MS)
    assert app.boot_look_ms() < 0 and _state(after.view)["trick"]
    polls = app.round.polls
    app.redraw()
    app.poll_readers()
    assert app.round.polls == polls             # the screen first


def test_cards_lifted_while_the_power_was_off_are_not_waited_for():
    table = VirtualTable("wuerttemberg", 3)
    people = AutoPlayers(table, seed=3, illegal_once=False)

    class Cut(Exception):
        pass

    def before_last_card(t):
        if t.view.in_deal() and t.view.trick_number() == 1 and t.view.trick_size() == 2:
            raise Cut

    with pytest.raises(Cut):
        for _ in range(6):
            people.play_deal(on_step=before_last_card)
            people.next_deal()
    people.sync()
    table.place(table.view.turn(), people.shadow.view.legal_cards()[0])
    assert table.app.view.clearing()            # the trick lies there, complete
    for reader in range(3):
        table.lift(reader, wait=False)      # taken off while the table was off
    after = table.power_cut()
    after.wait(1000)
    assert not after.app.view.clearing()
    assert after.view.expects() in ("card", "deal")    # play on (or the deal was decided)
    assert "abräumen" not in "\n".join(after.screen())


def test_a_table_folder_keeps_its_journal_across_processes(tmp_path):
    """``--table-dir``: the journal's area is an image in the folder, written
    through at every operation; a new table on the folder takes the session up."""
    root = str(tmp_path)
    table = VirtualTable("tapp_modern", 3, "open", root=root)
    AutoPlayers(table, seed=2, illegal_once=False).play_deal()
    lines = table.journal_lines()
    assert VirtualTable.session_found(root) and not VirtualTable.session_found(str(tmp_path / "x"))
    again = VirtualTable("tapp_modern", 3, "open", root=root, enrolled=False, resume=True)
    assert again.journal_lines() == lines
    assert (tmp_path / "journal.img").stat().st_size == PICO_JOURNAL_KB * 1024


def _console(table, *requests):
    """The console's answers to ``requests`` (dicts), in order."""
    out = io.StringIO()
    con = Console(table.app, io.BytesIO(b"".join(json.dumps(r).encode() + b"\n"
                                                 for r in requests)), out)
    for _ in range(60):
        con.step()
    return [json.loads(x) for x in out.getvalue().splitlines() if '"id"' in x]


def test_the_console_lists_the_sessions_and_streams_a_finished_one():
    table = VirtualTable("tapp_modern", 3, "open")
    AutoPlayers(table, seed=3, illegal_once=False).play_deal()
    first = table.journal_lines()
    assert table.app.input(NEW_SESSION)
    table.wait(200)
    AutoPlayers(table, seed=4, illegal_once=False).play_deal()
    current = table.journal_lines()
    answers = _console(table, {"id": 1, "cmd": "journal", "list": True},
                       {"id": 2, "cmd": "journal"})
    by_id = {}
    for a in answers:
        by_id.setdefault(a["id"], []).append(a)
    assert by_id[1][0]["sessions"] == [
        {"name": "current", "lines": len(current)},
        {"name": "s0001.jsonl", "bytes": sum(len(x) + 1 for x in first)},
        {"name": "s0002.jsonl", "bytes": sum(len(x) + 1 for x in current)}]
    assert [a["line"] for a in by_id[2] if "line" in a] == current
    assert by_id[2][-1] == {"id": 2, "ok": True, "count": len(current)}
    # a finished session streams from the flash, line by line (no PIN: its deals are over)
    finished = _console(table, {"id": 3, "cmd": "journal", "session": "s0001.jsonl"})
    assert [a["line"] for a in finished if "line" in a] == first
    assert finished[-1] == {"id": 3, "ok": True, "count": len(first)}
    assert _console(table, {"id": 4, "cmd": "journal",
                            "session": "s0009.jsonl"})[0]["error"] == "not_found"
    assert _console(table, {"id": 5, "cmd": "journal",
                            "session": "../x"})[0]["error"] == "bad_args"


# ----- the journal as files (firmware without the journal's own area) ---------------


def test_files_a_corrupt_line_in_the_middle_is_dropped_and_counted(tmp_path):
    j = create_journal(str(tmp_path), {"record": 1, "variant": "wuerttemberg",
                                       "players": 3, "first_dealer": 0})
    j.append({"ev": "deal", "dealer": 0, "hands": None, "talon": None})
    j.close()
    path = tmp_path / "journal" / "s0001.jsonl"
    good = path.read_bytes()
    bad = with_crc('{"ev":"undo"}')[:-1] + "0"          # a CRC that does not match
    path.write_bytes(good + bad.encode() + b"\n" + b'{"ev":"redeal"}\n')  # no CRC: not whole
    again = last_journal(str(tmp_path))
    assert again.dropped == 2 and len(again) == 2
    assert path.read_bytes() == good                     # rewritten without them
    again.append({"ev": "undo"})
    assert len(last_journal(str(tmp_path))) == 3


def test_files_sessions_are_numbered_and_the_newest_is_resumed(tmp_path):
    root = str(tmp_path)
    assert last_journal(root) is None
    for n in range(3):
        create_journal(root, {"record": 1, "n": n}).close()
    last = last_journal(root)
    assert last.header()["n"] == 2 and last.name() == "s0003.jsonl"
    memory = MemoryJournal({"record": 1})
    memory.append({"ev": "undo"})
    assert len(memory) == 2 and memory.tail(1)[0].startswith('{"ev":"undo"}')


def test_files_a_long_session_keeps_only_a_tail_in_ram(tmp_path):
    from table.journal import TAIL
    j = create_journal(str(tmp_path), {"record": 1})
    for _ in range(3 * TAIL):
        j.append({"ev": "undo"})
    assert len(j) == 3 * TAIL + 1 and len(j.tail(1000)) == TAIL
    assert j.line(0).startswith('{"record":1}') and j.line(5).startswith('{"ev":"undo"}')
    assert len(list(j.read_lines())) == len(j) == len(last_journal(str(tmp_path)))


def test_files_the_table_plays_on_them_where_the_board_has_no_journal_area(tmp_path):
    """The stock firmware's table: the journal in files under its folder."""
    table = VirtualTable("wuerttemberg", 3, root=str(tmp_path), journal_files=True)
    AutoPlayers(table, seed=3, illegal_once=False).play_deal()
    lines = table.journal_lines()
    assert (tmp_path / "journal" / "s0001.jsonl").read_text().splitlines() == lines
    after = table.power_cut()
    assert after.journal_lines() == lines and after.app.journals.sessions() == [
        ("s0001.jsonl", sum(len(x) + 1 for x in lines))]


def test_a_cut_between_the_hand_lines_deals_the_whole_deck_again(tmp_path):
    """Issue 27, 4: a strict deal is journalled with its first card and its
    hands once complete, a line each.  A power cut after the first hand's line
    leaves one hand known: the table asks for the whole deal again at once
    ("Von vorn geben"), writes nothing at power-up, and once the deck has been
    dealt again takes the stale hand back (an undo) before the new hands."""
    root = str(tmp_path)
    table = VirtualTable("wuerttemberg", 3, root=root, journal_files=True)
    AutoPlayers(table, seed=3, illegal_once=False).deal_cards()
    lines = table.journal_lines()
    assert [json.loads(x.split("\t")[0])["ev"] for x in lines[1:]] == ["deal"] + ["hand"] * 3
    assert json.loads(lines[1].split("\t")[0])["hands"] is None
    table.close()
    (tmp_path / "journal" / "s0001.jsonl").write_text("\n".join(lines[:3]) + "\n")
    after = VirtualTable("wuerttemberg", 3, root=root, journal_files=True, enrolled=False,
                         resume=True)
    after.wait(RESUMED_MS)
    assert after.app.view.mode() == "dealing" and after.screen()[7] == "Von vorn geben"
    assert after.journal_lines() == lines[:3]           # nothing written at power-up
    assert sum(after.view.hand_known(s) for s in range(3)) == 1
    AutoPlayers(after, seed=5, illegal_once=False).deal_cards()
    evs = [json.loads(x.split("\t")[0]) for x in after.journal_lines()[3:]]
    assert [ev["ev"] for ev in evs] == ["undo"] + ["hand"] * 3
    assert after.view.expects() == "call"
    rep, outs = _replayed(after.journal_lines())
    assert not [o for o in outs if '"ok":false' in o]
    assert _state(rep.session.view) == _state(after.view)


def test_a_deals_hands_go_on_flash_one_a_game_step(monkeypatch):
    """The hands of a deal scanned complete are journalled one a step of the
    game's job (each took 4 ms on the Pico: all in the last card's step held
    the loop 17 ms), in the scan's order, and the play begins with the last."""
    steps = []
    plain = App.run_game

    made = []                                          # the table, once made

    def hands():
        return sum('"ev":"hand"' in line for line in made[0].journal_lines()) if made else 0

    def run_game(self):
        before = hands()
        plain(self)
        if hands() != before:
            steps.append((hands() - before, self.view.mode()))
    monkeypatch.setattr(App, "run_game", run_game)      # (before the table's jobs are made)
    table = VirtualTable("wuerttemberg", 3)
    made.append(table)
    app = table.app
    AutoPlayers(table, seed=3, illegal_once=False).deal_cards()
    assert steps == [(1, "dealing"), (1, "dealing"), (1, "play")], steps
    assert app.view.mode() == "play" and table.view.expects() == "call"
    rep, outs = _replayed(table.journal_lines())
    assert not [o for o in outs if '"ok":false' in o]
    assert _state(rep.session.view) == _state(table.view)


def test_a_headers_line_is_made_once_and_again_when_the_answers_change():
    """The app makes the session header's line ahead, on the setup's last
    screen; the OK that starts the session takes it (the same text as
    dumps and the CRC give); a header with another answer gets its own."""
    from table.journal import line_of
    from table.settings import Settings
    from tapp.jsonout import dumps
    from tapp.record import with_crc
    settings = Settings(None)
    ahead = line_of(settings.header())
    again = line_of(settings.header())              # a new dict, the same answers
    assert again is ahead and ahead == with_crc(dumps(settings.header()))
    settings.set_seat_name(0, "Zora")
    changed = line_of(settings.header())
    assert changed != ahead and '"Zora"' in changed
    assert changed == with_crc(dumps(settings.header()))
    event = {"ev": "deal", "dealer": 0}
    assert line_of(event) == with_crc(dumps(event)) and line_of(settings.header()) is changed
