"""``time`` inside the bridged VM: the host's virtual clock.

host_sim/vm/vm_main.py puts this module in ``sys.modules["time"]`` before the
firmware is imported, so the drivers' ``time.ticks_ms``/``sleep_us`` read and
move the same virtual clock the chip models run on (host_sim/clock.py); the
firmware itself is unchanged.  Ticks wrap at 2**30 as on the RP2040.
"""
import vm_link

TICKS_MAX = 0x3FFFFFFF
TICKS_HALF = 0x20000000


def ticks_us():
    return int(vm_link.ask("@T\n")) & TICKS_MAX


def ticks_ms():
    return (int(vm_link.ask("@T\n")) // 1000) & TICKS_MAX


def ticks_diff(a, b):
    d = (a - b) & TICKS_MAX
    if d >= TICKS_HALF:
        d -= TICKS_HALF + TICKS_HALF
    return d


def ticks_add(a, delta):
    return (a + delta) & TICKS_MAX


def sleep_us(us):
    if us > 0:
        vm_link.tell("@S%d\n" % us)


def sleep_ms(ms):
    sleep_us(ms * 1000)


def sleep(seconds):
    sleep_us(int(seconds * 1000000))


def time():
    return int(vm_link.ask("@T\n")) // 1000000
