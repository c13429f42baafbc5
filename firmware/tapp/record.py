"""Record lines (docs/record-format.md): reading, checking, parsing, journal CRC suffix.

The same bytes reach the engine from a file, the device journal or the serial
port, and must get the same answer under CPython, the MicroPython unix port and
the 32-bit ports.  MicroPython's ``json.loads`` is lax (trailing commas, NULs,
``01``, ``{1:2}``, missing commas, unknown escapes), CPython's accepts NaN and
Infinity, and neither bounds nesting or length.  So a line is checked by
``check_json`` (a strict scanner over the bytes: integers only, nothing
allocated) before ``json.loads`` ever sees it.

A valid line (everything else is a corrupt line: ``bad_event``, convention 1):

* at most ``MAX_LINE`` (4096) bytes before its ``\\n``; a ``\\r`` before the
  ``\\n`` is dropped (CRLF files read like LF files); a lone ``\\r`` is no line
  end (a file with CR-only line ends is one long line);
* optionally ending in a tab and 8 hex digits: the CRC-32 of the text before it
  (the device journal), which must match;
* well-formed UTF-8 (RFC 3629: no overlong forms, no encoded surrogates);
* exactly one JSON object per RFC 8259 (optional whitespace around it; no
  NaN/Infinity, no trailing commas, no control characters inside strings),
  nested at most ``MAX_DEPTH`` (8) objects/arrays deep (docs/record-format.md's lines nest
  3 deep), with at most ``MAX_VALUES`` (256) values and keys in all (so parsing
  one line needs a few KB of heap, not the 30-70 KB that 4096 bytes of ``[0],``
  or ``{},`` would build), and no lone surrogate in a ``\\u`` escape (a pair is
  fine).

RFC 8259 section 9 lets a parser limit text size, nesting depth and string
contents; these are those limits.  A UTF-8 byte order mark is accepted as the
first three bytes of a record only (RFC 8259 8.1: parsers may ignore it).

``LineReader`` reads lines of at most MAX_LINE bytes from any byte stream in
chunks and skips the rest of a longer line without keeping it, so neither a
50 MB line nor an erased-flash tail of 0xFF bytes costs more than one buffer.
Replaying a record (outcome lines) is tapp/replay.py's: the device never
imports it.
"""
import json

try:
    from micropython import const
except ImportError:  # CPython
    const = lambda x: x  # noqa: E731

try:
    from binascii import crc32 as _crc32
except ImportError:  # pragma: no cover - ports without binascii.crc32
    _crc32 = None

MAX_LINE = 4096   # bytes of one line before its "\n" (a CR and the CRC suffix count)
MAX_DEPTH = 8     # nested objects/arrays of one line (docs/record-format.md's nest at most 3)
MAX_VALUES = 256  # values and keys of one line (docs/record-format.md's biggest, a deal, has < 80)
BOM = b"\xef\xbb\xbf"


class _Overlong:
    """What LineReader returns for a line longer than its limit."""

    def __repr__(self):
        return "OVERLONG"


OVERLONG = _Overlong()


# ----------------------------------------------------------------- CRC suffix


def _crc32_soft(data):
    """CRC-32 (IEEE) computed in two 16-bit halves: no long ints on 32-bit ports."""
    hi = 0xFFFF
    lo = 0xFFFF
    for b in data:
        lo ^= b
        for _ in range(8):
            carry = lo & 1
            lo = (lo >> 1) | ((hi & 1) << 15)
            hi >>= 1
            if carry:
                hi ^= 0xEDB8
                lo ^= 0x8320
    return "%04x%04x" % (hi ^ 0xFFFF, lo ^ 0xFFFF)


def crc_hex(text):
    data = text.encode() if isinstance(text, str) else text
    if _crc32 is not None:
        return "%08x" % (_crc32(data) & 0xFFFFFFFF)
    return _crc32_soft(data)


def with_crc(text):
    """A journal line: JSON text, tab, CRC-32 in 8 hex digits."""
    return text + "\t" + crc_hex(text)


def _hexval(c):
    """Value of one ASCII hex digit (a byte), or -1."""
    if 0x30 <= c <= 0x39:
        return c - 0x30
    c |= 0x20
    if 0x61 <= c <= 0x66:
        return c - 0x57
    return -1


def _crc_suffix(b, n):
    """True if b[:n] ends in a tab and 8 hex digits."""
    if n < 9 or b[n - 9] != 9:
        return False
    for i in range(n - 8, n):
        if _hexval(b[i]) < 0:
            return False
    return True


