# The whole table application (firmware/table/app.py) inside real MicroPython,
# on a board of small in-VM fakes, against a hard heap limit.
# mp-heapsize: 640k
#
# The board: the real SSD1306 driver on an I2C fake that swallows (and counts)
# the bytes, the real ButtonPad on three fake pins, the real SeatLeds on a
# NeoPixel fake, the real Buzzer on a PWM fake, a ReaderSet fake (``status``,
# ``raw``, ``uid_view``, ``raw_uid_view``, ``poll``, ``arm``, ``n``: what
# presence.feed and app.py use) that reports the tags the script lays on each
# reader, and a clock the script moves 5 ms per step.  The flash is littlefs
# (mounted as the rp2 port does) on tests/mp/mpflash.py's emulated flash; the
# wasm port (no VfsLfs2) uses a folder of its in-memory file system.
#
# The device powers up as firmware/main.py does (table/power_up.py ``boot``:
# the registry, the settings, the last journal, the App) with a complete deck
# on flash; the script presses OK
# through the setup screens, deals every card of the variant's deck over the
# centre reader in the packet order (strict mode), answers the menus with the
# buttons (the plain game: the first to speak bids the lowest game, the rest
# pass, the first entry elsewhere), lays legal cards (picked with a strict
# shadow Session that follows the journal) on the seat readers, clears each
# trick, cuts the power once mid-deal (the board and the app are built again
# on the same flash, the cards stay on the readers), plays the deal out, reads
# the result and starts the next deal.  The jobs (app.JOBS) run as the
# device's asyncio loop would, each at its period on the fake clock.
#
# Tests (mprunner): the whole session of the largest table (herzblatt with 5
# players) runs within this module's heap -- 640k: the firmware is compiled
# from source in the VM, this runner too, and the emulated flash is a 64 KB
# bytearray in the heap; the session needs about 520k so (the screens are
# imported first: compiling their 1,000 lines needs a 4.7 KB block, which a
# heap cut up by the other modules' compiles lacked at 640k-680k but not at
# 620k or 700k -- a test artefact, the device loads compiled code); the app's own
# budget against the 256k goal is what tools/tapptable/bench_app_vm.py
# bisects -- ; mem_total() per card play through the whole app, by job:
# nothing allocates (not the journal, which formats the line into its page
# buffer and programs it on the journal's own flash area, not the game, not
# the redraw of the screen, not the polls; the play that ends a deal, settled
# by the engine, is counted apart); heap_lock() with mem_total() over the steady
# loop (every job, a second, the trick's cards lying on their readers,
# nothing happening), the readers' poll path and the display path, and the
# redraw of an unchanged screen (composed again, compared, nothing drawn).
#
# Script mode, for tools/tapptable/bench_app_vm.py (which bisects -X heapsize):
#   micropython mptest_app_heap.py session VARIANT PLAYERS [ROMFS_IMAGE]
#                                          [cut=PATH | resume=PATH]
# runs one session (the firmware imported from the ROMFS image when given:
# the image is read into a buffer in the heap and mounted with vfs.VfsRom)
# and prints ``key value`` lines; "session ok" last.  cut=PATH stops at the
# power cut and saves the flash and the table's state; resume=PATH powers up
# from them in a fresh VM (a fresh heap, as on the device) and plays on.
import gc
import sys

try:
    import micropython
except ImportError:  # CPython
    micropython = None

try:
    import vfs
except ImportError:  # CPython
    vfs = None

try:
    from time import ticks_diff, ticks_us
except ImportError:  # CPython
    from time import perf_counter_ns

    def ticks_us():
        return perf_counter_ns() // 1000

    def ticks_diff(a, b):
        return a - b

ROM = "/rom"
ROOT = "/mpapp_flash"
PLAIN = "/mpapp_tmp"          # a folder of the wasm port's in-memory file system
if micropython is None:       # CPython (mprunner.py runs there too)
    import tempfile
    PLAIN = tempfile.gettempdir() + "/mpapp_tmp"
FLASH_BLOCKS = 16             # 64 KB of 4096-byte erase blocks: decks and settings
JOURNAL_SECTORS = 8           # 32 KB: the journal's own flash area (table/flash_log.py)
STEP_MS = 5
SEATS = ("Anna", "Bert", "Cora", "Dieter", "Eva")   # setup presets (settings.SEAT_NAMES)
PASSES = ("pass", "weg")
DECK_ID = 1
CUT_AT_PLAY = [7]             # the power cut after this many plays (-1: none)

# reader states as drivers.reader_set.ReaderSet reports them (table/presence.py)
ABSENT = 0
PRESENT = 1


def mem_total():
    f = getattr(micropython, "mem_total", None) if micropython is not None else None
    return f() if f is not None else -1


def live():
    """Bytes of live heap after a collection; -1 where that cannot be measured
    (CPython; the wasm port, whose collector does not run inside a script, and
    which has no mem_total())."""
    if mem_total() < 0:
        return -1
    gc.collect()
    return gc.mem_alloc()


