"""Reader chaos: six MFRC522 chip models on one emulated bus, the real
``ReaderSet`` polling them and the card-presence arbiter
(``firmware/table/presence.py``) on top, while a seeded random "table" plays
cards the rough way: short and long stays, cards moved quickly between
readers (and back), a second card on a reader (collision), flaky stickers,
field drop-outs (a tag that stops answering for up to 150 ms), supply dips
(``brownout()``) and readers that stop answering for up to 3 s
(``disconnect()``).

Everything runs on the bus's virtual clock (each poll costs its real bus time,
plus 0.5 ms of application work), so a run is reproducible from its seed.

Counted against the physical truth, for the driver's debounced reports and for
the arbiter's events:

* ``wrong_uids``: a UID reported/placed on a reader it was not on (in the last
  second) -- must be 0;
* ``missed``: a card that lay on a reader for at least 0.8 s of clean time (no
  second card, no drop-out, the reader not disconnected or backing off) and
  was never reported/placed there -- must be 0;
* ``repeats``: a second report/placement of the same card on the same reader
  during one stay -- the arbiter's must be 0;
* ``two_seat``: moments when one UID is reported/placed on two readers at
  once -- the arbiter's must be 0;
* ``stale_at_end``: cards still placed after everything was taken away and
  every reader worked again -- must be 0.

``chaos_report(seed, steps)`` returns the counts as a dict; ``main()`` prints
them (``python -m tools.tapptable.bench_readers [steps] [seed]``).
"""

from __future__ import annotations

import heapq
import importlib
import random
import sys
import time
from pathlib import Path

from drivers import mfrc522 as M
from host_sim.board import reader_rig
from host_sim.mfrc522_model import Tag


def _presence():
    """firmware/table/presence.py (``table`` is a firmware package like ``drivers``)."""
    try:
        return importlib.import_module("table.presence")
    except ImportError:
        fw = str(Path(__file__).resolve().parents[2] / "firmware")
        if fw not in sys.path:
            sys.path.append(fw)
        return importlib.import_module("table.presence")


P = _presence()

LAG_MS = 1000  # a report may come this long after the card left
CLEAN_MS = 800  # a stay with this much clean time must be reported
BACKOFF_TAIL_MS = 2100  # after a reconnect the reader may wait one more back-off
APP_US = 500  # the application's own work per poll


class _Stay:
    __slots__ = ("r", "k", "t_on", "t_off", "drv_seen", "drv_reports", "arb_seen",
                 "arb_placed")

    def __init__(self, r, k, t_on):
        self.r = r
        self.k = k
        self.t_on = t_on
        self.t_off = None
        self.drv_seen = False
        self.drv_reports = 0
        self.arb_seen = False
        self.arb_placed = 0


