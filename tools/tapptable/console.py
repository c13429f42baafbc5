"""``tapptable console``: talk to the table (or the virtual table) over a serial line.

The device speaks a line protocol (firmware/table/console.py, docs/console.md):
one JSON object per line each way, requests with an ``id`` that the answer
echoes, live events without one.  This module finds the board (the same one
``tapptable deploy`` picks: ``find_port``), reads the line with pyserial's
``serial.threaded`` reader thread, keeps the link up across a device reset,
and offers an interactive prompt (history via readline) and one-shot commands
for scripts::

    tapptable console                         # interactive
    tapptable console status
    tapptable console --out game.jsonl journal   # written only when complete
    tapptable console --pin 4711 undo

A device that echoes what it is sent (a MicroPython REPL, a loopback) or
prints a REPL prompt is not the table's app: the client says so, exits 2 and
never prints the request (it may hold the PIN).
"""
import io
import json
import os
import queue
import shlex
import sys
import threading
import time

from serial import threaded

# USB ids of boards the table runs on: (vid, pid) -> what it is
KNOWN_USB = {
    (0x2E8A, 0x0005): "Raspberry Pi Pico (MicroPython)",
    (0x10C4, 0xEA60): "CP210x USB-UART bridge (ESP32 DevKit)",
    (0x1A86, 0x7523): "CH340 USB-UART bridge (ESP32 DevKit)",
    (0x0403, 0x6001): "FTDI FT232 USB-UART bridge",
}
USB_PATTERN = "|".join("%04X:%04X" % k for k in KNOWN_USB)   # for list_ports.grep
BAUD = 115200
LINE_MAX = 1 << 20       # a longer line without a newline is dropped
KEEPALIVE_S = 10.0       # interactive: a ping this often keeps the connection's log level
REPL_SIGNS = (">>> ", "MicroPython v", "Traceback (most recent call last)", "raw REPL",
              'Type "help()"', "soft reboot")
READ_POLL_S = 0.05      # how often a reader thread that cannot be woken looks up
READ_ONLY = ("help", "hello", "ping", "status", "view", "score", "journal", "readers",
             "registry", "log")
SUITS = {"C": "\u2663", "S": "\u2660", "H": "\u2665", "D": "\u2666"}
CLIENT_WORDS = ("pin NNNN (remember the referee PIN; pin alone forgets it)",
                "raw JSON (send one request as it is)", "COMMAND > FILE (the answer into "
                "FILE, written only when complete)", "quit (live events are printed as "
                "they come)")
SELFTEST_WAITS = (20000, 10000)   # the self-test's own waits (card, button), ms


class ConsoleError(Exception):
    """A problem to tell the user in one line (exit status 2)."""


class DeviceError(Exception):
    """The device answered ``ok: false``: ``code``, ``message`` and the answer."""

    def __init__(self, answer):
        Exception.__init__(self, "%s: %s" % (answer.get("error"), answer.get("message")))
        self.code = answer.get("error")
        self.answer = answer


class ReplError(ConsoleError):
    pass


# ----------------------------------------------------------------- finding the port


def short_name(port):
    """mpremote's short names: a0 -> /dev/ttyACM0, u0 -> /dev/ttyUSB0, c0 -> COM0."""
    if port and len(port) >= 2 and port[0] in "auc" and port[1:].isdigit():
        return {"a": "/dev/ttyACM", "u": "/dev/ttyUSB", "c": "COM"}[port[0]] + port[1:]
    return port


def candidate_ports():
    """[(device, description)] of the serial ports whose USB id is a known board
    (pyserial's ``list_ports.grep`` on the hardware id)."""
    from serial.tools import list_ports
    out = []
    for p in list_ports.grep(USB_PATTERN):
        if p.vid is not None and (p.vid, p.pid) in KNOWN_USB:
            out.append((p.device, "%s [%04X:%04X]" % (KNOWN_USB[(p.vid, p.pid)], p.vid,
                                                      p.pid)))
    return out


def all_ports():
    from serial.tools import list_ports
    return [(p.device, p.description or "") for p in list_ports.comports()]


