"""``tapptable`` command line: one subcommand per job."""
import argparse
import json
import sys

from tapp.catalog import players_of, variant_ids
from tapp.record import LineReader
from tapp.replay import exc_message, one_line, replay_stream
from tapp.variants import HeaderError

# CPython reads records in big chunks; the line length limit stays MAX_LINE.
READ_CHUNK = 1 << 16


class _Parser(argparse.ArgumentParser):
    """Argument errors as one line (``tapptable simulate: argument --deals: ...``)
    and exit status 2, as for every other refused command."""

    def error(self, message):
        self.exit(2, "%s: %s (see %s --help)\n" % (self.prog, message, self.prog))


def _count(lo):
    """An argparse type: an integer >= lo."""
    def parse(text):
        try:
            v = int(text, 10)
        except ValueError:
            raise argparse.ArgumentTypeError("not a whole number: %r" % text) from None
        if v < lo:
            raise argparse.ArgumentTypeError("must be at least %d, not %d" % (lo, v))
        return v
    parse.__name__ = "number"
    return parse


class _Arriving:
    """Standard input for LineReader: ``readinto`` returns what has arrived (one
    read), so ``tail -f journal | tapptable replay -`` answers each line at once."""

    def __init__(self, stream):
        self.readinto = stream.readinto1


def _fail(cmd, message):
    print("tapptable %s: %s" % (cmd, message), file=sys.stderr)
    return 2


# ----------------------------------------------------------------- replay


def cmd_replay(args):
    """Print one outcome line per event of a record (docs/record-format.md)."""
    if args.runtime == "micropython":
        from tools.tapptable.mpreplay import replay_in_micropython
        return replay_in_micropython(args.file, _explaining(sys.stdout.write)
                                     if args.explain else sys.stdout.write)
    if args.runtime == "rp2040":
        from host_sim.rp2040.replay import replay_on_pico
        return replay_on_pico(args.file, _explaining(sys.stdout.write)
                              if args.explain else sys.stdout.write)
    name = args.file
    try:
        f = sys.stdin.buffer if name == "-" else open(name, "rb")
    except OSError as exc:
        return _fail("replay", "cannot read %s: %s" % (name, exc.strerror or exc))
    write = sys.stdout.write
    if args.explain:
        write = _explaining(write)
    reader = LineReader(_Arriving(f) if f is sys.stdin.buffer else f, chunk=READ_CHUNK)
    try:
        return replay_stream(reader, write)
    except HeaderError as exc:
        return _fail("replay", "%s: bad header: %s" % (name, one_line(str(exc))))
    except BrokenPipeError:
        raise
    except OSError as exc:
        return _fail("replay", "%s: line %d: cannot read: %s" % (
            name, reader.lineno + 1, one_line(exc.strerror or str(exc))))
    except Exception as exc:   # an engine failure: say where, as the VM runtime does
        return _fail("replay", "%s: line %d: %s" % (name, reader.lineno, exc_message(exc)))
    finally:
        if f is not sys.stdin.buffer:
            f.close()


def _explaining(write):
    """Wrap ``write`` so each rejected event is also explained on stderr."""
    from table.messages import message
    count = [0]

    def out(line):
        count[0] += 1
        write(line)
        if line.startswith('{"ok":false'):
            code = json.loads(line).get("error", "bad_event")
            print("event %d: %s: %s" % (count[0], code, message("e_" + code, code)),
                  file=sys.stderr)
    return out


# ----------------------------------------------------------------- simulate, demo


def _players_problem(variant, players):
    """Why ``variant`` cannot be played by ``players``, or None."""
    allowed = players_of(variant)
    if players in allowed:
        return None
    counts = [str(n) for n in allowed]
    said = counts[0] if len(counts) == 1 else ", ".join(counts[:-1]) + " or " + counts[-1]
    return "%s is played by %s players, not %d" % (variant, said, players)


