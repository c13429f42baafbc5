"""A full flash on the host: the table when the flash refuses a line
(firmware/table/app.py) -- its journal in its own flash area full or its chip
failing, or, on firmware without that area, littlefs full -- and the journal
files' space rules on littlefs of a given size under CPython (the littlefs C
library, host_sim/flash.py; firmware/table/journal_files.py).

The journal's own area filled in every runtime: tests/mp/mptest_journal_flash.py;
littlefs filled inside the MicroPython VM: tests/mp/mptest_journal_lfs.py
(``test_a_full_flash_*``); the table: tests/scenarios/full_flash.scn (both
runtimes).
"""
import json

import pytest

from host_sim import flash as F
from host_sim.players import AutoPlayers
from host_sim.table import VirtualTable
from table import journal_files as J
from table.app import NEW_SESSION
from tapp.replay import Replayer

HEADER = {"record": 1, "variant": "tapp_modern", "players": 3,
          "seats": ["Anna", "Bert", "Cora"], "first_dealer": 0, "mode": "open"}
OPEN_DEAL = {"ev": "deal", "dealer": 0, "hands": None, "talon": None}
PASS = {"ev": "bid", "seat": 1, "call": "pass"}


def _flash(kb):
    F.install()
    store = F.Flash(kb)
    return store, store.root


def _fill(journal, deals):
    """``deals`` deals of twenty short lines each (about 1 KB a deal)."""
    for _ in range(deals):
        journal.append(OPEN_DEAL)
        for _ in range(20):
            journal.append(PASS)


def test_statvfs_wraps_on_a_full_littlefs_and_the_journal_does_not_believe_it():
    store, root = _flash(32)
    F.FlashOs().mkdir(root + "/junk")
    f = F.flash_open(root + "/junk/big", "w")
    try:
        while True:
            f.write("x" * 1000)
            f.flush()
    except OSError as exc:
        assert exc.errno == J.ENOSPC
    st = F.FlashOs().statvfs(root)
    assert st[3] > st[2]                 # littlefs counts more blocks than there are
    assert J.free_bytes(root) == 0       # counted from the files: none beyond the reserve


def test_a_new_deal_needs_room_for_a_whole_deal_and_nothing_is_written_without(tmp_path):
    store, root = _flash(40)
    journal = J.create_journal(root, HEADER)
    _fill(journal, 40)
    assert journal.failed                 # the flash filled up: a deal was refused
    deals = journal.deals
    again = journal.reopen()              # what the flash holds: whole lines only
    lines = list(again.read_lines())
    assert len(lines) == len(again) and again.deals == deals
    assert sum('"ev":"deal"' in x for x in lines) == deals
    # the last deal was finished before the refusal: every deal has its 20 lines
    assert (len(lines) - 1) == deals * 21
    free = J.free_bytes(root)
    assert 0 <= free < again.deal_bytes()  # the refusal came when a deal no longer fit
    assert again.deals_left() == 0
    again.append(OPEN_DEAL)
    assert again.failed and len(list(again.read_lines())) == len(lines)


def test_old_sessions_go_oldest_first_the_running_one_never():
    store, root = _flash(64)
    names = []
    for _ in range(4):                    # four finished sessions of 12 deals
        journal = J.create_journal(root, HEADER)
        _fill(journal, 12)
        assert not journal.failed
        journal.close()
        names.append(journal.path.rsplit("/", 1)[1])
    running = J.create_journal(root, HEADER)
    left = J.sessions(root)
    # some of the oldest went to make room (CLEAN_DEALS), in order, none else
    assert left[-1] == running.path.rsplit("/", 1)[1]
    gone = [n for n in names if n not in left]
    assert gone == names[:len(gone)] and gone
    _fill(running, 200)                   # the running session fills the flash
    assert running.failed
    left = J.sessions(root)
    assert left == [running.path.rsplit("/", 1)[1]]   # every finished one made room
    assert running.deals > 12


def test_the_newest_finished_session_stays_while_a_deal_fits():
    store, root = _flash(64)
    first = J.create_journal(root, HEADER)
    _fill(first, 10)
    first.close()
    second = J.create_journal(root, HEADER)
    _fill(second, 3)
    assert J.sessions(root)[0] == first.path.rsplit("/", 1)[1]   # plenty of room yet


