"""The deck registry's UIDs: sorted slots, binary-searched, nothing allocated.

``lookup`` is called for every card seen during play, so the UIDs live in
preallocated storage: fixed 10-byte slots, their lengths and their values
(a registry value, table/registry.py ``pack``), kept sorted by (length,
bytes); the storage grows a deck's worth at a time as UIDs come, up to
``capacity``.  ``UidSlots`` is the registry's base: it knows slots, not decks.
"""
try:
    from micropython import const
except ImportError:  # CPython
    const = lambda x: x  # noqa: E731  (a def would clash with the stub's signature in pyright)

UID_MAX = const(10)
_GROW = const(36)                 # slots added when the storage is full (a deck's worth)


class UidSlots:
    """Up to ``capacity`` UIDs, each with a 16-bit value."""

    def __init__(self, capacity):
        self.capacity = capacity
        # the slots: grown a deck's worth at a time as UIDs come (a table with
        # one deck holds 468 bytes here, not the 4.7 KB of ``capacity`` slots)
        self._uids = bytearray(0)
        self._lens = bytearray(0)
        self._vals = bytearray(0)      # packed value, big-endian
        self._n = 0

    # ------------------------------------------------------------ the hot path

    # MicroPython puts a call's frame on the heap when it needs more than 11
    # slots (locals + value stack): so lookup and _cmp stay that small (the
    # mptest proves it with mem_total()).

    def _cmp(self, i, uid):
        """Sign of slot i - uid (ordered by length, then bytes)."""
        n = len(uid)
        d = self._lens[i] - n
        if d:
            return d
        i *= UID_MAX          # from here: the slot's first byte ...
        n += i                # ... and its end
        u = self._uids
        d = i                 # the uid's byte index, offset by i
        while i < n:
            if u[i] != uid[i - d]:
                return u[i] - uid[i - d]
            i += 1
        return 0

    def lookup(self, uid):
        """``deck_id * 64 + card`` of the tag ``uid`` (bytes, bytearray or a
        memoryview of exactly the UID, e.g. ``ReaderSet.uid_view(i)``), or -1.
        Allocates nothing."""
        i = self._search(uid)
        return self._val(i) if i >= 0 else -1

    # ------------------------------------------------------------ slots

    def _find(self, uid):
        """(found, index): the slot of uid, or where it would be inserted."""
        i = self._search(uid)
        return (True, i) if i >= 0 else (False, -1 - i)

    def _search(self, uid):
        """The slot of uid, or ``-1 - where it would be inserted`` (an int:
        the card-play path's lookup allocates nothing)."""
        lo = 0
        hi = self._n
        while lo < hi:
            mid = (lo + hi) >> 1
            c = self._cmp(mid, uid)
            if c < 0:
                lo = mid + 1
            elif c > 0:
                hi = mid
            else:
                return mid
        return -1 - lo

    def _val(self, i):
        return (self._vals[2 * i] << 8) | self._vals[2 * i + 1]

    def _uid(self, i):
        return bytes(self._uids[i * UID_MAX:i * UID_MAX + self._lens[i]])

    def _grow(self):
        """Room for one more slot (callers keep ``_n`` within ``capacity``)."""
        have = len(self._lens)
        if self._n < have:
            return
        more = _GROW if have + _GROW <= self.capacity else max(self.capacity - have, 1)
        self._uids = self._uids + bytearray(more * UID_MAX)
        self._lens = self._lens + bytearray(more)
        self._vals = self._vals + bytearray(2 * more)

    def _insert(self, pos, uid, packed):
        self._grow()
        n = self._n
        u = self._uids
        u[(pos + 1) * UID_MAX:(n + 1) * UID_MAX] = u[pos * UID_MAX:n * UID_MAX]
        self._lens[pos + 1:n + 1] = self._lens[pos:n]
        self._vals[2 * pos + 2:2 * n + 2] = self._vals[2 * pos:2 * n]
        u[pos * UID_MAX:pos * UID_MAX + len(uid)] = uid
        self._lens[pos] = len(uid)
        self._vals[2 * pos] = packed >> 8
        self._vals[2 * pos + 1] = packed & 255
        self._n = n + 1

    def _delete(self, pos):
        n = self._n
        u = self._uids
        u[pos * UID_MAX:(n - 1) * UID_MAX] = u[(pos + 1) * UID_MAX:n * UID_MAX]
        self._lens[pos:n - 1] = self._lens[pos + 1:n]
        self._vals[2 * pos:2 * n - 2] = self._vals[2 * pos + 2:2 * n]
        self._n = n - 1

    def _slot_of(self, packed):
        for i in range(self._n):
            if self._val(i) == packed:
                return i
        return -1
