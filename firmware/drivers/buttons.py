"""Debounced push buttons with short and long presses, polled (no IRQ needed).

Pins and the clock are injected: ``pin.value()`` reads the level and
``ticks_ms()`` returns milliseconds (``time.ticks_ms`` on the device, a fake
clock in tests). Differences use ``drivers.ticks.ticks_diff``, so the wrap of
the tick counter (2**30 ms, on the device and in the simulator) is handled.

A change of level counts once it has been stable for ``debounce_ms``; bounces
shorter than that are ignored. A press that is released before ``long_ms``
gives one SHORT event on release; a press held for ``long_ms`` gives one LONG
event at that moment (immediate feedback) and nothing on release.

``poll()`` allocates nothing: events are small ints, state lives in
attributes made in the constructor.
"""

try:
    from micropython import const
except ImportError:  # CPython
    const = lambda x: x  # noqa: E731

from drivers.ticks import ticks_diff

NONE = const(0)
SHORT = const(1)
LONG = const(2)

# ButtonPad events: key * 2 + kind (kind SHORT=1 / LONG=2)
KEY_PREV = const(0)
KEY_NEXT = const(1)
KEY_OK = const(2)
PREV_SHORT = const(1)
PREV_LONG = const(2)
NEXT_SHORT = const(3)
NEXT_LONG = const(4)
OK_SHORT = const(5)
OK_LONG = const(6)

EVENT_NAMES = ("none", "prev", "prev_long", "next", "next_long", "ok", "ok_long")


def event(key, kind):
    """The ButtonPad event of ``key`` (KEY_PREV/NEXT/OK) pressed ``kind`` (SHORT/LONG)."""
    return key * 2 + kind


def key_of(ev):
    """The key (KEY_PREV/NEXT/OK) of a ButtonPad event (not NONE)."""
    return (ev - 1) >> 1


def kind_of(ev):
    """SHORT or LONG: how a ButtonPad event (not NONE) was pressed."""
    return ev - 2 * ((ev - 1) >> 1)

DEBOUNCE_MS = const(20)
LONG_MS = const(700)


class Button:
    """One debounced button on an injected pin (active low with pull-up by default)."""

    def __init__(self, pin, ticks_ms, active_low=True, debounce_ms=DEBOUNCE_MS,
                 long_ms=LONG_MS):
        self.pin = pin
        self.ticks_ms = ticks_ms
        self.active = 0 if active_low else 1
        self.debounce_ms = debounce_ms
        self.long_ms = long_ms
        now = ticks_ms()
        raw = 1 if pin.value() == self.active else 0
        self.pressed = raw  # debounced state: 1 = pressed
        self._raw = raw  # last raw reading
        self._since = now  # when the raw reading last changed
        self._down_at = now  # when the debounced press began
        self._long_sent = raw  # held at start-up: no event until released
        self.event = NONE  # pending event, cleared by take()

    def update(self, now):
        """Sample the pin at time ``now``; a new event goes to ``self.event``."""
        raw = 1 if self.pin.value() == self.active else 0
        if raw != self._raw:
            self._raw = raw
            self._since = now
        elif raw != self.pressed and ticks_diff(now, self._since) >= self.debounce_ms:
            self.pressed = raw
            if raw:
                self._down_at = self._since  # the press began when the level settled
                self._long_sent = 0
            elif not self._long_sent:
                self.event = SHORT
        if (self.pressed and not self._long_sent
                and ticks_diff(now, self._down_at) >= self.long_ms):
            self._long_sent = 1
            self.event = LONG
        return self.event

    def take(self):
        """Return the pending event (NONE, SHORT or LONG) and clear it."""
        ev = self.event
        self.event = NONE
        return ev

    def poll(self):
        """Sample now and return (and clear) the pending event."""
        self.update(self.ticks_ms())
        return self.take()


class ButtonPad:
    """The table's three buttons: prev, next, OK. ``poll()`` returns one event code."""

    def __init__(self, prev_pin, next_pin, ok_pin, ticks_ms, active_low=True,
                 debounce_ms=DEBOUNCE_MS, long_ms=LONG_MS):
        self.ticks_ms = ticks_ms
        self.prev = Button(prev_pin, ticks_ms, active_low, debounce_ms, long_ms)
        self.next = Button(next_pin, ticks_ms, active_low, debounce_ms, long_ms)
        self.ok = Button(ok_pin, ticks_ms, active_low, debounce_ms, long_ms)

    def poll(self):
        """Sample all buttons; return the first pending event (PREV_SHORT ... OK_LONG)
        or NONE. Other pending events stay for the next poll."""
        now = self.ticks_ms()
        self.prev.update(now)
        self.next.update(now)
        self.ok.update(now)
        ev = self.prev.take()
        if ev:
            return event(KEY_PREV, ev)
        ev = self.next.take()
        if ev:
            return event(KEY_NEXT, ev)
        ev = self.ok.take()
        if ev:
            return event(KEY_OK, ev)
        return NONE
