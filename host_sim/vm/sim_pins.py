"""The simulator's board wiring: one pin map for both of its runtimes.

``boards.common.build`` builds the simulator's board from this map, as a
board file does from its ``PINS``: in CPython on the in-process ``machine``
(host_sim/sim_machine.py), inside the MicroPython VM on the bridge modules
(vm_machine.py).  Pins are named, not numbered: the chip models
(host_sim/board.py's ``SimChips``) answer to these names.
"""

BUTTONS = ("prev", "next", "ok")
SPI_ID = 0
I2C_ID = 0
SPI_BAUD = 1000000        # what the SPI bus model clocks (host_sim/spi_bus.py)


def sim_pins(seats):
    """The pin map of a table with ``seats`` seat readers and the centre reader."""
    return {
        "spi_sck": "sck", "spi_mosi": "mosi", "spi_miso": "miso",
        "reader_cs": tuple("cs%d" % i for i in range(seats + 1)),
        "reader_rst": "rst",
        "i2c_sda": "sda", "i2c_scl": "scl",
        "buttons": BUTTONS,
        "buttons_pull_up": True,
        "ws2812": "ws2812",
        "buzzer": "buzzer",
    }


def sim_settings(fields_on):
    """The board settings ``build`` takes (a board file's SETTINGS)."""
    return {"spi_baud": SPI_BAUD, "fields_on": fields_on}
