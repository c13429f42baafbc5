"""The table's flash under CPython: littlefs on a RAM image of a given size,
and the journal's own flash area beside it.

The Pico's 1408 KiB of storage hold littlefs (decks and settings; 4 KB erase
blocks, mounted by the rp2 port as ``VfsLfs2(bdev, progsize=256)``); the
journal has its own 52 KiB area at the top of the ROMFS partition (written by
page program: firmware/table/flash_log.py).  A virtual table has the same
(``journal_flash``); one with ``table flash=KB`` gets a flash of KB KiB split
(``split``): littlefs for decks and settings, the journal's area on emulated
NOR flash
(host_sim/vm/nor_flash.py, ``journal_flash``).  The MicroPython VM table
mounts littlefs on the same NOR model (vm/nor_flash.py); this module gives
the CPython table the same: the real littlefs C library (littlefs-python, the
same littlefs 2.11 and configuration as tools/tapptable/fsimage.py), so a
scenario fills up and runs out of space at the same point in both runtimes.

How the firmware reaches it: MicroPython mounts a file system at a path
(``vfs.mount``) and ``open``/``os`` find it by the path's prefix. CPython has no
mount table, so ``install()`` gives the firmware's file modules
(table/journal_files, table/registry, table/settings) an ``os`` and an ``open``
that send a path under a mounted prefix (``/flash1``, ``/flash2``, ...) to its
littlefs and every other path to the host's file system. Files behave as
MicroPython's littlefs files: ``write`` goes to littlefs at once, ``flush``
commits (lfs_file_sync), an error is an ``OSError`` with littlefs's errno (28:
no space left). ``statvfs`` answers as MicroPython's VfsLfs2 does, free blocks
being ``block_count - lfs_fs_size()`` in unsigned 32-bit arithmetic (so it wraps
to a huge number when littlefs counts more blocks in use than there are, as on a
full flash).
"""
import itertools
import os as host_os
import weakref

import littlefs
from littlefs import errors as lfs_errors

BLOCK = 4096            # the Pico's erase block (FLASH_SECTOR_SIZE)
PICO_STORAGE_KB = 1408  # littlefs on a Pico
PICO_JOURNAL_KB = 52    # the journal's own area on a Pico (firmware/boards/pico.py)
# ``table flash=KB`` splits a small flash between littlefs and the journal's
# area in this ratio (a scenario's full flash comes at the same deal in both
# runtimes); the numbers are the storage split first planned, kept so.
SPLIT_JOURNAL_SHARE = (512, 1408)
MIN_JOURNAL_KB = 12     # three sectors: the one written, the one ahead, one more
PROG = 256              # the rp2 port's progsize
READ = 32               # VfsLfs2's default readsize
LOOKAHEAD = 32          # VfsLfs2's default lookahead
DISK_VERSION = 0x00020001

_MOUNTS = weakref.WeakValueDictionary()   # prefix -> Flash, while its table holds it
_HELD = {}              # prefix -> what ``mount`` mounted (held until ``unmount``)
_NUMBERS = itertools.count(1)


def _oserror(exc):
    code = -exc.code if isinstance(exc, lfs_errors.LittleFSError) else 5
    return OSError(code, host_os.strerror(code))


class Flash:
    """``kb`` KiB of flash holding littlefs, mounted at ``self.root``.  A power
    cut (``power_cycle``) drops what was not committed and mounts it again."""

    def __init__(self, kb):
        if kb * 1024 % BLOCK or kb < 8:
            raise ValueError("flash=%d: a multiple of 4 KiB, at least 8" % kb)
        self.blocks = kb * 1024 // BLOCK
        self.fs = self._lfs(None)
        self.root = "/flash%d" % next(_NUMBERS)
        _MOUNTS[self.root] = self

    def _lfs(self, context):
        return littlefs.LittleFS(context, block_size=BLOCK, block_count=self.blocks,
                                 read_size=READ, prog_size=PROG, cache_size=4 * PROG,
                                 lookahead_size=LOOKAHEAD, disk_version=DISK_VERSION)

    def power_cycle(self):
        """Power off and on: open files are gone unsynced, the image stays."""
        self.fs = self._lfs(self.fs.context)

    def image(self):
        return bytes(self.fs.context.buffer)

    def statvfs(self):
        used = self.fs.used_block_count
        free = (self.blocks - used) & 0xFFFFFFFF
        return (BLOCK, BLOCK, self.blocks, free, free, 0, 0, 0, 0, 255)


def split(kb):
    """A flash of ``kb`` KiB split as the Pico's storage is: (littlefs KiB,
    journal KiB), the journal's share in whole 4 KiB sectors (at least
    ``MIN_JOURNAL_KB``), littlefs at least 8 KiB."""
    journal = max(kb * SPLIT_JOURNAL_SHARE[0] // SPLIT_JOURNAL_SHARE[1] // 4 * 4,
                  MIN_JOURNAL_KB)
    if kb % 4 or kb - journal < 8:
        raise ValueError("flash=%d: a multiple of 4 KiB, at least %d"
                         % (kb, MIN_JOURNAL_KB + 8))
    return kb - journal, journal


