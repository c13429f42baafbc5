"""Some sectors of a flash block device, as a block device of their own.

The journal's own flash area on the Pico is the top of the ROMFS partition:
the rp2 port hands that partition out as an ``rp2.Flash`` object
(``vfs.rom_ioctl(2, 0)``), the table's ROMFS image fills its bottom, and the
journal (table/flash_log.py) gets the last sectors through this window.  The
window speaks the same extended block protocol (``readblocks``/``writeblocks``
with an offset, ``ioctl`` 4 count, 5 size, 6 erase) and refuses any block
outside itself, so no bug above it can erase or program the ROMFS image
below.  Nothing is allocated on the way through.
"""


class FlashWindow:
    """Sectors ``first`` .. ``first + count - 1`` of ``dev``, numbered from 0."""

    def __init__(self, dev, first, count):
        if first < 0 or count <= 0 or first + count > dev.ioctl(4, 0):
            raise ValueError("window outside the device")
        self._dev = dev
        self._first = first
        self._count = count

    def _block(self, block):
        if not 0 <= block < self._count:
            raise ValueError("block outside the window")
        return self._first + block

    def readblocks(self, block, buf, offset=0):
        self._dev.readblocks(self._block(block), buf, offset)

    def writeblocks(self, block, buf, offset=0):
        """A program at ``offset`` of the block (no erase: ``ioctl(6, block)``)."""
        self._dev.writeblocks(self._block(block), buf, offset)

    def ioctl(self, op, arg):
        if op == 4:                         # block count
            return self._count
        if op == 6:                         # erase one block
            return self._dev.ioctl(6, self._block(arg))
        return self._dev.ioctl(op, arg)