def mount_rom(path):
    """Read a ROMFS image into a buffer (in the heap: its size is returned) and
    import the firmware from it."""
    import os
    size = os.stat(path)[6]
    buf = bytearray(size)
    f = open(path, "rb")
    try:
        f.readinto(buf)
    finally:
        f.close()
    vfs.mount(vfs.VfsRom(buf), ROM)
    sys.path.insert(0, ROM)
    return size


class Lcg:
    """Deterministic small-int PRNG (no random module needed)."""

    def __init__(self, seed):
        self.x = seed % 1000003

    def below(self, n):
        self.x = (self.x * 1103 + 12345) % 1000003
        return self.x % n

    def shuffle(self, seq):
        for i in range(len(seq) - 1, 0, -1):
            j = self.below(i + 1)
            seq[i], seq[j] = seq[j], seq[i]


# ---------------------------------------------------------------- the board's fakes


class Clock:
    """ticks_ms(): the script moves it (small ints, no allocation)."""

    def __init__(self):
        self.now = 0

    def __call__(self):
        return self.now


class FakeReaders:
    """What the app and presence.feed use of drivers.reader_set.ReaderSet: ``n``,
    ``status``/``raw`` (one state per reader), ``uid_view(i)``/``raw_uid_view(i)``
    (memoryviews made once), ``arm(i)``, ``poll(i)``.  A reader reports the tag
    laid on it (``put``) from its next poll, two tags as a collision."""

    def __init__(self, n):
        self.n = n
        self.status = bytearray(n)
        self.raw = bytearray(n)
        self.tags = bytearray(10 * n)
        self.lens = bytearray(n)      # what lies on each reader: 0 none
        self.count = bytearray(n)     # tags lying there
        self.shown = bytearray(n)     # the length of the reported UID
        mv = memoryview(self.tags)
        self.views = [[mv[10 * i:10 * i + k] for k in range(11)] for i in range(n)]
        self.polls = 0
        self.armed = 0

    def put(self, i, uid):
        self.count[i] += 1
        for k in range(len(uid)):
            self.tags[10 * i + k] = uid[k]
        self.lens[i] = len(uid)

    def clear(self, i):
        self.count[i] = 0
        self.lens[i] = 0

    def arm(self, i):
        self.armed += 1

    def poll(self, i):
        self.polls += 1
        if self.count[i] > 1:
            state = 2               # COLLISION
        elif self.count[i]:
            state = PRESENT
        else:
            state = ABSENT
        changed = state != self.status[i]
        self.status[i] = state
        self.raw[i] = state
        self.shown[i] = self.lens[i] if state == PRESENT else 0
        return 1 if changed else 0

    def uid_view(self, i):
        return self.views[i][self.shown[i]]

    def raw_uid_view(self, i):
        return self.views[i][self.shown[i]]


class FakeI2C:
    """machine.I2C's writeto/writevto: swallows and counts the bytes."""

    def __init__(self):
        self.bytes = 0
        self.transactions = 0

    def writeto(self, addr, buf, stop=True):
        self.transactions += 1
        self.bytes += len(buf)
        return len(buf) + 1

    def writevto(self, addr, vector, stop=True):
        self.transactions += 1
        i = 0
        while i < len(vector):
            self.bytes += len(vector[i])
            i += 1
        return 1


class FakePin:
    """A button to ground with a pull-up: 1 released, 0 pressed."""

    def __init__(self):
        self.level = 1

    def value(self):
        return self.level


class FakeNeoPixel:
    def __init__(self, n):
        self.buf = bytearray(3 * n)
        self.writes = 0

    def __setitem__(self, i, v):
        self.buf[3 * i] = v[1]
        self.buf[3 * i + 1] = v[0]
        self.buf[3 * i + 2] = v[2]

    def write(self):
        self.writes += 1


class FakePWM:
    def __init__(self):
        self.f = 0
        self.d = 0
        self.notes = 0

    def freq(self, f):
        self.f = f
        self.notes += 1

    def duty_u16(self, d):
        self.d = d


def card_uid(card):
    """The 7-byte UID of the sticker of ``card`` (as host_sim's virtual deck)."""
    return bytes((0x04, 0x54, DECK_ID, card, 0xA1, 0xB2, 0x80 | (DECK_ID ^ card)))


# ---------------------------------------------------------------- flash


