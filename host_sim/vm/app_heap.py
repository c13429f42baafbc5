"""The heap of the whole table application inside MicroPython: one session
at the table of fakes (app_session.py), measured.

``run_session`` reports (``report(key, value)``): the app's live heap after
boot, in steady play and after the deal (after a collection; without this
runner, its shadow session and the buffers); what the imported modules take;
mem_total() per card play through the whole app, by job (nothing allocates:
not the journal, which formats the line into its page buffer and programs it
on the journal's own flash area, not the game, not the redraw of the screen,
not the polls; the play that ends a deal, settled by the engine, is counted
apart); heap_lock() with mem_total() over the steady loop (every job, a
second, the trick's cards lying on their readers, nothing happening), the
readers' poll path and the display path, and the redraw of an unchanged
screen (composed again, compared, nothing drawn); the whole screen drawn
again step by step.  tests/mp/mptest_app_heap.py checks those numbers.

Script mode, for tools/tapptable/bench_app_vm.py (which bisects -X heapsize):
  micropython app_heap.py session VARIANT PLAYERS [ROMFS_IMAGE]
                                 [cut=PATH | resume=PATH]
runs one session (the firmware imported from the ROMFS image when given:
the image is read into a buffer in the heap and mounted with vfs.VfsRom)
and prints ``key value`` lines; "session ok" last.  cut=PATH stops at the
power cut and saves the flash and the table's state; resume=PATH powers up
from them in a fresh VM (a fresh heap, as on the device) and plays on.
"""
import gc
import sys

try:
    import micropython
except ImportError:  # CPython
    micropython = None

try:
    import vfs
except ImportError:  # CPython
    vfs = None

try:                     # inside MicroPython: host_sim/vm/ is on the path
    from app_session import STEP_MS, Flash, PowerCut, Script
except ImportError:  # CPython: the package's module
    from host_sim.vm.app_session import STEP_MS, Flash, PowerCut, Script

ROM = "/rom"
CUT_AT_PLAY = [7]             # the power cut after this many plays (-1: none)


def mem_total():
    f = getattr(micropython, "mem_total", None) if micropython is not None else None
    return f() if f is not None else -1


def live():
    """Bytes of live heap after a collection; -1 where that cannot be measured
    (CPython; the wasm port, whose collector does not run inside a script, and
    which has no mem_total())."""
    if mem_total() < 0:
        return -1
    gc.collect()
    return gc.mem_alloc()


def mount_rom(path):
    """Read a ROMFS image into a buffer (in the heap: its size is returned) and
    import the firmware from it."""
    import os
    size = os.stat(path)[6]
    buf = bytearray(size)
    f = open(path, "rb")
    try:
        f.readinto(buf)
    finally:
        f.close()
    vfs.mount(vfs.VfsRom(buf), ROM)
    sys.path.insert(0, ROM)
    return size


# ---------------------------------------------------------------- measuring helpers


def _where(exc):
    """The innermost ``File ..., line ..., in ...`` of an exception's traceback."""
    import io
    s = io.StringIO()
    if hasattr(sys, "print_exception"):
        sys.print_exception(exc, s)
    else:  # CPython
        import traceback
        traceback.print_exception(type(exc), exc, exc.__traceback__, file=s)
    lines = [ln.strip() for ln in s.getvalue().split("\n") if ln.strip().startswith("File")]
    return lines[-1] if lines else repr(exc)


def locked(fn):
    """Run the zero-argument ``fn`` with the heap locked: (mem_total delta,
    None) or (delta, where the first allocation was)."""
    before = mem_total()
    where = None
    if micropython is not None:
        micropython.heap_lock()
    try:
        fn()
    except MemoryError as e:
        where = e
    finally:
        if micropython is not None:
            micropython.heap_unlock()
    after = mem_total()
    if where is not None:
        where = _where(where)
    return (after - before if before >= 0 else -1), where


