"""What every board file builds: the table's hardware from a pin map.

A board file (pico.py, esp32.py) holds its pin map as data (``PINS``, checked
against hardware/) and its settings, and calls ``build`` with the ``machine``
classes; ``build`` is the only code that constructs buses and pins -- on the
device, and in the simulator from its pin map (host_sim/vm/sim_pins.py), whose
``machine`` hands out the chip models.
"""
import time


class Board:
    """The hardware the application uses (firmware/table/app.py)."""

    def __init__(self, readers, display, buttons, leds, buzzer, ticks_ms, root,
                 journal_flash=None, ticks_us=None):
        self.readers = readers      # ReaderSet: seat readers first, the centre last
        self.display = display
        self.buttons = buttons
        self.leds = leds
        self.buzzer = buzzer
        self.ticks_ms = ticks_ms
        # µs, wrapping as ticks_ms (the display's pace, table/screens.py), or
        # None where the clock has none (the simulator's virtual clock)
        self.ticks_us = ticks_us
        self.root = root
        # the journal's own flash area (a block device, table/flash_log.py), or
        # None: the journal is files under ``root`` (table/journal.py)
        self.journal_flash = journal_flash


def build(machine, neopixel, pins, settings, spi_id, i2c_id, root="/", clock=time,
          journal_flash=None, reader_regs=None):
    """Construct the drivers on the board's buses (``pins``: the board's PINS).

    ``machine`` and ``neopixel`` are MicroPython's modules on a device, or what
    stands in for them: the bridge modules inside the simulator's VM
    (host_sim/vm/), the chip models' own in the simulator's process
    (host_sim/sim_machine.py).  ``clock`` gives the drivers ``ticks_ms`` and
    ``sleep_us`` (and the screens ``ticks_us``, where it has one): the ``time``
    module, or the simulator's virtual clock.
    ``journal_flash``: the journal's own flash area (a block device), if the
    board has one; ``reader_regs``: the board's faster register access for a
    reader on chip-select GPIO n (``reader_regs(n)``, boards/rp2_regs.py), if
    it has one.

    Builds whatever is attached: a reader that does not answer (unplugged, no
    supply, MISO reading 0x00, 0xFF or noise) is left down and retried by the
    ReaderSet, so it joins when it answers; a display that answers at neither
    0x3C nor 0x3D (none fitted, SDA/SCL swapped) gives a display object all the
    same (``present`` False), which the application keeps trying -- unless the
    pin map has a display on SPI (``display_spi``: its CS, D/C and RES pins on
    the readers' bus): then the panel on SPI is driven (it cannot answer: the
    self-test shows a pattern to look at).  An I2C panel that answers at
    power-up wins.  Nothing here raises for a missing part: the self-test
    names it (hardware/README.md).
    """
    from drivers import mfrc522 as M
    from drivers import ssd1306
    from drivers.buttons import ButtonPad
    from drivers.buzzer import Buzzer
    from drivers.leds import SeatLeds
    from drivers.reader_set import ReaderSet

    Pin = machine.Pin
    spi = machine.SPI(spi_id, baudrate=settings["spi_baud"], polarity=0, phase=0,
                      sck=Pin(pins["spi_sck"]), mosi=Pin(pins["spi_mosi"]),
                      miso=Pin(pins["spi_miso"]))
    readers = []
    for name in pins["reader_cs"]:
        cs = Pin(name, Pin.OUT, value=1)
        regs = reader_regs(name) if reader_regs is not None else None
        readers.append(M.MFRC522(spi, cs, sleep_us=clock.sleep_us, regs=regs))
    rst = Pin(pins["reader_rst"], Pin.OUT, value=1)
    rs = ReaderSet(readers, rst=rst, keep_field=settings["fields_on"],
                     sleep_us=clock.sleep_us, ticks_ms=clock.ticks_ms)
    rs.init()
    i2c = machine.I2C(i2c_id, scl=Pin(pins["i2c_scl"]), sda=Pin(pins["i2c_sda"]),
                      freq=400000)
    display = ssd1306.SSD1306(i2c)
    if not display.present and "display_spi" in pins:
        display = ssd1306.SSD1306Spi(
            spi, tuple(Pin(n, Pin.OUT, value=1) for n in pins["display_spi"]), clock.sleep_us)
    pull = Pin.PULL_UP if pins.get("buttons_pull_up", True) else None
    keys = [Pin(p, Pin.IN, pull) for p in pins["buttons"]]
    buttons = ButtonPad(keys[0], keys[1], keys[2], clock.ticks_ms)
    buttons.latch_edges(Pin.IRQ_FALLING | Pin.IRQ_RISING)
    seats = len(pins["reader_cs"]) - 1
    leds = SeatLeds(neopixel.NeoPixel(Pin(pins["ws2812"]), seats), seats)
    buzzer = Buzzer(machine.PWM(Pin(pins["buzzer"])), clock.ticks_ms)
    return Board(rs, display, buttons, leds, buzzer, clock.ticks_ms, root, journal_flash,
                 getattr(clock, "ticks_us", None))
