"""Flash images for a Pico: the littlefs filesystem and one UF2 of firmware plus files.

A user drags a single UF2 onto the Pico's boot drive and the board starts
with MicroPython *and* the table's files on it.  The table's firmware is
MicroPython v1.28.0's ``ports/rp2`` built from the board folder
``tools/micropython-boards/RPI_PICO_ROMFS`` (carried as
``images/RPI_PICO_ROMFS-v1.28.0.uf2``) on the Pico's 2 MiB flash:

* the firmware declares its partitions in its binary info (what ``picotool
  info`` shows, read by ``partitions``): the storage "MicroPython", 1408 KiB
  at 0xA0000 (``rp2_flash.c`` puts ``MICROPY_HW_FLASH_STORAGE_BYTES`` at the
  end of flash), and "ROMFS", 256 KiB just below it (``MICROPY_HW_ROMFS_BYTES``);
* the port's ``_boot.py`` mounts littlefs on the whole storage as
  ``vfs.VfsLfs2(rp2.Flash(), progsize=256)`` (littlefs 2.11, on-disk version
  2.1, as littlefs-python writes it);
* the ROMFS image (the table's bytecode, mounted at /rom) fills the ROMFS
  partition from its start; the partition's last ``JOURNAL_SECTORS`` sectors
  are the journal's own area (``firmware/boards/pico.py``, the one place
  that says so): a build writes them erased, a ROMFS image never reaches them.

The UF2 does not trust these numbers: it places each image where the given
firmware declares its partitions, and the tests check that the board folder,
the firmware's binary info and the constants here agree.

UF2 (https://github.com/microsoft/uf2) is 512-byte blocks, each carrying 256
bytes for one flash address; the RP2040 boot ROM writes each block where it
says.  The two PyPI libraries for it keep state in module or class globals
(the family id, the magic numbers) and read from file paths, so the format's
few lines are written here.
"""
import functools
import struct
from pathlib import Path

import littlefs

from boards.pico import JOURNAL_SECTORS, SECTOR

XIP_BASE = 0x10000000                # flash offset 0 in the RP2040's address map
FLASH_BYTES = 2 * 1024 * 1024        # the Pico's W25Q16
FS_BYTES = 1408 * 1024               # MICROPY_HW_FLASH_STORAGE_BYTES: littlefs, all of it
FS_OFFSET = FLASH_BYTES - FS_BYTES   # 0xA0000: rp2.Flash()'s start
ROMFS_BYTES = 256 * 1024             # MICROPY_HW_ROMFS_BYTES
ROMFS_OFFSET = FS_OFFSET - ROMFS_BYTES                 # 0x60000: just below the storage
JOURNAL_BYTES = JOURNAL_SECTORS * SECTOR               # the top of the ROMFS partition
JOURNAL_OFFSET = ROMFS_OFFSET + ROMFS_BYTES - JOURNAL_BYTES    # 0x93000
FS_BLOCK = SECTOR                    # littlefs's block: one erase unit
FS_PROG = 256                        # _boot.py: progsize=256
FS_READ = 32                         # VfsLfs2's default readsize
FS_LOOKAHEAD = 32                    # VfsLfs2's default lookahead
LFS_DISK_VERSION = 0x00020001        # MicroPython v1.28.0 lib/littlefs (2.11)

UF2_MAGIC_START0 = 0x0A324655        # "UF2\n"
UF2_MAGIC_START1 = 0x9E5D5157
UF2_MAGIC_END = 0x0AB16F30
UF2_FLAG_FAMILY_ID = 0x00002000
RP2040_FAMILY_ID = 0xE48BFF56
BI_MARKER_START = 0x7188EBF2         # pico-sdk binary_info: header markers
BI_MARKER_END = 0xE71AA390
BI_TYPE_BLOCK_DEVICE = 7             # BINARY_INFO_TYPE_BLOCK_DEVICE
FS_PARTITION = "MicroPython"         # the names rp2_flash.c gives its partitions
ROMFS_PARTITION = "ROMFS"
UF2_BLOCK = 512
UF2_PAYLOAD = 256                    # what the RP2040 boot ROM accepts per block
_HEADER = struct.Struct("<8I")


class ImageError(Exception):
    """A firmware or image that cannot go onto the board, told in one line."""


