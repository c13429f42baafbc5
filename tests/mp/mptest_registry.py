# The deck registry, enrolment and settings (firmware/table/registry.py,
# enrol.py, settings.py) under real MicroPython.
#
# * lookup allocates nothing: micropython.heap_lock() around many lookups of
#   memoryview UIDs (4, 7 and 10 bytes, known and unknown) and of the real
#   ReaderSet's uid_view over this folder's MFRC522 chip fake; mem_total()
#   flat where the unix port has it; packed values are small ints on the
#   32-bit port;
# * persistence: enrol, save, reload, export/import, a corrupt file refused
#   while the other decks load, settings round trip.  On the unix port the
#   root is a littlefs v2 file system (vfs.VfsLfs2, what the Pico uses) on
#   the emulated flash of mpflash.py; the wasm port has no VfsLfs2 but a writable in-memory
#   file system, so there the root is a folder in it;
# * power cuts on littlefs (unix port only: the wasm port lacks VfsLfs2, the
#   test says it does not apply there, mpcheck.py): a deck save is cut in every flash
#   operation in turn (erase or program, done half); after "power on" the deck file
#   is the old or the new one, never corrupt.
# The emulated flash keeps 16 KB erase images on the VM's heap beside the table's
# modules (a heap budget is mptest_app_heap's job, not this file's):
# mp-heapsize: 768k
import os

import mpflash as F_
import mptest_mfrc522 as F
from mpcheck import not_applicable

from table import enrol as E
from table import registry as R
from table import settings as S

try:
    import micropython
except ImportError:  # CPython
    micropython = None

if micropython is None:  # CPython: littlefs (host_sim/lfs_vfs.py) found by path, as on the device
    from host_sim import flash as host_flash

    host_flash.install()
    os = host_flash.FlashOs()
    open = host_flash.flash_open

LFS = F_.LFS
MOUNT = "/mpreg_lfs"
PLAIN = "/mpreg_tmp"   # in the wasm port's in-memory file system
if micropython is None:  # CPython (mprunner.py runs there too): the host's temp folder
    import tempfile
    PLAIN = tempfile.gettempdir() + "/mpreg_tmp"
BLOCK = 512
BLOCKS = 32


def _mem_total():
    f = getattr(micropython, "mem_total", None) if micropython is not None else None
    return f() if f is not None else None


def _locked(fn):
    """Run a zero-argument closure with the heap locked; check mem_total() too
    (a big frame goes on the C stack only while the heap is locked)."""
    before = _mem_total()
    if micropython is not None:
        micropython.heap_lock()
    try:
        res = fn()
    finally:
        if micropython is not None:
            micropython.heap_unlock()
    after = _mem_total()
    if before is not None:
        assert after == before, "allocated %d bytes" % (after - before)
    return res


def _uid(deck, card, n):
    b = bytearray(n)
    b[0] = 0x04
    b[1] = deck
    b[2] = card
    k = 3
    while k < n:
        b[k] = (deck * 7 + card * 13 + k) & 255
        k += 1
    return bytes(b)


def _full(reg, deck_id, kind, n=7):
    assert reg.create_deck(deck_id, kind) == R.OK
    for c in R.kind_cards(kind):
        assert reg.add(deck_id, c, _uid(deck_id, c, n)) == R.OK


# ---------------------------------------------------------------- lookup, heap locked


def test_lookup_allocates_nothing():
    reg = R.Registry(None)
    _full(reg, 1, "d36", 7)
    _full(reg, 2, "d32", 4)
    _full(reg, 99, "d24", 10)
    # UIDs as the reader driver hands them out: memoryview slices of one buffer
    bufs = []
    views = []
    want = []
    for deck_id, c, n in ((1, 0, 7), (1, 35, 7), (2, 16, 4), (99, 32, 10), (99, 0, 10)):
        b = bytearray(10)
        b[:n] = _uid(deck_id, c, n)
        bufs.append(b)
        views.append(memoryview(b)[:n])
        want.append(deck_id * 64 + c)
    for n in (4, 7, 10, 0):   # unknown tags
        b = bytearray(10)
        b[0] = 0xEE
        bufs.append(b)
        views.append(memoryview(b)[:n])
        want.append(-1)
    views = tuple(views)
    got = [0] * len(views)
    k = len(views)

    def lookups():
        rounds = 0
        while rounds < 50:
            i = 0
            while i < k:
                got[i] = reg.lookup(views[i])
                i += 1
            rounds += 1
        return got[3]

    assert _locked(lookups) == 99 * 64 + 32
    assert got == want, got
    assert 99 * 64 + 35 < (1 << 30)   # a small int on every port


def test_lookup_of_the_reader_set_uid_view_allocates_nothing():
    reg = R.Registry(None)
    _full(reg, 3, "d24", 7)
    bus, chips, rs = F.setup_readers(1)

    def polls():
        k = 0
        while k < 5:
            rs.poll(0)
            k += 1

    def look():
        return reg.lookup(rs.uid_view(0))

    chips[0].put(_uid(3, 20, 7))
    polls()
    assert len(rs.uid_view(0)) == 7
    assert _locked(look) == 3 * 64 + 20
    chips[0].put(b"\xde\xad\xbe\xef")
    polls()
    assert len(rs.uid_view(0)) == 4
    assert _locked(look) == -1
    chips[0].uid_len = 0
    polls()
    assert len(rs.uid_view(0)) == 0
    assert _locked(look) == -1


