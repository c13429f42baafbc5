"""Ready-wired emulated hardware: readers on one SPI bus, the display on I2C.

The real firmware drivers run on top of the chip models; tests, ``tapptable
bench`` and (later) the virtual table build their hardware here.
"""
import time
from types import SimpleNamespace

from drivers import mfrc522 as M
from drivers import ssd1306
from drivers.reader_set import ReaderSet
from host_sim.i2c_bus import I2CBus
from host_sim.mfrc522_model import MFRC522Model
from host_sim.spi_bus import SpiBus
from host_sim.ssd1306_model import SSD1306Model

OLED_ADDR = 0x3C


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