def _crc_matches(b, n):
    """The CRC-32 of b[:n-9] equals the 8 hex digits at b[n-8:n] (any case)."""
    want = crc_hex(bytes(b[:n - 9]))
    for k in range(8):
        if _hexval(b[n - 8 + k]) != _hexval(ord(want[k])):
            return False
    return True


# ----------------------------------------------------------------- the scanner

_VALUE = const(0)            # a value must come
_VALUE_OR_CLOSE = const(1)   # after "[": a value or "]"
_KEY = const(2)              # after "," in an object: a key
_KEY_OR_CLOSE = const(3)     # after "{": a key or "}"
_COLON = const(4)            # after a key
_AFTER = const(5)            # after a value: "," or the close of its container

_ESCAPES = b'"\\/bfnrt'


def _hex4(b, i, n):
    """Value of the 4 hex digits at b[i:i+4], or -1."""
    if i + 4 > n:
        return -1
    v = 0
    for k in range(i, i + 4):
        d = _hexval(b[k])
        if d < 0:
            return -1
        v = (v << 4) | d
    return v


def _utf8(b, i, n):
    """Index after the well-formed UTF-8 sequence starting at b[i] (a byte >= 0x80),
    or -1 (RFC 3629 table: no overlong forms, no surrogates, nothing above U+10FFFF)."""
    c = b[i]
    if c < 0xC2 or c > 0xF4:
        return -1
    lo = 0x80
    hi = 0xBF
    if c < 0xE0:
        need = 1
    elif c < 0xF0:
        need = 2
        if c == 0xE0:
            lo = 0xA0
        elif c == 0xED:
            hi = 0x9F
    else:
        need = 3
        if c == 0xF0:
            lo = 0x90
        elif c == 0xF4:
            hi = 0x8F
    if i + need >= n:
        return -1
    c = b[i + 1]
    if c < lo or c > hi:
        return -1
    for k in range(i + 2, i + need + 1):
        c = b[k]
        if c < 0x80 or c > 0xBF:
            return -1
    return i + need + 1


def _string(b, i, n):
    """Index after the JSON string whose opening quote is at b[i-1], or -1."""
    while i < n:
        c = b[i]
        i += 1
        if c == 0x22:
            return i
        if c == 0x5C:
            if i >= n:
                return -1
            c = b[i]
            i += 1
            if c == 0x75:
                u = _hex4(b, i, n)
                i += 4
                if 0xD800 <= u <= 0xDBFF:   # a high surrogate: its low half must follow
                    if i + 6 > n or b[i] != 0x5C or b[i + 1] != 0x75:
                        return -1
                    u = _hex4(b, i + 2, n)
                    if u < 0xDC00 or u > 0xDFFF:
                        return -1
                    i += 6
                elif u < 0 or 0xDC00 <= u <= 0xDFFF:
                    return -1
            elif c not in _ESCAPES:
                return -1
        elif c < 0x20:
            return -1
        elif c >= 0x80:
            i = _utf8(b, i - 1, n)
            if i < 0:
                return -1
    return -1


def _number(b, i, n):
    """Index after the RFC 8259 number starting at b[i], or -1."""
    if b[i] == 0x2D:
        i += 1
    if i >= n:
        return -1
    c = b[i]
    if c == 0x30:
        i += 1
    elif 0x31 <= c <= 0x39:
        i += 1
        while i < n and 0x30 <= b[i] <= 0x39:
            i += 1
    else:
        return -1
    if i < n and b[i] == 0x2E:
        i += 1
        start = i
        while i < n and 0x30 <= b[i] <= 0x39:
            i += 1
        if i == start:
            return -1
    if i < n and (b[i] == 0x65 or b[i] == 0x45):
        i += 1
        if i < n and (b[i] == 0x2B or b[i] == 0x2D):
            i += 1
        start = i
        while i < n and 0x30 <= b[i] <= 0x39:
            i += 1
        if i == start:
            return -1
    return i


def _word(b, i, n, word):
    """Index after the literal ``word`` (true, false, null) at b[i], or -1."""
    k = len(word)
    if i + k > n:
        return -1
    for j in range(k):
        if b[i + j] != word[j]:
            return -1
    return i + k


def _skip_ws(b, i, n):
    while i < n:
        c = b[i]
        if c != 0x20 and c != 0x09 and c != 0x0A and c != 0x0D:
            return i
        i += 1
    return i


