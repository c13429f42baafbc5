"""``tapptable sim --serial pty|tcp:PORT``: the virtual table behind a serial line.

The unchanged firmware application (host_sim/table.py, ``VirtualTable``) runs
on wall time with the device's line protocol (firmware/table/console.py)
attached to a pseudo-terminal or a TCP socket on 127.0.0.1, so ``tapptable
console`` (or any serial terminal) talks to it as to a real table:

    tapptable sim --serial pty           # prints: serial: /dev/pts/7
    tapptable console --port /dev/pts/7

    tapptable sim --serial tcp:7777
    tapptable console --port socket://127.0.0.1:7777

Streams here never block: ``PtyLink`` and ``TcpLink`` hand the console what
has arrived (None when nothing has) and keep what it writes in a bounded
buffer that is sent as the other side reads; ``room()`` tells the console how
much more fits, so a host that stops reading holds the answers back instead of
losing them (a USB serial port blocks the same way).  Both know when a client
comes and goes (``connection()``): what is written while nobody listens is
lost, and a client's log level ends with it.  A client may close the port and
open it again (as after unplugging a board).  Over TCP one client at a time:
a second one is told ``busy`` and closed.

The board's REPL is modelled as far as a client meets it (``SimRepl``): while
the table plays, 0x03 and 0x04 are ordinary bytes (keyboard interrupt is off);
the console's ``repl`` command stops the table and leaves the line at a
``>>>`` prompt, where Ctrl-C clears the line, Ctrl-A/Ctrl-B enter and leave
the raw REPL and Ctrl-D soft-resets: the table starts again on the same flash
and takes up its journal.  The simulated REPL runs no Python.
"""
import errno
import os
import select
import socket
import sys
import tempfile
import time
import tty

from host_sim.table import VirtualTable
from table.console import Console
from table.console_link import HandOver
from table.settings import Settings

OUT_MAX = 1 << 20         # bytes kept for a client that does not read
REFUSED_S = 10.0          # a client told "busy" is closed after this at the latest
TICK_S = 0.004            # wall-time step of the serving loop
DEFAULT_PIN = "1234"
BANNER = (b"MicroPython v1.28.0 on 2026-01-01; tapptable sim (a virtual table)\r\n"
          b'Type "help()" for more information.\r\n')
BUSY = (b'{"ok":false,"error":"busy","message":"another client is connected to this '
        b'table; one at a time"}\n')


class _Buffered:
    """What both links share: bounded output, non-blocking input on one fd."""

    def __init__(self):
        self.pending = bytearray()
        self.clients = 0              # counts clients come and gone (TCP)

    def fd(self):
        """The link's file descriptor (the pty's or the socket's), None while
        there is none; each link says which."""
        return None

    def connection(self):
        """Changes when a client comes or goes (the console ends its log level)."""
        return self.clients

    # the console's input stream
    def readinto(self, buf):
        fd = self.fd()
        if fd is None:
            return None
        try:
            data = os.read(fd, len(buf))
        except BlockingIOError:
            return None
        except OSError:
            self.lost()
            return None
        if not data:
            self.lost()
            return None
        buf[:len(data)] = data
        return len(data)

    def room(self):
        """Bytes the console may write now (nobody connected: anything, it is lost
        as on a board without a host)."""
        if self.fd() is None:
            return OUT_MAX
        if self.pending:
            self.pump()                 # what the other side has read meanwhile
        return OUT_MAX - len(self.pending)

    # the console's output stream
    def write(self, text):
        data = text.encode() if isinstance(text, str) else bytes(text)
        if self.fd() is None:
            return len(data)            # nobody listens: as a board with no host
        self.pending += data            # the console asked room() first
        self.pump()                     # send at once what the other side takes
        return len(data)

    def pump(self):
        """Send what is pending, as far as the other side takes it."""
        fd = self.fd()
        if fd is None:
            self.pending.clear()
            return
        while self.pending:
            try:
                n = os.write(fd, self.pending[:65536])
            except BlockingIOError:
                return
            except OSError:
                self.lost()
                return
            del self.pending[:n]

    def lost(self):
        pass

    def wait_fds(self):
        fd = self.fd()
        return [] if fd is None else [fd]


