"""The journal on its own flash area (firmware/table/flash_log.py), measured:
flash operations and bytes per deal at the virtual table (CPython, the NOR
model's counters), the append's time and heap and a power-up's read of a
full area in the MicroPython unix port (bench_journal_vm.py).  Numbers only,
never a pass or a fail."""
import os

from host_sim.flash import PICO_JOURNAL_KB
from host_sim.table import AutoPlayers, VirtualTable
from tools import mpvm

BENCH_VM = os.path.join(os.path.dirname(__file__), "bench_journal_vm.py")
TABLES = (("tapp_modern", 3, "open"), ("wuerttemberg", 3, "strict"),
          ("herzblatt", 5, "strict"))


def table_numbers(variant, players, mode, deals):
    """Per card: programs and erases (ahead, fallback); bytes per deal; deals
    that fit the Pico's area (the virtual table's default: the Pico's size)."""
    table = VirtualTable(variant, players, mode)
    dev = table.journal_flash
    log = table.app.journals.log
    start = (dev.writes, dev.erases, log.prepared, log.fallbacks)
    people = AutoPlayers(table, seed=3, illegal_once=False)
    for k in range(deals):
        if k:
            people.next_deal()
        people.play_deal()
    lines = table.journal_lines()
    plays = sum('"ev":"play"' in line for line in lines)
    dealt = sum('"ev":"deal"' in line for line in lines)
    per = sum(len(line.encode()) + 4 for line in lines[1:]) // dealt + 1   # records' bytes
    return {"lines": len(lines) - 1, "plays": plays,
            "programs": (dev.writes - start[0]) / (len(lines) - 1),
            "erases": (dev.erases - start[1]) / plays,
            "ahead": log.prepared - start[2], "fallback": log.fallbacks - start[3],
            "deal_bytes": per, "fit": table.app.journals.free_bytes() // per}


def vm_numbers(quick):
    try:
        r = mpvm.run_unix(BENCH_VM, ["500" if quick else "3000", str(PICO_JOURNAL_KB // 4)],
                          heapsize="2m", tests=False)
    except mpvm.MPVMError as exc:
        return str(exc).splitlines()[0]
    if r.returncode:
        return (r.stderr.strip() or r.stdout.strip()).splitlines()[-1][-120:]
    return {k: int(v) for k, v in (line.split() for line in r.stdout.splitlines())}


def print_journal_bench(quick=False):
    deals = 3 if quick else 10
    print("The journal on its own flash area (%d deals each at the virtual table)" % deals)
    print("%-22s %8s %10s %10s %7s %9s %10s %10s" % (
        "table", "lines", "prog/line", "erase/card", "ahead", "fallback", "B/deal",
        "deals/Pico"))
    for variant, players, mode in TABLES:
        n = table_numbers(variant, players, mode, deals)
        print("%-22s %8d %10.2f %10.3f %7d %9d %10d %10d" % (
            "%s/%d %s" % (variant, players, mode), n["lines"], n["programs"], n["erases"],
            n["ahead"], n["fallback"], n["deal_bytes"], n["fit"]))
    vm = vm_numbers(quick)
    print("In the MicroPython unix port:")
    if isinstance(vm, str):
        print("  MicroPython failed: %s" % vm)
        return
    print("  append of a card play: %d us (the firmware's own share %d us; the NOR"
          " model's page copy is the rest), a bid %d us; heap per play %d bytes"
          % (vm["play_us"], vm["play_fw_us"], vm["bid_us"], vm["play_bytes"]))
    print("  power-up reading a full area of the Pico's %d KiB (%d lines): %d ms"
          % (vm["scan_kb"], vm["scan_records"], vm["scan_ms"]))
    print("prog/line: page programs per journal line (a record crossing a page takes two);")
    print("  erase/card: sector erases per card played, 'ahead' of need when nothing waits,")
    print("  'fallback' by an append (the first session on a blank area); B/deal: flash")
    print("  bytes of a deal; deals/Pico: deals that still fit the Pico's journal area.")
