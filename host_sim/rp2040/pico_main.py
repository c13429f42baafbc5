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
Then the application's jobs run one step per command of vm_serve.py's loop
(shared with the unix port); ``PicoPort`` is this runtime's end of the line:
a step is answered with the microseconds it took by the Pico's clock.  The
step command is two bytes, read into a buffer: every ``str`` MicroPython makes
is first looked up among the interned strings (a linear search through the
pools the loaded modules added, about 40,000 instructions here), which a text
protocol paid several times a step.
"""
import json
import sys
import time

import machine
import micropython
import neopixel
from vm_link import answer
from vm_serve import STEP, Host, fail, make_app, roots_of, serve

from boards import pico
from boards.common import build
from drivers.ticks import ticks_diff

JOURNAL_LINES = 8        # journal lines per answer (a list in the Pico's heap)


def table_pins(players):
    """pico.PINS with the readers of the seats in play and the centre."""
    pins = dict(pico.PINS)
    cs = pico.PINS["reader_cs"]
    pins["reader_cs"] = tuple(cs[:players]) + (cs[-1],)
    return pins


class PicoPort:
    """The Pico's end of vm_serve.py's commands, on USB serial: a command's
    letter and a step's job number read as single bytes into a buffer, the
    rest of a question's line as bytes; a value written as JSON as it is made
    (no answer str in the heap)."""

    def __init__(self):
        self.stdin = sys.stdin.buffer
        self.write = sys.stdout.buffer.write
        self.cmd = bytearray(1)
        self.job = 0
        self.rest = b""

    def command(self):
        cmd = self.cmd
        self.stdin.readinto(cmd)
        if cmd[0] == STEP:
            self.stdin.readinto(cmd)
            self.job = cmd[0] - 48
            return STEP
        if cmd[0] == 0x67 or cmd[0] == 0x63:      # g / c: the path and arguments follow
            self.rest = self.stdin.readline()
        return cmd[0]

    def step(self, fn, wait):
        t0 = time.ticks_us()
        fn()
        self.write(b"@=[%d,%d]\n" % (ticks_diff(time.ticks_us(), t0), wait()))

    def value(self, v):
        self.write(b"@=")
        json.dump(v, sys.stdout)
        self.write(b"\n")


def main():
    micropython.kbd_intr(-1)         # the protocol is text, but never stop on a ^C
    cfg = json.loads(sys.stdin.readline())
    try:
        settings = dict(pico.SETTINGS, fields_on=cfg["fields_on"])
        pico.full_speed(machine)                            # as boards/pico.py make() does
        board = build(machine, neopixel, table_pins(cfg["players"]), settings, 0, 0, "/",
                      journal_flash=pico.journal_flash())   # as boards/pico.py make() does
        app = make_app(board, cfg, "/")
    except Exception as exc:
        fail(exc)
        return
    answer(b"@=null\n")
    serve(roots_of(app, board, Host(app, JOURNAL_LINES)), PicoPort())


main()
