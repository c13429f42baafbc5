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
# * reads the free heap (``gc.mem_free``: allocates nothing, but walks the
#   whole heap, 8.5 ms on the Pico) only where that costs a card nothing:
#   after each of the table's idle collections (``App.idle_work`` returned
#   "collect": timed as "gc_us", the free heap after it is the lowest-free
#   figure; one while a deal is dealt or played also counts as "deal_gc",
#   the longest "deal_gc_us", unless a finished trick was being cleared
#   then (no card is shown meanwhile: "clear_gc") or a menu was up (the
#   auction, a declaration: no card is awaited, "menu_gc"); "low_free_deal":
#   the deal of the lowest, 1 the first, 0 before the session), and every
#   LOOK_MS in an idle step while nothing waits
#   (``App.nothing_waits``).  Where the heap grew since the last read with no
#   idle collection between, MicroPython collected by itself -- an
#   allocation found the heap full ("auto_gc": how many, and the longest step
#   of the other jobs since the last read, which held it: "auto_gc_us").
#   The probe itself never collects: a collection it forced would hold the
#   loop 45 ms at moments the table did not choose.
#
# It writes one line ``@bench KEY VALUE`` on the USB serial port when a value
# is first known and whenever a worst case grows (rare after the first
# seconds; the line's few bytes are the probe's only allocation), so what was
# seen survives a power cut; and, at each new lowest free heap, MicroPython's
# one line about its qstr pool (``micropython.qstr_info()``: how many chunks,
# how many qstrs; the eighth chunk alone takes 15 KB).  The bench is also a
# console client: it asks ``status`` every few seconds (the first byte loads
# the console, table/console_door.py), as a watcher at the USB port would.
import gc
import sys
import time

import micropython

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

LOOK_MS = 5000                    # the free heap looked at no more often, while idle
_worst = [0] * len(_app.JOBS)     # the longest step of each job (us)
_low = [1 << 29]                  # the lowest free heap after an idle collection
_gc_worst = [0]                   # the longest idle collection (us)
_deal_gc = [0, 0, 0, 0]           # idle collections in a deal: count, the longest (us),
                                  # those while a finished trick was cleared, and
                                  # those while a menu was up (no card awaited)
_auto = [0, 0]                    # MicroPython's own collections: how many, the longest step
_span = [0]                       # the longest step of the other jobs since the heap was read
_names = ["step_us_" + job[0] for job in _app.JOBS]
_IDLE = [job[0] for job in _app.JOBS].index("idle")
_heap = [gc.mem_free(), time.ticks_ms()]   # the free heap when last read, and when


def _idle_collected(app, dt):
    """The idle job collected the garbage in a step of dt us."""
    if app.view.mode() in _app.DEAL_MODES and app.view.clearing():
        _deal_gc[2] += 1                        # a finished trick cleared: no card shown now
        _say("clear_gc", _deal_gc[2])
    elif app.view.mode() in _app.DEAL_MODES and app.view.menu_size():
        _deal_gc[3] += 1                        # a menu up (the auction): no card awaited
        _say("menu_gc", _deal_gc[3])
    elif app.view.mode() in _app.DEAL_MODES:    # a card could come meanwhile
        _deal_gc[0] += 1
        _say("deal_gc", _deal_gc[0])
        if dt > _deal_gc[1]:
            _deal_gc[1] = dt
            _say("deal_gc_us", dt)
    free = gc.mem_free()
    _heap[0] = free
    _heap[1] = time.ticks_ms()
    _span[0] = 0
    if dt > _gc_worst[0]:
        _gc_worst[0] = dt
        _say("gc_us", dt)
    if free < _low[0]:
        _low[0] = free
        _say("low_free", free)
        micropython.qstr_info()         # one line: the qstr pool's chunks and entries
        engine = app.view.engine()      # in which deal (0: before the session)
        _say("low_free_deal", engine.deals_played() + 1 if engine is not None else 0)


def _look(app):
    """Now and then, while nothing waits: did MicroPython collect by itself?"""
    now = time.ticks_ms()
    if time.ticks_diff(now, _heap[1]) < LOOK_MS or not app.nothing_waits():
        return
    free = gc.mem_free()
    if free > _heap[0] + 256:
        _auto[0] += 1
        _say("auto_gc", _auto[0])
        if _span[0] > _auto[1]:
            _auto[1] = _span[0]
            _say("auto_gc_us", _span[0])
    _heap[0] = free
    _heap[1] = time.ticks_ms()
    _span[0] = 0


def _timed(index, step):
    def timed(self):
        t0 = time.ticks_us()
        done = step(self)
        dt = time.ticks_diff(time.ticks_us(), t0)
        if index == _IDLE:
            if done == "collect":
                _idle_collected(self, dt)
            elif done is None:
                _look(self)
        elif dt > _span[0]:
            _span[0] = dt
        if dt > _worst[index]:
            _worst[index] = dt
            _say(_names[index], dt)
        return done
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
