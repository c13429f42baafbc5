"""A virtual table playing by itself on wall time behind a TCP port, for the
watch tests (not a test file).

``LiveTable`` serves the unchanged console (``sim_serial.attach``) on
127.0.0.1 and lets ``AutoPlayers`` play deals in a thread of their own, the
virtual clock paced against wall time (``speed`` virtual ms per wall ms), so
a watcher meets it as it would meet a board.  ``screens`` records when the
view's rows changed (wall time, its rows; looked at after every job's step, so
no screen a console answer can carry is missed), ``power_cut()`` cuts the power mid-deal
(a new table on the same flash takes up the journal; the same link), and
``drop_client()`` pulls the cable.
"""
import threading
import time

from console_bench import pinned_table

from host_sim.table import AutoPlayers
from tools.tapptable import sim_serial

STEP_MS = 20
# One table's firmware runs at a time: it is written for one device, one thread
# (the readers' driver shares its bus buffers between the readers of a bus, at
# class level), and two tables' threads stepping at once garbled each other's
# SPI frames (a reader taken for dead: "Leser 3 aus").
_ONE_AT_A_TIME = threading.Lock()


class LiveTable:
    def __init__(self, speed=4.0, seed=3, **table_args):
        self.speed = speed
        self.table = pinned_table(**table_args)
        self.link = sim_serial.open_link("tcp:0")
        self.port = self.link.path
        sim_serial.attach(self.table, self.link)
        self.players = AutoPlayers(self.table, seed=seed)
        self.screens = []            # (wall time, rows) when the display changed
        self.lock = threading.Lock()
        self.stop = threading.Event()
        self.deals_done = 0
        self.deals_wanted = 0        # the thread plays while deals_done < deals_wanted
        self.cut_after = None        # power cut after this many more steps (a test sets it)
        self.cuts = 0
        self.error = None
        self._pace(self.table)
        self.thread = threading.Thread(target=self._run, name="live-table", daemon=True)
        self.thread.start()

    def _pace(self, table):
        run = table.scheduler.run_for

        def wait(ms=120):
            left = ms
            while left > 0:
                step = min(STEP_MS, left)
                t0 = time.monotonic()
                with _ONE_AT_A_TIME:
                    run(step)
                    self.link.pump()
                left -= step
                rest = step / 1000.0 / self.speed - (time.monotonic() - t0)
                if rest > 0:
                    time.sleep(rest)
        table.wait = wait
        table.scheduler.after_each_step(self._look)

    def _look(self, _job=None):
        rows = list(self.table.app.view.rows())
        if not self.screens or self.screens[-1][1] != rows:
            self.screens.append((time.time(), rows))

    def _step(self, _table):
        if self.cut_after is not None:
            self.cut_after -= 1
            if self.cut_after <= 0:
                self.cut_after = None
                raise _Cut()                   # out of play_deal, which holds the old table
        if self.stop.is_set():
            raise _Stopped()

    def power_cut(self):
        """Power off and on mid-deal: the journal is taken up, the link stays."""
        table = self.table.power_cut()
        self._pace(table)
        sim_serial.attach(table, self.link)
        self.table = table
        self.players.rejoin(table)
        self.cuts += 1

    def drop_client(self):
        """The cable pulled: the watcher's connection ends (it may connect again)."""
        self.link.lost()

    def _run(self):
        try:
            while not self.stop.is_set():
                if self.deals_done >= self.deals_wanted:
                    self.table.wait(STEP_MS)
                    continue
                try:
                    self.players.play_deal(on_step=self._step)
                except _Cut:
                    self.power_cut()
                    self.table.wait(800)       # the readers take their first look
                    continue                   # the same deal goes on
                self.table.wait(1500)          # the settlement stays on the display a while
                self.deals_done += 1
                self.players.next_deal()
        except _Stopped:
            pass
        except Exception as exc:               # the test says so
            self.error = exc
            raise

    def play_on(self, deals=1000):
        """Let the players play ``deals`` more deals without waiting for them."""
        self.deals_wanted = self.deals_done + deals

    def play(self, deals, limit_s=120):
        """Let the players play ``deals`` more deals (wait until they have)."""
        target = self.deals_wanted = self.deals_done + deals
        end = time.monotonic() + limit_s
        while self.deals_done < target:
            assert self.error is None, self.error
            assert time.monotonic() < end, "the deals took longer than %d s" % limit_s
            time.sleep(0.05)

    def close(self):
        self.stop.set()
        self.thread.join(10)
        self.link.close()


class _Stopped(Exception):
    pass


class _Cut(Exception):
    pass
