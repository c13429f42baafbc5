"""``tapptable console``: talk to the table (or the virtual table) over a serial line.

The device speaks a line protocol (firmware/table/console.py, docs/console.md):
one JSON object per line each way, requests with an ``id`` that the answer
echoes, live events without one.  This module finds the port (USB VID:PID or
``--port``, which may be a pyserial URL such as ``socket://127.0.0.1:7777``,
``loop://`` or ``rfc2217://host:port``, or a pseudo-terminal), keeps the link
up across a device reset, and offers an interactive prompt (history via
readline) and one-shot commands for scripts::

    tapptable console                         # interactive
    tapptable console status
    tapptable console journal > game.jsonl    # then: tapptable replay game.jsonl
    tapptable console --pin 4711 undo
"""
import json
import os
import queue
import shlex
import sys
import threading
import time

# USB ids of boards the table runs on: (vid, pid) -> what it is
KNOWN_USB = {
    (0x2E8A, 0x0005): "Raspberry Pi Pico (MicroPython)",
    (0x10C4, 0xEA60): "CP210x USB-UART bridge (ESP32 DevKit)",
    (0x1A86, 0x7523): "CH340 USB-UART bridge (ESP32 DevKit)",
    (0x0403, 0x6001): "FTDI FT232 USB-UART bridge",
}
BAUD = 115200
REPL_SIGNS = (">>> ", "MicroPython v", "Traceback (most recent call last)", "raw REPL",
              'Type "help()"', "soft reboot")
READ_ONLY = ("help", "ping", "status", "view", "score", "journal", "readers", "registry",
             "log")
SUITS = {"C": "\u2663", "S": "\u2660", "H": "\u2665", "D": "\u2666"}


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


def candidate_ports():
    """[(device, description)] of the serial ports whose USB id is a known board."""
    from serial.tools import list_ports
    out = []
    for p in list_ports.comports():
        if p.vid is not None and (p.vid, p.pid) in KNOWN_USB:
            out.append((p.device, "%s [%04X:%04X]" % (KNOWN_USB[(p.vid, p.pid)], p.vid,
                                                      p.pid)))
    return out


def all_ports():
    from serial.tools import list_ports
    return [(p.device, p.description or "") for p in list_ports.comports()]


def find_port(port=None):
    """The port to open: ``port`` if given, else the one known board plugged in."""
    if port:
        return port
    env = os.environ.get("TAPPTABLE_PORT")
    if env:
        return env
    found = candidate_ports()
    if len(found) == 1:
        return found[0][0]
    if not found:
        others = all_ports()
        hint = ("; other serial ports: " + ", ".join(d for d, _ in others)) if others else ""
        raise ConsoleError(
            "no table found: no USB serial port with a known id (Pico 2E8A:0005, "
            "CP210x 10C4:EA60, CH340 1A86:7523, FTDI 0403:6001)%s. Plug it in, or "
            "give --port (a device, or socket://HOST:PORT for tapptable sim --serial)" % hint)
    raise ConsoleError("several tables found (%s): choose one with --port"
                       % ", ".join("%s %s" % f for f in found))


def open_serial(port, timeout=0.1):
    """Open ``port`` (device path or pyserial URL) with a clear message on failure."""
    import serial
    try:
        if "://" in port:
            return serial.serial_for_url(port, baudrate=BAUD, timeout=timeout)
        return serial.Serial(port, BAUD, timeout=timeout, exclusive=True)
    except serial.SerialException as exc:
        raise ConsoleError(explain_open_error(port, exc)) from None
    except (OSError, ValueError) as exc:
        raise ConsoleError(explain_open_error(port, exc)) from None


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
    return "%s: %s" % (port, text)


# ----------------------------------------------------------------- the link