class Flash:
    """The table's flash: littlefs on emulated flash (or a plain folder), and
    the journal's own area on the same NOR model (host_sim/vm/nor_flash.py)."""

    def __init__(self, image=None):
        """A new flash, formatted; or the one saved in the file ``image``
        (Script.save: the table's flash when the power was cut)."""
        import mpflash
        self.dev = None
        self.journal = mpflash.NorFlash(JOURNAL_SECTORS, path=image and image + ".journal",
                                        through=False)
        self.bytes = len(self.journal.data)   # heap the emulated flash takes (not the app's)
        lfs = vfs is not None and hasattr(vfs, "VfsLfs2")
        if lfs:
            import mpflash
            if image is None:
                self.dev = mpflash.FlashDev(FLASH_BLOCKS)
                mpflash.format_lfs(self.dev)
            else:
                buf = bytearray(FLASH_BLOCKS * mpflash.ERASE_BLOCK)
                f = open(image, "rb")
                try:
                    f.readinto(buf)
                finally:
                    f.close()
                self.dev = mpflash.FlashDev(FLASH_BLOCKS, data=buf, share=True)
            self.bytes += len(self.dev.data)
            mpflash.mount(self.dev, ROOT)
            self.root = ROOT
        else:
            import mpflash
            mpflash.rmtree(PLAIN)
            import os
            os.mkdir(PLAIN)
            self.root = PLAIN

    def power_cycle(self, journal):
        """The power fails: the flash device dies (later writes are lost), the
        old journal's file is closed on it now (not by the collector, which
        runs finalizers with the heap locked), then the flash comes back
        with what reached it: the same bytes, on a new device."""
        old = self.journal
        old.dead = True
        self.journal = old.power_on()
        self.journal.own = old.own
        if self.dev is None:
            return
        import mpflash
        old = self.dev
        old.dead = True
        try:
            journal.close()
        except OSError:
            pass
        mpflash.umount(ROOT)
        self.dev = mpflash.FlashDev(old.blocks, old.block_size, old.data, share=True)
        self.dev.own = old.own
        mpflash.mount(self.dev, ROOT)

    def own(self):
        """Heap bytes the flash emulation allocated for itself so far."""
        return self.journal.own + (self.dev.own if self.dev is not None else 0)

    def close(self):
        if self.dev is not None:
            import mpflash
            mpflash.umount(ROOT)
        else:
            import mpflash
            mpflash.rmtree(PLAIN)


def prepare_flash(flash, variant, players):
    """What the table's flash holds before the session: deck 1 enrolled (all
    36 stickers) and the settings remembered from the last setup."""
    from table.registry import Registry
    from table.settings import Settings
    from tapp.cards import NCARDS
    reg = Registry(flash.root)
    reg.create_deck(DECK_ID, "d36", save=False)
    for card in range(NCARDS):
        reg.add(DECK_ID, card, card_uid(card), save=False)
    reg.save(DECK_ID)
    s = Settings(flash.root)
    s.load()
    for key, value in (("variant", variant), ("players", players), ("mode", "strict"),
                       ("seat_names", list(SEATS[:players])), ("first_dealer", 0),
                       ("language", "de"), ("deck", DECK_ID)):
        assert s.set(key, value), (key, value)
    s.save()


# ---------------------------------------------------------------- the device


class Device:
    """The board of fakes and the application, powered up as firmware/main.py
    does, by table/power_up.py ``boot`` (the board and everything in RAM are
    new; the flash and the tags lying on the readers are what ``flash`` and
    ``tags`` say)."""

    def __init__(self, flash, players, clock, tags=None, boot=0):
        from boards.common import Board
        from drivers import ssd1306
        from drivers.buttons import ButtonPad
        from drivers.buzzer import Buzzer
        from drivers.leds import SeatLeds
        from table.app import JOBS
        from table.power_up import boot as power_up

        n = players + 1
        self.boot = boot                  # power-ups before this one
        self.clock = clock
        self.readers = FakeReaders(n)
        if tags is not None:
            for i in range(n):
                if tags[i] is not None:
                    self.readers.put(i, tags[i])
        self.i2c = FakeI2C()
        display = ssd1306.SSD1306(self.i2c)
        self.pins = (FakePin(), FakePin(), FakePin())
        buttons = ButtonPad(self.pins[0], self.pins[1], self.pins[2], clock)
        self.np = FakeNeoPixel(players)
        leds = SeatLeds(self.np, players)
        self.pwm = FakePWM()
        buzzer = Buzzer(self.pwm, clock)
        root = flash.root
        self.board = Board(self.readers, display, buttons, leds, buzzer, clock, root,
                           journal_flash=flash.journal)
        self.app = power_up(self.board, root)  # a session in progress is taken up again
        app = self.app
        self.resumed = app.view.journal() is not None
        # the prepared deck and settings were loaded (boot leaves a bad file's
        # defaults in place: the table would ask for a deck to enrol, or set up)
        assert app.view.deck() == DECK_ID and app.settings.players == players, \
            (app.view.deck(), app.settings.players)
        # the jobs as bound methods made once (a getattr per step would allocate)
        self.jobs = [(getattr(app, method), period) for _name, method, period in JOBS]
        self.plain_jobs = self.jobs
        self.names = [name for name, _method, _period in JOBS]
        self.by_name = {}
        for name, method, _period in JOBS:
            self.by_name[name] = getattr(app, method)
        self.display_at = self.names.index("display")
        self.display_max_us = 0          # the longest display step of the session (µs)
        self.window = [0, 0, 0]          # display steps since window_open(): count, µs, longest

    def window_open(self):
        self.window[0] = self.window[1] = self.window[2] = 0

    def _timed(self, us):
        """A display step took ``us`` (ints only: nothing grows over a session)."""
        w = self.window
        w[0] += 1
        w[1] += us
        if us > w[2]:
            w[2] = us
        if us > self.display_max_us:
            self.display_max_us = us

    def step(self):
        """One 5 ms tick of the loop: every job whose period has come runs (the
        display job timed: ``display_us``)."""
        clock = self.clock
        clock.now += STEP_MS
        now = clock.now
        for k, job in enumerate(self.jobs):
            if now % job[1] == 0:
                if k == self.display_at:
                    t = ticks_us()
                    job[0]()
                    self._timed(ticks_diff(ticks_us(), t))
                else:
                    job[0]()

    def step_plain(self):
        """step() over the jobs as the app made them (not the measuring wrappers),
        with few locals: its own frame stays off the heap."""
        self.clock.now += STEP_MS
        k = 0
        while k < len(self.plain_jobs):
            self._job(self.plain_jobs[k])
            k += 1

    def _job(self, job):
        if self.clock.now % job[1] == 0:
            job[0]()

    def run(self, ms):
        k = ms // STEP_MS
        while k > 0:
            self.step()
            k -= 1

    def tags(self):
        """The UID lying on each reader (None: nothing), for the next power-up."""
        out = []
        rs = self.readers
        for i in range(rs.n):
            out.append(bytes(rs.tags[10 * i:10 * i + rs.lens[i]]) if rs.count[i] else None)
        return out


