# The MFRC522 driver (firmware/drivers/mfrc522.py) under real MicroPython:
# polls allocate nothing (micropython.heap_lock() around ReaderSet.poll for an
# empty reader, a new card, a card that stays, a 4-byte and a 7-byte UID, and
# the recovery path: a supply dip found and fixed in one poll, a reader that
# stops answering, backs off and comes back) and the debounce reports the
# right states.
#
# host_sim's chip model is CPython-only, so this file carries a tiny chip fake
# that answers like an MFRC522 with no card / with one card, without timing
# (the full model is exercised by tests/test_mfrc522.py). The fake itself is
# allocation-free, so it can run with the heap locked too.
from drivers import mfrc522 as M
from drivers.reader_set import ReaderSet
from drivers.ticks import ticks_diff, ticks_ms

try:
    import micropython
except ImportError:  # CPython
    micropython = None


def _crc_byte(crc, b):
    crc ^= b
    k = 8
    while k:
        crc = (crc >> 1) ^ 0x8408 if crc & 1 else crc >> 1
        k -= 1
    return crc


def _crc_a(buf, start, n):
    crc = 0x6363
    while n:
        crc = _crc_byte(crc, buf[start])
        start += 1
        n -= 1
    return crc


class FakeChip:
    """Registers, FIFO, Transceive/CalcCRC answered at once (no timer model)."""

    def __init__(self, version=0x92):
        self.version = version
        self.regs = bytearray(64)
        self.regs[0x37] = version
        self.fifo = bytearray(64)
        self.flen = 0
        self.fpos = 0
        self.uid = bytearray(10)
        self.uid_len = 0  # 0: no card
        self.level = 0
        self.addr = -1
        self.reads = 0
        self.writes = 0
        self.dead = False  # disconnected: every MISO byte reads self.miso
        self.miso = 0

    def brownout(self):
        """A supply dip: registers back to reset (modelled as 0), the field off."""
        r = self.regs
        for a in range(64):
            r[a] = 0
        r[0x37] = self.version
        self.flen = self.fpos = 0

    def put(self, uid):
        for i in range(len(uid)):
            self.uid[i] = uid[i]
        self.uid_len = len(uid)

    def begin(self):
        self.addr = -1

    def xfer(self, b):
        if self.dead:
            return self.miso
        if self.addr < 0:
            self.addr = b
            return 0
        a = (self.addr >> 1) & 0x3F
        if self.addr & 0x80:  # read: b is the next address byte
            v = self._read(a)
            self.addr = b if b & 0x80 else 0x7E
            return v
        self._write(a, b)
        return 0

    def _read(self, a):
        self.reads += 1
        if a == 0x09:
            if self.fpos < self.flen:
                v = self.fifo[self.fpos]
                self.fpos += 1
                return v
            return 0
        if a == 0x0A:
            return self.flen - self.fpos
        return self.regs[a]

    def _write(self, a, v):
        self.writes += 1
        r = self.regs
        if a == 0x01:
            self._command(v & 0x0F)
        elif a == 0x04 or a == 0x05:
            if v & 0x80:
                r[a] |= v & 0x7F
            else:
                r[a] &= ~v & 0x7F
        elif a == 0x09:
            if self.flen < 64:
                self.fifo[self.flen] = v
                self.flen += 1
        elif a == 0x0A:
            if v & 0x80:
                self.flen = self.fpos = 0
        elif a == 0x0D:
            r[a] = v
            if v & 0x80 and r[1] == 0x0C:
                self._send(v & 0x07)
        else:
            r[a] = v

    def _command(self, cmd):
        self.regs[1] = 0 if cmd == 0x0F else cmd
        if cmd == 0x03:  # CalcCRC over the FIFO
            c = _crc_a(self.fifo, self.fpos, self.flen - self.fpos)
            self.regs[0x21] = c >> 8
            self.regs[0x22] = c & 0xFF
            self.regs[0x05] |= 0x04
            self.flen = self.fpos = 0

    def _answer(self, n):
        self.flen = n
        self.fpos = 0
        self.regs[0x04] |= 0x20  # RxIRq
        self.regs[0x0C] &= 0xF8

    def _silence(self):
        self.flen = self.fpos = 0
        if self.regs[0x2A] & 0x80:  # TAuto: the timer runs out (not after a dip)
            self.regs[0x04] |= 0x01  # TimerIRq

    def _send(self, last_bits):
        f = self.fifo
        n = self.flen - self.fpos
        if not self.uid_len or not self.regs[0x14] & 0x03:
            self._silence()
        elif n == 1 and last_bits == 7 and f[0] == 0x52:
            f[0] = 0x44 if self.uid_len == 7 else 0x04  # ATQA
            f[1] = 0
            self._answer(2)
        elif n == 2 and f[1] == 0x20:
            self._anticoll()
        elif n == 9 and f[1] == 0x70:
            self._select()
        else:
            self._silence()

    def _anticoll(self):
        f = self.fifo
        u = self.uid
        if f[0] == 0x93 and self.uid_len == 7:
            f[0] = 0x88
            f[1] = u[0]
            f[2] = u[1]
            f[3] = u[2]
        else:
            o = 3 if f[0] == 0x95 else 0
            f[0] = u[o]
            f[1] = u[o + 1]
            f[2] = u[o + 2]
            f[3] = u[o + 3]
        f[4] = f[0] ^ f[1] ^ f[2] ^ f[3]
        self._answer(5)

    def _select(self):
        f = self.fifo
        if self.uid_len == 7:
            f[0] = 0x04 if f[0] == 0x93 else 0x00  # cascade bit at CL1
        else:
            f[0] = 0x08
        c = _crc_a(f, 0, 1)
        f[1] = c & 0xFF
        f[2] = c >> 8
        self._answer(3)


