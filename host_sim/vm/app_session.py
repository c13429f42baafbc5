"""The whole table application (firmware/table/app.py) at a table of fakes,
one session played through its readers and buttons only: in CPython and
inside MicroPython (host_sim/vm/ is on the VMs' path), for the heap's
measurement (app_heap.py: tests/mp/mptest_app_heap.py and ``tapptable bench``).

The board is the fake board (fake_board.py): the real SSD1306 driver on an
I2C fake that swallows (and counts) the bytes, the real ButtonPad on three
fake pins, the real SeatLeds on a NeoPixel fake, the real Buzzer on a PWM
fake, the fake readers reporting the stickers the script lays on each
reader's pad, and a clock the script moves 5 ms per step.  The flash is
littlefs (mounted as the rp2 port does) on nor_flash.py's emulated flash, the
journal on its own area of the same model; a port without littlefs (wasm)
uses a folder of its in-memory file system.

The device powers up as firmware/main.py does (table/power_up.py ``boot``:
the registry, the settings, the last journal, the App) with a complete deck
on flash; the script presses OK through the setup screens, deals every card
of the variant's deck over the centre reader in the packet order (strict
mode), answers the menus with the buttons (the plain game: the first to
speak bids the lowest game, the rest pass, the first entry elsewhere), lays
legal cards (picked with a strict shadow Session that follows the journal) on
the seat readers, clears each trick, cuts the power once mid-deal (the board
and the app are built again on the same flash, the cards stay on the
readers), plays the deal out, reads the result and starts the next deal.  The
jobs (app.JOBS) run as the device's asyncio loop would, each at its period
on the fake clock.
"""
import gc

try:
    import vfs
except ImportError:  # CPython
    vfs = None

try:
    from time import ticks_diff, ticks_us
    DISPLAY_US = ticks_us    # the display paces its rows on MicroPython's own clock
except ImportError:  # CPython
    from time import perf_counter_ns

    def ticks_us():
        return perf_counter_ns() // 1000

    def ticks_diff(a, b):
        return a - b
    DISPLAY_US = None        # ... here time stands for it: three rows a step

try:                     # inside MicroPython: host_sim/vm/ is on the path
    import nor_flash
    from fake_board import Clock, FakeI2C, FakePin, FakeReaders, Pad, Sticker, fake_board
    from lcg import Lcg
    from vm_deck import card_uid
except ImportError:  # CPython: the package's modules
    from host_sim.vm import nor_flash
    from host_sim.vm.fake_board import (
        Clock,
        FakeI2C,
        FakePin,
        FakeReaders,
        Pad,
        Sticker,
        fake_board,
    )
    from host_sim.vm.lcg import Lcg
    from host_sim.vm.vm_deck import card_uid

ROOT = "/mpapp_flash"
PLAIN = "/mpapp_tmp"          # a folder of the wasm port's in-memory file system
if vfs is None:               # CPython: one folder per process (pytest's workers run at once)
    import os
    import tempfile
    PLAIN = tempfile.gettempdir() + "/mpapp_tmp_%d" % os.getpid()
FLASH_BLOCKS = 16             # 64 KB of 4096-byte erase blocks: decks and settings
JOURNAL_SECTORS = 8           # 32 KB: the journal's own flash area (table/flash_log.py)
STEP_MS = 5
SEATS = ("Anna", "Bert", "Cora", "Dieter", "Eva")   # setup presets (settings.SEAT_NAMES)
PASSES = ("pass", "weg")
DECK_ID = 1


# ---------------------------------------------------------------- flash


