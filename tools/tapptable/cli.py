"""``tapptable`` command line: one subcommand per job."""
import argparse
import json
import sys

from tapp.catalog import variant_ids
from tapp.record import replay_stream
from tapp.variants import HeaderError


def cmd_replay(args):
    """Print one outcome line per event of a record (RECORD.md)."""
    if args.runtime == "micropython":
        if args.file == "-":
            print("tapptable replay: --runtime micropython needs a file", file=sys.stderr)
            return 2
        from tools.tapptable.mpreplay import replay_in_micropython
        return replay_in_micropython(args.file, sys.stdout.write)
    try:
        f = sys.stdin if args.file == "-" else open(args.file, encoding="utf-8")
    except OSError as exc:
        print("tapptable replay: cannot read %s: %s" % (args.file, exc.strerror), file=sys.stderr)
        return 2
    write = sys.stdout.write
    if args.explain:
        write = _explaining(write)
    try:
        return replay_stream(f.readline, write)
    except HeaderError as exc:
        print("tapptable replay: %s: bad header: %s" % (args.file, exc), file=sys.stderr)
        return 2
    except UnicodeDecodeError:
        print("tapptable replay: %s: not UTF-8 text" % args.file, file=sys.stderr)
        return 2
    finally:
        if f is not sys.stdin:
            f.close()


def _explaining(write):
    """Wrap ``write`` so each rejected event is also explained on stderr."""
    from tapp.errors import message_for
    count = [0]

    def out(line):
        count[0] += 1
        write(line)
        if line.startswith('{"ok":false'):
            code = json.loads(line).get("error", "bad_event")
            print("event %d: %s: %s" % (count[0], code, message_for(code)), file=sys.stderr)
    return out


def cmd_simulate(args):
    """Play random legal deals and write the record."""
    from tools.tapptable.simulate import Simulator
    try:
        sim = Simulator(args.variant, args.players, args.seed, args.mode)
    except HeaderError as exc:
        print("tapptable simulate: %s" % exc, file=sys.stderr)
        return 2
    sim.run(args.deals)
    text = "\n".join(sim.record_lines()) + "\n"
    if args.out:
        with open(args.out, "w", encoding="utf-8") as f:
            f.write(text)
        last = sim.results[-1]
        print("wrote %d deals (%d events) to %s; balances %s%s" % (
            len(sim.results), len(sim.events), args.out, last["balances"],
            "; the session ended (pot/bank rules)" if sim.shadow.session_over else ""))
    else:
        sys.stdout.write(text)
    return 0


def cmd_demo(args):
    from tools.tapptable.demo import run_demo
    return run_demo(args)


def cmd_bench(args):
    from tools.tapptable.bench import run_bench
    return run_bench(args)


def build_parser():
    p = argparse.ArgumentParser(prog="tapptable", description=__doc__)
    sub = p.add_subparsers(dest="command", metavar="COMMAND")
    sub.required = True

    r = sub.add_parser("replay", help="print the outcome line of every event of a record")
    r.add_argument("file", help="record file, or - for standard input")
    r.add_argument("--explain", action="store_true",
                   help="also explain every rejected event on standard error")
    r.add_argument("--runtime", choices=("cpython", "micropython"), default="cpython",
                   help="run the engine here or inside the MicroPython VM")
    r.set_defaults(func=cmd_replay)

    s = sub.add_parser("simulate", help="play random legal deals and write the record")
    s.add_argument("--variant", required=True, choices=variant_ids())
    s.add_argument("--players", type=int, default=3)
    s.add_argument("--deals", type=int, default=1)
    s.add_argument("--seed", type=int, default=1)
    s.add_argument("--mode", choices=("strict", "open"), default="strict")
    s.add_argument("--out", help="record file to write (default: standard output)")
    s.set_defaults(func=cmd_simulate)

    d = sub.add_parser("demo", help="play one simulated deal and show it trick by trick")
    d.add_argument("--variant", default="tapp_modern", choices=variant_ids())
    d.add_argument("--players", type=int, default=3)
    d.add_argument("--seed", type=int, default=None)
    d.add_argument("--deals", type=int, default=1)
    d.set_defaults(func=cmd_demo)

    b = sub.add_parser("bench", help="print engine speed and heap numbers")
    b.add_argument("--quick", action="store_true", help="fewer repetitions")
    b.set_defaults(func=cmd_bench)
    return p


def main(argv=None):
    args = build_parser().parse_args(argv)
    try:
        return args.func(args) or 0
    except BrokenPipeError:
        return 0
    except KeyboardInterrupt:
        return 130


if __name__ == "__main__":
    sys.exit(main())
