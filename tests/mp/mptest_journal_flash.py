# The journal in its own flash area (firmware/table/flash_log.py, flash_record.py, journal.py
# ``FlashJournals``) on the emulated NOR flash of host_sim/vm/nor_flash.py,
# in every runtime: CPython, the unix port (64-bit, heap measured) and the
# wasm port (32-bit: small ints stop at 2**30).  docs/record-format.md,
# "Journal on the device", is what is checked.
#
# * lines go on flash and come back as written, a card play formatted
#   directly being the canonical line; sessions are named and numbered on;
# * a power cut in and after every erase and page program of a stream of
#   sessions on a small area (the ring wraps, old sessions are dropped): the
#   area read back holds every line whose append had returned, no line that
#   was never written, and the table writes on after it;
# * a torn record is skipped and never programmed over; a half-erased sector
#   and a cut header are erased again before use; a line too long for a
#   record, a failing chip and corrupt bytes are refused with a stable word
#   and change nothing else;
# * the space rules: a deal only when a whole one fits, oldest finished
#   sessions first, the running one never, erasing ahead keeps every append
#   from erasing;
# * a card play's append allocates nothing (mem_total, heap_lock).
# mp-heapsize: 1m
import gc

try:
    import micropython
except ImportError:  # CPython
    micropython = None

from mpcheck import not_applicable

try:
    from nor_flash import NorFlash, apply_op, half
except ImportError:  # CPython: the package's module
    from host_sim.vm.nor_flash import NorFlash, apply_op, half

from table import flash_record as L
from table.journal import line_of, session_name
from table.journal_flash import FlashJournals
from tapp.jsonout import dumps
from tapp.record import with_crc

HEADER = {"record": 1, "variant": "tapp_modern", "players": 3, "first_dealer": 0,
          "mode": "open", "seats": ["A", "B", "C"]}
DEAL = {"ev": "deal", "dealer": 0, "hands": None, "talon": None}
CARDS = ("HA", "S10", "D7", "CQ", "CJ", "H9")


def _play(k):
    return {"ev": "play", "seat": k % 3, "card": CARDS[k % len(CARDS)]}


def _long(k):
    """A line over two pages (the long path: written page by page)."""
    return {"ev": "bid", "seat": k % 3, "call": "pass", "note": "n" * (500 + k % 40)}


def _deal_events(k, plays=12):
    out = [DEAL]
    for i in range(plays):
        out.append(_long(k + i) if i == 5 else _play(k + i))
    return out


def _session(sessions=3, deals=3):
    """[(header, events)] a stream of sessions (the headers tell them apart)."""
    out = []
    for s in range(sessions):
        header = dict(HEADER, first_dealer=s % 3)
        events = []
        for d in range(deals):
            events += _deal_events(7 * s + d)
        out.append((header, events))
    return out


def _lines(journal):
    return list(journal.read_lines())


def test_lines_come_back_as_written_and_sessions_are_named():
    dev = NorFlash(8)
    store = FlashJournals(dev)
    assert store.last() is None and store.sessions() == []
    j = store.create(HEADER)
    events = _deal_events(1) + [{"ev": "undo"}] + _deal_events(2)
    for ev in events:
        j.append(ev)
    want = [with_crc(dumps(HEADER))] + [line_of(ev) for ev in events]
    assert not j.failed and _lines(j) == want and len(j) == len(want)
    assert j.tail(3) == want[-3:] and j.line(0) == want[0] and j.line(7) == want[7]
    assert j.name() == "s0001.jsonl" and j.deals == 2
    dev = NorFlash(8, data=dev.data)                       # a power-up
    again = FlashJournals(dev)
    k = again.last()
    assert _lines(k) == want and k.deals == 2 and k.dropped == 0 and len(k) == len(want)
    assert k.tail(40) == want[-32:]
    size = sum(len(x) + 1 for x in want)
    assert again.sessions() == [("s0001.jsonl", size)] == store.sessions()
    second = again.create(dict(HEADER, first_dealer=1))
    second.append(DEAL)
    assert [n for n, _ in again.sessions()] == ["s0001.jsonl", "s0002.jsonl"]
    assert list(again.lines("s0001.jsonl")) == want
    assert again.lines("s0003.jsonl") is None and session_name(12) == "s0012.jsonl"
    third = FlashJournals(NorFlash(8, data=dev.data))
    assert _lines(third.last()) == [with_crc(dumps(dict(HEADER, first_dealer=1))),
                                    line_of(DEAL)]


