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

SETTINGS = {
    "spi_baud": 4000000,   # MFRC522 allows 10 MHz; 4 MHz is safe over table wiring;
                           # 1000000-2000000 for seat cables over 1 m (hardware/README.md)
    "fields_on": False,    # keep reader fields on? costs supply current (hardware/)
}


WRONG_FIRMWARE = ("tapptable: this MicroPython is not the table's own firmware (no "
                  "tapptable_board frozen in it): flash build/pico/tapptable-pico.uf2 "
                  "(tapptable build --board pico, docs/build.md). This is the MicroPython "
                  "REPL.")


def wrong_firmware():
    """Why the table cannot start on this MicroPython, or None.  Its flash layout
    (littlefs below the journal's own area) is the board's frozen
    ``tapptable_board``: only the table's firmware has it; on another one
    littlefs spans the journal's area."""
    try:
        import tapptable_board  # noqa: F401
    except ImportError:
        return WRONG_FIRMWARE
    return None


def make(root="/"):
    import machine
    import neopixel

    from .common import build
    return build(machine, neopixel, PINS, SETTINGS, 0, 0, root)