class PtyLink(_Buffered):
    """A pseudo-terminal: the console on the master side, ``path`` for clients.

    Only clients hold the other end open, so the link knows when one is there
    (the master hangs up when none is): what the table writes while nobody is
    connected is lost, as on a board without a host, and a client that closes
    the port ends its connection (its log level with it)."""

    def __init__(self):
        super().__init__()
        self.master, slave = os.openpty()
        tty.setraw(slave)               # no echo, no line editing, bytes as they are
        self.path = os.ttyname(slave)
        os.set_blocking(self.master, False)
        self.poller = select.poll()
        self.poller.register(self.master, select.POLLIN)
        self.present = False
        os.close(slave)                 # the pty stays while the master is open

    def here(self):
        """Is a client holding the port now?  Notes when one came or went."""
        if self.master is None:
            return False
        hung_up = False
        for _fd, events in self.poller.poll(0):
            hung_up = bool(events & select.POLLHUP)
        if hung_up == self.present:     # a client came (no hang-up) or went
            self.present = not hung_up
            self.clients += 1
            self.pending.clear()
        return self.present

    def fd(self):
        return self.master if self.here() else None

    def lost(self):
        self.here()

    def wait_fds(self):
        return [self.master] if self.here() else []

    def close(self):
        if self.master is not None:
            try:
                os.close(self.master)
            except OSError:
                pass
            self.master = None


class TcpLink(_Buffered):
    """A TCP listener on 127.0.0.1: one client at a time; another is refused (busy)."""

    def __init__(self, port, host="127.0.0.1"):
        super().__init__()
        self.server = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        self.server.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        self.server.bind((host, port))
        self.server.listen(2)
        self.server.setblocking(False)
        self.port = self.server.getsockname()[1]
        self.path = "socket://%s:%d" % (host, self.port)
        self.client = None
        self.refused = []             # [socket, close by, told]: clients told "busy"

    def fd(self):
        return None if self.client is None else self.client.fileno()

    def accept(self):
        try:
            conn, _addr = self.server.accept()
        except (BlockingIOError, InterruptedError):
            return
        if self.client is not None:     # one at a time: the newcomer is told so
            conn.setblocking(False)       # (once it speaks: drain_refused)
            self.refused.append([conn, time.monotonic() + REFUSED_S, False])
            return
        conn.setblocking(False)
        self.client = conn
        self.clients += 1
        self.pending.clear()

    def lost(self):
        if self.client is not None:
            self.client.close()
            self.clients += 1
        self.client = None
        self.pending.clear()

    def pump(self):
        self.accept()
        self.drain_refused()
        super().pump()

    def drain_refused(self):
        """A client told "busy": the line goes out once it has sent something (a
        pyserial socket drops what arrives while it opens), what it sends is
        dropped, and it is closed when it closes (closing first could reset the
        connection before it read the line) or after REFUSED_S."""
        keep = []
        for item in self.refused:
            conn, until, told = item
            gone = heard = False
            try:
                while not gone:
                    gone = not conn.recv(4096)
                    heard = True
            except BlockingIOError:
                pass
            except OSError:
                gone = True
            if heard and not told and not gone:
                try:
                    conn.sendall(BUSY)
                    conn.shutdown(socket.SHUT_WR)
                    item[2] = True
                except OSError:
                    gone = True
            if gone or time.monotonic() > until:
                conn.close()
            else:
                keep.append(item)
        self.refused = keep

    def wait_fds(self):
        return super().wait_fds() + [self.server.fileno()]

    def close(self):
        self.lost()
        for item in self.refused:
            item[0].close()
        self.server.close()


def open_link(spec):
    """``pty`` or ``tcp:PORT`` (PORT 0: any free port)."""
    if spec == "pty":
        return PtyLink()
    if spec.startswith("tcp:"):
        try:
            port = int(spec[4:], 10)
        except ValueError:
            raise ValueError("--serial tcp:PORT needs a port number, not %r" % spec[4:]) \
                from None
        if not 0 <= port < 65536:
            raise ValueError("--serial tcp:PORT: port 0..65535")
        return TcpLink(port)
    raise ValueError("--serial: pty or tcp:PORT, not %r" % spec)


def flash_with_pin(pin, root=None):
    """A flash folder whose settings.json holds the referee PIN (as
    ``tapptable deploy --pin`` leaves a board)."""
    root = root or tempfile.mkdtemp(prefix="tapptable-serial-")
    s = Settings(root)
    s.load()
    if not s.set("referee_pin", pin):
        raise ValueError("--pin: 4 to 8 digits")
    s.save()
    return root


