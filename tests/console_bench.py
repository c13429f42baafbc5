"""The console on a virtual table, for the console tests (not a test file).

``Pipe`` is a non-blocking input stream to feed, ``Lines`` collects the JSON
lines written, ``pinned_table`` is a virtual table whose settings hold the
referee PIN (as ``tapptable deploy --pin`` leaves a board), and ``Bench`` puts
the unchanged console (firmware/table/console.py) between them on the table's
virtual clock.
"""
import json

from host_sim.table import VirtualTable
from table import console as C
from tools.tapptable import sim_serial

PIN = "4711"


class Pipe:
    """A non-blocking input stream to feed."""

    def __init__(self):
        self.buf = bytearray()

    def feed(self, data):
        self.buf += data

    def readinto(self, mv):
        n = min(len(mv), len(self.buf))
        if not n:
            return None
        mv[:n] = self.buf[:n]
        del self.buf[:n]
        return n


class Lines:
    """The output stream: JSON lines collected."""

    def __init__(self):
        self.part = ""
        self.lines = []

    def write(self, s):
        self.part += s
        while "\n" in self.part:
            line, self.part = self.part.split("\n", 1)
            self.lines.append(json.loads(line))

    def take(self):
        out, self.lines = self.lines, []
        return out

    def answer(self, rid):
        return [m for m in self.lines if m.get("id") == rid]


def pinned_table(root=None, **kw):
    """A virtual table whose settings hold the referee PIN."""
    return VirtualTable(root=sim_serial.flash_with_pin(PIN, root), **kw)


class Bench:
    """The console on ``table``, stepped on its virtual clock."""

    def __init__(self, table):
        self.table = table
        self.pipe, self.out = Pipe(), Lines()
        self.console = C.Console(table.app, self.pipe, self.out)
        table.app.set_console(self.console)
        table.wait(40)

    def ask(self, wait=100, **req):
        """Send one request, run the table ``wait`` ms; its final answer."""
        self.pipe.feed((json.dumps(req) + "\n").encode())
        self.table.wait(wait)
        got = [m for m in self.out.answer(req.get("id")) if "more" not in m]
        if not got:     # a long command's answer: written at the console's next step
            self.table.wait(wait)
            got = [m for m in self.out.answer(req.get("id")) if "more" not in m]
        assert got, "no answer to %r" % req
        return got[-1]
