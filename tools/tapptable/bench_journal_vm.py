"""The journal's append and power-up read inside MicroPython (run by
tools/tapptable/bench_journal.py in the unix port): ``key value`` lines.

* ``play_us``, ``bid_us``: one append of a card play / a short bid on the
  journal's own flash area, the NOR model's program included (it copies the
  page bit by bit in Python: far slower than the chip's 0.4 ms program
  would make the Pico's share of it);
* ``play_fw_us``: the same with a device that keeps nothing (the firmware's
  own share: formatting, CRC, the page buffer);
* ``play_bytes``: micropython.mem_total() growth per card play (target 0);
* ``scan_ms``, ``scan_records``, ``scan_kb``: a power-up reading a full area
  of the Pico's size (its sectors the second argument).
"""
import sys
import time

import micropython
from nor_flash import NorFlash

from table.journal_flash import FlashJournals

HEADER = {"record": 1, "variant": "tapp_modern", "players": 3, "first_dealer": 0,
          "mode": "open", "seats": ["A", "B", "C"]}
DEAL = {"ev": "deal", "dealer": 0, "hands": None, "talon": None}
SECTORS = 128             # the appends' area: the ring never comes round in them


class KeepsNothing(NorFlash):
    """A device whose programs go nowhere: the firmware's time alone."""

    def writeblocks(self, block, buf, offset=None):
        return None


def appends(dev, n):
    """(us per play append, us per bid append, bytes per play) over ``n``."""
    j = FlashJournals(dev).create(HEADER)
    j.append(DEAL)
    ev = {"ev": "play", "seat": 1, "card": "HA"}
    bid = {"ev": "bid", "seat": 1, "call": "pass"}
    j.prepare()
    t = time.ticks_us()
    for k in range(n):
        j.append(ev)
        if k % 60 == 0:
            j.prepare()            # (the table erases ahead when nothing waits)
    play = time.ticks_diff(time.ticks_us(), t) / n
    t = time.ticks_us()
    for _ in range(n // 4):
        j.append(bid)
    short = time.ticks_diff(time.ticks_us(), t) / (n // 4)
    worst = 0
    for _ in range(200):
        own = dev.own
        m = micropython.mem_total()
        j.append(ev)
        worst = max(worst, micropython.mem_total() - m - (dev.own - own))
    return play, short, worst


def main(n, sectors):
    play, short, worst = appends(NorFlash(SECTORS), n)
    fw, _short, _worst = appends(KeepsNothing(SECTORS), n)
    dev = NorFlash(sectors)
    j = FlashJournals(dev).create(HEADER)
    ev = {"ev": "play", "seat": 1, "card": "HA"}
    while j.deals_left() > 0:
        j.append(DEAL)
        for _ in range(40):
            j.append(ev)
        j.prepare()
    t = time.ticks_ms()
    again = FlashJournals(NorFlash(sectors, data=dev.data, share=True)).last()
    scan = time.ticks_diff(time.ticks_ms(), t)
    print("play_us %d" % round(play))
    print("bid_us %d" % round(short))
    print("play_fw_us %d" % round(fw))
    print("play_bytes %d" % worst)
    print("scan_ms %d" % scan)
    print("scan_records %d" % len(again))
    print("scan_kb %d" % (sectors * 4))


main(int(sys.argv[1]) if len(sys.argv) > 1 else 2000,
     int(sys.argv[2]) if len(sys.argv) > 2 else 16)
