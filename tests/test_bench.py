"""``tapptable bench --quick`` runs to the end and prints every row.

No timing is asserted (benchmarks print numbers); the test catches a bench
that breaks, hangs or silently loses its MicroPython column.
"""
import subprocess
import sys


def test_bench_quick_prints_every_table():
    proc = subprocess.run([sys.executable, "-m", "tools.tapptable.cli", "bench", "--quick"],
                          capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr
    out = proc.stdout
    assert "MicroPython failed" not in out, out
    for heading in ("Engine per card play", "Random legal deals per second",
                    "MFRC522 driver", "SSD1306 driver"):
        assert heading in out
    engine_rows = [line for line in out.splitlines() if line.endswith(" fail")]
    assert len(engine_rows) >= 17
    # heap_lock failures, mem_total and mem_alloc growth per card play: all zero
    assert all(line.split()[-2].startswith("0/") for line in engine_rows), engine_rows
    assert all(line.split()[-3] == "0.0" and line.split()[-4] == "0.0"
               for line in engine_rows), engine_rows