def test_a_card_play_is_the_canonical_line():
    """Formatted straight into the page buffer: the text tapp.jsonout.dumps
    and the CRC give, for every seat and card."""
    from tapp.cards import CARD_CODES
    dev = NorFlash(8)
    j = FlashJournals(dev).create(HEADER)
    events = [{"ev": "play", "seat": seat, "card": code}
              for seat in range(6) for code in CARD_CODES]
    for ev in events:
        j.append(ev)
    assert _lines(j)[1:] == [with_crc(dumps(ev)) for ev in events]


def _near_the_edge():
    """Events whose JSON is a few bytes either side of the longest line written
    through the small buffer (journal_flash._SHORT), texts that need escaping,
    hands, calls."""
    from table.journal_flash import _SHORT
    out = [{"ev": "hand", "seat": 2, "cards": list(CARDS) * 2},
           {"ev": "bid", "seat": 1, "call": "Solo", "note": 'J\u00fcrg "\\ \u2665 \U0001f0a1'},
           {"ev": "announce", "seat": 0, "announce": ["kontra"], "options": None},
           {"ev": "undo"}]
    base = len(dumps({"ev": "bid", "seat": 1, "note": ""}))
    for extra in range(-3, 4):
        out.append({"ev": "bid", "seat": 1, "note": "n" * (_SHORT - 9 - base + extra)})
    return out


def test_another_events_line_is_the_canonical_line():
    """Written through a small fixed buffer (tapp/jsonout.py JsonBytes), or through
    dumps where longer: the text dumps and the CRC give, on every runtime."""
    dev = NorFlash(8)
    j = FlashJournals(dev).create(HEADER)
    events = _near_the_edge()
    for ev in events:
        j.append(ev)
    want = [line_of(ev) for ev in events]
    assert not j.failed and _lines(j)[1:] == want
    again = FlashJournals(NorFlash(8, data=dev.data)).last()
    assert _lines(again)[1:] == want


def test_a_bid_or_a_hand_allocates_a_view_per_text():
    """A bid's line (the auction) and a hand's (a deal's end): a memoryview
    per str and one of the buffer, no list of pieces, no joined line (some
    1.5 KB a line through dumps on the Pico)."""
    if micropython is None or not hasattr(micropython, "mem_total"):
        not_applicable("no micropython.mem_total() on this port")
    store, j, _ev = _playing()
    dev = store.log.dev
    events = [{"ev": "bid", "seat": 1, "call": "pass"},
              {"ev": "hand", "seat": 0, "cards": list(CARDS)}]
    gc.collect()
    for ev in events:
        texts = 2 + 2 * len(ev) + len(ev.get("cards", ()))
        own = dev.own
        t = micropython.mem_total()
        j.append(ev)
        used = micropython.mem_total() - t - (dev.own - own)
        assert used <= 48 * texts, (ev, used, texts)
    assert not j.failed and _lines(j)[-2:] == [line_of(ev) for ev in events]


# ----- power cuts ------------------------------------------------------------------


class Run:
    """The uncut run of a stream of sessions on ``sectors`` sectors, every
    operation logged; per operation what had returned before it: the
    session's name and its lines."""

    def __init__(self, sessions, sectors, ahead_every=5):
        self.sectors = sectors
        dev = NorFlash(sectors)
        self.snapshot = bytes(dev.data)
        dev.start_log()
        self.kept = []               # per operation: (session name, lines returned)
        self.lines = {}              # session name -> its lines as written
        state = ["", 0]
        dev.watch = lambda ops: self.kept.append((state[0], state[1]))
        store = FlashJournals(dev)
        k = 0
        for header, events in sessions:
            j = store.create(header)
            assert not j.failed
            name = j.name()
            state[0] = name
            state[1] = 1
            for ev in events:
                j.append(ev)
                assert not j.failed, (name, ev)
                state[1] += 1
                k += 1
                if k % ahead_every == 0:
                    j.prepare()              # the table's idle moments
            self.lines[name] = _lines(j)
        self.log = dev.log
        self.dev = dev
        self.store = store
        assert len(self.kept) == len(self.log)