def find_port(port=None):
    """The port to open: ``port`` if given (mpremote's short names too), else
    TAPPTABLE_PORT, else the one known board plugged in."""
    if port:
        return short_name(port)
    env = os.environ.get("TAPPTABLE_PORT")
    if env:
        return short_name(env)
    found = candidate_ports()
    if len(found) == 1:
        return found[0][0]
    if not found:
        others = all_ports()
        hint = ("; other serial ports: " + ", ".join(d for d, _ in others)) if others else ""
        raise ConsoleError(
            "no table found: no USB serial port with a known id (Pico 2E8A:0005, "
            "CP210x 10C4:EA60, CH340 1A86:7523, FTDI 0403:6001)%s. Plug it in, or "
            "give --port (a device, a0 for /dev/ttyACM0, or socket://HOST:PORT for "
            "tapptable sim --serial)" % hint)
    raise ConsoleError("several tables found (%s): choose one with --port"
                       % ", ".join("%s %s" % f for f in found))


def exclusive(ser):
    """No second program may open this terminal while we hold it (TIOCEXCL:
    pyserial's own lock is only advisory)."""
    fd = getattr(ser, "fd", None)
    if fd is None:
        return
    try:
        import fcntl
        import termios
        fcntl.ioctl(fd, termios.TIOCEXCL)
    except (ImportError, AttributeError, OSError):
        pass


def open_serial(port, timeout=0.1):
    """Open ``port`` (device path or pyserial URL, ``hwgrep://`` too) with a
    clear message on failure."""
    import serial
    try:
        if "://" in port:
            ser = serial.serial_for_url(port, baudrate=BAUD, timeout=timeout)
        else:
            ser = serial.Serial(port, BAUD, timeout=timeout, exclusive=True)
    except serial.SerialException as exc:
        raise ConsoleError(explain_open_error(port, exc)) from None
    except (OSError, ValueError) as exc:
        raise ConsoleError(explain_open_error(port, exc)) from None
    exclusive(ser)
    return ser


def explain_open_error(port, exc):
    text = str(exc)
    errno_ = getattr(exc, "errno", None)
    low = text.lower()
    if errno_ == 13 or "permission denied" in low:
        return ("%s: permission denied. On Linux add yourself to the group that owns it "
                "(sudo usermod -aG dialout $USER, then log in again)" % port)
    if errno_ == 16 or "busy" in low or "exclusively lock" in low:
        return ("%s: port busy: another program holds it (Thonny, mpremote, screen, "
                "minicom, a second tapptable console); close it first" % port)
    if "connection refused" in low or errno_ == 111:
        return "%s: connection refused: is tapptable sim --serial running?" % port
    if errno_ == 2 or "no such file" in low or "could not open port" in low:
        return "%s: no such port (unplugged? see tapptable console ports)" % port
    if port.startswith("hwgrep://") and "no ports found" in low:
        return "%s: no serial port matches (see tapptable console ports)" % port
    return "%s: %s" % (port, text)


def repl_message(port, why):
    return ("%s %s: the table's app is not running there. Start it: reset the board, or "
            "at the REPL press Ctrl-D (mpremote connect %s repl); if it stops again, the "
            "REPL shows why (a traceback). A table in safe boot (PREV held at power-up) "
            "stays at the REPL until it is reset" % (port, why, port))


# ----------------------------------------------------------------- the link


class _Lines(threaded.Packetizer):
    """serial.threaded's protocol: newline-ended lines to the link, bounded; a
    REPL prompt (which ends without a newline) is noticed as well."""
    TERMINATOR = b"\n"

    def __init__(self, link):
        super().__init__()
        self.link = link

    def data_received(self, data):
        super().data_received(data)
        buf = self.buffer
        if len(buf) > LINE_MAX:
            del buf[:]
        elif buf.endswith(b">>> ") or buf.startswith(b"raw REPL"):
            # (a raw REPL's bare ">" prompt follows its "raw REPL" line, already
            # noticed; matching ">" alone would split ">>> " read byte by byte)
            self.link.heard_text(bytes(buf).decode("utf-8", "replace"))
            del buf[:]

    def handle_packet(self, packet):
        self.link.heard_line(bytes(packet).rstrip(b"\r"))

    def connection_lost(self, exc):
        self.transport = None          # (Packetizer's own would raise exc here)
        self.link.link_lost(exc)


