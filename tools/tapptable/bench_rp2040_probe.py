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
#   ``time.ticks_us`` (the emulated clock) and keep the longest per job;
# * reads the free heap after every long step (``gc.mem_free``: allocates
#   nothing, but walks the heap): where it grew, a collection ran in that
#   step -- the idle job's
#   own (``App.idle_work``: timed as "gc_us", and the free heap after it is
#   the lowest-free figure), or MicroPython's, started by an allocation
#   that found the heap full ("auto_gc": how many, the longest such step).
#   The probe itself never collects: a collection it forced would hold the
#   loop 45 ms at moments the table did not choose.
#
# It writes one line ``@bench KEY VALUE`` on the USB serial port when a value
# is first known and whenever a worst case grows (rare after the first
# seconds; the line's few bytes are the probe's only allocation), so what was
# seen survives a power cut.  The bench never sends a byte: a byte would load
# the console (table/console_door.py), and 0x03 does not stop the table.
import gc
import sys
import time

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

# gc.mem_free() walks the heap's whole allocation table (ms on the Pico): it is
# read only after a step this long -- a collection takes longer (9-55 ms), so a
# step with one in it is always among them
LONG_US = 5000
_worst = [0] * len(_app.JOBS)     # the longest step of each job (us)
_low = [1 << 29]                  # the lowest free heap after an idle collection
_gc_worst = [0]                   # the longest idle collection (us)
_auto = [0, 0]                    # MicroPython's own collections: how many, the longest step
_names = ["step_us_" + job[0] for job in _app.JOBS]
_IDLE = [job[0] for job in _app.JOBS].index("idle")


def _collected(index, dt, free):
    """A step in which the free heap grew: a collection ran in it."""
    if index == _IDLE:
        if dt > _gc_worst[0]:
            _gc_worst[0] = dt
            _say("gc_us", dt)
        if free < _low[0]:
            _low[0] = free
            _say("low_free", free)
    else:
        _auto[0] += 1
        _say("auto_gc", _auto[0])
        if dt > _auto[1]:
            _auto[1] = dt
            _say("auto_gc_us", dt)


_last_free = [gc.mem_free()]      # the free heap when last read


def _timed(index, step):
    def timed(self):
        t0 = time.ticks_us()
        step(self)
        dt = time.ticks_diff(time.ticks_us(), t0)
        if dt > LONG_US:              # (a collection takes longer: read the heap then)
            free = gc.mem_free()
            if free > _last_free[0] + 256:
                _collected(index, dt, free)
            _last_free[0] = free
        if dt > _worst[index]:
            _worst[index] = dt
            _say(_names[index], dt)
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