def _check_cut(run, i, image, stats):
    """The area after a cut in operation i: every line returned is there, no
    line that was not written, and the table writes on."""
    name, returned = run.kept[i]
    dev = NorFlash(run.sectors, data=image, share=True)   # (no copy: the VM's heap is small)
    store = FlashJournals(dev)
    for n, _size in store.sessions():
        got = list(store.lines(n))
        assert got == run.lines[n][:len(got)], (i, n)          # nothing invented
    last = store.last()
    assert last is not None or not name, i
    if last is None:
        stats["none"] += 1
        return
    got = _lines(last)
    if last.name() == name:
        assert returned <= len(got) <= returned + 1, (i, name, returned, len(got))
        stats["new" if len(got) > returned else "kept"] += 1
    else:                                # the next session was being started
        assert last.name() > name and len(got) == 1, (i, name, last.name())
        stats["started"] += 1
        assert name in [n for n, _ in store.sessions()] or not name, i
    nxt = {"ev": "undo"}
    last.append(nxt)
    assert not last.failed, i
    again = FlashJournals(NorFlash(run.sectors, data=dev.data, share=True)).last()
    assert _lines(again) == got + [line_of(nxt)], i


def sweep(run, every=1):
    flash = bytearray(run.snapshot)
    image = bytearray(len(flash))
    stats = {"kept": 0, "new": 0, "none": 0, "started": 0, "cuts": 0}
    block = L.SECTOR
    for i, op in enumerate(run.log):
        if i % every == 0 or i == len(run.log) - 1:
            for done in (1, half(op), None):
                image[:] = flash
                _apply(image, op, block, done)
                _check_cut(run, i, image, stats)
                stats["cuts"] += 1
        _apply(flash, op, block, None)
    assert flash == run.dev.data          # the replayed cuts rebuild the uncut run
    return stats


def _apply(data, op, block, done):
    apply_op(data, block, op, done)


def test_a_power_cut_in_and_after_every_operation():
    """Four sessions of four deals on five sectors: the ring wraps and the
    oldest sessions are dropped; about 800 cuts (400 in the VMs), each inside
    an operation (after its first byte, half-way) and after it."""
    run = Run(_session(4, 4), 5)
    assert run.dev.erases > run.sectors                      # the ring came round
    assert run.store.sessions()[0][0] != "s0001.jsonl"      # the oldest went
    gc.collect()
    stats = sweep(run, every=1 if micropython is None else 2)
    print("flash cuts: %d operations (%d erases), %d cuts: %r" % (
        len(run.log), sum(1 for op in run.log if op[1] < 0), stats["cuts"], stats))
    assert stats["cuts"] >= 300 and stats["kept"] and stats["new"] and stats["started"]