# ---------------------------------------------------------------- the people at the table


class PowerCut(Exception):
    """The power was cut and the table's state saved (Script.save): this VM ends."""


class Script:
    """One session at the table, acted through the readers and buttons only.

    ``state``: go on from a power cut saved by another VM (Script.save; the
    flash then comes from its image): the device powers up in a fresh heap,
    as after a real power cut."""

    def __init__(self, variant, players, seed=3, flash=None, state=None):
        self.variant = variant
        self.players = players
        self.rng = Lcg(seed)
        self.clock = Clock()
        self.flash = flash if flash is not None else Flash()
        self.dev = None
        self.shadow = None
        self.synced = 0
        self.bid_made = False
        self.plays = 0
        self.power_cuts = 0
        self.cut_file = None          # save the state here at the power cut, then stop
        self.play_hook = None         # play_hook(script, 0 / 1): around each card play
        if state is None:
            prepare_flash(self.flash, variant, players)
            self.boot()
            return
        self.clock.now = state["now"]
        self.rng.x = state["rng"]
        self.plays = state["plays"]
        self.power_cuts = state["power_cuts"]
        tags = [None if t is None else bytes(t) for t in state["tags"]]
        self.boot(tags)
        assert self.dev.resumed
        self.dev.run(800)                # the readers have had their first look

    def save(self, path):
        """The power is cut: the flash image to ``path``.flash, the rest (the
        clock, the cards on the readers, the script's place) to ``path``.json."""
        import json
        f = open(path + ".flash", "wb")
        try:
            f.write(self.flash.dev.data)
        finally:
            f.close()
        self.flash.journal.save(path + ".flash.journal")
        tags = [None if t is None else list(t) for t in self.dev.tags()]
        f = open(path + ".json", "w")
        try:
            f.write(json.dumps({"now": self.clock.now, "rng": self.rng.x,
                                "plays": self.plays, "power_cuts": self.power_cuts + 1,
                                "tags": tags}))
        finally:
            f.close()

    def boot(self, tags=None):
        self.dev = None
        gc.collect()
        self.dev = Device(self.flash, self.players, self.clock, tags, self.power_cuts)
        self.dev.run(50)

    # ----- the shadow: a strict Session that follows the journal ---------------------

    def sync(self):
        from tapp.record import parse_line
        from tapp.session import Session
        journal = self.dev.app.view.journal()
        if journal is None:
            return
        lines = list(journal.read_lines())
        if self.shadow is None:
            self.shadow = Session(parse_line(lines[0]))
            self.synced = 1
        while self.synced < len(lines):
            ev = parse_line(lines[self.synced])
            self.synced += 1
            if ev["ev"] == "deal":
                self.bid_made = False
            elif ev["ev"] == "bid" and ev.get("call") not in PASSES:
                self.bid_made = True
            out = self.shadow.apply(ev)
            assert out.get("ok"), (ev, out)

    # ----- acting ----------------------------------------------------------------------

    def press(self, key, hold=False):
        """A short press of prev (0), next (1) or OK (2); a long one if ``hold``."""
        pin = self.dev.pins[key]
        pin.level = 0
        self.dev.run(800 if hold else 60)
        pin.level = 1
        self.dev.run(60)

    def place(self, reader, card):
        dev = self.dev
        dev.readers.put(reader, card_uid(card))
        self.wait(lambda: dev.app.view.placed(reader))
        dev.run(30)

    def lift(self, reader):
        dev = self.dev
        dev.readers.clear(reader)
        self.wait(lambda: not dev.app.view.placed(reader))
        dev.run(30)

    def wait(self, done, limit=2000):
        waited = 0
        while not done():
            assert waited < limit, "the table did not react in %d ms" % limit
            self.dev.run(10)
            waited += 10

    def setup(self):
        """OK through every setup question (the answers are the remembered ones)."""
        app = self.dev.app
        k = 0
        while app.view.engine() is None:
            assert k < 40, "setup did not end"
            self.press(2)
            k += 1
        return k

    def deal(self):
        """Strict mode: every card of the deck over the centre reader."""
        cards = list(self.dev.app.view.deck_cards())
        self.rng.shuffle(cards)
        centre = self.dev.app.view.centre()
        for card in cards:
            self.place(centre, card)
            self.lift(centre)

    def choose(self):
        """The plain game: in the auction the first to speak bids the lowest
        game, the others pass; elsewhere the first entry (in strict mode the
        table knows every hand, so its menus offer only what the rules allow:
        a Rufer call of a card the declarer lacks, a give he holds)."""
        from table.game import needs_hold
        table = self.dev.app.view
        evs = [table.menu_event(k) for k in range(table.menu_size())]
        pick = 0
        if any(ev and ev.get("ev") == "bid" and ev.get("call") in PASSES for ev in evs):
            for k, ev in enumerate(evs):
                if (ev.get("call") in PASSES) == self.bid_made:
                    pick = k
                    break
        for _ in range((pick - table.menu_pos()) % len(evs)):
            self.press(1)
        self.press(2, hold=needs_hold(evs[pick]))     # a stake is chosen with OK held
        if table.menu_asks_sure():                    # every entry commits: OK twice
            self.press(2)

    def discard(self):
        """Strict mode: the declarer lays the talon back on the centre reader."""
        view = self.shadow.view
        centre = self.dev.app.view.centre()
        for code in list(view.talon())[:view.talon_size()]:
            from tapp.cards import CODE_INDEX
            self.place(centre, CODE_INDEX[code])
            self.lift(centre)

    def play_card(self):
        from tapp.cards import CODE_INDEX
        app = self.dev.app
        view = app.view.engine()
        seat = view.turn()
        legal = self.shadow.view.legal_cards()
        card = CODE_INDEX[legal[self.rng.below(len(legal))]]
        before = (view.trick_number(), view.trick_size())
        hook = self.play_hook
        if hook is not None:
            hook(self, 0)
        self.dev.readers.put(seat, card_uid(card))
        self.wait(lambda: (view.trick_number(), view.trick_size()) != before
                  or not view.in_deal())
        self.dev.run(30)                  # the display has drawn it
        if hook is not None:
            hook(self, 1)
        self.plays += 1
        if view.trick_size() == 0:       # the trick is complete: clear the readers
            self.dev.run(300)
            for s in view.active_seats():
                self.dev.readers.clear(s)
            for s in view.active_seats():
                self.wait(lambda r=s: not app.view.placed(r))
            self.dev.run(30)

    def power_cut(self):
        """Power off and on: the board and the app are built again on the same
        flash; the cards lying on the readers stay there.  Nothing the old app
        still writes (its journal file is closed when collected) reaches the
        flash: it is written to a dead device."""
        tags = self.dev.tags()
        self.power_cuts += 1
        journal = self.dev.app.journal   # the writer itself: its file is closed at the cut
        self.dev = None
        self.flash.power_cycle(journal)
        journal = None
        self.boot(tags)
        assert self.dev.resumed
        self.dev.run(800)                # the readers have had their first look

    def play_deal(self, cut_at_play=-1):
        """One deal from the dealing to its result; returns the result."""
        if self.dev.app.view.mode() == "dealing":   # (no local for the app: a power cut
            self.deal()                          # makes a new one, the old must go)
        expects = None
        for _ in range(3000):
            self.sync()
            if self.plays == cut_at_play and self.dev.app.view.mode() == "play":
                cut_at_play = -1
                if self.cut_file is not None:
                    self.save(self.cut_file)
                    raise PowerCut()
                self.power_cut()          # (no local holds the old game meanwhile)
                continue
            table = self.dev.app.view
            if table.mode() != "play":
                return table.engine().last_result()
            expects = table.engine().expects()
            if table.menu_size():
                self.choose()
            elif expects == "discard":
                self.discard()
            elif expects == "card":
                self.play_card()
            else:
                self.dev.run(100)
        raise AssertionError("the deal did not end: expects %s" % expects)

    def session(self, cut_at_play=7):
        """Setup, one deal played out (a power cut after ``cut_at_play``
        plays), the result read, the next deal started."""
        self.setup()
        return self.play_on(cut_at_play)

    def play_on(self, cut_at_play=-1):
        """The deal in play to its end (dealt again if thrown in), the result
        read, the next deal started."""
        result = None
        for _ in range(6):               # a deal thrown in is dealt again
            result = self.play_deal(cut_at_play)
            if result is not None and self.plays:
                break
            self.press(2)
        assert result is not None and self.plays, "no deal was played out"
        self.press(2)                    # OK: the next deal
        assert self.dev.app.view.mode() == "dealing"
        return result


