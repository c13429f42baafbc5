"""Replaying a record: one outcome line per event line (docs/record-format.md).

``Replayer`` feeds the lines of a record to a ``Session``; ``replay_stream``
reads them from a file, a stream or a readline function.  What an outcome may
echo of the input is bounded (``safe_outcome``), and messages are one
printable ASCII line (``one_line``), so CPython and MicroPython print the same
bytes.  Used by the tools, the host simulator and the tests (the same code runs
under CPython, the unix port and the 32-bit wasm port); the device itself only
reads, checks and writes lines (tapp/record.py), and does not import this:
each name here would be one more qstr in the Pico's pool (docs/benchmarks.md,
"The qstr pool"), and the Pico's image leaves it out (its ROMFS partition is
full).  Absolute imports: ``tapptable replay --runtime rp2040`` puts it on the
emulated Pico's filesystem beside the image, as the module ``tapp_replay``.
"""
from tapp.jsonout import dumps
from tapp.record import BOM, LineReader, header_problem, is_blank, parse_line
from tapp.session import Session
from tapp.variants import HeaderError

BAD_EVENT = {"ok": False, "error": "bad_event"}


class _CallReader:
    """LineReader's interface over a readline function (text or binary), e.g. a
    text file's ``f.readline``: unbounded -- the line is built by the caller --
    but gives the same outcomes (the length limit is checked by parse_line)."""

    def __init__(self, readline):
        self._readline = readline
        self.lineno = 0
        self.eof = False

    def readline(self):
        if self.eof:
            return None
        line = self._readline()
        if not line:
            self.eof = True
            return None
        self.lineno += 1
        return line


def reader_for(source):
    """A LineReader-like object for a LineReader, a byte stream, or a readline
    function (``f.readline``)."""
    if callable(source):
        return _CallReader(source)
    if hasattr(source, "lineno"):
        return source
    return LineReader(source)


# ----------------------------------------------------------------- messages and echoes


def one_line(text, limit=200):
    """``text`` as one printable ASCII line of at most about ``limit`` characters:
    control characters as \\xNN, other non-ASCII as \\uNNNN (UTF-16 pairs above
    U+FFFF), so CPython and MicroPython print exactly the same message."""
    out = []
    size = 0
    for ch in text:
        o = ord(ch)
        if o < 0x20 or o == 0x7F:
            s = "\\x%02x" % o
        elif o < 0x7F:
            s = ch
        elif o <= 0xFFFF:
            s = "\\u%04x" % o
        else:
            o -= 0x10000
            s = "\\u%04x\\u%04x" % (0xD800 + (o >> 10), 0xDC00 + (o & 0x3FF))
        if size + len(s) > limit:
            out.append("...")
            break
        out.append(s)
        size += len(s)
    return "".join(out)


def exc_message(exc):
    """One line naming an exception: its type and message (MicroPython's
    MemoryError has no message: then the type alone)."""
    text = str(exc)
    name = type(exc).__name__
    return one_line(name + ": " + text if text else name)


def _card_like(v):
    """A short ASCII letters-and-digits string: what an error outcome may echo as
    ``card`` (a card code looks like this; anything else is not repeated)."""
    if not isinstance(v, str) or not 1 <= len(v) <= 3:
        return False
    for ch in v:
        if not ("A" <= ch <= "Z" or "a" <= ch <= "z" or "0" <= ch <= "9"):
            return False
    return True


def safe_outcome(out, players):
    """Bound what a rejected event's outcome echoes from the input: ``seat`` only
    if it is a seat of this table (an int 0..players-1), ``card`` only if it
    looks like a card code.  So no echo is huge, unprintable or runtime-specific."""
    if out.get("ok") is False:
        seat = out.get("seat")
        if seat is not None and (not isinstance(seat, int) or isinstance(seat, bool)
                                 or seat < 0 or seat >= players):
            del out["seat"]
        if "card" in out and not _card_like(out["card"]):
            del out["card"]
    return out


# ----------------------------------------------------------------- replay


def open_session(header_line):
    """Session for a header line; HeaderError with a one-line reason if bad."""
    obj = parse_line(header_line)
    if obj is None:
        raise HeaderError(header_problem(header_line))
    try:
        return Session(obj)
    except HeaderError as exc:
        raise HeaderError(one_line(str(exc))) from None


class Replayer:
    """Feeds record lines to a Session and answers outcome lines (strings)."""

    def __init__(self, header_line):
        self.session = open_session(header_line)
        self.players = self.session.rules.players

    def feed(self, line):
        """Outcome line for one event line (str, bytes or OVERLONG), or None for a
        blank line."""
        if is_blank(line):
            return None
        ev = parse_line(line)
        if ev is None:
            return dumps(BAD_EVENT)
        return dumps(safe_outcome(self.session.apply(ev), self.players))


def replay_stream(source, write):
    """Replay a record; write one outcome line per event.

    ``source`` is a LineReader (its ``lineno`` then tells where a failure
    happened), a byte stream (read through a LineReader), or a readline function.
    A UTF-8 byte order mark is skipped at the very start only.  Returns 0, or
    raises HeaderError for a missing or bad header.
    """
    rd = reader_for(source)
    header = rd.readline()
    if isinstance(header, str):
        if header[:1] == "\ufeff":
            header = header[1:]
    elif isinstance(header, (bytes, bytearray)) and header[:3] == BOM:
        header = header[3:]
    while header is not None and is_blank(header):
        header = rd.readline()
    if header is None:
        raise HeaderError("empty record: no header line")
    rep = Replayer(header)
    while True:
        line = rd.readline()
        if line is None:
            break
        out = rep.feed(line)
        if out is not None:
            write(out + "\n")
    return 0