# ---------------------------------------------------------------- file system roots


def _mount(bd):
    return F_.mount(bd, MOUNT)


def _umount():
    F_.umount(MOUNT)


def _with_root(fn):
    """fn(root) on a fresh littlefs (unix) or a fresh folder (wasm MEMFS, CPython)."""
    if LFS:
        bd = F_.FlashDev(BLOCKS, BLOCK)
        F_.format_lfs(bd)
        root = _mount(bd)
        try:
            fn(root)
        finally:
            _umount()
    else:
        F_.rmtree(PLAIN)
        os.mkdir(PLAIN)
        try:
            fn(PLAIN)
        finally:
            F_.rmtree(PLAIN)


# ---------------------------------------------------------------- persistence


def test_persistence_round_trip():
    def run(root):
        reg = R.Registry(root)
        assert reg.load() == []
        e = E.Enrolment(reg, 1, "d36")
        while e.expected() >= 0:
            assert e.offer(_uid(1, e.expected(), 7)) == E.ACCEPTED
        _full(reg, 2, "d24", 4)
        assert reg.create_deck(3, "d32") == R.OK
        assert reg.add(3, 5, _uid(3, 5, 10)) == R.OK
        again = R.Registry(root)
        assert again.load() == []
        assert again.decks() == [(1, "d36", 36), (2, "d24", 24), (3, "d32", 1)]
        assert again.lookup(memoryview(_uid(1, 35, 7))) == 64 + 35
        assert again.lookup(_uid(2, 0, 4)) == 128
        assert again.lookup(_uid(3, 5, 10)) == 3 * 64 + 5
        for d in (1, 2, 3):
            assert again.export(d) == reg.export(d)
        # resume: a new enrolment on the reloaded registry asks for the next card
        e2 = E.Enrolment(again, 3, "d32")
        assert e2.expected() == 0 and e2.progress() == (1, 32)
        # export / import into a memory-only registry
        mem = R.Registry(None)
        assert mem.import_lines(reg.export(1)) == (R.OK, 1, "")
        assert mem.lookup(_uid(1, 17, 7)) == 64 + 17
        # a corrupt file is refused, the other decks load
        path = root + "/decks/2.txt"
        f = open(path, "rb")
        data = bytearray(f.read())
        f.close()
        data[len(data) - 3] ^= 1
        f = open(path, "wb")
        f.write(data)
        f.close()
        third = R.Registry(root)
        problems = third.load()
        assert problems == [("2.txt", R.CORRUPT, "CRC mismatch")], problems
        assert third.decks() == [(1, "d36", 36), (3, "d32", 1)]
        assert third.remove_deck(1) == R.OK
        assert sorted(os.listdir(root + "/decks")) == ["2.txt", "3.txt"]

    _with_root(run)


def test_settings_round_trip():
    def run(root):
        s = S.Settings(root)
        assert s.load() == []
        assert s.players == 3 and s.variant == "tapp_modern" and s.referee_pin is None
        assert s.set("players", 4) and s.set("seat_names", ["Anna", "Jürgen"])
        assert s.set("options", {"pack": 32}) and s.set("referee_pin", "4711")
        assert s.save()
        t = S.Settings(root)
        assert t.load() == []
        assert t.as_dict() == s.as_dict()
        assert t.seats() == ["Anna", "Jürgen", "Platz 3", "Platz 4"]
        f = open(root + "/settings.json", "w")
        f.write('{"players": 4,')
        f.close()
        u = S.Settings(root)
        assert u.load() == ["settings.json: corrupt, using the defaults"]
        assert u.players == 3

    _with_root(run)


# ---------------------------------------------------------------- power cuts on littlefs


def _deck_after_cut(image, cut):
    """Mount a copy of ``image``, remove card 0 of deck 1 with the power cut
    in flash operation ``cut`` (done half; -1: no cut); then power on and
    load.  Returns (problems, cards of deck 1, flash operations the save made)."""
    bd = F_.FlashDev(BLOCKS, BLOCK, image)
    _mount(bd)
    try:
        reg = R.Registry(MOUNT)
        assert reg.load() == []
        bd.ops = 0
        if cut > 0:
            bd.cut_at(cut, half=True)
        try:
            reg.remove_card(1, 0)
        except OSError:
            pass
        writes = bd.ops
    finally:
        _umount()
    after = bd.power_on()   # power on: what reached the flash
    _mount(after)
    try:
        again = R.Registry(MOUNT)
        problems = again.load()
        n = again.count(1)
    finally:
        _umount()
    return problems, n, writes


def test_power_cut_during_a_deck_save_on_littlefs():
    if not LFS:
        not_applicable("no vfs.VfsLfs2 (littlefs) on this port")
    bd = F_.FlashDev(BLOCKS, BLOCK)
    F_.format_lfs(bd)
    _mount(bd)
    try:
        reg = R.Registry(MOUNT)
        _full(reg, 1, "d36", 7)
        _full(reg, 2, "d24", 4)
    finally:
        _umount()
    image = bytes(bd.data)
    problems, n, writes = _deck_after_cut(image, -1)
    assert problems == [] and n == 35 and writes > 0   # the save, not cut
    cut = 1
    while cut <= writes:   # the cut-th operation half done, the rest lost
        problems, n, _ = _deck_after_cut(image, cut)
        assert problems == [], (cut, problems)
        assert n in (35, 36), (cut, n)   # the new or the old file
        cut += 1