def littlefs_image(files, size=FS_BYTES):
    """The littlefs image (``size`` bytes) holding ``files`` ({"dir/name": bytes}).

    The same configuration as the rp2 port's mount, so MicroPython mounts it
    unchanged; the order of ``files`` does not change a byte of the image.
    """
    if size % FS_BLOCK:
        raise ImageError("filesystem size %d is not a multiple of %d" % (size, FS_BLOCK))
    fs = littlefs.LittleFS(block_size=FS_BLOCK, block_count=size // FS_BLOCK,
                           read_size=FS_READ, prog_size=FS_PROG, cache_size=4 * FS_PROG,
                           lookahead_size=FS_LOOKAHEAD, disk_version=LFS_DISK_VERSION)
    made = set()
    try:
        for name in sorted(files):
            parts = name.strip("/").split("/")
            for i in range(1, len(parts)):
                d = "/".join(parts[:i])
                if d not in made:
                    fs.mkdir(d)
                    made.add(d)
            with fs.open("/".join(parts), "wb") as f:
                f.write(files[name])
    except littlefs.errors.LittleFSError as exc:
        raise ImageError("the files do not fit the %d KiB filesystem: %s"
                         % (size // 1024, exc)) from None
    return bytes(fs.context.buffer)


def littlefs_files(image):
    """{"dir/name": bytes} of every file in a littlefs image (to check one)."""
    ctx = littlefs.UserContext(buffer=bytearray(image))
    fs = littlefs.LittleFS(ctx, block_size=FS_BLOCK, block_count=len(image) // FS_BLOCK,
                           read_size=FS_READ, prog_size=FS_PROG, cache_size=4 * FS_PROG,
                           lookahead_size=FS_LOOKAHEAD, disk_version=LFS_DISK_VERSION)
    out = {}
    for root, _dirs, names in fs.walk("/"):
        for n in names:
            path = (root.rstrip("/") + "/" + n).lstrip("/")
            with fs.open(path, "rb") as f:
                out[path] = f.read()
    return out


def uf2_chunks(uf2):
    """[(address, payload)] of a UF2 file, in file order; ImageError if malformed."""
    if not uf2 or len(uf2) % UF2_BLOCK:
        raise ImageError("not a UF2 file: %d bytes is not a whole number of 512-byte blocks"
                         % len(uf2))
    out = []
    total = len(uf2) // UF2_BLOCK
    for i in range(total):
        base = i * UF2_BLOCK
        m0, m1, flags, addr, size, blockno, nblocks, family = _HEADER.unpack_from(uf2, base)
        end, = struct.unpack_from("<I", uf2, base + UF2_BLOCK - 4)
        if (m0, m1, end) != (UF2_MAGIC_START0, UF2_MAGIC_START1, UF2_MAGIC_END):
            raise ImageError("not a UF2 file: block %d has no UF2 magic numbers" % i)
        if size > 476 or blockno >= nblocks:
            raise ImageError("UF2 block %d is malformed (size %d, number %d of %d)"
                             % (i, size, blockno, nblocks))
        if flags & UF2_FLAG_FAMILY_ID and family != RP2040_FAMILY_ID:
            raise ImageError("UF2 block %d is for family 0x%08x, not the RP2040's"
                             % (i, family))
        out.append((addr, bytes(uf2[base + 32:base + 32 + size])))
    return out


def uf2_encode(chunks):
    """A UF2 file (RP2040 family) from [(address, 256-byte payload)], numbered in order."""
    blocks = []
    n = len(chunks)
    for i, (addr, payload) in enumerate(chunks):
        if len(payload) != UF2_PAYLOAD or addr % UF2_PAYLOAD:
            raise ImageError("UF2 payload at 0x%08x: 256 bytes on a 256-byte boundary" % addr)
        blocks.append(_HEADER.pack(UF2_MAGIC_START0, UF2_MAGIC_START1, UF2_FLAG_FAMILY_ID,
                                   addr, UF2_PAYLOAD, i, n, RP2040_FAMILY_ID)
                      + payload + bytes(476 - UF2_PAYLOAD)
                      + struct.pack("<I", UF2_MAGIC_END))
    return b"".join(blocks)


def _pages(data, offset):
    """[(address, 256 bytes)] covering ``data`` placed at flash ``offset``."""
    if offset % UF2_PAYLOAD:
        raise ImageError("flash offset 0x%x is not page aligned" % offset)
    data = bytes(data) + b"\xff" * (-len(data) % UF2_PAYLOAD)
    return [(XIP_BASE + offset + i, data[i:i + UF2_PAYLOAD])
            for i in range(0, len(data), UF2_PAYLOAD)]


def _binary_info(flash):
    """[(type, flash offset of the entry)] of the pico-sdk binary info: a
    header in the first KiB of flash points to a table of entry pointers."""
    head = flash.find(struct.pack("<I", BI_MARKER_START), 0, 1024)
    if head < 0 or head % 4:
        return []
    _m, start, end, _cpy, marker_end = struct.unpack_from("<5I", flash, head)
    if marker_end != BI_MARKER_END:
        return []
    out = []
    for ptr in range(start, end, 4):
        if not _in_flash(flash, ptr):
            break
        entry, = struct.unpack_from("<I", flash, ptr - XIP_BASE)
        if _in_flash(flash, entry, 16):
            kind, = struct.unpack_from("<H", flash, entry - XIP_BASE)
            out.append((kind, entry - XIP_BASE))
    return out


def _in_flash(flash, addr, n=4):
    return XIP_BASE <= addr and addr + n <= XIP_BASE + len(flash)


def _c_string(flash, addr):
    if not _in_flash(flash, addr, 1):
        return None
    o = addr - XIP_BASE
    return bytes(flash[o:flash.find(0, o, o + 64)]).decode("ascii", "replace")


def partitions(firmware_uf2):
    """{name: (flash offset, bytes)} of the block devices the firmware declares
    (``picotool info``'s "embedded drive"): the rp2 port's storage as
    "MicroPython" and, built with ``MICROPY_HW_ROMFS_BYTES``, "ROMFS"."""
    return dict(_declared(bytes(firmware_uf2)))


@functools.lru_cache(maxsize=4)
def _declared(firmware_uf2):
    """((name, (offset, bytes)), ...) from the binary info, read once per firmware."""
    flash = flash_contents(firmware_uf2)
    parts = []
    for kind, at in _binary_info(flash):
        if kind == BI_TYPE_BLOCK_DEVICE:
            name_at, addr, size = struct.unpack_from("<3I", flash, at + 4)
            name = _c_string(flash, name_at)
            if name is not None:
                parts.append((name, (addr - XIP_BASE, size)))
    return tuple(parts)


def filesystem_partition(firmware_uf2):
    """(flash offset, bytes) of the littlefs this firmware mounts at /: the
    whole storage (the port's ``_boot.py``: ``rp2.Flash()``)."""
    parts = partitions(firmware_uf2)
    if FS_PARTITION not in parts:
        raise ImageError("the firmware UF2 declares no %r filesystem partition: not a "
                         "MicroPython rp2 firmware" % FS_PARTITION)
    return parts[FS_PARTITION]


def journal_area(rom_at, rom_size):
    """(flash offset, bytes) of the journal's own area in a ROMFS partition
    at ``rom_at`` of ``rom_size`` bytes: its last JOURNAL_SECTORS sectors."""
    if rom_size < JOURNAL_BYTES:
        raise ImageError("the firmware's ROMFS partition is %d KiB, less than the "
                         "journal's %d KiB area" % (rom_size // 1024, JOURNAL_BYTES // 1024))
    return rom_at + rom_size - JOURNAL_BYTES, JOURNAL_BYTES


def check_romfs_fits(romfs_bytes, rom_size):
    """ImageError unless a ROMFS image of ``romfs_bytes`` ends below the
    journal's area at the top of a ``rom_size``-byte ROMFS partition: writing
    it there would overwrite the journal."""
    room = rom_size - JOURNAL_BYTES
    if romfs_bytes > room:
        raise ImageError("romfs.img is %d bytes; the ROMFS partition holds %d below the "
                         "journal's %d KiB at its top (boards/pico.py JOURNAL_SECTORS)"
                         % (romfs_bytes, room, JOURNAL_BYTES // 1024))


def uf2_with_filesystem(firmware_uf2, fs_image, romfs_image=None):
    """One UF2: the MicroPython firmware UF2, the littlefs image where the
    firmware mounts it (``filesystem_partition``) and, given, a ROMFS image at
    the start of its "ROMFS" partition.  A firmware with a ROMFS partition
    gets the journal's area written erased too: a board flashed anew starts
    with no journal, whatever an earlier firmware or image left there.

    The firmware must lie below its partitions; its blocks keep their
    payloads and order, all blocks are numbered anew.
    """
    chunks = uf2_chunks(firmware_uf2)
    fs_at, fs_size = filesystem_partition(firmware_uf2)
    if len(fs_image) != fs_size:
        raise ImageError("filesystem image is %d bytes, the firmware's partition %d"
                         % (len(fs_image), fs_size))
    parts = partitions(firmware_uf2)
    low = fs_at
    out = list(chunks)
    if romfs_image is not None and ROMFS_PARTITION not in parts:
        raise ImageError("the firmware has no ROMFS partition; the table's firmware "
                         "(RPI_PICO_ROMFS) has one (docs/build.md)")
    if ROMFS_PARTITION in parts:
        rom_at, rom_size = parts[ROMFS_PARTITION]
        journal_at, journal_size = journal_area(rom_at, rom_size)
        if romfs_image is not None:
            check_romfs_fits(len(romfs_image), rom_size)
            out += _pages(romfs_image, rom_at)
        out += _pages(b"\xff" * journal_size, journal_at)
        low = min(low, rom_at)
    for addr, payload in chunks:
        if addr < XIP_BASE or addr + len(payload) > XIP_BASE + low:
            raise ImageError("the firmware UF2 writes 0x%08x, inside its own partitions "
                             "(from 0x%08x)" % (addr, XIP_BASE + low))
        if len(payload) != UF2_PAYLOAD:
            raise ImageError("the firmware UF2 has a %d-byte block; the RP2040 takes 256"
                             % len(payload))
    out += _pages(fs_image, fs_at)
    return uf2_encode(out)


def uf2_with_files(firmware_uf2, files, romfs_image=None):
    """``uf2_with_filesystem`` with a littlefs image of ``files`` ({"path": bytes})
    made to the size of the firmware's filesystem."""
    fs_image = littlefs_image(files, filesystem_partition(firmware_uf2)[1])
    return uf2_with_filesystem(firmware_uf2, fs_image, romfs_image)


def flash_contents(uf2, size=FLASH_BYTES):
    """The flash a Pico holds after the boot ROM wrote this UF2 onto erased flash."""
    flash = bytearray(b"\xff" * size)
    for addr, payload in uf2_chunks(uf2):
        off = addr - XIP_BASE
        if off < 0 or off + len(payload) > size:
            raise ImageError("UF2 block at 0x%08x lies outside the %d KiB flash"
                             % (addr, size // 1024))
        flash[off:off + len(payload)] = payload
    return flash


# ----------------------------------------------------------------- tapptable build


FS_IMAGE = "fs.img"
UF2_NAME = "tapptable-pico.uf2"


def build_files(out, romfs=False):
    """{name: bytes} the board's filesystem holds after a deploy of build ``out``:
    the built files (with ``romfs`` only those that stay source and the
    self-test's, ``deploy.ON_FILESYSTEM``: the bytecode comes from /rom) and
    the device manifest, so a later deploy copies only what changed."""
    import json

    from tools.tapptable.deploy import DEVICE_MANIFEST, MANIFEST, on_filesystem
    out = Path(out)
    local = json.loads((out / MANIFEST).read_text())
    names = [k for k in local["files"] if not romfs or on_filesystem(k)]
    files = {k: (out / "fs" / k).read_bytes() for k in names}
    on_fs = dict(local, files={k: local["files"][k] for k in names})
    if not romfs:
        on_fs.pop("romfs", None)
    files[DEVICE_MANIFEST] = json.dumps(on_fs, sort_keys=True).encode()
    return files


def table_firmware(firmware=None):
    """The bytes of the table's firmware UF2: ``firmware`` (a path) or the
    one carried in the repository (RPI_PICO_ROMFS).  A file that is missing,
    not a UF2, not MicroPython's or without a ROMFS partition (the published
    RPI_PICO) is an ImageError that names the way."""
    from tools.tapptable import rp2_images
    if firmware is None:
        try:
            return rp2_images.image(rp2_images.ROMFS_FIRMWARE).read_bytes()
        except rp2_images.ImageMissing as exc:
            raise ImageError("%s; or give --firmware with a MicroPython UF2 that has a ROMFS "
                             "partition, docs/build.md" % exc) from None
    path = Path(firmware)
    if not path.is_file():
        raise ImageError("--firmware %s: no such file (a MicroPython UF2 with a ROMFS "
                         "partition, docs/build.md)" % firmware)
    fw = path.read_bytes()
    filesystem_partition(fw)             # a damaged UF2, or not MicroPython's: said here
    if ROMFS_PARTITION not in partitions(fw):
        raise ImageError("--firmware %s is MicroPython without a ROMFS partition: leave out "
                         "--firmware for the table's firmware (docs/build.md)" % path.name)
    return fw


def write_images(out, firmware=None, uf2=True, log=print):
    """``tapptable build --board pico``: ``fs.img`` in ``out`` (the table's
    littlefs: main.py and the device manifest; the bytecode is in the
    build's ``romfs.img``) and, with ``uf2``, ``tapptable-pico.uf2``: the
    table's firmware (``table_firmware``), romfs.img, the journal's area
    erased and the filesystem, one file for the boot drive.  Returns the
    paths written; ImageError tells what is wrong, before anything is
    written."""
    out = Path(out)
    target = out / UF2_NAME
    if target.exists():
        target.unlink()
    fs_image = littlefs_image(build_files(out, romfs=True))
    whole = None
    if uf2:
        whole = uf2_with_filesystem(table_firmware(firmware), fs_image,
                                    (out / "romfs.img").read_bytes())
    (out / FS_IMAGE).write_bytes(fs_image)
    if whole is None:
        return [out / FS_IMAGE]
    target.write_bytes(whole)
    log("%s: the table's firmware%s + romfs.img + the journal's area erased + the "
        "filesystem (%d KiB littlefs), for the Pico's boot drive"
        % (target, " (%s)" % Path(firmware).name if firmware else "", FS_BYTES // 1024))
    return [out / FS_IMAGE, target]