class Link:
    """The line protocol over one serial port, read by a ``serial.threaded``
    reader thread.

    ``request(cmd, **args)`` sends one request and returns the final answer
    (a dict with ``ok: true``; parts of a long answer are in ``answer["parts"]``)
    or raises DeviceError.  Live events go to ``on_event(dict)``, lines that are
    not JSON to ``on_text(str)``, what the user should know about the link
    (lost, back, an error line without an id) to ``on_status(str)``.  After a
    device reset the port is opened again: for ``reconnect_s`` seconds at most,
    or (None) until the link is closed."""

    def __init__(self, port, on_event=None, on_text=None, on_status=None, reconnect_s=10.0):
        self.port = port
        self.on_event = on_event or (lambda ev: None)
        self.on_text = on_text or (lambda s: None)
        self.on_status = on_status or (lambda s: None)
        self.reconnect_s = reconnect_s
        self.next_id = 1
        self.waiting = {}
        self.lock = threading.Lock()
        self.stop = threading.Event()
        self.connected = threading.Event()
        self.sent = None                  # the last request line, to notice an echo
        self.busy = None                  # the table said another client holds it
        self.repl_seen = None
        self.lost = None
        self.reader = None
        self._open()

    def _open(self):
        ser = open_serial(self.port)
        reader = threaded.ReaderThread(ser, lambda: _Lines(self))
        self.reader = reader
        self.connected.set()
        reader.start()
        try:
            reader.connect()
        except RuntimeError:
            return                      # lost at once: link_lost has taken over
        if not hasattr(ser, "cancel_read"):
            # socket://: the reader thread cannot be woken, it polls with the 1 s
            # timeout it set on starting; a short one lets close() return at once
            # (each command waited a second for it)
            ser.timeout = READ_POLL_S
        # a line break first: a partial line left on the link ends here (as an
        # error line at worst) instead of swallowing our first request
        try:
            self.send_raw(b"\n")
        except Exception:
            pass                        # a closed link: the request says why

    def close(self):
        self.stop.set()
        for q in list(self.waiting.values()):     # a request waiting ends now, not at its timeout
            q.put({"__lost__": "closed"})
        reader = self.reader
        if reader is not None:
            try:
                reader.close()
            except Exception:
                pass

    # ----- reading (the reader thread) ---------------------------------------

    def heard_line(self, raw):
        text = raw.decode("utf-8", "replace")
        if self.sent is not None and text.strip() == self.sent:
            self._repl("echoes what it is sent (a MicroPython REPL, or a loopback)")
            return
        try:
            msg = json.loads(text)
        except ValueError:
            self.heard_text(text)
            return
        if not isinstance(msg, dict):
            self.heard_text(text)
            return
        if "cmd" in msg and "ok" not in msg and "event" not in msg:
            self._repl("echoes what it is sent (a MicroPython REPL, or a loopback)")
            return
        rid = msg.get("id")
        if "ok" in msg or "event" in msg:
            self.repl_seen = None            # the table's app speaks
        if rid is not None and rid in self.waiting and ("ok" in msg or "more" in msg):
            self.waiting[rid].put(msg)
        elif "event" in msg:
            self.on_event(msg)
        elif rid is None and msg.get("error") == "unavailable":
            for q in list(self.waiting.values()):     # a console that did not load
                q.put(msg)
        elif rid is None and msg.get("error") == "busy":
            self.busy = msg
            for q in list(self.waiting.values()):     # another client holds the table
                q.put(msg)
        elif rid is None and msg.get("ok") is False:
            self.on_status("the table: %s: %s" % (msg.get("error"), msg.get("message")))

    def heard_text(self, s):
        if any(sign in s for sign in REPL_SIGNS):
            self._repl("is at the MicroPython REPL")
        self.on_text(s)

    def _repl(self, why):
        self.repl_seen = why
        for q in list(self.waiting.values()):
            q.put({"__repl__": why})

    def link_lost(self, exc):
        if self.stop.is_set():
            return
        self.connected.clear()
        self.lost = exc
        for q in list(self.waiting.values()):
            q.put({"__lost__": str(exc or "closed")})
        self.on_status("connection lost (%s); waiting for the table..." % (exc or "closed",))
        threading.Thread(target=self._reconnect, daemon=True).start()

    def _reconnect(self):
        deadline = None if self.reconnect_s is None else time.monotonic() + self.reconnect_s
        while not self.stop.is_set():
            if deadline is not None and time.monotonic() > deadline:
                self.on_status("the table did not come back within %.0f s" % self.reconnect_s)
                return
            time.sleep(0.5)
            try:
                self._open()
            except (ConsoleError, RuntimeError):
                continue
            self.on_status("connected again to %s" % self.port)
            return

    # ----- requests ---------------------------------------------------------------

    def send_raw(self, data):
        with self.lock:
            reader = self.reader
            reader.write(data)
            reader.serial.flush()

    def request(self, cmd, timeout=10.0, on_part=None, **args):
        """One request; the final answer (DeviceError when ``ok`` is false)."""
        if not self.connected.wait(min(timeout, 2.0)):
            if self.busy is not None:
                raise DeviceError(self.busy)
            raise ConsoleError("%s: not connected: the table is away (%s); the client "
                               "keeps trying" % (self.port, self.lost or "no link"))
        with self.lock:
            rid = self.next_id
            self.next_id += 1
        q = queue.Queue()
        self.waiting[rid] = q
        body = {"id": rid, "cmd": cmd}
        body.update({k: v for k, v in args.items() if v is not None})
        line = json.dumps(body, ensure_ascii=False)
        self.sent = line
        try:
            try:
                self.send_raw((line + "\n").encode())
            except Exception as exc:
                time.sleep(0.2)                    # a "busy" line may be on its way
                if self.busy is not None:
                    raise DeviceError(self.busy) from None
                raise ConsoleError("%s: %s" % (self.port, exc)) from None
            parts = []
            sent_at = time.monotonic()
            deadline = sent_at + timeout
            while True:
                left = deadline - time.monotonic()
                if left <= 0:
                    if self.repl_seen:
                        raise ReplError(repl_message(self.port, self.repl_seen))
                    raise ConsoleError(
                        "%s: no answer to %s within %.0f s (is the table's app running? "
                        "a device at the REPL prints '>>>')" % (self.port, cmd, timeout))
                try:
                    msg = q.get(timeout=min(left, 0.5))
                except queue.Empty:
                    if self.repl_seen and time.monotonic() - sent_at > 0.5:
                        raise ReplError(repl_message(self.port, self.repl_seen)) from None
                    continue
                if "__repl__" in msg:
                    raise ReplError(repl_message(self.port, msg["__repl__"]))
                if "__lost__" in msg:
                    if self.busy is not None:
                        raise DeviceError(self.busy)
                    if self.repl_seen:
                        raise ReplError(repl_message(self.port, self.repl_seen))
                    raise ConsoleError("%s: connection lost during %s (%s)%s" % (
                        self.port, cmd, msg["__lost__"],
                        "" if cmd in READ_ONLY else "; it may or may not have been done"))
                if msg.get("more"):
                    if on_part is not None:
                        on_part(msg)
                    else:
                        parts.append(msg)
                    deadline = time.monotonic() + timeout
                    continue
                if msg.get("ok") is False:
                    raise DeviceError(msg)
                msg["parts"] = parts
                return msg
        finally:
            self.waiting.pop(rid, None)
            self.sent = None

    def hello(self, timeout=10.0):
        """The first request of a connection: the table forgets what the previous
        client set (its log level).  The answer, or None from a firmware without
        ``hello``."""
        try:
            return self.request("hello", timeout=timeout)
        except DeviceError as exc:
            if exc.code == "unknown_command":
                return None
            raise


