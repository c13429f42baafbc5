"""The serial console: one JSON object per line each way (docs/console.md).

``Console(app, stream_in, stream_out)``; the app's "console" job calls
``step()`` every 20 ms.  Each step does a bounded amount of work: the wire
(table/console_link.py) reads at most 512 bytes and writes at most 4 KB, at
most ``CMDS_PER_STEP`` requests are handled, the live events
(table/console_events.py) are watched.  Nothing here blocks.

Requests and responses::

    {"id": 7, "cmd": "status"}          ->  {"id":7,"ok":true,...}
    {"id": 8, "cmd": "undo", "pin": "4711"}
    {"id": 9, "cmd": "nonsense"}        ->  {"id":9,"ok":false,"error":"unknown_command",
                                             "message":"..."}

A long answer comes as parts ``{"id":..,"more":true,...}`` and ends with the
line that has ``"ok"``.  Live events are lines with ``"event"`` (no id).

This module holds the dispatch and ``hello``, ``ping`` and ``status``; the
other commands that only read (view, score, journal, readers, log, help) are
in table/console_reads.py, the ones that change settings, decks or run the
self-test in table/console_admin.py, the inputs to the game (undo, place,
press, a new session, the REPL) in table/console_play.py -- each loaded on
the first use of one of its commands.  The referee PIN guards what reveals or changes the
game (``PinLock``).  While the table plays, keyboard interrupt is off
(``run_table``): a 0x03 byte is just a byte; the ``repl`` command hands the
board to the REPL.
"""
from tapp.jsonout import dumps
from tapp.record import OVERLONG, parse_line

from .console_events import LEVELS, Live
from .console_link import (
    CMDS_PER_STEP,
    PROTOCOL,
    ROOM,
    Failure,
    HandOver,
    PinLock,
    Wire,
    is_int,
    said,
)
from .presence import ticks_diff

try:
    from micropython import const
except ImportError:  # CPython
    const = lambda x: x  # noqa: E731

# the status answer's keys while a session is in play (``cmd_status``)
_IN_PLAY = ("variant", "players", "seats", "mode", "phase", "expects", "turn", "deals",
            "trick_number", "trick", "journal")

PAUSE_MS = 250   # the console's steps wait at most this long for the table to be idle
_STEP_MS = const(2)   # work is begun in a step until it has run this long (``spent``:
                      # a status answer made in 3 ms and written in the same step held it 15)

# the one answer said without the text store (table/messages.py): looking a
# text up allocates, and this is said when the heap has just run out
NO_MEMORY = "out of memory"

# Commands whose module is imported on their first use: a board's RAM holds only
# the parts of the console someone uses (the RP2040 runs out importing it all
# at once from .mpy files).
LATER = {"set": "console_admin", "registry": "console_admin", "enrol": "console_admin",
         "selftest": "console_admin", "help": "console_reads", "view": "console_reads",
         "score": "console_reads", "journal": "console_reads", "readers": "console_reads",
         "log": "console_reads", "undo": "console_play",
         "reset-session": "console_play", "place": "console_play", "lift": "console_play",
         "press": "console_play", "repl": "console_play"}


