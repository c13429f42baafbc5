"""The host's end of the bridge to a table application running in another
MicroPython: the unix port (host_sim/vm_table.py ``VmTable``) or the rp2
port on the emulated Pico (host_sim/rp2040/table.py ``Rp2040Table``).

The two runtimes are siblings: each is a ``BridgedTable`` (the virtual table,
host_sim/table.py, whose application runs elsewhere) holding a link of its
own (``Link``: the unix VM's pipe with the bus operations on it, or the
Pico's USB serial), and both talk to the one serve loop of
host_sim/vm/vm_serve.py.  The host's scheduler runs the application's jobs:
``Link.step(job)`` runs one step there.

Front-ends ask about the application through ``Remote`` objects named by a
root of vm_serve.py's allow-list (``ALLOWED``): ``table.app`` (a
``RemoteApp``) has ``view`` (the table's view's questions) and the App's
inputs (``input``, ``inject``); ``table.view`` is the engine's view of the
session in play.  Reading a name asks the other side for its value (data comes
back as data, a method as a ``Remote`` to call); anything the allow-list does
not name is refused there with ``AttributeError("refused: <path>")``.
"""
import json
import time

from host_sim.scheduler import Scheduler
from host_sim.table import LED_NAMES, VirtualTable
from table.app import JOBS


class VmError(RuntimeError):
    """The other side raised an exception, or stopped."""


def plain(v):
    """Arguments for the other side: JSON, with bytes and tuples tagged (as
    host_sim/vm/vm_serve.py ``unplain`` reads them)."""
    if isinstance(v, (bytes, bytearray)):
        return {"$b": bytes(v).hex()}
    if isinstance(v, tuple):
        return {"$t": [plain(x) for x in v]}
    if isinstance(v, list):
        return [plain(x) for x in v]
    if isinstance(v, dict):
        return {k: plain(x) for k, x in v.items()}
    return v


def unplain(v):
    """An answer as what it was there (vm_serve.py ``plain``'s tags undone)."""
    if isinstance(v, list):
        return [unplain(x) for x in v]
    if isinstance(v, dict):
        if "$b" in v:
            return bytes.fromhex(v["$b"])
        if "$t" in v:
            return tuple(unplain(x) for x in v["$t"])
        if "$d" in v:
            return {unplain(k): unplain(x) for k, x in v["$d"]}
        return {k: unplain(x) for k, x in v.items()}
    return v


class Link:
    """The commands of vm_serve.py over ``pipe`` (its ``stdin`` written to, its
    ``stdout`` read line by line): a job step, a value, a call; each answered
    by an ``@=`` or ``@!`` line.  Lines starting with ``@`` and another letter
    are messages of the bus operations (``handlers``: the unix VM's); other
    lines are what the firmware printed."""

    def __init__(self, pipe, handlers=None):
        self.proc = pipe
        self.handlers = handlers or {}
        self.fn_paths = set()
        self.pending = None            # an error met serving a message that has no answer
        self.pin_lines = {}            # a message line seen before -> (its function, argument)
        self.busy_since = None         # when the command being served was sent

    # ----- commands ---------------------------------------------------------------------

    def step(self, job):
        """Run one step of job number ``job`` (its index in table/app.py ``JOBS``):
        the ms the job waits now (``App.wait_after``)."""
        return self.command(b"s%c" % (48 + job))

    def get(self, path):
        if path in self.fn_paths:
            return Remote(self, path)
        value = self.command(self.frame(b"g%s\n" % path.encode()))
        if isinstance(value, dict) and value.get("$") in ("fn", "obj"):
            if value["$"] == "fn":
                self.fn_paths.add(path)
            return Remote(self, path)
        return value

    def call(self, path, args):
        return self.command(self.frame(("c%s %s\n" % (path, json.dumps(plain(list(args)))))
                                       .encode()))

    def command(self, data):
        """Send ``data`` (a command as the other side reads it) and serve until its answer."""
        self.proc.stdin.write(data)
        self.proc.stdin.flush()
        return self.serve()

    @staticmethod
    def frame(line):
        """``line`` (bytes with its newline) as the other side reads it."""
        return line

    # ----- serving the other side's messages until the command's answer ------------------

    def serve(self):
        self.busy_since = time.monotonic()
        try:
            return self._serve()
        finally:
            self.busy_since = None

    def _serve(self):
        readline = self.proc.stdout.readline
        handlers = self.handlers
        pin_lines = self.pin_lines
        while True:
            line = readline()
            level = pin_lines.get(line)
            if level is not None:              # a pin write seen before: no parsing
                self._guard(*level)
                continue
            if line[:1] != b"@":
                if not line:
                    raise VmError("the MicroPython VM stopped%s:\n%s" % (
                        self.why_stopped(), self.stderr_tail()))
                continue                       # the firmware printed something
            kind = line[1:2]
            if kind == b"=":
                error, self.pending = self.pending, None
                if error is not None:
                    raise VmError("a bus operation failed in the VM: %s" % error)
                return unplain(json.loads(line[2:]))
            if kind == b"!":
                name, _, text = line[2:-1].decode().partition(" ")
                if name == "AttributeError":
                    raise AttributeError(text)
                raise VmError("%s: %s\n%s" % (name, text, self.stderr_tail()))
            try:
                reply = handlers[kind](line[2:-1])
            except OSError as exc:
                reply = b"!OSError %d" % (exc.errno or 5)
            except Exception as exc:   # the chip model refused: raised in the VM's driver
                reply = ("!%s %s" % (type(exc).__name__, exc)).encode()
            if reply is not None:
                self.proc.stdin.write(b"%04d%s\n" % (len(reply) + 1, reply))
                self.proc.stdin.flush()

    def stderr_tail(self, n=2000):
        """What the other side last wrote besides its answers (its tracebacks)."""
        return ""

    def why_stopped(self):
        """Why the other side stopped, when the host knows ("": it did by itself)."""
        return ""

    def _guard(self, fn, arg):
        """An operation without an answer: an error is kept for the command's end."""
        try:
            fn(arg)
        except Exception as exc:
            if self.pending is None:
                self.pending = "%s: %s" % (type(exc).__name__, exc)