class FakeBus:
    def __init__(self):
        self.selected = None
        self.bytes = 0

    def write(self, buf):
        c = self.selected
        for i in range(len(buf)):
            c.xfer(buf[i])
        self.bytes += len(buf)

    def write_readinto(self, wbuf, rbuf):
        c = self.selected
        for i in range(len(wbuf)):
            rbuf[i] = c.xfer(wbuf[i])
        self.bytes += len(wbuf)


class FakePin:
    def __init__(self, bus, chip):
        self.v = 1
        self.bus = bus
        self.chip = chip

    def value(self, v=None):
        if v is None:
            return self.v
        self.v = v
        if v:
            self.bus.selected = None
        else:
            self.bus.selected = self.chip
            self.chip.begin()
        return None


def _nosleep(us):
    pass


CLOCK = [0]  # the injected ticks_ms clock (ms), set by the tests


def _ticks():
    return CLOCK[0]


def setup_readers(nreaders=2, version=0x92):
    bus = FakeBus()
    chips = []
    readers = []
    for _ in range(nreaders):
        chip = FakeChip(version)
        cs = FakePin(bus, chip)
        chips.append(chip)
        readers.append(M.MFRC522(bus, cs, sleep_us=_nosleep))
    CLOCK[0] = 1000
    rs = ReaderSet(readers, sleep_us=_nosleep, ticks_ms=_ticks)
    assert rs.init() == nreaders
    return bus, chips, rs


def _locked(fn):
    """Run the zero-argument fn with the heap locked (MicroPython); its result."""
    if micropython is None:
        return fn()
    micropython.heap_lock()
    try:
        return fn()
    finally:
        micropython.heap_unlock()


UID7 = b"\x04\xa1\xb2\xc3\xd4\xe5\xf6"
UID4 = b"\xde\xad\xbe\xef"


def test_absent_poll_allocates_nothing():
    bus, chips, rs = setup_readers()

    def polls():
        c = 0
        for _ in range(5):
            c |= rs.poll(0)
            c |= rs.poll_all()
        return c

    assert _locked(polls) == 0
    assert rs.status[0] == M.ABSENT and rs.status[1] == M.ABSENT


def test_present_and_new_card_polls_allocate_nothing():
    bus, chips, rs = setup_readers()
    chips[0].put(UID7)
    chips[1].put(UID4)

    def polls():
        c = 0
        for _ in range(4):
            c |= rs.poll_all()
        return c

    # first sight, confirmation, then steady: all with the heap locked
    assert _locked(polls) == 3
    assert rs.status[0] == M.PRESENT and rs.uid(0) == UID7
    assert rs.status[1] == M.PRESENT and rs.uid(1) == UID4
    # a swap to another card, also locked
    chips[0].put(b"\x04\x11\x22\x33\x44\x55\x66")
    assert _locked(polls) == 1
    assert rs.uid(0) == b"\x04\x11\x22\x33\x44\x55\x66"
    # removal: released after three misses
    chips[0].uid_len = 0

    def three():
        return rs.poll(0) + rs.poll(0) * 10 + rs.poll(0) * 100

    assert _locked(three) == 100
    assert rs.status[0] == M.ABSENT and rs.uid(0) == b""


