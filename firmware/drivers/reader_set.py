"""Several MFRC522 readers on one SPI bus: debounced reports, readers that recover.

The table's policy over the chip driver (drivers/mfrc522.py, which only
talks to one chip): which scans count as a card placed or lifted, and what
is done when a reader misbehaves.

``ReaderSet`` debounces: a card counts once it was seen with the same UID in
``confirm`` consecutive polls (default 2), it is gone after ``release``
consecutive misses (default 3); ERROR polls are neither a miss nor a sighting,
``error_polls`` of them in a row (default 3) report ERROR.

Readers recover. After an ERROR or COLLISION scan the set asks the chip
whether it still holds the configuration ``init()`` wrote
(``MFRC522.check()``: TModeReg and TReloadReg in one read transaction). A
supply dip resets every register, so an empty reader then never finishes a
frame (no timer), a new card's SELECT carries a wrong CRC, and every answer
shows it (TModeReg is read with FIFOLevelReg in the same transaction); a reader
that stopped answering reads 0x00 (ERROR) or 0xFF (COLLISION). Such a
*reader fault* (as opposed to a garbled card, which keeps its ERROR debounce) is
counted (``faults(i)``) and the reader re-initialised at once (SoftReset, no
hard reset: the reset pin is shared). If that fails the reader is *down*: it
reports ERROR, polls of it cost no bus traffic and return at once, and it is
re-initialised again after ``retry_ms`` (100 ms), doubling up to
``retry_max_ms`` (2 s), on the injected ``ticks_ms`` clock -- nothing ever
sleeps for a back-off. Each successful re-initialisation is counted
(``recoveries(i)``); the reported state then goes from ERROR straight to the
debounced truth (PRESENT after ``confirm`` sightings or ABSENT after
``release`` misses), never through a premature ABSENT. Readers that failed
``init()`` at start-up are down in the same way, so a reader plugged in late
joins the game.

Nothing from before a reset is reported after it. A reader re-initialised at
once (the usual supply dip) keeps its report only if its next scan reads the
same card again -- a card that stayed goes unnoticed; any other result (another
card, none, a garbled answer) withdraws the report at once (ABSENT), and the
new card is confirmed as usual. ``init()`` clears the chip driver's last UID
and its cached SELECT/SAK checks (``MFRC522.forget``).

Ticks are ``time.ticks_ms()`` values taken modulo 2**30 (``ticks_ms()`` below;
the RP2040's own period) and compared with the wrap-safe ``ticks_diff()``.

Wiring (only main.py knows the board; pins come from boards/)::

    readers = ReaderSet([MFRC522(spi, cs) for cs in seat_cs_pins], rst=reset_pin)
    readers.init()                      # number of readers that passed the self-check
    while True:
        changed = readers.poll_all()    # bit i: reader i's reported state changed
        for i in range(readers.n):
            if changed & (1 << i):
                handle(i, readers.status[i], readers.uid_view(i))
    # health per reader: readers.down(i), faults(i), recoveries(i), errors(i)

The table application feeds every poll's result to ``table.presence.Presence``
(``feed(readers, i, now)``), which turns these debounced reports into settled
placed/lifted events.

Everything a poll touches is allocated in the constructor: ``poll()`` and
``poll_all()`` allocate nothing (proved with ``micropython.heap_lock()`` by
tests/mp/mptest_mfrc522.py).
"""
from drivers.mfrc522 import (
    ABSENT,
    COLLISION,
    ERROR,
    PRESENT,
    UID_MAX,
    default_sleep_us,
    hard_reset_pin,
)
from drivers.nocopy import cp as _cp
from drivers.nocopy import eq as _eq
from drivers.ticks import ticks_diff
from drivers.ticks import ticks_ms as default_ticks_ms


