"""Milliseconds modulo 2**30, as ``time.ticks_ms`` counts on the RP2040.

``ticks_diff`` and ``ticks_add`` are wrap-safe and keep every intermediate
value below 2**30, so nothing is allocated on 32-bit ports (a larger int would
be a long).  Every driver that measures time uses these, never ``a - b``: the
device's counter and the simulator's clock both wrap.
"""
import time

try:
    from micropython import const
except ImportError:  # CPython
    const = lambda x: x  # noqa: E731

TICKS_MAX = const(0x3FFFFFFF)
TICKS_HALF = const(0x20000000)


def _cpython_ticks_ms():
    return int(time.time() * 1000)


_time_ticks_ms = getattr(time, "ticks_ms", _cpython_ticks_ms)


def ticks_ms():
    """Milliseconds modulo 2**30."""
    return _time_ticks_ms() & TICKS_MAX


def ticks_diff(a, b):
    """a - b for ticks modulo 2**30, wrap-safe, in [-2**29, 2**29)."""
    d = (a - b) & TICKS_MAX
    if d >= TICKS_HALF:
        d = d - TICKS_HALF - TICKS_HALF
    return d


def ticks_add(t, delta):
    """t + delta for ticks modulo 2**30 (``delta`` below 2**29 in size)."""
    return (t + delta) & TICKS_MAX