class Chaos:
    """One seeded run; ``run(steps)`` then ``report()``."""

    def __init__(self, seed, n=6, cards=36, settle_ms=100, gone_ms=200):
        self.seed = seed
        self.rnd = random.Random(seed)
        self.n = n
        self.rig = reader_rig(n)
        self.rs = self.rig.rs
        self.clock = self.rig.bus.clock
        self.arb = P.Presence(n, settle_ms=settle_ms, gone_ms=gone_ms, queue=32)
        rnd = self.rnd
        self.tags = []
        for k in range(cards):
            if k % 5 == 4:
                uid = bytes((0x30 + k, 0x11, 0x22, k))  # some 4-byte MIFARE cards
            else:
                uid = bytes((0x04, k, 0xA0, 0xB0, 0xC0, k ^ 0x5A, 0x80))
            flaky = None
            if k % 4 == 1:  # a weak sticker: misses now and then, never twice running
                flaky = tuple(rnd.choice(((1, 1, 1, 0), (1, 1, 1, 1, 1, 0),
                                          (1, 1, 0, 1, 1, 1, 1, 1, 1))))
            self.tags.append(Tag(uid, flaky=flaky))
        self.index = {t.uid: k for k, t in enumerate(self.tags)}
        self.hand = list(range(cards))
        self.free = [True] * n
        self.on = [[] for _ in range(n)]
        self.disrupt = [[] for _ in range(n)]  # [t0, t1 or None]
        self.open_coll = [None] * n
        self.stays = []
        self.open_stay = {}
        self.last_stay = {}
        self.actions = []
        self.seq = 0
        self.c = dict(placements=0, moves=0, collisions=0, dropouts=0, brownouts=0,
                      disconnects=0, short_stays=0,
                      drv_wrong_uids=0, drv_repeats=0, drv_two_seat=0,
                      arb_wrong_uids=0, arb_repeats=0, arb_two_seat=0,
                      arb_double_placed=0, ev_placed=0, ev_lifted=0, ev_collision=0,
                      ev_fault=0, ev_back=0, ev_overflow=0)
        self.drv_dup = set()
        self.arb_where = {}
        self.steps = 0

    # ------------------------------------------------------------ time and actions
    def now(self):
        return self.clock.now_us / 1000.0

    def at(self, delay_ms, fn, *args):
        self.seq += 1
        heapq.heappush(self.actions, (self.clock.now_us + delay_ms * 1000, self.seq, fn, args))

    def _due(self):
        while self.actions and self.actions[0][0] <= self.clock.now_us:
            _, _, fn, args = heapq.heappop(self.actions)
            fn(*args)

    # ------------------------------------------------------------ the physical table
    def place(self, r, k):
        self.rig.chips[r].place(self.tags[k])
        self.on[r].append(k)
        self.c["placements"] += 1
        s = _Stay(r, k, self.now())
        self.stays.append(s)
        self.open_stay[(r, k)] = s
        if len(self.on[r]) == 2:
            self.open_coll[r] = [self.now(), None]
            self.disrupt[r].append(self.open_coll[r])

    def remove(self, r, k):
        self.rig.chips[r].remove(self.tags[k])
        self.on[r].remove(k)
        s = self.open_stay.pop((r, k))
        s.t_off = self.now()
        self.last_stay[(r, k)] = s
        if len(self.on[r]) == 1 and self.open_coll[r] is not None:
            self.open_coll[r][1] = self.now()
            self.open_coll[r] = None

    def mute(self, r, k, ms):
        self.tags[k].mute = True
        self.disrupt[r].append([self.now(), self.now() + ms])
        self.c["dropouts"] += 1
        self.at(ms, self._unmute, k)

    def _unmute(self, k):
        self.tags[k].mute = False

    def brownout(self, r):
        self.rig.chips[r].brownout()
        self.c["brownouts"] += 1

    def disconnect(self, r, ms):
        rnd = self.rnd
        self.rig.chips[r].disconnect(miso=rnd.choice((0x00, 0xFF)), power=rnd.random() < 0.5)
        self.disrupt[r].append([self.now(), self.now() + ms + BACKOFF_TAIL_MS])
        self.c["disconnects"] += 1
        self.at(ms, self.rig.chips[r].reconnect)

    def release(self, readers, cards):
        for r in readers:
            self.free[r] = True
        self.hand.extend(cards)

    # ------------------------------------------------------------ episodes
    def _start_episode(self):
        rnd = self.rnd
        free = [r for r in range(self.n) if self.free[r]]
        if not free or not self.hand:
            return
        kinds = ["play"] * 30 + ["short"] * 8 + ["collision"] * 12 + ["dropout"] * 10 + [
            "brownout"] * 6 + ["disconnect"] * 3
        if len(free) >= 2:
            kinds += ["move"] * 20 + ["return"] * 5
        if len(free) >= 3:
            kinds += ["chain"] * 8
        kind = rnd.choice(kinds)
        rnd.shuffle(free)
        r = free[0]
        k = self.hand.pop(rnd.randrange(len(self.hand)))
        self.free[r] = False
        self.place(r, k)
        if kind in ("play", "short"):
            stay = rnd.uniform(30, 250) if kind == "short" else rnd.uniform(300, 2500)
            self.c["short_stays"] += kind == "short"
            self.at(stay, self._end, [r], [(r, k)])
        elif kind in ("move", "chain", "return"):
            self.c["moves"] += 1
            path = [r, free[1]] if kind == "move" else (
                [r, free[1], free[2]] if kind == "chain" else [r, free[1], r])
            for q in path[1:]:
                self.free[q] = False
            self._hop(path, k, 0)
        elif kind == "collision":
            if not self.hand:
                self.at(rnd.uniform(300, 2000), self._end, [r], [(r, k)])
                return
            k2 = self.hand.pop(rnd.randrange(len(self.hand)))
            self.c["collisions"] += 1
            t1 = rnd.uniform(50, 1200)
            t2 = t1 + rnd.uniform(100, 800)
            t3 = t2 + rnd.uniform(300, 2000)
            self.at(t1, self.place, r, k2)
            gone, stays = (k2, k) if rnd.random() < 0.6 else (k, k2)
            self.at(t2, self.remove, r, gone)
            self.at(t3, self._end, [r], [(r, stays)], [gone])
        elif kind == "dropout":
            t = rnd.uniform(200, 800)
            for _ in range(rnd.randint(1, 3)):
                ms = rnd.uniform(20, 150)
                self.at(t, self.mute, r, k, ms)
                t += ms + rnd.uniform(200, 800)
            self.at(t, self._end, [r], [(r, k)])
        elif kind == "brownout":
            t = rnd.uniform(0, 1500)
            self.at(t, self.brownout, r)
            self.at(t + rnd.uniform(100, 1500), self._end, [r], [(r, k)])
        else:  # disconnect, a card on it or about to be
            t = rnd.uniform(0, 1000)
            ms = rnd.uniform(100, 3000)
            self.at(t, self.disconnect, r, ms)
            self.at(t + ms + rnd.uniform(200, 3000), self._end, [r], [(r, k)])

    def _hop(self, path, k, j):
        """Card k is on path[j]: after a stay, move it on to path[j + 1] (or end)."""
        rnd = self.rnd
        r = path[j]
        if j + 1 == len(path):
            self.at(rnd.uniform(300, 2500), self._end, sorted(set(path)), [(r, k)])
            return
        stay = rnd.uniform(50, 300) if 0 < j else rnd.uniform(150, 2000)
        gap = rnd.choice((0, 0, rnd.uniform(0, 100)))
        self.at(stay, self.remove, r, k)
        self.at(stay + gap, self._hop_on, path, k, j + 1)

    def _hop_on(self, path, k, j):
        self.place(path[j], k)
        self._hop(path, k, j)

    def _end(self, readers, lying, extra=()):
        for r, k in lying:
            self.remove(r, k)
        self.release(readers, [k for _, k in lying] + list(extra))

    # ------------------------------------------------------------ checking
    def _stay_for(self, r, uid):
        k = self.index.get(bytes(uid))
        if k is None:
            return None
        s = self.open_stay.get((r, k))
        if s is None:
            s = self.last_stay.get((r, k))
            if s is None or s.t_off < self.now() - LAG_MS:
                return None
        return s

    def _driver_report(self, i, changed):
        rs = self.rs
        if rs.status[i] != M.PRESENT:
            return
        uid = rs.uid_view(i)
        s = self._stay_for(i, uid)
        if s is None:
            if changed:
                self.c["drv_wrong_uids"] += 1
            return
        s.drv_seen = True
        if changed:
            s.drv_reports += 1
            if s.drv_reports > 1:
                self.c["drv_repeats"] += 1

    def _driver_two_seat(self):
        rs = self.rs
        seen = {}
        dup = set()
        for j in range(self.n):
            if rs.status[j] == M.PRESENT:
                u = rs.uid(j)
                if u in seen:
                    dup.add(u)
                seen[u] = j
        self.c["drv_two_seat"] += len(dup - self.drv_dup)
        self.drv_dup = dup

    def _arbiter_events(self):
        arb = self.arb
        while arb.pending():
            code = arb.pop()
            name = P.EVENT_NAMES[code]
            self.c["ev_" + ("collision" if name == "collision_over" else name.replace(
                "reader_", ""))] += name != "collision_over"
            if code == P.EV_PLACED:
                self._arb_placed(arb.reader, bytes(arb.uid_view()))
            elif code == P.EV_LIFTED:
                u = bytes(arb.uid_view())
                if self.arb_where.get(u) == arb.reader:
                    del self.arb_where[u]
        placed = {}
        buf = bytearray(10)
        for j in range(self.n):
            n = arb.placed_len(j)
            if n:
                u = bytes(buf[: arb.placed_uid(j, buf)])
                if u in placed:
                    self.c["arb_two_seat"] += 1
                placed[u] = j

    def _arb_placed(self, r, uid):
        if uid in self.arb_where:
            self.c["arb_double_placed"] += 1  # placed again without a lift
        self.arb_where[uid] = r
        s = self._stay_for(r, uid)
        if s is None:
            self.c["arb_wrong_uids"] += 1
            return
        s.arb_placed += 1
        if s.arb_placed > 1:
            self.c["arb_repeats"] += 1

    def _arbiter_state(self, i):
        buf = bytearray(10)
        n = self.arb.placed_uid(i, buf)
        if n:
            s = self._stay_for(i, buf[:n])
            if s is not None:
                s.arb_seen = True

    # ------------------------------------------------------------ running
    def step(self, start_episodes=True):
        i = self.steps % self.n
        self.steps += 1
        self._due()
        if start_episodes and self.rnd.random() < 0.08:
            self._start_episode()
        changed = self.rs.poll(i)
        self.clock.advance(APP_US)
        self.arb.feed(self.rs, i, self.rig.ticks_ms())
        self._arbiter_events()
        self._driver_report(i, changed)
        self._driver_two_seat()
        self._arbiter_state(i)

    def run(self, steps):
        for _ in range(steps):
            self.step()
        # wind down: let every episode end, then take every card away
        while self.actions:
            self.step(start_episodes=False)
        for r in range(self.n):
            for k in list(self.on[r]):
                self.remove(r, k)
            self.rig.chips[r].reconnect()
        end = self.clock.now_us + (BACKOFF_TAIL_MS + 2000) * 1000
        while self.clock.now_us < end:
            self.step(start_episodes=False)

    def _clean_ms(self, s):
        """The longest part of stay s without a disruption on its reader."""
        t_off = s.t_off if s.t_off is not None else self.now()
        cuts = sorted((max(a, s.t_on), min(b if b is not None else t_off, t_off))
                      for a, b in self.disrupt[s.r]
                      if a < t_off and (b is None or b > s.t_on))
        best, t = 0.0, s.t_on
        for a, b in cuts:
            if a > t:
                best = max(best, a - t)
            t = max(t, b)
        return max(best, t_off - t)

    def report(self):
        c = dict(self.c)
        due = [s for s in self.stays if self._clean_ms(s) >= CLEAN_MS]
        c["must_report"] = len(due)
        c["drv_missed"] = sum(not s.drv_seen for s in due)
        c["arb_missed"] = sum(not s.arb_seen for s in due)
        c["stale_at_end"] = sum(self.arb.placed_len(j) > 0 for j in range(self.n))
        c["faults"] = sum(self.rs.faults(j) for j in range(self.n))
        c["recoveries"] = sum(self.rs.recoveries(j) for j in range(self.n))
        c["overflows"] = self.arb.overflows
        c["virtual_s"] = round(self.clock.now_us / 1e6, 1)
        c["polls"] = self.steps
        c["seed"] = self.seed
        return c


