"""Which reader the readers job scans next, and the arbiter fed with it.

Two fields at a time, switched on in one step and scanned in the next, so a
field's 5 ms settle time passes between steps, never inside one: the seat on
turn's (``hot``, set by the application) at every step, with one of the
other readers in turn (where both hold a card, two scans reading one held
the loop 12-14 ms on the Pico: scanning the hot reader less often slowed
each lift there -- the dealing's and the enrolment's on the centre reader
-- and the others' less often each lift on theirs; docs/benchmarks.md).
A new card on the hot reader starts a sweep: every
reader's field is switched on as soon as the card answers the hot reader's
scan (``ReaderSet.ahead``: they settle while it is read; the reader rail is
sized for all fields on: hardware/README.md, power budget) and, once they
have settled -- mostly by the next step: the look gets a step of its own,
as the scan took 8 ms on the Pico -- every one of them is looked at
for the new card at once, their frames on air side by side: the WUPA to
all (``ReaderSet.wake``, 3 ms on the Pico for six readers), at the next step
the SELECT to those a card answered (``ReaderSet.select``, 4 ms and 0.9 ms
for each card lying on another reader; where one after the other took three
steps of 8-10 ms, and both halves in one step 11 ms with three cards lying):
a reader where no card answers read nothing (taken
as its scan), one holding a card of its own did not catch the new card (a
look), and the hot reader's card answering again is its confirming read --
taken after the others'; the look waits until the card has lain the
arbiter's settle time, so that read places it (every read counts from the
moment its scan began: the card answered then).  A reader whose answer does
not settle it (a card answering on a reader that read nothing, garbled
answers) is left, its field off, to the round's next scan of it (the card
then settles at the hot reader's next read after that).  A tag the console
placed (``inject``) starts no sweep: the round's reads settle it.  The
arbiter (table/presence.py) takes a card only when every other reader has
looked since it was first seen, so a card held over two readers belongs to
neither.

The methods are small on purpose: MicroPython puts a call's frame on the
heap when its locals and value stack exceed 11 words (136 bytes per poll,
200 polls a second, before the split; heap_lock() does not see it, the frame
goes on the C stack then: tests/mp/mptest_app_heap.py checks mem_total()).
"""

from drivers.ticks import ticks_diff

from . import presence as P


