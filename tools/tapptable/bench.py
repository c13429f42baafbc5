"""``tapptable bench``: engine speed and heap numbers, printed as a table.

Benchmarks print numbers; they never pass or fail on time (tests/README.md).
"""
import os
import subprocess
import sys
import tempfile
import time

from tools import mpvm
from tools.tapptable.bench_drivers import print_driver_bench
from tools.tapptable.simulate import Simulator

BENCH_VM = os.path.join(os.path.dirname(__file__), "bench_vm.py")
VARIANTS = (("wuerttemberg", 3, {}), ("tapp_classic", 3, {}), ("tapp_modern", 3, {}),
            ("tapp_modern", 4, {}), ("tapp_modern", 4, {"pack": 32}),
            ("tarock_simple", 3, {"payment": "fixed"}), ("tarock_simple", 4, {"payment": "fixed"}),
            ("tarock_bettel", 3, {}), ("haferltarock", 3, {"shortfall": "refill"}),
            ("berliner", 3, {"shortfall": "refill"}), ("scharfer_tarock", 3, {}),
            ("herzblatt", 2, {}), ("herzblatt", 3, {}), ("herzblatt", 4, {}),
            ("herzblatt", 5, {}), ("herzblatt_muhr", 4, {}), ("braun_solo", 4, {}))


def _name(variant, players, opts):
    return "%s/%d%s" % (variant, players, " pack32" if opts.get("pack") == 32 else "")


def _parse(text):
    vals = {}
    for line in text.splitlines():
        parts = line.split()
        if len(parts) == 2 and parts[1].lstrip("-").isdigit():
            vals[parts[0]] = int(parts[1])
    return vals


def _engine_numbers(record, deals):
    """(CPython values, MicroPython values or error text) for one record."""
    cp = subprocess.run([sys.executable, BENCH_VM, record], capture_output=True, text=True,
                        check=True)
    try:
        mp = mpvm.run_unix(BENCH_VM, [record], heapsize="512k", tests=False)
        mpv = _parse(mp.stdout) if mp.returncode == 0 else \
            (mp.stderr.strip() or mp.stdout.strip()).splitlines()[-1][-120:]
    except mpvm.MPVMError as exc:
        mpv = str(exc).splitlines()[0]
    return _parse(cp.stdout), mpv


def run_bench(args):
    deals = 40 if args.quick else 200
    rate_deals = 1000 if args.quick else 5000
    print("tapptable bench (%s)" % ("quick" if args.quick else "full"))
    print()
    print("Engine per card play and per deal (%d simulated deals each, strict mode)" % deals)
    print("%-22s %12s %12s %12s %12s %10s %10s %12s" % (
        "variant", "CPy us/play", "CPy us/deal", "MPy us/play", "MPy us/deal",
        "MPy B/play", "MPy frm/pl", "heap_lock"))
    with tempfile.TemporaryDirectory() as tmp:
        for variant, players, opts in VARIANTS:
            sim = Simulator(variant, players, 11, "strict", options=opts)
            path = os.path.join(tmp, "%s%d.jsonl" % (variant, players))
            with open(path, "w") as f:
                for line in sim.stream(deals):
                    f.write(line + "\n")
            cp, mp = _engine_numbers(path, deals)
            name = _name(variant, players, opts)
            if isinstance(mp, str):
                print("%-22s %12.2f %12d   MicroPython failed: %s" % (
                    name, cp["ns_per_play"] / 1000, cp["us_per_deal"], mp))
                continue
            print("%-22s %12.2f %12d %12.2f %12d %10.1f %10.1f %6d/%d fail" % (
                name, cp["ns_per_play"] / 1000, cp["us_per_deal"],
                mp["ns_per_play"] / 1000, mp["us_per_deal"],
                mp["alloc_bytes_per_play_x1000"] / 1000,
                mp["mem_total_bytes_per_play_x1000"] / 1000,
                mp["heap_locked_failures"], mp["heap_locked_plays"]))
    print()
    print("MPy B/play: gc.mem_alloc() growth per card play with the GC disabled (bytes kept).")
    print("MPy frm/pl: micropython.mem_total() growth per play: every byte ever allocated,")
    print("  including VM frames of large functions (freed on return; heap_lock alone hides")
    print("  them).  heap_lock: failures/plays with micropython.heap_lock() held around each")
    print("  card play that does not end a deal.  Target for all three: 0.")
    print()
    print("Random legal deals per second on CPython through the public door")
    print("(Session.deal, .bid and .player() (.play bound to the deal), .apply for exchanges")
    print(" and announcements; choices from session.view; %d deals each, no record kept)"
          % rate_deals)
    print("%-22s %12s %12s" % ("variant", "deals/s", "us/deal"))
    for variant, players, opts in VARIANTS:
        t0 = time.perf_counter()
        sim = Simulator(variant, players, 1, "strict", options=opts)
        done = len(sim.run(rate_deals))
        while done < rate_deals:    # a session the bank ends early: the next one
            sim.next_session()
            done = len(sim.run(rate_deals - done))
        dt = time.perf_counter() - t0
        print("%-22s %12d %12.1f" % (_name(variant, players, opts), done / dt, dt * 1e6 / done))
    print()
    print_driver_bench()
    print()
    from tools.tapptable.bench_readers import chaos_report, print_report
    print("Reader chaos on the chip models (driver and presence arbiter)")
    print_report(chaos_report(seed=1, steps=5000 if args.quick else 40000))
    print()
    from tools.tapptable.bench_table import print_table_bench
    print_table_bench(quick=args.quick)
    print()
    from tools.tapptable.bench_input import print_input_bench
    print_input_bench(quick=args.quick)
    print()
    from tools.tapptable.bench_app_vm import print_app_vm_bench
    print_app_vm_bench(quick=args.quick)
    print()
    from tools.tapptable.bench_journal import print_journal_bench
    print_journal_bench(quick=args.quick)
    print()
    device = getattr(args, "device", "session")
    if device != "off":
        from tools.tapptable.bench_rp2040 import print_device_bench
        print_device_bench(quick=args.quick, session=device == "session",
                           display=getattr(args, "display", "spi"))
    return 0