def test_mem_total_flat_over_polls():
    if micropython is None or not hasattr(micropython, "mem_total"):
        return  # the wasm port and CPython lack an exact allocation counter
    bus, chips, rs = setup_readers(1)
    chips[0].put(UID7)
    rs.poll(0)
    rs.poll(0)
    rs.poll(0)
    before = micropython.mem_total()
    rs.poll(0)
    rs.poll(0)
    used = micropython.mem_total() - before
    assert used == 0, "a present-card poll allocated %d bytes" % used
    chips[0].put(UID4)  # a new card: CalcCRC for SELECT and SAK, not cached yet
    before = micropython.mem_total()
    rs.poll(0)
    used = micropython.mem_total() - before
    assert used == 0, "a new-card poll allocated %d bytes" % used
    chips[0].uid_len = 0
    rs.poll(0)
    before = micropython.mem_total()
    rs.poll(0)
    used = micropython.mem_total() - before
    assert used == 0, "an absent poll allocated %d bytes" % used


def test_debounce_numbers():
    bus, chips, rs = setup_readers(1)
    chips[0].put(UID4)
    assert rs.poll(0) == 0 and rs.status[0] == M.ABSENT  # seen once: not yet
    assert rs.poll(0) == 1 and rs.status[0] == M.PRESENT
    chips[0].uid_len = 0
    assert rs.poll(0) == 0 and rs.poll(0) == 0  # two misses: still there
    assert rs.status[0] == M.PRESENT
    assert rs.poll(0) == 1 and rs.status[0] == M.ABSENT


def test_register_traffic_of_an_empty_poll():
    bus, chips, rs = setup_readers(1)
    chip = chips[0]
    chip.reads = chip.writes = 0
    bus.bytes = 0
    rs.poll(0)
    accesses = chip.reads + chip.writes
    assert accesses < 30, accesses
    assert chip.regs[0x14] & 0x03 == 0  # field off again


def test_supply_dip_recovers_in_one_poll_allocating_nothing():
    bus, chips, rs = setup_readers()
    chips[0].brownout()  # empty reader: no timer any more, every frame "never ends"
    chips[1].put(UID7)
    rs.poll_all()
    rs.poll_all()
    chips[1].brownout()  # a card that stays: the lost TModeReg shows in the first answer

    def polls():
        c = 0
        for _ in range(4):
            c |= rs.poll_all()
        return c

    assert _locked(polls) == 0  # nothing the application would notice
    assert rs.faults(0) == 1 and rs.recoveries(0) == 1 and rs.status[0] == M.ABSENT
    assert rs.faults(1) == 1 and rs.recoveries(1) == 1 and rs.uid(1) == UID7
    chips[0].put(UID4)  # a new card after the dip: read as usual
    assert _locked(polls) == 1 and rs.uid(0) == UID4


def test_dead_reader_backs_off_and_comes_back_allocating_nothing():
    bus, chips, rs = setup_readers()
    chips[0].put(UID7)
    rs.poll(0)
    rs.poll(0)
    chip = chips[0]

    def goes_down():
        chip.dead = True
        chip.miso = 0xFF
        return rs.poll(0) * 10 + rs.poll(0)

    assert _locked(goes_down) == 10  # reported once, then quiet
    assert rs.status[0] == M.ERROR and rs.down(0) and rs.faults(0) == 1

    def waits():
        chip.reads = 0
        CLOCK[0] += 99
        r = rs.poll(0)
        return r * 1000 + chip.reads  # no bus traffic before the back-off ran out

    assert _locked(waits) == 0

    def retries():
        chip.reads = 0
        CLOCK[0] += 1  # 100 ms: the first retry, still dead
        rs.poll(0)
        CLOCK[0] += 199
        rs.poll(0)  # 199 ms after it: not yet (200 ms now)
        n = chip.reads
        chip.dead = False
        CLOCK[0] += 1
        return n * 10 + rs.poll(0) + rs.poll(0)

    assert _locked(retries) > 0
    assert not rs.down(0) and rs.recoveries(0) == 1
    assert rs.status[0] == M.PRESENT and rs.uid(0) == UID7


def test_mem_total_flat_over_recovery():
    if micropython is None or not hasattr(micropython, "mem_total"):
        return
    bus, chips, rs = setup_readers(1)
    chip = chips[0]
    rs.poll(0)
    chip.brownout()
    before = micropython.mem_total()
    rs.poll(0)  # fault found, re-initialised
    rs.poll(0)
    used = micropython.mem_total() - before
    assert used == 0, "a supply-dip recovery allocated %d bytes" % used
    assert rs.recoveries(0) == 1
    chip.dead = True
    before = micropython.mem_total()
    rs.poll(0)  # down
    CLOCK[0] += 100
    rs.poll(0)  # retry fails: back-off doubles
    CLOCK[0] += 200
    chip.dead = False
    rs.poll(0)  # back
    used = micropython.mem_total() - before
    assert used == 0, "a down/retry/recover cycle allocated %d bytes" % used
    assert rs.recoveries(0) == 2 and not rs.down(0)


