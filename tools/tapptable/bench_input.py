"""Memory bounds of record input (for ``tapptable bench``): numbers, never a verdict.

``print_input_bench(quick)`` prints

* CPython: the tracemalloc peak and the process's peak RSS while replaying a
  record that holds one huge line, read by the bounded ``LineReader`` (what
  ``tapptable replay`` does) and, for comparison, by a text ``readline`` (how
  records were read before: the whole line is built);
* the MicroPython unix port: the smallest ``-X heapsize`` that replays a golden
  record, alone and with a 5000-deep line, a 200 KB line or a line at the
  value limit added: bounded input means the four numbers stay close;
* the host process's peak RSS for ``replay --runtime micropython`` of a long
  record (the outcome lines stream through it).
"""
import os
import subprocess
import sys
import tempfile
import time

from tools import mpvm
from tools.tapptable.mpreplay import VM_SCRIPT

ROOT = mpvm.repo_root()
GOLDEN = ROOT / "tests" / "golden" / "wuerttemberg_3_strict_pot.jsonl"

_PEAK_SCRIPT = r"""
import io, resource, sys, time, tracemalloc
sys.path.insert(0, sys.argv[3])
from tapp.record import LineReader
from tapp.replay import replay_stream
path, how = sys.argv[1], sys.argv[2]
out = io.StringIO()
tracemalloc.start()
t0 = time.perf_counter()
if how == "bounded":
    with open(path, "rb") as f:
        replay_stream(LineReader(f, chunk=1 << 16), out.write)
else:
    with open(path, encoding="utf-8") as f:
        replay_stream(f.readline, out.write)
dt = time.perf_counter() - t0
peak = tracemalloc.get_traced_memory()[1]
tracemalloc.stop()
print(peak, resource.getrusage(resource.RUSAGE_SELF).ru_maxrss, int(dt * 1000),
      out.getvalue().count("\n"))
"""

_HOST_RSS_SCRIPT = r"""
import io, resource, sys
from tools.tapptable.mpreplay import replay_in_micropython
n = [0]
def write(line):
    n[0] += 1
rc = replay_in_micropython(sys.argv[1], write)
print(rc, n[0], resource.getrusage(resource.RUSAGE_SELF).ru_maxrss)
"""


def _huge_line_record(path, megabytes):
    head = GOLDEN.read_bytes().split(b"\n")
    with open(path, "wb") as f:
        f.write(head[0] + b"\n" + head[1] + b"\n")
        f.write(b'{"ev":"undo","note":"')
        block = b"a" * (1 << 20)
        for _ in range(megabytes):
            f.write(block)
        f.write(b'"}\n' + head[2] + b"\n")


def _cpython_peak(path, how):
    proc = subprocess.run([sys.executable, "-c", _PEAK_SCRIPT, path, how,
                           str(ROOT / "firmware")], capture_output=True, text=True)
    if proc.returncode != 0:
        return None
    peak, rss_kb, ms, lines = (int(x) for x in proc.stdout.split())
    return peak, rss_kb, ms, lines


def _fits(path, heap_kb):
    try:
        r = mpvm.run_unix(VM_SCRIPT, [path], heapsize="%dk" % heap_kb, timeout=120,
                          tests=False)
    except mpvm.MPVMError:
        return False
    return r.returncode == 0 and "!!!" not in r.stdout


def _smallest_heap(path, lo=96, hi=1024, step=8):
    """Smallest heap (KB, to ``step``) the unix port replays ``path`` in, or None."""
    if not _fits(path, hi):
        return None
    while hi - lo > step:
        mid = (lo + hi) // 2 // step * step
        if mid <= lo:
            break
        if _fits(path, mid):
            hi = mid
        else:
            lo = mid
    return hi


def print_input_bench(quick=False):
    """Print the input memory numbers (see the module text)."""
    megabytes = 5 if quick else 50
    print("Hostile record input: memory per line (MAX_LINE 4096 B, depth 8, 256 values)")
    with tempfile.TemporaryDirectory() as tmp:
        huge = os.path.join(tmp, "huge.jsonl")
        _huge_line_record(huge, megabytes)
        print("CPython, a record with one %d MB line:" % megabytes)
        print("  %-34s %14s %14s %8s" % ("reader", "tracemalloc pk", "peak RSS", "ms"))
        for how, label in (("bounded", "LineReader (tapptable replay)"),
                           ("text", "text readline (before)")):
            got = _cpython_peak(huge, how)
            if got is None:
                print("  %-34s failed" % label)
                continue
            peak, rss_kb, ms, _ = got
            print("  %-34s %11.1f MB %11.1f MB %8d" % (label, peak / 1e6, rss_kb / 1024, ms))
        os.unlink(huge)

        base = GOLDEN.read_bytes()
        cases = [("golden record", b"")]
        cases.append(("+ a 5000-deep line", b"[" * 5000 + b"\n"))
        cases.append(("+ a 200 KB line", b'{"ev":"undo","x":"' + b"a" * 204800 + b'"}\n'))
        cases.append(("+ a line of 256 values (lists)", b'{"ev":"undo","x":['
                      + b",".join([b"[]"] * 251) + b"]}\n"))
        step = 16 if quick else 8
        print("MicroPython unix port: smallest -X heapsize that replays (to %d KB)" % step)
        for label, extra in cases:
            p = os.path.join(tmp, "case.jsonl")
            lines = base.split(b"\n")
            with open(p, "wb") as f:
                f.write(b"\n".join(lines[:3]) + b"\n" + extra + b"\n".join(lines[3:]))
            t0 = time.perf_counter()
            kb = _smallest_heap(p, step=step)
            print("  %-34s %8s KB   (%.1f s)" % (label, "?" if kb is None else kb,
                                                 time.perf_counter() - t0))

        n = 20000 if quick else 200000
        rec = os.path.join(tmp, "long.jsonl")
        lines = base.split(b"\n")
        with open(rec, "wb") as f:
            f.write(lines[0] + b"\n")
            undo = b'{"ev":"undo"}\n'
            for _ in range(n // 1000):
                f.write(undo * 1000)
        proc = subprocess.run([sys.executable, "-c", _HOST_RSS_SCRIPT, rec], cwd=ROOT,
                              capture_output=True, text=True)
        try:
            rc, count, rss_kb = (int(x) for x in proc.stdout.split())
            print("replay --runtime micropython, %d lines: host process peak RSS %.1f MB "
                  "(%d outcome lines streamed, status %d)" % (n, rss_kb / 1024, count, rc))
        except ValueError:
            print("replay --runtime micropython, %d lines: failed: %s" % (
                n, (proc.stderr.strip().splitlines() or ["?"])[-1]))
    print()


if __name__ == "__main__":
    print_input_bench("--quick" in sys.argv)