class Console:
    """The line protocol on one pair of streams."""

    def __init__(self, app, stream_in, stream_out):
        self.app = app
        self.clock = app.board.ticks_ms
        self.now = self.clock()
        self.started = self.now
        self.wire = Wire(stream_in, stream_out, self.clock)
        self.lock = PinLock(self.referee_pin, self.root(), self.now)
        self.live = Live(app, self.wire, self.now)
        self.conn = self.wire.connection()
        self.task = None
        self.handing_over = False
        self.status_body = {}       # the status answer's, filled afresh (``cmd_status``)
        self.due = None             # a request line read when the step was spent (``requests``)
        own = Console               # handlers are called as handler(console, rid, req)
        self.commands = {"hello": own.cmd_hello, "ping": own.cmd_ping,
                         "status": own.cmd_status}
        self.wire.event({"event": "hello", "app": "tapptable", "protocol": PROTOCOL})

    # ----- the step -----------------------------------------------------------------

    def step(self):
        """One step of the console; none while a card, a button or the screen
        waits for the table (``App.nothing_waits``) -- an answer or a live event
        made then would hold the card up by a few ms to tens of ms on the Pico
        -- for up to PAUSE_MS (a card is shown within that, also one that ends
        a trick, some 100 ms on the Pico; the console is never held up for
        longer)."""
        now = self.clock()
        if ticks_diff(now, self.now) < PAUSE_MS and not self.app.nothing_waits():
            return
        self.now = now
        wire = self.wire
        wire.begin(now)
        done = wire.waiting()          # the lines the last step made: written first
        if done:
            wire.flush()
        if not self.spent(done) and wire.put_held():   # an answer it held: rendered
            done = True
        conn = wire.connection()
        if conn != self.conn:
            self.conn = conn
            self.live.end_connection()
        self.live.expire(now)
        done = self.watch(done)
        if self.task is not None and not self.spent(done):
            self.run_task(self.task)
            done = True
        self.requests(done)
        if not self.spent(done):       # else at the next step's start: a status answer
            wire.flush()               # rendered and written in one held the Pico 10-13 ms
        if self.handing_over and wire.empty():
            raise HandOver()

    def spent(self, done):
        """Is this step over: it did some work (``done``; each step does some)
        and has run ``_STEP_MS`` on the device's clock?  Work not begun then
        waits for the next step -- the live events, a request, an answer's
        line: a step doing all of them held the table's loop 25-35 ms on the
        Pico."""
        return done and ticks_diff(self.clock(), self.now) >= _STEP_MS

    def watch(self, done):
        """The live events, unless the step is ``spent``: whether it did work."""
        if self.spent(done):
            return done
        wire = self.wire
        room = wire.room()
        self.live.watch()
        return done or wire.room() != room

    def requests(self, done):
        """The request lines waiting, until the step is ``spent`` (at most
        ``CMDS_PER_STEP``, and only while the output has room); a line whose
        reading spent the step is handled at the next (``due``: on the Pico a
        status request's bytes read, parsed and answered in one step held the
        loop 15-20 ms)."""
        wire = self.wire
        handled = 0
        while self.task is None and handled < CMDS_PER_STEP and wire.room() >= ROOM \
                and not self.spent(done or handled):
            line = self.due
            self.due = None
            if line is None:
                line = wire.next_line()
                if line is None:
                    break
                if self.spent(True):
                    self.due = line      # read late in the step: handled at the next
                    break                # (the reader's buffer is not read into meanwhile)
            handled += 1
            self.line(line)

    def run_task(self, task):
        try:
            if task.run(self):
                self.task = None
        except Failure as f:
            self.task = None
            self.wire.fail(task.rid, f.code, f.message, f.extra)

    # ----- requests ----------------------------------------------------------------------

    def line(self, raw):
        wire = self.wire
        wire.requests += 1
        self.live.heard(self.now)
        if raw is OVERLONG:
            wire.bad_lines += 1
            wire.fail(None, "too_long", None, {"line": wire.lineno()})
            return
        req = parse_line(raw)
        if req is None:
            wire.bad_lines += 1
            wire.fail(None, "bad_line", None, {"line": wire.lineno()})
            return
        rid = req.get("id")
        if rid is not None and not (is_int(rid) or (isinstance(rid, str) and len(rid) <= 64)):
            wire.fail(None, "bad_request")
            return
        cmd = req.get("cmd")
        if not isinstance(cmd, str):
            wire.fail(rid, "bad_request")
            return
        if cmd == "enroll":          # the old spelling, still understood
            cmd = "enrol"
        handler = self.commands.get(cmd)
        if handler is None and cmd in LATER:
            try:
                handler = self.load(cmd)
            except MemoryError:
                wire.fail(rid, "failed", NO_MEMORY)
                return
        if handler is None:
            wire.fail(rid, "unknown_command", said("a_unknown_command") % dumps(cmd[:32]))
            return
        try:
            body = handler(self, rid, req)
        except Failure as f:
            wire.fail(rid, f.code, f.message, f.extra)
            return
        except MemoryError:
            wire.fail(rid, "failed", NO_MEMORY)
            return
        except Exception as exc:   # a bug must not stop the table: say so and go on
            wire.fail(rid, "failed", "%s: %s" % (type(exc).__name__, str(exc)[:80]))
            return
        if body is not None:
            body["ok"] = True
            if self.spent(True):
                wire.hold(rid, body)     # written at the next step's start
            else:
                wire.answer(rid, body)

    def load(self, cmd):
        """Import the module of ``cmd`` (LATER) and take in its commands."""
        import gc
        gc.collect()
        module = __import__("table." + LATER[cmd], None, None, ["COMMANDS"])
        commands = module.COMMANDS
        for name in commands:
            self.commands[name] = commands[name]
        return self.commands.get(cmd)

    def command_names(self):
        names = list(self.commands)
        for name in LATER:
            if name not in self.commands:
                names.append(name)
        return sorted(names)

    # ----- shared by the commands -----------------------------------------------------

    def authorise(self, req):
        self.lock.authorise(req, self.now)

    def referee_pin(self):
        return self.app.settings.referee_pin

    def root(self):
        return getattr(self.app.board, "root", None) or "/"

    def playing(self):
        """The engine's view of the session in play (else the answer is not_ready)."""
        tv = self.app.view
        view = tv.engine()
        if view is None or tv.stage() != "play":
            raise Failure("not_ready")
        return view

    def seats(self):
        view = self.app.view.engine()
        return list(view.seat_names()) if view is not None else None

    def hidden(self):
        """Does the journal of the session in play hold hidden cards now?"""
        view = self.app.view.engine()
        return view is not None and view.strict() and view.in_deal()

    def journal_len(self):
        journal = self.app.view.journal()
        return len(journal) if journal is not None else -1

    def start(self, task):
        """The answer comes from ``task`` over the next steps."""
        self.task = task

    def hand_over(self):
        """After this step's output: stop the table for the REPL (``repl``)."""
        self.handing_over = True

    # ----- commands that only read --------------------------------------------------------

    def cmd_hello(self, rid, req):
        """A client starts: what it set before (a log level) ends here."""
        self.live.end_connection()
        return {"app": "tapptable", "protocol": PROTOCOL}

    def cmd_ping(self, rid, req):
        return {"t": self.now}

    def cmd_status(self, rid, req):
        """(One dict for every answer, filled afresh, the keys that do not apply
        now taken out: a client asks every few seconds, and a new dict grown key
        by key, its keys sorted each time, was some 3 KB of garbage on the Pico.)"""
        tv = self.app.view
        wire = self.wire
        out = self.status_body
        out["app"] = "tapptable"
        out["protocol"] = PROTOCOL
        out["state"] = tv.stage()
        out["uptime_ms"] = ticks_diff(self.now, self.started)
        out["log"] = LEVELS[self.live.level]
        out["pin"] = self.referee_pin() is not None
        out["retry_ms"] = self.lock.retry_ms(self.now)
        out["deck"] = tv.deck()
        out["screen"] = tv.rows()
        out["language"] = tv.language()
        out["readers"] = tv.readers()
        out["readers_down"] = readers_down(tv)
        out["requests"] = wire.requests
        out["bad_lines"] = wire.bad_lines
        out["dropped"] = wire.dropped_total
        free = tv.heap_free()
        if free is not None:
            out["mem_free"] = free
        view = tv.engine()
        if view is not None:
            out["variant"] = view.variant()
            out["players"] = view.players()
            out["seats"] = view.seat_names()      # (a tuple the view keeps: no copy)
            out["mode"] = view.mode()
            out["phase"] = view.phase()
            out["expects"] = view.expects()
            out["turn"] = view.turn()
            out["deals"] = view.deals_played()
            out["trick_number"] = view.trick_number()
            out["trick"] = view.trick()
            out["journal"] = self.journal_len() if tv.journal() is not None else 0
        else:
            for k in _IN_PLAY:
                out.pop(k, None)
        enrol = tv.enrol_progress()
        if enrol is not None:
            out["enrol"] = {"deck": tv.deck(), "have": enrol[0], "total": enrol[1]}
        else:
            out.pop("enrol", None)
        return out


def readers_down(tv):
    """The readers that stopped answering, by number: the same empty tuple
    when none did (a list each status answer was garbage every few seconds)."""
    down = None
    for i in range(tv.readers()):
        if tv.reader_down(i):
            if down is None:
                down = []
            down.append(i)
    return _NONE if down is None else down


_NONE = ()


def attach(app):
    """The device's console on the USB serial line (or the REPL UART):
    ``sys.stdin`` polled, ``sys.stdout`` written; the app's console job steps it."""
    import sys
    console = Console(app, sys.stdin, sys.stdout)
    app.set_console(console)
    return console
