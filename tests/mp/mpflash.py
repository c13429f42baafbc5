# Emulated NOR flash for littlefs tests inside the MicroPython VM (shared by
# mptest_registry.py and mptest_journal_lfs.py).
#
# ``FlashDev`` is a block device in RAM behind MicroPython's extended block
# interface (readblocks/writeblocks with an offset, ioctl 1-6), shaped like
# the Pico's flash: 4096-byte erase blocks by default, erase sets a block to
# 0xFF, a program can only clear bits (new = old AND data), as on NOR flash.
#
# Power cuts.  Every erase and every program is one flash operation.
#
# * live: ``cut_at(n, half)`` -- the n-th operation from now is done only
#   half (half a block erased, the first half of the buffer programmed) or,
#   with half=False, whole; after it the power is gone: every later
#   operation is lost (the file system above may go on, and reads still
#   answer what reached the flash);
# * replayed: with ``log = []`` every operation is recorded as
#   (block, offset, bytes) for a program and (block, -1, None) for an erase;
#   ``cut_image(snapshot, log, i, half, out)`` rebuilds in ``out`` the flash
#   a cut at operation i leaves behind: ``snapshot`` (the flash before the
#   first logged operation) with operations 0..i-1 done and operation i done
#   half (half=True) or whole.  The firmware is deterministic, so this is
#   the flash a live cut there leaves (``test_replayed_cut_equals_live_cut``
#   in mptest_journal_lfs.py checks it), without running the firmware again
#   for every cut.
#
# ``own`` counts the heap bytes the emulation itself allocates (slices,
# logged copies; micropython.mem_total() around each operation), so a
# measurement of the firmware can leave them out.
#
# ``mount``/``format_lfs`` use littlefs as the rp2 port mounts it (progsize
# 256).  ``LFS`` tells whether the port has vfs.VfsLfs2 (the wasm port has not);
# under CPython host_sim/lfs_vfs.py gives the same calls on littlefs-python (the
# tests' own files reach it through host_sim/flash.py's ``open`` and ``os``).
try:
    import vfs
except ImportError:  # CPython, older ports
    try:
        from host_sim import lfs_vfs as vfs
    except ImportError:
        vfs = None

LFS = vfs is not None and hasattr(vfs, "VfsLfs2")

ERASE_BLOCK = 4096   # the Pico's (RP2040 + W25Q16) erase sector
ERASED = 0xFF

try:
    from micropython import mem_total as _mem_total
except ImportError:  # CPython, ports without it
    def _mem_total():
        return 0

IOCTL_INIT = 1
IOCTL_DEINIT = 2
IOCTL_SYNC = 3
IOCTL_BLOCK_COUNT = 4
IOCTL_BLOCK_SIZE = 5
IOCTL_ERASE = 6


_FF = {}   # n -> n bytes of 0xFF


def erase(data, a, n):
    """Erase n bytes of ``data`` from a (to 0xFF)."""
    ff = _FF.get(n)
    if ff is None:
        ff = _FF[n] = bytes((ERASED,)) * n
    data[a:a + n] = ff


def program(data, a, buf, n):
    """Program the first n bytes of ``buf`` at a: bits only go from 1 to 0."""
    i = 0
    while i < n:
        data[a + i] &= buf[i]
        i += 1


