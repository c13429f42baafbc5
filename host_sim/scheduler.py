"""Runs the application's jobs on the virtual clock, as asyncio would.

On the device each job is an asyncio task: ``step(); await sleep_ms(period)``.
Here the same steps run in the same order on the board's virtual clock: the
job due first runs, the bus time it spends (SPI transfers, field settle sleeps)
moves the clock, and it is due again ``period`` ms after it ended -- or as
long as the application's ``wait_after(name, period)`` says (the readers do
not wait while a sweep runs, the display 1 ms while rows are due:
table/app.py).  How long a
step held the loop is recorded per job (the hog figure of ``tapptable bench``).
"""


class Scheduler:
    def __init__(self, clock, jobs, wait_after=None):
        """``clock``: the board's clock (``now_us``, ``advance(us)``); ``jobs``:
        (name, step function, period ms); ``wait_after(name, period)``: the ms
        a job waits after a step (None: its period)."""
        self.clock = clock
        self.wait_after = wait_after
        self.jobs = list(jobs)
        self.due = [0.0] * len(self.jobs)
        self.hog_us = {name: 0.0 for name, _f, _p in self.jobs}
        self.steps = 0
        self._watchers = []

    def after_each_step(self, watcher):
        """Call ``watcher(name)`` after every step: a test that must see every
        state the table passes through (not only where ``run_for`` ends)."""
        self._watchers.append(watcher)

    def now_ms(self):
        return self.clock.now_us / 1000.0

    def run_until(self, t_ms):
        """Run every step due up to virtual time ``t_ms``; the clock ends there."""
        while True:
            i = min(range(len(self.jobs)), key=self.due.__getitem__)
            due = self.due[i]
            if due > t_ms:
                break
            if self.now_ms() < due:
                self.clock.advance((due - self.now_ms()) * 1000.0)
            name, step, period = self.jobs[i]
            t0 = self.clock.now_us
            step()
            spent = self.clock.now_us - t0
            if spent > self.hog_us[name]:
                self.hog_us[name] = spent
            if self.wait_after is not None:
                period = self.wait_after(name, period)
            self.due[i] = self.now_ms() + period
            self.steps += 1
            for watcher in self._watchers:
                watcher(name)
        if self.now_ms() < t_ms:
            self.clock.advance((t_ms - self.now_ms()) * 1000.0)

    def run_for(self, ms):
        self.run_until(self.now_ms() + ms)
