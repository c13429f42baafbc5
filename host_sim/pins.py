"""Emulated pins, a WS2812 strip decoder and a PWM model (CPython only).

* ``Pin``: the parts of ``machine.Pin`` the drivers use -- ``value()``,
  ``value(v)``, ``irq(handler, trigger)``, ``init``/``on``/``off`` -- plus
  ``drive(level)`` for tests. ``ButtonPin`` is a push button with pull-up
  (active low) that tests ``press()``/``release()``, optionally with contact
  bounce stepped on a fake clock.
* ``FakeClock`` (from host_sim/clock.py, the one virtual clock): a ``ticks_ms``-like
  callable (``clock()``) moved by tests.
* ``NeoPixelModel``: the interface of ``neopixel.NeoPixel`` (``np[i] = (r, g, b)``,
  ``fill``, ``write``). ``write()`` encodes the pixel buffer in the WS2812 wire
  order (GRB, as the real driver does) and ``WS2812Decoder`` decodes that byte
  stream back into the colour latched by each LED.
* ``PWMModel``: ``machine.PWM``'s ``freq``/``duty_u16``/``deinit``, recording
  every change with the fake clock's time.

Each model counts its transactions and bytes.
"""

from __future__ import annotations

from collections.abc import Callable

from host_sim.clock import FakeClock

__all__ = ["ButtonPin", "FakeClock", "NeoPixelModel", "Pin", "PWMModel", "WS2812Decoder"]


class Pin:
    IN = 0
    OUT = 1
    OPEN_DRAIN = 2
    PULL_UP = 1
    PULL_DOWN = 2
    IRQ_FALLING = 4
    IRQ_RISING = 8

    def __init__(self, id: object = None, mode: int = IN, pull: int | None = None,
                 value: int | None = None) -> None:
        self.id = id
        self.mode = mode
        self.pull = pull
        self._level = 1 if pull == Pin.PULL_UP else 0
        if value is not None:
            self._level = 1 if value else 0
        self.name = id
        self._handler: Callable[[Pin], None] | None = None
        self._trigger = 0
        self._listeners: list[Callable[[int], None]] = []
        self.reads = 0
        self.writes = 0
        self.edges = 0

    @property
    def changes(self) -> int:
        return self.edges

    def listen(self, fn: Callable[[int], None]) -> None:
        """Call ``fn(level)`` on every change (the bus models watch chip-selects)."""
        self._listeners.append(fn)

    def init(self, mode: int = -1, pull: int | None = None, value: int | None = None) -> None:
        if mode != -1:
            self.mode = mode
        if pull is not None:
            self.pull = pull
        if value is not None:
            self.value(value)

    def value(self, v: int | None = None) -> int | None:
        if v is None:
            self.reads += 1
            return self._level
        self.writes += 1
        self.drive(v)
        return None

    def __call__(self, v: int | None = None) -> int | None:
        return self.value(v)

    def on(self) -> None:
        self.value(1)

    def off(self) -> None:
        self.value(0)

    def irq(self, handler: Callable[[Pin], None] | None = None,
            trigger: int = IRQ_FALLING | IRQ_RISING, hard: bool = False) -> None:
        self._handler = handler
        self._trigger = trigger

    def drive(self, level: int) -> None:
        """Set the electrical level (from outside or from value(v)); fire the IRQ."""
        level = 1 if level else 0
        if level == self._level:
            return
        self._level = level
        self.edges += 1
        for fn in self._listeners:
            fn(level)
        edge = Pin.IRQ_RISING if level else Pin.IRQ_FALLING
        if self._handler is not None and self._trigger & edge:
            self._handler(self)


class ButtonPin(Pin):
    """A push button to ground with the pin's pull-up: pressed reads 0."""

    def __init__(self, id: object = None) -> None:
        super().__init__(id, Pin.IN, Pin.PULL_UP)

    def press(self) -> None:
        self.drive(0)

    def release(self) -> None:
        self.drive(1)

    @property
    def is_pressed(self) -> bool:
        return self._level == 0

    def bounce(self, clock: FakeClock, final_pressed: bool, pattern_ms=(1, 2, 1, 3),
               poll: Callable[[], object] | None = None) -> None:
        """Contact bounce: toggle the level after each interval of ``pattern_ms``
        (moving ``clock``; ``poll`` is called after each step), ending with the
        button ``final_pressed``."""
        level = 0 if final_pressed else 1
        for i, dt in enumerate(pattern_ms):
            self.drive(level if i % 2 == 0 else 1 - level)
            clock.advance_ms(dt)
            if poll is not None:
                poll()
        self.drive(level)


