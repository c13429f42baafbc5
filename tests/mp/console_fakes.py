"""The table around the serial console, faked for MicroPython's unix port.

The console (firmware/table/console*.py) runs unchanged on a real ``Game``, a
``MemoryJournal``, the presence arbiter and the registry; the readers are the
fake board's (host_sim/vm/fake_board.py), the screen and the board's clock
small fakes (the unix port has no ``machine``).  ``App`` has the doors the
console uses (``set_console``, ``input``, ``inputs_pending``, ``inject``,
``redraw``, ``view``) and the app's ``run`` loop for the console job alone.
Used by tests/test_console.py and tests/test_console_board.py; not a test
file itself.
"""
try:                     # inside MicroPython: host_sim/vm/ is on the path
    from fake_board import FakeReaders, Pad
except ImportError:  # CPython: the package's module
    from host_sim.vm.fake_board import FakeReaders, Pad

from table.game import Game
from table.journal import MemoryJournal
from table.modes import PlayMode
from table.presence import Presence
from table.reader_round import ReaderRound
from table.registry import Registry
from table.ring import Ring
from table.settings import Settings
from table.table_view import TableView

HEADER = {"record": 1, "variant": "tapp_modern", "players": 3, "first_dealer": 0,
          "mode": "open", "seats": ["A", "B", "C"], "options": {}}


class Signals:
    def led(self, seat, state):
        pass

    def tone(self, name):
        pass


class Screens:
    def text_rows(self):
        return ["row %d" % i for i in range(8)]

    def draw_rows(self, rows):
        pass


class SteppedBoard:
    """A clock that moves 20 ms per reading (a script steps the console itself)."""
    root = "/nonexistent"
    t = 0

    def ticks_ms(self):
        SteppedBoard.t += 20
        return SteppedBoard.t


class RealTimeBoard:
    """The port's own clock (the console runs in ``run_table``)."""
    root = None

    def ticks_ms(self):
        import time
        return time.ticks_ms()


class Journal(MemoryJournal):
    closed = False

    def close(self):
        Journal.closed = True


class App:
    """The app's console job on fakes of everything else."""

    def __init__(self, board):
        self.board = board
        self.readers = FakeReaders([Pad() for _ in range(4)])
        self.centre = 3
        self.presence = Presence(4)
        self.registry = Registry(None)
        self.deck_id = 1
        self.settings = Settings(None)      # in RAM only
        self.settings.set("referee_pin", "4711")
        self.screens = Screens()
        self.keys = Ring(8)
        self.round = ReaderRound(self.readers, self.presence, lambda: 0)
        self.enrolment = None
        self.journal = Journal(HEADER)
        game = Game(HEADER, self.journal, Signals(), 4, 3)
        self.game = game
        self.current = PlayMode(self, game)
        self.view = TableView(self)
        self.console = None
        self.heap_size = 0                  # no collection counted (App.heap_free: None)
        self.heap_kept = 0

    def set_console(self, console):
        self.console = console

    def input(self, ev):
        return self.keys.put(ev)

    def inputs_pending(self):
        return len(self.keys)

    def nothing_waits(self):
        return True             # (no game job here: the console's step always runs)

    def card_awaited(self):
        return False            # (no deal here: the console loads at once)

    def inject(self, reader, uid):
        self.round.inject(reader, uid)

    def redraw(self):
        pass

    def stop(self):
        self.journal.close()

    async def run(self):
        import asyncio
        while True:
            self.console.step()
            await asyncio.sleep_ms(20)