# ----------------------------------------------------------------- showing answers


def card(code):
    if not isinstance(code, str) or len(code) < 2:
        return str(code)
    return SUITS.get(code[0], code[0]) + code[1:]


def seat_name(seats, s):
    if seats and isinstance(s, int) and 0 <= s < len(seats):
        return seats[s]
    return "seat %s" % (s + 1 if isinstance(s, int) else s)


def show_status(a):
    keys = ("state", "variant", "players", "mode", "phase", "expects", "turn", "deals",
            "trick_number", "journal", "deck", "log", "pin", "retry_ms", "readers",
            "readers_down", "uptime_ms", "mem_free", "requests", "bad_lines", "dropped",
            "enrol")
    out = ["%-12s %s" % (k, json.dumps(a[k], ensure_ascii=False)) for k in keys if k in a]
    if a.get("seats"):
        out.append("%-12s %s" % ("seats", ", ".join(a["seats"])))
    if a.get("screen"):
        out.append(screen_box(a["screen"]))
    return "\n".join(out)


def screen_box(rows):
    w = 16
    lines = ["\u250c" + "\u2500" * w + "\u2510"]
    for r in rows:
        lines.append("\u2502" + (r + " " * w)[:w] + "\u2502")
    lines.append("\u2514" + "\u2500" * w + "\u2518")
    return "\n".join(lines)


