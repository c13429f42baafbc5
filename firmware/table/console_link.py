"""The console's wire and lock: lines in, lines out, the referee PIN (docs/console.md).

``Wire`` frames the protocol on one pair of streams: it reads at most
``_IN_BUDGET`` bytes a step (``Input``: never blocks), hands complete lines to
the console, queues answer and event lines and writes at most ``_OUT_BUDGET``
bytes a step.  It never drops an answer: when the output stream says it has
no room (``room()``, the simulator's links) the lines wait in the queue, and
no request is read until the queue has room for its answer (back-pressure);
live events beyond the queue are dropped and counted.  A partial line left on
the link (half a request, the tail of an overlong line) is dropped after
``IDLE_DROP_MS`` without a byte, so it cannot swallow the next client's first
request.

``PinLock`` is the referee lock: wrong PINs are refused with a delay that
doubles with every further failure, on the board's clock; while it runs every
PIN is refused unchecked.  The failure count is kept on flash, so a restart
does not reset the delay.
"""
from tapp.record import OVERLONG, LineReader, is_blank

from .console_door import byte_waiting
from .console_out import Outbox
from .pin_lockout import load_pin_failures, save_pin_failures
from .presence import ticks_diff

try:
    from micropython import const
except ImportError:  # CPython
    const = lambda x: x  # noqa: E731

PROTOCOL = 2
_IN_BUDGET = const(512)          # input bytes read per step
_POLLED_MS = const(2)             # ... from a polled stream, until a step has run this long
                                 # (the Pico's USB serial: a byte polled and read 0.2-0.5 ms
                                 # there; a status request's 23 in one step held it 10-12 ms)
CMDS_PER_STEP = 4        # requests handled per step
_OUT_BUDGET = const(4096)        # output bytes written per step
_QUEUE = const(48)               # output lines waiting; live events beyond are dropped (counted)
ROOM = 8                 # a request is read only with this many lines free
_LINE = const(256)               # a request's buffer; a longer one (up to MAX_LINE) gets
                                 # its own while it is read (tapp/record.py LineReader)
IDLE_DROP_MS = 5000      # a partial line with no byte for this long is dropped (a person
                         # typing into a serial terminal may pause within a line)
_PIN_DELAY_MS = const(500)       # the first wrong PIN; doubled per further failure
_PIN_DELAY_MAX = const(300000)   # at most 5 minutes
_TICKS_MASK = const(0x3FFFFFFF)



def said(key, default=None):
    """What the console says for ``key`` (English, table/messages.py; ``%s``
    filled by the caller), ``default`` for an unknown key.  The store's
    module is loaded with the first answer that needs it, not at power-up
    (this module is: run_table imports it)."""
    from .messages import message
    return message(key, default)


def is_int(v):
    return isinstance(v, int) and not isinstance(v, bool)


class Failure(Exception):
    """A request refused: ``code`` (a stable word), ``message``, extra fields."""

    def __init__(self, code, message=None, extra=None):
        super().__init__(code)
        self.code = code
        self.message = message or said(code, code)
        self.extra = extra


class HandOver(Exception):
    """Raised out of the console's step after the ``repl`` command was answered:
    the table stops (journal closed) and the board is left at the REPL."""


