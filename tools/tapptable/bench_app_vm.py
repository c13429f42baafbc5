"""The whole table application inside the MicroPython unix port: its heap budget.

``print_app_vm_bench(quick)`` (for ``tapptable bench``) runs one session of
the largest tables -- herzblatt with 5 players, and tapp_modern with 4 unless
``quick`` -- through host_sim/vm/app_heap.py (the session of
host_sim/vm/app_session.py, measured; tests/mp/mptest_app_heap.py checks the
same numbers): the unchanged application (firmware/table/app.py) on the fake
board (host_sim/vm/fake_board.py), booted as firmware/main.py
boots, setup by the buttons, a strict deal dealt card by card over the centre
reader, the auction by the buttons, every card laid on a seat reader, a power
cut mid-deal (the app is built again on the same littlefs flash), the result
and the next deal.  It prints

* the smallest ``-X heapsize`` (bisected by re-running the VM) in which that
  session runs, with the firmware
  - as source (.py compiled in the VM),
  - as .mpy files (mpy-cross) on the file system (the bytecode is loaded into RAM),
  - in a ROMFS image (``mpremote romfs --output romfs.img build firmware``,
    read into a buffer and mounted with ``vfs.VfsRom``: the bytecode stays in
    the image);
  and the app's budget: that heapsize minus what lies in the heap but is not
  the app -- the ROMFS buffer, the runner's own code (in a second ROMFS image,
  also a buffer), the emulated flash's bytes (the journal, decks and settings
  live on littlefs on a 64 KB bytearray);
  where the session fails just below that size (the MemoryError's innermost frame);
* from one run with room to spare: the app's live heap after boot and in
  steady play (mid-deal, after a collection), the imported modules' share,
  what one card play allocates through the whole app (mem_total() over the
  app's jobs, from the card laid down to the trick redrawn; by job; the
  journal line, the only allocation of a play; the deal's last play, which
  the engine settles, apart), and the heap_lock() results for the steady
  loop, the readers' poll path and the display path, with the redraw of an
  unchanged screen; the whole screen drawn again step by step (how many
  display steps, the longest) and the longest display step of the session.

Figures are for the 64-bit unix port: objects are about twice their size on
the RP2040; bytecode and string data are not.
"""
import shutil
import subprocess
import tempfile
import time
from pathlib import Path

from tools import mpvm

ROOT = mpvm.repo_root()
RUNNER_FILES = tuple("host_sim/vm/%s.py" % name for name in (
    "app_heap", "app_session", "fake_board", "nor_flash", "vm_deck"))
TABLES = (("herzblatt", 5), ("tapp_modern", 4))
GOAL_HEAP_KB = 256          # the whole app, 64-bit unix port
GOAL_LIVE_KB = 48           # live heap in steady play, firmware from ROMFS

# The VM's entry: mount the runner's image (and the firmware's, or a folder
# of .mpy files) before anything is imported, then run one session.
ENTRY = r"""
import os, sys, vfs
def _mount(path, where):
    n = os.stat(path)[6]
    b = bytearray(n)
    f = open(path, "rb")
    f.readinto(b)
    f.close()
    vfs.mount(vfs.VfsRom(b), where)
    sys.path.insert(0, where)
    return n
runner = _mount(sys.argv[1], "/runner")
rom = 0
if sys.argv[4] == "romfs":
    rom = _mount(sys.argv[5], "/rom")
elif sys.argv[4] == "mpy":
    sys.path.insert(0, sys.argv[5])
import app_heap as T
sys.exit(T.main(["session", sys.argv[2], sys.argv[3]] + sys.argv[6:], rom_bytes=rom,
                runner_bytes=runner))
"""

MODES = (("source", "firmware .py, compiled in the VM"),
         ("mpy", "firmware .mpy files on the file system"),
         ("romfs", "firmware in a ROMFS image (VfsRom)"))


def _mpremote():
    for d in (Path(mpvm.unix_binary()).parent,):
        p = d / "mpremote"
        if p.is_file():
            return str(p)
    found = shutil.which("mpremote")
    if not found:
        raise mpvm.MPVMError("mpremote not found (it comes with the dev extra): "
                             + mpvm.SETUP_HINT)
    return found