def show_view(a):
    seats = a.get("seats") or []
    out = ["%s, %d players, %s mode; deal %d, %s deals" % (
        a.get("variant"), a.get("players", 0), a.get("mode"), a.get("deals", 0) + 1,
        seat_name(seats, a.get("dealer")))]
    line = "phase %s" % a.get("phase")
    if isinstance(a.get("turn"), int) and a["turn"] >= 0:
        line += ", %s to %s" % (seat_name(seats, a["turn"]), a.get("expects"))
    out.append(line)
    if a.get("contract"):
        line = "contract %s" % a["contract"]
        declarer = a.get("declarer")
        if isinstance(declarer, int) and declarer >= 0:     # Ramsch: nobody declared
            line += " by %s" % seat_name(seats, declarer)
        if a.get("trump"):
            line += ", trump %s" % SUITS.get(a["trump"], a["trump"])
        if a.get("multiplier", 1) > 1:
            line += ", x%d" % a["multiplier"]
        if a.get("announcements"):
            line += ", announced " + " ".join(a["announcements"])
        out.append(line)
    out.append(trick_line(a.get("trick_number"), a.get("trick") or [], seats))
    last = a.get("last_trick")
    if last:
        out.append("last trick %d: %s -> %s (%d points)" % (
            last["n"], " ".join(card(c) for c in last["cards"]),
            seat_name(seats, last["winner"]), last["points"]))
    if seats:
        out.append("points  " + "  ".join("%s %d" % (seat_name(seats, s), p)
                                          for s, p in enumerate(a.get("points", []))))
    if a.get("hands"):
        for s, hand in enumerate(a["hands"]):
            if hand is not None:
                out.append("hand of %s: %s" % (seat_name(seats, s),
                                               " ".join(card(c) for c in hand)))
    if a.get("talon") is not None:
        out.append("talon: " + " ".join(card(c) for c in a["talon"]))
    if a.get("screen"):
        out.append(screen_box(a["screen"]))
    return "\n".join(out)


def trick_line(n, trick, seats):
    played = {s: c for s, c in trick}
    cells = []
    for s in range(len(seats)):
        cells.append("%s %s" % (seat_name(seats, s), card(played[s]) if s in played else "\u00b7"))
    return "trick %s: %s" % (n, "  ".join(cells))


def show_score(a):
    seats = a.get("seats") or []
    w = max([8] + [len(s) for s in seats])
    head = "%-6s" % "deal" + "".join("%*s" % (w + 2, s) for s in seats) + "%8s" % "pot"
    rows = [head, "-" * len(head)]
    for h in a.get("parts", []):
        r = h.get("result") or {}
        pay = r.get("payments") or [0] * len(seats)
        rows.append("%-6s" % h.get("deal") + "".join("%*s" % (w + 2, "%+d" % p) for p in pay)
                    + "%8s" % h.get("pot", ""))
    rows.append("-" * len(head))
    rows.append("%-6s" % "total" + "".join("%*d" % (w + 2, b) for b in a.get("balances", []))
                + "%8d" % (a.get("pot") or 0))
    if a.get("session_over"):
        rows.append("the session is over")
    return "\n".join(rows)


def show_readers(a):
    rows = ["%-8s %-9s %-9s %5s %6s %6s %6s  %s" % ("reader", "status", "raw", "down",
                                                    "faults", "recov", "errors", "card")]
    for r in a.get("readers", []):
        extra = r.get("card") or r.get("placed_uid") or ("placed" if r.get("placed") else "")
        if r.get("injected"):
            extra += " (injected)"
        rows.append("%-8s %-9s %-9s %5s %6d %6d %6d  %s" % (
            r["name"], r["status"], r["raw"], "yes" if r["down"] else "", r["faults"],
            r["recoveries"], r["errors"], extra))
    rows.append("arbiter overflows %s, polls %s" % (a.get("overflows"), a.get("polls")))
    return "\n".join(rows)