def attach(table, link):
    """Put the line protocol on ``link`` into ``table``'s app (its console job)."""
    console = Console(table.app, link, link)
    table.app.set_console(console)
    board = table.board
    if not hasattr(board, "sleep_ms"):      # the self-test's waits pass on the virtual clock
        board.sleep_ms = lambda ms: board.clock.advance(ms * 1000)
    return console


class SimRepl:
    """The board's REPL after the table stopped, as a client sees it: echo, a
    prompt, Ctrl-C, the raw REPL, and Ctrl-D (soft reset: ``reset()``)."""

    def __init__(self, link, reset):
        self.link = link
        self.reset = reset
        self.raw = False
        self.buf = bytearray(256)
        self.say(b"tapptable: the table stopped for the REPL (journal closed); "
                 b"Ctrl-D starts it again\r\n" + BANNER + b">>> ")

    def say(self, data):
        if self.link.room() >= len(data):
            self.link.write(data)

    def step(self):
        """Handle what arrived; True once Ctrl-D restarted the table."""
        n = self.link.readinto(self.buf)
        if not n:
            return False
        for b in bytes(self.buf[:n]):
            if b == 0x04:
                if self.raw:                       # execute: nothing runs here
                    self.say(b"OK\x04the simulated REPL runs no Python\x04>")
                    continue
                self.say(b"MPY: soft reboot\r\n")
                self.reset()
                return True
            if b == 0x03:
                self.say(b"\r\nKeyboardInterrupt\r\n" + (b">" if self.raw else b">>> "))
            elif b == 0x01:
                self.raw = True
                self.say(b"raw REPL; CTRL-B to exit\r\n>")
            elif b == 0x02:
                self.raw = False
                self.say(b"\r\n" + BANNER + b">>> ")
            elif not self.raw:
                if b in (0x0D, 0x0A):
                    self.say(b"\r\n>>> ")
                else:
                    self.say(bytes((b,)))          # the friendly REPL echoes
        return False


class SerialSim:
    """A virtual table and its console link, stepped on wall time (``clock``:
    seconds, ``time.monotonic`` unless a test brings its own)."""

    def __init__(self, table, link, clock=time.monotonic):
        self.table = table
        self.link = link
        self.clock = clock
        self.repl = None
        self.console = attach(table, link)
        self.t0 = clock()
        self.v0 = table.scheduler.now_ms()

    def step(self):
        """Run the table up to now (wall time), then send what the console wrote."""
        if self.repl is not None:
            self.repl.step()
            self.link.pump()
            return
        target = self.v0 + (self.clock() - self.t0) * 1000.0
        sched = self.table.scheduler
        try:
            if target > sched.now_ms():
                sched.run_until(target)
        except HandOver:
            self.stop_for_repl()
        self.link.pump()

    def stop_for_repl(self):
        self.table.app.stop()            # the journal closed, as on the device
        self.repl = SimRepl(self.link, self.soft_reset)

    def soft_reset(self):
        """Ctrl-D at the REPL: main.py again -- a new table on the same flash."""
        self.table.power_cut()
        self.console = attach(self.table, self.link)
        self.t0 = self.clock()
        self.v0 = self.table.scheduler.now_ms()
        self.repl = None

    def serve(self, stop=None):
        while stop is None or not stop():
            self.step()
            fds = self.link.wait_fds()
            try:
                select.select(fds, [], [], TICK_S)
            except (OSError, ValueError) as exc:
                if getattr(exc, "errno", None) != errno.EINTR:
                    time.sleep(TICK_S)


def serve(args):
    """``tapptable sim --serial``: print where to connect, serve until Ctrl+C."""
    pin = getattr(args, "pin", None) or DEFAULT_PIN
    try:
        link = open_link(args.serial)
        root = flash_with_pin(pin)
    except ValueError as exc:
        print("tapptable sim: %s" % exc, file=sys.stderr)
        return 2
    except OSError as exc:
        print("tapptable sim: --serial %s: %s" % (args.serial, exc.strerror or exc),
              file=sys.stderr)
        return 2
    table = VirtualTable(variant=args.variant, players=args.players, mode=args.mode,
                         lang=args.lang, root=root)
    sim = SerialSim(table, link)
    print("serial: %s" % link.path, flush=True)
    print("The virtual table (%s, %d players, %s mode) answers the line protocol there; "
          "referee PIN %s. Ctrl+C stops." % (args.variant, args.players, args.mode, pin),
          file=sys.stderr, flush=True)
    try:
        sim.serve()
    except KeyboardInterrupt:
        pass
    finally:
        link.close()
    return 0