# ---------------------------------------------------------------- measuring helpers


def _where(exc):
    """The innermost ``File ..., line ..., in ...`` of an exception's traceback."""
    import io
    s = io.StringIO()
    if hasattr(sys, "print_exception"):
        sys.print_exception(exc, s)
    else:  # CPython
        import traceback
        traceback.print_exception(type(exc), exc, exc.__traceback__, file=s)
    lines = [ln.strip() for ln in s.getvalue().split("\n") if ln.strip().startswith("File")]
    return lines[-1] if lines else repr(exc)


def locked(fn):
    """Run the zero-argument ``fn`` with the heap locked: (mem_total delta,
    None) or (delta, where the first allocation was)."""
    before = mem_total()
    where = None
    if micropython is not None:
        micropython.heap_lock()
    try:
        fn()
    except MemoryError as e:
        where = e
    finally:
        if micropython is not None:
            micropython.heap_unlock()
    after = mem_total()
    if where is not None:
        where = _where(where)
    return (after - before if before >= 0 else -1), where


class PlayMeter:
    """mem_total() per card play through the whole app (from the card laid on
    the reader to the trick redrawn): what the app's jobs allocate, by job
    (the runner's own allocations -- the script's waiting, the fake reader --
    left out); the journal's append measured on its own.  The play that ends
    a deal (the engine settles it, the result screen) is counted apart."""

    def __init__(self, flash):
        self.flash = flash           # its emulation's own allocations are left out
        self.plays = []              # per play in a deal: the jobs' bytes
        self.by_job = {}             # the same, summed by job
        self.journal = []            # per play in a deal: bytes of journal.append
        self.extra = []              # per play in a deal: the jobs' bytes besides the line
        self.ends = []               # per play that ended its deal: the jobs' bytes
        self._wrapped = -1
        self.now_bytes = 0           # this play: the jobs' bytes so far
        self.line_bytes = 0          # this play: journal.append's bytes
        self.job_bytes = {}
        self.active = False          # between a card laid down and the trick redrawn

    def mem(self):
        """mem_total() without what the emulated flash allocated for itself."""
        return mem_total() - self.flash.own()

    def _wrap(self, dev):
        meter = self

        def wrap(name, fn):
            def measured():
                if not meter.active:
                    fn()
                    return
                b = meter.mem()
                fn()
                d = meter.mem() - b
                meter.now_bytes += d
                meter.job_bytes[name] = meter.job_bytes.get(name, 0) + d
            return measured
        dev.jobs = [(wrap(dev.names[k], dev.plain_jobs[k][0]), dev.plain_jobs[k][1])
                    for k in range(len(dev.plain_jobs))]
        journal = dev.app.journal        # the writer itself: its lines are measured
        plain = journal.append

        def append(ev):
            if not meter.active:
                plain(ev)
                return
            b = meter.mem()
            plain(ev)
            meter.line_bytes += meter.mem() - b
        journal.append = append
        self._wrapped = dev.boot          # (not the device: the old one must go at a cut)

    def before(self, dev):
        if self._wrapped != dev.boot:     # a new board after a power cut
            self._wrap(dev)
        self.now_bytes = 0
        self.line_bytes = 0
        for name in self.job_bytes:
            self.job_bytes[name] = 0
        self.active = True

    def after(self, dev):
        self.active = False
        if not dev.app.view.engine().in_deal():    # the deal's last play: settled
            self.ends.append(self.now_bytes)
            return
        self.plays.append(self.now_bytes)
        self.journal.append(self.line_bytes)
        self.extra.append(self.now_bytes - self.line_bytes)
        for name in self.job_bytes:
            self.by_job[name] = self.by_job.get(name, 0) + self.job_bytes[name]


