"""Which reader the readers job scans next, and the arbiter fed with it.

One field at a time, switched on in one step and scanned in the next, so the
field's 5 ms settle time passes between steps, never inside one: the seat on
turn (``hot``, set by the application) every other step, the other readers
in turn.  A new card on the hot reader starts a sweep: every reader's field
is switched on at once (the reader rail is sized for all fields on:
hardware/README.md, power budget) and the next steps look at them, up to
``SWEEP_WORK`` a step: a reader that read nothing last time is scanned (3 ms
on the Pico), one holding a card of its own only looked at for the new card
(``ReaderSet.holds``: 8 ms, where a scan reading a card takes 12), the hot
reader last (its second read only re-selects the card: ReaderSet); the
application's loop does not wait between those steps (``App.wait_after``).  The arbiter
(table/presence.py) takes a card only when every other reader has looked
since it was first seen, so a card held over two readers belongs to neither.

The methods are small on purpose: MicroPython puts a call's frame on the
heap when its locals and value stack exceed 11 words (136 bytes per poll,
200 polls a second, before the split; heap_lock() does not see it, the frame
goes on the C stack then: tests/mp/mptest_app_heap.py checks mem_total()).
"""

from . import presence as P

# A sweep step's work: the scan of a reader that read nothing last time 1
# (3 ms on the Pico), a look at one that holds a card or the hot reader's
# confirming read 2 (8 ms): three empty readers a step, or one of each.
SWEEP_WORK = 3


class ReaderRound:
    """The readers job's round over ``readers`` (drivers.reader_set.ReaderSet),
    feeding ``presence`` (table/presence.Presence) at ``ticks_ms()``."""

    def __init__(self, readers, presence, ticks_ms):
        self.readers = readers
        self.presence = presence
        self.ticks_ms = ticks_ms
        self.hot = 0                         # the seat on turn's reader (else the centre)
        self.polls = 0                       # steps since power-up
        self.sweeping = 0                    # bit i: reader i armed for the sweep, not yet scanned
        self._next = 0                       # the other reader scanned last
        self._armed = -1                     # the reader whose field is settling
        self._swept = -1                     # the hot reader whose unplaced card was swept for
        self._injected = [None] * readers.n  # inject(): a UID per reader, or None

    def step(self):
        """Scan the reader switched on one step ago (or the sweep's next), feed
        the arbiter (its ring queues the events), switch the next one on."""
        self.polls += 1
        if self.sweeping:
            self._sweep_step()
            return
        armed = self._armed
        if armed >= 0:
            self._scan(armed)
            if self._new_on_hot(armed):
                self._start_sweep()
                return
        self._arm_next()

    def inject(self, reader, uid):
        """From its next poll on, ``reader`` reports the tag ``uid`` (bytes)
        instead of what it reads (the console's place); None ends that."""
        self._injected[reader] = uid

    def injected(self, reader):
        """A tag injected on ``reader`` lies there."""
        return self._injected[reader] is not None

    def _scan(self, i):
        rs = self.readers
        rs.poll(i)
        uid = self._injected[i]
        if uid is None:
            self.presence.feed(rs, i, self.ticks_ms())
        else:                                  # a tag the console placed (debugging)
            self._scan_injected(i, uid)

    def _look(self, i):
        """Reader i holds a card of its own: does it hold the hot reader's new
        one too (held over both)?  A look for that card (``holds``: WUPA and
        its SELECTs, 5 ms on the Pico where a scan reading a card takes 12);
        a scan when it cannot tell."""
        rs = self.readers
        r = rs.holds(i, self.hot)
        if r == P.ERROR:
            self._scan(i)
            return
        now = self.ticks_ms()
        if r == P.PRESENT:                     # caught there too: it settles nowhere
            self.presence.glimpse(i, rs.raw_uid_view(self.hot), now)
        self.presence.looked(i, now)

    def _scan_injected(self, i, uid):
        now = self.ticks_ms()
        self.presence.glimpse(i, uid, now)
        self.presence.observe(i, P.PRESENT, uid, now)

    def _new_on_hot(self, i):
        """A card on the hot reader that is not placed and not yet swept for
        (a card the sweep left unplaced -- held over two readers -- waits for
        the normal round: no sweep after sweep, no busy loop)."""
        if i != self.hot:
            return False
        if self.readers.raw[i] != P.PRESENT or self.presence.placed_len(i):
            if self._swept == i:
                self._swept = -1
            return False
        return self._swept != i

    def _start_sweep(self):
        """Every reader's field on now: the next steps look at all of them."""
        rs = self.readers
        i = rs.n
        while i:
            i -= 1
            rs.arm(i)
        self.sweeping = (1 << rs.n) - 1
        self._armed = -1
        self._swept = self.hot

    def _sweep_step(self):
        """Look at the sweep's next readers, up to ``SWEEP_WORK`` a step."""
        spent = 0
        while self.sweeping:
            i = self._sweep_next()
            cost = 2 if self.readers.raw[i] == P.PRESENT else 1
            if spent + cost > SWEEP_WORK:
                self.sweeping |= 1 << i            # the next step's
                return
            self._sweep_look(i)
            if cost == 1 and self.readers.raw[i] == P.PRESENT:
                return                             # it read a card after all: 12 ms, enough
            spent += cost

    def _sweep_look(self, i):
        if i != self.hot and self.readers.raw[i] == P.PRESENT and self._injected[i] is None:
            self._look(i)
        else:
            self._scan(i)

    def _sweep_next(self):
        """The sweep's next reader (taken off the set): the others in order, then the hot one."""
        hot = self.hot
        mask = self.sweeping & ~(1 << hot)
        i = 0
        if mask:
            while not mask & (1 << i):
                i += 1
        else:
            i = hot
        self.sweeping &= ~(1 << i)
        return i

    def _arm_next(self):
        rs = self.readers
        i = self.hot
        if not self.polls & 1:                 # the others in turn, skipping the hot one
            i = (self._next + 1) % rs.n
            if i == self.hot:
                i = (i + 1) % rs.n
            self._next = i
        rs.arm(i)
        self._armed = i
