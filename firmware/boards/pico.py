"""Raspberry Pi Pico (RP2040): the table's pin map and settings.

Pins are GPIO numbers (GPn).  One SPI bus (SPI0) for up to six MFRC522 readers
with a chip-select each (five seats, the centre last) and a shared reset; the
SSD1306 on the same SPI0 with its own chip-select, D/C# and reset (a page in
0.26 ms at 4 MHz) -- or, where a panel answers on I2C0 at power-up, there
(a page 2.9 ms at 400 kHz; hardware/README.md); three buttons to ground
(internal pull-ups); one WS2812 data line; a piezo on a PWM pin.  hardware/ holds
the wiring and checks these.
"""
try:
    from micropython import const
except ImportError:  # CPython
    const = lambda x: x  # noqa: E731

PINS = {
    "spi_sck": 18, "spi_mosi": 19, "spi_miso": 16,
    "reader_cs": (17, 20, 21, 22, 26, 27),   # seats 1..5, then the centre
    "reader_rst": 9,
    "display_spi": (8, 7, 6),          # the SSD1306 on SPI0: its CS, D/C, RES
    "i2c_sda": 4, "i2c_scl": 5,                           # ... or on I2C0
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

# The RP2040 is rated for 200 MHz with its core at 1.15 V (pico-sdk 2.1.1 release
# notes; MicroPython starts it at 125 MHz and 1.10 V): a card is shown and a press
# answered in 5/8 of the CPU time.  The core voltage first (the VREG register,
# RP2040 datasheet 2.10.7: VSEL 0b1100 = 1.15 V), the clock once it has settled.
# Only clk_sys moves: clk_peri (SPI, the readers' 4 MHz) stays on the USB PLL's
# 48 MHz; the I2C and PWM dividers are worked out from clk_sys when the board
# builds them, after this; the flash's QSPI clock is clk_sys / 2 (100 MHz, the
# W25Q16JV takes 133).  docs/benchmarks.md has what it gives.
_CPU_HZ = const(200_000_000)
_VREG = const(0x40064000)          # VREG_AND_CHIP_RESET_BASE: VREG
_VSEL_MASK = const(0xF0)
_VSEL_1V15 = const(0xC0)

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


def full_speed(machine):
    """The core at 1.15 V, then clk_sys at 200 MHz: before any bus is built."""
    import time
    if machine.freq() >= _CPU_HZ:
        return
    vreg = machine.mem32[_VREG]
    machine.mem32[_VREG] = (vreg & ~_VSEL_MASK) | _VSEL_1V15
    time.sleep_ms(1)            # the regulator settles (pico-sdk waits 1 ms too)
    machine.freq(_CPU_HZ)


def make(root="/"):
    import machine
    import neopixel

    from .common import build
    full_speed(machine)
    from .rp2_regs import Rp2Regs  # SPI0: spi_id 0 below
    return build(machine, neopixel, PINS, SETTINGS, 0, 0, root, journal_flash=journal_flash(),
                 reader_regs=Rp2Regs)
