"""Where the MicroPython rp2 images for the emulated Pico are found (tests, bench).

They are not part of the repository: the official MicroPython UF2 for the
Pico, the same firmware built with a ROMFS partition (the board folder in
tools/micropython-boards/RPI_PICO_ROMFS) and the RP2040 boot ROM.  They
are looked up in the folder named by ``TAPPTABLE_RP2_FIXTURES`` or else in
``shared/rp2`` beside the repository.  A missing one is an error that says
where it was looked for: a test that needs it fails, it never skips.
"""
import os
from pathlib import Path

ENV = "TAPPTABLE_RP2_FIXTURES"
STOCK_FIRMWARE = "RPI_PICO-v1.28.0.uf2"
ROMFS_FIRMWARE = "RPI_PICO_ROMFS-v1.28.0.uf2"
BOOTROM = "rp2040-bootrom-b1.bin"

_ROOT = Path(__file__).resolve().parent.parent.parent


class FixtureMissing(FileNotFoundError):
    """An rp2 image is not where it is looked for."""


def fixture_dir():
    """The folder the rp2 images are read from."""
    env = os.environ.get(ENV)
    return Path(env) if env else _ROOT.parent / "shared" / "rp2"


def fixture(name):
    """The path of one rp2 image; FixtureMissing (one line) when it is not there."""
    path = fixture_dir() / name
    if not path.is_file():
        raise FixtureMissing("%s not found in %s (set %s to the folder holding the "
                             "MicroPython rp2 images)" % (name, fixture_dir(), ENV))
    return path
