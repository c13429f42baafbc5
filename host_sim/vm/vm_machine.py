"""``machine`` inside the bridged VM: Pin, SPI, I2C and PWM on the host's models.

Each method sends the operation over the link (vm_link.py) to the chip models
in the host process (host_sim/vm_table.py).  Pins are named by the strings of
the simulator's pin map (sim_pins.py): ``cs0``.., ``rst``, the buttons
``prev``/``next``/``ok``.
"""
from binascii import hexlify, unhexlify

import vm_time
from vm_link import ask, tell


def _hex(buf):
    return hexlify(buf)


# The buttons' levels as the host sent them with the job step being run: only
# the host's test code presses buttons, between steps, so a step reads them
# here instead of asking (the host checks that none changed during the step).
INPUTS = {}
# The pins' interrupts (``Pin.irq``): name -> (pin, handler, trigger).
HANDLERS = {}


def fire(name, level, ms):
    """Button ``name``'s level changed to ``level`` at ``ms`` (the host's
    clock, between two steps): its interrupt runs as the chip's would have
    then -- reading that level and that time."""
    INPUTS[name] = level
    entry = HANDLERS.get(name)
    if entry is None:
        return
    pin, handler, trigger = entry
    if trigger & (Pin.IRQ_RISING if level else Pin.IRQ_FALLING):
        vm_time.EDGE_MS[0] = ms
        try:
            handler(pin)
        finally:
            vm_time.EDGE_MS[0] = -1


class Pin:
    IN = 0          # (the modes the board files use: the host's models know the rest)
    OUT = 1
    PULL_UP = 1
    IRQ_FALLING = 4     # the buttons' edges: the host tells them with the next step (fire)
    IRQ_RISING = 8

    def __init__(self, id, mode=-1, pull=None, value=None):
        self.id = id
        self._told = (b"@P%s 0\n" % id, b"@P%s 1\n" % id)  # made once: a chip-select
        if value is not None:                                # toggles twice per transfer
            self.value(value)

    def init(self, mode=-1, pull=None, value=None):
        if value is not None:
            self.value(value)

    def value(self, v=None):
        if v is None:
            level = INPUTS.get(self.id)
            return int(ask(b"@p%s\n" % self.id)) if level is None else level
        tell(self._told[1 if v else 0])
        return None

    def __call__(self, v=None):
        return self.value(v)

    def on(self):
        self.value(1)

    def off(self):
        self.value(0)

    def irq(self, handler=None, trigger=IRQ_FALLING | IRQ_RISING, hard=False):
        HANDLERS[self.id] = (self, handler, trigger)


class SPI:
    def __init__(self, id, baudrate=1000000, polarity=0, phase=0, bits=8, firstbit=0,
                 sck=None, mosi=None, miso=None):
        self.id = id

    def init(self, *args, **kw):
        pass

    def deinit(self):
        pass

    def write(self, buf):
        tell(b"@W%s\n" % _hex(buf))

    def read(self, nbytes, write=0):
        return unhexlify(ask(b"@R%d %d\n" % (nbytes, write)))

    def readinto(self, buf, write=0):
        data = unhexlify(ask(b"@R%d %d\n" % (len(buf), write)))
        buf[0:len(data)] = data

    def write_readinto(self, write_buf, read_buf):
        data = unhexlify(ask(b"@X%s\n" % _hex(write_buf)))
        read_buf[0:len(data)] = data


class I2C:
    def __init__(self, id, scl=None, sda=None, freq=400000):
        self.id = id

    def scan(self):
        reply = ask(b"@A\n")
        return [int(a) for a in reply.split(b",")] if reply else []

    def writeto(self, addr, buf, stop=True):
        return int(ask(b"@I%d %s\n" % (addr, _hex(buf))))

    def writevto(self, addr, vector, stop=True):
        return int(ask(b"@V%d %s\n" % (addr, b",".join(_hex(b) for b in vector))))

    def readfrom(self, addr, nbytes, stop=True):
        return unhexlify(ask(b"@Q%d %d\n" % (addr, nbytes)))

    def readfrom_into(self, addr, buf, stop=True):
        data = unhexlify(ask(b"@Q%d %d\n" % (addr, len(buf))))
        buf[0:len(data)] = data


class PWM:
    def __init__(self, pin, freq=None, duty_u16=None):
        self._freq = 1000
        self._duty = 0
        if freq is not None:
            self.freq(freq)
        if duty_u16 is not None:
            self.duty_u16(duty_u16)

    def freq(self, value=None):
        if value is None:
            return self._freq
        self._freq = value
        tell(b"@F%d\n" % value)
        return None

    def duty_u16(self, value=None):
        if value is None:
            return self._duty
        self._duty = value
        tell(b"@D%d\n" % value)
        return None

    def deinit(self):
        tell(b"@Z\n")
