"""``tapptable sim --scenario FILE...``: run scenario files at the virtual table.

Prints PASS or the failures (line, expectation, what the device showed) per
file, with the runtime and the time it took; exit status 1 when any failed, 2
when a file cannot be run.  ``--runtime micropython`` runs the application
inside the MicroPython unix port on the same chip models (host_sim/vm_table.py).
"""
import sys
import time

from host_sim.scenario import ScenarioError, format_failures, run_file


def run_scenario_files(args):
    failed = 0
    for path in args.scenario:
        start = time.monotonic()
        try:
            failures = run_file(path, png_dir=args.png, runtime=args.runtime)
        except (OSError, ScenarioError) as exc:
            print("tapptable sim: %s: %s" % (path, exc), file=sys.stderr)
            return 2
        took = "(%s, %.1f s)" % (args.runtime, time.monotonic() - start)
        if failures:
            failed += 1
            print("FAIL %s %s" % (path, took))
            print(format_failures(path, failures))
        else:
            print("PASS %s %s" % (path, took))
    return 1 if failed else 0