def build_romfs(src, out):
    """``mpremote romfs --output OUT build SRC`` (.py compiled to .mpy)."""
    r = subprocess.run([_mpremote(), "romfs", "--output", str(out), "build", str(src)],
                       capture_output=True, text=True, timeout=300)
    if r.returncode != 0 or not Path(out).is_file():
        raise mpvm.MPVMError("mpremote romfs build failed:\n" + r.stdout + r.stderr)
    return Path(out)


def build_mpy(out):
    """Every firmware module compiled with mpy-cross (bytecode only) under ``out``."""
    cross = str(mpvm.mpy_cross_binary())
    fw = ROOT / "firmware"
    for src in mpvm.bytecode_sources(fw):
        dst = Path(out) / src.relative_to(fw).with_suffix(".mpy")
        dst.parent.mkdir(parents=True, exist_ok=True)
        r = subprocess.run([cross, "-o", str(dst), str(src)], capture_output=True, text=True)
        if r.returncode != 0:
            raise mpvm.MPVMError("mpy-cross %s: %s" % (src, r.stderr))
    return Path(out)


class Images:
    """The runner's ROMFS image, the firmware's, and the .mpy folder (temporary)."""

    def __init__(self):
        self.tmp = tempfile.mkdtemp(prefix="tapp-appvm-")
        src = Path(self.tmp) / "runner"
        src.mkdir()
        for name in RUNNER_FILES:
            shutil.copy(ROOT / name, src / Path(name).name)
        self.runner = build_romfs(src, Path(self.tmp) / "runner.img")
        fw = Path(self.tmp) / "firmware"       # its bytecode modules: the VM's port
        for path in mpvm.bytecode_sources(ROOT / "firmware"):
            dst = fw / path.relative_to(ROOT / "firmware")
            dst.parent.mkdir(parents=True, exist_ok=True)
            shutil.copy(path, dst)
        self.romfs = build_romfs(fw, Path(self.tmp) / "romfs.img")
        self.mpy = build_mpy(Path(self.tmp) / "mpy")

    def target(self, mode):
        return {"source": "-", "mpy": str(self.mpy), "romfs": str(self.romfs)}[mode]

    def close(self):
        shutil.rmtree(self.tmp, ignore_errors=True)


def run_session(images, variant, players, mode, heap_kb, extra=(), timeout=300):
    """One session in the VM: (ok, {key: value}, the VM's output).  ``extra``:
    ("cut=PATH",) or ("resume=PATH",) (see host_sim/vm/app_heap.py main)."""
    r = mpvm.run_unix(ENTRY, [str(images.runner), variant, str(players), mode,
                              images.target(mode)] + list(extra),
                      heapsize="%dk" % heap_kb, timeout=timeout, tests=False)
    numbers = {}
    for line in r.stdout.splitlines():
        key, _, value = line.partition(" ")
        if key and value:
            numbers[key] = value
    ok = r.returncode == 0 and r.stdout.rstrip().endswith("session ok")
    return ok, numbers, r.stdout + r.stderr


def failure_site(output):
    """The MemoryError (or other error) and its innermost frame, in one line."""
    lines = [ln.strip() for ln in output.splitlines()]
    frames = [ln for ln in lines if ln.startswith("File ")]
    errors = [ln for ln in lines if "Error" in ln and not ln.startswith("File ")]
    where = frames[-1] if frames else "?"
    return "%s -- %s" % (errors[-1] if errors else "no error line", where)