class PlayMeter:
    """mem_total() per card play through the whole app (from the card laid on
    the reader to the trick redrawn): what the app's jobs allocate, by job
    (the runner's own allocations -- the script's waiting, the fake reader --
    left out); the journal's append measured on its own.  The play that ends
    a deal (the engine settles it, the result screen) is counted apart."""

    def __init__(self, flash):
        self.flash = flash           # its emulation's own allocations are left out
        self.plays = []              # per play in a deal: the jobs' bytes
        self.by_job = {}             # the same, summed by job
        self.journal = []            # per play in a deal: bytes of journal.append
        self.extra = []              # per play in a deal: the jobs' bytes besides the line
        self.ends = []               # per play that ended its deal: the jobs' bytes
        self._wrapped = -1
        self.now_bytes = 0           # this play: the jobs' bytes so far
        self.line_bytes = 0          # this play: journal.append's bytes
        self.job_bytes = {}
        self.active = False          # between a card laid down and the trick redrawn

    def mem(self):
        """mem_total() without what the emulated flash allocated for itself."""
        return mem_total() - self.flash.own()

    def _wrap(self, dev):
        meter = self

        def wrap(name, fn):
            def measured():
                if not meter.active:
                    fn()
                    return
                b = meter.mem()
                fn()
                d = meter.mem() - b
                meter.now_bytes += d
                meter.job_bytes[name] = meter.job_bytes.get(name, 0) + d
            return measured
        dev.jobs = [(wrap(dev.names[k], dev.plain_jobs[k][0]), dev.plain_jobs[k][1])
                    for k in range(len(dev.plain_jobs))]
        journal = dev.app.journal        # the writer itself: its lines are measured
        plain = journal.append

        def append(ev):
            if not meter.active:
                plain(ev)
                return
            b = meter.mem()
            plain(ev)
            meter.line_bytes += meter.mem() - b
        journal.append = append
        self._wrapped = dev.boot          # (not the device: the old one must go at a cut)

    def before(self, dev):
        if self._wrapped != dev.boot:     # a new board after a power cut
            self._wrap(dev)
        self.now_bytes = 0
        self.line_bytes = 0
        for name in self.job_bytes:
            self.job_bytes[name] = 0
        self.active = True

    def after(self, dev):
        self.active = False
        if not dev.app.view.engine().in_deal():    # the deal's last play: settled
            self.ends.append(self.now_bytes)
            return
        self.plays.append(self.now_bytes)
        self.journal.append(self.line_bytes)
        self.extra.append(self.now_bytes - self.line_bytes)
        for name in self.job_bytes:
            self.by_job[name] = self.by_job.get(name, 0) + self.job_bytes[name]


# ---------------------------------------------------------------- steady play


def steady_checks(script, report):
    """Mid-deal, the cards of the trick lying on their readers, nothing
    happening: heap_lock() over the whole loop, the poll path and the display
    path; a redraw of the unchanged screen measured (it composes the rows)."""
    dev = script.dev
    app = dev.app
    table = app.view
    clock = script.clock
    dev.run(300)
    gc.collect()
    k = [0]
    step = dev.step_plain

    def loop():
        while k[0] < 200:                 # a second of the device's loop, every job
            step()
            k[0] += 1

    delta, where = locked(loop)
    report("lock_steady_loop", "%d bytes %s" % (delta, where or "ok"))
    poll = dev.by_name["readers"]
    k[0] = 0

    def polls():
        while k[0] < 200:                 # ReaderSet.poll, presence.feed, arm the next
            poll()
            clock.now += STEP_MS
            k[0] += 1

    delta, where = locked(polls)
    report("lock_poll_path", "%d bytes %s" % (delta, where or "ok"))
    refresh = dev.by_name["display"]
    display = dev.board.display
    k[0] = 0

    def unchanged():
        while k[0] < 50:                  # the display job: nothing dirty, show() only
            refresh()
            k[0] += 1

    delta, where = locked(unchanged)
    report("lock_display_job", "%d bytes %s" % (delta, where or "ok"))
    rows = app.screens.rows()             # what the screen shows, as (text, inverted)
    draw_rows = app.screens.draw_rows

    def same_rows():
        draw_rows(rows)                   # the rows as shown: nothing is drawn
        display.show()

    delta, where = locked(same_rows)
    report("lock_draw_same_rows", "%d bytes %s" % (delta, where or "ok"))
    draw = app.screens.draw

    def redraw():
        draw(table)                       # compose() again, then draw_rows + show
        display.show()

    redraw()
    b = mem_total()
    redraw()
    plain_bytes = mem_total() - b if b >= 0 else -1
    delta, where = locked(redraw)
    report("redraw_unchanged_bytes", plain_bytes)
    redraw_timed(dev, report)
    report("lock_redraw_unchanged", "%s" % (where or "ok"))
    compose = app.screens.compose
    b = mem_total()
    compose(table)
    report("compose_bytes", mem_total() - b if b >= 0 else -1)


def redraw_timed(dev, report):
    """The whole screen drawn again (App.redraw: every row blank, then the
    mode draws) by the display job, step by step: how many steps until the
    screen is whole again, the longest step and their sum (µs, this VM)."""
    rows = dev.app.screens.text_rows()
    dev.app.redraw()
    dev.window_open()
    k = 0
    while k < 40 and (dev.app.screens.text_rows() != rows or not dev.window[0]):
        dev.step()
        k += 1
    report("redraw_steps", dev.window[0])
    report("redraw_total_us", dev.window[1])
    report("redraw_step_max_us", dev.window[2])


