"""Console answers that take more than one step (docs/console.md).

A task's ``run(con)`` does a bounded amount of work per console step and
returns True when its answer is complete: ``JournalTask`` streams journal
lines, ``ScoreTask`` folds the journal into the score history (one part per
deal), ``WaitTask`` answers once the table has acted on an input.
"""
from tapp.record import parse_line
from tapp.session import Session

from .console_link import Failure, said
from .presence import ticks_diff

try:
    from micropython import const
except ImportError:  # CPython
    const = lambda x: x  # noqa: E731

_LINES_PER_STEP = const(8)       # journal lines streamed per step
_FOLD_PER_STEP = const(16)       # journal events folded per step (score history)
_WAIT_MS = const(1500)           # place/lift/press/undo: how long to wait for the table


class JournalSource:
    """The lines of a journal, one at a time, from an iterator of lines (a
    session's ``read_lines()``, or a store's ``lines(name)``: read from flash
    line by line, table/journal.py)."""

    def __init__(self, lines):
        self.lines = lines

    def next_line(self):
        """The next line (str), None at the end."""
        if self.lines is None:
            return None
        for line in self.lines:
            return line
        self.lines = None
        return None

    def close(self):
        lines = self.lines
        self.lines = None
        close = getattr(lines, "close", None)
        if close is not None:
            close()          # a generator: its file (and the shared buffer) at once


class SourceTask:
    """Work through a journal's lines, ``per_step`` a step while the answer queue
    has room: ``take(line, wire)`` each, ``finish(wire)`` at the end."""
    per_step = _LINES_PER_STEP

    def __init__(self, rid, source):
        self.rid = rid
        self.source = source

    def run(self, con):
        wire = con.wire
        k = 0
        while k < self.per_step and wire.room() > 1:
            line = self.source.next_line()
            if line is None:
                self.source.close()
                self.finish(wire)
                return True
            self.take(line, wire)
            k += 1
        return False

    def take(self, line, wire):
        """One line of the journal (each task says what it makes of it)."""

    def finish(self, wire):
        """The answer's last line."""


class JournalTask(SourceTask):
    """Stream journal lines as parts of one answer."""

    def __init__(self, rid, source):
        super().__init__(rid, source)
        self.sent = 0

    def take(self, line, wire):
        wire.answer(self.rid, {"more": True, "line": line})
        self.sent += 1

    def finish(self, wire):
        wire.answer(self.rid, {"ok": True, "count": self.sent})


class ScoreTask(SourceTask):
    """The score sheet from the journal: the session's events folded into a
    scratch session; a part per settled deal, then the totals."""
    per_step = _FOLD_PER_STEP

    def __init__(self, rid, source, seats):
        super().__init__(rid, source)
        self.seats = seats
        self.session = None
        self.deals = 0

    def take(self, line, wire):
        ev = parse_line(line)
        if ev is None:
            return
        if self.session is None:
            try:
                self.session = Session(ev)
            except Exception:
                self.source.close()
                raise Failure("failed", said("a_bad_header")) from None
            return
        self.session.apply(ev)
        view = self.session.view
        if view.deals_played() > self.deals:
            self.deals = view.deals_played()
            wire.answer(self.rid, {"more": True, "deal": self.deals,
                                   "result": view.last_result(),
                                   "balances": view.balances(), "pot": view.pot()})

    def finish(self, wire):
        view = self.session.view if self.session is not None else None
        body = {"ok": True, "seats": self.seats, "deals": self.deals}
        if view is not None:
            body["balances"] = view.balances()
            body["pot"] = view.pot()
            body["session_over"] = view.session_over()
            body["last_result"] = view.last_result()
        wire.answer(self.rid, body)


class WaitTask:
    """Answer once ``done()`` holds (and one more step has passed, so the game
    job has acted on it), or after ``limit_ms``."""

    def __init__(self, now, rid, done, answer, limit_ms=_WAIT_MS):
        self.rid = rid
        self.done = done
        self.make = answer
        self.start = now
        self.limit = limit_ms
        self.seen = False

    def run(self, con):
        if self.seen or ticks_diff(con.now, self.start) >= self.limit:
            body = self.make(self.seen)
            body["ok"] = True
            con.wire.answer(self.rid, body)
            return True
        if self.done():
            self.seen = True
        return False
