"""ESP32 DevKitC: the table's pin map and settings.

Avoids the strapping pins (0, 2, 5, 12, 15), the flash pins (6-11) and the
WROVER's PSRAM pins (16, 17); MISO and the buttons sit on input-only pins (34;
35, 36, 39), which have no internal pull-ups: fit 10 kOhm pull-ups to 3V3 on
the buttons (hardware/README.md).
"""
PINS = {
    "spi_sck": 18, "spi_mosi": 23,           # VSPI's own (IO_MUX) pins
    "spi_miso": 34,                          # input only: MISO via the GPIO matrix (4 MHz)
    "reader_cs": (13, 14, 25, 26, 27, 32),   # seats 1..5, then the centre
    "reader_rst": 33,
    "i2c_sda": 21, "i2c_scl": 22,
    "buttons": (35, 36, 39),                 # prev, next, OK (external pull-ups)
    "buttons_pull_up": False,
    "ws2812": 4,                             # not 16/17: PSRAM on WROVER DevKitCs
    "buzzer": 19,
}

SETTINGS = {
    "spi_baud": 4000000,   # 1000000-2000000 for seat cables over 1 m (hardware/README.md)
    "fields_on": False,
}


def make(root="/"):
    import machine
    import neopixel

    from .common import build
    return build(machine, neopixel, PINS, SETTINGS, 2, 0, root)