def cmd_simulate(args):
    """Play random legal deals and write the record."""
    from tools.tapptable.atomic import WriteError, check_target, write_lines
    from tools.tapptable.simulate import Simulator
    problem = _players_problem(args.variant, args.players)
    if problem:
        return _fail("simulate", problem)
    if args.out == "":
        return _fail("simulate", "--out needs a file name")
    if args.out:
        try:
            check_target(args.out, args.force)
        except WriteError as exc:
            return _fail("simulate", str(exc))
    try:
        sim = Simulator(args.variant, args.players, args.seed, args.mode)
    except HeaderError as exc:
        return _fail("simulate", one_line(str(exc)))
    lines = sim.stream(args.deals)   # a generator: the record is never held in memory
    if not args.out:
        for line in lines:
            sys.stdout.write(line + "\n")
        return 0
    try:
        count = write_lines(args.out, lines, args.force)
    except WriteError as exc:
        return _fail("simulate", str(exc))
    last = sim.last_result
    print("wrote %d deals (%d events) to %s%s%s" % (
        sim.deals_done, count - 1, args.out,
        "; balances %s" % (last["balances"],) if last else "",
        "; the session ended (pot/bank rules)" if sim.deals_done < args.deals else ""))
    return 0


def cmd_demo(args):
    problem = _players_problem(args.variant, args.players)
    if problem:
        return _fail("demo", problem)
    from tools.tapptable.demo import run_demo
    return run_demo(args)


def _sim_option_problem(args, interactive):
    """An option the chosen table would not use (never ignored silently), or None."""
    terminal = interactive and not args.serial and not args.web
    if args.table_dir and not (args.web or terminal and not args.record):
        return "--table-dir keeps the flash of the terminal table and of --web; " \
               "--text, --record, --scenario and --serial start a table of their own"
    if args.port is not None and not args.web:
        return "--port is the browser table's (--web)"
    if args.png and not args.scenario:
        return "--png saves the screens of --scenario runs"
    if args.pin and not args.serial:
        return "--pin is the console's referee PIN (--serial)"
    return None


def cmd_sim(args):
    """The virtual table: the unchanged firmware on the chip models."""
    problem = _players_problem(args.variant, args.players)
    if problem:
        return _fail("sim", problem)
    if args.scenario:
        from tools.tapptable.sim_scenarios import run_scenario_files
        return run_scenario_files(args)
    interactive = args.serial or args.web or (
        sys.stdin.isatty() and sys.stdout.isatty() and not args.text)
    problem = _sim_option_problem(args, interactive)
    if problem:
        return _fail("sim", problem)
    if args.runtime == "micropython" and interactive or args.runtime == "rp2040" and (
            args.serial or args.record):
        return _fail("sim", "--runtime %s runs scenario files (--scenario), the self-playing "
                            "deal (--text)%s; the other tables run the firmware under CPython"
                     % (args.runtime, ", the terminal and the browser table"
                        if args.runtime == "rp2040" else ""))
    if args.serial:
        from tools.tapptable.sim_serial import serve as serve_serial
        return serve_serial(args)
    if args.web:
        from tools.tapptable.sim_web import serve
        return serve(args)
    if sys.stdin.isatty() and sys.stdout.isatty() and not args.text:
        from tools.tapptable.sim_tui import run_tui
        return run_tui(args)
    from tools.tapptable.sim_text import autoplay
    return autoplay(args)


def cmd_console(args):
    """Talk to the table (or tapptable sim --serial) over a serial line."""
    from tools.tapptable.console import cmd_console as run
    return run(args)


def cmd_watch(args):
    """The live tables and the score history on a web page (docs/watch.md)."""
    from tools.tapptable.watch import run
    return run(args)


def cmd_build(args):
    """Compile firmware/ with mpy-cross for a board (and a ROMFS image; for a
    Pico the one UF2 to flash)."""
    from tools.tapptable.deploy import cmd_build as run
    return run(args)


def cmd_deploy(args):
    """Copy a build onto the board with mpremote (only changed files)."""
    from tools.tapptable.deploy import cmd_deploy as run
    return run(args)


def cmd_bench(args):
    from tools.tapptable.bench import run_bench
    return run_bench(args)


