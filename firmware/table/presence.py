"""Card presence arbiter: what the readers report in, settled card events out.

Sits between ``drivers.reader_set.ReaderSet`` and the game. After every poll of
reader i the application feeds what the set reports for it (``status[i]`` and
``uid_view(i)``; ``feed(readers, i, now)`` does exactly that) with the time
(``time.ticks_ms()`` modulo 2**30, compared wrap-safe), then drains the events:

    arb = Presence(readers.n)
    while True:
        for i in range(readers.n):
            readers.poll(i)
            arb.feed(readers, i, ticks_ms())
            while arb.pending():
                ev = arb.pop()          # EV_* code; arb.reader, arb.uid_view()
                ...

Events (``pop()`` returns the code; the reader and the UID of the event are in
``reader`` and ``uid[:uid_len]`` / ``uid_view()`` until the next ``pop()``):

========================  ==================================================
``EV_PLACED``             a card has settled on ``reader``: seen there, and
                          on no other reader, for ``settle_ms``
``EV_LIFTED``             the card placed on ``reader`` has gone: the reader
                          has not seen it for ``gone_ms`` (it reported empty
                          or another card, and no single read of it came
                          in between), or it has settled on another
                          reader (then this comes right before that
                          ``EV_PLACED``)
``EV_COLLISION``          ``reader`` reports two cards at once (no UID)
``EV_COLLISION_OVER``     ``reader`` reports one card or none again
``EV_FAULT``              ``reader`` reports ERROR (a dead or recovering
                          reader, or a card whose answers stay garbled)
``EV_BACK``               ``reader`` reports something else again
``EV_OVERFLOW``           the queue was full: events after this one were
                          lost (``overflows`` counts them); resynchronise
                          from ``placed_len(i)`` / ``placed_uid(i, buf)``
========================  ==================================================

Guarantees (tests/test_presence.py, tests/test_reader_chaos.py):

* one ``EV_PLACED`` per stay: the same UID reported again on the same reader
  (after a collision, a fault, a drop-out shorter than ``gone_ms``) is no new
  placement; a card placed there stays placed while the reader reports a
  collision or an error (the reader cannot tell, so nothing changes);
* a card is placed on at most one reader at any time: a UID that two readers
  report at once belongs to no new reader until exactly one reader has seen it
  for ``settle_ms``; then it is lifted from where it was placed and placed
  there (a card placed on reader A that reader B also reports stays placed on
  A, and nothing happens if it settles back on A);
* a card that goes before it settled causes no event at all;
* nothing is dropped silently: when the queue is full one ``EV_OVERFLOW``
  takes the last slot and every event that does not fit counts in
  ``overflows``.

Everything is preallocated in the constructor (UIDs of up to 10 bytes live in
bytearray slots); ``observe``/``feed``/``pop`` allocate nothing (proved with
``micropython.heap_lock()`` and ``mem_total()`` in tests/mp/mptest_presence.py).
Pure logic: no clock, no I/O, no chip driver (only the allocation-free
helpers ``drivers.nocopy`` and the wrap-safe ``drivers.ticks.ticks_diff``).
"""

try:
    from micropython import const
except ImportError:  # CPython
    const = lambda x: x  # noqa: E731

from drivers.nocopy import cp as _cp
from drivers.nocopy import eq as _eq
from drivers.ticks import ticks_diff

# reader states, as drivers.reader_set.ReaderSet reports them in status[i]
ABSENT = const(0)
PRESENT = const(1)
COLLISION = const(2)
ERROR = const(3)
OTHER = const(4)   # a sweep's look (ReaderSet.looks): a card answered, not the one looked for

# event codes
EV_NONE = const(0)
EV_PLACED = const(1)
EV_LIFTED = const(2)
EV_COLLISION = const(3)
EV_COLLISION_OVER = const(4)
EV_FAULT = const(5)
EV_BACK = const(6)
EV_OVERFLOW = const(7)

EVENT_NAMES = ("none", "placed", "lifted", "collision", "collision_over", "reader_fault",
               "reader_back", "overflow")