# ---------------------------------------------------------------- steady play


def steady_checks(script, report):
    """Mid-deal, the cards of the trick lying on their readers, nothing
    happening: heap_lock() over the whole loop, the poll path and the display
    path; a redraw of the unchanged screen measured (it composes the rows)."""
    dev = script.dev
    app = dev.app
    table = app.view
    clock = script.clock
    dev.run(300)
    gc.collect()
    k = [0]
    step = dev.step_plain

    def loop():
        while k[0] < 200:                 # a second of the device's loop, every job
            step()
            k[0] += 1

    delta, where = locked(loop)
    report("lock_steady_loop", "%d bytes %s" % (delta, where or "ok"))
    poll = dev.by_name["readers"]
    k[0] = 0

    def polls():
        while k[0] < 200:                 # ReaderSet.poll, presence.feed, arm the next
            poll()
            clock.now += STEP_MS
            k[0] += 1

    delta, where = locked(polls)
    report("lock_poll_path", "%d bytes %s" % (delta, where or "ok"))
    refresh = dev.by_name["display"]
    display = dev.board.display
    k[0] = 0

    def unchanged():
        while k[0] < 50:                  # the display job: nothing dirty, show() only
            refresh()
            k[0] += 1

    delta, where = locked(unchanged)
    report("lock_display_job", "%d bytes %s" % (delta, where or "ok"))
    rows = app.screens.rows()             # what the screen shows, as (text, inverted)
    draw_rows = app.screens.draw_rows

    def same_rows():
        draw_rows(rows)                   # the rows as shown: nothing is drawn
        display.show()

    delta, where = locked(same_rows)
    report("lock_draw_same_rows", "%d bytes %s" % (delta, where or "ok"))
    draw = app.screens.draw

    def redraw():
        draw(table)                       # compose() again, then draw_rows + show
        display.show()

    redraw()
    b = mem_total()
    redraw()
    plain_bytes = mem_total() - b if b >= 0 else -1
    delta, where = locked(redraw)
    report("redraw_unchanged_bytes", plain_bytes)
    redraw_timed(dev, report)
    report("lock_redraw_unchanged", "%s" % (where or "ok"))
    compose = app.screens.compose
    b = mem_total()
    compose(table)
    report("compose_bytes", mem_total() - b if b >= 0 else -1)


