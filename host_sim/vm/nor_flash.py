"""Emulated NOR flash behind MicroPython's extended block protocol, shaped like
the Pico's (an RP2040 with a W25Q16JV): the same code runs in CPython
(host_sim/table.py, the power-cut sweeps) and inside the MicroPython VM
(vm_main.py, tests/mp/), so both runtimes see one model.

* ``readblocks(block, buf, offset)``: any bytes (XIP reads them on the Pico);
* ``writeblocks(block, buf, offset)``: a page program -- ``offset`` and
  ``len(buf)`` multiples of ``page`` (256), as the RP2040's
  ``flash_range_program`` demands (ValueError otherwise); bits only go from 1
  to 0 (new = old AND data).  Without ``offset``, the simple protocol: erase
  the blocks, then program them;
* ``ioctl(6, block)``: erase one block (4096 bytes) to 0xFF; ``ioctl(4)`` the
  block count, ``ioctl(5)`` the block size; 1, 2, 3 answer 0.

Power cuts, as host_sim/rp2040/serial_flash.mjs models the chip: every erase
and every program is one operation, done in order over its bytes.

* live: ``cut_at(n, done)``: operation n from now (n >= 1) reaches the flash
  only for its first ``done`` bytes (None: whole; ``half(op)`` halves it),
  then the power is gone -- every later operation is lost, reads still answer
  what reached the flash.  ``power_on()`` is a new device on that;
* replayed: with ``start_log()`` every operation is recorded as (block,
  offset, bytes) for a program and (block, -1, None) for an erase;
  ``cut_image(snapshot, log, i, done, out)`` rebuilds the flash a cut in
  operation i leaves (the firmware is deterministic: a live cut leaves the
  same, tests/mp/mptest_journal_lfs.py checks it).

``path``: the flash is read from that file when it exists and, with
``through``, every operation is written through to it, so a table killed at
any moment leaves what reached its flash (the virtual table's
``--table-dir``); else ``save()`` writes it.  ``own`` counts the heap
bytes the emulation itself allocates (micropython.mem_total() around each
operation), so a measurement of the firmware can leave them out.  Counters:
``erases``, ``writes`` (programs), ``programmed`` (bytes), ``ops``.
"""
ERASE_BLOCK = 4096   # the Pico's erase sector (FLASH_SECTOR_SIZE)
PAGE = 256           # its page program (FLASH_PAGE_SIZE)
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


def op_size(op, block_size=ERASE_BLOCK):
    """The bytes a logged operation works through (an erase: the block)."""
    return block_size if op[1] < 0 else len(op[2])


def half(op, block_size=ERASE_BLOCK):
    """``done`` for a cut half-way through the logged operation ``op``."""
    return op_size(op, block_size) // 2


def apply_op(data, block_size, op, done=None):
    """Do one logged operation on ``data``: its first ``done`` bytes (None: all)."""
    block, offset, buf = op
    n = op_size(op, block_size) if done is None else done
    if offset < 0:
        erase(data, block * block_size, n)
    else:
        program(data, block * block_size + offset, buf, n)


def cut_image(snapshot, log, i, done, out, block_size=ERASE_BLOCK):
    """The flash after a cut in logged operation i (its first ``done`` bytes
    reached the flash; None: all of it), built in the bytearray ``out``."""
    out[:] = snapshot
    k = 0
    while k < i:
        apply_op(out, block_size, log[k])
        k += 1
    apply_op(out, block_size, log[i], done)
    return out