class Link:
    """The line protocol over one serial port, with a reader thread.

    ``request(cmd, **args)`` sends one request and returns the final answer
    (a dict with ``ok: true``; parts of a long answer are in ``answer["parts"]``)
    or raises DeviceError.  Live events go to ``on_event(dict)``; lines that are
    not JSON to ``on_text(str)``.  After a device reset the port is opened again
    (``reconnect_s`` seconds at most)."""

    def __init__(self, port, on_event=None, on_text=None, on_status=None, reconnect_s=10.0):
        self.port = port
        self.on_event = on_event or (lambda ev: None)
        self.on_text = on_text or (lambda s: None)
        self.on_status = on_status or (lambda s: None)
        self.reconnect_s = reconnect_s
        self.ser = open_serial(port)
        self.next_id = 1
        self.waiting = {}
        self.lock = threading.Lock()
        self.stop = threading.Event()
        self.connected = threading.Event()
        self.connected.set()
        self.repl_seen = None
        self.lost = None
        self.thread = threading.Thread(target=self._read_loop, daemon=True)
        self.thread.start()

    def close(self):
        self.stop.set()
        self.thread.join(timeout=2)
        try:
            self.ser.close()
        except Exception:
            pass

    # ----- reading -------------------------------------------------------------

    def _read_loop(self):
        buf = bytearray()
        while not self.stop.is_set():
            try:
                data = self.ser.read(4096)
            except Exception as exc:          # unplugged, reset, the sim stopped
                self._reconnect(exc)
                buf.clear()
                continue
            if not data:
                continue
            buf += data
            while True:
                nl = buf.find(b"\n")
                if nl < 0:
                    if len(buf) > 1 << 20:
                        buf.clear()
                    if buf.startswith(b">>> ") or buf.startswith(b"raw REPL"):
                        self._text(bytes(buf).decode("utf-8", "replace"))
                        buf.clear()
                    break
                raw = bytes(buf[:nl]).rstrip(b"\r")
                del buf[:nl + 1]
                self._line(raw)

    def _line(self, raw):
        try:
            msg = json.loads(raw.decode("utf-8"))
        except (UnicodeDecodeError, ValueError):
            self._text(raw.decode("utf-8", "replace"))
            return
        if not isinstance(msg, dict):
            self._text(raw.decode("utf-8", "replace"))
            return
        rid = msg.get("id")
        if rid is not None and rid in self.waiting:
            self.waiting[rid].put(msg)
        elif "event" in msg:
            self.on_event(msg)
        elif rid is None and msg.get("ok") is False:
            self.on_event({"event": "protocol_error", "error": msg.get("error"),
                           "message": msg.get("message")})

    def _text(self, s):
        if any(sign in s for sign in REPL_SIGNS):
            self.repl_seen = s
            for q in list(self.waiting.values()):
                q.put({"__repl__": s})
        self.on_text(s)

    def _reconnect(self, exc):
        self.connected.clear()
        self.lost = exc
        for q in list(self.waiting.values()):
            q.put({"__lost__": str(exc)})
        try:
            self.ser.close()
        except Exception:
            pass
        self.on_status("connection lost (%s); waiting for the table..." % (exc,))
        deadline = time.monotonic() + self.reconnect_s
        while not self.stop.is_set():
            if time.monotonic() > deadline:
                self.on_status("the table did not come back within %.0f s" % self.reconnect_s)
                self.stop.set()
                return
            time.sleep(0.5)
            try:
                self.ser = open_serial(self.port)
            except ConsoleError:
                continue
            self.connected.set()
            self.on_status("connected again to %s" % self.port)
            return

    # ----- requests -------------------------------------------------------------

    def send_raw(self, data):
        with self.lock:
            self.ser.write(data)
            self.ser.flush()

    def request(self, cmd, timeout=10.0, on_part=None, **args):
        """One request; the final answer (DeviceError when ``ok`` is false)."""
        if not self.connected.wait(timeout):
            raise ConsoleError("%s: not connected" % self.port)
        with self.lock:
            rid = self.next_id
            self.next_id += 1
        q = queue.Queue()
        self.waiting[rid] = q
        body = {"id": rid, "cmd": cmd}
        body.update({k: v for k, v in args.items() if v is not None})
        self.repl_seen = None
        try:
            self.send_raw((json.dumps(body, ensure_ascii=False) + "\n").encode())
            parts = []
            deadline = time.monotonic() + timeout
            while True:
                left = deadline - time.monotonic()
                if left <= 0:
                    if self.repl_seen:
                        raise ReplError(repl_message(self.port))
                    raise ConsoleError(
                        "%s: no answer to %s within %.0f s (is the table's app running? "
                        "a device at the REPL prints '>>>')" % (self.port, cmd, timeout))
                try:
                    msg = q.get(timeout=min(left, 0.5))
                except queue.Empty:
                    continue
                if "__repl__" in msg:
                    raise ReplError(repl_message(self.port))
                if "__lost__" in msg:
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


