"""Flash images for a Pico: the littlefs filesystem and one UF2 of firmware plus files.

A user drags a single UF2 onto the Pico's boot drive and the board starts
with MicroPython *and* the table's files on it.  The layout is MicroPython
v1.28.0's ``ports/rp2`` for ``BOARD=RPI_PICO`` (2 MiB flash):

* ``ports/rp2/boards/RPI_PICO/mpconfigboard.h``:
  ``MICROPY_HW_FLASH_STORAGE_BYTES (1408 * 1024)``; ``rp2_flash.c``: the
  storage lies at the end of flash (``PICO_FLASH_SIZE_BYTES`` 2 MiB minus
  that = 0xA0000), erase blocks of ``FLASH_SECTOR_SIZE`` (4096);
* ``ports/rp2/modules/_boot.py`` mounts it as ``vfs.VfsLfs2(bdev, progsize=256)``
  (littlefs 2.11, on-disk version 2.1, as littlefs-python writes it);
* a firmware built with ``MICROPY_HW_ROMFS_BYTES`` puts its ROMFS partition
  just below the storage (``MICROPY_HW_ROMFS_BASE``): 256 KiB at 0x60000.

The UF2 does not trust these numbers: it places each image where the given
firmware declares its partitions (``partitions``: the pico-sdk binary info,
"MicroPython" and "ROMFS"), and the tests check that the published firmware
declares exactly the layout above.

UF2 (https://github.com/microsoft/uf2) is 512-byte blocks, each carrying 256
bytes for one flash address; the RP2040 boot ROM writes each block where it
says.  The two PyPI libraries for it keep state in module or class globals
(the family id, the magic numbers) and read from file paths, so the format's
few lines are written here.
"""
import struct

import littlefs

XIP_BASE = 0x10000000                # flash offset 0 in the RP2040's address map
FLASH_BYTES = 2 * 1024 * 1024        # the Pico's W25Q16
FS_OFFSET = 0xA0000                  # RPI_PICO: MICROPY_HW_FLASH_STORAGE_BASE
FS_BYTES = 1408 * 1024               # MICROPY_HW_FLASH_STORAGE_BYTES
FS_BLOCK = 4096                      # FLASH_SECTOR_SIZE
FS_PROG = 256                        # _boot.py: progsize=256
FS_READ = 32                         # VfsLfs2's default readsize
FS_LOOKAHEAD = 32                    # VfsLfs2's default lookahead
LFS_DISK_VERSION = 0x00020001        # MicroPython v1.28.0 lib/littlefs (2.11)
ROMFS_OFFSET = 0x60000               # MICROPY_HW_ROMFS_BASE with 256 KiB of ROMFS
ROMFS_BYTES = 256 * 1024             # MICROPY_HW_ROMFS_BYTES of the ROMFS board folder

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


def littlefs_files(image, size=FS_BYTES):
    """{"dir/name": bytes} of every file in a littlefs image (to check one)."""
    ctx = littlefs.UserContext(buffer=bytearray(image))
    fs = littlefs.LittleFS(ctx, block_size=FS_BLOCK, block_count=size // FS_BLOCK,
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


def partitions(firmware_uf2):
    """{name: (flash offset, bytes)} of the block devices the firmware declares.

    The pico-sdk's binary info (what ``picotool info`` prints): a header in
    the first KiB of flash points to a table of entries; the rp2 port
    declares its filesystem as "MicroPython" and, built with
    ``MICROPY_HW_ROMFS_BYTES``, its ROMFS partition as "ROMFS".
    """
    flash = flash_contents(firmware_uf2)
    head = flash.find(struct.pack("<I", BI_MARKER_START), 0, 1024)
    if head < 0 or head % 4:
        return {}
    _m, start, end, _cpy, marker_end = struct.unpack_from("<5I", flash, head)
    if marker_end != BI_MARKER_END:
        return {}

    def in_flash(addr, n=4):
        return XIP_BASE <= addr and addr + n <= XIP_BASE + len(flash)

    out = {}
    for ptr in range(start, end, 4):
        if not in_flash(ptr):
            break
        entry, = struct.unpack_from("<I", flash, ptr - XIP_BASE)
        if not in_flash(entry, 22):
            continue
        kind, = struct.unpack_from("<H", flash, entry - XIP_BASE)
        if kind != BI_TYPE_BLOCK_DEVICE:
            continue
        name_at, addr, size = struct.unpack_from("<3I", flash, entry + 4 - XIP_BASE)
        if in_flash(name_at, 1):
            o = name_at - XIP_BASE
            name = bytes(flash[o:flash.find(0, o, o + 64)]).decode("ascii", "replace")
            out[name] = (addr - XIP_BASE, size)
    return out


def uf2_with_filesystem(firmware_uf2, fs_image, romfs_image=None):
    """One UF2: the MicroPython firmware UF2, the filesystem image where the
    firmware declares its "MicroPython" partition and, given, a ROMFS image in
    its "ROMFS" partition (a firmware built with one, see ``partitions``).

    The firmware must lie below both; its blocks keep their payloads and
    order, all blocks are numbered anew.
    """
    chunks = uf2_chunks(firmware_uf2)
    parts = partitions(firmware_uf2)
    if FS_PARTITION not in parts:
        raise ImageError("the firmware UF2 declares no %r filesystem partition: not a "
                         "MicroPython rp2 firmware" % FS_PARTITION)
    fs_at, fs_size = parts[FS_PARTITION]
    if len(fs_image) != fs_size:
        raise ImageError("filesystem image is %d bytes, the firmware's partition %d"
                         % (len(fs_image), fs_size))
    low = fs_at
    out = list(chunks)
    if romfs_image is not None:
        if ROMFS_PARTITION not in parts:
            raise ImageError("the firmware has no ROMFS partition (build it with the "
                             "RPI_PICO_ROMFS board folder, docs/build.md)")
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
    return uf2_encode(out)


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
    from pathlib import Path

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


def write_images(out, firmware=None, romfs=False, log=print):
    """``tapptable build --board pico``: ``fs.img`` (the littlefs filesystem) in
    ``out`` and, given the MicroPython UF2 ``firmware``, ``tapptable-pico.uf2``
    (firmware, ROMFS image with ``romfs``, filesystem: one file for the boot
    drive).  Returns the paths written; ImageError tells what is wrong."""
    from pathlib import Path
    out = Path(out)
    uf2 = out / UF2_NAME
    if uf2.exists():
        uf2.unlink()
    fw = None
    size = FS_BYTES
    if firmware is not None:
        if not Path(firmware).is_file():
            raise ImageError("--firmware %s: no such file (MicroPython's UF2 for the Pico)"
                             % firmware)
        fw = Path(firmware).read_bytes()
        size = partitions(fw).get(FS_PARTITION, (0, FS_BYTES))[1]   # the firmware's own
    fs_image = littlefs_image(build_files(out, romfs), size)
    (out / FS_IMAGE).write_bytes(fs_image)
    written = [out / FS_IMAGE]
    if fw is None:
        log("%s: the littlefs filesystem (%d KiB at flash 0x%x); give --firmware "
            "RPI_PICO.uf2 (MicroPython's) for one UF2 with both"
            % (out / FS_IMAGE, FS_BYTES // 1024, FS_OFFSET))
        return written
    rom = (out / "romfs.img").read_bytes() if romfs else None
    uf2.write_bytes(uf2_with_filesystem(fw, fs_image, rom))
    written.append(uf2)
    log("%s: %s + %sthe filesystem, for the Pico's boot drive"
        % (uf2, Path(firmware).name, "romfs.img + " if romfs else ""))
    return written
