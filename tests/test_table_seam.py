"""The table changes only through its doors, checked at run time (tests/seam_guard.py).

A whole scenario session and a monkey's run are played with the guard on the
App and the Game: no attribute of either is set, and nothing they hold
changes, but while one of the App's public methods (its inputs and jobs)
runs; every question of ``app.view`` leaves the table as it was.  Names do
not matter to the guard, so an alias or a ``getattr`` does not fool it: the
file the issue calls the back door (``t = table.app; t.current = None;
getattr(t, "ga" + "me").step = 3; ...``) is caught line by line below.
"""
from pathlib import Path

import pytest

from host_sim.monkey import Monkey, QuickTable
from host_sim.scenario import run_file
from host_sim.table import VirtualTable
from table.app import App
from table.game import Game
from table.table_view import TableView
from tests.seam_guard import Guard, SeamBreach

SCENARIOS = Path(__file__).parent / "scenarios"


@pytest.fixture
def guard():
    g = Guard(App, Game, TableView).install()
    yield g
    g.remove()


def test_a_whole_session_goes_through_the_doors(guard):
    assert not run_file(SCENARIOS / "revoke_announced.scn")
    assert guard.doors > 1000 and guard.apps
    guard.check()


def test_the_monkey_goes_through_the_doors(guard):
    monkey = Monkey(QuickTable.factory("wuerttemberg", 3, "strict"), seed=3)
    monkey.run(60)
    assert guard.doors > 1000
    guard.check()


# The back door of the issue, one reach at a time (``t``: the App of a table in play).
BACK_DOORS = {
    "mode set": "t.current = None",
    "game field via getattr": 'getattr(t, "ga" + "me").step = 3',
    "alias of a field": "g = t.game; g._step = None",
    "reader polled": "t.board.readers.poll(0)",
    "list filled in place": "t.game._on_reader[0] = 5",
    "journal written": 't.journal.append({"ev": "undo"})',
    "the issue's file": 't.current = None; getattr(t, "ga" + "me").step = 3; '
                        't.board.readers.poll(0); t.view.journal().append({"ev": "undo"})',
}


@pytest.mark.parametrize("reach", list(BACK_DOORS.values()), ids=list(BACK_DOORS))
def test_the_guard_catches_every_back_door(guard, reach):
    table = VirtualTable("wuerttemberg", 3, "open")
    table.wait(100)
    t = table.app
    with pytest.raises(SeamBreach):
        exec(reach, {"t": t})                # noqa: S102 -- the back doors under test
        table.wait(20)                       # the next door finds what changed
        guard.check()


def test_the_view_hands_out_no_writer(guard):
    table = VirtualTable("wuerttemberg", 3, "open")
    table.wait(100)
    journal = table.app.view.journal()
    assert len(journal) > 1 and journal.line(0)
    assert not hasattr(journal, "append")
    assert table.app.view.menu_size() > 0
    event = table.app.view.menu_event(0)
    if event is not None:
        event["ev"] = "undo"                # a copy: the menu is as it was
        assert table.app.view.menu_event(0)["ev"] != "undo"
    guard.check()