class ReaderSet:
    """Several MFRC522 on one bus (shared reset), polled one at a time, debounced.

    After ``poll(i)`` the reported state of reader i is ``status[i]`` (ABSENT,
    PRESENT, COLLISION, ERROR) and, when PRESENT, ``uid_view(i)`` / ``uid(i)``.
    A reader whose chip was reset by a supply dip or stopped answering is
    re-initialised with a back-off (module docstring); ``down(i)``,
    ``faults(i)``, ``recoveries(i)`` and ``errors(i)`` tell the application.
    """

    def __init__(self, readers, rst=None, confirm=2, release=3, error_polls=3,
                 settle_us=5000, keep_field=False, sleep_us=None, ticks_ms=None,
                 retry_ms=100, retry_max_ms=2000):
        self.readers = readers
        self._rst = rst
        self._sleep = sleep_us if sleep_us is not None else default_sleep_us
        self._ticks = ticks_ms if ticks_ms is not None else default_ticks_ms
        n = len(readers)
        self.n = n
        self.confirm = confirm
        self.release = release
        self.error_polls = error_polls
        self.settle_us = settle_us
        self.keep_field = keep_field   # the board's power budget decides (fields_on)
        self.retry_ms = retry_ms
        self.retry_max_ms = retry_max_ms
        self.status = bytearray(n)  # reported (debounced) state
        self.raw = bytearray(n)  # result of the last scan
        self.uid_lens = bytearray(n)
        self.uids = bytearray(UID_MAX * n)
        self._cand = bytearray(UID_MAX * n)  # candidate being confirmed
        self._cand_len = bytearray(n)
        self._cand_kind = bytearray(n)
        self._seen = bytearray(n)
        self._miss = bytearray(n)
        self._errs = bytearray(n)
        # recovery: down flag, when it went down / last retried, current back-off
        self._down = bytearray(n)
        self._fresh = bytearray(n)  # re-initialised, no clean scan since
        self._stale = bytearray(n)  # re-initialised: the report predates the reset
        self._down_at = [0] * n
        self._backoff = [0] * n
        self._faults = [0] * n
        self._recoveries = [0] * n
        self._errors = [0] * n
        self.looks = bytearray(n)  # ``sweep``'s answer per reader
        # a poll's early sweep: readers whose fields go on as soon as a card
        # answers the polled reader's first frame (``ahead``), those it
        # switched on (``ahead_armed``) and when (``ahead_at``, ticks_ms)
        self.ahead = 0
        self.ahead_armed = 0
        self.ahead_at = 0
        self._src = None  # a sweep's look: the reader whose card it looks for
        self._k = -1  # and the frame going out (-1 WUPA, k the SELECT of level k)
        self._src_bit = 0  # (that reader's bit)
        mv = memoryview(self.uids)
        # views of each reader's UID for the lengths 0, 4, 7, 10 (index: length // 3)
        self._views = [[mv[UID_MAX * i: UID_MAX * i + k] for k in (0, 4, 7, 10)]
                       for i in range(n)]
        self._uidv = [mv[UID_MAX * i:] for i in range(n)]
        mv = memoryview(self._cand)
        self._candv = [mv[UID_MAX * i:] for i in range(n)]
        # views of each reader's last read UID (MFRC522.uid), lengths 0, 4, 7, 10
        self._raw_views = [[memoryview(rd.uid)[:k] for k in (0, 4, 7, 10)] for rd in readers]

    def init(self):
        """Hard-reset all readers once (shared pin), then init each; count of usable ones.

        A reader that fails is down (ERROR) and retried by ``poll`` with the back-off.
        """
        if self._rst is not None:
            hard_reset_pin(self._rst, self._sleep)
        good = 0
        for i in range(self.n):
            self._restart(i)
            self._down[i] = 0
            self._fresh[i] = 0
            self._stale[i] = 0
            self._backoff[i] = 0
            self.uid_lens[i] = 0
            if self.readers[i].init(hard_reset=False):
                good += 1
                self.status[i] = ABSENT
            else:
                self.status[i] = ERROR
                self._faults[i] += 1
                self._go_down(i, self._ticks())
        return good

    def uid_view(self, i):
        """The reported UID of reader i as a memoryview (no allocation); empty if none."""
        return self._views[i][self.uid_lens[i] // 3]

    def uid(self, i):
        """The reported UID of reader i as bytes (allocates; for the app, not the poll path)."""
        return bytes(self.uid_view(i))

    def raw_uid_view(self, i):
        """The UID the last scan of reader i read (when ``raw[i]`` is PRESENT): one
        read, not debounced, as a memoryview (no allocation)."""
        return self._raw_views[i][self.readers[i].uid_len // 3]

    def down(self, i):
        """True while reader i is waiting to be re-initialised (it reports ERROR)."""
        return self._down[i] != 0

    def faults(self, i):
        """How often reader i went down: it failed init(), or lost its configuration
        (a supply dip) or stopped answering in the middle of the game."""
        return self._faults[i]

    def recoveries(self, i):
        """How often reader i was re-initialised successfully after a fault."""
        return self._recoveries[i]

    def errors(self, i):
        """How many scans of reader i ended in ERROR (garbled answers) or found the
        chip faulty."""
        return self._errors[i]

    def arm(self, i):
        """Switch reader i's field on now (no sleep).  A ``poll(i)`` at least
        ``settle_us`` later then scans at once: the application splits each poll
        around the field's settle time instead of blocking the loop in it."""
        if not self._down[i]:
            self.readers[i].antenna(True)

    def poll(self, i):
        """Scan reader i once and debounce; 1 if its reported state changed, else 0.

        A down reader is only re-initialised, when its back-off has run out (then
        scanned in the same poll if that worked); before that the poll returns 0
        at once, without bus traffic.
        """
        self.ahead_armed = 0
        if self._down[i]:
            now = self._ticks()
            if ticks_diff(now, self._down_at[i]) < self._backoff[i]:
                return 0
            if not self._revive(i):
                self._go_down(i, now)
                return 0
        raw = self._read(i, self.readers[i])
        rd = self.readers[i]
        self.raw[i] = raw
        if raw == ERROR or raw == COLLISION:
            # a dead chip reads 0x00 (never finishes: ERROR) or 0xFF (every error
            # bit, CollErr among them: COLLISION); a reset one never finishes either
            if not rd.check():
                self._errors[i] += 1
                return self._fault(i)
        if self._stale[i]:
            return self._after_reset(i, raw, rd) | self._judge(i, raw, rd)
        return self._judge(i, raw, rd)

    def _judge(self, i, raw, rd):
        """Debounce one scan's result ``raw`` of reader i; 1 if the report changed."""
        if raw == ERROR:
            self._errors[i] += 1
            self._miss[i] = 0  # something answered: never a miss
            return self._failed(i)
        if self._fresh[i]:  # the first clean scan since a re-init: healthy again
            self._fresh[i] = 0
            self._backoff[i] = 0
        if raw == ABSENT:
            return self._missed(i)
        self._miss[i] = 0
        self._errs[i] = 0
        return self._sighted(i, raw, rd)

    def record(self, i, raw):
        """A look's answer (``sweep``) taken as reader i's scan, debounced and
        reported as ``poll`` does: ABSENT (no card answered), or PRESENT where
        the card it read last answered again (only while ``confirming(i)``,
        when ``poll`` would only re-select it).  1 if its report changed."""
        rd = self.readers[i]
        if raw != PRESENT:
            rd.forget_read()
        self.raw[i] = raw
        if self._stale[i]:
            return self._after_reset(i, raw, rd) | self._judge(i, raw, rd)
        return self._judge(i, raw, rd)

    def quiet(self, i):
        """Reader i's last scan read nothing, it reports nothing and its
        debounce has settled: a look finding it empty again changes nothing
        (``record`` would only count one more miss)."""
        return self.raw[i] == ABSENT and self.status[i] == ABSENT \
            and self._miss[i] >= self.release and not self._stale[i] \
            and not self._fresh[i] and not self._down[i]

    def confirming(self, i):
        """Reader i's last scan read a card it has not reported, not yet
        confirmed: the next poll only re-selects it (``_read``)."""
        return self.raw[i] == PRESENT and self.status[i] == ABSENT \
            and self._cand_kind[i] == PRESENT and 0 < self._seen[i] < self.confirm

    def rest(self, i):
        """Reader i's field off (unless the board keeps the fields on): a
        sweep looked at it and nothing follows."""
        if not self.keep_field and not self._down[i]:
            self.readers[i].antenna(False)

    def wake(self, j, mask):
        """A sweep's look, its first half: every reader in ``mask`` (bit i:
        reader i, its field on: ``arm``) looked at for the card reader j read
        last, their frames on air side by side (``MFRC522.begin_look``): the
        WUPA to all now, then (``select``) the SELECT of each cascade level to
        those a card answered -- the frames of a ``reselect`` (reader j) and
        of a look for it (the others), in the time of one; two halves, so the
        readers' job runs them in two steps (3 and 4-9 ms on the Pico).  The
        bits of those a card answered; the cards there stay ready, their
        fields on.  ``looks[i]`` once ``select`` is done: PRESENT (that card
        answered there), ABSENT (no card answered), OTHER (a card answered,
        not that one), COLLISION or ERROR (garbled; or it cannot tell: down,
        the field off).  With the fields kept on (``keep_field``) a reader
        where no card answered the WUPA gets a second one, as ``scan`` does;
        else reader j does (its scan may have kept its field on, the card
        selected: ``ahead``).  Nothing is debounced and nothing reported
        changes (``record`` takes a result as a scan's); every field stays on."""
        self._src = self.readers[j]
        self._src_bit = 1 << j
        return self._wupa_round(mask)

    def select(self, live):
        """The look's second half: the SELECT of each cascade level of the
        card ``wake`` looked for, to the readers in ``live`` (its answer)."""
        src = self._src
        k = 0
        while live and src is not None and k < src.uid_len // 3:
            self._k = k
            live = self._look_round(live)
            k += 1

    def _wupa_round(self, mask):
        """The look's WUPA to every reader in ``mask``: the bits of those a
        card answered.  A card its last scan left selected (deaf to a WUPA;
        every reader's with the fields kept on, else only ``_src``'s) wakes at
        a second one, as in ``scan``."""
        self._k = -1
        live = self._look_round(mask)
        again = self._silent(mask)
        if not self.keep_field:          # only the card read last: maybe left selected
            again &= self._src_bit
        if again:
            live |= self._look_round(again)
        return live

    def _silent(self, mask):
        """The readers in ``mask`` where nothing answered the look's last frame."""
        out = 0
        i = 0
        while i < self.n:
            if mask >> i & 1 and self.looks[i] == ABSENT:
                out |= 1 << i
            i += 1
        return out

    def _look_round(self, mask):
        """The look's frame ``_k`` (for ``_src``'s card) to every reader in
        ``mask``, then the answers: the bits of those where a card (that
        card, at a SELECT) answered."""
        sent = 0
        i = 0
        while i < self.n:
            if mask >> i & 1:
                if not self._down[i] and self.readers[i].begin_look(self._src, self._k):
                    sent |= 1 << i
                else:
                    self.looks[i] = ERROR
            i += 1
        return self._look_answers(sent)

    def _look_answers(self, sent):
        live = 0
        i = 0
        while i < self.n:
            if sent >> i & 1:
                live |= self._look_answer(i, sent)
            i += 1
        return live

    def _look_answer(self, i, sent):
        """Reader i's answer (the first of the round waits for the frame's
        time on air); its bit when a card (that card) answered."""
        r = self.readers[i].end_look(self._src, self._k, sent & ((1 << i) - 1) == 0)
        self.looks[i] = r
        return 1 << i if r == PRESENT else 0

    def _read(self, i, rd):
        """Scan reader i.  A card its last scan read on a reader that
        reported nothing, not yet confirmed, is only re-selected
        (``MFRC522.reselect``: 3 frames, not 5), and scanned when another
        card answers.  Not where a card was reported: a re-select cannot see
        a second card, and one clean read of the newcomer between
        collisions would be confirmed over the card that lies there."""
        if self.confirming(i):
            raw = rd.reselect(self.settle_us, self.keep_field)
            if raw == PRESENT or raw == ABSENT:
                return raw
        if rd.wake(self.settle_us, self.keep_field) and self.ahead & ~(1 << i):
            self._arm_ahead(self.ahead & ~(1 << i))
            return rd.read_uid(True)        # its field stays on: the sweep follows
        return rd.read_uid(self.keep_field)

    def _arm_ahead(self, mask):
        """A card answered the polled reader: the fields of the readers in
        ``mask`` go on now, to settle while the card is read (the sweep a new
        card starts then need not wait for them)."""
        self.ahead_at = self._ticks()
        j = 0
        while j < self.n:
            if mask >> j & 1 and not self._down[j]:
                self.readers[j].antenna(True)
                self.ahead_armed |= 1 << j
            j += 1

    def poll_all(self):
        """Poll every reader in turn; bit i of the result is set if reader i changed."""
        changed = 0
        for i in range(self.n):
            if self.poll(i):
                changed |= 1 << i
        return changed

    # ---------------------------------------------------------------- recovery
    def _restart(self, i):
        """Forget the debounce of reader i (not its reported state)."""
        self._seen[i] = 0
        self._miss[i] = 0
        self._errs[i] = 0
        self._cand_kind[i] = ABSENT
        self._cand_len[i] = 0

    def _revive(self, i):
        """Re-initialise reader i (SoftReset; the reset pin is shared): True if it works.

        The back-off stays until a scan comes back clean, so a reader that loses
        its registers again at once (a supply that dips whenever the field comes
        on) is retried ever more slowly instead of on every poll.  What the
        reader reported before is *stale* from now on: the next scan must read
        the same card again, or the report is withdrawn (``_after_reset``).
        """
        if not self.readers[i].init(hard_reset=False):
            return False
        self._down[i] = 0
        self._fresh[i] = 1
        self._stale[i] = 1
        self._recoveries[i] += 1
        self._restart(i)
        return True

    def _after_reset(self, i, raw, rd):
        """The first scan after a re-initialisation: the report from before the
        reset stands only if this scan read the same card (a card that stayed
        goes unnoticed); anything else -- another card, nothing, a garbled
        answer -- withdraws it at once, so nothing from before the reset is
        reported while the new truth is debounced.  1 if it was withdrawn."""
        self._stale[i] = 0
        st = self.status[i]
        if st != PRESENT and st != COLLISION:
            return 0
        if raw == st and (raw == COLLISION or (
                rd.uid_len == self.uid_lens[i] and _eq(self._uidv[i], rd.uid, rd.uid_len))):
            return 0
        self.status[i] = ABSENT
        self.uid_lens[i] = 0
        return 1

    def _go_down(self, i, now):
        """Reader i could not be (kept) initialised: retry after the (doubled) back-off."""
        b = self._backoff[i]
        if b == 0:
            b = self.retry_ms
        else:
            b += b
            if b > self.retry_max_ms:
                b = self.retry_max_ms
        self._backoff[i] = b
        self._down_at[i] = now
        self._down[i] = 1

    def _fault(self, i):
        """The chip lost its configuration or does not answer: re-initialise it at
        once (unless it already lost it again since the last re-initialisation);
        if that fails it is down and reports ERROR."""
        self._faults[i] += 1
        if not self._fresh[i] and self._revive(i):
            return 0  # this poll is neither a sighting nor a miss
        self._go_down(i, self._ticks())
        if self.status[i] != ERROR:
            self.status[i] = ERROR
            self.uid_lens[i] = 0
            return 1
        return 0

    # ---------------------------------------------------------------- debounce
    def _missed(self, i):
        self._seen[i] = 0
        self._errs[i] = 0
        if self._miss[i] < 255:
            self._miss[i] += 1
        if self.status[i] != ABSENT and self._miss[i] >= self.release:
            self.status[i] = ABSENT
            self.uid_lens[i] = 0
            return 1
        return 0

    def _failed(self, i):
        if self._errs[i] < 255:
            self._errs[i] += 1
        if self.status[i] != ERROR and self._errs[i] >= self.error_polls:
            self.status[i] = ERROR
            self.uid_lens[i] = 0
            return 1
        return 0

    def _sighted(self, i, raw, rd):
        n = rd.uid_len if raw == PRESENT else 0
        if self._is_cand(i, raw, n, rd.uid):
            if self._seen[i] < 255:
                self._seen[i] += 1
        else:
            self._cand_kind[i] = raw
            self._cand_len[i] = n
            _cp(self._candv[i], rd.uid, n)
            self._seen[i] = 1
        if self._seen[i] < self.confirm:
            return 0
        if self.status[i] == raw and self.uid_lens[i] == n and _eq(self._uidv[i], rd.uid, n):
            return 0  # already reported
        self.status[i] = raw
        _cp(self._uidv[i], rd.uid, n)
        self.uid_lens[i] = n
        return 1

    def _is_cand(self, i, raw, n, uid):
        return (self._cand_kind[i] == raw and self._cand_len[i] == n
                and _eq(self._candv[i], uid, n))
