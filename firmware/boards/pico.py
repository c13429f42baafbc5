"""Raspberry Pi Pico (RP2040): the table's pin map and settings.

Pins are GPIO numbers (GPn).  One SPI bus (SPI0) for up to six MFRC522 readers
with a chip-select each (five seats, the centre last) and a shared reset; the
SSD1306 on I2C0; three buttons to ground (internal pull-ups); one WS2812 data
line; a piezo on a PWM pin.  hardware/ holds the wiring and checks these.
"""
PINS = {
    "spi_sck": 18, "spi_mosi": 19, "spi_miso": 16,
    "reader_cs": (17, 20, 21, 22, 26, 27),   # seats 1..5, then the centre
    "reader_rst": 9,
    "i2c_sda": 4, "i2c_scl": 5,
    "buttons": (10, 11, 12),                 # prev, next, OK
    "buttons_pull_up": True,
    "ws2812": 13,
    "buzzer": 14,
}

# The journal's own flash area (docs/record-format.md, "Journal on the device"):
# the last JOURNAL_SECTORS 4 KiB sectors of the ROMFS partition (256 KiB at
# flash 0x60000 on the table's firmware, docs/build.md), above the table's
# ROMFS image; littlefs keeps the decks and settings.  ``tapptable build``
# erases the area and refuses a ROMFS image that would reach it.
SECTOR = 4096                # the flash's erase unit (FLASH_SECTOR_SIZE)
JOURNAL_SECTORS = 13         # 52 KiB, flash 0x93000-0xA0000 (the ROMFS image below: 204 KiB)

SETTINGS = {
    "spi_baud": 4000000,   # MFRC522 allows 10 MHz; 4 MHz is safe over table wiring;
                           # 1000000-2000000 for seat cables over 1 m (hardware/README.md)
    "fields_on": False,    # keep reader fields on? costs supply current (hardware/)
}


def journal_flash():
    """The journal's area: the top of the ROMFS partition, which the rp2 port
    hands out as an ``rp2.Flash`` block device (``vfs.rom_ioctl(2, 0)``), seen
    through a window that cannot reach the ROMFS image below.  None on a
    firmware without that partition (the journal then keeps files)."""
    import vfs
    rom_ioctl = getattr(vfs, "rom_ioctl", None)
    segment = rom_ioctl(2, 0) if rom_ioctl is not None else None
    ioctl = getattr(segment, "ioctl", None)     # (-22 where there is no partition)
    if ioctl is None:
        return None
    from .flash_window import FlashWindow
    sectors = ioctl(4, 0)
    return FlashWindow(segment, sectors - JOURNAL_SECTORS, JOURNAL_SECTORS)


NO_ROMFS = ("tapptable: this MicroPython has no ROMFS partition, which the table runs "
            "its bytecode from: flash build/pico/tapptable-pico.uf2 (tapptable build "
            "--board pico, docs/build.md). This is the MicroPython REPL.")


def wrong_firmware():
    """Why the table cannot start on this MicroPython, or None.  The table's
    bytecode runs from the ROMFS partition; the published RPI_PICO has none
    (no ``vfs.rom_ioctl``), and its heap cannot hold the bytecode loaded from
    .mpy files."""
    import vfs
    if not hasattr(vfs, "rom_ioctl") or vfs.rom_ioctl(1) < 1:
        return NO_ROMFS
    return None


def make(root="/"):
    import machine
    import neopixel

    from .common import build
    from .rp2_regs import Rp2Regs  # SPI0: spi_id 0 below
    return build(machine, neopixel, PINS, SETTINGS, 0, 0, root, journal_flash=journal_flash(),
                 reader_regs=Rp2Regs)
