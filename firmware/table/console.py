"""The serial line protocol: one JSON object per line each way (docs/console.md).

``Console(app, stream_in, stream_out, pin=None)``; the app's "console" job
calls ``step()`` every 20 ms.  Each step does a bounded amount of work: it
reads at most ``IN_BUDGET`` bytes and handles at most ``CMDS_PER_STEP``
requests, watches the table for live events and writes at most
``OUT_BUDGET`` bytes.  Nothing here blocks: on the device the input is read
only while ``select.poll`` says a byte is there; in the simulator the input
stream's ``readinto``/``read`` answers None when nothing has arrived.

Requests and responses::

    {"id": 7, "cmd": "status"}          ->  {"id":7,"ok":true,...}
    {"id": 8, "cmd": "undo", "pin": "4711"}
    {"id": 9, "cmd": "nonsense"}        ->  {"id":9,"ok":false,"error":"unknown_command",
                                             "message":"..."}

A long answer comes as parts ``{"id":..,"more":true,...}`` and ends with the
line that has ``"ok"``.  Live events are lines with ``"event"`` (no id).
Lines are read by ``tapp.record.LineReader`` (at most 4096 bytes) and
checked by ``parse_line`` / ``check_json`` before ``json.loads``: garbled
bytes, invalid UTF-8 and overlong lines get one error line each and change
nothing.

The referee lock: commands that reveal hidden information (hands, talon,
registry UIDs, the journal of a strict deal in progress) or change the game,
the score sheet or the settings need the referee PIN (settings
``referee_pin``) in the request's ``"pin"``.  Wrong PINs are refused with a
delay that doubles with every further failure (on the board's clock); while
it runs every PIN is refused unchecked.  Without a PIN on the table those
commands are refused (``no_pin``).  Ctrl-C (byte 0x03) on the USB serial
line still stops the app and drops to the MicroPython REPL: the console
never disables it.
"""
from drivers.buttons import KEY_NEXT, KEY_OK, KEY_PREV, LONG, SHORT
from tapp import errors as E
from tapp.cards import CARD_CODES, CODE_INDEX, NCARDS
from tapp.catalog import PRESETS, VARIANTS, variant_ids
from tapp.jsonout import dumps
from tapp.record import OVERLONG, LineReader, is_blank, parse_line
from tapp.session import Session
from tapp.variants import HeaderError

from . import presence as P
from . import registry as R
from .app import ENROL, PLAYING
from .game import DEALING
from .journal import FOLDER as JOURNAL_DIR
from .presence import ticks_diff
from .settings import KEYS as SETTING_KEYS
from .settings import Settings, join
from .texts import text

PROTOCOL = 1
IN_BUDGET = 512          # input bytes read per step
CMDS_PER_STEP = 4        # requests handled per step
OUT_BUDGET = 4096        # output bytes written per step
QUEUE = 48               # output lines waiting; live events beyond it are dropped (counted)
ROOM = 8                 # a request is read only with this many lines free
JOURNAL_PER_STEP = 8     # journal lines streamed / watched per step
HISTORY = 100            # deals kept in the score history
PIN_DELAY_MS = 500       # the first wrong PIN; doubled per further failure
PIN_DELAY_MAX = 300000   # at most 5 minutes
DEBUG_MS = 900000        # the debug log level falls back to info after 15 minutes
WAIT_MS = 1500           # place/lift: how long to wait for the readers
TICKS_MASK = 0x3FFFFFFF

LEVELS = ("off", "error", "info", "debug")
OFF = 0
ERROR = 1
INFO = 2
DEBUG = 3

STATES = ("setup", "enrol", "play")        # App.mode: SETUP, ENROL, PLAYING
STATUS_NAMES = ("absent", "present", "collision", "error")
KEY_NAMES = {"prev": KEY_PREV, "next": KEY_NEXT, "ok": KEY_OK}
OK_SHORT = KEY_OK * 2 + SHORT
OK_LONG = KEY_OK * 2 + LONG
SET_KEYS = ("variant", "options", "players", "seat_names", "first_dealer", "mode",
            "language", "referee_pin")

# Table texts a refusal can carry, by stable name (besides the engine's codes).
TABLE_REASONS = (("unknown", "unknown_tag"), ("other_deck", "other_deck"),
                 ("not_now", "not_now"), ("clear", "clear_table"))

MESSAGES = {
    "bad_line": "not one JSON object per line (RFC 8259, UTF-8)",
    "too_long": "line longer than 4096 bytes",
    "bad_request": "a request is an object with \"cmd\" (a string) and an optional "
                   "\"id\" (a number or a short string)",
    "unknown_command": "unknown command (try help)",
    "bad_args": "bad arguments",
    "locked": "this needs the referee PIN (\"pin\")",
    "bad_pin": "wrong PIN",
    "rate_limited": "too many wrong PINs: wait retry_ms",
    "no_pin": "no referee PIN is set on this table (settings referee_pin)",
    "not_ready": "the table is not playing a session",
    "nothing_to_undo": "nothing to take back",
    "unavailable": "not available on this firmware",
    "not_found": "no such thing",
    "failed": "the command failed",
}

