"""The unchanged table application inside the MicroPython unix port, on the
chip models of the host process (host_sim/vm_table.py starts this).

``machine``, ``neopixel`` and ``time`` are replaced in ``sys.modules`` by the
bridge modules before anything of firmware/ is imported; then the board is
built by the firmware's own ``boards.common.build`` from the simulator's pin
map, and the application exactly as ``main.py`` and host_sim/table.py build it.
The host's scheduler runs the application's jobs: this loop answers one
command line at a time and ends each answer with an ``@=`` (a JSON value) or
``@!`` (an exception) line:

- ``s<method>``: run one step of a job (``poll_readers``, ``run_game``, ...);
- ``g<path>``: the value at ``app.game.menu``, ``board.leds``, ... (an object
  or a method is answered as a marker, the host then names it by its path);
- ``c<path> <json args>``: call the method at ``path``.

Values travel as JSON; bytes, tuples and dicts with other than text keys are
tagged (``$b``, ``$t``, ``$d``) so they arrive as what they are.
"""
import sys

import vm_machine
import vm_neopixel
import vm_time
from vm_link import answer

sys.modules["time"] = vm_time
sys.modules["machine"] = vm_machine
sys.modules["neopixel"] = vm_neopixel

import json  # noqa: E402
import os  # noqa: E402
from binascii import hexlify, unhexlify  # noqa: E402

from vm_deck import DECK_ID, enrol_virtual_deck  # noqa: E402

from boards.common import build  # noqa: E402
from table.app import JOBS, App  # noqa: E402
from table.journal import create_journal, last_journal  # noqa: E402
from table.registry import Registry  # noqa: E402
from table.settings import Settings  # noqa: E402

FLASH_BLOCKS = 32         # 128 KB of the Pico's 4 KB erase blocks: decks, settings, journal
FLASH_ROOT = "/flash"
LINES_PER_ANSWER = 32     # journal lines sent in one answer (the JSON of an answer is
                          # built in the VM's heap: a whole long journal would not fit)


BUTTONS = ("prev", "next", "ok")


def sim_pins(seats):
    """The simulator's pin map: pins are named, the host knows them by name."""
    return {
        "spi_sck": "sck", "spi_mosi": "mosi", "spi_miso": "miso",
        "reader_cs": tuple("cs%d" % i for i in range(seats + 1)),
        "reader_rst": "rst",
        "i2c_sda": "sda", "i2c_scl": "scl",
        "buttons": BUTTONS,
        "buttons_pull_up": True,
        "ws2812": "ws2812",
        "buzzer": "buzzer",
    }


def plain(v):
    """``v`` as JSON-able data, tagged where JSON would lose what it is."""
    if v is None or isinstance(v, (bool, int, float, str)):
        return v
    if isinstance(v, (bytes, bytearray, memoryview)):
        return {"$b": hexlify(v).decode()}
    if isinstance(v, tuple):
        return {"$t": [plain(x) for x in v]}
    if isinstance(v, list):
        return [plain(x) for x in v]
    if isinstance(v, dict):
        if all(isinstance(k, str) for k in v):
            return {k: plain(x) for k, x in v.items()}
        return {"$d": [[plain(k), plain(x)] for k, x in v.items()]}
    if type(v).__name__ == "generator":
        return [plain(x) for x in v]
    if callable(v):
        return {"$": "fn"}
    return {"$": "obj"}


def unplain(v):
    if isinstance(v, list):
        return [unplain(x) for x in v]
    if isinstance(v, dict):
        if "$b" in v:
            return unhexlify(v["$b"])
        if "$t" in v:
            return tuple(unplain(x) for x in v["$t"])
        return {k: unplain(x) for k, x in v.items()}
    return v


def mount_flash(cfg):
    """The table's flash on littlefs (as the rp2 port mounts it) on emulated NOR
    flash (tests/mp/mpflash.py), from an image file or freshly formatted; or
    None: the table's files on the host's file system (``cfg["root"]``)."""
    if not cfg.get("flash"):
        return None
    import mpflash as F
    blocks = cfg.get("flash_blocks") or FLASH_BLOCKS
    try:
        with open(cfg["flash"], "rb") as f:
            flash = F.FlashDev(blocks, data=f.read())
    except OSError:
        flash = F.FlashDev(blocks)
        F.format_lfs(flash)
    F.mount(flash, FLASH_ROOT, mtime=False)
    cfg["root"] = FLASH_ROOT
    return flash


def boot(cfg):
    """Build the board and the application as the device does at power-up."""
    flash = mount_flash(cfg)
    root = cfg["root"]
    board = build(vm_machine, vm_neopixel, sim_pins(cfg["players"]),
                  {"spi_baud": 4000000, "fields_on": cfg["fields_on"]}, 0, 0, root)
    registry = Registry(root)
    registry.load()
    for deck_id in range(1, cfg["decks"] + 1):      # the first boot: deck 1 is in play
        enrol_virtual_deck(registry, deck_id)
    settings = Settings(root)
    settings.load()
    values = settings.as_dict()
    values.update(cfg["values"])
    journal = last_journal(root) if cfg["resume"] else None
    app = App(board, values, registry, DECK_ID, start=not cfg["setup"],
              journal_factory=lambda header: create_journal(root, header), resume=journal)
    return board, app, flash


class Host:
    """What the host asks beyond the application's own doors: the journal's
    lines, at most LINES_PER_ANSWER per answer (host_sim/vm_table.py)."""

    def __init__(self, app):
        self.app = app

    def journal_lines(self, start, stop):
        """Lines ``start`` (0: the header) up to ``stop``, LINES_PER_ANSWER at most."""
        journal = self.app.journal
        out = []
        if journal is None:
            return out
        stop = min(stop, start + LINES_PER_ANSWER)
        lines = journal.read_lines()
        try:
            for i, line in enumerate(lines):
                if i >= stop:
                    break
                if i >= start:
                    out.append(line)
        finally:
            lines.close()       # the journal's line buffer and the file, at once
        return out


def serve(roots, steps):
    readline = sys.stdin.readline
    while True:
        line = readline()
        if not line or line[0] == "q":
            return
        cmd = line[0]
        rest = line[1:-1]
        try:
            if cmd == "s":            # s<method> <the buttons' levels, e.g. 110>
                method, _, levels = rest.partition(" ")
                for i, name in enumerate(BUTTONS):
                    vm_machine.INPUTS[name] = 1 if levels[i] == "1" else 0
                steps[method]()
                out = "null"
            else:
                path, _, args = rest.partition(" ")
                names = path.split(".")
                obj = roots[names[0]]
                for name in names[1:]:
                    obj = getattr(obj, name)
                if cmd == "c":
                    obj = obj(*unplain(json.loads(args)))
                out = json.dumps(plain(obj))
            answer("@=" + out + "\n")
        except Exception as exc:     # the host raises it again, with the VM's traceback
            sys.print_exception(exc, sys.stderr)
            answer("@!%s %s\n" % (type(exc).__name__, str(exc).replace("\n", " ")))


def main():
    cfg = json.loads(os.getenv("TAPP_VM_TABLE"))   # set by host_sim/vm_table.py
    try:
        board, app, flash = boot(cfg)
    except Exception as exc:
        sys.print_exception(exc, sys.stderr)
        answer("@!%s %s\n" % (type(exc).__name__, str(exc).replace("\n", " ")))
        return
    answer("@=null\n")
    steps = {method: getattr(app, method) for _name, method, _period in JOBS}
    serve({"app": app, "board": board, "flash": flash, "host": Host(app)}, steps)


main()
