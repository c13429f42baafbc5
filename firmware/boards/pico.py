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
# the last 512 KiB of the 1408 KiB storage, littlefs keeping the first 896 KiB
# for decks and settings.  Only the table's own firmware mounts littlefs so
# (its frozen ``tapptable_board`` module says where the area lies); on the
# stock or ROMFS firmware littlefs covers the whole storage and the journal
# stays in its files.
JOURNAL_START = 896 * 1024
JOURNAL_LEN = 512 * 1024
BOARD_MODULE = "tapptable_board"

SETTINGS = {
    "spi_baud": 4000000,   # MFRC522 allows 10 MHz; 4 MHz is safe over table wiring;
                           # 1000000-2000000 for seat cables over 1 m (hardware/README.md)
    "fields_on": False,    # keep reader fields on? costs supply current (hardware/)
}


def journal_flash():
    """``rp2.Flash`` on the journal's area when this firmware keeps littlefs
    off it, else None."""
    try:
        fw = __import__(BOARD_MODULE)
    except ImportError:
        return None
    import rp2
    return rp2.Flash(start=getattr(fw, "JOURNAL_START", JOURNAL_START),
                     len=getattr(fw, "JOURNAL_LEN", JOURNAL_LEN))


def make(root="/"):
    import machine
    import neopixel

    from .common import build
    return build(machine, neopixel, PINS, SETTINGS, 0, 0, root, journal_flash=journal_flash())