def redraw_timed(dev, report):
    """The whole screen drawn again (App.redraw: every row blank, then the
    mode draws) by the display job, step by step: how many steps until the
    screen is whole again, the longest step and their sum (µs, this VM)."""
    rows = dev.app.screens.text_rows()
    dev.app.redraw()
    dev.window_open()
    k = 0
    while k < 40 and (dev.app.screens.text_rows() != rows or not dev.window[0]):
        dev.step()
        k += 1
    report("redraw_steps", dev.window[0])
    report("redraw_total_us", dev.window[1])
    report("redraw_step_max_us", dev.window[2])


# ---------------------------------------------------------------- the session, measured


def run_session(variant, players, report, check_at=12, cut_file=None, resume_file=None):
    """One session; ``report(key, value)`` gets the numbers.  The ``*_live``
    figures are the app's live heap after a collection: without this runner
    (its code, the script, the shadow session), the ROMFS buffer and the
    emulated flash's bytes; with the mounted littlefs (as on the device)."""
    if vfs is not None and hasattr(vfs, "VfsLfs2"):
        import mpflash  # noqa: F401  (the runner's, before the base line)
    state = None
    if resume_file is not None:
        import json
        f = open(resume_file + ".json")
        try:
            state = json.loads(f.read())
        finally:
            f.close()
    base = live()                            # the runner (and a ROMFS buffer) before the app
    flash = Flash(None if resume_file is None else resume_file + ".flash")
    report("flash_bytes", flash.bytes)
    report("fs_live", live() - base - flash.bytes)
    t_import = live()
    import table.screens  # noqa: F401  (first: the heap note at the top; its pages
    # are imported when first shown, in the session)
    # isort: split
    import table.power_up  # noqa: F401  (the App, the journal, registry and settings)
    report("import_bytes", live() - t_import)
    script = Script(variant, players, flash=flash, state=state)
    script.cut_file = cut_file
    report("boot_live", live() - base - flash.bytes)
    meter = PlayMeter(flash) if mem_total() >= 0 else None
    done = []

    def hook(s, phase):
        if meter is not None:
            if phase == 0:
                meter.before(s.dev)
            else:
                meter.after(s.dev)
        if phase == 1 and s.plays + 1 == check_at and not done:   # mid-deal
            done.append(1)
            with_shadow = live()
            s.shadow = None               # (the script's shadow session is not the app's:
            s.synced = 0                  # it is built again from the journal after this)
            report("steady_live", live() - base - flash.bytes)
            report("shadow_live", with_shadow - live())
            steady_checks(s, report)

    script.play_hook = hook
    try:
        if state is None:
            result = script.session(cut_at_play=CUT_AT_PLAY[0])
        else:
            result = script.play_on()
    except PowerCut:
        report("plays", script.plays)
        report("power_cut_saved", cut_file)
        return script
    report("plays", script.plays)
    report("power_cuts", script.power_cuts)
    script.shadow = None
    script.synced = 0
    report("end_live", live() - base - flash.bytes)
    report("journal_lines", len(script.dev.app.view.journal()))
    if meter is not None and meter.plays:
        report("play_alloc_min", min(meter.plays))
        report("play_alloc_max", max(meter.plays))
        report("play_alloc_avg", sum(meter.plays) // len(meter.plays))
        report("play_extra_max", max(meter.extra))     # besides the journal line
        report("journal_append_avg", sum(meter.journal) // len(meter.journal))
        for name in sorted(meter.by_job):
            report("play_alloc_job_" + name, meter.by_job[name] // len(meter.plays))
        if meter.ends:
            report("play_alloc_deal_end", sum(meter.ends) // len(meter.ends))
    report("i2c_bytes", script.dev.i2c.bytes)
    report("display_step_max_us", script.dev.display_max_us)
    report("contract", result["contract"])
    return script


def main(argv, rom_bytes=0, runner_bytes=0):
    """``session VARIANT PLAYERS [ROMFS_IMAGE] [cut=PATH | resume=PATH]``: one
    session, ``key value`` lines, "session ok" last.  cut=PATH: the session
    until the power cut, which saves the flash and the table's state to
    PATH.flash and PATH.json; resume=PATH: powered up from there, in this
    fresh VM, played on to the next deal.  (tools/tapptable/bench_app_vm.py
    mounts the images itself and passes their sizes.)"""
    if len(argv) < 3 or argv[0] != "session":
        print("usage: mptest_app_heap.py session VARIANT PLAYERS [ROMFS_IMAGE] "
              "[cut=PATH | resume=PATH]")
        return 2
    cut_file = resume_file = None
    for arg in argv[3:]:
        if arg.startswith("cut="):
            cut_file = arg[4:]
        elif arg.startswith("resume="):
            resume_file = arg[7:]
        elif arg:
            rom_bytes = mount_rom(arg)

    def report(key, value):
        print("%s %s" % (key, value))

    report("runner_bytes", runner_bytes)
    report("rom_bytes", rom_bytes)
    report("runner_from", __file__)
    script = run_session(argv[1], int(argv[2]), report, cut_file=cut_file,
                         resume_file=resume_file)
    import table.app as A
    report("app_from", A.__file__)
    script.dev = None
    script.flash.close()
    print("session ok")
    return 0


# ---------------------------------------------------------------- tests (mprunner)

_STATE = {}


def _session():
    """The largest table's session (herzblatt, 5 players), run once for the tests."""
    if "numbers" not in _STATE:
        numbers = {}

        def report(key, value):
            numbers[key] = str(value)
            print("  %s %s" % (key, value))

        script = run_session("herzblatt", 5, report)
        _STATE["numbers"] = numbers
        _STATE["first_line"] = script.dev.app.view.journal().line(0)
        script.flash.close()
    return _STATE["numbers"]


def test_a_whole_session_of_herzblatt_5_runs():
    numbers = _session()
    assert int(numbers["plays"]) > 10 and numbers["power_cuts"] == "1", numbers
    from tapp.record import parse_line
    header = parse_line(_STATE["first_line"])
    assert header["variant"] == "herzblatt" and header["players"] == 5, header


def test_card_play_allocates_nothing():
    numbers = _session()
    if "play_alloc_avg" not in numbers:
        print("SKIP: this port has no micropython.mem_total()")
        return
    # not the journal (the line formatted into its page buffer: table/journal.py),
    # not the game (its event dict is made once), not the redraw of the screen
    # (written into preallocated rows), not the polls; the deal's last play
    # (the engine settles the deal) is counted apart
    assert numbers["journal_append_avg"] == "0", numbers
    assert numbers["play_alloc_max"] == "0" and numbers["play_extra_max"] == "0", numbers
    for job in ("readers", "buttons", "game", "signals", "display", "console", "flash"):
        assert numbers["play_alloc_job_" + job] == "0", (job, numbers)


def _ok(numbers, key):
    value = numbers[key]
    assert value.endswith(" ok") and value.split()[0] in ("0", "-1"), (key, value)


def test_steady_loop_allocates_nothing():
    _ok(_session(), "lock_steady_loop")


def test_poll_path_allocates_nothing():
    _ok(_session(), "lock_poll_path")


def test_display_of_an_unchanged_screen_allocates_nothing():
    numbers = _session()
    _ok(numbers, "lock_display_job")
    _ok(numbers, "lock_draw_same_rows")
    assert numbers["lock_redraw_unchanged"] == "ok", numbers      # composed again
    assert numbers["redraw_unchanged_bytes"] in ("0", "-1"), numbers


def test_the_play_line_is_the_canonical_json():
    """table.journal.line_of formats a card play directly: the very text
    tapp.jsonout.dumps and the CRC give, for every seat and card."""
    from table.journal import line_of
    from tapp.cards import CARD_CODES
    from tapp.jsonout import dumps
    from tapp.record import with_crc
    for seat in range(6):
        for code in CARD_CODES:
            ev = {"ev": "play", "seat": seat, "card": code}
            assert line_of(ev) == with_crc(dumps(ev)), ev
    for ev in ({"ev": "play", "seat": True, "card": "HA"}, {"ev": "play", "seat": 1},
               {"ev": "play", "seat": 1, "card": "X1"}, {"ev": "bid", "seat": 1, "call": "pass"},
               {"ev": "play", "seat": 1, "card": "HA", "x": 1}):
        assert line_of(ev) == with_crc(dumps(ev)), ev


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
