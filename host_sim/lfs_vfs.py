"""MicroPython's ``vfs`` module under CPython, the part the littlefs tests use.

``host_sim/vm/nor_flash.py`` mounts littlefs on its emulated NOR flash (``NorFlash``:
MicroPython's extended block interface, ``readblocks``/``writeblocks`` with an
offset and ``ioctl``) with ``vfs.VfsLfs2``.  Under CPython there is no ``vfs``;
this module gives the same calls -- ``VfsLfs2(bd, progsize=, mtime=)``,
``VfsLfs2.mkfs(bd, progsize=)``, ``mount(fs, where)``, ``umount(where)`` -- on
the real littlefs C library (littlefs-python, configured as ``host_sim/flash.py``
configures it, which is how VfsLfs2 configures it), so every erase and program
reaches the same ``NorFlash`` and its power cuts and operation log.  A mounted
file system is found by path through ``host_sim/flash.py``'s ``open`` and ``os``
(``flash.install()`` gives them to the firmware's file modules).  littlefs-python
keeps no modification times: ``mtime`` is accepted and has no effect.
"""
import littlefs

from host_sim import flash

IOCTL_SYNC = 3
IOCTL_BLOCK_COUNT = 4
IOCTL_BLOCK_SIZE = 5
IOCTL_ERASE = 6


class _BlockDevice(littlefs.UserContext):
    """littlefs-python's callbacks on a MicroPython block device."""

    def __init__(self, bd):          # (no buffer of its own: the device holds the flash)
        self.bd = bd
        self.in_size = bd.ioctl(IOCTL_BLOCK_COUNT, 0) * bd.ioctl(IOCTL_BLOCK_SIZE, 0)

    def read(self, cfg, block, off, size):
        buf = bytearray(size)
        self.bd.readblocks(block, buf, off)
        return buf

    def prog(self, cfg, block, off, data):
        self.bd.writeblocks(block, data, off)
        return 0

    def erase(self, cfg, block):
        self.bd.ioctl(IOCTL_ERASE, block)
        return 0

    def sync(self, cfg):
        self.bd.ioctl(IOCTL_SYNC, 0)
        return 0


def _lfs(bd, progsize, mount):
    size = bd.ioctl(IOCTL_BLOCK_SIZE, 0)
    return littlefs.LittleFS(_BlockDevice(bd), block_size=size,
                             block_count=bd.ioctl(IOCTL_BLOCK_COUNT, 0),
                             read_size=flash.READ, prog_size=progsize,
                             cache_size=min(size, 4 * max(flash.READ, progsize)),
                             lookahead_size=flash.LOOKAHEAD, disk_version=flash.DISK_VERSION,
                             mount=mount)


class VfsLfs2:
    """littlefs v2 on block device ``bd``, mounted when made (as VfsLfs2's
    constructor does); ``statvfs`` answers as ``host_sim/flash.Flash`` does."""

    def __init__(self, bd, progsize=flash.PROG, mtime=True):
        self.blocks = bd.ioctl(IOCTL_BLOCK_COUNT, 0)
        self.block_size = bd.ioctl(IOCTL_BLOCK_SIZE, 0)
        self.fs = _lfs(bd, progsize, True)

    @staticmethod
    def mkfs(bd, progsize=flash.PROG):
        _lfs(bd, progsize, False).format()

    def statvfs(self):
        free = (self.blocks - self.fs.used_block_count) & 0xFFFFFFFF
        bs = self.block_size
        return (bs, bs, self.blocks, free, free, 0, 0, 0, 0, 255)


def mount(fs, where):
    flash.mount(where, fs)


def umount(where):
    flash.unmount(where).fs.unmount()
