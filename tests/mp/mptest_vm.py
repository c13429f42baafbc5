# Facts about the MicroPython VMs that the engine and the benchmarks rely on.
# Runs under the unix port (64-bit, hard heap limit) and the WebAssembly port
# (32-bit) via tests/mp/mprunner.py; MicroPython only (needs `micropython`).
# See docs/design.md, "Measuring MicroPython honestly".
import gc
import sys

import micropython
from micropython import const

_SUIT_BITS = const(9)  # one suit of a 36-card deck fits a 9-bit mask
_MAX32 = const(2147483647)  # sys.maxsize of a 32-bit port (RP2040, ESP32, wasm)
_IS_32BIT = sys.maxsize == _MAX32


def _allocates(fn):
    """True if calling the zero-argument fn needs the heap.

    Zero arguments on purpose: fn(*args) would allocate the argument tuple.
    """
    micropython.heap_lock()
    try:
        fn()
    except MemoryError:
        return True
    finally:
        micropython.heap_unlock()
    return False


def _small_int_bits():
    """Largest k for which 1 << k is a small int (made without the heap)."""
    x = 1
    k = 0
    micropython.heap_lock()
    try:
        while k < 80:
            try:
                x = x << 1
            except MemoryError:
                break
            k += 1
    finally:
        micropython.heap_unlock()
    return k


def test_small_int_limit_matches_word_size():
    bits = _small_int_bits()
    print("  %s: sys.maxsize=%d, small ints below 2**%d" % (sys.platform, sys.maxsize, bits + 1))
    if _IS_32BIT:
        assert bits == 29, bits  # small ints stop at 2**30 on 32-bit ports
    else:
        assert sys.maxsize == 9223372036854775807, sys.maxsize
        assert bits == 61, bits  # and at 2**62 on the 64-bit unix build


def test_port_word_sizes():
    # The wasm port is the 32-bit VM in CI: if it ever became 64-bit, int-size
    # bugs would go unseen. The PyPI unix port is 64-bit.
    if sys.platform == "webassembly":
        assert _IS_32BIT, sys.maxsize
    elif sys.platform == "linux":
        assert not _IS_32BIT, sys.maxsize
    else:
        print("  no expectation for platform %r" % sys.platform)


def test_wide_card_bitmask_allocates_on_32_bit():
    # A one-int mask of 32..36 cards is a heap-allocated long on the device:
    # that is why the engine keeps per-suit masks.
    shift = 32
    wide = _allocates(lambda: 1 << shift)
    assert wide == _IS_32BIT, (wide, _IS_32BIT)
    suit = _SUIT_BITS
    assert not _allocates(lambda: (1 << suit) - 1)


def test_preallocated_small_int_work_does_not_allocate():
    buf = [0] * 8
    masks = bytearray(4)
    full = (1 << _SUIT_BITS) - 1

    def work():
        for i in range(8):  # for/range compiles to a counter loop: no range object
            buf[i] = (buf[i] + i * 3) & full
        m = full
        m &= ~(1 << 4)  # card 4 of the suit played
        masks[0] = m & 0xFF
        masks[1] = m >> 8
        buf[0] = m
        buf[1] = (-7 * buf[7]) // 2  # integer half-point settlement, floor division
        buf[2] = len(masks)

    assert not _allocates(work)
    assert buf[0] == 0x1EF, buf
    assert buf[1] == (-7 * 21) // 2 == -74, buf
    assert buf[2] == 4
    assert masks[0] == 0xEF and masks[1] == 1, masks


def test_allocation_under_heap_lock_raises_memoryerror():
    n = 70
    assert _allocates(lambda: [1, 2, 3])
    assert _allocates(lambda: bytearray(8))
    assert _allocates(lambda: "x%d" % n)
    assert _allocates(lambda: 1 << n)  # a long int on every port
    # and the heap works again afterwards
    assert len([0] * 16) == 16


def test_heap_lock_nests_and_unlock_reports_depth():
    micropython.heap_lock()
    try:
        micropython.heap_lock()
        try:
            pass
        finally:
            inner = micropython.heap_unlock()
    finally:
        outer = micropython.heap_unlock()
    assert (inner, outer) == (1, 0), (inner, outer)


def test_integer_semantics_match_cpython():
    assert -7 // 2 == -4 and -7 % 2 == 1
    assert 7 // -2 == -4 and 7 % -2 == -1
    assert divmod(-250, 100) == (-3, 50)
    assert (1 << _SUIT_BITS) - 1 == 511
    assert int("-120") == -120 and str(-120) == "-120"


def test_mem_total_counts_allocations():
    # Benchmarks measure "heap allocated per play" as a mem_total() delta.
    if not hasattr(micropython, "mem_total"):
        assert sys.platform != "linux", "the unix port must have micropython.mem_total()"
        print("  no mem_total() on %s" % sys.platform)
        return
    before = micropython.mem_total()
    block = bytearray(1000)
    after = micropython.mem_total()
    assert len(block) == 1000
    assert after - before >= 1000, (before, after)
    before = micropython.mem_total()
    x = 3
    x = (x * 7) & 0x1FF
    after = micropython.mem_total()
    assert after == before, (before, after, x)


def test_unix_heap_limit_is_hard():
    # The unix port's -X heapsize is a hard budget (the wasm heap grows instead).
    if sys.platform != "linux":
        print("  heap grows on demand on %s: not a budget" % sys.platform)
        return
    gc.collect()
    total = gc.mem_free() + gc.mem_alloc()
    print("  heap: %d bytes" % total)
    try:
        bytearray(total + 1)
    except MemoryError:
        return
    raise AssertionError("allocated more than the whole heap (%d bytes)" % total)