def smallest_heap(run, lo=64, hi=1536, step=4):
    """The smallest heap (KB, to ``step``) ``run(kb)`` -> (ok, numbers, output)
    passes in: bisected, then confirmed at the next two steps (near the edge
    pass/fail is not monotonic: a big buffer may find no room in a fragmented
    heap).  Returns (KB or None, the numbers of that run, the failure below)."""
    ok, numbers, out = run(hi)
    if not ok:
        return None, {}, failure_site(out)
    best = numbers
    fail = "-"
    while True:
        while hi - lo > step:
            mid = (lo + hi) // 2 // step * step
            if mid <= lo:
                break
            ok, numbers, out = run(mid)
            if ok:
                hi = mid
                best = numbers
            else:
                lo = mid
                fail = "at %d KB: %s" % (mid, failure_site(out))
        bad = None
        for kb in (hi + step, hi + 2 * step):
            ok, _numbers, out = run(kb)
            if not ok:
                bad = kb
                fail = "at %d KB: %s" % (kb, failure_site(out))
                break
        if bad is None:
            return hi, best, fail
        lo = bad                              # fails above the edge found: search above it
        hi = bad + 8 * step
        ok, numbers, out = run(hi)
        while not ok:
            lo = hi
            hi += 8 * step
            ok, numbers, out = run(hi)
        best = numbers


def _int(numbers, key, default=0):
    try:
        return int(numbers.get(key, default))
    except ValueError:
        return default


def _kb(n):
    return "%.1f" % (n / 1024.0)


STAGES = (("whole", "the session, the power cut inside the VM"),
          ("until", "boot .. the power cut (flash saved)"),
          ("from", "power-up from that flash .. next deal"))


def print_app_vm_bench(quick=False):
    print("The whole table application in the MicroPython unix port (64-bit), one session:")
    print("boot as main.py, setup by buttons, a strict deal over the centre reader, auction,")
    print("every card on a seat reader, a power cut mid-deal, result, next deal")
    print("(host_sim/vm/app_heap.py; fakes for the readers, I2C, pins, NeoPixel, PWM;")
    print("the real SSD1306, ButtonPad, SeatLeds and Buzzer drivers; littlefs on emulated flash)")
    try:
        images = Images()
    except mpvm.MPVMError as e:
        print("  not run: %s" % e)
        return
    try:
        _budget(images, quick)
    finally:
        images.close()


def _budget(images, quick):
    tables = TABLES[:1] if quick else TABLES
    step = 8 if quick else 4
    cut = str(Path(images.tmp) / "cut")
    print()
    print("Smallest -X heapsize (KB, bisected to %d KB) a session runs in.  A power cut"
          % step + " inside")
    print("the VM keeps the old app's garbage and fragments around the new one; on the device")
    print("the power-up starts from an empty heap: so also the session in two VMs, cut at the")
    print("power cut (the flash image and the cards on the readers handed over).  The device's")
    print("need is the larger of those two; the app's budget is that minus the buffers in the")
    print("heap that are not the app: the firmware's ROMFS image, the runner's own ROMFS image")
    print("and the emulated flash (64 KB)")
    print("  %-14s %-40s %6s %6s %6s %7s %7s %6s %6s %8s" % (
        "table", "firmware", "whole", "until", "from", "device", "ROMFS", "runner", "flash",
        "app KB"))
    details = {}
    failures = []
    for variant, players in tables:
        name = "%s %d" % (variant, players)
        for mode, label in MODES:
            t0 = time.perf_counter()
            ok, _n, out = run_session(images, variant, players, mode, 2048, ("cut=" + cut,))
            if not ok:
                print("  %-14s %-40s the run to the power cut failed: %s" % (
                    name, label, failure_site(out)))
                continue
            got = {}
            for stage, extra in (("whole", ()), ("until", ("cut=" + cut + "x",)),
                                 ("from", ("resume=" + cut,))):
                got[stage] = smallest_heap(
                    lambda kb, e=extra, v=variant, p=players, m=mode:
                    run_session(images, v, p, m, kb, e),
                    step=step)
                failures.append((name, label, stage, got[stage][2]))
            if any(got[st][0] is None for st in got):
                print("  %-14s %-40s fails even at 1536 KB" % (name, label))
                continue
            device = max(got["until"][0], got["from"][0])
            numbers = got["whole"][1]
            rom = _int(numbers, "rom_bytes")
            runner = _int(numbers, "runner_bytes")
            flash = _int(numbers, "flash_bytes")
            app = device * 1024 - rom - runner - flash
            print("  %-14s %-40s %6d %6d %6d %7d %7s %6s %6s %8s   (%.0f s)" % (
                name, label, got["whole"][0], got["until"][0], got["from"][0], device,
                _kb(rom), _kb(runner), _kb(flash), _kb(app), time.perf_counter() - t0))
            details[(variant, players, mode)] = numbers
    print("  goal: the whole app under %d KB of heap on the 64-bit port" % GOAL_HEAP_KB)
    print()
    print("Where each run fails just below its smallest heap (the MemoryError, innermost frame):")
    for name, label, stage, fail in failures:
        print("  %-14s %-40s %-6s %s" % (name, label, stage, fail))

    for variant, players in tables:
        print()
        print("%s with %d players, one run with room to spare (-X heapsize=2048k):" % (
            variant, players))
        for mode in ("source", "romfs"):
            ok, numbers, out = run_session(images, variant, players, mode, 2048)
            if not ok:
                print("  %s: failed: %s" % (mode, failure_site(out)))
                continue
            _print_details(mode, numbers)


