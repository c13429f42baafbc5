"""The application's end of the host's commands: the one serve loop of the two
runtimes that run firmware/ outside the host's process, the MicroPython unix
port (vm_main.py: bus operations bridged to the host) and MicroPython on the
emulated Pico (host_sim/rp2040/pico_main.py: real buses).

The host's scheduler runs the application's jobs: ``serve`` answers one
command at a time and ends each answer with an ``@=`` (a JSON value) or
``@!`` (an exception: its type and text) line:

- ``s`` and the job's number as one digit (``"0"`` + its index in
  table/app.py ``JOBS``): run one step of that job (the port adds what it
  needs: the unix port's button levels, the Pico's clock);
- ``g<root>.<name>``: the value ``name`` of ``root`` (a method is answered as
  a marker; the host then calls it by its path);
- ``c<root>.<name> <json args>``: call that method.

Only what ``ALLOWED`` names crosses: the questions of the table's view
(``view``: table/table_view.py) and of the engine's view of the session in
play (``engine``: tapp/view.py), the App's inputs (``app``: ``input``,
``inject``), the LED driver's colours (``leds``), the host's journal reading
(``host``: ``Host`` below) and, in the unix port, its emulated flash
(``flash``, ``journal_flash``).  Any other path -- a field, a private name,
a path of three names, an object's state -- is refused with the one stable
error ``@!AttributeError refused: <path>``: the table is reached only through
its doors (tests/test_table_seam.py).

Values travel as JSON; bytes, tuples and dicts with other than text keys are
tagged (``$b``, ``$t``, ``$d``) so they arrive as what they are.
"""
import json
import sys
from binascii import hexlify, unhexlify

from vm_deck import DECK_ID, enrol_virtual_decks
from vm_link import answer

from table.app import JOBS
from table.power_up import boot

LINES_PER_ANSWER = 32     # journal lines sent in one answer (the JSON of an answer is
                          # built in the VM's heap: a whole long journal would not fit)
STEP = 0x73               # s
GET = 0x67                # g
CALL = 0x63               # c
QUIT = 0x71               # q

QUESTIONS = None          # in ALLOWED: every question of a view (a public method of its class)
ALLOWED = {
    "view": QUESTIONS,                       # app.view (table/table_view.py)
    "engine": QUESTIONS,                     # app.view.engine() (tapp/view.py)
    "app": ("input", "inject"),              # the App's inputs (table/app.py)
    "leds": ("colour",),                     # the LED driver's colour of a state
    "host": ("journal_name", "journal_lines"),
    "flash": ("save",),                      # the unix port's emulated flash (nor_flash.py)
    "journal_flash": ("save", "start_log", "save_log", "ops"),
}


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


def roots_of(app, board, host, **more):
    """What the host may ask by name (``ALLOWED``'s roots): the App's view and
    inputs, the LED driver, ``host``, and the port's ``more`` (its flash)."""
    roots = {"view": app.view, "app": app, "leds": board.leds, "host": host}
    for name, obj in more.items():
        if obj is not None:
            roots[name] = obj
    return roots


class Host:
    """What the host asks beyond the application's own doors: the journal's
    lines, a few per answer, and its session's name (host_sim/bridge.py)."""

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
    answer(("@!%s %s\n" % (type(exc).__name__, str(exc).replace("\n", " "))).encode())


_NAMES = {}              # a path the host asked before -> (root, name) as str


def names_of(path):
    """``path`` (bytes, ``root.name``) as two str, made once per path: each new
    str costs a search through the interned strings (on the Pico about 40,000
    instructions), several per question."""
    names = _NAMES.get(path)
    if names is None:
        names = tuple(n.decode() for n in path.split(b"."))
        if len(names) != 2:
            raise AttributeError("refused: " + path.decode())
        _NAMES[path] = names
    return names


def target(roots, path):
    """The value or method at ``path`` if ``ALLOWED`` lets it across, else
    AttributeError("refused: <path>")."""
    root, name = names_of(path)
    allowed = ALLOWED.get(root, ())
    obj = roots["view"].engine() if root == "engine" else roots.get(root)
    if obj is not None and (name in allowed if allowed is not QUESTIONS else
                            name[:1] != "_" and callable(getattr(type(obj), name, None))):
        return getattr(obj, name)
    raise AttributeError("refused: %s.%s" % (root, name))


def query(roots, call, rest):
    """The answer to ``g<path>`` or ``c<path> <json args>`` (``rest``: bytes
    after the command's letter), as JSON-able data."""
    path, _, args = rest.rstrip(b"\r\n").partition(b" ")
    obj = target(roots, path)
    if call:
        obj = obj(*unplain(json.loads(args)))
    return plain(obj)


def _waiter(app, name, period):
    """The wait after a step of job ``name`` (the host's scheduler needs it)."""
    return lambda: app.wait_after(name, period)


def serve(roots, port):
    """Answer the host's commands from ``port`` (the runtime's end of the line:
    vm_main.py's ``VmPort``, pico_main.py's ``PicoPort``) until ``q`` or the
    end of input.  A port has ``command()`` (the next command's letter, -1 at
    the end; its job number in ``job``, the rest of its line in ``rest``),
    ``step(fn, wait)`` (run a job step and answer it with ``wait()``, the ms
    the job waits now) and ``value(v)`` (answer a
    value)."""
    app = roots["app"]
    jobs = tuple(getattr(app, method) for _name, method, _period in JOBS)
    waits = tuple(_waiter(app, name, period) for name, _method, period in JOBS)
    while True:
        kind = port.command()
        if kind == QUIT or kind < 0:
            return
        try:
            if kind == STEP:
                port.step(jobs[port.job], waits[port.job])
            elif kind == GET or kind == CALL:
                port.value(query(roots, kind == CALL, port.rest))
            elif kind != 0x0A and kind != 0x0D:      # (a line's end between commands)
                raise ValueError("unknown command %d" % kind)
        except Exception as exc:     # the host raises it again, with the traceback
            fail(exc)
