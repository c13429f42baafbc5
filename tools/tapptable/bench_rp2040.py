"""The device's budgets, measured on MicroPython's rp2 port in the emulated RP2040.

``print_device_bench(quick)`` (for ``tapptable bench``) runs the unchanged
firmware on the emulated Pico (host_sim/rp2040: rp2040js, the chip models at
the pins of firmware/boards/pico.py), from the flash a user's UF2 leaves
(tools/tapptable/fsimage.py), for two firmwares:

* **stock**: MicroPython v1.28.0 RPI_PICO as published, the table as ``.mpy``
  files on littlefs (the bytecode is loaded into RAM);
* **ROMFS**: the same MicroPython with a 256 KiB ROMFS partition
  (tools/micropython-boards/RPI_PICO_ROMFS), the table's bytecode in it
  (``tapptable build --romfs``: it runs in place from flash), only main.py on
  littlefs.

It prints, for each:

* the free heap at boot and after importing what main.py imports (read at the
  REPL, ``gc.collect(); gc.mem_free()``, on a filesystem without main.py);
* from a whole session (setup, a strict deal dealt over the centre reader,
  the auction, every card, a power cut, the next deal, then more deals for
  fragmentation): the lowest free heap after a collection, the longest step
  of each job and of a collection, read from a probe the bench puts on the
  filesystem beside the firmware (bench_rp2040_probe.py, as ``boot.py``: it
  wraps the app's jobs and samples the heap; the firmware is unchanged);
* the emulated time from a card laid on the on-turn seat's reader to the
  display showing it (the host's SSD1306 model: the last I2C write of the
  update the card causes);
* with ``ballast``: whether the session still runs with that much heap taken
  away at boot (the goal's margin, proved rather than sampled).

The emulator's limits, said with the numbers: rp2040js charges one cycle per
memory access, so flash (XIP) cache misses are not modelled -- code running
from flash, ROMFS bytecode above all, is slower on a real Pico; bus transfers
take no emulated time (SPI at 4 MHz and I2C at 400 kHz do on the board: the
I2C time of the display's pages is added from the bytes sent).
"""
import re
from pathlib import Path

from tools.tapptable import fsimage, rp2_fixtures

ROOT = Path(__file__).resolve().parent.parent.parent
PROBE = Path(__file__).resolve().parent / "bench_rp2040_probe.py"
PROBE_MODULE = "tapptable_probe.py"
GOAL_LOW_FREE = 24 * 1024          # the whole session on stock firmware, at its lowest
GOAL_SHOWN_MS = 50                 # a card on the on-turn reader to the display showing it
GOAL_STEP_MS = 10                  # no step holds the loop longer
I2C_HZ = 400000                    # the display bus on the board (9 clocks a byte)
# what main.py imports at boot (measured at the REPL, before the app starts)
BOOT_IMPORTS = ("table.app", "table.journal", "table.registry", "table.settings",
                "boards.pico", "table.console_door")


class Firmware:
    """One way of putting the table on a Pico: a MicroPython UF2 and a build."""

    def __init__(self, name, uf2, romfs):
        self.name = name
        self.uf2_name = uf2
        self.romfs = romfs

    def images(self, tmp):
        """(firmware UF2 bytes, build folder) -- built once into ``tmp``."""
        from tools.tapptable.deploy import build
        out = Path(tmp) / self.name
        if not (out / "manifest.json").is_file():
            build("pico", out, romfs=self.romfs, log=lambda *a: None)
        return rp2_fixtures.fixture(self.uf2_name).read_bytes(), out

    def flash(self, tmp, main=True, probe=None):
        """The 2 MiB flash after this firmware's one UF2 was copied onto a
        Pico: its filesystem without main.py (``main=False``), or with the
        bench's probe as boot.py (``probe``: its settings)."""
        fw, out = self.images(tmp)
        files = fsimage.build_files(out, self.romfs)
        if not main:
            del files["main.py"]
        if probe is not None:
            files[PROBE_MODULE] = probe_source(**probe)
            files["boot.py"] = b"import tapptable_probe\n"
        rom = (out / "romfs.img").read_bytes() if self.romfs else None
        uf2 = fsimage.uf2_with_filesystem(fw, fsimage.littlefs_image(files), rom)
        return bytes(fsimage.flash_contents(uf2))


FIRMWARES = (Firmware("stock .mpy", rp2_fixtures.STOCK_FIRMWARE, False),
             Firmware("ROMFS", rp2_fixtures.ROMFS_FIRMWARE, True))


def probe_source(ballast=0, sample_ms=250):
    """The probe module's text with its settings."""
    text = PROBE.read_text()
    text = re.sub(r"(?m)^BALLAST = \d+", "BALLAST = %d" % ballast, text)
    text = re.sub(r"(?m)^SAMPLE_MS = \d+", "SAMPLE_MS = %d" % sample_ms, text)
    return text.encode()


def parse_report(text):
    """{KEY: int} from the probe's ``@bench KEY VALUE`` lines."""
    out = {}
    for line in text.splitlines():
        parts = line.split()
        if len(parts) == 3 and parts[0] == "@bench":
            out[parts[1]] = int(parts[2])
    return out


def _pico(flash):
    from host_sim.rp2040.emulator import Pico
    return Pico(flash, rp2_fixtures.fixture(rp2_fixtures.BOOTROM))


def repl_heap(firmware, tmp):
    """Free heap at boot and after the boot imports, read at the REPL: {key: bytes}."""
    pico = _pico(firmware.flash(tmp, main=False))
    try:
        pico.boot_to_repl()
        boot = pico.exec_raw("import gc\ngc.collect()\nprint(gc.mem_free())")
        imported = pico.exec_raw(
            "import gc, sys\nfor m in %r:\n __import__(m)\ngc.collect()\n"
            "print(gc.mem_free(), len(sys.modules))" % (BOOT_IMPORTS,))
    finally:
        pico.close()
    free, modules = imported.split()
    return {"boot_free": int(boot), "import_free": int(free), "modules": int(modules)}
