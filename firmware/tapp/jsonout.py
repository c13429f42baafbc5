"""Compact, canonical JSON for outcome lines.

MicroPython's dicts do not keep insertion order, so outcome lines are written
by this encoder with a fixed key order; CPython and MicroPython then print
byte-identical lines (the issue's replay-equivalence test relies on it).

``JsonBytes`` writes the same bytes straight into a fixed bytearray, without
``dumps``' garbage (a list of pieces, the joined line: a KB or two a line on
the Pico, where the console's answers and the journal's lines came often
enough to fill the heap within a deal: docs/benchmarks.md): a str's bytes
copied in C through a memoryview (one 16-byte object per str on the Pico: a
str looked at character by character would intern each character as a qstr;
kept for every key and event word, the views were 2 KB of heap for good, and
the lowest free heap is the Pico's tighter budget), ints digit by digit, a
dict's keys taken in order without a sorted list (more than a few: sorted,
the order kept for the next dict with the same keys).  What does not fit
sets ``over`` and the caller drops it (table/console_out.py spills the line
as a str, table/journal_flash.py writes it through ``dumps``).
"""
try:
    from micropython import const
except ImportError:  # CPython
    const = lambda x: x  # noqa: E731

KEY_ORDER = (
    "ok", "error", "seat", "card", "trick", "revoke", "result",
    "n", "leader", "cards", "winner",
    "declarer", "contract", "trump", "target", "points", "tricks", "won",
    "schneider", "schwarz", "multiplier", "payments", "pot", "balances",
    "pot_total", "next_dealer", "penalty", "settled_points", "session_over",
    "rule",
)
KEY_RANK = {k: i for i, k in enumerate(KEY_ORDER)}
# the keys a line names most besides KEY_ORDER's: written as they are, in three
# pieces ('"', the key, '":'), without the look at each character a key of a
# dict from elsewhere gets (``_put_str``).  Not as '"key":' literals: each would
# be a qstr of its own, and the Pico's qstr pool is near a 15 KB step
# (docs/benchmarks.md, "The qstr pool").
PLAIN_KEYS = ("ev", "dealer", "hands", "talon", "call", "discard", "give", "reason",
              "announce", "options", "variant", "players", "mode", "seats", "first_dealer",
              "record")


class RawJson:
    """A value that is JSON text already, written as it is (``text``): a
    journal line inside a console event, not parsed and written again."""

    def __init__(self, text):
        self.text = text


def _put_str(s, out):
    """``s`` quoted onto ``out``; escaped (``escaped``) where it holds a
    quote, a backslash, a control character or a byte that may begin a
    surrogate or a character beyond the BMP (UTF-8 0xED and up: a superset,
    ``escaped`` writes the rest as they are).  Looked at as bytes by C
    loops: a str's characters one by one cost a 1-character str each, about
    100 us apiece on the Pico."""
    b = s.encode("utf-8", "surrogatepass")   # (CPython: a lone surrogate too)
    if b'"' in b or b"\\" in b or (b and (min(b) < 0x20 or max(b) >= 0xED)):
        out.append(escaped(s))
        return
    out.append('"')               # nothing to escape (card codes, words): no new text
    out.append(s)
    out.append('"')


def escaped(s):
    """``s`` as a JSON string, quoted and escaped (``_put_str`` says which)."""
    out = ['"']
    for ch in s:
        o = ord(ch)
        if ch == '"':
            out.append('\\"')
        elif ch == "\\":
            out.append("\\\\")
        elif o < 0x20 or 0xD800 <= o <= 0xDFFF:
            # control characters, and surrogates: CPython cannot write a lone one
            # as UTF-8, MicroPython keeps a \u-escaped pair as two halves
            out.append("\\u%04x" % o)
        elif o > 0xFFFF:
            # as a \u pair, which is what MicroPython's two halves print as too
            o -= 0x10000
            out.append("\\u%04x\\u%04x" % (0xD800 + (o >> 10), 0xDC00 + (o & 0x3FF)))
        else:
            out.append(ch)
    out.append('"')
    return "".join(out)


def dumps(v):
    """Encode dicts, lists, str, int, bool and None; dict keys in KEY_ORDER.
    The pieces are gathered and joined once: on the Pico every new str costs
    a search of MicroPython's interned strings (about 50 us; a session's
    header, concatenated piece by piece, took 27 ms)."""
    out = []
    _put(v, out)
    return "".join(out)


def _put(v, out):
    """``v`` encoded onto the list ``out``.  Loops, not generator
    expressions: a generator resumed by join() costs a second interpreter
    frame on the C stack per level, and the deal's event (hands: lists in a
    list in a dict) is written deep in the game's calls -- on the Pico one
    more frame there was once too many."""
    if v is None:
        out.append("null")
    elif v is True:
        out.append("true")
    elif v is False:
        out.append("false")
    elif isinstance(v, int):
        out.append(str(v))
    elif isinstance(v, str):
        _put_str(v, out)
    elif isinstance(v, (list, tuple)):
        out.append("[")
        sep = False
        for x in v:
            if sep:
                out.append(",")
            sep = True
            _put(x, out)
        out.append("]")
    elif isinstance(v, dict):
        _put_dict(v, out)
    elif isinstance(v, RawJson):
        out.append(v.text)
    else:
        raise TypeError("cannot encode " + str(type(v)))