class Input:
    """A byte stream read without blocking, at most ``left`` bytes per step.

    If ``select.poll`` accepts the stream (the USB serial's ``sys.stdin``, a
    UART), a byte is read only while poll says one is there.  Otherwise the
    stream's own ``readinto``/``read`` must answer None (or nothing) when no
    data has arrived (the simulator's streams).  Never reports the end of the
    stream: a serial line does not end.  ``partial`` says the last byte read
    was not a line break; ``last`` is when a byte last came (board ms)."""

    def __init__(self, stream, clock=None):
        self.stream = stream
        self.clock = clock               # the board's ms (a polled stream reads _POLLED_MS a step)
        self.left = 0
        self.poller = None
        self.raw = stream
        self.stream_readinto = getattr(stream, "readinto", None)   # (one bound method)
        self.partial = False
        self.last = 0
        self.now = 0
        self.one = bytearray(1)          # a polled stream's byte (``_read_one``)
        self.raw_readinto = None
        try:
            import select
            poller = select.poll()
            poller.register(stream, select.POLLIN)
            self.poller = poller
            raw = getattr(stream, "buffer", None)
            self.raw = stream if raw is None else raw
            self.raw_readinto = getattr(self.raw, "readinto", None)
        except Exception:        # not pollable here: a non-blocking stream object
            self.poller = None

    def readinto(self, buf):
        n = len(buf)
        if self.left <= 0:
            return None
        if n > self.left:
            n = self.left
        k = self._read_polled(buf, n) if self.poller is not None else self._read_stream(buf, n)
        if not k:
            return None
        self.left -= k
        self.partial = buf[k - 1] != 10
        self.last = self.now
        return k

    def _read_polled(self, buf, n):
        """Up to ``n`` bytes while poll says one is waiting (small methods: a
        frame over 11 words would be put on the heap at every console step)."""
        poller = self.poller
        one = self.one
        k = 0
        while k < n and byte_waiting(poller):
            if (k or self.left < _IN_BUDGET) and self.spent():
                break                    # (a step reads one at least; the rest at the next)
            if not self._read_one():
                break
            buf[k] = one[0]
            k += 1
        return k

    def spent(self):
        """Has the step read a polled stream ``_POLLED_MS`` (the rest waits)?"""
        clock = self.clock
        return clock is not None and ticks_diff(clock(), self.now) >= _POLLED_MS

    def _read_one(self):
        """One byte into ``one`` (``readinto``: ``read(1)`` made a bytes object
        for every byte): whether it came."""
        rd = self.raw_readinto
        if rd is not None:
            return rd(self.one)
        b = self.raw.read(1)
        if b:
            self.one[0] = b[0]
        return len(b) if b else 0

    def _read_stream(self, buf, n):
        rd = self.stream_readinto
        if rd is not None:
            return rd(buf if n == len(buf) else memoryview(buf)[0:n])
        data = self.stream.read(n)
        if not data:
            return 0
        buf[0:len(data)] = data
        return len(data)


class Wire:
    """Framing on one pair of streams: request lines in, answer and event lines
    out (rendered into an ``Outbox``, table/console_out.py)."""

    def __init__(self, stream_in, stream_out, clock=None):
        self.out_stream = stream_out
        self.room_of = getattr(stream_out, "room", None)   # the simulator's links
        # (bound once: a bound method made at every console step was 16 bytes of
        # garbage 50 times a second on the Pico, most of a dealing's garbage)
        self.flush_out = getattr(stream_out, "flush", None)
        self.input = Input(stream_in, clock)
        self.line_buf = bytearray(_LINE)
        self.reader = LineReader(self.input, chunk=64, line=self.line_buf)
        self.drained = True          # the reader gave all it had at the last try
        self.box = Outbox()
        self.text_out = False        # the stream takes str only (CPython's text streams)
        self.dropped = 0             # live events lost since the last "dropped" event
        self.dropped_total = 0
        self.write_errors = 0
        self.requests = 0
        self.bad_lines = 0
        self.due = None              # (rid, body): an answer ``hold`` keeps for the next step

    def begin(self, now):
        """A new step: its input budget; a stale partial line is dropped."""
        inp = self.input
        inp.now = now
        inp.left = _IN_BUDGET
        if self.drained and inp.partial and ticks_diff(now, inp.last) >= IDLE_DROP_MS:
            inp.partial = False          # a fresh reader: what it held is gone
            self.reader = LineReader(inp, chunk=64, line=self.line_buf)

    def waiting(self):
        """Are lines queued, not yet written?"""
        return self.box.lines() > 0

    def put_held(self):
        """The answer held by the last step queued (before any event of this
        one): whether there was one."""
        due = self.due
        if due is None:
            return False
        self.due = None
        self.box.put(due[1], due[0])
        return True

    def room(self):
        """Lines that may still be queued."""
        return _QUEUE - self.box.lines() - (0 if self.due is None else 1)

    def empty(self):
        """Has every queued line been written (none held either)?"""
        return self.due is None and not self.box.lines()

    def next_line(self):
        """The next request line (bytes or OVERLONG), None for none now."""
        while True:
            line = self.reader.readline()
            self.drained = line is None
            if line is None or line is OVERLONG or not is_blank(line):
                return line

    def lineno(self):
        return self.reader.lineno

    def answer(self, rid, body):
        """Queue a response line (never dropped: requests wait for room)."""
        self.box.put(body, rid)

    def hold(self, rid, body):
        """``answer`` at a later step (``put_held``): a step that spent its
        time making an answer leaves rendering its line to the next (a status
        answer's: 4-7 ms on the Pico, its making as much), which then leaves
        writing it to the one after (table/console.py).  ``body`` is
        not to change meanwhile: no request is handled until then."""
        self.due = (rid, body)

    def fail(self, rid, code, message=None, extra=None):
        body = {"ok": False, "error": code, "message": message or said(code, code)}
        if extra:
            for k in extra:
                body[k] = extra[k]
        self.answer(rid, body)

    def event(self, body):
        """Queue a live event (dropped, and counted, when the queue is full)."""
        if self.room() <= 0:
            self.dropped += 1
            self.dropped_total += 1
            return
        self.box.put(body, None)

    def flush(self):
        """Write queued lines: at most _OUT_BUDGET bytes, and no more than the
        output stream has room for (the rest waits for the next step).  Split
        in small methods: a frame over 11 words would be put on the heap at
        every console step (tests/mp/mptest_door.py)."""
        if self.dropped and self.room() > 0:
            n = self.dropped
            self.dropped = 0
            self.box.put({"event": "dropped", "count": n}, None)
        if self.box.lines():
            self._write_spilled(self._write_box())
        self._flush_stream()

    def _write_box(self):
        """The buffer's whole lines, as many as budget and room allow: bytes written."""
        room_of = self.room_of
        most = _OUT_BUDGET
        if room_of is not None:
            most = min(most, room_of())
        chunk = self.box.chunk(most)
        if chunk is None:
            return 0
        n = len(chunk)
        self._write(chunk)
        self.box.sent(n)
        return n

    def _write_spilled(self, spent):
        """The spilled lines, once the buffer's are out (``spent``: bytes so far)."""
        box = self.box
        room_of = self.room_of
        s = box.spilled()
        while s is not None and spent < _OUT_BUDGET:
            if room_of is not None and room_of() < len(s) + 1:
                break                    # the host is not reading: wait, drop nothing
            box.spilled(True)
            spent += len(s) + 1
            self._write(s + "\n")
            s = box.spilled()

    def _write(self, data):
        """``data`` (a line's bytes or a str) on the stream; a stream that takes
        str only gets the bytes decoded."""
        if self.text_out and not isinstance(data, str):
            data = str(bytes(data), "utf-8")
        try:
            self.out_stream.write(data)
        except OSError:
            self.write_errors += 1
        except TypeError:
            if self.text_out or isinstance(data, str):
                raise
            self.text_out = True
            self._write(data)

    def _flush_stream(self):
        flush = self.flush_out
        if flush is not None:
            try:
                flush()
            except OSError:
                pass

    def connection(self):
        """A number that changes when the link knows a client came or went (the
        simulator's pty and TCP links), else 0 (a board's USB serial)."""
        conn = getattr(self.out_stream, "connection", None)
        return conn() if conn is not None else 0