class NorFlash:
    """``blocks`` erase blocks of ``block_size`` bytes, erased; or holding a
    copy of ``data`` (``data`` itself, a bytearray, when ``share``); or what
    the file ``path`` holds (erased where it is short)."""

    def __init__(self, blocks, block_size=ERASE_BLOCK, data=None, share=False, path=None,
                 page=PAGE, through=True):
        self.blocks = blocks
        self.block_size = block_size
        self.page = page
        self.path = path
        self.through = through and path is not None
        size = blocks * block_size
        if data is None and path is not None:
            data = self._load(path, size)
            share = True
        if data is None:
            self.data = bytearray(size)
            self._erased(self.data)
        elif share:
            self.data = data
        else:
            self.data = bytearray(data)
        if len(self.data) != size:
            raise ValueError("flash image of %d bytes for %d blocks" % (len(self.data), blocks))
        self._mv = memoryview(self.data)
        if block_size not in _FF:    # the 0xFF runs erase() copies from: made now, not mid-run
            erase(bytearray(block_size), 0, block_size)
            erase(bytearray(block_size), 0, block_size // 2)
        self.ops = 0          # erases + programs that were asked for
        self.writes = 0       # programs that were asked for
        self.erases = 0
        self.programmed = 0   # bytes those programs carried
        self.left = -1        # operations until the cut (-1: no cut pending)
        self.done = None      # the cut operation's bytes that reach the flash (None: all)
        self.dead = False     # the power is gone
        self.log = None       # a list: record every operation (replayed cuts)
        self.own = 0          # heap bytes the emulation itself allocated (mem_total)
        self.watch = None     # called with ``ops`` before each operation (tests)
        self.refuse = False   # a failing chip: every erase and program raises OSError (EIO)
        self._t0 = 0

    def _erased(self, data):
        """``data`` erased block by block (one block's 0xFF kept, not the whole)."""
        b = 0
        while b < self.blocks:
            erase(data, b * self.block_size, self.block_size)
            b += 1

    def _load(self, path, size):
        data = bytearray(size)
        self._erased(data)
        try:
            with open(path, "rb") as f:
                got = f.read(size)
        except OSError:
            return data
        data[0:len(got)] = got
        return data

    def cut_at(self, n, done=None, half=False):
        """Cut the power in operation n from now (n >= 1): its first ``done``
        bytes reach the flash (None: all of it; ``half``: half of it, whatever
        its size), nothing after."""
        self.left = n
        self.done = -1 if half else done
        self.dead = False

    def power_on(self):
        """A new device on what reached the flash (the cut forgotten): its
        bytes shared, this one dead from now on."""
        self.dead = True
        dev = NorFlash(self.blocks, self.block_size, self.data, share=True, page=self.page)
        dev.path = self.path
        dev.through = self.through
        return dev

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

    def _go(self, size):
        """Account one operation of ``size`` bytes; how many of them reach the flash."""
        if self.watch is not None:
            self.watch(self.ops)
        self.ops += 1
        if self.dead:
            return 0
        if self.left > 0:
            self.left -= 1
            if self.left == 0:
                self.dead = True
                done = self.done
                return size if done is None else size // 2 if done < 0 else done
        return size

    def _through(self, a, n):
        """Write bytes a..a+n of the flash through to its file."""
        if not self.through or n <= 0:
            return
        try:
            f = open(self.path, "r+b")
        except OSError:
            self.save(self.path)
            return
        try:
            f.seek(a)
            f.write(self._mv[a:a + n])
        finally:
            f.close()

    # ------------------------------------------------------------ the block protocol

    # (few locals in the methods the firmware calls: a frame over 11 words would
    # be put on the heap before ``own`` starts counting)

    def readblocks(self, block, buf, offset=0):
        self._t0 = _mem_total()
        self._read(block, buf, offset)
        self.own += _mem_total() - self._t0

    def _read(self, block, buf, offset):
        a = block * self.block_size + offset
        buf[:] = self._mv[a:a + len(buf)]      # (a small memoryview: counted in ``own``)

    def writeblocks(self, block, buf, offset=None):
        self._t0 = _mem_total()
        if offset is None:   # the simple protocol: erase, then program whole blocks
            self._erase_all(block, len(buf) // self.block_size)
            offset = 0
        self._program(block * self.block_size + offset, buf)
        self.own += _mem_total() - self._t0

    def _erase_all(self, block, n):
        k = 0
        while k < n:
            self._erase(block + k)
            k += 1

    def _program(self, a, buf):
        if a % self.page or len(buf) % self.page or a < 0 \
                or a + len(buf) > len(self.data):
            raise ValueError("program of %d bytes at %d: whole pages only" % (len(buf), a))
        if self.refuse:
            raise OSError(5, "EIO")
        self.writes += 1
        self.programmed += len(buf)
        if self.log is not None:
            self.log.append((a // self.block_size, a % self.block_size, bytes(buf)))
        n = self._go(len(buf))
        program(self.data, a, buf, n)
        self._through(a, n)

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
        if not 0 <= block < self.blocks:
            raise ValueError("erase of block %d of %d" % (block, self.blocks))
        if self.refuse:
            raise OSError(5, "EIO")
        self.erases += 1
        if self.log is not None:
            self.log.append((block, -1, None))
        n = self._go(self.block_size)
        erase(self.data, block * self.block_size, n)
        self._through(block * self.block_size, n)


PICO_PROGSIZE = 256   # the rp2 port's _boot.py: VfsLfs2(bdev, progsize=256)


def _vfs():
    try:
        import vfs
    except ImportError:  # CPython: littlefs-python behind the same calls
        from host_sim import lfs_vfs as vfs
    return vfs


def format_lfs(bd, progsize=PICO_PROGSIZE):
    """littlefs v2 made on ``bd`` as the rp2 port makes it."""
    _vfs().VfsLfs2.mkfs(bd, progsize=progsize)


def mount_lfs(bd, where, progsize=PICO_PROGSIZE, mtime=True):
    """Mount littlefs v2 on ``bd`` at ``where`` as the rp2 port does (progsize
    256; mtime=False makes the flash contents independent of the clock)."""
    vfs = _vfs()
    vfs.mount(vfs.VfsLfs2(bd, progsize=progsize, mtime=mtime), where)
    return where


def umount_lfs(where):
    """Unmount what ``mount_lfs`` mounted at ``where`` (nothing there: nothing done)."""
    try:
        _vfs().umount(where)
    except OSError:
        pass


def rmtree(path):
    """Remove a folder and everything in it (MicroPython has no shutil): the
    plain folder a port without littlefs (the wasm port) keeps files in."""
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
    """The operations ``NorFlash.save_log`` wrote, as ``log`` holds them."""
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