def _put_dict(v, out):
    """The keys of KEY_ORDER in its order, then the others by name (not
    sorted by a (rank, name) tuple per key: a status answer's keys made a few
    KB of garbage)."""
    out.append("{")
    sep = False
    for k in _in_order(v):
        sep = _put_item(k, v, out, sep)
    out.append("}")


def _put_item(k, v, out, sep):
    if sep:
        out.append(",")
    if k in KEY_RANK or k in PLAIN_KEYS:
        out.append('"')
        out.append(k)
        out.append('":')
    else:
        _put_str(k, out)
        out.append(":")
    _put(v[k], out)
    return True


try:
    memoryview("")
    _STR_BUFFER = True              # MicroPython: a str lends its own UTF-8 bytes
except TypeError:                   # CPython: a str has no buffer
    _STR_BUFFER = False


def _bytes_of(s):
    """The UTF-8 bytes of the str ``s`` as a memoryview."""
    return memoryview(s) if _STR_BUFFER else memoryview(s.encode("utf-8", "surrogatepass"))


def _put_plain(buf, at, s, n):
    """Where the port compiles viper (tapp/jsonout_native.py): the n characters
    of ``s`` into ``buf[at:at + n]`` when all are printable ASCII without a
    quote or a backslash (1), else 0.  Elsewhere always 0: ``_encoded`` writes
    every str (the same bytes)."""
    return 0


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


def _in_order(d):
    """``d``'s keys in dumps' order: KEY_ORDER's, then the others by name."""
    keys = [KEY_ORDER[r] for r in sorted([KEY_RANK[k] for k in d if k in KEY_RANK])]
    keys += sorted([k for k in d if k not in KEY_RANK])
    return keys


def _same_keys(d, keys):
    """Has ``d`` exactly the keys of the list ``keys``?"""
    if len(d) != len(keys):
        return False
    for k in keys:
        if k not in d:
            return False
    return True


def _after(a, b):
    """Does key ``a`` come after key ``b``?"""
    ra = KEY_RANK.get(a, _OTHER)
    rb = KEY_RANK.get(b, _OTHER)
    return ra > rb if ra != rb else a > b


class JsonBytes:
    """A fixed buffer of ``size`` bytes that JSON values are written into at
    ``tail`` (``start``: where the value being written began; ``over``: it
    ran past the end -- nothing of it counts then)."""

    def __init__(self, size):
        self.size = size
        self.buf = bytearray(size)
        self.view = memoryview(self.buf)
        self.tail = 0
        self.start = 0
        self.over = False
        self.order = None       # the keys of a dict in order: ``_sorted_items``

    def object_at(self, d, at):
        """The dict ``d`` as a JSON object from ``buf[at]`` on: where it ends,
        or -1 when it did not fit."""
        self.start = at
        self.tail = at
        self.over = False
        self._byte(123)
        self._items(d, False)
        self._byte(125)
        if self.over:
            self.tail = at
            return -1
        return self.tail

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
        """The keys sorted as for the last dict written with the same keys
        (``order``: a status answer every few seconds is sorted once).  (An
        index, not ``for``: its iterator's 4 words on the stack would put this
        frame on the heap at every call.)"""
        keys = self.order
        if keys is None or not _same_keys(d, keys):
            keys = self.order = _in_order(d)
        i = 0
        while i < len(keys):
            k = keys[i]
            sep = self._item(k, d[k], sep)
            i += 1

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
        """Digit by digit from the last, in place (a call per digit, as it
        was, went one frame deeper for each: an uptime's seven overran the
        Pico's stack under the console's step).  (Few locals: a frame over
        11 words would be put on the heap.)"""
        if v < 0:
            self._byte(45)
            v = -v
        n = self.tail + 1
        k = v
        while k >= 10:
            k //= 10
            n += 1
        if n > self.size:
            self.over = True
            return
        self.tail = n
        buf = self.buf
        while True:
            n -= 1
            buf[n] = 48 + v % 10
            v //= 10
            if not v:
                return

    def _text(self, s):
        """``s`` quoted; escaped as ``dumps`` escapes it (a quote, a backslash, a
        control character, a surrogate or a character beyond the BMP: rare, made
        by jsonout's ``escaped``).  Printable ASCII (nearly every key and
        word) is copied by machine code where the port has it (no view of the
        str: 16 bytes of garbage a str on the Pico, some 50 a status answer)."""
        n = self.tail + 1
        k = n + len(s)
        if k < self.size and _put_plain(self.buf, n, s, k - n):
            buf = self.buf
            buf[n - 1] = 34
            buf[k] = 34
            self.tail = k + 1
            return
        self._encoded(s)

    def _encoded(self, s):
        """``_text`` for any str: its UTF-8 bytes seen through a view."""
        mv = _bytes_of(s)
        n = self.tail + 1
        k = n + len(mv)
        if k >= self.size:
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
        if k > self.size:
            self.over = True
            return
        self.buf[n:k] = mv
        self.tail = k

    def _byte(self, b):
        n = self.tail
        if n >= self.size:
            self.over = True
            return
        self.buf[n] = b
        self.tail = n + 1


try:                    # printable ASCII copied by machine code, where the port compiles viper
    from . import jsonout_native
    _put_plain = jsonout_native.put_plain  # noqa: F811  # pyright: ignore[reportAssignmentType]
except (ImportError, SyntaxError, ValueError):   # no viper; an .mpy of another arch
    pass
