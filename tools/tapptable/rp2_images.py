"""The MicroPython rp2 images the table runs on, carried in the repository.

``tools/micropython-boards/images/`` holds the table's firmware (MicroPython
with a ROMFS partition, built from the board folder
``tools/micropython-boards/RPI_PICO_ROMFS``: what ``tapptable build --board
pico`` puts into the one UF2 a builder flashes, and what the emulated Pico
boots), the stock RPI_PICO firmware (for the tests that
show its clear refusal) and the RP2040 boot ROM rp2040js needs.  Each file's
provenance and licences are in that folder's README.md, its sha256 in
``SHA256SUMS`` (checked by tests/test_rp2_images.py).  ``TAPPTABLE_RP2_IMAGES``
names another folder instead (a firmware of your own build).  A missing image
is an error that says where it was looked for: a test that needs it fails, it
never skips.
"""
import hashlib
import os
from pathlib import Path

ENV = "TAPPTABLE_RP2_IMAGES"
STOCK_FIRMWARE = "RPI_PICO-v1.28.0.uf2"
ROMFS_FIRMWARE = "RPI_PICO_ROMFS-v1.28.0.uf2"
BOOTROM = "rp2040-bootrom-b1.bin"
SUMS = "SHA256SUMS"

FOLDER = Path(__file__).resolve().parent.parent / "micropython-boards" / "images"


class ImageMissing(FileNotFoundError):
    """An rp2 image is not where it is looked for."""


def image_dir():
    """The folder the rp2 images are read from."""
    env = os.environ.get(ENV)
    return Path(env) if env else FOLDER


def image(name):
    """The path of one rp2 image; ImageMissing (one line) when it is not there."""
    path = image_dir() / name
    if not path.is_file():
        raise ImageMissing("%s not found in %s (set %s to a folder holding the "
                           "MicroPython rp2 images)" % (name, image_dir(), ENV))
    return path


def recorded_sums(folder=FOLDER):
    """{file name: sha256} as recorded in the folder's SHA256SUMS."""
    sums = {}
    for line in (Path(folder) / SUMS).read_text().splitlines():
        if line.strip():
            digest, name = line.split(None, 1)
            sums[name.lstrip("*")] = digest
    return sums


def sha256(path):
    """The sha256 of a file, as ``sha256sum`` prints it."""
    return hashlib.sha256(Path(path).read_bytes()).hexdigest()
