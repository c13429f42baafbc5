"""Emulated SPI bus with chip-select and reset pins, and a virtual clock.

The bus offers the ``machine.SPI`` API the firmware drivers use
(``write``, ``read``, ``readinto``, ``write_readinto``) and ``Pin``-like
objects (``value()``, ``on()``, ``off()``, ``__call__``). A device is selected
while its chip-select pin is low; every byte clocked while it is selected is
passed to the device's ``exchange(mosi) -> miso``. A byte clocked while more
than one device is selected raises ``BusError``: that is a driver bug. A byte
clocked while none is selected reads ``idle_miso``: 0x00, the board's MISO
pull-down (what the self-test's idle-bus check expects); set it to another
value to model a line that something else drives, or to None to make such a
byte a ``BusError`` too.

Time is virtual (``Clock``, microseconds): each transaction costs
``overhead_us`` (the host's cost of one driver call with a chip-select toggle)
and each byte ``8 / baudrate`` seconds. ``sleep_us`` advances the same clock, so
drivers that take a ``sleep_us`` callable can be given ``bus.sleep_us`` and a
chip's timer and tag answers happen at the right moments relative to the
driver's register accesses. Nothing here ever sleeps for real.
"""

from __future__ import annotations

from host_sim.clock import Clock
from host_sim.pins import Pin


class BusError(RuntimeError):
    """Bytes clocked with no device (or several devices) selected."""


class SpiBus:
    """One SPI bus; devices attach with their own chip-select pin (active low)."""

    def __init__(self, baudrate: int = 1_000_000, overhead_us: float = 10.0,
                 clock: Clock | None = None) -> None:
        self.clock = clock or Clock()
        self.baudrate = baudrate
        self.overhead_us = overhead_us
        self._devices: list = []  # (cs pin, device)
        self._selected: list = []
        self.transactions = 0
        self.bytes = 0
        self.idle_miso: int | None = 0x00  # no device selected: the pull-down

    # ------------------------------------------------------------ wiring
    def pin(self, name: str, value: int = 1) -> Pin:
        return Pin(name, Pin.OUT, value=value)

    def attach(self, device, cs: Pin):
        """Connect a device (``select()``, ``exchange(b)``, ``deselect()``) on ``cs``."""
        self._devices.append((cs, device))
        cs.listen(lambda v, d=device: self._cs_changed(d, v))
        if cs.value() == 0:
            self._cs_changed(device, 0)
        return device

    def _cs_changed(self, device, level: int) -> None:
        if level == 0:
            self.clock.advance(self.overhead_us)
            self.transactions += 1
            self._selected.append(device)
            device.select()
        else:
            if device in self._selected:
                self._selected.remove(device)
                device.deselect()

    def sleep_us(self, us: float) -> None:
        self.clock.advance(us)

    def ticks_us(self) -> int:
        return self.clock.ticks_us()

    # ------------------------------------------------------------ byte level
    def _xfer(self, mosi: int) -> int:
        if len(self._selected) != 1 and (self._selected or self.idle_miso is None):
            raise BusError("%d devices selected while clocking a byte" % len(self._selected))
        self.clock.advance(8e6 / self.baudrate)
        self.bytes += 1
        if not self._selected:
            return self.idle_miso
        return self._selected[0].exchange(mosi & 0xFF) & 0xFF

    # ------------------------------------------------------------ machine.SPI API
    def init(self, *args, **kw) -> None:
        if "baudrate" in kw:
            self.baudrate = kw["baudrate"]

    def deinit(self) -> None:
        pass

    def write(self, buf) -> None:
        for b in bytes(buf):
            self._xfer(b)

    def read(self, nbytes: int, write: int = 0x00) -> bytes:
        return bytes(self._xfer(write) for _ in range(nbytes))

    def readinto(self, buf, write: int = 0x00) -> None:
        for i in range(len(buf)):
            buf[i] = self._xfer(write)

    def write_readinto(self, write_buf, read_buf) -> None:
        wb = bytes(write_buf)
        if len(wb) != len(read_buf):
            raise ValueError("buffers must be the same length")
        for i, b in enumerate(wb):
            read_buf[i] = self._xfer(b)
