"""The simulator's board: the table's hardware as chip models, one virtual clock.

The same role as firmware/boards/pico.py on the device: seat readers and the
centre reader are MFRC522 models on one SPI bus (chip-select each, shared
reset); the display is the SSD1306 model on I2C; buttons, the WS2812 strip and
the buzzer's PWM are pin models, each at its name in the simulator's pin map
(host_sim/vm/sim_pins.py).  The drivers on top are built as on the device, by
the firmware's ``boards.common.build`` (``SimBoard``).  Everything runs on the
SPI bus's virtual clock: ``ticks_ms()`` reads it, bus transfers and driver
sleeps advance it, and the scheduler (host_sim/scheduler.py) moves it on
between jobs.

The same models, wired for one driver at a time: ``reader_rig`` (MFRC522
models on one bus under the real driver and ReaderSet) and ``display_rig``
(the SSD1306 model on I2C): the drivers' tests and ``tapptable bench``.  The
board without chip models, in CPython and inside the VM, is
host_sim/vm/fake_board.py.
"""
import time
from types import SimpleNamespace

from boards.common import build
from drivers import mfrc522 as M
from drivers import ssd1306
from drivers.reader_set import ReaderSet
from host_sim.i2c_bus import I2CBus
from host_sim.mfrc522_model import MFRC522Model
from host_sim.pins import ButtonPin, NeoPixelModel, PWMModel
from host_sim.sim_machine import SimMachine, SimNeoPixel, SimTime
from host_sim.spi_bus import SpiBus
from host_sim.ssd1306_model import SSD1306Model
from host_sim.vm.sim_pins import I2C_ID, SPI_ID, sim_pins, sim_settings

OLED_ADDR = 0x3C


class SimChips:
    """The table's chips as models on their buses: ``seats`` seat readers plus
    the centre reader (the last one), the display, the buttons, the LED strip
    and the buzzer's PWM.  The firmware's drivers talk to these, in this
    process (``SimBoard``) or inside the MicroPython VM (host_sim/vm_table.py)."""

    def __init__(self, seats=3):
        pins = sim_pins(seats)              # the models answer to the pin map's names
        self.bus = SpiBus()
        self.clock = self.bus.clock
        self.rst = self.bus.pin(pins["reader_rst"])
        self.cs = [self.bus.pin(name) for name in pins["reader_cs"]]
        self.chips = [MFRC522Model(self.bus, cs, rst=self.rst,
                                   name="centre" if i == seats else "seat%d" % i)
                      for i, cs in enumerate(self.cs)]
        self.i2c = I2CBus()
        self.oled = self.i2c.attach(OLED_ADDR, SSD1306Model())
        self.button_pins = tuple(ButtonPin(name) for name in pins["buttons"])
        self.strip = NeoPixelModel(n=seats)
        self.pwm = PWMModel(clock=self.ticks_ms)

    def ticks_ms(self):
        """The virtual clock as ``time.ticks_ms()`` values (wrapping at 2**30)."""
        return self.clock.ticks_ms()


class SimBoard(SimChips):
    """The chip models with the real drivers on top, in this process: the
    board (firmware/boards/common.py's ``Board``) the application runs on,
    built by the firmware's ``boards.common.build`` from the simulator's pin
    map, as the VM builds its own (host_sim/vm/vm_main.py); ``machine``,
    ``neopixel`` and ``time`` are host_sim/sim_machine.py's, on these chips."""

    def __init__(self, seats=3, root=None, fields_on=False, journal_flash=None):
        SimChips.__init__(self, seats)
        pins = sim_pins(seats)
        machine = SimMachine(self, pins)
        board = build(machine, SimNeoPixel(self, machine), pins, sim_settings(fields_on),
                      SPI_ID, I2C_ID, root, clock=SimTime(self), journal_flash=journal_flash)
        self.root = board.root
        self.journal_flash = board.journal_flash     # host_sim/vm/nor_flash.py, or None
        self.readers = board.readers
        self.display = board.display
        self.buttons = board.buttons
        self.leds = board.leds
        self.buzzer = board.buzzer


# ----- the models wired for one driver ---------------------------------------------


def reader_rig(n=1, *, version=0x92, trace=False, spi_wrap=None, **readerset_kw):
    """n MFRC522 models on one emulated bus (shared reset), the real driver on top.

    The ReaderSet's clock (``ticks_ms``, for the recovery back-off) is the bus's
    virtual clock unless given; ``rig.ticks_ms()`` reads it."""
    bus = SpiBus()
    rst = bus.pin("rst")
    chips, readers = [], []
    spi = spi_wrap(bus) if spi_wrap else bus
    for i in range(n):
        cs = bus.pin("cs%d" % i)
        chips.append(MFRC522Model(bus, cs, name="r%d" % i, rst=rst, version=version,
                                  trace=trace))
        readers.append(M.MFRC522(spi, cs, sleep_us=bus.sleep_us))
    readerset_kw.setdefault("ticks_ms", lambda: bus_ticks_ms(bus))
    rs = ReaderSet(readers, rst=rst, sleep_us=bus.sleep_us, **readerset_kw)
    good = rs.init()
    return SimpleNamespace(bus=bus, rst=rst, chips=chips, readers=readers, rs=rs, good=good,
                           ticks_ms=lambda: bus_ticks_ms(bus))


def bus_ticks_ms(bus):
    """The bus's virtual clock as ``time.ticks_ms()`` values (modulo 2**30)."""
    return bus.clock.ticks_ms()


def poll_cost(rig, i):
    """Bus traffic and virtual time of one poll of reader i."""
    for c in rig.chips:
        c.reset_stats()
    t0 = rig.bus.clock.now_us
    w0 = time.perf_counter()
    rig.rs.poll(i)
    d = rig.chips[i].counts()
    d["us"] = rig.bus.clock.now_us - t0
    d["wall_us"] = (time.perf_counter() - w0) * 1e6
    d["others"] = sum(c.stats["transactions"] for j, c in enumerate(rig.chips) if j != i)
    return d


def display_rig(log=False):
    """(bus, model, driver) for the SSD1306 on an emulated I2C bus."""
    bus = I2CBus()
    model = bus.attach(OLED_ADDR, SSD1306Model())
    if log:
        bus.log = []
    return bus, model, ssd1306.SSD1306(bus, OLED_ADDR)