COMMANDS = ("help", "ping", "status", "view", "score", "journal", "readers", "selftest",
            "set", "registry", "enroll", "undo", "reset-session", "place", "lift",
            "press", "log")


def _int(v):
    return isinstance(v, int) and not isinstance(v, bool)


def _hex(uid):
    return "".join("%02x" % b for b in uid)


def _unhex(s):
    """bytes of a hex UID of 8, 14 or 20 digits, or None."""
    if not isinstance(s, str) or len(s) not in (8, 14, 20):
        return None
    out = bytearray(len(s) // 2)
    digits = "0123456789abcdef"
    for i in range(len(out)):
        hi = digits.find(s[2 * i].lower())
        lo = digits.find(s[2 * i + 1].lower())
        if hi < 0 or lo < 0:
            return None
        out[i] = hi * 16 + lo
    return bytes(out)


def _event_of(line):
    """The event dict of a journal line (its CRC suffix cut off), or None."""
    return parse_line(line)


class Failure(Exception):
    """A request refused: ``code`` (a stable word), ``message``, extra fields."""

    def __init__(self, code, message=None, extra=None):
        super().__init__(code)
        self.code = code
        self.message = message or MESSAGES.get(code, code)
        self.extra = extra


class Input:
    """A byte stream read without blocking, at most ``left`` bytes per step.

    If ``select.poll`` accepts the stream (the USB serial's ``sys.stdin``, a
    UART), a byte is read only while poll says one is there.  Otherwise the
    stream's own ``readinto``/``read`` must answer None (or nothing) when no
    data has arrived (the simulator's streams).  Never reports the end of the
    stream: a serial line does not end."""

    def __init__(self, stream):
        self.stream = stream
        self.left = 0
        self.poller = None
        self.raw = stream
        try:
            import select
            poller = select.poll()
            poller.register(stream, select.POLLIN)
            self.poller = poller
            raw = getattr(stream, "buffer", None)
            self.raw = stream if raw is None else raw
        except Exception:        # not pollable here: a non-blocking stream object
            self.poller = None

    def readinto(self, buf):
        n = len(buf)
        if self.left <= 0:
            return None
        if n > self.left:
            n = self.left
        k = 0
        if self.poller is None:
            mv = memoryview(buf)
            rd = getattr(self.stream, "readinto", None)
            if rd is not None:
                k = rd(mv[0:n])
            else:
                data = self.stream.read(n)
                if data:
                    k = len(data)
                    mv[0:k] = data
            if not k:
                return None
        else:
            poller = self.poller
            while k < n and poller.poll(0):
                b = self.raw.read(1)
                if not b:
                    break
                buf[k] = b[0]
                k += 1
            if not k:
                return None
        self.left -= k
        return k


class JournalTask:
    """Stream journal lines as parts of one answer."""

    def __init__(self, rid, lines, total, source):
        self.rid = rid
        self.lines = lines        # a list of lines, or None to read ``source`` (a file)
        self.total = total
        self.pos = 0
        self.source = source      # (file, LineReader) for a session file
        self.sent = 0

    def run(self, con):
        k = 0
        while k < JOURNAL_PER_STEP and con.room() > 1:
            line = self.next_line()
            if line is None:
                con.answer(self.rid, {"ok": True, "count": self.sent})
                self.close()
                return True
            con.answer(self.rid, {"more": True, "line": line})
            self.sent += 1
            k += 1
        return False

    def next_line(self):
        if self.lines is not None:
            if self.pos >= self.total:
                return None
            self.pos += 1
            return self.lines[self.pos - 1]
        source = self.source
        if source is None:
            return None
        reader = source[1]
        while True:
            raw = reader.readline()
            if raw is None:
                return None
            if raw is OVERLONG or is_blank(raw):
                continue
            try:
                return bytes(raw).decode()
            except UnicodeError:
                continue

    def close(self):
        if self.source is not None:
            try:
                self.source[0].close()
            except OSError:
                pass
            self.source = None


class WaitTask:
    """Answer once ``done()`` holds (and one more step has passed, so the game
    job has acted on it), or after ``limit_ms``."""

    def __init__(self, con, rid, done, answer, limit_ms=WAIT_MS):
        self.rid = rid
        self.done = done
        self.make = answer
        self.start = con.now
        self.limit = limit_ms
        self.seen = False

    def run(self, con):
        if self.seen or ticks_diff(con.now, self.start) >= self.limit:
            body = self.make(self.seen)
            body["ok"] = True
            con.answer(self.rid, body)
            return True
        if self.done():
            self.seen = True
        return False


class Console:
    """The line protocol on one pair of streams (docs/console.md)."""

    def __init__(self, app, stream_in, stream_out, pin=None):
        self.app = app
        self.out_stream = stream_out
        self.input = Input(stream_in)
        self.reader = LineReader(self.input, chunk=64)
        self.pin = pin                   # None: the settings' referee_pin
        self.clock = app.board.ticks_ms
        self.now = self.clock()
        self.started = self.now
        self.queue = []
        self.dropped = 0
        self.write_errors = 0
        self.task = None
        self.level = INFO
        self.debug_since = 0
        self.failures = 0                # wrong PINs in a row
        self.locked_until = 0
        self.requests = 0
        self.bad_lines = 0
        self.uidbuf = bytearray(P.UID_MAX)
        self.reasons = None              # display text -> stable reason word
        self.history = []                # per deal: what the score sheet shows
        # what the watchers last saw
        self.game = None
        self.journal = None
        self.journal_seen = 0
        self.mode = -1
        self.placed = bytearray(P.UID_MAX * app.readers.n)   # UID placed per reader
        self.placed_len = bytearray(app.readers.n)
        self.flags = bytearray(app.readers.n)  # bit 0 collision, bit 1 fault
        self.raw_status = bytearray(app.readers.n)
        self.overflows = 0
        self.deals = 0
        self.tricks = 0
        self.trick_sig = None
        self.event({"event": "hello", "app": "tapptable", "protocol": PROTOCOL}, INFO)

    # ----- the step -----------------------------------------------------------------

    def step(self):
        self.now = self.clock()
        self.input.left = IN_BUDGET
        if self.level == DEBUG and ticks_diff(self.now, self.debug_since) >= DEBUG_MS:
            self.level = INFO
        self.watch()
        if self.task is not None and self.task.run(self):
            self.task = None
        handled = 0
        while self.task is None and handled < CMDS_PER_STEP and self.room() >= ROOM:
            line = self.reader.readline()
            if line is None:
                break
            if line is not OVERLONG and is_blank(line):
                continue
            handled += 1
            self.line(line)
        self.flush()

    def room(self):
        return QUEUE - len(self.queue)

    def flush(self):
        spent = 0
        if self.dropped and self.room() > 0:
            n = self.dropped
            self.dropped = 0
            self.queue.append(dumps({"event": "dropped", "count": n}))
        while self.queue and spent < OUT_BUDGET:
            s = self.queue.pop(0)
            spent += len(s) + 1
            try:
                self.out_stream.write(s + "\n")
            except OSError:
                self.write_errors += 1
        flush = getattr(self.out_stream, "flush", None)
        if flush is not None:
            try:
                flush()
            except OSError:
                pass

    # ----- output ---------------------------------------------------------------------

    def answer(self, rid, body):
        """Queue a response line (never dropped: requests wait for room)."""
        line = dumps(body)
        if rid is not None:
            line = '{"id":' + dumps(rid) + ("," + line[1:] if len(line) > 2 else "}")
        self.queue.append(line)

    def event(self, body, level):
        """Queue a live event if the log level asks for it (dropped, and counted,
        when the queue is full)."""
        if level > self.level:
            return
        if len(self.queue) >= QUEUE:
            self.dropped += 1
            return
        self.queue.append(dumps(body))

    def fail(self, rid, code, message=None, extra=None):
        body = {"ok": False, "error": code, "message": message or MESSAGES.get(code, code)}
        if extra:
            for k in extra:
                body[k] = extra[k]
        self.answer(rid, body)

    # ----- requests ----------------------------------------------------------------------

    def line(self, raw):
        self.requests += 1
        if raw is OVERLONG:
            self.bad_lines += 1
            self.fail(None, "too_long", None, {"line": self.reader.lineno})
            return
        req = parse_line(raw)
        if req is None:
            self.bad_lines += 1
            self.fail(None, "bad_line", None, {"line": self.reader.lineno})
            return
        rid = req.get("id")
        if rid is not None and not (_int(rid) or (isinstance(rid, str) and len(rid) <= 64)):
            self.fail(None, "bad_request")
            return
        cmd = req.get("cmd")
        if not isinstance(cmd, str):
            self.fail(rid, "bad_request")
            return
        name = cmd.replace("-", "_")
        handler = getattr(self, "cmd_" + name, None) if cmd in COMMANDS else None
        if handler is None:
            self.fail(rid, "unknown_command", "unknown command %s (try help)" % dumps(cmd[:32]))
            return
        try:
            body = handler(rid, req)
        except Failure as f:
            self.fail(rid, f.code, f.message, f.extra)
            return
        except MemoryError:
            self.fail(rid, "failed", "out of memory")
            return
        except Exception as exc:   # a bug must not stop the table: say so and go on
            self.fail(rid, "failed", "%s: %s" % (type(exc).__name__, str(exc)[:80]))
            return
        if body is not None:
            body["ok"] = True
            self.answer(rid, body)

    # ----- the lock ----------------------------------------------------------------------

    def referee_pin(self):
        if self.pin is not None:
            return self.pin
        return self.app.values.get("referee_pin")

    def retry_ms(self):
        if not self.failures:
            return 0
        left = ticks_diff(self.locked_until, self.now)
        return left if left > 0 else 0

    def authorise(self, req):
        """Raise Failure unless the request carries the referee PIN."""
        pin = self.referee_pin()
        if pin is None:
            raise Failure("no_pin")
        wait = self.retry_ms()
        if wait:
            raise Failure("rate_limited", "too many wrong PINs: wait %d ms" % wait,
                          {"retry_ms": wait})
        given = req.get("pin")
        if given is None:
            raise Failure("locked")
        same = isinstance(given, str) and len(given) == len(pin)
        diff = 0
        for i in range(len(pin)):               # compare every digit
            c = given[i] if same and isinstance(given, str) else "\x00"
            diff |= ord(c) ^ ord(pin[i])
        if not same or diff:
            self.failures += 1
            delay = PIN_DELAY_MS << (self.failures - 1) if self.failures < 20 else PIN_DELAY_MAX
            if delay > PIN_DELAY_MAX:
                delay = PIN_DELAY_MAX
            self.locked_until = (self.now + delay) & TICKS_MASK
            raise Failure("bad_pin", "wrong PIN: the next try in %d ms" % delay,
                          {"retry_ms": delay})
        self.failures = 0

    # ----- helpers ----------------------------------------------------------------------

    def playing(self):
        game = self.app.game
        if game is None or self.app.mode != PLAYING:
            raise Failure("not_ready")
        return game

    def seats(self):
        game = self.app.game
        if game is not None:
            return list(game.rules.seats)
        return None

    def card_on(self, reader):
        """The card code placed on ``reader`` (registry lookup), or None."""
        n = self.app.presence.placed_uid(reader, self.uidbuf)
        if not n:
            return None
        packed = self.app.registry.lookup(memoryview(self.uidbuf)[0:n])
        if packed < 0:
            return None
        return CARD_CODES[packed & 63]

    def reason(self, msg):
        """The stable word of a refusal's display text."""
        if self.reasons is None:
            table = {}
            for lang in ("de", "en"):
                for code in range(1, len(E.NAMES)):
                    table[E.short_text(code, lang)] = E.NAMES[code]
                for key, word in TABLE_REASONS:
                    table[text(key, lang)] = word
            self.reasons = table
        return self.reasons.get(msg, "refused")

    def hidden(self):
        """Does the journal of the session in play hold hidden cards now?"""
        game = self.app.game
        if game is None:
            return False
        return game.rules.strict and game.view.in_deal()

    def redact(self, ev):
        """An accepted event as everyone may see it (hands, discards, the Rufer's
        give are hidden in strict mode below the debug level)."""
        if self.level >= DEBUG:
            return ev
        name = ev.get("ev")
        if name == "deal" and ev.get("hands") is not None:
            ev = {"ev": "deal", "dealer": ev.get("dealer"), "hands": "hidden"}
        elif name == "hand":
            ev = {"ev": "hand", "seat": ev.get("seat"), "cards": "hidden"}
        elif name == "exchange" and ev.get("discard"):
            ev = {"ev": "exchange", "seat": ev.get("seat"), "discard": "hidden"}
        elif name == "rufer" and ev.get("give") is not None:
            ev = {"ev": "rufer", "seat": ev.get("seat"), "card": ev.get("card"),
                  "give": "hidden"}
        return ev

    # ----- live events ----------------------------------------------------------------------

    def watch(self):
        app = self.app
        if app.mode != self.mode:
            self.mode = app.mode
            self.event({"event": "mode", "state": STATES[app.mode]
                        if 0 <= app.mode < len(STATES) else app.mode}, INFO)
        self.watch_readers()
        game = app.game
        if game is not self.game:
            self.new_session(game)
        if game is None:
            return
        self.watch_journal()
        view = game.view
        deals = view.deals_played()
        tricks = view.trick_number()
        if deals > self.deals or (deals == self.deals and tricks > self.tricks):
            last = view.last_trick()
            if last is not None:
                sig = (deals, last["n"], tuple(last["cards"]))
                if sig != self.trick_sig:
                    self.trick_sig = sig
                    body = {"event": "trick"}
                    for k in last:
                        body[k] = last[k]
                    self.event(body, INFO)
        if deals > self.deals:
            result = view.last_result()
            entry = {"deal": deals, "result": result, "balances": view.balances(),
                     "pot": view.pot()}
            self.history.append(entry)
            if len(self.history) > HISTORY:
                self.history.pop(0)
            self.event({"event": "result", "deal": deals, "result": result,
                        "session_over": view.session_over()}, INFO)
        self.deals = deals
        self.tricks = tricks

    def new_session(self, game):
        self.game = game
        self.journal = self.app.journal
        self.journal_seen = 0
        self.history = []
        self.deals = 0
        self.tricks = 0
        self.trick_sig = None
        if game is None:
            return
        game.listener = self.heard
        view = game.view
        self.deals = view.deals_played()
        self.tricks = view.trick_number()
        self.journal_seen = len(self.journal) if self.journal is not None else 0
        self.event({"event": "session", "variant": view.variant(), "players": view.players(),
                    "seats": self.seats(), "mode": view.mode(),
                    "journal": self.journal_seen}, INFO)

    def heard(self, kind, reader, msg):
        """Game.listener: a refusal at ``reader`` with its display text."""
        body = {"event": kind, "reader": reader, "reason": self.reason(msg), "message": msg}
        game = self.app.game
        if game is not None and reader < game.rules.players and reader != self.app.centre:
            body["seat"] = reader
            card = self.card_on(reader)
            if card is not None:
                body["card"] = card              # face up on a seat reader: public
        elif self.level >= DEBUG:
            body["card"] = self.card_on(reader)
        self.event(body, ERROR)

    def watch_journal(self):
        journal = self.app.journal
        if journal is not self.journal:
            self.journal = journal
            self.journal_seen = 0
        if journal is None:
            return
        k = 0
        while self.journal_seen < len(journal) and k < JOURNAL_PER_STEP:
            line = journal.line(self.journal_seen)
            self.journal_seen += 1
            k += 1
            if self.journal_seen == 1:
                continue                     # the header
            ev = _event_of(line)
            if ev is not None:
                self.event({"event": "accepted", "n": self.journal_seen - 1,
                            "ev": self.redact(ev)}, INFO)

    def watch_readers(self):
        app = self.app
        arb = app.presence
        rs = app.readers
        buf = self.uidbuf
        for i in range(rs.n):
            n = arb.placed_uid(i, buf)
            old = self.placed_len[i]
            base = P.UID_MAX * i
            same = n == old
            k = 0
            while same and k < n:
                same = buf[k] == self.placed[base + k]
                k += 1
            if not same:
                if old:
                    self.tag_event(i, "lifted", bytes(self.placed[base:base + old]))
                if n:
                    self.tag_event(i, "placed", bytes(buf[0:n]))
                self.placed[base:base + n] = buf[0:n]
                self.placed_len[i] = n
            flags = (1 if arb.collision(i) else 0) | (2 if arb.fault(i) else 0)
            was = self.flags[i]
            if flags != was:
                if (flags ^ was) & 1:
                    self.tag_event(i, "collision" if flags & 1 else "collision_over", None)
                if (flags ^ was) & 2:
                    body = {"event": "error" if flags & 2 else "tag", "reader": i,
                            "state": "reader_fault" if flags & 2 else "reader_back"}
                    self.event(body, ERROR if flags & 2 else INFO)
                self.flags[i] = flags
            if self.level >= DEBUG and rs.status[i] != self.raw_status[i]:
                self.raw_status[i] = rs.status[i]
                self.event({"event": "reader", "reader": i,
                            "status": STATUS_NAMES[rs.status[i] & 3]}, DEBUG)
        if arb.overflows != self.overflows:
            self.overflows = arb.overflows
            self.event({"event": "error", "state": "overflow", "count": arb.overflows}, ERROR)

    def tag_event(self, reader, state, uid):
        body = {"event": "tag", "reader": reader, "state": state}
        if self.level >= DEBUG and uid is not None:
            body["uid"] = _hex(uid)
            packed = self.app.registry.lookup(uid)
            if packed >= 0:
                body["deck"] = packed >> 6
                body["card"] = CARD_CODES[packed & 63]
        self.event(body, INFO)

    # ----- commands: read only ---------------------------------------------------------

    def cmd_help(self, rid, req):
        return {"commands": list(COMMANDS), "protocol": PROTOCOL,
                "locked": ["set", "registry download/upload", "enroll", "undo",
                           "reset-session", "place", "lift", "press", "selftest",
                           "view/readers details", "journal of a strict deal in progress",
                           "log debug"]}

    def cmd_ping(self, rid, req):
        return {"t": self.now}

    def cmd_status(self, rid, req):
        app = self.app
        out = {"app": "tapptable", "protocol": PROTOCOL,
               "state": STATES[app.mode] if 0 <= app.mode < len(STATES) else app.mode,
               "uptime_ms": ticks_diff(self.now, self.started), "log": LEVELS[self.level],
               "pin": self.referee_pin() is not None, "retry_ms": self.retry_ms(),
               "deck": app.deck_id, "screen": app.screens.text_rows(),
               "readers": app.readers.n,
               "readers_down": [i for i in range(app.readers.n) if app.readers.down(i)],
               "requests": self.requests, "bad_lines": self.bad_lines,
               "dropped": self.dropped}
        try:
            import gc
            out["mem_free"] = gc.mem_free()
        except (ImportError, AttributeError):
            pass
        game = app.game
        if game is not None:
            view = game.view
            out["variant"] = view.variant()
            out["players"] = view.players()
            out["seats"] = self.seats()
            out["mode"] = view.mode()
            out["phase"] = view.phase()
            out["expects"] = view.expects()
            out["turn"] = view.turn()
            out["deals"] = view.deals_played()
            out["journal"] = len(app.journal) if app.journal is not None else 0
        enrol = app.enrolment
        if enrol is not None and app.mode == ENROL:
            have, total = enrol.progress()
            out["enrol"] = {"deck": enrol.deck_id, "have": have, "total": total}
        return out

    def cmd_view(self, rid, req):
        game = self.playing()
        details = bool(req.get("details"))
        if details:
            self.authorise(req)
        view = game.view
        n = view.players()
        steps = ("dealing", "game", "result", "over")
        on_reader = []
        for r in range(game.readers):
            if r == game.centre:
                continue
            c = game.on_reader[r]
            on_reader.append(CARD_CODES[c] if 0 <= c < NCARDS else None)
        out = {"variant": view.variant(), "mode": view.mode(), "players": n,
               "seats": self.seats(), "phase": view.phase(), "expects": view.expects(),
               "turn": view.turn(), "dealer": view.dealer(), "declarer": view.declarer(),
               "contract": view.contract(), "trump": view.trump(), "target": view.target(),
               "multiplier": view.multiplier(), "announcements": view.announcements(),
               "trick_number": view.trick_number(), "trick": view.trick(),
               "last_trick": view.last_trick(),
               "points": [view.points(s) for s in range(n)],
               "tricks_won": [view.tricks_won(s) for s in range(n)],
               "balances": view.balances(), "pot": view.pot(),
               "deals": view.deals_played(), "session_over": view.session_over(),
               "revokes": view.revokes(), "legal_calls": view.legal_calls(),
               "table": {"step": steps[game.step] if 0 <= game.step < 4 else game.step,
                         "on_reader": on_reader, "clearing": game.clearing,
                         "refused": [r for r in range(game.readers) if game.refused[r]],
                         "jammed": [r for r in range(game.readers) if game.jammed[r]],
                         "message": game.message},
               "screen": self.app.screens.text_rows()}
        if details:
            out["hands"] = [view.hand(s) for s in range(n)]
            out["talon"] = view.talon()
            out["legal_cards"] = view.legal_cards()
            out["menu"] = [[label, ev] for label, ev in game.menu]
            out["menu_pos"] = game.menu_pos
            if game.step == DEALING:
                out["dealt"] = [list(h) for h in game.dealt]
            out["discards"] = list(game.discards)
        return out

    def cmd_score(self, rid, req):
        game = self.playing()
        view = game.view
        return {"seats": self.seats(), "balances": view.balances(), "pot": view.pot(),
                "deals": view.deals_played(), "session_over": view.session_over(),
                "last_result": view.last_result(), "history": self.history}

    def cmd_readers(self, rid, req):
        details = bool(req.get("details"))
        if details:
            self.authorise(req)
        app = self.app
        rs = app.readers
        arb = app.presence
        out = []
        for i in range(rs.n):
            r = {"reader": i, "name": "centre" if i == app.centre else "seat %d" % (i + 1),
                 "status": STATUS_NAMES[rs.status[i] & 3], "raw": STATUS_NAMES[rs.raw[i] & 3],
                 "down": bool(rs.down(i)), "faults": rs.faults(i),
                 "recoveries": rs.recoveries(i), "errors": rs.errors(i),
                 "placed": arb.placed_len(i) > 0, "collision": arb.collision(i),
                 "fault": arb.fault(i), "injected": app.injected[i] is not None}
            if details:
                r["uid"] = _hex(rs.uid_view(i)) if rs.status[i] == P.PRESENT else None
                n = arb.placed_uid(i, self.uidbuf)
                r["placed_uid"] = _hex(memoryview(self.uidbuf)[0:n]) if n else None
                r["card"] = self.card_on(i)
            out.append(r)
        return {"readers": out, "overflows": arb.overflows, "polls": app.polls,
                "hot": app.hot, "keys_overflows": app.keys.overflows}

    def cmd_journal(self, rid, req):
        app = self.app
        if req.get("list"):
            sessions = []
            if app.journal is not None:
                sessions.append({"name": "current", "lines": len(app.journal)})
            folder = join(self.root(), JOURNAL_DIR)
            try:
                import os
                for name in sorted(os.listdir(folder)):
                    if name.endswith(".jsonl"):
                        size = os.stat(join(folder, name))[6]
                        sessions.append({"name": name, "bytes": size})
            except OSError:
                pass
            return {"sessions": sessions}
        name = req.get("session", "current")
        if not isinstance(name, str):
            raise Failure("bad_args", "session: a name from journal list")
        if name == "current":
            journal = app.journal
            if journal is None:
                raise Failure("not_ready", "no session in play")
            if self.hidden():
                self.authorise(req)
            path = getattr(journal, "path", None)
            if path is None:                     # a journal in RAM (the simulator's)
                lines = list(journal.read_lines())
                self.task = JournalTask(rid, lines, len(lines), None)
                return None
            f = open(path, "rb")                 # streamed from flash, line by line
            self.task = JournalTask(rid, None, 0, (f, LineReader(f, chunk=128)))
            return None
        ok = 0 < len(name) <= 32 and name.endswith(".jsonl") and ".." not in name
        for c in name:
            if not (c.isalpha() or c.isdigit() or c in "._-"):
                ok = False
        if not ok:
            raise Failure("bad_args", "session: a name from journal list")
        self.authorise(req)        # a file may hold the strict deal in play
        try:
            f = open(join(self.root(), JOURNAL_DIR, name), "rb")
        except OSError:
            raise Failure("not_found", "no session %s" % name) from None
        self.task = JournalTask(rid, None, 0, (f, LineReader(f, chunk=128)))
        return None

    def root(self):
        return getattr(self.app.board, "root", None) or "/"

    def cmd_selftest(self, rid, req):
        try:
            from . import selftest  # type: ignore[attr-defined]
        except ImportError:
            raise Failure("unavailable", "no self-test in this firmware") from None
        kw = {}
        for key in ("card_ms", "button_ms"):      # how long it waits for a card, a button
            v = req.get(key)
            if v is not None:
                if not _int(v) or not 0 <= v <= 60000:
                    raise Failure("bad_args", "%s: 0 to 60000" % key)
                kw[key] = v
        self.authorise(req)
        lines = []

        def report(item):
            lines.append(item)
        app = self.app
        board = app.board
        try:
            # it holds the loop while it runs (up to its card and button waits); a
            # board may bring its own sleep_ms (the simulator's virtual clock)
            result = selftest.run_selftest(board, report, getattr(board, "sleep_ms", None),
                                           **kw)
        except Exception as exc:
            raise Failure("failed", "self-test: %s: %s" % (type(exc).__name__, str(exc)[:80]),
                          {"report": [str(x) for x in lines[-20:]]}) from None
        finally:           # it drew on the display itself: clear every row, then ours again
            app.screens.draw_rows([(" ", False)] * 8)
            if app.game is not None:
                app.game.dirty = True
            app.setup.dirty = True
            app.enrol_dirty = True
        return {"result": result if isinstance(result, (bool, int, str, dict, list))
                or result is None else str(result),
                "report": [x if isinstance(x, (str, dict, list)) else str(x) for x in lines]}

    def cmd_log(self, rid, req):
        level = req.get("level")
        if level is None:
            return {"level": LEVELS[self.level], "levels": list(LEVELS)}
        if level not in LEVELS:
            raise Failure("bad_args", "level: one of " + ", ".join(LEVELS))
        k = LEVELS.index(level)
        if k == DEBUG:
            self.authorise(req)
            self.debug_since = self.now
        self.level = k
        return {"level": level}

    # ----- commands: settings, registry ------------------------------------------------

    def scratch(self):
        """A Settings object holding the current values (validation only)."""
        s = Settings(self.root())
        values = self.app.values
        for key in SETTING_KEYS:
            if key in values and key != "first_dealer":
                s.set(key, values[key])
        if "first_dealer" in values:
            s.set("first_dealer", values["first_dealer"])
        return s

    def shown_values(self):
        values = self.app.values
        return {k: values[k] for k in SET_KEYS if k in values and k != "referee_pin"}

    def cmd_set(self, rid, req):
        changes = req.get("values")
        if changes is None and "key" in req:
            changes = {req.get("key"): req.get("value")}
        if changes is None:
            return {"values": self.shown_values()}
        if not isinstance(changes, dict) or not changes:
            raise Failure("bad_args", "values: an object of settings")
        self.authorise(req)
        s = self.scratch()
        order = [k for k in SET_KEYS if k in changes]
        for key in changes:
            if key not in SET_KEYS:
                raise Failure("bad_args", "unknown setting %s" % dumps(str(key)[:32]))
        for key in order:
            v = changes[key]
            if key == "variant" and v not in variant_ids():
                raise Failure("bad_args", "variant: one of " + ", ".join(variant_ids()))
            if not s.set(key, v):
                raise Failure("bad_args", "bad value for %s" % key)
        variant = s.variant
        base = PRESETS[variant][0] if variant in PRESETS else variant
        if s.players not in VARIANTS[base]["players"]:
            raise Failure("bad_args", "%s is not played by %d players" % (variant, s.players))
        try:
            Session(s.header())          # the options must make a session
        except HeaderError as exc:
            raise Failure("bad_args", str(exc)[:120]) from None
        values = self.app.values
        for key in SET_KEYS:
            values[key] = s.get(key)
        saved = None
        remember = self.app.remember
        if remember is not None:
            for key in SET_KEYS:
                remember.set(key, values[key])
            saved = remember.save()
        return {"values": self.shown_values(), "saved": saved,
                "note": "for the next session (reset-session starts it)"}

    def cmd_registry(self, rid, req):
        reg = self.app.registry
        op = req.get("op", "list")
        if op == "list":
            return {"decks": [{"deck": d, "kind": k, "cards": n, "complete": reg.complete(d)}
                              for d, k, n in reg.decks()], "in_play": self.app.deck_id}
        deck = req.get("deck")
        if op == "download":
            if not _int(deck):
                raise Failure("bad_args", "deck: a deck id")
            self.authorise(req)
            lines = reg.export(deck)
            if lines is None:
                raise Failure("not_found", "no deck %d" % deck)
            return {"deck": deck, "lines": lines}
        if op == "upload":
            lines = req.get("lines")
            if not isinstance(lines, list) or not lines:
                raise Failure("bad_args", "lines: the deck file's lines")
            for x in lines:
                if not isinstance(x, str):
                    raise Failure("bad_args", "lines: strings")
            self.authorise(req)
            code, deck_id, why = reg.import_lines(lines)
            if code != R.OK:
                raise Failure(R.NAMES[code], why or R.message(code), {"deck": deck_id})
            return {"deck": deck_id, "cards": reg.count(deck_id),
                    "complete": reg.complete(deck_id)}
        raise Failure("bad_args", "op: list, download or upload")

    def cmd_enroll(self, rid, req):
        reg = self.app.registry
        deck = req.get("deck", self.app.deck_id)
        if not _int(deck):
            raise Failure("bad_args", "deck: a deck id")
        kind = req.get("kind")
        card = req.get("card")
        remove = req.get("remove")
        if card is not None and (card not in CODE_INDEX or _unhex(req.get("uid")) is None):
            raise Failure("bad_args", "card: a card code, uid: 8, 14 or 20 hex digits")
        if remove is not None and remove not in CODE_INDEX:
            raise Failure("bad_args", "remove: a card code")
        self.authorise(req)
        if kind is not None and not reg.has_deck(deck):
            code = reg.create_deck(deck, kind)
            if code != R.OK:
                raise Failure(R.NAMES[code], R.message(code))
        if not reg.has_deck(deck):
            raise Failure("not_found", "no deck %d (give kind to create it)" % deck)
        if card is not None:
            code = reg.add(deck, CODE_INDEX[card], _unhex(req.get("uid")))
            if code != R.OK:
                raise Failure(R.NAMES[code], R.message(code, reg.conflict))
        if remove is not None:
            code = reg.remove_card(deck, CODE_INDEX[remove])
            if code != R.OK:
                raise Failure(R.NAMES[code], R.message(code))
        missing = reg.missing(deck)
        return {"deck": deck, "kind": reg.kind(deck), "cards": reg.count(deck),
                "complete": not missing, "missing": [CARD_CODES[c] for c in missing]}

    # ----- commands: the game -----------------------------------------------------------

    def cmd_undo(self, rid, req):
        app = self.app
        self.authorise(req)
        if app.mode == ENROL:                    # enrolment: a long OK takes a card back
            app.keys.put(OK_LONG)
            return {"queued": True}
        game = self.playing()
        before = self.journal_len()
        if not game.confirm_undo:
            game.button(OK_LONG)                  # the same door as the buttons
        game.button(OK_SHORT)
        after = self.journal_len()
        if after < 0 or after == before:
            raise Failure("nothing_to_undo")
        return {"journal": after}

    def cmd_reset_session(self, rid, req):
        app = self.app
        self.authorise(req)
        if not app.registry.complete(app.deck_id):
            raise Failure("not_ready", "deck %d is not completely enrolled" % app.deck_id)
        app.start_game()
        view = app.game.view
        return {"variant": view.variant(), "players": view.players(), "seats": self.seats(),
                "mode": view.mode()}

    def reader_arg(self, req):
        r = req.get("reader")
        if not _int(r) or not 0 <= r < self.app.readers.n:
            raise Failure("bad_args", "reader: 0 to %d (the centre is %d)"
                          % (self.app.readers.n - 1, self.app.centre))
        return r

    def outcome(self, reader, before):
        """What the table did after a place/lift/press: for the answer."""
        app = self.app
        out = {"screen": app.screens.text_rows()}
        game = app.game
        if game is not None:
            out["refused"] = bool(game.refused[reader]) if reader >= 0 else False
            out["message"] = game.message
            if app.journal is not None:
                out["accepted"] = len(app.journal) - before if before >= 0 else 0
        return out

    def journal_len(self):
        return len(self.app.journal) if self.app.journal is not None else -1

    def cmd_place(self, rid, req):
        app = self.app
        r = self.reader_arg(req)
        uid = None
        if "uid" in req:
            uid = _unhex(req.get("uid"))
            if uid is None:
                raise Failure("bad_args", "uid: 8, 14 or 20 hex digits")
        else:
            card = req.get("card")
            deck = req.get("deck", app.deck_id)
            if card not in CODE_INDEX or not _int(deck):
                raise Failure("bad_args", "card: a card code (or uid)")
            uid = app.registry.uid_of(deck, CODE_INDEX[card])
            if uid is None:
                raise Failure("not_found", "%s of deck %d is not enrolled" % (card, deck))
        self.authorise(req)
        before = self.journal_len()
        app.inject(r, bytes(uid))
        arb = app.presence

        def answer(settled):
            out = self.outcome(r, before)
            out["settled"] = settled
            return out
        self.task = WaitTask(self, rid, lambda: arb.where(uid) == r, answer)
        return None

    def cmd_lift(self, rid, req):
        app = self.app
        r = self.reader_arg(req)
        self.authorise(req)
        before = self.journal_len()
        app.inject(r, None)
        arb = app.presence

        def answer(settled):
            out = self.outcome(r, before)
            out["settled"] = settled
            return out
        self.task = WaitTask(self, rid, lambda: arb.placed_len(r) == 0, answer)
        return None

    def cmd_press(self, rid, req):
        key = req.get("key")
        if key not in KEY_NAMES:
            raise Failure("bad_args", "key: prev, next or ok")
        self.authorise(req)
        app = self.app
        before = self.journal_len()
        app.keys.put(KEY_NAMES[key] * 2 + (LONG if req.get("long") else SHORT))
        self.task = WaitTask(self, rid, lambda: len(app.keys) == 0,
                             lambda settled: self.outcome(-1, before), 200)
        return None


def attach(app, pin=None):
    """The device's console on the USB serial line (or the REPL UART):
    ``sys.stdin`` polled, ``sys.stdout`` written.  Sets ``app.console``."""
    import sys
    app.console = Console(app, sys.stdin, sys.stdout, pin)
    return app.console
