"""``time`` inside the bridged VM: the host's virtual clock.

host_sim/vm/vm_main.py puts this module in ``sys.modules["time"]`` before the
firmware is imported, so the drivers' ``time.ticks_ms``/``sleep_us`` read and
move the same virtual clock the chip models run on (host_sim/clock.py); the
firmware itself is unchanged.  Ticks wrap at 2**30 as on the RP2040.
"""
import vm_link

TICKS_MAX = 0x3FFFFFFF
TICKS_HALF = 0x20000000
# While a pin's interrupt runs (vm_machine.fire): the ms of its edge, as the
# host's clock read it when the level changed (-1: none runs).
EDGE_MS = [-1]


def ticks_us():
    if EDGE_MS[0] >= 0:
        return EDGE_MS[0] * 1000 & TICKS_MAX
    return int(vm_link.ask(b"@T\n")) & TICKS_MAX


def ticks_ms():
    if EDGE_MS[0] >= 0:
        return EDGE_MS[0]
    return (int(vm_link.ask(b"@T\n")) // 1000) & TICKS_MAX


def ticks_diff(a, b):
    d = (a - b) & TICKS_MAX
    if d >= TICKS_HALF:
        d -= TICKS_HALF + TICKS_HALF
    return d


def ticks_add(a, delta):
    return (a + delta) & TICKS_MAX


def sleep_us(us):
    if us > 0:
        vm_link.tell(b"@S%d\n" % us)


def sleep_ms(ms):
    sleep_us(ms * 1000)


def sleep(seconds):
    sleep_us(int(seconds * 1000000))


def time():
    return int(vm_link.ask(b"@T\n")) // 1000000
