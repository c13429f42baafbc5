"""The simulator's board: the table's hardware as chip models, one virtual clock.

The same role as firmware/boards/pico.py on the device: the only place that
knows the buses.  Seat readers and the centre reader are MFRC522 models on one
SPI bus (chip-select each, shared reset) with the real driver on top; the
display is the SSD1306 model on I2C; buttons, the WS2812 strip and the buzzer's
PWM are pin models.  Everything runs on the SPI bus's virtual clock:
``ticks_ms()`` reads it, bus transfers and driver sleeps advance it, and the
scheduler (host_sim/scheduler.py) moves it on between jobs.
"""
from drivers import mfrc522 as M
from drivers import ssd1306
from drivers.buttons import ButtonPad
from drivers.buzzer import Buzzer
from drivers.leds import SeatLeds
from host_sim.i2c_bus import I2CBus
from host_sim.mfrc522_model import MFRC522Model
from host_sim.pins import ButtonPin, NeoPixelModel, PWMModel
from host_sim.spi_bus import SpiBus
from host_sim.ssd1306_model import SSD1306Model

OLED_ADDR = 0x3C


class SimChips:
    """The table's chips as models on their buses: ``seats`` seat readers plus
    the centre reader (the last one), the display, the buttons, the LED strip
    and the buzzer's PWM.  The firmware's drivers talk to these, in this
    process (``SimBoard``) or inside the MicroPython VM (host_sim/vm_table.py)."""

    def __init__(self, seats=3):
        self.bus = SpiBus()
        self.clock = self.bus.clock
        self.rst = self.bus.pin("rst")
        self.cs = [self.bus.pin("cs%d" % i) for i in range(seats + 1)]
        self.chips = [MFRC522Model(self.bus, cs, rst=self.rst,
                                   name="centre" if i == seats else "seat%d" % i)
                      for i, cs in enumerate(self.cs)]
        self.i2c = I2CBus()
        self.oled = self.i2c.attach(OLED_ADDR, SSD1306Model())
        self.button_pins = (ButtonPin("prev"), ButtonPin("next"), ButtonPin("ok"))
        self.strip = NeoPixelModel(n=seats)
        self.pwm = PWMModel(clock=self.ticks_ms)

    def ticks_ms(self):
        """The virtual clock as ``time.ticks_ms()`` values (wrapping at 2**30)."""
        return self.clock.ticks_ms()


class SimBoard(SimChips):
    """The chip models with the real drivers on top, in this process: the
    board (firmware/boards/common.py's ``Board``) the application runs on."""

    def __init__(self, seats=3, root=None, fields_on=False):
        SimChips.__init__(self, seats)
        self.root = root
        drivers = [M.MFRC522(self.bus, cs, sleep_us=self.bus.sleep_us) for cs in self.cs]
        self.readers = M.ReaderSet(drivers, rst=self.rst, sleep_us=self.bus.sleep_us,
                                   ticks_ms=self.ticks_ms, keep_field=fields_on)
        self.readers.init()
        self.display = ssd1306.SSD1306(self.i2c, OLED_ADDR)
        self.buttons = ButtonPad(*self.button_pins, ticks_ms=self.ticks_ms)
        self.leds = SeatLeds(self.strip, seats)
        self.buzzer = Buzzer(self.pwm, self.ticks_ms)
