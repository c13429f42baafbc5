"""A session's record folded into its settled deals, and the session's id.

The watcher never trusts a total it did not work out: it replays the record
(the table's journal as downloaded) through the same engine as ``tapptable
replay`` (``tapp.record.Replayer``) and keeps what the results say.  Only the
*settled* part counts: the lines up to the last one that carried a result; a
deal in progress (or a torn last line) is not history yet.

The session id is the SHA-256 of the record's lines (without the journal's CRC
suffix) up to the end of the first settled deal that shows something no other
session has: dealt hands (strict mode) or a card played.  It is known from the
first such deal on and never changes as the session grows, so the same session
downloaded twice -- live deal by deal, again after a restart, as a finished
file with the PIN, or from another watcher over MQTT -- is one row.
"""
import hashlib
import json

from tapp.record import parse_line
from tapp.replay import Replayer
from tapp.variants import HeaderError


class FoldError(ValueError):
    """The record makes no session (bad header): the message says why."""


def body(line):
    """A record line without its line end and without the journal's CRC suffix."""
    line = line.rstrip("\r\n")
    text, tab, crc = line.rpartition("\t")
    if tab and len(crc) == 8:
        return text
    return line


class Folded:
    """What a record says: ``header`` (dict), ``deals`` (the results in order),
    ``settled`` (lines up to the last result), ``sid`` (None before an
    identifying deal is settled)."""

    def __init__(self, header, deals, settled, sid, lines):
        self.header = header
        self.deals = deals
        self.settled = settled
        self.sid = sid
        self.lines = lines

    def settled_lines(self):
        return self.lines[:self.settled]

    def seats(self):
        names = self.header.get("seats")
        n = self.header.get("players", 0)
        if isinstance(names, list) and len(names) == n and all(isinstance(x, str)
                                                               for x in names):
            return list(names)
        return ["Platz %d" % (i + 1) for i in range(n)]


def fold(lines):
    """Fold record lines (str, CRC suffix or not) into a ``Folded``."""
    lines = [x.rstrip("\r\n") for x in lines if x.strip()]
    if not lines:
        raise FoldError("empty record: no header line")
    try:
        rep = Replayer(lines[0])
    except HeaderError as exc:
        raise FoldError("bad header: %s" % exc) from None
    header = parse_line(lines[0])
    deals = []
    settled = 1
    sid = None
    digest = hashlib.sha256()
    digest.update(body(lines[0]).encode() + b"\n")
    identifying = False
    for i, line in enumerate(lines[1:], start=1):
        out = rep.feed(line)
        digest.update(body(line).encode() + b"\n")
        ev = parse_line(line)
        if ev is not None and (ev.get("ev") == "play" or (
                ev.get("ev") == "deal" and ev.get("hands") not in (None, "hidden"))):
            identifying = True
        if out is None:
            continue
        outcome = json.loads(out)
        result = outcome.get("result")
        if outcome.get("ok") and isinstance(result, dict):
            deals.append(result)
            settled = i + 1
            if sid is None and identifying:
                sid = digest.hexdigest()
    return Folded(header, deals, settled, sid, lines)
