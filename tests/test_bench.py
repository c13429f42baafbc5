"""``tapptable bench --quick`` runs to the end and prints every row.

No timing is asserted (benchmarks print numbers); the test catches a bench
that breaks, hangs or silently loses its MicroPython column, or whose device
section (tools/tapptable/bench_rp2040.py, the emulated Pico) stops measuring.
The device's whole session takes minutes of emulation: the test command
measures the REPL's heap only (``--device repl``); the slow extras
(``TAPP_SLOW=1``, ``python3 tools/dev.py test --slow``) run the session too.
"""
import os
import subprocess
import sys

SLOW = os.environ.get("TAPP_SLOW") == "1"


def test_bench_quick_prints_every_table():
    device = "session" if SLOW else "repl"
    proc = subprocess.run([sys.executable, "-m", "tools.tapptable.cli", "bench", "--quick",
                           "--device", device],
                          capture_output=True, text=True, timeout=1500 if SLOW else 600)
    assert proc.returncode == 0, proc.stderr
    out = proc.stdout
    assert "MicroPython failed" not in out, out
    for heading in ("Engine per card play", "Random legal deals per second",
                    "MFRC522 driver", "SSD1306 driver", "The journal on its own flash area"):
        assert heading in out
    # the journal: a card play's append allocates nothing, no card waits for an erase
    journal = out[out.index("The journal on its own flash area"):]
    assert "heap per play 0 bytes" in journal, journal
    rows = [line.split() for line in journal.splitlines()[2:5]]
    assert len(rows) == 3 and all(row[-3] == "0" for row in rows), rows     # no fallback
    engine_rows = [line for line in out.splitlines() if line.endswith(" fail")]
    assert len(engine_rows) >= 17
    # heap_lock failures, mem_total and mem_alloc growth per card play: all zero
    assert all(line.split()[-2].startswith("0/") for line in engine_rows), engine_rows
    assert all(line.split()[-3] == "0.0" and line.split()[-4] == "0.0"
               for line in engine_rows), engine_rows

    # the device's budgets on the emulated Pico: both firmwares measured at the REPL,
    # the table's firmware through its session with the same journal as the CPython twin
    device = out[out.index("The device: MicroPython"):]
    rows = {line[2:56].strip(): line[57:].split() for line in device.splitlines()
            if line.startswith("  ") and len(line) > 57}
    boot = rows["free heap at boot (REPL, gc.collect)"]
    assert len(boot) == 4 and all(float(v) > 200 for v in boot[::2]), boot
    imported = rows["after main.py's imports"]
    assert len(imported) == 4 and float(imported[2]) > float(imported[0]), imported  # ROMFS
    assert "table: the device stopped" not in device, device
    if SLOW:
        assert rows["the Pico's journal = the twin's"][-1] == "yes", device
        assert float(rows["longest step: readers"][-2]) > 0, device