class EventPrinter:
    """Live events as short lines; the current trick, numbered, as it grows."""

    def __init__(self, write, seats=None):
        self.write = write
        self.seats = seats or []
        self.trick = []
        self.trick_number = None

    def start(self, status):
        """What the table showed when the console attached (``status``): the seats
        and the cards of the trick already played."""
        self.seats = status.get("seats") or []
        self.trick = [tuple(x) for x in status.get("trick") or []]
        self.trick_number = status.get("trick_number")

    def __call__(self, ev):
        line = self.format(ev)
        if line:
            self.write(line)

    def format(self, ev):
        kind = ev.get("event")
        s = self.seats
        if kind == "session":
            self.seats = ev.get("seats") or []
            self.trick = []
            self.trick_number = 1
            return "new session: %s, %s players, %s" % (ev.get("variant"), ev.get("players"),
                                                         ev.get("mode"))
        if kind == "accepted":
            e = ev.get("ev") or {}
            if e.get("ev") == "play":
                self.trick.append((e.get("seat"), e.get("card")))
                return "  " + trick_line(self.trick_number or "", self.trick, s) if s else \
                    "  %s plays %s" % (e.get("seat"), card(e.get("card")))
            if e.get("ev") == "deal":
                self.trick = []
                self.trick_number = 1
                return "deal by %s" % seat_name(s, e.get("dealer"))
            if e.get("ev") == "undo":
                if self.trick:
                    self.trick.pop()
                return "undo"
            return "%s: %s" % (seat_name(s, e.get("seat")) if "seat" in e else "table",
                               " ".join("%s=%s" % (k, v) for k, v in e.items()
                                        if k not in ("ev", "seat")) or e.get("ev"))
        if kind == "trick":
            self.trick = []
            n = ev.get("n")
            self.trick_number = n + 1 if isinstance(n, int) else None
            return "TRICK %s: %s -> %s wins %s points" % (
                n, " ".join(card(c) for c in ev.get("cards", [])),
                seat_name(s, ev.get("winner")), ev.get("points"))
        if kind == "refused":
            return "REFUSED at %s%s: %s (%s)" % (
                seat_name(s, ev.get("seat")) if "seat" in ev else "reader %s" % ev.get("reader"),
                " " + card(ev["card"]) if ev.get("card") else "", ev.get("reason"),
                ev.get("message"))
        if kind == "result":
            r = ev.get("result") or {}
            return "RESULT deal %s: %s, payments %s, balances %s" % (
                ev.get("deal"), r.get("contract"), r.get("payments"), r.get("balances"))
        if kind == "tag":
            return None
        if kind == "error":
            return "ERROR %s reader %s" % (ev.get("state"), ev.get("reader", ""))
        if kind in ("hello",):
            return "the table (re)started: protocol %s" % ev.get("protocol")
        return json.dumps(ev, ensure_ascii=False)


# ----------------------------------------------------------------- commands


def _value(key, text):
    """A ``set KEY=VALUE`` value: JSON, or the word itself; a PIN stays text."""
    if key == "referee_pin":
        return text
    try:
        return json.loads(text)
    except ValueError:
        return text


def parse_words(words, pin=None):
    """Command words (as typed) -> (cmd, args dict)."""
    if not words:
        raise ConsoleError("no command")
    cmd, rest = words[0], list(words[1:])
    if cmd == "enroll":            # the old spelling, still understood
        cmd = "enrol"
    args = {}
    if cmd in ("view", "readers") and rest[:1] == ["details"]:
        args["details"] = True
        rest = rest[1:]
    elif cmd == "journal":
        if rest[:1] in (["list"], ["--list"]):
            args["list"] = True
            rest = rest[1:]
        elif rest:
            args["session"] = rest.pop(0)
    elif cmd in ("place", "lift"):
        if not rest or not rest[0].isdigit():
            raise ConsoleError("%s READER%s" % (cmd, " CARD|UID" if cmd == "place" else ""))
        args["reader"] = int(rest.pop(0))
        if cmd == "place":
            if not rest:
                raise ConsoleError("place READER CARD (e.g. place 0 HA) or a hex UID")
            what = rest.pop(0)
            if len(what) in (8, 14, 20) and all(c in "0123456789abcdefABCDEF" for c in what):
                args["uid"] = what
            else:
                args["card"] = what.upper()
            if rest and rest[0].isdigit():
                args["deck"] = int(rest.pop(0))
    elif cmd == "press":
        if not rest:
            raise ConsoleError("press prev|next|ok [long]")
        args["key"] = rest.pop(0)
        if rest[:1] == ["long"]:
            args["long"] = True
            rest = rest[1:]
    elif cmd == "log" and rest:
        args["level"] = rest.pop(0)
    elif cmd == "selftest":
        for w in rest:
            k, eq, v = w.partition("=")
            if k not in ("card_ms", "button_ms") or not eq or not v.isdigit():
                raise ConsoleError("selftest [card_ms=MS] [button_ms=MS]")
            args[k] = int(v)
        rest = []
    elif cmd == "set" and rest:
        values = {}
        for w in rest:
            if "=" not in w:
                raise ConsoleError("set KEY=VALUE ... (VALUE as JSON, or a word)")
            k, v = w.split("=", 1)
            values[k] = _value(k, v)
        args["values"] = values
        rest = []
    elif cmd == "registry" and rest:
        op = rest.pop(0)
        args["op"] = op
        if op == "download" and rest:
            args["deck"] = int(rest.pop(0))
        elif op == "upload" and rest:
            with open(rest.pop(0), encoding="utf-8") as f:
                args["lines"] = [x.rstrip("\r\n") for x in f if x.strip()]
    elif cmd == "enrol":
        for w in rest:
            k, _, v = w.partition("=")
            args[k] = int(v) if v.isdigit() else v
        rest = []
    elif cmd == "raw":
        try:
            body = json.loads(" ".join(rest))
        except ValueError as exc:
            raise ConsoleError("raw JSON: %s" % exc) from None
        if not isinstance(body, dict) or "cmd" not in body:
            raise ConsoleError('raw {"cmd": ...}')
        cmd = body.pop("cmd")
        args = body
        rest = []
    if rest:
        raise ConsoleError("%s: unexpected %s" % (cmd, " ".join(rest)))
    if pin is not None and "pin" not in args:
        args["pin"] = pin
    return cmd, args


