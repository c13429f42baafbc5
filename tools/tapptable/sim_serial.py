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
buffer that is sent as the other side reads.  The pty's other end stays open
here, so a client may close the port and open it again (as after unplugging
a board); over TCP a new client replaces the old one.
"""
import errno
import os
import select
import socket
import sys
import time
import tty

from host_sim.table import VirtualTable
from table.console import Console

OUT_MAX = 1 << 20         # bytes kept for a client that does not read
TICK_S = 0.004            # wall-time step of the serving loop
DEFAULT_PIN = "1234"


class _Buffered:
    """What both links share: bounded output, non-blocking input on one fd."""

    def __init__(self):
        self.pending = bytearray()
        self.dropped = 0

    def fd(self):
        """The link's file descriptor (the pty's or the socket's), None while
        there is none; each link says which."""
        return None

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

    # the console's output stream
    def write(self, text):
        data = text.encode() if isinstance(text, str) else bytes(text)
        if self.fd() is None:
            return len(data)            # nobody listens: as a board with no host
        if len(self.pending) + len(data) > OUT_MAX:
            self.dropped += len(data)
            return len(data)
        self.pending += data
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
    """A pseudo-terminal: the console on the master side, ``path`` for clients."""

    def __init__(self):
        super().__init__()
        self.master, self.slave = os.openpty()
        tty.setraw(self.slave)          # no echo, no line editing, bytes as they are
        os.set_blocking(self.master, False)
        self.path = os.ttyname(self.slave)

    def fd(self):
        return self.master

    def close(self):
        for fd in (self.master, self.slave):
            try:
                os.close(fd)
            except OSError:
                pass


class TcpLink(_Buffered):
    """A TCP listener on 127.0.0.1: one client at a time (the newest)."""

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

    def fd(self):
        return None if self.client is None else self.client.fileno()

    def accept(self):
        try:
            conn, _addr = self.server.accept()
        except (BlockingIOError, InterruptedError):
            return
        conn.setblocking(False)
        if self.client is not None:
            self.client.close()
        self.client = conn
        self.pending.clear()

    def lost(self):
        if self.client is not None:
            self.client.close()
        self.client = None
        self.pending.clear()

    def pump(self):
        self.accept()
        super().pump()

    def wait_fds(self):
        return super().wait_fds() + [self.server.fileno()]

    def close(self):
        self.lost()
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


def attach(table, link, pin=DEFAULT_PIN):
    """Put the line protocol on ``link`` into ``table``'s app (its console job)."""
    console = Console(table.app, link, link, pin=pin)
    table.app.console = console
    board = table.board
    if not hasattr(board, "sleep_ms"):      # the self-test's waits pass on the virtual clock
        board.sleep_ms = lambda ms: board.clock.advance(ms * 1000)
    return console


class SerialSim:
    """A virtual table and its console link, stepped on wall time."""

    def __init__(self, table, link, pin=DEFAULT_PIN):
        self.table = table
        self.link = link
        self.console = attach(table, link, pin)
        self.t0 = time.monotonic()
        self.v0 = table.scheduler.now_ms()

    def step(self):
        """Run the table up to now (wall time), then send what the console wrote."""
        target = self.v0 + (time.monotonic() - self.t0) * 1000.0
        sched = self.table.scheduler
        if target > sched.now_ms():
            sched.run_until(target)
        self.link.pump()

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
    try:
        link = open_link(args.serial)
    except ValueError as exc:
        print("tapptable sim: %s" % exc, file=sys.stderr)
        return 2
    except OSError as exc:
        print("tapptable sim: --serial %s: %s" % (args.serial, exc.strerror or exc),
              file=sys.stderr)
        return 2
    pin = getattr(args, "pin", None) or DEFAULT_PIN
    table = VirtualTable(variant=args.variant, players=args.players, mode=args.mode,
                         lang=args.lang)
    sim = SerialSim(table, link, pin)
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
