"""The console's outgoing lines, rendered straight into one byte buffer.

Answers and live events were dicts made into str lines by
``tapp.jsonout.dumps`` and queued as such: a list of pieces, the joined line,
its line end -- a KB or two of garbage a line on the Pico, so with a console
client the heap filled within a trick or two and collections came in the
middle of a deal (docs/benchmarks.md).  ``Outbox`` writes the same bytes
(keys in jsonout's KEY_ORDER, the others by name) into a fixed bytearray: a
str's bytes copied in C through a memoryview (one 16-byte object per str on
the Pico: a str looked at character by character would intern each
character as a qstr), ints digit by digit, a dict's keys taken in order
without a sorted list.  A line that does not fit waits as a str in
``spill`` and goes out after the buffer's (a long answer, a client that does
not read): nothing queued is lost.
"""
from tapp.jsonout import KEY_ORDER, KEY_RANK, RawJson, dumps, escaped

try:
    from micropython import const
except ImportError:  # CPython
    const = lambda x: x  # noqa: E731

try:
    memoryview("")
    _STR_BUFFER = True              # MicroPython: a str lends its own UTF-8 bytes
except TypeError:                   # CPython: a str has no buffer
    _STR_BUFFER = False


def _bytes_of(s):
    """The UTF-8 bytes of the str ``s`` as a memoryview."""
    return memoryview(s) if _STR_BUFFER else memoryview(s.encode("utf-8", "surrogatepass"))


_SIZE = const(1024)     # bytes of lines waiting to be written (a status answer: some 650)
_OTHER = const(99)      # the rank of a key not in KEY_ORDER: after those, by name
_PICKED = const(4)      # a dict with more keys has them sorted


def _next_key(d, last):
    """The key of ``d`` that follows ``last`` (None: the first) in ``dumps``'
    order: by rank in KEY_ORDER, the others after them by name."""
    best = None
    for k in d:
        if (last is None or _after(k, last)) and (best is None or _after(best, k)):
            best = k
    return best


def _after(a, b):
    """Does key ``a`` come after key ``b``?"""
    ra = KEY_RANK.get(a, _OTHER)
    rb = KEY_RANK.get(b, _OTHER)
    return ra > rb if ra != rb else a > b


def line_of(body, rid=None):
    """``body`` as a str line (no line end) after ``"id": rid`` (None: no id)."""
    line = dumps(body)
    if rid is None:
        return line
    return '{"id":' + dumps(rid) + ("," + line[1:] if len(line) > 2 else "}")


class Outbox:
    """Lines waiting to be written: in the buffer, then in ``spill``."""

    def __init__(self):
        self.buf = bytearray(_SIZE)
        self.view = memoryview(self.buf)
        self.head = 0           # the first byte not yet written out
        self.tail = 0           # the end of the lines in the buffer
        self.start = 0          # where the line being rendered began
        self.over = False       # ... and whether it ran past the buffer's end
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

    # ----- JSON --------------------------------------------------------------------------

    def _value(self, v):
        """(The common kinds first: each test is a step of bytecode on the Pico.)"""
        if isinstance(v, str):
            self._text(v)
        elif v is None:
            self._copy(b"null")
        elif v is True:
            self._copy(b"true")
        elif v is False:
            self._copy(b"false")
        elif isinstance(v, int):
            self._int(v)
        elif isinstance(v, list) or isinstance(v, tuple):
            self._list(v)
        elif isinstance(v, dict):
            self._byte(123)
            self._items(v, False)
            self._byte(125)
        elif isinstance(v, RawJson):
            self._copy(_bytes_of(v.text))
        else:
            self.tail = self.start             # as dumps says it (nothing of the line stays)
            raise TypeError("cannot encode " + str(type(v)))

    def _items(self, d, sep):
        """``d``'s items in dumps' key order; ``sep``: a comma before the first.
        A few keys are picked one by one (no list made); more are sorted (a
        status answer's 27 keys picked one by one: 700 comparisons, some
        100 ms on the Pico)."""
        if len(d) > _PICKED:
            self._sorted_items(d, sep)
            return
        k = _next_key(d, None)
        while k is not None:
            sep = self._item(k, d[k], sep)
            k = _next_key(d, k)

    def _sorted_items(self, d, sep):
        for r in sorted([KEY_RANK[k] for k in d if k in KEY_RANK]):
            k = KEY_ORDER[r]
            sep = self._item(k, d[k], sep)
        for k in sorted([k for k in d if k not in KEY_RANK]):
            sep = self._item(k, d[k], sep)

    def _item(self, k, v, sep):
        if sep:
            self._byte(44)
        self._text(k)
        self._byte(58)
        self._value(v)
        return True

    def _list(self, v):
        self._byte(91)
        sep = False
        for x in v:
            if sep:
                self._byte(44)
            sep = True
            self._value(x)
        self._byte(93)

    def _int(self, v):
        if v < 0:
            self._byte(45)
            v = -v
        if v >= 10:
            self._int(v // 10)
        self._byte(48 + v % 10)

    def _text(self, s):
        """``s`` quoted; escaped as ``dumps`` escapes it (a quote, a backslash, a
        control character, a surrogate or a character beyond the BMP: rare, made
        by jsonout's ``escaped``).  In one call: a call is the dearest step of
        bytecode on the Pico."""
        mv = _bytes_of(s)
        n = self.tail + 1
        k = n + len(mv)
        if k >= _SIZE:
            self.over = True
            return
        buf = self.buf
        buf[n - 1] = 34
        buf[n:k] = mv
        buf[k] = 34
        self.tail = k + 1
        if k > n and (buf.find(b'"', n, k) >= 0 or buf.find(b"\\", n, k) >= 0
                      or min(mv) < 0x20 or max(mv) >= 0xED):
            self.tail = n - 1
            self._copy(_bytes_of(escaped(s)))

    def _copy(self, mv):
        """The bytes of ``mv`` (a memoryview or bytes) at the line's end."""
        n = self.tail
        k = n + len(mv)
        if k > _SIZE:
            self.over = True
            return
        self.buf[n:k] = mv
        self.tail = k

    def _byte(self, b):
        n = self.tail
        if n >= _SIZE:
            self.over = True
            return
        self.buf[n] = b
        self.tail = n + 1