def check_json(b, i=0, n=-1):
    """True if the bytes b[i:n] are exactly one JSON object (RFC 8259) within the
    limits of this module (see the module text).  ``b`` is bytes, a bytearray or
    a memoryview; the scan uses small integers only and allocates nothing."""
    if n < 0:
        n = len(b)
    i = _skip_ws(b, i, n)
    if i >= n or b[i] != 0x7B:
        return False
    depth = 0
    arrays = 0          # bit d: the open container at depth d is an array
    state = _VALUE
    items = 0           # values and keys so far
    while True:
        if i >= n:
            return False
        c = b[i]
        if c == 0x20 or c == 0x09 or c == 0x0A or c == 0x0D:
            i += 1
            continue
        if c == 0x7D or c == 0x5D:          # } or ]
            if (arrays >> depth) & 1:
                ok = c == 0x5D and (state == _AFTER or state == _VALUE_OR_CLOSE)
            else:
                ok = c == 0x7D and (state == _AFTER or state == _KEY_OR_CLOSE)
            if not ok or depth == 0:
                return False
            depth -= 1
            i += 1
            if depth == 0:
                return _skip_ws(b, i, n) == n
            state = _AFTER
            continue
        if state == _AFTER:
            if c != 0x2C:                   # ,
                return False
            state = _VALUE if (arrays >> depth) & 1 else _KEY
            i += 1
            continue
        if state == _COLON:
            if c != 0x3A:
                return False
            state = _VALUE
            i += 1
            continue
        items += 1
        if items > MAX_VALUES:
            return False
        if state == _KEY or state == _KEY_OR_CLOSE:
            if c != 0x22:
                return False
            i = _string(b, i + 1, n)
            if i < 0:
                return False
            state = _COLON
            continue
        # a value
        if c == 0x7B or c == 0x5B:          # { or [
            depth += 1
            if depth > MAX_DEPTH:
                return False
            if c == 0x5B:
                arrays |= 1 << depth
                state = _VALUE_OR_CLOSE
            else:
                arrays &= ~(1 << depth)
                state = _KEY_OR_CLOSE
            i += 1
            continue
        if c == 0x22:
            i = _string(b, i + 1, n)
        elif c == 0x2D or 0x30 <= c <= 0x39:
            i = _number(b, i, n)
        elif c == 0x74:
            i = _word(b, i, n, b"true")
        elif c == 0x66:
            i = _word(b, i, n, b"false")
        elif c == 0x6E:
            i = _word(b, i, n, b"null")
        else:
            return False
        if i < 0:
            return False
        state = _AFTER


# ----------------------------------------------------------------- lines


def _as_bytes(line):
    """The bytes of a line given as str or bytes-like; None if a str cannot be
    encoded (CPython strs may hold lone surrogates)."""
    if isinstance(line, str):
        try:
            return line.encode()
        except UnicodeError:
            return None
    return line


def _content_end(b):
    """Length of a line without its "\\n" and a "\\r" before it."""
    n = len(b)
    if n and b[n - 1] == 0x0A:
        n -= 1
    if n and b[n - 1] == 0x0D:
        n -= 1
    return n


def _body(line):
    """(bytes, length without the "\n") of a line within the length limit, or
    (None, 0) for an overlong or unreadable one."""
    if line is OVERLONG:
        return None, 0
    b = _as_bytes(line)
    if b is None:
        return None, 0
    n = len(b)
    if n and b[n - 1] == 0x0A:
        n -= 1
    if n > MAX_LINE:
        return None, 0
    return b, n


def is_blank(line):
    """Blank lines get no outcome: only spaces, tabs and line ends, and not over
    the length limit (an overlong line is corrupt however it looks)."""
    b, n = _body(line)
    if b is None:
        return False
    for i in range(n):
        c = b[i]
        if c != 0x20 and c != 0x09 and c != 0x0D:
            return False
    return True


def parse_line(line):
    """The JSON object of one record line (str or bytes, with or without its line
    end), or None if the line is corrupt (see the module text)."""
    b, n = _body(line)
    if b is None:
        return None
    if n and b[n - 1] == 0x0D:
        n -= 1
    if _crc_suffix(b, n):
        if not _crc_matches(b, n):
            return None
        n -= 9
    if not check_json(b, 0, n):
        return None
    if n < len(b) or not isinstance(b, bytes):
        b = bytes(b[:n])
    try:
        obj = json.loads(b)   # bytes: checked UTF-8, so no str copy is needed
    except (ValueError, TypeError, IndexError, RuntimeError):
        return None  # not expected after check_json; stays a corrupt line if it happens
    return obj if isinstance(obj, dict) else None


