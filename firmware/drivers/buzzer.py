"""Piezo buzzer on an injected PWM: non-blocking tone sequences.

``pwm`` is a ``machine.PWM`` (``freq(hz)``, ``duty_u16(d)``) on the device and
``host_sim.pins.PWMModel`` on the host; ``ticks_ms`` is injected. ``play(seq)``
starts a sequence and returns at once; ``update()`` (called from the main
loop) steps it when the current note's time is up. A sequence is a flat tuple
``(freq_hz, ms, freq_hz, ms, ...)``; frequency 0 is a rest (duty 0). Playing
and stepping allocate nothing.
"""

try:
    from micropython import const
except ImportError:  # CPython
    const = lambda x: x  # noqa: E731

# wrap-safe: the tick counter wraps at 2**30 ms on the device and in the simulator
from drivers.ticks import ticks_add, ticks_diff

_DUTY_HALF = const(32768)  # a square wave: loudest for a piezo

# (freq Hz, duration ms) pairs
ACCEPT = (2093, 60)  # C7 blip: card accepted
REJECT = (330, 140, 0, 60, 262, 220)  # low double buzz: card refused
TRICK_WON = (1047, 70, 1319, 70, 1568, 120)  # C6 E6 G6 arpeggio
DEAL_DONE = (1568, 90, 1319, 90, 1047, 90, 1568, 200)
ERROR = (200, 400)

SOUNDS = {"accept": ACCEPT, "reject": REJECT, "trick_won": TRICK_WON,
          "deal_done": DEAL_DONE, "error": ERROR}


class Buzzer:
    def __init__(self, pwm, ticks_ms, volume=_DUTY_HALF):
        self.pwm = pwm
        self.ticks_ms = ticks_ms
        self.volume = volume
        self.muted = False
        self._seq = ()
        self._i = 0  # index of the current note's frequency in _seq
        self._t0 = 0  # when the current note started
        self.pwm.duty_u16(0)

    @property
    def playing(self):
        return self._i < len(self._seq)

    def play(self, seq):
        """Start ``seq`` now (replacing any sequence still playing)."""
        self._seq = seq
        self._i = 0
        self._t0 = self.ticks_ms()
        self._note()

    def stop(self):
        self._seq = ()
        self._i = 0
        self.pwm.duty_u16(0)

    def _note(self):
        seq = self._seq
        if self._i >= len(seq):
            self.pwm.duty_u16(0)
            return
        f = seq[self._i]
        if f and not self.muted:
            self.pwm.freq(f)
            self.pwm.duty_u16(self.volume)
        else:
            self.pwm.duty_u16(0)

    def update(self):
        """Step the sequence; return True while it is still playing."""
        seq = self._seq
        if self._i >= len(seq):
            return False
        now = self.ticks_ms()
        # several notes may have ended since the last call: catch up
        while self._i < len(seq) and ticks_diff(now, self._t0) >= seq[self._i + 1]:
            self._t0 = ticks_add(self._t0, seq[self._i + 1])
            self._i += 2
            self._note()
        return self._i < len(seq)
