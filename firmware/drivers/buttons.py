"""Debounced push buttons with short and long presses, polled, with edges latched.

Pins and the clock are injected: ``pin.value()`` reads the level and
``ticks_ms()`` returns milliseconds (``time.ticks_ms`` on the device, a fake
clock in tests). Differences use ``drivers.ticks.ticks_diff``, so the wrap of
the tick counter (2**30 ms, on the device and in the simulator) is handled.

A press counts once the contact has been closed for ``debounce_ms``, a
release once it has been open for ``release_ms``; bounces shorter than that
are ignored.  The release is quicker on purpose -- a short press acts when
let go, so its debounce is part of every press's answer: the BOM's switch
bounces at most 5 ms (Omron B3F datasheet), and a longer bounce after a
release cannot make a second press (that needs ``debounce_ms`` closed).

A press that is released before ``long_ms`` gives one SHORT event on
release; a press held for ``long_ms`` gives one LONG event at that moment
(immediate feedback) and nothing on release.

Where the pins have interrupts (below), a level's time counts from its edge,
not from the sample that first saw it: a release is taken at the first
sample ``release_ms`` after the contact opened (one sample sooner: on the
Pico's 5-10 ms loop a press answered some 5 ms sooner).

Polling alone loses a press that begins and ends between two samples (a
loop step longer than the press: a person taps a button for 60-100 ms).  So
where the pins have interrupts, ``ButtonPad.latch_edges`` has each pin's
edges noted by ``Button.edge`` (a hard IRQ: it allocates nothing), and a
press the samples missed -- down and up again, at least ``debounce_ms``
apart -- still gives its event at the next sample.

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
RELEASE_MS = const(5)
LONG_MS = const(700)


class Button:
    """One debounced button on an injected pin (active low with pull-up by default)."""

    def __init__(self, pin, ticks_ms, active_low=True, debounce_ms=DEBOUNCE_MS,
                 long_ms=LONG_MS, release_ms=RELEASE_MS):
        self.pin = pin
        self.ticks_ms = ticks_ms
        self.active = 0 if active_low else 1
        self.debounce_ms = debounce_ms
        self.release_ms = min(release_ms, debounce_ms)
        self.long_ms = long_ms
        now = ticks_ms()
        raw = 1 if pin.value() == self.active else 0
        self.pressed = raw  # debounced state: 1 = pressed
        self._raw = raw  # last raw reading
        self._since = now  # when the raw reading last changed
        self._down_at = now  # when the debounced press began
        self._long_sent = raw  # held at start-up: no event until released
        self.event = NONE  # pending event, cleared by take()
        self._edge_down = -1   # when an interrupt saw the press begin (-1: none)
        self._edge_up = -1     # when it then saw the release (-1: none)
        self._edge_at = -1     # when an interrupt saw the level change last (-1: never)
        self._sampled = now    # when ``update`` last sampled the pin

    def edge(self, pin):
        """Pin interrupt on both edges: note when a press begins and when it ends,
        so that ``update`` finds a press that fell between two of its samples.
        Runs as a hard IRQ: reads and stores small ints only."""
        now = self.ticks_ms()
        self._edge_at = now
        if pin.value() == self.active:
            if self._edge_down < 0:
                self._edge_down = now
        elif self._edge_down >= 0:
            self._edge_up = now      # the last release edge (after any bounce)

    def update(self, now):
        """Sample the pin at time ``now``; a new event goes to ``self.event``."""
        raw = 1 if self.pin.value() == self.active else 0
        if raw != self._raw:
            self._raw = raw
            self._since = self._level_began(now)
        self._sampled = now
        if raw != self.pressed and ticks_diff(now, self._since) >= (
                self.debounce_ms if raw else self.release_ms):
            self.pressed = raw
            self._edge_down = self._edge_up = -1    # the samples took this press
            if raw:
                self._down_at = self._since  # the press began when the level settled
                self._long_sent = 0
            elif not self._long_sent:
                self.event = SHORT
        if not raw and not self.pressed and self._edge_up >= 0:
            self._missed_press()
        if (self.pressed and not self._long_sent
                and ticks_diff(now, self._down_at) >= self.long_ms):
            self._long_sent = 1
            self.event = LONG
        return self.event

    def _level_began(self, now):
        """When the level this sample read began: at the pin's last edge, where
        an interrupt noted one since the last sample, else now.  So a release
        counts ``release_ms`` after the contact opened, not after the sample
        that saw it (a press's answer ~5 ms sooner with a 5-10 ms loop)."""
        at = self._edge_at
        if at >= 0 and ticks_diff(at, self._sampled) >= 0 and ticks_diff(now, at) >= 0:
            return at
        return now

    def latch(self, trigger):
        """Have the pin's interrupt call ``edge`` (where the pin has one)."""
        irq = getattr(self.pin, "irq", None)
        if irq is not None:
            irq(handler=self.edge, trigger=trigger, hard=True)

    def _missed_press(self):
        """A press the interrupts saw begin and end between two samples: its
        event if it lasted ``debounce_ms`` (shorter is a bounce or a glitch)."""
        held = ticks_diff(self._edge_up, self._edge_down)
        self._edge_down = self._edge_up = -1
        if held >= self.debounce_ms:
            self.event = LONG if held >= self.long_ms else SHORT

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
                 debounce_ms=DEBOUNCE_MS, long_ms=LONG_MS, release_ms=RELEASE_MS):
        self.ticks_ms = ticks_ms
        self.prev = Button(prev_pin, ticks_ms, active_low, debounce_ms, long_ms, release_ms)
        self.next = Button(next_pin, ticks_ms, active_low, debounce_ms, long_ms, release_ms)
        self.ok = Button(ok_pin, ticks_ms, active_low, debounce_ms, long_ms, release_ms)

    def latch_edges(self, trigger):
        """Have each pin's interrupt (``trigger``: both edges, e.g.
        ``Pin.IRQ_FALLING | Pin.IRQ_RISING``) note the presses the samples
        could miss (``Button.edge``).  Pins without interrupts stay polled."""
        self.prev.latch(trigger)
        self.next.latch(trigger)
        self.ok.latch(trigger)

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
