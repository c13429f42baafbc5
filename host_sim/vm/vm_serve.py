"""The application's end of the host's command line: shared by the two
runtimes that run firmware/ outside this process, the MicroPython unix port
(vm_main.py, bus operations bridged to the host) and MicroPython on the
emulated Pico (host_sim/rp2040/pico_main.py, real buses).

The host's scheduler runs the application's jobs: ``serve`` answers one
command line at a time and ends each answer with an ``@=`` (a JSON value) or
``@!`` (an exception) line:

- ``s<method> <levels>``: run one step of a job (``poll_readers``, ...); the
  buttons' levels go with it (``set_levels``);
- ``g<path>``: the value at ``app.game.menu``, ``board.leds``, ... (an object
  or a method is answered as a marker, the host then names it by its path);
- ``c<path> <json args>``: call the method at ``path``.

Values travel as JSON; bytes, tuples and dicts with other than text keys are
tagged (``$b``, ``$t``, ``$d``) so they arrive as what they are.
"""
import json
import sys
from binascii import hexlify, unhexlify

from vm_deck import DECK_ID, enrol_virtual_decks
from vm_link import answer, readline

from table.app import JOBS
from table.power_up import boot

LINES_PER_ANSWER = 32     # journal lines sent in one answer (the JSON of an answer is
                          # built in the VM's heap: a whole long journal would not fit)


def plain(v):
    """``v`` as JSON-able data, tagged where JSON would lose what it is."""
    if v is None or isinstance(v, (bool, int, float, str)):
        return v
    if isinstance(v, (bytes, bytearray, memoryview)):
        return {"$b": hexlify(v).decode()}
    if isinstance(v, tuple):
        return {"$t": [plain(x) for x in v]}
    if isinstance(v, list):
        return [plain(x) for x in v]
    if isinstance(v, dict):
        if all(isinstance(k, str) for k in v):
            return {k: plain(x) for k, x in v.items()}
        return {"$d": [[plain(k), plain(x)] for k, x in v.items()]}
    if type(v).__name__ == "generator":
        return [plain(x) for x in v]
    if callable(v):
        return {"$": "fn"}
    return {"$": "obj"}


def unplain(v):
    if isinstance(v, list):
        return [unplain(x) for x in v]
    if isinstance(v, dict):
        if "$b" in v:
            return unhexlify(v["$b"])
        if "$t" in v:
            return tuple(unplain(x) for x in v["$t"])
        return {k: unplain(x) for k, x in v.items()}
    return v


def make_app(board, cfg, root):
    """The application on ``board`` as the device builds it at power-up
    (table/power_up.py), with the virtual table's differences: the first boot
    enrols ``cfg["decks"]`` virtual decks, ``cfg["values"]`` are the table's
    settings (kept in RAM), ``cfg["resume"]`` takes up the last journal,
    ``cfg["setup"]`` shows the setup screens first."""
    return boot(board, root, cfg["values"], remember=False, resume=cfg["resume"],
                enrol=lambda registry: enrol_virtual_decks(registry, cfg["decks"]),
                deck=DECK_ID, start=not cfg["setup"])


class Host:
    """What the host asks beyond the application's own doors: the journal's
    lines, a few per answer, and its session's name (host_sim/vm_table.py)."""

    def __init__(self, app, lines=LINES_PER_ANSWER):
        self.app = app
        self.lines = lines

    def journal_name(self):
        """The name of the session in play, or None."""
        journal = self.app.view.journal()
        return journal.name() if journal is not None else None

    def journal_lines(self, start, stop):
        """Lines ``start`` (0: the header) up to ``stop``, ``lines`` at most:
        from the journal's tail in RAM when they are recent (what the players
        ask after each step), else read from flash line by line."""
        journal = self.app.view.journal()
        out = []
        if journal is None:
            return out
        count = len(journal)
        stop = min(stop, start + self.lines, count)
        if start >= stop:
            return out
        recent = journal.tail(count - start)
        if len(recent) == count - start:
            return recent[:stop - start]
        lines = journal.read_lines()
        try:
            for i, line in enumerate(lines):
                if i >= stop:
                    break
                if i >= start:
                    out.append(line)
        finally:
            lines.close()       # the journal's line buffer and the file, at once
        return out


def fail(exc):
    """An exception as the host's answer (and its traceback on stderr)."""
    sys.print_exception(exc, sys.stderr)
    answer("@!%s %s\n" % (type(exc).__name__, str(exc).replace("\n", " ")))


def query(roots, cmd, rest):
    """The JSON answer to ``g<path>`` (``cmd`` "g") or ``c<path> <json args>`` ("c")."""
    path, _, args = rest.partition(" ")
    names = path.split(".")
    obj = roots[names[0]]
    for name in names[1:]:
        obj = getattr(obj, name)
    if cmd == "c":
        obj = obj(*unplain(json.loads(args)))
    return json.dumps(plain(obj))


def serve(roots, app, set_levels):
    """Answer the host's commands until ``q`` or the end of input."""
    steps = {method: getattr(app, method) for _name, method, _period in JOBS}
    while True:
        line = readline()
        if not line or line[0] == "q":
            return
        cmd = line[0]
        rest = line[1:].rstrip("\r\n")
        try:
            if cmd == "s":            # s<method> <the buttons' levels, e.g. 110>
                method, _, levels = rest.partition(" ")
                set_levels(levels)
                steps[method]()
                out = "null"
            else:
                out = query(roots, cmd, rest)
            answer("@=" + out + "\n")
        except Exception as exc:     # the host raises it again, with the VM's traceback
            fail(exc)
