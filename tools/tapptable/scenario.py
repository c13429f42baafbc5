"""``tapptable sim --scenario FILE...``: run scenario files at the virtual table.

Prints PASS or the failures (line, expectation, what the device showed) per
file; exit status 1 when any failed, 2 when a file cannot be run.
"""
import sys

from host_sim.scenario import ScenarioError, format_failures, run_file


def run_scenario_files(args):
    if args.runtime == "micropython":
        print("tapptable sim: --runtime micropython is not available yet: the scenario "
              "suite runs the firmware under CPython on the chip models", file=sys.stderr)
        return 2
    failed = 0
    for path in args.scenario:
        try:
            failures = run_file(path, png_dir=args.png)
        except (OSError, ScenarioError) as exc:
            print("tapptable sim: %s: %s" % (path, exc), file=sys.stderr)
            return 2
        if failures:
            failed += 1
            print("FAIL %s" % path)
            print(format_failures(path, failures))
        else:
            print("PASS %s" % path)
    return 1 if failed else 0
