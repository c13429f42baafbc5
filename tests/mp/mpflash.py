# littlefs on the emulated NOR flash, for the tests inside the MicroPython VM
# (mptest_registry.py, mptest_journal_lfs.py, mptest_app_heap.py) and under
# CPython.  The flash model itself is host_sim/vm/nor_flash.py (``NorFlash``,
# shared with the virtual tables; its power cuts and operation log are
# described there); this module re-exports it and adds littlefs as the rp2
# port mounts it.
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

try:
    import nor_flash as _nor
except ImportError:  # CPython: the package's module
    from host_sim.vm import nor_flash as _nor

ERASE_BLOCK = _nor.ERASE_BLOCK
NorFlash = _nor.NorFlash
apply_op = _nor.apply_op
cut_image = _nor.cut_image
erase = _nor.erase
half = _nor.half
FlashDev = NorFlash   # (the name the littlefs tests and test_fsimage.py use)

LFS = vfs is not None and hasattr(vfs, "VfsLfs2")

PICO_PROGSIZE = _nor.PICO_PROGSIZE
mount = _nor.mount_lfs
format_lfs = _nor.format_lfs
umount = _nor.umount_lfs
rmtree = _nor.rmtree
