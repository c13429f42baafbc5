"""The VM's end of the bridge to the chip models in the host process.

Runs inside the MicroPython unix port (host_sim/vm_table.py starts it).  Every
message is one line on standard output that starts with ``@``; a message that
changes something on the host (a pin level, bytes clocked out, a sleep) is
sent and not answered (``tell``), one that needs an answer (bytes clocked in, a
pin read, the clock) waits for the host's reply line on standard input
(``ask``).  The pipe keeps their order, so the chip models see exactly the
sequence of bus operations a real board's buses would carry; told messages
are held and written together with the next question or answer (one write
instead of dozens).

Messages and replies are bytes, never str: MicroPython looks every new str
up among the interned strings (the firmware's thousands of names, searched
one by one: two fifths of a VM's time went there when the messages were str);
a new bytes object is not looked up.

A reply starting with ``!`` is an error the host met (``!OSError 19`` when an
I2C device does not answer, ``!BusError ...`` when bytes were clocked with no
chip selected): it is raised here, in the driver that caused it.

What the host writes (answers and commands) comes framed: four decimal digits
of length, then the line (``readline``).  MicroPython's ``readline`` on a pipe
reads one byte per system call (a job step's command line cost twenty); a
frame is read with two.
"""
import sys

_write = sys.stdout.buffer.write
_stdin = sys.stdin.buffer
_head = bytearray(4)
_held = []      # told, not yet written: they go out with the next ask or answer


def read_frame():
    """The host's next line as bytes (with its newline), or b"" at the end of input."""
    if _stdin.readinto(_head) != 4:
        return b""
    return _stdin.read(int(_head))


def tell(msg):
    """Send ``msg`` (bytes: a line ending in a newline); no answer comes."""
    _held.append(msg)
    if len(_held) > 64:
        flush()


def flush():
    if _held:
        _write(b"".join(_held))
        _held.clear()


def answer(msg):
    """The end of a command: what was told, then ``msg``."""
    _held.append(msg)
    flush()


def ask(msg):
    """Send ``msg`` (bytes) and return the host's answer (bytes, without its newline)."""
    _held.append(msg)
    flush()
    reply = read_frame()
    if not reply:
        raise SystemExit(0)          # the host went away: power off
    if reply[0] == 33:               # "!"
        kind, _, text = reply[1:-1].decode().partition(" ")
        if kind == "OSError":
            raise OSError(int(text))
        raise RuntimeError(kind + ": " + text)
    return reply[:-1]
