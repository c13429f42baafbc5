"""The simulator's one virtual clock.

Time moves only when something says so: bus transfers and driver sleeps
(``sleep_us``), the scheduler between jobs, a test (``advance_ms``).  Every
model and driver in host_sim reads this clock: ``ticks_ms()`` / ``ticks_us()``
as ``time.ticks_*`` would on the device (``ticks_ms`` wraps at 2**30 like the
RP2040's), ``now_us`` for the chip models' timing.
"""
from __future__ import annotations

from collections.abc import Callable


class Clock:
    """Virtual time in microseconds (a float), with millisecond views."""

    def __init__(self, start_ms: int = 0) -> None:
        self.now_us = start_ms * 1000.0
        self._hooks: list[Callable[[int], None]] = []

    def advance(self, us: float) -> None:
        if us > 0:
            self.now_us += us
            if self._hooks:
                ms = self.now
                for hook in list(self._hooks):
                    hook(ms)

    def sleep_us(self, us: float) -> None:
        self.advance(us)

    def ticks_us(self) -> int:
        return int(self.now_us)

    def ticks_ms(self) -> int:
        """Milliseconds as ``time.ticks_ms()`` counts them (modulo 2**30)."""
        return int(self.now_us // 1000) & 0x3FFFFFFF

    @property
    def now(self) -> int:
        """Whole milliseconds since the start (no wrap)."""
        return int(self.now_us // 1000)

    def advance_ms(self, ms: int) -> int:
        self.advance(ms * 1000.0)
        return self.now

    def on_advance(self, hook: Callable[[int], None]) -> None:
        """Call ``hook(now_ms)`` whenever the clock moves."""
        self._hooks.append(hook)


class FakeClock(Clock):
    """The same clock handed to a driver as its ``ticks_ms``: calling it reads
    the wrapping counter, as ``time.ticks_ms()`` would; tests move it with
    ``advance_ms``."""

    def __call__(self) -> int:
        return self.ticks_ms()
