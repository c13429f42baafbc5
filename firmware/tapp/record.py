"""Record lines (RECORD.md): parsing, journal CRC suffix, and replay.

A line may end with a tab and 8 hex digits of CRC-32 over the JSON text (the
device journal); readers accept lines with and without it.  A line that is not
JSON, not an object, or fails its CRC yields ``bad_event`` (convention 1).
"""
import json

from .jsonout import dumps
from .session import Session
from .variants import HeaderError

try:
    from binascii import crc32 as _crc32
except ImportError:  # pragma: no cover - ports without binascii.crc32
    _crc32 = None

BAD_EVENT = {"ok": False, "error": "bad_event"}


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


def _is_hex(text):
    for ch in text:
        if ch not in "0123456789abcdefABCDEF":
            return False
    return True


def is_blank(line):
    """Blank lines get no outcome; only spaces, tabs and line ends count as blank
    (str.strip's idea of whitespace differs between CPython and MicroPython)."""
    return line.strip(" \t\r\n") == ""


def parse_line(line):
    """The JSON object of one record line, or None if the line is corrupt."""
    line = line.strip("\r\n")
    tab = line.rfind("\t")
    if tab >= 0 and len(line) - tab == 9 and _is_hex(line[tab + 1:]):
        text = line[:tab]
        if crc_hex(text) != line[tab + 1:].lower():
            return None
        line = text
    try:
        obj = json.loads(line)
    except (ValueError, TypeError, IndexError, RuntimeError):
        return None  # RuntimeError: nesting too deep (RecursionError in CPython)
    return obj if isinstance(obj, dict) else None


def open_session(header_line):
    """Session for a header line; HeaderError with a one-line reason if bad."""
    obj = parse_line(header_line)
    if obj is None:
        raise HeaderError("header line is not a JSON object")
    return Session(obj)


class Replayer:
    """Feeds record lines to a Session and answers outcome lines (strings)."""

    def __init__(self, header_line):
        self.session = open_session(header_line)

    def feed(self, line):
        """Outcome line for one event line, or None for a blank line."""
        if is_blank(line):
            return None
        ev = parse_line(line)
        if ev is None:
            return dumps(BAD_EVENT)
        return dumps(self.session.apply(ev))


def replay_stream(readline, write):
    """Replay a record read line by line; write one outcome line per event.

    Returns 0, or raises HeaderError for a missing or bad header.
    """
    header = readline()
    while header and is_blank(header):
        header = readline()
    if not header:
        raise HeaderError("empty record: no header line")
    rep = Replayer(header)
    while True:
        line = readline()
        if not line:
            break
        out = rep.feed(line)
        if out is not None:
            write(out + "\n")
    return 0


def replay_file(path, write):
    with open(path) as f:
        return replay_stream(f.readline, write)