class Flash:
    """The table's flash: littlefs on emulated flash (or a plain folder), and
    the journal's own area on the same NOR model (host_sim/vm/nor_flash.py)."""

    def __init__(self, image=None):
        """A new flash, formatted; or the one saved in the file ``image``
        (Script.save: the table's flash when the power was cut)."""
        self.dev = None
        self.journal = nor_flash.NorFlash(JOURNAL_SECTORS, path=image and image + ".journal",
                                          through=False)
        self.bytes = len(self.journal.data)   # heap the emulated flash takes (not the app's)
        lfs = vfs is not None and hasattr(vfs, "VfsLfs2")
        if lfs:
            if image is None:
                self.dev = nor_flash.NorFlash(FLASH_BLOCKS)
                nor_flash.format_lfs(self.dev)
            else:
                buf = bytearray(FLASH_BLOCKS * nor_flash.ERASE_BLOCK)
                f = open(image, "rb")
                try:
                    f.readinto(buf)
                finally:
                    f.close()
                self.dev = nor_flash.NorFlash(FLASH_BLOCKS, data=buf, share=True)
            self.bytes += len(self.dev.data)
            nor_flash.mount_lfs(self.dev, ROOT)
            self.root = ROOT
        else:
            nor_flash.rmtree(PLAIN)
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
        old = self.dev
        old.dead = True
        try:
            journal.close()
        except OSError:
            pass
        nor_flash.umount_lfs(ROOT)
        self.dev = nor_flash.NorFlash(old.blocks, old.block_size, old.data, share=True)
        self.dev.own = old.own
        nor_flash.mount_lfs(self.dev, ROOT)

    def own(self):
        """Heap bytes the flash emulation allocated for itself so far."""
        return self.journal.own + (self.dev.own if self.dev is not None else 0)

    def close(self):
        if self.dev is not None:
            nor_flash.umount_lfs(ROOT)
        else:
            nor_flash.rmtree(PLAIN)


def prepare_flash(flash, variant, players):
    """What the table's flash holds before the session: deck 1 enrolled (all
    36 stickers) and the settings remembered from the last setup."""
    from table.registry import Registry
    from table.settings import Settings
    from tapp.cards import NCARDS
    reg = Registry(flash.root)
    reg.create_deck(DECK_ID, "d36", save=False)
    for card in range(NCARDS):
        reg.add(DECK_ID, card, card_uid(DECK_ID, card), save=False)
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
        from table.app import JOBS
        from table.power_up import boot as power_up

        n = players + 1
        self.boot = boot                  # power-ups before this one
        self.clock = clock
        self.pads = [Pad() for _ in range(n)]     # what lies on each reader
        if tags is not None:
            for i in range(n):
                if tags[i] is not None:
                    self.pads[i].place(Sticker(tags[i]))
        self.i2c = FakeI2C()
        self.pins = (FakePin(), FakePin(), FakePin())
        root = flash.root
        self.board = fake_board(FakeReaders(self.pads), clock, root, flash.journal,
                                i2c=self.i2c, pins=self.pins, ticks_us=DISPLAY_US)
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
        display job timed: ``display_us``).  It allocates nothing (no
        iterator): a test that lets the garbage grow sees only the table's."""
        self.clock.now += STEP_MS
        k = 0
        while k < len(self.jobs):
            self._run_job(k)
            k += 1

    def _run_job(self, k):
        job = self.jobs[k]
        if self.clock.now % job[1] == 0:
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
        return [pad.uid() for pad in self.pads]


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
        dev.pads[reader].place(Sticker(card_uid(DECK_ID, card)))
        self.wait(lambda: dev.app.view.placed(reader))
        dev.run(30)

    def lift(self, reader):
        dev = self.dev
        dev.pads[reader].clear()
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
        from table.menus import needs_hold
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
        self.dev.pads[seat].place(Sticker(card_uid(DECK_ID, card)))
        self.wait(lambda: (view.trick_number(), view.trick_size()) != before
                  or not view.in_deal())
        self.dev.run(30)                  # the display has drawn it
        if hook is not None:
            hook(self, 1)
        self.plays += 1
        if view.trick_size() == 0:       # the trick is complete: clear the readers
            self.dev.run(300)
            for s in view.active_seats():
                self.dev.pads[s].clear()
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