def test_a_live_cut_leaves_what_the_replayed_cut_rebuilds():
    """The firmware is deterministic: the same appends with the power really
    cut at operation i leave the image ``sweep`` rebuilds."""
    sessions = _session(1, 2)
    run = Run(sessions, 4)
    header, events = sessions[0]
    checked = 0
    for i in (0, 3, len(run.log) // 2, len(run.log) - 2):
        for done in (1, half(run.log[i]), None):
            dev = NorFlash(4)
            dev.cut_at(i + 1, done)
            store = FlashJournals(dev)
            j = store.create(header)
            for k, ev in enumerate(events):
                j.append(ev)
                if (k + 1) % 5 == 0:
                    j.prepare()
            image = bytearray(run.snapshot)
            for op in run.log[:i]:
                _apply(image, op, L.SECTOR, None)
            _apply(image, run.log[i], L.SECTOR, done)
            assert dev.data == image, (i, done)
            checked += 1
    assert checked == 12


def test_a_torn_record_is_skipped_and_never_programmed_over():
    dev = NorFlash(4)
    store = FlashJournals(dev)
    j = store.create(HEADER)
    for k in range(3):
        j.append(_play(k))
    lines = _lines(j)
    r = FlashJournals(NorFlash(4, data=dev.data)).log.wpos % L.PAGE
    dev.cut_at(1, r + 20)                  # the next record: its first 20 bytes only
    j.append(_long(1))
    dev = dev.power_on()
    store = FlashJournals(dev)
    k = store.last()
    assert _lines(k) == lines and k.dropped == 1
    torn_at = store.log.wsec, store.log.wpos
    before = bytes(dev.data)
    k.append(_play(9))
    k.append(_play(10))
    got = _lines(FlashJournals(NorFlash(4, data=dev.data)).last())
    assert got == lines + [line_of(_play(9)), line_of(_play(10))]
    s, pos = torn_at
    assert pos % L.PAGE == 0                             # on at the next page
    start = s * L.SECTOR
    changed = [a for a in range(len(before)) if before[a] != dev.data[a]]
    assert changed and min(changed) >= start + pos       # nothing before it touched


def test_a_half_erased_sector_is_erased_again():
    for done in (0, 100, L.SECTOR // 2, L.SECTOR - 1, None):
        dev = NorFlash(4)
        store = FlashJournals(dev)
        j = store.create(HEADER)
        j.append(DEAL)
        erases = dev.erases
        dev.cut_at(1, done)                    # the erase ahead, cut
        j.prepare()
        dev = dev.power_on()
        store = FlashJournals(dev)
        k = store.last()
        assert _lines(k) == [with_crc(dumps(HEADER)), line_of(DEAL)], done
        assert k.prepare() is True, done       # not taken for prepared: erased again
        assert dev.erases == 1 and erases == 1


def test_a_cut_header_is_not_a_sector():
    dev = NorFlash(4)
    store = FlashJournals(dev)
    j = store.create(HEADER)
    dev.cut_at(2, 8)                           # erase whole, the header's page cut
    j.prepare()
    dev = dev.power_on()
    store = FlashJournals(dev)
    assert store.log.free_sectors() == 3       # the cut one is free, to be erased again
    k = store.last()
    assert k.prepare() and dev.erases == 1
    k.append(DEAL)
    assert len(_lines(FlashJournals(NorFlash(4, data=dev.data)).last())) == 2


def test_what_the_flash_cannot_keep_is_refused_with_a_word():
    dev = NorFlash(4)
    store = FlashJournals(dev)
    j = store.create(HEADER)
    j.append(DEAL)
    before = bytes(dev.data)
    j.append({"ev": "bid", "seat": 0, "call": "pass", "note": "x" * L.MAX_LINE})
    assert j.failed and j.refused == "line_too_long" and bytes(dev.data) == before
    again = j.reopen()
    assert again is not None and not again.failed and len(again) == 2
    dev.refuse = True                          # the chip fails
    again.append(_play(1))
    assert again.failed and again.refused == "flash_error"
    dev.refuse = False
    third = again.reopen()
    assert _lines(third) == [with_crc(dumps(HEADER)), line_of(DEAL)]
    third.append(_play(2))
    assert not third.failed and len(_lines(third)) == 3
    before = bytes(dev.data)                   # a header too long for a record
    big = store.create(dict(HEADER, note="y" * L.MAX_LINE))
    assert big.failed and big.refused == "line_too_long" and big.reopen() is None
    assert [n for n, _ in store.sessions()] == ["s0001.jsonl"] and bytes(dev.data) == before


def test_corrupt_bytes_cost_only_their_record():
    dev = NorFlash(4)
    j = FlashJournals(dev).create(HEADER)
    for k in range(6):
        j.append(_play(k))
    lines = _lines(j)
    a = L.SECTOR * FlashJournals(NorFlash(4, data=dev.data)).log.wsec + L.HEAD
    a += len(with_crc(dumps(HEADER))) + 6 + 4 + 10       # inside the first play's line
    dev.data[a] &= 0x0F
    k = FlashJournals(NorFlash(4, data=dev.data)).last()
    got = _lines(k)
    assert k.dropped == 1 and got == lines[:1] + lines[2:], (got, lines)


# ----- space ------------------------------------------------------------------------


def _fill(journal, deals, plays=20):
    for _ in range(deals):
        journal.append(DEAL)
        if journal.failed:
            return
        for k in range(plays):
            journal.append(_play(k))


def test_a_deal_starts_only_when_a_whole_deal_fits():
    dev = NorFlash(6)
    j = FlashJournals(dev).create(HEADER)
    _fill(j, 100)
    assert j.failed and j.refused == "no_room"
    deals = j.deals
    again = j.reopen()
    lines = _lines(again)
    assert len(lines) == 1 + 21 * deals and again.deals == deals   # every deal whole
    assert again.deals_left() == 0 and again.free_bytes() < again.deal_bytes()
    before = bytes(dev.data)
    again.append(DEAL)
    assert again.failed and bytes(dev.data) == before


def test_old_sessions_go_oldest_first_the_running_one_never():
    dev = NorFlash(12)
    store = FlashJournals(dev)
    names = []
    for s in range(4):
        j = store.create(dict(HEADER, first_dealer=s % 3))
        _fill(j, 6)
        assert not j.failed
        names.append(j.name())
    running = store.create(HEADER)
    left = [n for n, _ in store.sessions()]
    assert left[-1] == running.name() and running.name() == "s0005.jsonl"
    gone = [n for n in names if n not in left]
    assert gone == names[:len(gone)] and gone          # the oldest first
    _fill(running, 200)
    assert running.failed
    left = [n for n, _ in store.sessions()]
    assert left == [running.name()]                    # every finished one made room
    assert running.deals > 10
    after = FlashJournals(NorFlash(12, data=dev.data))  # and so after a power-up
    assert [n for n, _ in after.sessions()] == left
    assert after.create(HEADER).name() == "s0006.jsonl"


def test_the_newest_finished_session_stays_while_a_deal_fits():
    store = FlashJournals(NorFlash(32))
    first = store.create(HEADER)
    _fill(first, 10)
    second = store.create(HEADER)
    _fill(second, 3)
    assert [n for n, _ in store.sessions()] == ["s0001.jsonl", "s0002.jsonl"]


def test_erasing_ahead_keeps_every_append_from_erasing():
    dev = NorFlash(8)
    store = FlashJournals(dev)
    j = store.create(HEADER)
    assert j.prepare() is True and j.prepare() is False     # one sector ahead is enough
    for _ in range(20):
        _fill(j, 1)
        j.prepare()                              # (the table: when nothing waits)
    log = store.log
    assert log.fallbacks == 1 and log.prepared >= 4 and dev.erases == log.erases
    # (the one fallback: the first session's header on a blank area)
    print("per card: %.2f programs; %d bytes a deal" % (
        log.programs / (20 * 21), j.deal_bytes()))


# ----- the heap ---------------------------------------------------------------------


def _playing():
    """A session on a fresh area, its deal journalled: (store, journal, a play event)."""
    dev = NorFlash(16)
    store = FlashJournals(dev)
    j = store.create(HEADER)
    j.append(DEAL)
    return store, j, {"ev": "play", "seat": 0, "card": "HA"}


def test_a_card_play_allocates_nothing():
    """mem_total() around each append (the emulated flash's own bytes left
    out), sector changes included."""
    if micropython is None or not hasattr(micropython, "mem_total"):
        not_applicable("no micropython.mem_total() on this port")
    store, j, ev = _playing()
    dev = store.log.dev
    gc.collect()
    worst = 0
    fallbacks = store.log.fallbacks
    for k in range(300):
        ev["seat"] = k % 3
        ev["card"] = CARDS[k % len(CARDS)]
        own = dev.own
        t = micropython.mem_total()
        j.append(ev)
        worst = max(worst, micropython.mem_total() - t - (dev.own - own))
        if k == 150:
            j.prepare()                      # one sector erased ahead, the others not
    assert worst == 0 and not j.failed, worst
    # appends that erased a sector themselves (no erase ahead): nothing allocated either
    assert store.log.fallbacks > fallbacks and store.log.prepared >= 1


def test_a_hundred_card_plays_with_the_heap_locked():
    """heap_lock() over a hundred appends (every port with heap_lock: the wasm
    port too, which has no mem_total())."""
    if micropython is None:
        not_applicable("no micropython.heap_lock() (CPython)")
    _store, j, ev = _playing()
    j.append(ev)
    n = [0]

    def plays():
        while n[0] < 100:
            j.append(ev)
            n[0] += 1
    micropython.heap_lock()
    try:
        plays()
    finally:
        micropython.heap_unlock()
    assert n[0] == 100 and not j.failed
