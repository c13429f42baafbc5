"""Flash images for a Pico: the littlefs filesystem and one UF2 of firmware plus files.

A user drags a single UF2 onto the Pico's boot drive and the board starts
with MicroPython *and* the table's files on it.  The layout is the table's
own board, ``tools/micropython-boards/TAPPTABLE_PICO`` (MicroPython v1.28.0's
``ports/rp2`` on the Pico's 2 MiB flash):

* the firmware declares its partitions in its binary info (what ``picotool
  info`` shows, read by ``partitions``): the storage "MicroPython", 1408 KiB
  at 0xA0000 (``rp2_flash.c`` puts ``MICROPY_HW_FLASH_STORAGE_BYTES`` at the
  end of flash), and "ROMFS", 256 KiB just below it (``MICROPY_HW_ROMFS_BYTES``);
* how the table splits the storage is the board's ``tapptable_board.py``,
  frozen into the firmware and read here (``LAYOUT``): littlefs on the first
  896 KiB, mounted by the board's own ``_boot.py`` as ``vfs.VfsLfs2(rp2.Flash(
  start=FS_START, len=FS_LEN), progsize=256)`` (littlefs 2.11, on-disk version
  2.1, as littlefs-python writes it), the journal's own area on the last 512
  KiB, which littlefs never touches;
* a firmware without the table's board (the published RPI_PICO) mounts
  littlefs on the whole storage (its ``_boot.py``: ``rp2.Flash()``); the tests
  still boot it to show its refusal (``filesystem_partition``).

The UF2 does not trust these numbers: it places each image where the given
firmware declares its partitions, and the tests check that the board folder,
the frozen module and the firmware's binary info agree.

UF2 (https://github.com/microsoft/uf2) is 512-byte blocks, each carrying 256
bytes for one flash address; the RP2040 boot ROM writes each block where it
says.  The two PyPI libraries for it keep state in module or class globals
(the family id, the magic numbers) and read from file paths, so the format's
few lines are written here.
"""
import functools
import runpy
import struct
import types
from pathlib import Path

import littlefs

BOARD_FOLDER = Path(__file__).resolve().parent.parent / "micropython-boards" / "TAPPTABLE_PICO"
LAYOUT_FILE = BOARD_FOLDER / "modules" / "tapptable_board.py"


def board_layout(path=LAYOUT_FILE):
    """The table's flash layout: the constants of the board's frozen
    ``tapptable_board.py`` (BOARD_ID, STORAGE_BYTES, FS_*, JOURNAL_*, ...)."""
    names = runpy.run_path(str(path))
    return types.SimpleNamespace(**{k: v for k, v in names.items() if k.isupper()})