class Remote:
    """A root of vm_serve.py's allow-list (``view``, ``engine``, ``host``, ...),
    or one of its methods (``view.placed``)."""

    def __init__(self, link, path):
        self._link = link
        self._path = path

    def __getattr__(self, name):
        if name.startswith("__"):
            raise AttributeError(name)
        return self._link.get(self._path + "." + name)

    def __call__(self, *args):
        return self._link.call(self._path, args)

    def __repr__(self):
        return "<across the bridge: %s>" % self._path


class RemoteApp:
    """The App on the other side as the host may reach it: ``view`` (the
    table's read-only view, table/table_view.py) and its inputs."""

    def __init__(self, link):
        self.view = Remote(link, "view")
        self._inputs = Remote(link, "app")

    def input(self, ev):
        """Queue an input for the game job (table/app.py ``App.input``)."""
        return self._inputs.input(ev)

    def inject(self, reader, uid):
        """The console's place/lift (table/app.py ``App.inject``)."""
        return self._inputs.inject(reader, uid)


class BridgedTable(VirtualTable):
    """``VirtualTable`` whose application runs in another MicroPython: the
    chip models stay here (``board``), the application is reached over
    ``link`` (``bridge``, called by the runtime's ``boot``)."""

    def bridge(self, link, clock):
        """The application behind ``link``, its jobs run on ``clock`` by the
        host's scheduler (``after_step(name)``: called after each step)."""
        self.link = link
        self.app = RemoteApp(link)
        self.after_step = None
        self._colours = None
        self.waits = {}                # job name -> the wait its last step asked for
        self.scheduler = Scheduler(clock, [(name, self._stepper(name, job), period)
                                           for job, (name, _method, period) in enumerate(JOBS)],
                                   lambda name, period: self.waits.get(name, period))

    def _stepper(self, name, job):
        link = self.link

        def step():
            self.waits[name] = link.step(job)
            if self.after_step is not None:
                self.after_step(name)
        return step

    def close(self):
        self.link.close()

    @property
    def view(self):
        return Remote(self.link, "engine")

    def journal_name(self):
        return Remote(self.link, "host").journal_name()

    def journal_lines(self, start=0, stop=None):
        """As ``VirtualTable.journal_lines``, fetched a few lines per answer
        (vm_serve.py ``Host``): a long session's journal never has to fit the
        other side's heap at once."""
        host = Remote(self.link, "host")
        end = stop if stop is not None else 1 << 30
        out = []
        while start + len(out) < end:
            part = host.journal_lines(start + len(out), end)
            if not part:
                break
            out += part
        return out

    def leds(self):
        if self._colours is None:        # the driver's colour table, asked once
            leds = Remote(self.link, "leds")
            self._colours = {tuple(leds.colour(i)): LED_NAMES[i]
                             for i in range(len(LED_NAMES))}
        return [self._colours.get(tuple(c), "?") for c in self.board.strip.colours]
