"""Engine benchmark body; runs unchanged under CPython and MicroPython.

Usage (inside a VM): ``bench_vm.py RECORD`` prints ``key value`` lines:
per-card-play and per-deal times, heap bytes allocated per card play, and a
``micropython.heap_lock()`` run over every card play that does not end a deal.
"""
import gc
import json
import sys

try:
    from time import ticks_diff, ticks_us

    import micropython
except ImportError:  # CPython
    micropython = None
    from time import perf_counter

    def ticks_us():
        return int(perf_counter() * 1000000)

    def ticks_diff(a, b):
        return a - b

from tapp.cards import card_index
from tapp.session import Session


def deals_of(path):
    """(header, iterator of each deal's event list): one deal in memory at a time."""
    f = open(path)
    header = json.loads(f.readline())

    def gen():
        deal = []
        for line in f:
            ev = json.loads(line)
            if ev["ev"] == "deal" and deal:
                yield deal
                deal = []
            deal.append(ev)
        if deal:
            yield deal
        f.close()
    return header, gen()


def split(deal_events):
    """Events before the first card, then the plays as (seat, card int) pairs."""
    for i, ev in enumerate(deal_events):
        if ev["ev"] == "play":
            plays = [(e["seat"], card_index(e["card"])) for e in deal_events[i:]]
            return deal_events[:i], plays
    return deal_events, []


def mem_total():
    if micropython is not None and hasattr(micropython, "mem_total"):
        return micropython.mem_total()
    return -1


def run(path):
    header, deals = deals_of(path)
    whole = Session(header)      # whole deals through the fold (outcomes built)
    fast = Session(header)       # card plays only (Session.play), timed and heap-counted
    locked = Session(header) if micropython is not None else None
    n_deals = plays = t_deals = t_play = alloc = total = 0
    lock_ok = lock_failed = 0
    for d in deals:
        n_deals += 1
        t0 = ticks_us()
        for ev in d:
            whole.apply(ev)
        t_deals += ticks_diff(ticks_us(), t0)
        pre, cards = split(d)
        dt, da, dm = timed_plays(fast, pre, cards)
        t_play += dt
        alloc += da
        total += dm
        plays += max(0, len(cards) - 1)
        if locked is not None:
            ok, failed = locked_plays(locked, pre, cards)
            lock_ok += ok
            lock_failed += failed
    print("deals", n_deals)
    print("plays", plays)
    print("us_per_deal", t_deals // max(1, n_deals))
    print("ns_per_play", t_play * 1000 // max(1, plays))
    print("alloc_bytes_per_play_x1000", alloc * 1000 // max(1, plays))
    print("mem_total_bytes_per_play_x1000", total * 1000 // max(1, plays) if total >= 0 else -1)
    if locked is not None:
        print("heap_locked_plays", lock_ok)
        print("heap_locked_failures", lock_failed)


def timed_plays(s, pre, cards):
    """(microseconds, gc.mem_alloc growth, mem_total growth) of a deal's card
    plays through ``Session.play``, the deal's last card (which settles and
    allocates the result) played outside the measurement."""
    for ev in pre:
        s.apply(ev)
    play = s.play
    steady = cards[:-1]
    gc.collect()
    gc.disable()
    a0 = gc.mem_alloc() if hasattr(gc, "mem_alloc") else 0
    m0 = mem_total()
    t0 = ticks_us()
    for seat, card in steady:
        play(seat, card)
    dt = ticks_diff(ticks_us(), t0)
    m1 = mem_total()
    a1 = gc.mem_alloc() if hasattr(gc, "mem_alloc") else 0
    gc.enable()
    for seat, card in cards[len(steady):]:
        play(seat, card)
    return dt, a1 - a0, m1 - m0


def locked_plays(s, pre, cards):
    """Every card play but the deal's last with the heap locked (docs/design.md, principle 4)."""
    for ev in pre:
        s.apply(ev)
    play = s.play
    ok = failed = 0
    last = len(cards) - 1
    for i, (seat, card) in enumerate(cards):
        if i == last:
            play(seat, card)
            break
        micropython.heap_lock()
        try:
            play(seat, card)
            ok += 1
        except MemoryError:
            failed += 1
        finally:
            micropython.heap_unlock()
    return ok, failed


if __name__ == "__main__":
    run(sys.argv[1])