def repl_message(port):
    return ("%s: the device is at the MicroPython REPL, not running the table's app. "
            "Press Ctrl-D there (soft reset) to start main.py again, or look at the "
            "traceback above it; mpremote connect %s repl shows it" % (port, port))


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
            "journal", "deck", "log", "pin", "retry_ms", "readers", "readers_down",
            "uptime_ms", "mem_free", "requests", "bad_lines", "dropped", "enrol")
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
        line = "contract %s by %s" % (a["contract"], seat_name(seats, a.get("declarer")))
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
    for h in a.get("history", []):
        r = h.get("result") or {}
        pay = r.get("payments") or [0] * len(seats)
        rows.append("%-6s" % h.get("deal") + "".join("%*s" % (w + 2, "%+d" % p) for p in pay)
                    + "%8s" % r.get("pot", ""))
    rows.append("-" * len(head))
    rows.append("%-6s" % "total" + "".join("%*d" % (w + 2, b) for b in a.get("balances", []))
                + "%8d" % a.get("pot", 0))
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
    """Live events as short lines; the current trick as it grows."""

    def __init__(self, write, seats=None):
        self.write = write
        self.seats = seats or []
        self.trick = []

    def __call__(self, ev):
        line = self.format(ev)
        if line:
            self.write(line)

    def format(self, ev):
        kind = ev.get("event")
        s = self.seats
        if kind == "session":
            self.seats = ev.get("seats") or []
            return "new session: %s, %s players, %s" % (ev.get("variant"), ev.get("players"),
                                                         ev.get("mode"))
        if kind == "accepted":
            e = ev.get("ev") or {}
            if e.get("ev") == "play":
                self.trick.append((e.get("seat"), e.get("card")))
                return "  " + trick_line("", self.trick, s) if s else \
                    "  %s plays %s" % (e.get("seat"), card(e.get("card")))
            if e.get("ev") == "deal":
                self.trick = []
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
            return "TRICK %s: %s -> %s wins %s points" % (
                ev.get("n"), " ".join(card(c) for c in ev.get("cards", [])),
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


def parse_words(words, pin=None):
    """Command words (as typed) -> (cmd, args dict)."""
    if not words:
        raise ConsoleError("no command")
    cmd, rest = words[0], list(words[1:])
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
    elif cmd == "set" and rest:
        values = {}
        for w in rest:
            if "=" not in w:
                raise ConsoleError("set KEY=VALUE ... (VALUE as JSON, or a word)")
            k, v = w.split("=", 1)
            try:
                values[k] = json.loads(v)
            except ValueError:
                values[k] = v
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
    elif cmd == "enroll":
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
        return ("commands: %s\nneed the referee PIN: %s" % (
            " ".join(answer.get("commands", [])), "; ".join(answer.get("locked", []))))
    body = {k: v for k, v in answer.items() if k not in ("parts", "id", "ok")}
    return json.dumps(body, ensure_ascii=False, indent=1) if body else "ok"


def run_one(link, words, pin, out, as_json=False, timeout=10.0):
    cmd, args = parse_words(words, pin)
    if cmd == "journal" and not args.get("list"):
        count = [0]

        def part(msg):
            out.write(msg["line"] + "\n")
            count[0] += 1
        answer = link.request(cmd, timeout=timeout, on_part=part, **args)
        out.flush()
        if answer.get("count") != count[0]:
            raise ConsoleError("journal: %d lines received, the table sent %s"
                               % (count[0], answer.get("count")))
        return 0
    answer = link.request(cmd, timeout=timeout, **args)
    out.write(render(cmd, answer, as_json) + "\n")
    return 0


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
    while True:
        try:
            line = input("table> ")
        except EOFError:
            break
        except KeyboardInterrupt:
            out.write("\n")
            continue
        try:
            words = shlex.split(line)
        except ValueError as exc:
            out.write("%s\n" % exc)
            continue
        if not words:
            continue
        if words[0] in ("quit", "exit"):
            break
        if words[0] == "pin":
            pin = words[1] if len(words) > 1 else None
            out.write("PIN %s\n" % ("remembered" if pin else "forgotten"))
            continue
        target = None
        if ">" in words:
            k = words.index(">")
            target = words[k + 1] if k + 1 < len(words) else None
            words = words[:k]
        try:
            if target:
                with open(target, "w", encoding="utf-8") as f:
                    run_one(link, words, pin, f)
                out.write("written to %s\n" % target)
            else:
                run_one(link, words, pin, out)
        except DeviceError as exc:
            out.write("refused: %s: %s\n" % (exc.code, exc.answer.get("message")))
        except (ConsoleError, OSError) as exc:
            out.write("%s\n" % exc)
    if readline is not None and hist:
        try:
            readline.write_history_file(hist)
        except OSError:
            pass
    return 0


def cmd_console(args):
    """``tapptable console``: entry point (see the module text)."""
    def fail(msg):
        print("tapptable console: %s" % msg, file=sys.stderr)
        return 2
    words = list(args.words or [])
    if words[:1] == ["ports"]:
        for dev, desc in all_ports():
            mark = "*" if any(dev == d for d, _ in candidate_ports()) else " "
            print("%s %s  %s" % (mark, dev, desc))
        return 0
    pin = args.pin or os.environ.get("TAPPTABLE_PIN")
    try:
        port = find_port(args.port)
        out = sys.stdout
        events = not words or words[:1] == ["events"]

        def say(s):
            print("[%s]" % s, file=sys.stderr, flush=True)
        printer = EventPrinter(lambda s: (out.write(s + "\n"), out.flush()))
        link = Link(port, on_event=printer if events else None,
                    on_status=say, reconnect_s=args.reconnect)
    except ConsoleError as exc:
        return fail(str(exc))
    try:
        try:
            hello = link.request("status", timeout=args.timeout)
            printer.seats = hello.get("seats") or []
        except DeviceError as exc:
            return fail(str(exc))
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
        return run_one(link, words, pin, out, args.json, args.timeout)
    except DeviceError as exc:
        return fail("%s: %s" % (exc.code, exc.answer.get("message")))
    except ConsoleError as exc:
        return fail(str(exc))
    except OSError as exc:
        return fail(str(exc))
    finally:
        link.close()