def _print_details(mode, n):
    label = dict(MODES)[mode]
    print("  %s:" % label)
    print("    live heap (after a collection; without the runner, its shadow session and")
    print("    the buffers; with the mounted littlefs): boot %s KB, steady play %s KB,"
          % (_kb(_int(n, "boot_live")), _kb(_int(n, "steady_live"))))
    print("    after the deal %s KB; of it the firmware's imported modules %s KB and the"
          % (_kb(_int(n, "end_live")), _kb(_int(n, "import_bytes"))))
    print("    mounted littlefs %s KB (the runner's shadow Session, left out: %s KB)"
          % (_kb(_int(n, "fs_live")), _kb(_int(n, "shadow_live"))))
    if mode == "romfs":
        print("    goal: under %d KB live in steady play from ROMFS: %s" % (
            GOAL_LIVE_KB, "met" if _int(n, "steady_live") < GOAL_LIVE_KB * 1024 else
            "NOT met (%s KB)" % _kb(_int(n, "steady_live"))))
    if "play_alloc_avg" in n:
        print("    a card play through the whole app (what its jobs allocate, from the card")
        print("    laid down to the trick redrawn) %s bytes (min %s, max %s); besides the"
              % (n["play_alloc_avg"], n.get("play_alloc_min"), n.get("play_alloc_max")))
        print("    journal line at most %s bytes:" % n.get("play_extra_max"))
        jobs = sorted(k for k in n if k.startswith("play_alloc_job_"))
        print("      by job: " + ", ".join("%s %s" % (k[len("play_alloc_job_"):], n[k])
                                          for k in jobs))
        print("      the journal line (journal.append, the emulated flash's own bytes left"
              " out): %s" % n.get("journal_append_avg"))
        print("      the deal's last play (the engine settles the deal; the result screen):"
              " %s" % n.get("play_alloc_deal_end"))
        print("      a redraw of an unchanged screen: %s bytes (Screens.compose: %s)"
              % (n.get("redraw_unchanged_bytes"), n.get("compose_bytes")))
    if "redraw_steps" in n:
        print("    the whole screen drawn again by the display job (App.redraw), step by step:")
        print("      %s steps, the longest %s us, %s us in all; the longest display step"
              % (n["redraw_steps"], n.get("redraw_step_max_us"), n.get("redraw_total_us")))
        print("      of the session %s us (a page imported when first shown, a collection)"
              % n.get("display_step_max_us"))
    print("    heap_lock() in steady play (mem_total() delta, first allocation):")
    for key, what in (("lock_steady_loop", "every job, 200 steps (1 s)"),
                      ("lock_poll_path", "the readers' job, 200 polls (poll, feed, arm)"),
                      ("lock_display_job", "the display job, nothing changed, 50 steps"),
                      ("lock_draw_same_rows", "Screens.draw_rows of the rows shown + show()"),
                      ("lock_redraw_unchanged", "Screens.draw of an unchanged screen")):
        print("      %-48s %s" % (what, n.get(key, "?")))