LAYOUT = board_layout()
XIP_BASE = 0x10000000                # flash offset 0 in the RP2040's address map
FLASH_BYTES = 2 * 1024 * 1024        # the Pico's W25Q16
STORAGE_OFFSET = FLASH_BYTES - LAYOUT.STORAGE_BYTES    # 0xA0000: rp2.Flash()'s start
FS_OFFSET = STORAGE_OFFSET + LAYOUT.FS_START           # the table's littlefs
FS_BYTES = LAYOUT.FS_LEN
JOURNAL_OFFSET = STORAGE_OFFSET + LAYOUT.JOURNAL_START  # the journal's own area
JOURNAL_BYTES = LAYOUT.JOURNAL_LEN
ROMFS_BYTES = LAYOUT.ROMFS_BYTES     # MICROPY_HW_ROMFS_BYTES
ROMFS_OFFSET = STORAGE_OFFSET - ROMFS_BYTES             # just below the storage
FS_BLOCK = 4096                      # FLASH_SECTOR_SIZE
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
BI_TYPE_ID_AND_STRING = 6            # BINARY_INFO_TYPE_ID_AND_STRING
BI_TYPE_BLOCK_DEVICE = 7             # BINARY_INFO_TYPE_BLOCK_DEVICE
BI_TAG_MICROPYTHON = 0x504D          # BINARY_INFO_MAKE_TAG('M', 'P')
BI_ID_MP_FROZEN = 0x4A99D719         # the rp2 port's id of a frozen module's name
FS_PARTITION = "MicroPython"         # the names rp2_flash.c gives its partitions
ROMFS_PARTITION = "ROMFS"
LAYOUT_MODULE = "tapptable_board"    # frozen into the table's firmware only
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
    """[(type, tag, flash offset of the entry)] of the pico-sdk binary info: a
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
            kind, tag = struct.unpack_from("<2H", flash, entry - XIP_BASE)
            out.append((kind, tag, entry - XIP_BASE))
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
    return dict(_declared(bytes(firmware_uf2))[0])


def frozen_modules(firmware_uf2):
    """The names of the modules frozen into a MicroPython rp2 firmware, as its
    binary info lists them (``picotool info``'s "frozen modules")."""
    return list(_declared(bytes(firmware_uf2))[1])


@functools.lru_cache(maxsize=4)
def _declared(firmware_uf2):
    """(((name, (offset, bytes)), ...), (frozen module, ...)) from the binary
    info, read once per firmware."""
    flash = flash_contents(firmware_uf2)
    parts, frozen = [], []
    for kind, tag, at in _binary_info(flash):
        if kind == BI_TYPE_BLOCK_DEVICE:
            name_at, addr, size = struct.unpack_from("<3I", flash, at + 4)
            name = _c_string(flash, name_at)
            if name is not None:
                parts.append((name, (addr - XIP_BASE, size)))
        elif kind == BI_TYPE_ID_AND_STRING and tag == BI_TAG_MICROPYTHON:
            ident, text_at = struct.unpack_from("<2I", flash, at + 4)
            name = _c_string(flash, text_at) if ident == BI_ID_MP_FROZEN else None
            if name is not None:
                frozen.append(name)
    return tuple(parts), tuple(frozen)


def is_table_firmware(firmware_uf2):
    """True for a firmware built from the table's board folder: it freezes the
    layout module (and the _boot.py that keeps littlefs off the journal's area)."""
    return LAYOUT_MODULE in frozen_modules(firmware_uf2)


def filesystem_partition(firmware_uf2):
    """(flash offset, bytes) of the littlefs this firmware mounts at /: the
    layout's FS part of the storage on the table's firmware, the whole
    storage on any other MicroPython rp2 firmware (the port's ``_boot.py``)."""
    parts = partitions(firmware_uf2)
    if FS_PARTITION not in parts:
        raise ImageError("the firmware UF2 declares no %r filesystem partition: not a "
                         "MicroPython rp2 firmware" % FS_PARTITION)
    at, size = parts[FS_PARTITION]
    if not is_table_firmware(firmware_uf2):
        return at, size
    if size != LAYOUT.STORAGE_BYTES:
        raise ImageError("the firmware's storage is %d KiB, the table's layout (%s) says %d "
                         "KiB: build the board folder unchanged"
                         % (size // 1024, LAYOUT_FILE.name, LAYOUT.STORAGE_BYTES // 1024))
    return at + LAYOUT.FS_START, LAYOUT.FS_LEN


def uf2_with_filesystem(firmware_uf2, fs_image, romfs_image=None):
    """One UF2: the MicroPython firmware UF2, the littlefs image where the
    firmware mounts it (``filesystem_partition``) and, given, a ROMFS image in
    its "ROMFS" partition.  On the table's firmware the journal's area is
    written erased too: a board flashed anew starts with no journal, whatever
    an earlier firmware left there.

    The firmware must lie below its partitions; its blocks keep their
    payloads and order, all blocks are numbered anew.
    """
    chunks = uf2_chunks(firmware_uf2)
    fs_at, fs_size = filesystem_partition(firmware_uf2)
    if len(fs_image) != fs_size:
        raise ImageError("filesystem image is %d bytes, the firmware's partition %d"
                         % (len(fs_image), fs_size))
    parts = partitions(firmware_uf2)
    low = parts[FS_PARTITION][0]
    out = list(chunks)
    if romfs_image is not None:
        if ROMFS_PARTITION not in parts:
            raise ImageError("the firmware has no ROMFS partition; the table's own "
                             "firmware has one (docs/build.md)")
        rom_at, rom_size = parts[ROMFS_PARTITION]
        if len(romfs_image) > rom_size:
            raise ImageError("romfs image is %d bytes; the ROMFS partition holds %d"
                             % (len(romfs_image), rom_size))
        low = min(low, rom_at)
        out += _pages(romfs_image, rom_at)
    for addr, payload in chunks:
        if addr < XIP_BASE or addr + len(payload) > XIP_BASE + low:
            raise ImageError("the firmware UF2 writes 0x%08x, inside its own partitions "
                             "(from 0x%08x)" % (addr, XIP_BASE + low))
        if len(payload) != UF2_PAYLOAD:
            raise ImageError("the firmware UF2 has a %d-byte block; the RP2040 takes 256"
                             % len(payload))
    out += _pages(fs_image, fs_at)
    if is_table_firmware(firmware_uf2):
        out += _pages(b"\xff" * LAYOUT.JOURNAL_LEN, parts[FS_PARTITION][0] + LAYOUT.JOURNAL_START)
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
    the built files (with ``romfs`` only those that stay source, the bytecode
    comes from /rom) and the device manifest, so a later deploy copies only
    what changed."""
    import json

    from tools.tapptable.deploy import DEVICE_MANIFEST, MANIFEST, SOURCE_ONLY
    out = Path(out)
    local = json.loads((out / MANIFEST).read_text())
    names = [k for k in local["files"] if not romfs or k in SOURCE_ONLY]
    files = {k: (out / "fs" / k).read_bytes() for k in names}
    on_fs = dict(local, files={k: local["files"][k] for k in names})
    if not romfs:
        on_fs.pop("romfs", None)
    files[DEVICE_MANIFEST] = json.dumps(on_fs, sort_keys=True).encode()
    return files


def table_firmware(firmware=None):
    """The bytes of the table's firmware UF2: ``firmware`` (a path: one's own
    build of the board folder) or the one carried in the repository.  A file
    that is missing, not a UF2, not MicroPython's or without the table's board
    (the published RPI_PICO) is an ImageError that names the way."""
    from tools.tapptable import rp2_images
    if firmware is None:
        try:
            return rp2_images.image(rp2_images.TABLE_FIRMWARE).read_bytes()
        except rp2_images.ImageMissing as exc:
            raise ImageError("%s; or give --firmware with a UF2 of your own build of the "
                             "table's board folder, docs/build.md" % exc) from None
    path = Path(firmware)
    if not path.is_file():
        raise ImageError("--firmware %s: no such file (a UF2 built from the table's board "
                         "folder, docs/build.md)" % firmware)
    fw = path.read_bytes()
    filesystem_partition(fw)             # a damaged UF2, or not MicroPython's: said here
    if not is_table_firmware(fw):
        raise ImageError("--firmware %s is MicroPython without the table's board (no frozen "
                         "%s): leave out --firmware for the table's own firmware "
                         "(docs/build.md)" % (path.name, LAYOUT_MODULE))
    return fw


def write_images(out, firmware=None, uf2=True, log=print):
    """``tapptable build --board pico``: ``fs.img`` in ``out`` (the table's
    littlefs: main.py and the device manifest; the bytecode is in the
    build's ``romfs.img``) and, with ``uf2``, ``tapptable-pico.uf2``: the
    table's firmware (``table_firmware``), romfs.img and the filesystem, one
    file for the boot drive.  Returns the paths written; ImageError tells
    what is wrong, before anything is written."""
    out = Path(out)
    target = out / UF2_NAME
    if target.exists():
        target.unlink()
    fw = table_firmware(firmware) if uf2 else None
    fs_image = littlefs_image(build_files(out, romfs=True))
    (out / FS_IMAGE).write_bytes(fs_image)
    written = [out / FS_IMAGE]
    if fw is None:
        return written
    target.write_bytes(uf2_with_filesystem(fw, fs_image, (out / "romfs.img").read_bytes()))
    written.append(target)
    log("%s: the table's firmware%s + romfs.img + the filesystem (%d KiB littlefs), "
        "for the Pico's boot drive" % (target, " (%s)" % Path(firmware).name if firmware
                                       else "", FS_BYTES // 1024))
    return written