def journal_flash(kb=PICO_JOURNAL_KB, path=None, through=True):
    """The journal's own area, ``kb`` KiB of emulated NOR flash (in RAM, or
    read from and, with ``through``, written through to the image ``path``)."""
    from host_sim.vm.nor_flash import NorFlash
    return NorFlash(kb * 1024 // BLOCK, BLOCK, path=path, through=through)


def journal_area_lines(image):
    """The newest session's lines in an image of the journal's own flash area
    (a Pico's flash read back: the table's firmware keeps its journal there)."""
    from host_sim.vm.nor_flash import NorFlash
    from table.journal_flash import FlashJournals
    journal = FlashJournals(NorFlash(len(image) // BLOCK, BLOCK, data=image)).last()
    return list(journal.read_lines()) if journal is not None else []


def mount(prefix, fs):
    """Send paths under ``prefix`` to ``fs`` (``.fs``: a LittleFS, ``.statvfs()``);
    host_sim/lfs_vfs.py mounts the tests' flash devices so."""
    if prefix in _MOUNTS:
        raise OSError(1, "EPERM")
    _MOUNTS[prefix] = _HELD[prefix] = fs


def unmount(prefix):
    """The file system mounted at ``prefix`` (no longer found by path)."""
    fs = _MOUNTS.pop(prefix, None)
    _HELD.pop(prefix, None)
    if fs is None:
        raise OSError(22, "EINVAL")
    return fs


def _find(path):
    for prefix, flash in _MOUNTS.items():
        if path == prefix or path.startswith(prefix + "/"):
            return flash, path[len(prefix):] or "/"
    return None, path


class LfsFile:
    """A littlefs file as MicroPython's VfsLfs2 gives it: no buffer in between."""

    def __init__(self, fs, path, mode):
        self.text = "b" not in mode
        lfs_mode = mode.replace("t", "")
        if "b" not in lfs_mode:
            lfs_mode += "b"
        try:
            if "a" in mode:
                try:
                    fs.stat(path)
                except lfs_errors.LittleFSError:
                    fs.open(path, "wb", buffering=0).close()
                except FileNotFoundError:
                    fs.open(path, "wb", buffering=0).close()
            self.raw = fs.open(path, lfs_mode, buffering=0)
        except FileNotFoundError:
            raise OSError(2, "ENOENT") from None
        except lfs_errors.LittleFSError as exc:
            raise _oserror(exc) from None

    def _do(self, fn, *args):
        try:
            return fn(*args)
        except lfs_errors.LittleFSError as exc:
            raise _oserror(exc) from None

    def write(self, data):
        if isinstance(data, str):
            data = data.encode()
        return self._do(self.raw.write, data)

    def flush(self):
        self._do(self.raw.flush)

    def read(self, n=-1):
        data = self._do(self.raw.read, n) if n >= 0 else self._do(self.raw.readall)
        return data.decode() if self.text else data

    def readinto(self, buf):
        return self._do(self.raw.readinto, buf)

    def close(self):
        """Close (littlefs commits first); the file is closed even when the
        commit fails.  littlefs-python's handle stays open in Python then, and
        closing it again (its ``__del__`` does) aborts the process in littlefs's
        assert: so it is marked closed here, as its own close does on success."""
        try:
            self._do(self.raw.close)
        finally:
            setattr(self.raw, "__IOBase_closed", True)

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()


def flash_open(path, mode="r", *args, **kw):
    flash, inner = _find(path)
    if flash is None:
        return open(path, mode, *args, **kw)
    return LfsFile(flash.fs, inner, mode)


class FlashOs:
    """The part of ``os`` the firmware's file modules use, mount-aware."""

    def __getattr__(self, name):          # anything else: the host's os
        return getattr(host_os, name)

    @staticmethod
    def _call(path, lfs_fn, host_fn):
        flash, inner = _find(path)
        if flash is None:
            return host_fn(path)
        try:
            return lfs_fn(flash, inner)
        except FileNotFoundError:
            raise OSError(2, "ENOENT") from None
        except FileExistsError:
            raise OSError(17, "EEXIST") from None
        except lfs_errors.LittleFSError as exc:
            raise _oserror(exc) from None

    def listdir(self, path):
        return self._call(path, lambda f, p: f.fs.listdir(p), host_os.listdir)

    def stat(self, path):
        def lfs_stat(f, p):
            st = f.fs.stat(p)
            mode = 0x4000 if st.type == 2 else 0x8000
            return (mode, 0, 0, 0, 0, 0, st.size, 0, 0, 0)
        return self._call(path, lfs_stat, host_os.stat)

    def statvfs(self, path):
        return self._call(path, lambda f, p: f.statvfs(), host_os.statvfs)

    def mkdir(self, path):
        return self._call(path, lambda f, p: f.fs.mkdir(p), host_os.mkdir)

    def remove(self, path):
        return self._call(path, lambda f, p: f.fs.remove(p), host_os.remove)

    def rmdir(self, path):
        return self._call(path, lambda f, p: f.fs.rmdir(p), host_os.rmdir)

    def rename(self, old, new):
        flash, inner = _find(old)
        if flash is None:
            return host_os.rename(old, new)
        return self._call(old, lambda f, p: f.fs.rename(p, _find(new)[1]), None)

    def sync(self):
        """littlefs commits at each flush; the host's files are synced as before."""
        host_os.sync()


def install():
    """Let the firmware's file modules reach mounted flash (idempotent)."""
    from table import files, journal_files, registry, settings
    shim = FlashOs()
    for module in (files, journal_files, registry, settings):
        module.os = shim
        module.open = flash_open
