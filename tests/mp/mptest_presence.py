# The card-presence arbiter (firmware/table/presence.py) under real MicroPython:
# observe / feed / pop allocate nothing (micropython.heap_lock() around whole
# scenarios: placements, a collision, a fault, a move between readers, a
# queue overflow; mem_total() flat where the unix port has it), the ticks wrap
# at 2**30 works on the 32-bit port, and the arbiter fed by the real ReaderSet
# (over this folder's MFRC522 chip fake) reports a card moved between seats.
import mptest_mfrc522 as F

from table import presence as P

try:
    import micropython
except ImportError:  # CPython
    micropython = None

A = b"\x04\xa1\xb2\xc3\xd4\xe5\xf6"
B = b"\xde\xad\xbe\xef"
EMPTY = b""
LOG = bytearray(64)  # event codes and readers, written with the heap locked
POS = [0]


def _locked(fn):
    if micropython is None:
        return fn()
    micropython.heap_lock()
    try:
        return fn()
    finally:
        micropython.heap_unlock()


def _drain(arb):
    while arb.pending():
        code = arb.pop()
        p = POS[0]
        if p < 62:
            LOG[p] = code
            LOG[p + 1] = arb.reader
            POS[0] = p + 2


def _logged():
    out = []
    k = 0
    while k < POS[0]:
        out.append((P.EVENT_NAMES[LOG[k]], LOG[k + 1]))
        k += 2
    POS[0] = 0
    return out


def test_scenario_allocates_nothing():
    arb = P.Presence(3, settle_ms=100, gone_ms=200, queue=8)
    POS[0] = 0

    def scenario():
        t = 1000
        while t < 1200:  # A settles on reader 0
            arb.observe(0, P.PRESENT, A, t)
            arb.observe(1, P.ABSENT, EMPTY, t)
            _drain(arb)
            t += 20
        k = 0
        while k < 5:  # a second card: collision, then A alone again
            arb.observe(0, P.COLLISION, EMPTY, t)
            _drain(arb)
            t += 20
            k += 1
        arb.observe(0, P.PRESENT, A, t)
        k = 0
        while k < 5:  # the reader faults and comes back: no second placement
            arb.observe(0, P.ERROR, EMPTY, t)
            _drain(arb)
            t += 20
            k += 1
        while t < 2000:  # A moves to reader 1; both report it for a while
            arb.observe(0, P.PRESENT if t < 1600 else P.ABSENT, A if t < 1600 else EMPTY, t)
            arb.observe(1, P.PRESENT, A, t)
            _drain(arb)
            t += 20
        return arb.where(A)

    assert _locked(scenario) == 1
    assert _logged() == [("placed", 0), ("collision", 0), ("collision_over", 0),
                         ("reader_fault", 0), ("reader_back", 0), ("lifted", 0),
                         ("placed", 1)]


def test_overflow_allocates_nothing():
    arb = P.Presence(6, settle_ms=0, gone_ms=0, queue=4)
    POS[0] = 0

    def flood():
        i = 0
        while i < 6:
            arb.observe(i, P.PRESENT, A if i & 1 else B, 5)  # also two-reader clashes
            arb.observe(i, P.ERROR, EMPTY, 6)
            i += 1
        n = arb.overflows
        _drain(arb)
        return n

    lost = _locked(flood)
    assert lost == arb.overflows and lost > 0
    assert _logged()[-1][0] == "overflow"


def test_mem_total_flat():
    if micropython is None or not hasattr(micropython, "mem_total"):
        return
    arb = P.Presence(2)
    arb.observe(0, P.PRESENT, A, 0)
    before = micropython.mem_total()
    t = 0
    while t < 1000:
        arb.observe(0, P.PRESENT if t < 500 else P.ABSENT, A if t < 500 else EMPTY, t)
        arb.observe(1, P.PRESENT if t >= 500 else P.ABSENT, A if t >= 500 else EMPTY, t)
        while arb.pending():
            arb.pop()
            arb.uid_view()
        t += 10
    used = micropython.mem_total() - before
    assert used == 0, "observations allocated %d bytes" % used
    assert arb.where(A) == 1


def test_mem_total_flat_when_fed_by_the_reader_set():
    if micropython is None or not hasattr(micropython, "mem_total"):
        return
    bus, chips, rs = F.setup_readers(2)
    arb = P.Presence(2)
    chips[0].put(A)
    k = 0
    while k < 4:
        rs.poll(0)
        arb.feed(rs, 0, 100 * k)
        rs.poll(1)
        arb.feed(rs, 1, 100 * k + 50)
        k += 1
    before = micropython.mem_total()
    while k < 12:  # placed, then seen and glimpsed (raw reads) every poll
        rs.poll(0)
        arb.feed(rs, 0, 100 * k)
        rs.poll(1)
        arb.feed(rs, 1, 100 * k + 50)
        while arb.pending():
            arb.pop()
        k += 1
    used = micropython.mem_total() - before
    assert used == 0, "feed allocated %d bytes" % used
    assert arb.where(A) == 0


def test_ticks_wrap_on_32_bit():
    top = 0x3FFFFFFF
    assert P.ticks_diff(10, top - 9) == 20
    assert P.ticks_diff(top - 9, 10) == -20
    arb = P.Presence(1, settle_ms=100)
    arb.observe(0, P.PRESENT, B, top - 59)
    arb.observe(0, P.PRESENT, B, 39)
    assert arb.pending() == 0
    arb.observe(0, P.PRESENT, B, 40)
    assert arb.pop() == P.EV_PLACED and bytes(arb.uid_view()) == B


def test_fed_by_the_reader_set_allocating_nothing():
    bus, chips, rs = F.setup_readers(2)
    arb = P.Presence(2, settle_ms=50, gone_ms=100)
    POS[0] = 0
    F.CLOCK[0] = 1000

    def passes(k):
        while k:
            i = 0
            while i < 2:
                rs.poll(i)
                arb.feed(rs, i, F.CLOCK[0])
                _drain(arb)
                F.CLOCK[0] += 10
                i += 1
            k -= 1

    def play():
        chips[0].put(A)
        passes(10)
        chips[0].uid_len = 0  # lifted ...
        passes(2)
        chips[1].put(A)  # ... and put on seat 1
        passes(20)
        return arb.where(A)

    assert _locked(play) == 1
    assert _logged() == [("placed", 0), ("lifted", 0), ("placed", 1)]
