"""The unchanged table application inside the MicroPython unix port, on the
chip models of the host process (host_sim/vm_table.py starts this).

``machine``, ``neopixel`` and ``time`` are replaced in ``sys.modules`` by the
bridge modules before anything of firmware/ is imported; then the board is
built by the firmware's own ``boards.common.build`` from the simulator's pin
map (sim_pins.py, the same as host_sim/table.py's board), and the application
by the power-up every host shares (table/power_up.py, through vm_serve.py).
The host's scheduler runs the application's jobs through the command loop of
vm_serve.py (one job step, a value, a call per line), shared with the
emulated Pico; ``VmPort`` is this runtime's end of the line.
"""
import sys

import vm_machine
import vm_neopixel
import vm_time
from nor_flash import NorFlash, format_lfs, mount_lfs
from vm_link import answer, read_frame

sys.modules["time"] = vm_time
sys.modules["machine"] = vm_machine
sys.modules["neopixel"] = vm_neopixel

import json  # noqa: E402
import os  # noqa: E402

from sim_pins import BUTTONS, I2C_ID, SPI_ID, sim_pins, sim_settings  # noqa: E402
from vm_serve import STEP, Host, fail, make_app, roots_of, serve  # noqa: E402

from boards.common import build  # noqa: E402

FLASH_BLOCKS = 32         # 128 KB of the Pico's 4 KB erase blocks: decks and settings
FLASH_ROOT = "/flash"


def mount_flash(cfg):
    """The table's decks and settings on littlefs (as the rp2 port mounts it)
    on emulated NOR flash (nor_flash.py), from an image file or freshly
    formatted; or None: those files on the host's file system (``cfg["root"]``)."""
    if not cfg.get("flash"):
        return None
    blocks = cfg.get("flash_blocks") or FLASH_BLOCKS
    try:
        with open(cfg["flash"], "rb") as f:
            flash = NorFlash(blocks, data=f.read())
    except OSError:
        flash = NorFlash(blocks)
        format_lfs(flash)
    mount_lfs(flash, FLASH_ROOT, mtime=False)
    cfg["root"] = FLASH_ROOT
    return flash


def journal_flash(cfg):
    """The journal's own flash area on the same NOR model, from its image file
    (erased where there is none yet); None: the journal in files."""
    if not cfg.get("journal"):
        return None
    return NorFlash(cfg["journal_blocks"], path=cfg["journal"], through=cfg["journal_through"])


def boot(cfg):
    """Build the board and the application as the device does at power-up."""
    flash = mount_flash(cfg)
    root = cfg["root"]
    board = build(vm_machine, vm_neopixel, sim_pins(cfg["players"]),
                  sim_settings(cfg["fields_on"]), SPI_ID, I2C_ID, root,
                  journal_flash=journal_flash(cfg))
    return board, make_app(board, cfg, root), flash


class VmPort:
    """The unix port's end of vm_serve.py's commands: framed lines on standard
    input (vm_link.py ``read_frame``); a job step's command carries the
    buttons' levels after the job's number ("110": prev and next released),
    set before the step runs, after the edges since the last step (" 2:0:1234":
    OK pressed at 1234 ms) have run the pins' interrupts; answers go after the
    bus messages told meanwhile."""

    def __init__(self):
        self.job = 0
        self.rest = b""

    def command(self):
        line = read_frame()
        if not line:
            return -1
        kind = line[0]
        if kind == STEP:
            self.job = line[1] - 48
            for edge in line[2 + len(BUTTONS):].split():   # "button:level:ms", in order
                i, level, ms = edge.split(b":")
                vm_machine.fire(BUTTONS[int(i)], int(level), int(ms))
            for i, name in enumerate(BUTTONS):
                vm_machine.INPUTS[name] = 1 if line[2 + i] == 49 else 0
        else:
            self.rest = line[1:]
        return kind

    def step(self, fn, wait):
        fn()
        answer(b"@=%d\n" % wait())

    def value(self, v):
        answer(b"@=%s\n" % json.dumps(v).encode())


def main():
    cfg = json.loads(os.getenv("TAPP_VM_TABLE"))   # set by host_sim/vm_table.py
    try:
        board, app, flash = boot(cfg)
    except Exception as exc:
        fail(exc)
        return
    answer(b"@=null\n")
    serve(roots_of(app, board, Host(app), flash=flash, journal_flash=board.journal_flash),
          VmPort())


main()