def render(cmd, answer, as_json=False):
    if as_json:
        body = {k: v for k, v in answer.items() if k != "parts"}
        return json.dumps(body, ensure_ascii=False)
    if cmd == "status":
        return show_status(answer)
    if cmd == "view":
        return show_view(answer)
    if cmd == "score":
        return show_score(answer)
    if cmd == "readers":
        return show_readers(answer)
    if cmd == "registry" and "lines" in answer:
        return "\n".join(answer["lines"])
    if cmd in ("place", "lift", "press"):
        head = []
        if "settled" in answer:
            head.append("settled" if answer["settled"] else "not settled (the readers "
                                                              "did not report it in time)")
        if answer.get("refused"):
            head.append("REFUSED: %s" % answer.get("message"))
        if answer.get("accepted"):
            head.append("%d event(s) accepted" % answer["accepted"])
        return "; ".join(head) + ("\n" if head else "") + screen_box(answer.get("screen", []))
    if cmd == "help":
        return ("the table's commands: %s\nneed the referee PIN: %s\nthe console's own: %s"
                % (" ".join(answer.get("commands", [])), "; ".join(answer.get("locked", [])),
                   "; ".join(CLIENT_WORDS)))
    body = {k: v for k, v in answer.items() if k not in ("parts", "id", "ok")}
    return json.dumps(body, ensure_ascii=False, indent=1) if body else "ok"


def check_crc(line, n):
    """Raise ConsoleError unless the journal line ends in its own CRC-32."""
    from tapp.record import crc_hex
    body, tab, crc = line.rpartition("\t")
    if not tab or crc != crc_hex(body):
        raise ConsoleError("journal line %d arrived damaged (its CRC does not match): "
                           "nothing written; download it again" % n)


def selftest_timeout(args, timeout):
    """The self-test answers after its waits: a card per reader, each button."""
    card_ms = args.get("card_ms", SELFTEST_WAITS[0])
    button_ms = args.get("button_ms", SELFTEST_WAITS[1])
    return max(timeout, (card_ms + button_ms) / 1000.0 + 5)


def run_one(link, words, pin, out, as_json=False, timeout=10.0):
    """One command; its output written to ``out`` only once it is complete."""
    cmd, args = parse_words(words, pin)
    if cmd == "journal" and not args.get("list"):
        lines = []

        def part(msg):
            line = msg.get("line", "")
            check_crc(line, len(lines) + 1)
            lines.append(line)
        try:
            answer = link.request(cmd, timeout=timeout, on_part=part, **args)
        except ConsoleError:
            raise
        if answer.get("count") != len(lines):
            raise ConsoleError("journal: %d lines received, the table sent %s: nothing "
                               "written" % (len(lines), answer.get("count")))
        out.write("".join(x + "\n" for x in lines))
        return 0
    if cmd == "selftest":
        timeout = selftest_timeout(args, timeout)
    answer = link.request(cmd, timeout=timeout, **args)
    out.write(render(cmd, answer, as_json) + "\n")
    return 0


def write_file(path, text):
    """Write ``text`` to ``path`` completely or not at all."""
    from tools.tapptable.atomic import WriteError, write_lines
    try:
        write_lines(path, text.splitlines(), force=True)
    except WriteError as exc:
        raise ConsoleError(str(exc)) from None


def split_target(line):
    """``COMMAND > FILE`` -> (command text, FILE or None)."""
    head, sep, tail = line.rpartition(">")
    if sep and tail.strip() and " " not in tail.strip() and not head.rstrip().endswith("-"):
        try:
            target = shlex.split(tail)
        except ValueError:
            return line, None
        if len(target) == 1 and "}" not in tail:
            return head, target[0]
    return line, None