# ---------------------------------------------------------------- the session, measured


def run_session(variant, players, report, check_at=12, cut_file=None, resume_file=None):
    """One session; ``report(key, value)`` gets the numbers.  The ``*_live``
    figures are the app's live heap after a collection: without this runner
    (its code, the script, the shadow session), the ROMFS buffer and the
    emulated flash's bytes; with the mounted littlefs (as on the device)."""
    state = None
    if resume_file is not None:
        import json
        f = open(resume_file + ".json")
        try:
            state = json.loads(f.read())
        finally:
            f.close()
    base = live()                            # the runner (and a ROMFS buffer) before the app
    flash = Flash(None if resume_file is None else resume_file + ".flash")
    report("flash_bytes", flash.bytes)
    report("fs_live", live() - base - flash.bytes)
    t_import = live()
    import table.screens  # noqa: F401  (first: the heap note at the top; its pages
    # are imported when first shown, in the session)
    # isort: split
    import table.power_up  # noqa: F401  (the App, the journal, registry and settings)
    report("import_bytes", live() - t_import)
    script = Script(variant, players, flash=flash, state=state)
    script.cut_file = cut_file
    report("boot_live", live() - base - flash.bytes)
    meter = PlayMeter(flash) if mem_total() >= 0 else None
    done = []

    def hook(s, phase):
        if meter is not None:
            if phase == 0:
                meter.before(s.dev)
            else:
                meter.after(s.dev)
        if phase == 1 and s.plays + 1 == check_at and not done:   # mid-deal
            done.append(1)
            with_shadow = live()
            s.shadow = None               # (the script's shadow session is not the app's:
            s.synced = 0                  # it is built again from the journal after this)
            report("steady_live", live() - base - flash.bytes)
            report("shadow_live", with_shadow - live())
            steady_checks(s, report)

    script.play_hook = hook
    try:
        if state is None:
            result = script.session(cut_at_play=CUT_AT_PLAY[0])
        else:
            result = script.play_on()
    except PowerCut:
        report("plays", script.plays)
        report("power_cut_saved", cut_file)
        return script
    report("plays", script.plays)
    report("power_cuts", script.power_cuts)
    script.shadow = None
    script.synced = 0
    report("end_live", live() - base - flash.bytes)
    report("journal_lines", len(script.dev.app.view.journal()))
    if meter is not None and meter.plays:
        report("play_alloc_min", min(meter.plays))
        report("play_alloc_max", max(meter.plays))
        report("play_alloc_avg", sum(meter.plays) // len(meter.plays))
        report("play_extra_max", max(meter.extra))     # besides the journal line
        report("journal_append_avg", sum(meter.journal) // len(meter.journal))
        for name in sorted(meter.by_job):
            report("play_alloc_job_" + name, meter.by_job[name] // len(meter.plays))
        if meter.ends:
            report("play_alloc_deal_end", sum(meter.ends) // len(meter.ends))
    report("i2c_bytes", script.dev.i2c.bytes)
    report("display_step_max_us", script.dev.display_max_us)
    report("contract", result["contract"])
    return script


def main(argv, rom_bytes=0, runner_bytes=0):
    """``session VARIANT PLAYERS [ROMFS_IMAGE] [cut=PATH | resume=PATH]``: one
    session, ``key value`` lines, "session ok" last.  cut=PATH: the session
    until the power cut, which saves the flash and the table's state to
    PATH.flash and PATH.json; resume=PATH: powered up from there, in this
    fresh VM, played on to the next deal.  (tools/tapptable/bench_app_vm.py
    mounts the images itself and passes their sizes.)"""
    if len(argv) < 3 or argv[0] != "session":
        print("usage: mptest_app_heap.py session VARIANT PLAYERS [ROMFS_IMAGE] "
              "[cut=PATH | resume=PATH]")
        return 2
    cut_file = resume_file = None
    for arg in argv[3:]:
        if arg.startswith("cut="):
            cut_file = arg[4:]
        elif arg.startswith("resume="):
            resume_file = arg[7:]
        elif arg:
            rom_bytes = mount_rom(arg)

    def report(key, value):
        print("%s %s" % (key, value))

    report("runner_bytes", runner_bytes)
    report("rom_bytes", rom_bytes)
    report("runner_from", __file__)
    script = run_session(argv[1], int(argv[2]), report, cut_file=cut_file,
                         resume_file=resume_file)
    import table.app as A
    report("app_from", A.__file__)
    script.dev = None
    script.flash.close()
    print("session ok")
    return 0




if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