class FlashDev:
    """``blocks`` erase blocks of ``block_size`` bytes, erased; or holding a
    copy of ``data`` (``data`` itself, a bytearray, when ``share``)."""

    def __init__(self, blocks, block_size=ERASE_BLOCK, data=None, share=False):
        self.blocks = blocks
        self.block_size = block_size
        if data is None:
            self.data = bytearray(blocks * block_size)
            for b in range(blocks):
                erase(self.data, b * block_size, block_size)
        elif share:
            self.data = data
        else:
            self.data = bytearray(data)
        self._mv = memoryview(self.data)
        if block_size not in _FF:    # the 0xFF runs erase() copies from: made now, not mid-run
            erase(bytearray(block_size), 0, block_size)
            erase(bytearray(block_size), 0, block_size // 2)
        self.ops = 0          # erases + programs that were asked for
        self.writes = 0       # programs that were asked for
        self.erases = 0
        self.left = -1        # operations until the cut (-1: no cut pending)
        self.half = True
        self.dead = False     # the power is gone
        self.log = None       # a list: record every operation (replayed cuts)
        self.own = 0          # heap bytes the emulation itself allocated (mem_total)
        self._t0 = 0

    def cut_at(self, n, half=True):
        """Cut the power in (half=True) or right after (half=False) the n-th
        operation from now (n >= 1)."""
        self.left = n
        self.half = half
        self.dead = False

    def power_on(self):
        """A new device on what reached the flash (the cut forgotten)."""
        return FlashDev(self.blocks, self.block_size, self.data)

    def save(self, path):
        """Write what the flash holds now to the file ``path`` (an image)."""
        with open(path, "wb") as f:
            f.write(self.data)

    def start_log(self):
        """From now on, record every operation in ``log`` (for replayed cuts)."""
        self.log = []

    def save_log(self, path):
        """Write ``log`` to the file ``path`` (``load_log`` reads it back): per
        operation its block, its offset (-1: an erase) and its bytes."""
        import struct
        with open(path, "wb") as f:
            for block, offset, buf in self.log:
                data = buf or b""
                f.write(struct.pack("<iiI", block, offset, len(data)))
                f.write(data)

    def _go(self):
        """Account one operation; the fraction of it that reaches the flash:
        2 all of it, 1 half, 0 nothing."""
        self.ops += 1
        if self.dead:
            return 0
        if self.left > 0:
            self.left -= 1
            if self.left == 0:
                self.dead = True
                return 1 if self.half else 2
        return 2

    # ------------------------------------------------------------ the block protocol

    # (few locals in the methods littlefs calls: a frame over 11 words would be
    # put on the heap before ``own`` starts counting)

    def readblocks(self, block, buf, offset=0):
        self._t0 = _mem_total()
        self._read(block, buf, offset)
        self.own += _mem_total() - self._t0

    def _read(self, block, buf, offset):
        a = block * self.block_size + offset
        buf[:] = self._mv[a:a + len(buf)]      # (a small memoryview: counted in ``own``)

    def writeblocks(self, block, buf, offset=None):
        self._t0 = _mem_total()
        self._write(block, buf, offset)
        self.own += _mem_total() - self._t0

    def _write(self, block, buf, offset):
        if offset is None:   # the simple interface: erase, then program whole blocks
            n = len(buf) // self.block_size
            k = 0
            while k < n:
                self._erase(block + k)
                k += 1
            offset = 0
        self.writes += 1
        if self.log is not None:
            self.log.append((block, offset, bytes(buf)))
        part = self._go()
        if part:
            n = len(buf) if part == 2 else len(buf) // 2
            program(self.data, block * self.block_size + offset, buf, n)

    def ioctl(self, op, arg):
        if op == IOCTL_BLOCK_COUNT:
            return self.blocks
        if op == IOCTL_BLOCK_SIZE:
            return self.block_size
        if op == IOCTL_ERASE:
            self._t0 = _mem_total()
            self._erase(arg)
            self.own += _mem_total() - self._t0
            return 0
        if op in (IOCTL_INIT, IOCTL_DEINIT, IOCTL_SYNC):
            return 0
        return None

    def _erase(self, block):
        self.erases += 1
        if self.log is not None:
            self.log.append((block, -1, None))
        part = self._go()
        if part:
            n = self.block_size if part == 2 else self.block_size // 2
            erase(self.data, block * self.block_size, n)


def apply_op(data, block_size, op, half):
    """Do one logged operation on ``data`` (half of it when ``half``)."""
    block, offset, buf = op
    if offset < 0:
        erase(data, block * block_size, block_size // 2 if half else block_size)
    else:
        program(data, block * block_size + offset, buf, len(buf) // 2 if half else len(buf))


def cut_image(snapshot, log, i, half, out, block_size=ERASE_BLOCK):
    """The flash after a cut in (half) or after (not half) logged operation i,
    built in the bytearray ``out``; returns ``out``."""
    out[:] = snapshot
    k = 0
    while k < i:
        apply_op(out, block_size, log[k], False)
        k += 1
    apply_op(out, block_size, log[i], half)
    return out


PICO_PROGSIZE = 256   # the rp2 port's _boot.py: VfsLfs2(bdev, progsize=256)


def mount(bd, where, progsize=PICO_PROGSIZE, mtime=True):
    """Mount littlefs v2 on ``bd`` at ``where`` as the rp2 port does (progsize
    256; mtime=False makes the flash contents independent of the clock)."""
    vfs.mount(vfs.VfsLfs2(bd, progsize=progsize, mtime=mtime), where)
    return where


def umount(where):
    try:
        vfs.umount(where)
    except OSError:
        pass


def format_lfs(bd, progsize=PICO_PROGSIZE):
    vfs.VfsLfs2.mkfs(bd, progsize=progsize)


def rmtree(path):
    """Remove a folder and everything in it (MicroPython has no shutil)."""
    import os
    try:
        names = os.listdir(path)
    except OSError:
        return
    for name in names:
        p = path + "/" + name
        try:
            os.remove(p)
        except OSError:
            rmtree(p)
    os.rmdir(path)


def load_log(path):
    """The operations ``FlashDev.save_log`` wrote, as ``log`` holds them."""
    import struct
    out = []
    with open(path, "rb") as f:
        raw = f.read()
    at = 0
    while at < len(raw):
        block, offset, n = struct.unpack("<iiI", raw[at:at + 12])
        at += 12
        out.append((block, offset, raw[at:at + n] if offset >= 0 else None))
        at += n
    return out
