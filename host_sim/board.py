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


class SimBoard:
    """``seats`` seat readers plus the centre reader (the last one)."""

    def __init__(self, seats=3, root=None, fields_on=False):
        self.root = root
        self.bus = SpiBus()
        self.clock = self.bus.clock
        rst = self.bus.pin("rst")
        self.chips = []
        drivers = []
        for i in range(seats + 1):
            cs = self.bus.pin("cs%d" % i)
            name = "centre" if i == seats else "seat%d" % i
            self.chips.append(MFRC522Model(self.bus, cs, name=name, rst=rst))
            drivers.append(M.MFRC522(self.bus, cs, sleep_us=self.bus.sleep_us))
        self.readers = M.ReaderSet(drivers, rst=rst, sleep_us=self.bus.sleep_us,
                                   ticks_ms=self.ticks_ms, keep_field=fields_on)
        self.readers.init()
        self.i2c = I2CBus()
        self.oled = self.i2c.attach(OLED_ADDR, SSD1306Model())
        self.display = ssd1306.SSD1306(self.i2c, OLED_ADDR)
        self.button_pins = (ButtonPin("prev"), ButtonPin("next"), ButtonPin("ok"))
        self.buttons = ButtonPad(*self.button_pins, ticks_ms=self.ticks_ms)
        self.strip = NeoPixelModel(n=seats)
        self.leds = SeatLeds(self.strip, seats)
        self.pwm = PWMModel(clock=self.ticks_ms)
        self.buzzer = Buzzer(self.pwm, self.ticks_ms)

    def ticks_ms(self):
        """The virtual clock as ``time.ticks_ms()`` values (wrapping at 2**30)."""
        return self.clock.ticks_ms()