def build_parser():
    p = _Parser(prog="tapptable", description=__doc__)
    sub = p.add_subparsers(dest="command", metavar="COMMAND", parser_class=_Parser)
    sub.required = True

    r = sub.add_parser("replay", help="print the outcome line of every event of a record")
    r.add_argument("file", help="record file, or - for standard input")
    r.add_argument("--explain", action="store_true",
                   help="also explain every rejected event on standard error")
    r.add_argument("--runtime", choices=("cpython", "micropython", "rp2040"), default="cpython",
                   help="run the engine here, inside the MicroPython VM, or on the emulated "
                        "Pico (MicroPython's rp2 port)")
    r.set_defaults(func=cmd_replay)

    s = sub.add_parser("simulate", help="play random legal deals and write the record")
    s.add_argument("--variant", required=True, choices=variant_ids())
    s.add_argument("--players", type=_count(2), default=3)
    s.add_argument("--deals", type=_count(1), default=1)
    s.add_argument("--seed", type=_count(0), default=1, help="a whole number >= 0")
    s.add_argument("--mode", choices=("strict", "open"), default="strict")
    s.add_argument("--out", help="record file to write (default: standard output); "
                                 "written completely or not at all")
    s.add_argument("--force", action="store_true", help="overwrite an existing --out file")
    s.set_defaults(func=cmd_simulate)

    d = sub.add_parser("demo", help="play one simulated deal and show it trick by trick")
    d.add_argument("--variant", default="tapp_modern", choices=variant_ids())
    d.add_argument("--players", type=_count(2), default=3)
    d.add_argument("--seed", type=_count(0), default=None)
    d.add_argument("--deals", type=_count(1), default=1)
    d.set_defaults(func=cmd_demo)

    v = sub.add_parser("sim", help="sit down at the virtual table (terminal, browser, "
                                   "or scenario files)")
    v.add_argument("--variant", default="tapp_modern", choices=variant_ids())
    v.add_argument("--players", type=int, default=3)
    v.add_argument("--mode", choices=("strict", "open"), default="strict")
    v.add_argument("--seed", type=int, default=1)
    v.add_argument("--lang", choices=("de", "en"), default="de")
    v.add_argument("--record", help="step through a record on the virtual table")
    v.add_argument("--scenario", nargs="+", metavar="FILE",
                   help="run scenario files; exit 1 with a diff when one fails")
    v.add_argument("--runtime", choices=("cpython", "micropython", "rp2040"), default="cpython",
                   help="where the firmware runs (micropython: inside the MicroPython unix "
                        "port, --scenario and --text only; rp2040: on MicroPython's rp2 "
                        "port in the emulated Pico, host_sim/README.md); the chip models "
                        "are the same")
    v.add_argument("--png", metavar="DIR", help="with --scenario: save screens as PNG")
    v.add_argument("--web", action="store_true", help="serve the table in the browser")
    v.add_argument("--port", type=int, help="with --web: the local port (8765)")
    v.add_argument("--table-dir", metavar="DIR",
                   help="the terminal's and --web's table's flash (decks, settings, "
                        "journal); a session found there is taken up again (default: one "
                        "per kind of table under ~/.local/state/tapptable/web)")
    v.add_argument("--text", action="store_true",
                   help="no full-screen view: play a deal by itself and print the screens")
    v.add_argument("--serial", metavar="pty|tcp:PORT",
                   help="serve the console's line protocol on a pseudo-terminal or on "
                        "127.0.0.1:PORT (tapptable console --port ...)")
    v.add_argument("--pin", help="with --serial: the referee PIN (default 1234)")
    v.set_defaults(func=cmd_sim)

    c = sub.add_parser("console", help="talk to the table over USB serial (or to tapptable "
                                       "sim --serial): interactive, or one command")
    c.add_argument("words", nargs="*", metavar="COMMAND",
                   help="status, view [details], score, journal [list|SESSION], readers "
                        "[details], selftest [card_ms=MS] [button_ms=MS], set [K=V ...], "
                        "registry [list|download N|upload FILE], enrol K=V..., undo, "
                        "reset-session, place R CARD, lift R, press KEY [long], log [LEVEL], "
                        "repl, events, raw JSON, ports; none: interactive")
    c.add_argument("--port", help="serial device, pseudo-terminal or pyserial URL "
                                  "(socket://HOST:PORT, rfc2217://, loop://); default: the "
                                  "table found by its USB id")
    c.add_argument("--pin", help="the referee PIN (or TAPPTABLE_PIN)")
    c.add_argument("--json", action="store_true", help="print answers as JSON lines")
    c.add_argument("--out", metavar="FILE", help="write the answer (a journal: checked line "
                                                 "by line) to FILE, only when it is complete")
    c.add_argument("--timeout", type=float, default=10.0, help="seconds to wait for an answer")
    c.add_argument("--reconnect", type=float, default=10.0,
                   help="seconds to wait for the table after a reset")
    c.set_defaults(func=cmd_console)

    w = sub.add_parser("watch", help="show the tables live and their score history on a web "
                                     "page on the LAN (one console client per table)")
    w.add_argument("ports", nargs="*", metavar="[NAME=]PORT",
                   help="each table's serial port as for tapptable console --port (a device, "
                        "a0, socket://HOST:PORT of tapptable sim --serial); NAME names the "
                        "table on the page (default: the port's last part)")
    w.add_argument("--db", help="the history's SQLite file (default "
                                "~/.local/share/tapptable/history.sqlite3)")
    w.add_argument("--web-host", default="0.0.0.0",
                   help="the page's address (default 0.0.0.0: every network of this machine)")
    w.add_argument("--web-port", type=_count(0), default=8766, help="the page's port (8766)")
    w.add_argument("--pin", help="the referee PIN (or TAPPTABLE_PIN): also fetch the finished "
                                 "sessions still on the table's flash; the page never shows "
                                 "more for it")
    w.add_argument("--mqtt", metavar="HOST[:PORT]",
                   help="share the tables and sessions with other watchers over this broker")
    w.add_argument("--club", default="club", help="with --mqtt: the club's topic (club)")
    w.add_argument("--name", help="this watcher's name on the page and in MQTT topics "
                                  "(default: the host name)")
    w.add_argument("--poll", type=float, default=0.3,
                   help="seconds between looks at the display (0.3)")
    w.add_argument("--no-qr", action="store_true", help="print no QR code")
    w.set_defaults(func=cmd_watch)

    bd = sub.add_parser("build", help="compile firmware/ with mpy-cross into build/BOARD/")
    bd.add_argument("--board", choices=("pico", "esp32"), default="pico")
    bd.add_argument("--out", help="build folder (default build/BOARD)")
    bd.add_argument("--romfs", action="store_true",
                    help="also make romfs.img (bytecode run from flash; always for a Pico)")
    bd.add_argument("--firmware", metavar="UF2",
                    help="for a Pico: a MicroPython UF2 with a ROMFS partition instead of "
                         "the carried RPI_PICO_ROMFS firmware (docs/build.md)")
    bd.set_defaults(func=cmd_build)

    dp = sub.add_parser("deploy", help="copy the build onto the board with mpremote "
                                       "(changed files only), write settings, soft-reset")
    dp.add_argument("--board", choices=("pico", "esp32"), default="pico")
    dp.add_argument("--port", help="the board's serial port (a0 is /dev/ttyACM0, as for "
                                   "mpremote; default: the board tapptable console finds)")
    dp.add_argument("--build", help="build folder (default build/BOARD, built first)")
    dp.add_argument("--dry-run", action="store_true", help="print the plan, change nothing")
    dp.add_argument("--force", action="store_true", help="copy every file")
    dp.add_argument("--romfs", action="store_true", default=None,
                    help="deploy romfs.img instead of .mpy files (the default where the "
                         "board has a ROMFS partition: the table's Pico firmware)")
    dp.add_argument("--pin", help="write this referee PIN into the board's settings.json")
    dp.add_argument("--current-pin", metavar="PIN",
                    help="the board's referee PIN now, to stop the table's app for the copy "
                         "(default: TAPPTABLE_PIN, else --pin)")
    dp.add_argument("--set", action="append", default=[], metavar="KEY=VALUE",
                    help="another setting for settings.json (VALUE as JSON or a word)")
    dp.add_argument("--no-reset", action="store_true",
                    help="do not soft-reset afterwards (the unix port exits on one)")
    dp.set_defaults(func=cmd_deploy)

    b = sub.add_parser("bench", help="print engine speed and heap numbers")
    b.add_argument("--quick", action="store_true", help="fewer repetitions")
    b.add_argument("--device", choices=("session", "repl", "off"), default="session",
                   help="the device's budgets on the emulated Pico: a whole session "
                        "(default; minutes), only the heap at its REPL, or none")
    b.add_argument("--display", choices=("spi", "i2c"), default="spi",
                   help="where the emulated Pico's display is wired: on SPI0 (default, "
                        "hardware/README.md) or on I2C0")
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
