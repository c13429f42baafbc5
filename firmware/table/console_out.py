"""The console's outgoing lines, rendered straight into one byte buffer.

Answers and live events were dicts made into str lines by
``tapp.jsonout.dumps`` and queued as such: a list of pieces, the joined line,
its line end -- a KB or two of garbage a line on the Pico, so with a console
client the heap filled within a trick or two and collections came in the
middle of a deal (docs/benchmarks.md).  ``Outbox`` writes the same bytes into
a fixed bytearray (tapp/jsonout.py).  A line that does not fit waits as a
str in ``spill`` and goes out after the buffer's (a long answer, a client
that does not read): nothing queued is lost.
"""
from tapp.jsonout import JsonBytes, dumps

try:
    from micropython import const
except ImportError:  # CPython
    const = lambda x: x  # noqa: E731

_SIZE = const(1024)     # bytes of lines waiting to be written (a status answer: some 650)


def line_of(body, rid=None):
    """``body`` as a str line (no line end) after ``"id": rid`` (None: no id)."""
    line = dumps(body)
    if rid is None:
        return line
    return '{"id":' + dumps(rid) + ("," + line[1:] if len(line) > 2 else "}")


class Outbox(JsonBytes):
    """Lines waiting to be written: in the buffer (``tail``: the end of its
    lines), then in ``spill``."""

    def __init__(self):
        JsonBytes.__init__(self, _SIZE)
        self.head = 0           # the first byte not yet written out
        self.spill = []         # lines (str) that did not fit, written after the buffer's

    # ----- what waits ------------------------------------------------------------------

    def lines(self):
        """Lines waiting (the buffer's and the spilled)."""
        return self.buf.count(b"\n", self.head, self.tail) + len(self.spill)

    def chunk(self, most):
        """The buffer's next whole lines, at most ``most`` bytes (a memoryview), or
        None; ``sent`` says how many of them went out."""
        head = self.head
        end = self.tail
        if end - head > most:
            end = self.buf.rfind(b"\n", head, head + most) + 1
        if end <= head:
            return None
        return self.view[head:end]

    def spilled(self, take=False):
        """The next spilled line (str, no line end) once the buffer's are out, or
        None; ``take``: it goes out now."""
        if self.head != self.tail or not self.spill:
            return None
        return self.spill.pop(0) if take else self.spill[0]

    def sent(self, n):
        self.head += n
        if self.head >= self.tail:
            self.head = 0
            self.tail = 0

    # ----- lines in ----------------------------------------------------------------------

    def put(self, body, rid):
        """``body`` (a dict) as one line, after ``"id": rid`` unless rid is None:
        into the buffer if it fits there and nothing spilled waits, else spilled
        (the buffer is used from its start again once all of it was written)."""
        if self.spill or not self._render(body, rid):
            self.spill.append(line_of(body, rid))

    def _render(self, body, rid):
        """Whether the line fitted (else nothing of it stays)."""
        self.start = self.tail
        self.over = False
        self._byte(123)
        sep = rid is not None
        if sep:
            self._copy(b'"id":')
            self._value(rid)
        self._items(body, sep)
        self._byte(125)
        self._byte(10)
        if self.over:
            self.tail = self.start
            return False
        return True