class PinLock:
    """The referee lock: ``pin()`` gives the PIN (None: locked commands are off),
    ``root`` the flash folder where the count of wrong PINs is kept."""

    def __init__(self, pin, root, now):
        self.pin = pin
        self.root = root
        self.failures = load_pin_failures(root)   # wrong PINs in a row, across restarts
        self.locked_until = (now + self.delay()) & _TICKS_MASK if self.failures else 0

    def delay(self):
        n = self.failures
        if n <= 0:
            return 0
        d = _PIN_DELAY_MS << (n - 1) if n < 20 else _PIN_DELAY_MAX
        return _PIN_DELAY_MAX if d > _PIN_DELAY_MAX else d

    def retry_ms(self, now):
        if not self.failures:
            return 0
        left = ticks_diff(self.locked_until, now)
        return left if left > 0 else 0

    def authorise(self, req, now):
        """Raise Failure unless the request carries the referee PIN."""
        pin = self.pin()
        if pin is None:
            raise Failure("no_pin")
        wait = self.retry_ms(now)
        if wait:
            raise Failure("rate_limited", said("a_pin_wait") % wait,
                          {"retry_ms": wait})
        given = req.get("pin")
        if given is None:
            raise Failure("locked")
        if is_int(given) and given >= 0:
            given = str(given)            # {"pin": 4711}: the natural form
        same = isinstance(given, str) and len(given) == len(pin)
        diff = 0
        for i in range(len(pin)):               # compare every digit
            c = given[i] if same else "\x00"
            diff |= ord(c) ^ ord(pin[i])
        if not same or diff:
            self.failures += 1
            delay = self.delay()
            self.locked_until = (now + delay) & _TICKS_MASK
            save_pin_failures(self.root, self.failures)
            raise Failure("bad_pin", said("a_pin_wrong") % delay,
                          {"retry_ms": delay})
        if self.failures:
            self.failures = 0
            save_pin_failures(self.root, 0)
