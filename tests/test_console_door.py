"""The console's door (firmware/table/console_door.py): the console is loaded
in parts, each at a moment when nothing waits (a module's import holds the
loop 5 to 35 ms on the Pico) -- by the table's idle job: ahead of need while
no card is awaited, and whenever nothing waits once a client's byte came; or,
1 s after the first byte if they are not all loaded by then, a part a step of
the console job, where no card is awaited (3 s at most) -- and the console
then answers the line that woke it."""
from __future__ import annotations

import json
import os

from table import console_door

# console steps the door leaves the parts to the app's idle job after the first
# byte (1 s), before it loads them itself (table/console_door.py)
AHEAD = 50


class Stream:
    """A line the client wrote, readable as the USB serial port is."""

    def __init__(self):
        self.rfd, self.wfd = os.pipe()
        self.buffer = os.fdopen(self.rfd, "rb", buffering=0)

    def fileno(self):
        return self.rfd

    def send(self, data):
        os.write(self.wfd, data)


def make_app(idle=True, card=False):
    """The table around the console (tests/mp/console_fakes.py), idle or busy,
    a card awaited or not (a list: changed by the test)."""
    from tests.mp.console_fakes import App, SteppedBoard
    app = App(SteppedBoard())
    app.nothing_waits = lambda: idle[0] if isinstance(idle, list) else idle
    app.card_awaited = lambda: card[0] if isinstance(card, list) else card
    return app


def test_the_console_loads_in_parts_one_a_step_only_when_a_byte_waits(monkeypatch, capsys):
    stream = Stream()
    monkeypatch.setattr("sys.stdin", stream)
    app = make_app()
    door = console_door.open_door(app)
    for _ in range(20):
        door.step()                           # nobody talks: nothing is loaded
    assert door.loaded == 0 and app.console is door
    stream.send(b'{"id":7,"cmd":"ping"}\n')
    steps = 0
    while app.console is door:
        before = door.loaded
        door.step()
        steps += 1
        assert door.loaded - before <= 1      # at most one part a step
        assert door.loaded == 0 or steps >= AHEAD     # (the idle job's chance first)
        assert steps <= AHEAD - 1 + len(console_door.LOAD_PARTS) + 1
    assert steps == AHEAD - 1 + len(console_door.LOAD_PARTS) + 1
    assert door.loaded == len(console_door.LOAD_PARTS)
    assert capsys.readouterr().out == ""      # loaded, nothing said yet
    for _ in range(40):                       # the console answers the line that woke
        app.console.step()                    # it (a polled byte a step: the fake clock
                                              # moves 20 ms at each reading)
    lines = [json.loads(x) for x in capsys.readouterr().out.splitlines() if x]
    assert [x.get("id") for x in lines if "id" in x] == [7] and lines[-1]["ok"] is True


def test_a_part_waits_while_the_table_is_busy_but_not_forever(monkeypatch):
    stream = Stream()
    monkeypatch.setattr("sys.stdin", stream)
    idle = [False]                            # a card being settled: the load waits
    app = make_app(idle)
    door = console_door.open_door(app)
    stream.send(b"\n")
    for _ in range(AHEAD - 1 + 9):
        door.step()
    assert door.loaded == 0
    door.step()                               # the tenth step loads all the same
    assert door.loaded == 1
    for _ in range(9):
        door.step()
    assert door.loaded == 1                   # the next part waits for its own moment
    idle[0] = True
    door.step()
    assert door.loaded == 2


def test_a_part_waits_for_a_moment_no_card_is_awaited_three_seconds_in_all(monkeypatch):
    """A card laid while a module is imported would wait for the import: the
    parts wait for a finished trick's clearing, a menu, the end of the deal --
    3 s of console steps (20 ms each) in all, not each: a client waits 10 s."""
    stream = Stream()
    monkeypatch.setattr("sys.stdin", stream)
    app = make_app(True, True)                # a deal in play, a card may come at any time
    door = console_door.open_door(app)
    stream.send(b"\n")
    steps = 0
    while door.loaded == 0 and steps < 1000:
        door.step()
        steps += 1
    assert 2000 <= steps * 20 <= 3000, steps  # the patience: two to three seconds
    for n in range(2, len(console_door.LOAD_PARTS) + 1):
        door.step()                           # then spent: a part a step
        assert door.loaded == n


def test_the_parts_load_one_a_step_while_no_card_is_awaited(monkeypatch):
    stream = Stream()
    monkeypatch.setattr("sys.stdin", stream)
    card = [True]
    app = make_app(True, card)
    door = console_door.open_door(app)
    stream.send(b"\n")
    for _ in range(AHEAD + 30):
        door.step()
    assert door.loaded == 0                   # play: nothing loads yet
    card[0] = False
    for n in range(1, len(console_door.LOAD_PARTS) + 1):
        door.step()
        assert door.loaded == n


def test_the_idle_job_loads_the_console_ahead_of_need_while_no_card_is_awaited(monkeypatch,
                                                                              capsys):
    """The table's idle job (``App.idle_work``) loads the console's parts
    before a client's first byte -- one an idle step, only while no card is
    awaited -- and leaves the line alone: nothing is said, the door stays
    until the first byte, which the console then answers at once."""
    from host_sim.table import VirtualTable
    stream = Stream()
    monkeypatch.setattr("sys.stdin", stream)
    table = VirtualTable()
    door = console_door.open_door(table.app)
    awaited = [True]
    monkeypatch.setattr(table.app, "card_awaited", lambda: awaited[0])
    table.wait(2000)
    assert door.loaded == 0                   # a card may come any moment: nothing loaded
    awaited[0] = False
    done = []
    for _ in range(40):
        table.wait(50)
        done.append(door.loaded)
        if door.loaded == len(console_door.LOAD_PARTS):
            break
    assert done[-1] == len(console_door.LOAD_PARTS), done
    assert all(b - a <= 1 for a, b in zip(done, done[1:], strict=False))   # a part a step
    assert table.app.console is door and capsys.readouterr().out == ""
    stream.send(b'{"id":3,"cmd":"ping"}\n')
    table.wait(100)                           # the door hands over, the console answers
    lines = [json.loads(x) for x in capsys.readouterr().out.splitlines() if x]
    assert table.app.console is not door
    assert [x.get("id") for x in lines if "id" in x] == [3] and lines[-1]["ok"] is True


def test_a_clients_byte_has_the_idle_job_load_the_console_while_a_card_is_awaited(
        monkeypatch, capsys):
    """After a power-up mid-trick a card is awaited all along: once a client's
    byte waits, the idle job loads the parts whenever nothing waits (as it
    erases the journal's next sector), not the door's own step after 3 s
    (a module's import there held the loop 35 ms on the Pico); the console
    then answers the line."""
    from host_sim.table import VirtualTable
    stream = Stream()
    monkeypatch.setattr("sys.stdin", stream)
    table = VirtualTable()
    door = console_door.open_door(table.app)
    monkeypatch.setattr(table.app, "card_awaited", lambda: True)
    table.wait(2000)
    assert door.loaded == 0                   # no client: nothing loaded while a card may come
    stream.send(b'{"id":4,"cmd":"ping"}\n')
    table.wait(AHEAD * 20 // 2)               # half the door's own patience (AHEAD steps):
    assert door.loaded == len(console_door.LOAD_PARTS), door.loaded   # the idle job's work
    table.wait(200)
    lines = [json.loads(x) for x in capsys.readouterr().out.splitlines() if x]
    assert [x.get("id") for x in lines if "id" in x] == [4] and lines[-1]["ok"] is True