class LineReader:
    """Lines of at most ``limit`` bytes from a byte stream, in bounded memory.

    ``stream`` needs ``readinto(buf)`` or ``read(n)`` returning bytes: a file
    opened ``"rb"``, ``sys.stdin.buffer``, a UART, io.BytesIO.  It is read in
    chunks of ``chunk`` bytes; use ``chunk=1`` for a blocking serial stream that
    waits for a full chunk.  ``readline()`` returns the next line without its
    ``"\\n"`` (bytes), ``OVERLONG`` for a line longer than ``limit`` (skipped to
    its newline, never kept), or None when no further line is there: at the end
    of the stream (``eof`` is then True; a last line without "\\n" -- a torn
    tail -- is returned first) or when a non-blocking stream has no data now
    (``read`` gave None; the partial line is kept for the next call).
    ``lineno`` counts the lines returned.  Two buffers are allocated once;
    ``line`` may bring the larger one (``limit`` bytes or more), allocated
    early and shared by readers that never read at the same time, so a
    fragmented heap does not have to find ``limit`` bytes in one piece.  A
    smaller ``line`` serves the usual short lines (a console's requests):
    a longer one gets a buffer of ``limit`` bytes for itself, which goes with
    it (if the heap has no such block then, the line counts as too long).
    """

    def __init__(self, stream, limit=MAX_LINE, chunk=256, line=None):
        self._stream = stream
        self._readinto = getattr(stream, "readinto", None)
        self._buf = bytearray(chunk)
        self._mv = memoryview(self._buf)
        self._pos = 0
        self._end = 0
        self._line = line if line is not None else bytearray(limit)
        self._lmv = memoryview(self._line)
        self._given = self._line           # the buffer lines go back to after a longer one
        self._n = 0            # bytes of the current line so far
        self._long = False     # the current line is over the limit
        self._any = False      # the current line has begun (some byte seen)
        self.limit = limit
        self.lineno = 0
        self.eof = False

    def __iter__(self):
        return self

    def __next__(self):
        line = self.readline()
        if line is None:
            raise StopIteration
        return line

    def _fill(self):
        """Read one chunk: its size, 0 at the end of the stream, None for no data now."""
        if self._readinto is not None:
            k = self._readinto(self._buf)
        else:
            data = self._stream.read(len(self._buf))
            if data is None:
                return None
            k = len(data)
            self._buf[0:k] = data
        if k is None:
            return None
        self._pos = 0
        self._end = k
        return k

    def _take(self):
        self.lineno += 1
        n = self._n
        long = self._long
        self._n = 0
        self._long = False
        self._any = False
        out = OVERLONG if long else bytes(self._lmv[0:n])
        if self._line is not self._given:
            self._line = self._given
            self._lmv = memoryview(self._given)
        return out

    def readline(self):
        while True:
            if self._pos >= self._end:
                if self.eof:
                    return None
                k = self._fill()
                if k is None:
                    return None
                if k == 0:
                    self.eof = True
                    return self._take() if self._any else None
            nl = self._buf.find(b"\n", self._pos, self._end)
            self._keep(self._end if nl < 0 else nl)
            if nl < 0:
                self._pos = self._end
            else:
                self._pos = nl + 1
                return self._take()

    def _keep(self, stop):
        """The chunk's bytes from the read position up to ``stop`` onto the line,
        unless it is over the limit.  (Apart from ``readline``: a frame over 11
        words would be put on the heap at every call, and a console polls
        ``readline`` at every step.)"""
        pos = self._pos
        if stop <= pos:
            return
        self._any = True
        if self._long:
            return
        n = self._n
        k = n + stop - pos
        if k > self.limit or (k > len(self._line) and not self._grow(n)):
            self._long = True
        else:
            self._line[n:k] = self._mv[pos:stop]
            self._n = k

    def _grow(self, n):
        """A buffer of ``limit`` bytes for a line longer than the given one (its
        ``n`` bytes so far copied): whether the heap had one."""
        try:
            big = bytearray(self.limit)
        except MemoryError:
            return False
        big[0:n] = self._lmv[0:n]
        self._line = big
        self._lmv = memoryview(big)
        return True


def header_problem(line):
    """Why a header line is no JSON object (one line)."""
    if line is OVERLONG:
        return "header line longer than %d bytes" % MAX_LINE
    b = _as_bytes(line)
    if b is not None:
        n = _content_end(b)
        for i in range(n):
            if b[i] == 0x0D and _skip_ws(b, i, n) < n:
                return ("header line is not a JSON object (a CR inside the line: "
                        "lines must end with LF or CRLF)")
    return "header line is not a JSON object"