def interactive(link, pin, out):
    try:
        import readline
        hist = os.path.expanduser("~/.tapptable_history")
        try:
            readline.read_history_file(hist)
        except OSError:
            pass
    except ImportError:          # no readline (Windows): plain input()
        readline = None
        hist = None
    out.write("tapptable console on %s: help lists the commands, pin NNNN remembers the "
              "referee PIN, quit ends. Ctrl-C here never reaches the table.\n" % link.port)
    keep = threading.Event()

    def keepalive():            # the connection's log level lasts while we are here
        while not keep.wait(KEEPALIVE_S):
            try:
                link.request("ping", timeout=5)
            except (ConsoleError, DeviceError):
                pass
    threading.Thread(target=keepalive, daemon=True).start()
    try:
        while True:
            try:
                line = input("table> ")
            except EOFError:
                break
            except KeyboardInterrupt:
                out.write("\n")
                continue
            try:
                pin, done = interactive_line(link, line, pin, out)
            except KeyboardInterrupt:
                out.write("\ninterrupted: the table may still do it (see status)\n")
                continue
            if done:
                break
    finally:
        keep.set()
        if readline is not None and hist:
            try:
                readline.write_history_file(hist)
            except OSError:
                pass
    return 0


def interactive_line(link, line, pin, out):
    """One typed line: (the PIN now, True to quit)."""
    stripped = line.strip()
    if not stripped:
        return pin, False
    word = stripped.split(None, 1)[0]
    if word in ("quit", "exit"):
        return pin, True
    if word == "pin":
        rest = stripped.split()
        pin = rest[1] if len(rest) > 1 else None
        out.write("PIN %s\n" % ("remembered" if pin else "forgotten"))
        return pin, False
    text, target = split_target(stripped)
    try:
        if word == "raw":                  # the JSON as typed, quotes and all
            words = ["raw", text.strip()[3:].strip()]
        else:
            words = shlex.split(text)
    except ValueError as exc:
        out.write("%s\n" % exc)
        return pin, False
    try:
        if target:
            buf = io.StringIO()
            run_one(link, words, pin, buf)
            write_file(target, buf.getvalue())
            out.write("written to %s\n" % target)
        else:
            run_one(link, words, pin, out)
    except DeviceError as exc:
        out.write("refused: %s: %s\n" % (exc.code, exc.answer.get("message")))
    except (ConsoleError, OSError) as exc:
        out.write("%s\n" % exc)
    return pin, False


def cmd_console(args):
    """``tapptable console``: entry point (see the module text)."""
    def fail(msg):
        print("tapptable console: %s" % msg, file=sys.stderr)
        return 2
    words = list(args.words or [])
    if words[:1] == ["ports"]:
        marked = {d for d, _ in candidate_ports()}
        for dev, desc in all_ports():
            print("%s %s  %s" % ("*" if dev in marked else " ", dev, desc))
        return 0
    pin = args.pin or os.environ.get("TAPPTABLE_PIN")
    out_path = getattr(args, "out", None)
    stay = not words or words[:1] == ["events"]
    try:
        port = find_port(args.port)
        out = sys.stdout

        def say(s):
            print("[%s]" % s, file=sys.stderr, flush=True)
        printer = EventPrinter(lambda s: (out.write(s + "\n"), out.flush()))
        link = Link(port, on_event=printer if stay else None, on_status=say,
                    reconnect_s=None if stay else args.reconnect)
    except ConsoleError as exc:
        return fail(str(exc))
    try:
        link.hello(timeout=args.timeout)
        if stay:
            printer.start(link.request("status", timeout=args.timeout))
        if not words:
            return interactive(link, pin, out)
        if words[0] == "events":
            print("following the table's live events (Ctrl+C ends)", file=sys.stderr)
            try:
                while not link.stop.is_set():
                    time.sleep(0.2)
            except KeyboardInterrupt:
                pass
            return 0
        if out_path:
            buf = io.StringIO()
            run_one(link, words, pin, buf, args.json, args.timeout)
            write_file(out_path, buf.getvalue())
            return 0
        return run_one(link, words, pin, out, args.json, args.timeout)
    except DeviceError as exc:
        return fail("%s: %s" % (exc.code, exc.answer.get("message")))
    except ConsoleError as exc:
        return fail(str(exc))
    except OSError as exc:
        return fail(str(exc))
    finally:
        link.close()