def _table(kb, mode="open", files=False):
    table = VirtualTable("tapp_modern", 3, mode, flash_kb=kb, journal_files=files)
    return table, AutoPlayers(table, seed=3, illegal_once=False)


def _fill_up(root):
    """Files of ever smaller sizes until littlefs takes not one more byte; their paths."""
    osf = F.FlashOs()
    osf.mkdir(root + "/junk")
    paths = []
    for size in (4096, 512, 64, 8, 1):
        for _ in range(200):
            path = "%s/junk/%d" % (root, len(paths))
            try:
                f = F.flash_open(path, "w")
                try:
                    f.write("j" * size)
                finally:
                    f.close()
            except OSError:
                try:
                    osf.remove(path)
                except OSError:
                    pass
                break
            paths.append(path)
    return paths


class FailingChip:
    """The journal's own flash area stops taking programs (its chip fails)."""

    def __init__(self, table):
        self.dev = table.journal_flash

    def refuse(self):
        self.dev.refuse = True

    def take(self):
        self.dev.refuse = False


class FullLittlefs:
    """On firmware without the journal's area: something else fills littlefs."""

    def __init__(self, table):
        self.root = table.flash_store.root
        self.junk = []

    def refuse(self):
        self.junk = _fill_up(self.root)

    def take(self):
        for path in self.junk:
            F.FlashOs().remove(path)


@pytest.mark.parametrize("files,flash", [(False, FailingChip), (True, FullLittlefs)])
def test_a_card_the_flash_refuses_is_not_played(files, flash):
    """Mid-deal the flash refuses the card's line, so the card does not count
    -- the engine holds exactly the journal, the display says the flash is
    full; once the flash takes lines again the same card lying on the
    reader is played."""
    table, people = _table(128, files=files)
    flash = flash(table)
    people.play_deal()
    people.next_deal()
    played = 0
    while played < 4:                     # the auction, then four cards
        people.sync()
        if table.app.view.menu_size():
            people.choose()
        elif table.view.expects() == "card":
            people.play_card()
            played += 1
        else:
            table.wait(100)
    people.sync()
    lines = table.journal_lines()
    flash.refuse()
    view = table.view
    before = (view.trick_number(), view.trick_size())
    seat = view.turn()
    card = people.card_choice(seat)
    table.place(seat, card)
    table.wait(200)
    view = table.view
    assert table.journal_lines() == lines                 # nothing written
    assert (view.trick_number(), view.trick_size()) == before   # nothing played
    assert "Speicher voll!" in table.screen()
    rep = Replayer(lines[0])
    for line in lines[1:]:
        rep.feed(line)
    assert rep.session.view.trick() == view.trick()
    flash.take()                                          # room again
    table.lift(seat)
    table.place(seat, card)
    table.wait(200)
    last = json.loads(table.journal_lines()[-1].split("\t")[0])
    assert last == {"ev": "play", "seat": seat, "card": card}


def test_a_full_flash_at_power_up_is_said_and_nothing_breaks():
    table, people = _table(64)
    for k in range(40):
        if k:
            people.next_deal()
        people.play_deal()
        if "Speicher voll!" in table.screen():
            break
    assert "Speicher voll!" in table.screen()
    n = len(table.journal_lines())
    table = table.power_cut()
    table.press("ok")
    assert "Speicher voll!" in table.screen()
    assert len(table.journal_lines()) == n and not table.view.in_deal()
    # the way out (after the session was downloaded): a new session; the full
    # one, now finished, makes room for it
    full = [name for name, _ in table.app.journals.sessions()]
    assert table.app.input(NEW_SESSION)
    table.wait(200)
    assert [name for name, _ in table.app.journals.sessions()] == [
        "s%04d.jsonl" % (int(full[-1][1:5]) + 1)]
    assert len(table.journal_lines()) == 2 and table.view.in_deal()   # a deal is on
    assert "Speicher" not in " ".join(table.screen())


def test_the_journals_own_count_of_free_space_is_the_walked_one():
    """The journal counts the other files once and its own from what it wrote:
    the same free space as walking the whole flash, deal after deal."""
    store, root = _flash(128)
    journal = J.create_journal(root, HEADER)
    for _ in range(12):
        _fill(journal, 1)
        assert journal.free_bytes() == J.free_bytes(root)
    assert journal.deals_left() == J.free_bytes(root) // journal.deal_bytes()