def test_ticks_diff_32_bit():
    top = 0x3FFFFFFF
    assert ticks_diff(5, top - 4) == 10
    assert ticks_diff(top - 4, 5) == -10
    assert ticks_diff(0, 0x20000000) == -0x20000000
    assert ticks_diff(0x1FFFFFFF, 0) == 0x1FFFFFFF
    t = ticks_ms()
    assert 0 <= t <= top


def test_clone_chips_are_accepted_and_read():
    for v in M.CLONES + M.GENUINE:
        bus, chips, rs = setup_readers(1, v)
        assert rs.readers[0].version == v
        chips[0].put(UID7)
        rs.poll(0)
        assert rs.poll(0) == 1 and rs.uid(0) == UID7


def test_refused_versions():
    assert M.version_kind(0x82) == M.V_MISREAD      # 0x92 with bit 4 lost
    assert M.version_kind(0x00) == M.V_NO_ANSWER and M.version_kind(0xFF) == M.V_NO_ANSWER
    assert M.version_kind(0x88) == M.V_CLONE and M.version_kind(0x91) == M.V_GENUINE
    assert M.version_kind(0x5A) == M.V_UNKNOWN
    for v in (0x00, 0xFF, 0x82, 0x5A):
        bus = FakeBus()
        chip = FakeChip(v)
        rd = M.MFRC522(bus, FakePin(bus, chip), sleep_us=_nosleep)
        assert not rd.init(hard_reset=False) and rd.version == v


def test_nothing_from_before_a_reset_allocating_nothing():
    """A supply dip while one card was swapped for another: from the first scan
    after the re-initialisation the old card is withdrawn, the new one follows."""
    bus, chips, rs = setup_readers(1)
    chip = chips[0]
    chip.put(UID7)
    rs.poll(0)
    rs.poll(0)
    assert rs.uid(0) == UID7

    def swap_under_a_dip():
        chip.brownout()
        chip.put(UID4)
        found = rs.poll(0)          # finds the reset, re-initialises (cannot know yet)
        first = rs.poll(0)          # the old card is withdrawn
        gone = rs.status[0]
        second = rs.poll(0)         # the new one confirmed
        return found * 100 + first * 10 + second + gone * 1000

    assert _locked(swap_under_a_dip) == 11 + M.ABSENT * 1000
    assert rs.status[0] == M.PRESENT and rs.uid(0) == UID4


def test_mem_total_flat_over_a_reset_with_a_swap():
    """The withdrawal after a reset allocates nothing, not even a heap frame
    (which heap_lock() would not see)."""
    if micropython is None or not hasattr(micropython, "mem_total"):
        return
    bus, chips, rs = setup_readers(1)
    chip = chips[0]
    chip.put(UID7)
    rs.poll(0)
    rs.poll(0)
    chip.brownout()
    chip.put(UID4)
    before = micropython.mem_total()
    rs.poll(0)      # the reset found
    rs.poll(0)      # the old card withdrawn
    rs.poll(0)      # the new one confirmed
    used = micropython.mem_total() - before
    assert used == 0, "a reset with a card swap allocated %d bytes" % used
    assert rs.uid(0) == UID4


def test_a_sweep_allocates_nothing():
    # a new card on reader 0, reader 1 empty, reader 2 holding another card:
    # the sweep's look at all three, the answers taken as scans -- with the
    # heap locked
    bus, chips, rs = setup_readers(3)
    chips[2].put(UID4)
    rs.poll(2)
    chips[0].put(UID7)
    rs.poll(0)
    res = [0]

    def sweep():
        rs.arm(0)
        rs.arm(1)
        rs.arm(2)
        rs.select(rs.wake(0, 0b111))
        res[0] = rs.looks[0] * 100 + rs.looks[1] * 10 + rs.looks[2]
        rs.record(1, M.ABSENT)
        rs.record(0, M.PRESENT)
        rs.rest(1)
        rs.rest(2)

    _locked(sweep)
    # (reader 2: this fake chip answers every SELECT, with its own card's SAK,
    # which is not the one looked for: garbled, ERROR; the chip model of
    # tests/test_mfrc522.py stays silent there: OTHER)
    assert res[0] == M.PRESENT * 100 + M.ABSENT * 10 + M.ERROR, res[0]
    assert rs.status[0] == M.PRESENT and rs.uid(0) == UID7
