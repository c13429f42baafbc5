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


def load(path):
    with open(path) as f:
        header = json.loads(f.readline())
        deals = []
        for line in f:
            ev = json.loads(line)
            if ev["ev"] == "deal":
                deals.append([])
            deals[-1].append(ev)
    return header, deals


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
    header, deals = load(path)
    prepared = [split(d) for d in deals]
    # whole deals through the fold (event dicts, outcomes built)
    s = Session(header)
    t0 = ticks_us()
    for d in deals:
        for ev in d:
            s.apply(ev)
    t_deals = ticks_diff(ticks_us(), t0)
    # card plays only, and heap allocated by them
    s = Session(header)
    plays = 0
    t_play = 0
    alloc = 0
    total = 0
    gc.collect()
    for pre, cards in prepared:
        for ev in pre:
            s.apply(ev)
        play = s.play_card
        gc.collect()
        gc.disable()
        a0 = gc.mem_alloc() if hasattr(gc, "mem_alloc") else 0
        m0 = mem_total()
        t0 = ticks_us()
        for seat, card in cards:
            play(seat, card)
        t_play += ticks_diff(ticks_us(), t0)
        m1 = mem_total()
        a1 = gc.mem_alloc() if hasattr(gc, "mem_alloc") else 0
        gc.enable()
        total += m1 - m0
        alloc += a1 - a0
        plays += len(cards)
        if cards:
            s._finish()
    print("deals", len(deals))
    print("plays", plays)
    print("us_per_deal", t_deals // max(1, len(deals)))
    print("ns_per_play", t_play * 1000 // max(1, plays))
    print("alloc_bytes_per_play_x1000", alloc * 1000 // max(1, plays))
    print("mem_total_bytes_per_play_x1000", total * 1000 // max(1, plays) if total >= 0 else -1)
    if micropython is not None:
        locked_run(header, prepared)


def locked_run(header, prepared):
    """Every card play except a deal's last, with the heap locked (DESIGN.md 4)."""
    s = Session(header)
    ok = 0
    failed = 0
    for pre, cards in prepared:
        for ev in pre:
            s.apply(ev)
        play = s.play_card
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
        if cards:
            s._finish()
    print("heap_locked_plays", ok)
    print("heap_locked_failures", failed)


if __name__ == "__main__":
    run(sys.argv[1])