UID_MAX = const(10)



# MicroPython puts a call's frame on the heap when its locals + value stack
# exceed 11 words (and on the C stack while the heap is locked, where
# heap_lock() would not notice), so the functions below are kept small and the
# UID slots are reached through views made once (three-argument _eq/_cp);
# micropython.mem_total() in tests/mp/mptest_presence.py checks it.


class Presence:
    """The arbiter for ``n`` readers (see the module docstring).

    ``settle_ms``: how long a card must be seen on one reader alone before it is
    placed; ``gone_ms``: how long a placed card may be unseen (the reader
    reports empty or another card) before it is lifted; ``queue``: event slots.
    """

    def __init__(self, n, settle_ms=100, gone_ms=200, queue=16):
        if queue < 2:
            raise ValueError("queue needs 2 slots or more")
        self.n = n
        self.settle_ms = settle_ms
        self.gone_ms = gone_ms
        # what each reader reports now
        self._kind = bytearray(n)
        self._seen = bytearray(UID_MAX * n)
        self._seen_len = bytearray(n)
        self._since = [0] * n  # seen alone since
        self._amb = bytearray(n)  # the UID it sees is reported by another reader too
        # the card placed on each reader
        self._held = bytearray(UID_MAX * n)
        self._held_len = bytearray(n)
        self._gone = bytearray(n)
        self._gone_at = [0] * n
        self._fault = bytearray(n)
        self._coll = bytearray(n)
        # each reader's last single (raw) read and when it was last looked at:
        # a card settles only after every other reader has had a look since it
        # was first seen alone, and none of them caught it (two readers at once)
        self._raw = bytearray(UID_MAX * n)
        self._raw_len = bytearray(n)
        self._looked = [0] * n
        self._raw_at = [0] * n        # when the last single read's UID was first caught
        self._polled = bytearray(n)   # looked at at least once (readers in use)
        # the event ring
        self._q_code = bytearray(queue)
        self._q_reader = bytearray(queue)
        self._q_len = bytearray(queue)
        self._q_uid = bytearray(UID_MAX * queue)
        self._head = 0
        self._count = 0
        self.overflows = 0  # events lost because the queue was full
        # every event made, queued or lost (modulo 2**30): what is placed, a
        # collision or a fault changed -- a watcher compares it, not each reader
        self.changes = 0
        # the event last popped
        self.reader = 0
        self.uid = bytearray(UID_MAX)
        self.uid_len = 0
        mv = memoryview(self.uid)
        self._uidv = [mv[:k] for k in range(UID_MAX + 1)]
        self._seenv = _slots(self._seen, n)
        self._heldv = _slots(self._held, n)
        self._rawv = _slots(self._raw, n)
        self._qv = _slots(self._q_uid, queue)
        self._uid_none = self._uidv[0]

    # ---------------------------------------------------------------- input
    def feed(self, readers, i, now):
        """Observe what a ``ReaderSet`` reports for reader i after polling it: the
        raw read of that poll (``raw[i]``, ``raw_uid_view(i)``), then the debounced
        report (``status[i]``, ``uid_view(i)``)."""
        if readers.raw[i] == PRESENT:
            self.glimpse(i, readers.raw_uid_view(i), now)
        else:
            self.glimpse(i, self._uid_none, now)
        self.observe(i, readers.status[i], readers.uid_view(i), now)

    def glimpse(self, i, uid, now=None):
        """Reader i's last single read (not debounced) was this UID. It never places
        a card, but it proves that the card placed there is still there: its gone
        time starts again (a card that drops out now and then is not lifted while
        the reader still catches it between the drop-outs)."""
        n = len(uid)
        if n > UID_MAX:
            n = UID_MAX
        if now is not None and not (self._raw_len[i] == n and _eq(self._rawv[i], uid, n)):
            self._raw_at[i] = now          # a new single read: when it was first caught
        _cp(self._rawv[i], uid, n)
        self._raw_len[i] = n
        if n and self._held_len[i] == n and _eq(self._heldv[i], uid, n):
            self._gone[i] = 0

    def looked(self, i, now):
        """Reader i was looked at, at ``now``, for another reader's new card
        and did not catch it (``ReaderSet.wake``, ``select``): it counts as a look for
        settling that card (every other reader must have had one); what it
        reports and its last single read stand."""
        self._looked[i] = now
        self._polled[i] = 1

    def observe(self, i, status, uid, now):
        """Reader i reports ``status`` (ABSENT, PRESENT, COLLISION, ERROR) and, when
        PRESENT, the UID in ``uid`` (all of it: bytes, bytearray or memoryview of
        1..10 bytes) at time ``now`` (ticks_ms). Call it after every poll of the
        reader, changed or not: settling and lifting happen on these calls."""
        if status == PRESENT and not len(uid):
            status = ABSENT
        self._looked[i] = now
        self._polled[i] = 1
        self._edges(i, status)
        self._kind[i] = status
        if status == PRESENT:
            self._see(i, uid, now)
        else:
            self._seen_len[i] = 0
            self._amb[i] = 0
        if self._held_len[i]:
            self._check_held(i, now)
        if status == PRESENT:
            self._settle(i, now)

    def _edges(self, i, status):
        if status == ERROR:
            if not self._fault[i]:
                self._fault[i] = 1
                self._push(EV_FAULT, i, self._uid_none, 0)
            return
        if self._fault[i]:
            self._fault[i] = 0
            self._push(EV_BACK, i, self._uid_none, 0)
        if status == COLLISION:
            if not self._coll[i]:
                self._coll[i] = 1
                self._push(EV_COLLISION, i, self._uid_none, 0)
        elif self._coll[i]:
            self._coll[i] = 0
            self._push(EV_COLLISION_OVER, i, self._uid_none, 0)

    def _see(self, i, uid, now):
        n = len(uid)
        if n > UID_MAX:
            n = UID_MAX
        s = self._seenv[i]
        if self._seen_len[i] != n or not _eq(s, uid, n):
            _cp(s, uid, n)
            self._seen_len[i] = n
            self._since[i] = self._first_caught(i, now)
            self._amb[i] = 0
        if self._seen_elsewhere(i):
            self._amb[i] = 1
        elif self._amb[i]:  # alone from now on
            self._amb[i] = 0
            self._since[i] = now

    def _first_caught(self, i, now):
        """When reader i's single reads first caught the UID it now reports (the
        debounce's confirming polls count towards the settle time), else now."""
        n = self._seen_len[i]
        if self._raw_len[i] == n and _eq(self._rawv[i], self._seenv[i], n):
            return self._raw_at[i]
        return now

    def _seen_elsewhere(self, i):
        n = self._seen_len[i]
        s = self._seenv[i]
        j = self.n
        while j:
            j -= 1
            if j != i and self._seen_len[j] == n and _eq(self._seenv[j], s, n):
                return True
        return False

    def _holds_seen(self, i):
        n = self._held_len[i]
        return n == self._seen_len[i] and _eq(self._heldv[i], self._seenv[i], n)

    def _check_held(self, i, now):
        k = self._kind[i]
        if k == PRESENT and self._holds_seen(i):
            self._gone[i] = 0
            return
        if k != ABSENT and k != PRESENT:
            return  # a collision or an error: the reader cannot tell, keep it
        if not self._gone[i]:
            self._gone[i] = 1
            self._gone_at[i] = now
        if ticks_diff(now, self._gone_at[i]) >= self.gone_ms:
            self._lift(i)

    def _settle(self, i, now):
        if self._amb[i] or self._holds_seen(i):
            return
        if ticks_diff(now, self._since[i]) >= self.settle_ms \
                and self._all_looked(i) and not self._caught_elsewhere(i):
            self._take(i)

    def _all_looked(self, i):
        """Has every other reader in use been looked at since reader i saw its
        card alone?  (A card held over two readers is caught by the other one.)"""
        since = self._since[i]
        j = self.n
        while j:
            j -= 1
            if j != i and self._polled[j] and ticks_diff(self._looked[j], since) < 0:
                return False
        return True

    def _caught_elsewhere(self, i):
        """Did another reader's last single read catch the same UID?"""
        n = self._seen_len[i]
        j = self.n
        while j:
            j -= 1
            if j != i and self._raw_len[j] == n and _eq(self._rawv[j], self._seenv[i], n):
                return True
        return False

    def _take(self, i):
        """The UID reader i sees has settled there: lift it wherever else it is
        placed, lift what reader i held, place it on reader i."""
        n = self._seen_len[i]
        s = self._seenv[i]
        j = self.n
        while j:
            j -= 1
            if j != i and self._held_len[j] == n and _eq(self._heldv[j], s, n):
                self._lift(j)
        if self._held_len[i]:
            self._lift(i)
        _cp(self._heldv[i], s, n)
        self._held_len[i] = n
        self._gone[i] = 0
        self._push(EV_PLACED, i, s, n)

    def _lift(self, i):
        self._push(EV_LIFTED, i, self._heldv[i], self._held_len[i])
        self._held_len[i] = 0
        self._gone[i] = 0

    # ---------------------------------------------------------------- output
    def _room(self):
        """The ring slot for the next event, or -1 when the queue is full (the
        event is lost and counted). The last free slot gets the overflow mark."""
        cap = len(self._q_code)
        c = self._count
        if c >= cap - 1:
            self.overflows += 1
            if c >= cap:
                return -1
        t = self._head + c
        if t >= cap:
            t -= cap
        self._count = c + 1
        return t

    def _push(self, code, i, src, n):
        self.changes = (self.changes + 1) & 0x3FFFFFFF
        t = self._room()
        if t < 0:
            return
        if self._count == len(self._q_code):  # it took the last slot
            code = EV_OVERFLOW
            n = 0
        self._q_code[t] = code
        self._q_reader[t] = i
        self._q_len[t] = n
        _cp(self._qv[t], src, n)

    def pending(self):
        """Number of events waiting in the queue."""
        return self._count

    def pop(self):
        """The oldest event's code (EV_NONE when there is none); its reader and UID
        are in ``reader``, ``uid[:uid_len]`` / ``uid_view()`` until the next pop."""
        if not self._count:
            return EV_NONE
        h = self._head
        n = self._q_len[h]
        self.reader = self._q_reader[h]
        self.uid_len = n
        _cp(self.uid, self._qv[h], n)
        code = self._q_code[h]
        h += 1
        if h == len(self._q_code):
            h = 0
        self._head = h
        self._count -= 1
        return code

    def uid_view(self):
        """The UID of the event last popped, as a memoryview (no allocation)."""
        return self._uidv[self.uid_len]

    # ---------------------------------------------------------------- state
    def placed_len(self, i):
        """Length of the UID of the card placed on reader i; 0 if none."""
        return self._held_len[i]

    def missing(self, i):
        """The card placed on reader i has not been seen since its reader
        reported it gone (empty or another card): it is lifted once
        ``gone_ms`` have passed, unless it is seen again before."""
        return self._held_len[i] != 0 and self._gone[i] != 0

    def placed_uid(self, i, buf):
        """Copy the UID of the card placed on reader i into buf; its length (0: none)."""
        n = self._held_len[i]
        _cp(buf, self._heldv[i], n)
        return n

    def where(self, uid):
        """The reader the card with this UID is placed on, or -1."""
        n = len(uid)
        i = 0
        while i < self.n:
            if self._held_len[i] == n and _eq(self._heldv[i], uid, n):
                return i
            i += 1
        return -1

    def fault(self, i):
        """True while reader i reports ERROR."""
        return self._fault[i] != 0

    def collision(self, i):
        """True while reader i reports two cards."""
        return self._coll[i] != 0


def _slots(buf, n):
    """Views of the UID_MAX-byte slots of buf (made once)."""
    mv = memoryview(buf)
    return [mv[UID_MAX * k: UID_MAX * k + UID_MAX] for k in range(n)]
