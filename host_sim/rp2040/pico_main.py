"""The table application on the emulated Pico, run by the host's scheduler.

Goes onto the Pico's filesystem (as ``tapp_rp2040.py``, with vm_serve.py,
vm_link.py and vm_deck.py beside it) instead of firmware/main.py; the host
(host_sim/rp2040/table.py) imports it from the REPL and sends the table's
settings as the first line on USB serial.  The board is built by the
firmware's own ``boards.common.build`` from the Pico's pin map
(firmware/boards/pico.py) with MicroPython's real ``machine`` and ``neopixel``:
SPI0, I2C0, the GPIOs, PWM and ``bitstream`` are the RP2040's, and the chips
behind them are the host's models.  Only the seats in play have a reader
fitted (their chip-selects, then the centre's), as on the simulator's board.
Then the application's jobs run one step per command: ``s`` and the job's
number as one byte, answered ``@=`` and the microseconds the step took by the
Pico's clock; ``g``/``c`` lines as in vm_serve.py.  The step command is bytes,
read into a buffer: every ``str`` MicroPython makes is first looked up among
the interned strings (a linear search through the pools the loaded modules
added, about 40,000 instructions here), which a text protocol paid several
times a step.
"""
import gc
import json
import sys
import time

import machine
import micropython
import neopixel
from vm_link import answer
from vm_serve import Host, fail, make_app, plain, unplain

from boards import pico
from boards.common import build
from drivers.ticks import ticks_diff
from table.app import JOBS

JOURNAL_LINES = 8        # journal lines per answer (a list in the Pico's heap)


def table_pins(players):
    """pico.PINS with the readers of the seats in play and the centre."""
    pins = dict(pico.PINS)
    cs = pico.PINS["reader_cs"]
    pins["reader_cs"] = tuple(cs[:players]) + (cs[-1],)
    return pins


_NAMES = {}              # a path the host asked before -> its names as str


def names_of(path):
    """``path``'s names as str, made once per path: each new str costs the
    search through the interned strings (above), several per question."""
    names = _NAMES.get(path)
    if names is None:
        names = _NAMES[path] = tuple(n.decode() for n in path.split(b"."))
    return names


def query(roots, call, line):
    """The value at a path (``app.game.menu``), or what calling it with the
    JSON arguments returns: parsed as bytes, only the names become str."""
    path, _, args = line.rstrip(b"\r\n").partition(b" ")
    names = names_of(path)
    obj = roots[names[0]]
    for name in names[1:]:
        obj = getattr(obj, name)
    if call:
        obj = obj(*unplain(json.loads(args)))
    return obj


def serve(roots, app):
    """Answer the host's commands until ``q``."""
    stdin = sys.stdin.buffer
    write = sys.stdout.buffer.write
    jobs = tuple(getattr(app, method) for _name, method, _period in JOBS)
    cmd = bytearray(1)
    ticks_us = time.ticks_us
    while True:
        stdin.readinto(cmd)
        kind = cmd[0]
        if kind == 0x73:                          # s: one step of job number cmd[0] - 48
            stdin.readinto(cmd)
            step = jobs[cmd[0] - 48]
            t0 = ticks_us()
            step()
            write(b"@=%d\n" % ticks_diff(ticks_us(), t0))
        elif kind == 0x67 or kind == 0x63:        # g<path> / c<path> <json args>
            try:
                value = plain(query(roots, kind == 0x63, stdin.readline()))
                write(b"@=")
                json.dump(value, sys.stdout)    # written as it is made: no answer str
                write(b"\n")
            except Exception as exc:     # the host raises it again, with the traceback
                fail(exc)
        elif kind == 0x71:                        # q
            return


def main():
    micropython.kbd_intr(-1)         # the protocol is text, but never stop on a ^C
    cfg = json.loads(sys.stdin.readline())
    try:
        settings = dict(pico.SETTINGS, fields_on=cfg["fields_on"])
        board = build(machine, neopixel, table_pins(cfg["players"]), settings, 0, 0, "/",
                      journal_flash=pico.journal_flash())   # as boards/pico.py make() does
        app = make_app(board, cfg, "/")
    except Exception as exc:
        fail(exc)
        return
    answer("@=null\n")
    roots = {"app": app, "board": board, "host": Host(app, JOURNAL_LINES), "gc": gc}
    serve(roots, app)


main()