def chaos_report(seed=1, steps=20000):
    """Run ``steps`` reader polls of seeded chaos; the counts as a dict (see module doc)."""
    ch = Chaos(seed)
    t0 = time.perf_counter()
    ch.run(steps)
    rep = ch.report()
    rep["wall_s"] = round(time.perf_counter() - t0, 1)
    return rep


MUST_BE_ZERO = ("drv_wrong_uids", "drv_missed", "arb_wrong_uids", "arb_missed", "arb_repeats",
                "arb_two_seat", "arb_double_placed", "stale_at_end", "overflows")


def print_report(rep):
    print("Reader chaos: 6 MFRC522 models, real ReaderSet + presence arbiter "
          "(seed %d, %d polls, %.1f s virtual, %.1f s wall)"
          % (rep["seed"], rep["polls"], rep["virtual_s"], rep["wall_s"]))
    print("  physical: %d placements (%d must be reported), %d moves, %d collisions, "
          "%d drop-outs, %d brownouts, %d disconnects"
          % (rep["placements"], rep["must_report"], rep["moves"], rep["collisions"],
             rep["dropouts"], rep["brownouts"], rep["disconnects"]))
    print("  readers:  %d faults, %d recoveries" % (rep["faults"], rep["recoveries"]))
    print("  %-22s %10s %10s" % ("", "driver", "arbiter"))
    for name, d, a in (("wrong UIDs (0)", "drv_wrong_uids", "arb_wrong_uids"),
                       ("missed (0)", "drv_missed", "arb_missed"),
                       ("repeats", "drv_repeats", "arb_repeats"),
                       ("two-seat moments", "drv_two_seat", "arb_two_seat")):
        print("  %-22s %10d %10d" % (name, rep[d], rep[a]))
    print("  arbiter events: %d placed, %d lifted, %d collision, %d fault, %d back; "
          "%d overflows, %d stale at end"
          % (rep["ev_placed"], rep["ev_lifted"], rep["ev_collision"], rep["ev_fault"],
             rep["ev_back"], rep["overflows"], rep["stale_at_end"]))
    bad = [k for k in MUST_BE_ZERO if rep[k]]
    print("  %s" % ("OK" if not bad else "FAILED: " + ", ".join(bad)))
    return not bad


def main(argv=None):
    argv = sys.argv[1:] if argv is None else argv
    steps = int(argv[0]) if argv else 20000
    seed = int(argv[1]) if len(argv) > 1 else 1
    return 0 if print_report(chaos_report(seed, steps)) else 1


if __name__ == "__main__":
    sys.exit(main())
