# ruff: noqa: F821 -- freeze, include and require are given by MicroPython's manifest tool
# The Tapp table's frozen modules: what ports/rp2/boards/manifest.py freezes,
# except the port's _boot.py (it would mount littlefs over the whole storage,
# the journal's area included) and _boot_fat.py (run only with USB MSC, which
# this board does not enable; it would format the whole storage as FAT).
freeze("$(PORT_DIR)/modules", "rp2.py")
include("$(MPY_DIR)/extmod/asyncio")
require("onewire")
require("ds18x20")
require("dht")
require("neopixel")

# The table's own: the flash layout, and the _boot.py that mounts littlefs on
# its part of the storage only.
freeze("$(BOARD_DIR)/modules", ("_boot.py", "tapptable_board.py"))
