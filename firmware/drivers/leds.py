"""One WS2812 LED per seat, coloured by the seat's state, with brightness scaling.

The strip is injected: on the device a ``neopixel.NeoPixel`` (``np[i] = (r, g, b)``
and ``np.write()``), on the host ``host_sim.pins.NeoPixelModel``. Colours are
full-scale RGB per state; ``brightness`` (0..255) scales them once, when it is
set, into a table of tuples, so ``set()`` and ``show()`` allocate nothing.
``show()`` writes the strip only when something changed.
"""

try:
    from micropython import const
except ImportError:  # CPython
    const = lambda x: x  # noqa: E731


OFF = const(0)
IDLE = const(1)  # seat taken, waiting
TURN = const(2)  # this seat plays next
PLAYED = const(3)  # card accepted on this seat's reader
REFUSED = const(4)  # illegal card / error at this seat
WINNER = const(5)  # this seat won the trick
DEALER = const(6)
FLAG = const(7)  # open mode: irregularity proven against this seat
BIDDING = const(8)  # this seat is asked in the auction

STATE_NAMES = ("off", "idle", "turn", "played", "refused", "winner", "dealer", "flag",
               "bidding")

# full-scale (r, g, b) per state, indexed by the constants above
COLOURS = (
    (0, 0, 0),  # off
    (40, 40, 40),  # idle: dim white
    (0, 0, 255),  # turn: blue
    (0, 255, 0),  # played: green
    (255, 0, 0),  # refused: red
    (255, 180, 0),  # winner: gold
    (160, 0, 255),  # dealer: violet
    (255, 60, 0),  # flag: orange
    (0, 200, 200),  # bidding: cyan
)

_DEFAULT_BRIGHTNESS = const(64)


class SeatLeds:
    """Per-seat state colours on an injected NeoPixel-like strip."""

    def __init__(self, np, nseats, brightness=_DEFAULT_BRIGHTNESS):
        self.np = np
        self.nseats = nseats
        self.states = bytearray(nseats)  # OFF
        self._scaled = list(COLOURS)
        self.brightness = -1
        self._dirty = True
        self.set_brightness(brightness)

    def set_brightness(self, level):
        """0..255; rebuilds the scaled colour table (allocates; not a hot path)."""
        level = 0 if level < 0 else (255 if level > 255 else level)
        if level == self.brightness:
            return
        self.brightness = level
        for i, (r, g, b) in enumerate(COLOURS):
            self._scaled[i] = (r * level // 255, g * level // 255, b * level // 255)
        self._dirty = True

    def colour(self, state):
        """The (r, g, b) actually sent for ``state`` at the current brightness."""
        return self._scaled[state]

    def set(self, seat, state):
        if self.states[seat] != state:
            self.states[seat] = state
            self._dirty = True

    def set_all(self, state):
        i = 0
        while i < self.nseats:
            self.set(i, state)
            i += 1

    def show(self, force=False):
        """Write the strip if anything changed; return True when it wrote."""
        if not (self._dirty or force):
            return False
        np = self.np
        scaled = self._scaled
        states = self.states
        i = 0
        while i < self.nseats:
            np[i] = scaled[states[i]]
            i += 1
        np.write()
        self._dirty = False
        return True