class ReaderRound:
    """The readers job's round over ``readers`` (drivers.reader_set.ReaderSet),
    feeding ``presence`` (table/presence.Presence) at ``ticks_ms()``."""

    def __init__(self, readers, presence, ticks_ms):
        self.readers = readers
        self.presence = presence
        self.ticks_ms = ticks_ms
        self.hot = 0                         # the seat on turn's reader (else the centre)
        self.polls = 0                       # steps since power-up
        self.first_at = 0                    # when the first step ran (ticks_ms)
        self.sweeping = 0                    # bit i: reader i armed for the sweep's look
        self._next = 0                       # the other reader scanned last
        self._seen = 0                       # bit i: reader i scanned since power-up
        self._armed = -1                     # the other reader whose field is settling
        self._hot_armed = -1                 # the hot reader's, switched on with it
        self._swept = -1                     # the hot reader whose unplaced card was swept for
        self._read_at = 0                    # when the hot reader read the card swept for
        self._scanned_at = 0                 # when the last scan began
        self._armed_at = 0                   # when the sweep switched the fields on
        self._woken = -1                     # the sweep's WUPA answered on these readers
                                             # (-1: not yet sent)
        self._field_ms = (readers.settle_us + 999) // 1000   # a field's settle time
        self._injected = [None] * readers.n  # inject(): a UID per reader, or None

    def step(self):
        """Scan the reader switched on one step ago (or the sweep's next), feed
        the arbiter (its ring queues the events), switch the next one on."""
        if not self.polls:
            self.first_at = self.ticks_ms()
        self.polls += 1
        if self.sweeping:
            self._sweep_step()
            return
        h = self._hot_armed
        if self._scan_hot():
            self._start_sweep()                # the look in the next step: the scan
            return                             # that read the card took 8 ms of this one
        if h >= 0 and self._held(h):
            return                             # the other's scan: the next step's
        if self._scan_other():
            self._start_sweep()
            return
        self._arm_next()

    def _held(self, h):
        """The reader h, just scanned as the hot one, read a card, and the
        other reader switched on read one at its last scan or was not yet
        scanned since power-up: two scans reading a card held the loop 12-14
        ms on the Pico (a trick's cards lying while the next leader's is on
        the hot one; at a power-up the cards lying, and the turn moving off h
        between its field and its scan as the game takes its journal up), so
        the other's waits for the next step, its field on, and the job does
        not wait for it (``wait``)."""
        o = self._armed
        raw = self.readers.raw
        return o >= 0 and raw[h] == P.PRESENT and (
            raw[o] == P.PRESENT or not self._seen >> o & 1)

    def _scan_hot(self):
        """Scan the reader switched on as the hot one a step ago (the fields
        of the others go on as soon as a new card answers it, ``_ahead``):
        whether a new card there starts a sweep."""
        h = self._hot_armed
        if h < 0:
            return False
        self._hot_armed = -1
        rs = self.readers
        rs.ahead = self._ahead(h) & ~(1 << self._armed if self._armed >= 0 else 0)
        self._scan(h)
        rs.ahead = 0
        if self._new_on_hot(h):
            return True
        if rs.ahead_armed:                     # a card answered, not a new one
            self._rest_ahead(h)
        return False

    def _scan_other(self):
        """Scan the other reader switched on a step ago: whether it read a new
        card on the hot reader (the turn moved there meanwhile)."""
        o = self._armed
        if o < 0:
            return False
        self._armed = -1
        self._scan(o)
        return self._new_on_hot(o)

    def inject(self, reader, uid):
        """From its next poll on, ``reader`` reports the tag ``uid`` (bytes)
        instead of what it reads (the console's place); None ends that."""
        self._injected[reader] = uid

    def injected(self, reader):
        """A tag injected on ``reader`` lies there."""
        return self._injected[reader] is not None

    def _scan(self, i):
        """Scan reader i and feed what it read, seen when the scan began (a
        card answers its first frame: on the Pico a scan reading one lasts
        8 ms, which counts towards the card's settle time)."""
        rs = self.readers
        now = self.ticks_ms()
        self._scanned_at = now
        self._seen |= 1 << i
        rs.poll(i)
        uid = self._injected[i]
        if uid is None:
            self.presence.feed(rs, i, now)
        else:                                  # a tag the console placed (debugging)
            self._scan_injected(i, uid)

    def _scan_injected(self, i, uid):
        now = self.ticks_ms()
        self.presence.glimpse(i, uid, now)
        self.presence.observe(i, P.PRESENT, uid, now)

    def _new_on_hot(self, i):
        """A card on the hot reader that is not placed and not yet swept for
        (a card the sweep left unplaced -- held over two readers -- waits for
        the normal round: no sweep after sweep, no busy loop)."""
        if i != self.hot or self._injected[i] is not None:
            return False                       # (a tag the console placed: the round's)
        if self.readers.raw[i] != P.PRESENT or self.presence.placed_len(i):
            if self._swept == i:
                self._swept = -1
            return False
        return self._swept != i

    def _ahead(self, i):
        """The readers whose fields the scan of reader i switches on as soon as
        a card answers it (``ReaderSet.ahead``): every other one when a new
        card there would start a sweep -- they settle while it is read."""
        if i != self.hot or self._injected[i] is not None or self._swept == i \
                or self.presence.placed_len(i) or self.readers.keep_field:
            return 0
        return ((1 << self.readers.n) - 1) & ~(1 << i)

    def _rest_ahead(self, i):
        """The fields the scan of reader i switched on ahead, and its own, off:
        no sweep follows."""
        rs = self.readers
        armed = rs.ahead_armed | 1 << i
        j = 0
        while j < rs.n:
            if armed >> j & 1:
                rs.rest(j)
            j += 1

    def _start_sweep(self):
        """Every reader's field on now (those the scan switched on ahead are):
        the next steps look at all of them."""
        rs = self.readers
        ahead = rs.ahead_armed
        self._armed_at = rs.ahead_at if ahead else self.ticks_ms()
        if ahead:
            ahead |= 1 << self.hot             # its field stayed on
        i = rs.n
        while i:
            i -= 1
            if not ahead >> i & 1:
                rs.arm(i)
        self.sweeping = (1 << rs.n) - 1
        self._armed = -1
        self._hot_armed = -1
        self._swept = self.hot
        self._read_at = self._scanned_at

    def _sweep_step(self):
        """The sweep's step: every reader looked at once, when the card has
        lain long enough (``wait``)."""
        if not self.wait(0):
            self._looks()

    def _looks(self):
        """Every reader looked at for the hot reader's card at once, in two
        steps: the WUPA to all (``ReaderSet.wake``), then the SELECT to those
        a card answered (``ReaderSet.select``: each reader holding a card of
        its own costs 0.9 ms there; both in one step held the loop 11 ms on
        the Pico with three cards lying); the hot reader's answer taken after
        the others'.  An answer that does not settle its reader (a card on a
        reader that read nothing, a card of its own that did not answer,
        garbled answers) leaves the reader to the round's next scan of it,
        its field off: a scan right after the look would find the cards it
        woke neither idle nor powered up anew."""
        rs = self.readers
        hot = self.hot
        if hot != self._swept or not len(rs.raw_uid_view(hot)):
            self._woken = -1
            self._drop_sweep()                 # the turn moved on meanwhile (an undo)
            return
        if self._woken < 0:
            self._scanned_at = self.ticks_ms()   # the look's answers: seen when it began
            self._woken = rs.wake(hot, self.sweeping)
            return
        now = self._scanned_at
        rs.select(self._woken)
        self._woken = -1
        i = 0
        while i < rs.n:
            if i != hot:
                self._take_look(i, rs.looks[i], now)
            i += 1
        r = rs.looks[hot]
        self._done(hot)
        if (r == P.PRESENT and rs.confirming(hot)) or r == P.ABSENT:
            rs.record(hot, r)                  # its confirming read (or the card gone)
            self.presence.feed(rs, hot, now)

    def _take_look(self, i, r, now):
        """Reader i's answer to the sweep's look, taken where it settles the reader."""
        self._done(i)
        uid = self._injected[i]
        if uid is not None:                    # a tag the console placed lies there
            self._scan_injected(i, uid)
        elif self.readers.down(i):             # its poll costs no bus time: a look
            self._scan(i)
        elif self.readers.raw[i] == P.PRESENT:     # it holds a card of its own
            self._held_look(i, r, now)
        elif r == P.ABSENT:                    # it read nothing and nothing answered
            self._empty_look(i, now)

    def _empty_look(self, i, now):
        """No card answered reader i's look: its scan, read nothing.  Where
        it read and reported nothing already (``quiet``, no card placed), that
        changes nothing but the arbiter's look (0.7 ms less a reader on the
        Pico than recording and feeding it)."""
        rs = self.readers
        if rs.quiet(i) and not self.presence.placed_len(i):
            self.presence.looked(i, now)
        else:
            rs.record(i, P.ABSENT)
            self.presence.feed(rs, i, now)

    def _held_look(self, i, r, now):
        """Reader i holds a card of its own: the new card answered there too
        (a glimpse of it: it settles nowhere), or only its own (a look)."""
        if r == P.PRESENT:
            self.presence.glimpse(i, self.readers.raw_uid_view(self.hot), now)
        if r == P.PRESENT or r == P.OTHER:
            self.presence.looked(i, now)

    def _drop_sweep(self):
        """Every reader out of the sweep, unlooked: the round scans them."""
        i = 0
        while self.sweeping:
            if self.sweeping >> i & 1:
                self._done(i)
            i += 1

    def _done(self, i):
        """Reader i is out of the sweep: its field off."""
        self.sweeping &= ~(1 << i)
        self.readers.rest(i)

    def wait(self, period):
        """How long the readers job waits after a step (``App.wait_after``):
        ``period``; during a sweep not at all -- but the look at every reader
        waits until the card has lain the arbiter's settle time (its
        confirming read places it); after a step that left the other
        reader's scan to the next (``_held``) not at all either: its field is
        on and settled, and the loop is as quick as with both scans in one."""
        if not self.sweeping:
            return 0 if self._armed >= 0 and self._hot_armed < 0 else period
        now = self.ticks_ms()
        card = self.presence.settle_ms - ticks_diff(now, self._read_at)
        field = self._field_ms - ticks_diff(now, self._armed_at)
        left = card if card > field else field
        return left if left > 0 else 0

    def _arm_next(self):
        """The hot reader's field and the next other one's on, for the next
        step's scans (two fields at a time)."""
        rs = self.readers
        i = (self._next + 1) % rs.n            # the others in turn, skipping the hot one
        if i == self.hot:
            i = (i + 1) % rs.n
        self._next = i
        rs.arm(self.hot)
        self._hot_armed = self.hot
        if i != self.hot:                      # (one reader alone: it is the hot one)
            rs.arm(i)
            self._armed = i
