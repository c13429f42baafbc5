# The bench's probe inside the emulated Pico (MicroPython code, not firmware).
#
# ``tapptable bench`` (tools/tapptable/bench_rp2040.py) puts this file on the
# emulated Pico's filesystem as ``tapptable_probe.py`` and a ``boot.py`` that
# imports it (the rp2 port runs boot.py before main.py); the firmware itself
# is unchanged.  The probe
#
# * measures the free heap at boot (after a collection; littlefs mounted,
#   nothing of the table imported) and after importing the modules main.py
#   imports at boot (they stay imported: main() finds them there);
# * wraps each of the app's jobs (table/app.py JOBS) to time every step with
#   ``time.ticks_us`` (the emulated clock) and keep the longest per job, and
#   every SAMPLE_MS collects the garbage and keeps the lowest free heap seen
#   (the collection's own time is reported apart, not charged to a job).
#
# It writes one line ``@bench KEY VALUE`` on the USB serial port when a value
# is first known and whenever a worst case grows (rare after the first
# seconds; the line's few bytes are the probe's only allocation), so what was
# seen survives a power cut.  The bench never sends a byte: a byte would load
# the console (table/console_door.py), and 0x03 does not stop the table.
import gc
import sys
import time

SAMPLE_MS = 250         # set by the bench: how often the free heap is sampled
IMPORTS = ("table.power_up", "table.app", "table.journal", "table.registry",  # main.py's
           "table.settings", "boards.pico", "table.console_door")


def _say(key, value):
    sys.stdout.write("@bench %s %d\n" % (key, value))


gc.collect()
_say("boot_free", gc.mem_free())
for _name in IMPORTS:
    __import__(_name)
gc.collect()
_say("import_free", gc.mem_free())
_say("modules", len(sys.modules))

from table import app as _app  # noqa: E402  (imported above: no new module)

_worst = [0] * len(_app.JOBS)     # the longest step of each job (us)
_low = [1 << 29]                  # the lowest free heap after a collection
_gc_worst = [0]                   # the longest of those collections (us)
_names = ["step_us_" + job[0] for job in _app.JOBS]
_next_sample = [time.ticks_ms()]


def _sample():
    t0 = time.ticks_us()
    gc.collect()
    free = gc.mem_free()
    dt = time.ticks_diff(time.ticks_us(), t0)
    if dt > _gc_worst[0]:
        _gc_worst[0] = dt
        _say("gc_us", dt)
    if free < _low[0]:
        _low[0] = free
        _say("low_free", free)


def _timed(index, step):
    def timed(self):
        t0 = time.ticks_us()
        step(self)
        dt = time.ticks_diff(time.ticks_us(), t0)
        if dt > _worst[index]:
            _worst[index] = dt
            _say(_names[index], dt)
        if time.ticks_diff(time.ticks_ms(), _next_sample[0]) >= 0:
            _next_sample[0] = time.ticks_add(time.ticks_ms(), SAMPLE_MS)
            _sample()
    return timed


for _i, (_job, _method, _period) in enumerate(_app.JOBS):
    setattr(_app.App, _method, _timed(_i, getattr(_app.App, _method)))

_run = _app.App.run


def _started(self):
    gc.collect()
    _say("start_free", gc.mem_free())
    _say("start_modules", len(sys.modules))
    return _run(self)


_app.App.run = _started
del _i, _job, _method, _period, _name
gc.collect()
_say("probe_free", gc.mem_free())      # the probe's own objects: import_free - this
