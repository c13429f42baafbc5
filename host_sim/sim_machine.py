"""``machine``, ``neopixel`` and ``time`` in this process, over the chip models.

What the firmware's ``boards.common.build`` is handed to build the
simulator's board in CPython (host_sim/board.py), as a board file hands it
MicroPython's modules and the VM its bridge modules (host_sim/vm/): a pin is
looked up by its name in the simulator's pin map (host_sim/vm/sim_pins.py)
and is the chip models' own -- a reader's chip-select on the SPI bus model,
the shared reset, a button -- and the buses, the LED strip and the buzzer's
PWM are the models themselves.  The clock is the SPI bus's virtual one:
``ticks_ms`` reads it, ``sleep_us`` moves it (host_sim/clock.py).

Nothing here models hardware; it only wires.  A pin the map names but no
model listens to (the bus clocks, the data lines) is a plain ``Pin``.
"""
from host_sim.pins import Pin


class SimPins:
    """``machine.Pin``: ``Pin(name, mode, pull, value=...)`` is the model's pin
    of that name, set up as asked."""

    IN = Pin.IN
    OUT = Pin.OUT
    PULL_UP = Pin.PULL_UP
    IRQ_FALLING = Pin.IRQ_FALLING
    IRQ_RISING = Pin.IRQ_RISING

    def __init__(self, wired):
        self.wired = dict(wired)        # name -> the models' Pin

    def __call__(self, id, mode=-1, pull=None, value=None):
        pin = self.wired.get(id)
        if pin is None:                 # a line no model watches (sck, sda, ...)
            pin = self.wired[id] = Pin(id, Pin.OUT)
        pin.init(mode, pull, value)
        return pin


class SimMachine:
    """The parts of ``machine`` that ``build`` uses, on ``chips``
    (host_sim/board.py's ``SimChips``) wired by the pin map ``pins``."""

    def __init__(self, chips, pins):
        self.chips = chips
        wired = dict(zip(pins["reader_cs"], chips.cs, strict=True))
        wired[pins["reader_rst"]] = chips.rst
        wired.update(zip(pins["buttons"], chips.button_pins, strict=True))
        self.Pin = SimPins(wired)
        self.buzzer = self.Pin(pins["buzzer"])
        self.ws2812 = self.Pin(pins["ws2812"])

    def SPI(self, id, **_wiring):
        """The SPI bus model: its clock rate is the model's (sim_pins.SPI_BAUD)."""
        return self.chips.bus

    def I2C(self, id, **_wiring):
        return self.chips.i2c

    def PWM(self, pin):
        if pin is not self.buzzer:
            raise ValueError("PWM on %s: the buzzer's model is on %s" % (pin.id, self.buzzer.id))
        return self.chips.pwm


class SimNeoPixel:
    """``neopixel``: the strip on the pin map's WS2812 data line is the model."""

    def __init__(self, chips, machine):
        self.chips = chips
        self.machine = machine

    def NeoPixel(self, pin, n):
        strip = self.chips.strip
        if pin is not self.machine.ws2812 or n != strip.n:
            raise ValueError("NeoPixel(%s, %d): the strip's model is %d LEDs on %s"
                             % (pin.id, n, strip.n, self.machine.ws2812.id))
        return strip


class SimTime:
    """``time`` as the drivers use it, on the chips' virtual clock."""

    def __init__(self, chips):
        self.ticks_ms = chips.ticks_ms
        self.sleep_us = chips.bus.sleep_us