# ---------------------------------------------------------------- WS2812


class WS2812Decoder:
    """Decodes a WS2812 byte stream: each LED latches the first 3 bytes it sees
    (G, R, B) and passes the rest on, so LED i gets bytes 3i..3i+2."""

    def __init__(self, n: int, bpp: int = 3) -> None:
        self.n = n
        self.bpp = bpp
        self.colours: list[tuple[int, int, int]] = [(0, 0, 0)] * n  # (r, g, b)
        self.frames = 0
        self.bytes = 0

    def feed(self, stream: bytes) -> None:
        self.frames += 1
        self.bytes += len(stream)
        for i in range(min(self.n, len(stream) // self.bpp)):
            g, r, b = stream[i * self.bpp:i * self.bpp + 3]
            self.colours[i] = (r, g, b)


class NeoPixelModel:
    """``neopixel.NeoPixel``-like strip (RGB tuples in, GRB bytes on the wire)."""

    ORDER = (1, 0, 2, 3)  # as micropython-lib neopixel: RGB(W) index -> byte offset

    def __init__(self, pin: object = None, n: int = 1, bpp: int = 3) -> None:
        self.pin = pin
        self.n = n
        self.bpp = bpp
        self.buf = bytearray(n * bpp)
        self.decoder = WS2812Decoder(n, bpp)
        self.writes = 0
        self.history: list[list[tuple[int, int, int]]] = []

    def __len__(self) -> int:
        return self.n

    def __setitem__(self, i: int, v) -> None:
        off = i * self.bpp
        for k in range(self.bpp):
            self.buf[off + self.ORDER[k]] = v[k]

    def __getitem__(self, i: int) -> tuple[int, ...]:
        off = i * self.bpp
        return tuple(self.buf[off + self.ORDER[k]] for k in range(self.bpp))

    def fill(self, v) -> None:
        for i in range(self.n):
            self[i] = v

    def write(self) -> None:
        self.wire_in(bytes(self.buf))

    def wire_in(self, stream: bytes) -> None:
        """The bytes arriving on the data line (``write()``, or a driver in the
        MicroPython VM, host_sim/vm_table.py)."""
        self.writes += 1
        self.decoder.feed(stream)
        self.history.append(list(self.decoder.colours))

    @property
    def colours(self) -> list[tuple[int, int, int]]:
        """The colour each LED shows (what was last written, decoded from the wire)."""
        return list(self.decoder.colours)


# ---------------------------------------------------------------- PWM


class PWMModel:
    """``machine.PWM`` for a piezo: records (time_ms, freq, duty_u16) on each change."""

    def __init__(self, pin: object = None, clock: Callable[[], int] | None = None,
                 freq: int = 1000, duty_u16: int = 0) -> None:
        self.pin = pin
        self.clock = clock or (lambda: 0)
        self._freq = freq
        self._duty = duty_u16
        self.calls = 0
        self.log: list[tuple[int, int, int]] = [(self.clock(), freq, duty_u16)]
        self.active = True

    def _record(self) -> None:
        self.calls += 1
        entry = (self.clock(), self._freq, self._duty)
        if self.log and self.log[-1][0] == entry[0]:
            self.log[-1] = entry  # several changes at one instant: keep the last
        else:
            self.log.append(entry)

    def freq(self, value: int | None = None) -> int | None:
        if value is None:
            return self._freq
        if not 8 <= value <= 62_500_000:
            raise ValueError("freq out of range")
        self._freq = value
        self._record()
        return None

    def duty_u16(self, value: int | None = None) -> int | None:
        if value is None:
            return self._duty
        self._duty = max(0, min(65535, value))
        self._record()
        return None

    def deinit(self) -> None:
        self.active = False
        self._duty = 0
        self._record()

    @property
    def sounding(self) -> bool:
        return self.active and self._duty > 0

    def tones(self) -> list[tuple[int, int, int]]:
        """The sound as (start_ms, duration_ms, freq) notes; freq 0 = silence.
        The last entry lasts until now (the clock's current time)."""
        out: list[tuple[int, int, int]] = []
        now = self.clock()
        merged: list[tuple[int, int]] = []  # (start, freq or 0)
        for t, f, d in self.log:
            v = f if d > 0 else 0
            if merged and merged[-1][1] == v:
                continue
            merged.append((t, v))
        for i, (t, v) in enumerate(merged):
            end = merged[i + 1][0] if i + 1 < len(merged) else now
            out.append((t, end - t, v))
        return out
