"""The Tapp table's flash layout, frozen into the table's own MicroPython.

The one place that says where the table's data lies on its Pico.  The frozen
_boot.py mounts littlefs on the FS part, firmware/boards/pico.py hands the
journal its area, and the host's tools read this same file
(tools/tapptable/fsimage.py) to make the images for it.  Offsets are relative
to ``rp2.Flash()``, the storage the port puts at the end of the 2 MiB flash
(MICROPY_HW_FLASH_STORAGE_BYTES in mpconfigboard.h; ``rp2.Flash(start=,
len=)`` takes offsets into it, in whole 4 KiB sectors).  A change here is a
new firmware: boards flashed with the old layout lose their files.
"""
BOARD_ID = "TAPPTABLE_PICO"          # the board folder; sys.implementation._build
SECTOR = 4096                        # the flash's erase unit, FLASH_SECTOR_SIZE
STORAGE_BYTES = 1408 * 1024          # rp2.Flash(): flash 0xA0000 to the end
ROMFS_BYTES = 256 * 1024             # below the storage, at 0x60000: /rom, the bytecode
FS_START = 0                         # littlefs: decks, settings, main.py
FS_LEN = 896 * 1024
JOURNAL_START = FS_START + FS_LEN    # the journal's own area: littlefs never touches it
JOURNAL_LEN = STORAGE_BYTES - JOURNAL_START
