"""The device's budgets, measured on MicroPython's rp2 port in the emulated RP2040.

``print_device_bench(quick)`` (for ``tapptable bench``) runs the unchanged
firmware on the emulated Pico (host_sim/rp2040: rp2040js, the chip models at
the pins of firmware/boards/pico.py), from the flash a user's UF2 leaves
(tools/tapptable/fsimage.py), for two firmwares:

* **stock**: MicroPython v1.28.0 RPI_PICO as published, the table as ``.mpy``
  files on littlefs (the bytecode is loaded into RAM); the table refuses to
  start on it (no ROMFS partition), so only the heap at the REPL is measured;
* **table**: the table's MicroPython, RPI_PICO_ROMFS (tools/micropython-boards/
  RPI_PICO_ROMFS: the same with a 256 KiB ROMFS partition), the table's
  bytecode in it (it runs in place from flash), only main.py on littlefs:
  what ``tapptable build --board pico`` flashes.

It prints, for each:

* the free heap at boot and after importing what main.py imports (read at the
  REPL, ``gc.collect(); gc.mem_free()``, on a filesystem without main.py);
* from a whole session (the table's firmware) (setup, a strict deal dealt over the centre reader,
  the auction, every card, a power cut, the next deal, then more deals for
  fragmentation): the lowest free heap after the table's idle collections,
  the longest step of each job, the idle collections and any MicroPython
  started itself (the heap full), read from a probe the bench puts on the
  filesystem beside the firmware (bench_rp2040_probe.py, as ``boot.py``: it
  wraps the app's jobs and reads the free heap around each; it never collects
  itself; the firmware is unchanged), and the qstr pool at the lowest (its
  eighth chunk alone is 15 KB of heap);
* from the same session, a console client at the USB port asking ``status``
  every STATUS_EVERY_MS (its first byte loads the console): how many asked,
  how many answered;
* the emulated time from a card laid on the on-turn seat's reader, and from a
  button let go, to the display showing it (the host's SSD1306 model: the
  write that makes it show what the CPython twin shows, see ``MirroredTable``);
  the display on SPI0, as the Pico's pin map has it (``display="i2c"``: on
  I2C0 at 0x3C, the other way a builder may wire it).

The emulator's limits, said with the numbers: rp2040js charges one cycle per
memory access, so flash (XIP) cache misses are not modelled -- code running
from flash, ROMFS bytecode above all, is slower on a real Pico; the display's
bytes take their time on the wire (host_sim/rp2040/runner.mjs: SPI at 4 MHz a
page 0.26 ms, I2C at 400 kHz 2.9 ms), a reader's none (a few us at 4 MHz).
"""
import ast
import json
import re
import tempfile
import time
from pathlib import Path

from host_sim.flash import journal_area_lines
from host_sim.table import VirtualTable
from host_sim.vm.vm_deck import DECK_ID
from tools.tapptable import fsimage, rp2_images

PROBE = Path(__file__).resolve().parent / "bench_rp2040_probe.py"
PROBE_MODULE = "tapptable_probe.py"
GOAL_LOW_FREE = 64 * 1024          # the whole session on the table's firmware, at its lowest
GOAL_SHOWN_MS = 50                 # a card on the on-turn reader to the display showing it
GOAL_STEP_MS = 10                  # no step holds the loop longer
GOAL_PRESS_MS = 50                 # a button let go to the display showing what it did
# what main.py imports at boot (the probe's list; measured at the REPL too)
BOOT_IMPORTS = ast.literal_eval(re.search(r"(?ms)^IMPORTS = (\(.*?\))$",
                                          PROBE.read_text()).group(1))


class Firmware:
    """One way of putting the table on a Pico: a MicroPython UF2 and a build."""

    def __init__(self, name, uf2, romfs, session=True):
        self.name = name
        self.uf2_name = uf2
        self.romfs = romfs
        self.session = session          # the table starts on it (its own firmware)

    def images(self, tmp):
        """(firmware UF2 bytes, build folder) -- built once into ``tmp``."""
        from tools.tapptable.deploy import build
        out = Path(tmp) / self.name
        if not (out / "manifest.json").is_file():
            build("pico", out, romfs=self.romfs, log=lambda *a: None)
        return rp2_images.image(self.uf2_name).read_bytes(), out

    def flash(self, tmp, main=True, probe=None, extra=None):
        """The 2 MiB flash after this firmware's one UF2 was copied onto a
        Pico: its filesystem without main.py (``main=False``), or with the
        bench's probe as boot.py (``probe``: its settings), and ``extra``
        files (the enrolled deck, the settings)."""
        fw, out = self.images(tmp)
        files = fsimage.build_files(out, self.romfs)
        files.update(extra or {})
        if not main:
            del files["main.py"]
        if probe is not None:
            files[PROBE_MODULE] = probe_source()
            files["boot.py"] = b"import tapptable_probe\n"
        rom = (out / "romfs.img").read_bytes() if self.romfs else None
        return bytes(fsimage.flash_contents(fsimage.uf2_with_files(fw, files, rom)))


FIRMWARES = (Firmware("stock .mpy", rp2_images.STOCK_FIRMWARE, False, session=False),
             Firmware("table", rp2_images.ROMFS_FIRMWARE, True))


def probe_source():
    """The probe module's text."""
    return PROBE.read_bytes()


def bench_line(line):
    """(KEY, value) of the probe's ``@bench KEY VALUE`` line, else None."""
    parts = line.split()
    if len(parts) == 3 and parts[0] == b"@bench" and parts[2].isdigit():
        return parts[1].decode(), int(parts[2])
    return None


QUIET_MS = 600     # a card the twin took silently: the Pico's readers have seen it by then


def _notes(pwm):
    """How many notes a buzzer's PWM model has sounded."""
    return sum(1 for _t, _ms, freq in pwm.tones() if freq)


def _pico(flash):
    from host_sim.rp2040.emulator import Pico
    return Pico(flash, rp2_images.image(rp2_images.BOOTROM))


def repl_heap(firmware, tmp):
    """Free heap at boot and after the boot imports, read at the REPL: {key: bytes}."""
    pico = _pico(firmware.flash(tmp, main=False))
    try:
        pico.boot_to_repl()
        boot = pico.exec_raw("import gc\ngc.collect()\nprint(gc.mem_free())")
        imported = pico.exec_raw(
            "import gc, sys\nfor m in %r:\n __import__(m)\ngc.collect()\n"
            "print(gc.mem_free(), len(sys.modules))" % (BOOT_IMPORTS,))
    finally:
        pico.close()
    free, modules = imported.split()
    return {"boot_free": int(boot), "import_free": int(free), "modules": int(modules)}



# ----------------------------------------------------------------- a whole session

SESSION = ("tapp_modern", 4)       # a Tapp game with an auction, strict: dealt over the centre
SEAT_NAMES = ("Anna", "Bert", "Cora", "Dieter")
BOARD_SEATS = 5                    # the Pico board has every seat reader fitted
CUT_AT_PLAY = 7                    # the power cut: after this many cards of the first deal
SETTLE_MS = 80                     # the twin runs on this long after an input (display pages)
CATCH_UP_MS = 3000                 # the Pico must show the twin's screen within this
BOOT_MS = 400                      # the Pico's power-up before its screen is compared
STATUS_EVERY_MS = 3000             # the console client asks ``status`` this often
QSTR_POOL = re.compile(rb"qstr pool: n_pool=(\d+), n_qstr=(\d+)")


class Diverged(RuntimeError):
    """The Pico does not show what the twin shows: the session is not the same."""


def settings_files(values):
    """{path: bytes}: the table's settings.json holding ``values``, written by
    the firmware's own Settings (setup offers them as the remembered answers)."""
    from table.settings import Settings
    with tempfile.TemporaryDirectory(prefix="tapp-settings-") as root:
        s = Settings(root)
        for key, value in values.items():
            if not s.set(key, value):
                raise ValueError("setting %s=%r refused" % (key, value))
        s.save()
        return {p.relative_to(root).as_posix(): p.read_bytes()
                for p in Path(root).rglob("*") if p.is_file()}


class MirroredTable:
    """Where the AutoPlayers sit: a CPython table (the *twin*, host_sim/table.py)
    answers what they look at (``view``, ``app.view``, the journal); every input
    they make -- a card laid or lifted, a button -- is made on the twin and on
    the emulated Pico alike, and after each the Pico runs until its display
    shows what the twin's shows (it must, within CATCH_UP_MS: the firmware is
    the same and deterministic; else ``Diverged``).  The Pico runs
    firmware/main.py itself, its asyncio loop and all, from the flash the
    one UF2 leaves, with the chip models wired to its pins.

    ``shown_ms``: per card laid on the on-turn seat's reader, the emulated
    time until the Pico's display showed what the twin shows for it;
    ``report``: the probe's figures (the lowest and the largest seen).

    ``flash``: the Pico's flash (bytes), kept in the file ``flash_path``;
    ``twin``: the CPython table in the state that flash puts the Pico in
    (its settings, its decks).  ``for_firmware`` makes both for the bench."""

    enrol_cards = VirtualTable.enrol_cards    # the same steps, each made on both tables

    def __init__(self, flash, flash_path, twin, display="spi"):
        self.twin = twin
        self.display = display            # "spi": on SPI0 (the pin map's), "i2c": at 0x3C
        self.flash_path = Path(flash_path)
        self.flash_path.write_bytes(flash)
        self.report = {}
        self.shown_ms = []
        self.press_ms = []
        self.emulated_s = 0.0
        self._turn_card = False
        self.pico = None
        self.asked = 0                    # the console client's status requests
        self.answered = 0                 # ... and the Pico's answers with "ok": true
        self._asked_at = None             # the emulated time of the last request (us)

    @classmethod
    def for_firmware(cls, firmware, tmp, variant, players, probe=True, display="spi"):
        """The bench's table: a deck enrolled and the session's settings
        remembered on both tables, the probe as boot.py on the Pico."""
        from host_sim.rp2040.table import enrolled_files
        names = list(SEAT_NAMES[:players])
        values = {"variant": variant, "players": players, "mode": "strict",
                  "first_dealer": 0, "language": "de", "options": {}, "seat_names": names}
        twin = VirtualTable(variant, players, "strict", seats=names, setup=True)
        files = dict(enrolled_files(1), **settings_files(values))
        flash = firmware.flash(tmp, probe={} if probe else None, extra=files)
        return cls(flash, Path(tmp) / ("flash-%s.bin" % firmware.name.split()[0]), twin,
                   display)

    def power_on(self):
        """The first power-up: the Pico boots and shows the twin's first screen."""
        self._power_up([])

    # ----- the Pico ----------------------------------------------------------------------

    def _power_up(self, lying):
        from host_sim.board import OLED_ADDR, SimChips
        from host_sim.mfrc522_model import Tag
        from host_sim.rp2040.table import SPI_DISPLAY, wire_chips
        self.chips = SimChips(seats=BOARD_SEATS)
        for reader, uids in lying:
            self.chips.chips[reader].place(*[Tag(uid) for uid in uids])
        self.pico = _pico(self.flash_path)
        self._line = b""
        self._lifts = {}                  # board reader: the Pico's lifted events (console)
        self._placed = set()              # board readers the Pico said a card placed on
        self._awaited = {}                # board reader: its lifts when its card was taken away
        self._attached = False            # the Pico's console answered since its power-up
        self._new_low = False             # the probe's last low_free was the lowest yet
        self.pico.on_serial = self._serial
        self._asked_at = None             # a new power-up: the client asks again at once
        self.sync_buttons = wire_chips(
            self.pico, self.chips, BOARD_SEATS,
            SPI_DISPLAY if self.display == "spi" else OLED_ADDR)
        self.pico.run_for(BOOT_MS * 1000)
        self._catch_up(0)
        self._looked_at([reader for reader, _uids in lying])

    def _looked_at(self, readers):
        """After a power-up the players wait, as at a table, until the Pico
        has taken up the cards lying on ``readers`` (its console says each
        placed): on its screen nothing tells, and a card lifted before its
        readers came to it was never the Pico's to take away -- the twin,
        whose readers answer at once, would have taken it."""
        start = self.pico.now_us
        while not set(readers) <= self._placed:
            if self.pico.now_us - start > CATCH_UP_MS * 1000:
                raise Diverged("the Pico did not take up the cards lying on readers %s "
                               "after its power-up%s"
                               % (sorted(set(readers) - self._placed), self._tail()))
            self.sync_buttons()
            self._ask_status()
            self.pico.run_for(2000)
        self.emulated_s += (self.pico.now_us - start) / 1e6

    def _serial(self, _t, data):
        self._line += data
        while b"\n" in self._line:
            line, _, self._line = self._line.partition(b"\n")
            pool = QSTR_POOL.search(line)
            if pool is not None:           # the probe's qstr pool at a new lowest heap
                self.report["qstr_pools"], self.report["qstrs"] = map(int, pool.groups())
                continue
            if line.startswith(b'{"id":') and b'"ok":true' in line:
                self.answered += 1
                self._attached = True
                continue
            if b'"event":"tag"' in line:
                self._tag_event(line)
                continue
            found = bench_line(line)
            if found is not None:
                key, value = found
                if key == "low_free_deal":     # the deal of the lowest heap so far
                    if self._new_low:
                        self.report[key] = value
                    continue
                lowest = key in ("low_free", "start_free", "import_free", "boot_free")
                old = self.report.get(key, value)
                if key == "low_free":          # (after a power cut the probe counts anew)
                    self._new_low = value <= old
                self.report[key] = min(old, value) if lowest else max(old, value)

    def _tag_event(self, line):
        """The console's live event of a reader's tag: a lift the Pico took is
        counted, a reader it placed a card on noted."""
        try:
            ev = json.loads(line)
        except ValueError:
            return
        reader = ev.get("reader")
        if ev.get("state") == "lifted":
            self._lifts[reader] = self._lifts.get(reader, 0) + 1
        elif ev.get("state") == "placed":
            self._placed.add(reader)

    def _reader(self, r):
        """The Pico board's reader for the twin's reader ``r`` (the centre is last)."""
        return BOARD_SEATS if r == self.twin.centre else r

    def _catch_up(self, twin_ms):
        """Run the Pico at least ``twin_ms`` and until its display shows the
        twin's; the ms until it did (emulated time: the display's I2C bytes
        take theirs on the wire)."""
        pico = self.pico
        start = pico.now_us
        want = bytes(self.twin.board.oled.ram)
        oled = self.chips.oled
        shown = None
        while True:
            same = oled.display_on and bytes(oled.ram) == want
            if shown is None and same:
                shown = (pico.now_us - start) / 1000
            if same and pico.now_us - start >= twin_ms * 1000:    # and still the twin's
                self.emulated_s += (pico.now_us - start) / 1e6
                return shown
            if pico.now_us - start > CATCH_UP_MS * 1000:
                raise Diverged("the Pico's display did not come to show %r; it shows %r%s"
                               % (self.twin.screen(), oled.text_rows(),
                                  self._tail()))
            self.sync_buttons()
            self._ask_status()
            pico.run_for(2000)

    def _ask_status(self):
        """The console client connected at the USB port: ``status`` every
        STATUS_EVERY_MS of the Pico's time (its first byte loads the console)."""
        now = self.pico.now_us
        if self._asked_at is None or now - self._asked_at >= STATUS_EVERY_MS * 1000:
            self._asked_at = now
            self.asked += 1
            self.pico.serial_write(b'{"id":%d,"cmd":"status"}\n' % self.asked)

    def _tail(self):
        out = self.pico.serial_output()[-600:].decode(errors="replace")
        return " (the Pico wrote: %s)" % out if out.strip() else ""

    # ----- what the AutoPlayers use ------------------------------------------------------

    @property
    def centre(self):
        return self.twin.centre

    @property
    def view(self):
        return self.twin.view

    @property
    def app(self):
        """The twin's application: the players ask its read-only view (``app.view``)."""
        return self.twin.app

    def journal_lines(self, start=0, stop=None):
        return self.twin.journal_lines(start, stop)

    def screen(self):
        return self.twin.screen()

    def _twin_ms(self, fn):
        t0 = self.twin.scheduler.now_ms()
        result = fn()
        return result, self.twin.scheduler.now_ms() - t0

    def place(self, reader, code, deck_id=DECK_ID, wait=True):
        from host_sim.mfrc522_model import Tag
        from host_sim.vm.vm_deck import card_uid
        from tapp.cards import CODE_INDEX
        table = self.twin.app.view
        view = table.engine()
        on_turn = (view is not None and not table.menu_size() and view.expects() == "card"
                   and view.turn() == reader)
        uid = bytes(card_uid(deck_id, CODE_INDEX[code]))
        self.chips.chips[self._reader(reader)].place(Tag(uid))
        before = self._heard_and_seen()
        _r, ms = self._twin_ms(lambda: self.twin.place(reader, code, deck_id, wait=wait))
        self._turn_card = on_turn
        if wait:
            self._settle(self._quiet(ms, before))

    def lift(self, reader, wait=True):
        board_reader = self._reader(reader)
        chip = self.chips.chips[board_reader]
        if chip.tags and self.twin.app.view.placed(reader):
            self._awaited[board_reader] = self._lifts.get(board_reader, 0)  # (as the Pico)
        chip.remove(*list(chip.tags))
        before = self._heard_and_seen()
        _r, ms = self._twin_ms(lambda: self.twin.lift(reader, wait=wait))
        if not wait:
            return
        if self._heard_and_seen() != before or not self._attached:
            self._settle(self._quiet(ms, before))
            return
        self._lift_taken(board_reader)
        self._settle(0)

    def _lift_taken(self, board_reader):
        """A lift neither table showed (a trick's first cards taken away, a
        card enrolled): with the console client attached, the Pico says when
        it took a card away that its twin had taken as placed (its live
        ``tag`` event: ``lifted``; the twin's own ``lift`` waited until its
        view said so), so the Pico runs until then instead of QUIET_MS."""
        start = self.pico.now_us
        awaited = self._awaited.pop(board_reader, None)
        while awaited is not None and self._lifts.get(board_reader, 0) <= awaited:
            if self.pico.now_us - start > QUIET_MS * 1000:
                raise Diverged("the Pico did not take the lift from reader %d%s"
                               % (board_reader, self._tail()))
            self._ask_status()
            self.pico.run_for(2000)
        self.emulated_s += (self.pico.now_us - start) / 1e6

    def _heard_and_seen(self):
        return bytes(self.twin.board.oled.ram), _notes(self.twin.board.pwm)

    def _quiet(self, ms, before):
        """How long the Pico runs on after a card laid or lifted: where the
        twin neither showed nor sounded anything for it (a card laid aside
        for the talon while dealing; a card lifted before the Pico's console
        came up, else ``_lift_taken``), nothing tells when the Pico has taken
        it, so both tables run QUIET_MS more, longer than the Pico's readers
        take for a card."""
        if self._heard_and_seen() != before:
            return ms
        self.twin.wait(QUIET_MS)
        return ms + QUIET_MS

    def wait(self, ms=None):
        from host_sim.table import SETTLE_MS as TWIN_SETTLE
        ms = TWIN_SETTLE if ms is None else ms
        self.twin.wait(ms)
        self._settle(ms)

    def wait_until(self, done, limit_ms=3000, step_ms=20):
        ok, ms = self._twin_ms(lambda: self.twin.wait_until(done, limit_ms, step_ms))
        self._settle(ms)
        return ok

    def _settle(self, ms, before=None):
        """The twin runs SETTLE_MS on (its display finishes), the Pico catches up.
        ``before``: the twin's display before a button press; when the press
        changed it, the time until the Pico's showed the same is a press's."""
        self.twin.wait(SETTLE_MS)
        shown = self._catch_up(ms + SETTLE_MS)
        if self._turn_card:
            self._turn_card = False
            self.shown_ms.append(shown)
        if before is not None and bytes(self.twin.board.oled.ram) != before:
            self.press_ms.append(shown)

    def press(self, key, long=False):
        from host_sim.table import KEYS, LONG_MS, PRESS_MS
        pin = self.chips.button_pins[KEYS[key]]
        before = None if long else bytes(self.twin.board.oled.ram)
        pin.press()
        self.sync_buttons()
        self.pico.run_for((LONG_MS if long else PRESS_MS) * 1000)
        pin.release()
        self.sync_buttons()
        self.twin.press(key, long)
        self._settle(PRESS_MS, before)     # a short press acts when let go: timed from then

    # ----- power -----------------------------------------------------------------------

    def power_cut(self):
        """Both tables lose power here and come back on the flash they kept;
        the cards lying on the readers stay."""
        lying = [(i, [bytes(t.uid) for t in chip.tags])
                 for i, chip in enumerate(self.chips.chips) if chip.tags]
        self.pico.power_cut(str(self.flash_path))
        self.twin = self.twin.power_cut()
        self._power_up(lying)

    def close(self):
        if self.pico is not None:
            self.pico.close()

    def pico_journal(self):
        """The lines of the newest journal on the Pico's flash (read here: the
        journal's own area on the table's firmware, else its littlefs files)."""
        self.pico.save_flash(str(self.flash_path))
        flash = self.flash_path.read_bytes()
        area = fsimage.JOURNAL_OFFSET
        lines = journal_area_lines(flash[area:area + fsimage.JOURNAL_BYTES])
        if lines:
            return lines
        files = fsimage.littlefs_files(flash[fsimage.FS_OFFSET:
                                             fsimage.FS_OFFSET + fsimage.FS_BYTES])
        names = sorted(k for k in files if k.startswith("journal/"))
        return files[names[-1]].decode().splitlines() if names else []


class _Enough(Exception):
    """The quick session has played what it plays."""


def failure_site(text):
    """The device's error and its innermost frame, in one line."""
    lines = [ln.strip() for ln in text.splitlines() if ln.strip()]
    frames = [ln for ln in lines if ln.startswith("File ")]
    errors = [ln for ln in lines if "Error" in ln and not ln.startswith("File ")]
    if not errors:
        return text.strip().splitlines()[0][:200] if text.strip() else "?"
    return "%s (%s)" % (errors[-1][:120], frames[-1] if frames else "?")


def _count_flash(pico, into):
    """Add the Pico's flash operations so far (erases, page programs) to ``into``."""
    state = pico.flash_state()
    for key in ("erase", "program"):
        into[key] = into.get(key, 0) + state[key]


def run_session(firmware, tmp, deals, plays=None, log=None, probe=True, display="spi"):
    """One session on ``firmware``: setup by the buttons, deals dealt over the
    centre reader and played, a power cut after CUT_AT_PLAY cards (in the first
    deal, or the next if a contract ends it sooner), ``deals`` deals in all
    (or only ``plays`` cards, for a quick look).
    {figure: value}; ``failure`` says where the device stopped, if it did."""
    from host_sim.players import AutoPlayers
    variant, players = SESSION
    t0 = time.perf_counter()
    table = MirroredTable.for_firmware(firmware, tmp, variant, players, probe, display)
    flash_ops = {}
    failure = None
    same = None
    done = 0
    cards = [0]
    try:
        table.power_on()
        presses = 0
        while table.app.view.engine() is None:
            if presses > 40:
                raise Diverged("setup did not end")
            table.press("ok")
            presses += 1
        people = AutoPlayers(table, seed=5, illegal_once=False)

        def on_step(t):
            tv = t.app.view
            if tv.mode() != "play" or t.view.expects() != "card" or tv.menu_size():
                return
            if plays is not None and cards[0] >= plays:
                raise _Enough()
            if cards[0] == CUT_AT_PLAY:
                _count_flash(table.pico, flash_ops)
                table.power_cut()
                people.rejoin(table)
            cards[0] += 1

        try:
            while done < deals or cards[0] <= CUT_AT_PLAY or plays is not None:
                people.play_deal(on_step=on_step)
                done += 1
                if log:
                    log("  %s: deal %d of %d (%.0f s)" % (firmware.name, done, deals,
                                                         time.perf_counter() - t0))
                people.next_deal()
        except _Enough:
            pass
        same = table.pico_journal() == [ln.rstrip("\n") for ln in table.journal_lines()]
        _count_flash(table.pico, flash_ops)
    except Diverged as exc:
        failure = failure_site(str(exc))
    finally:
        table.close()
    figures = dict(table.report)
    figures.update(shown_ms=table.shown_ms, press_ms=table.press_ms, same_journal=same,
                   asked=table.asked, answered=table.answered,
                   deals=done, cards=cards[0], failure=failure, flash=flash_ops,
                   emulated_s=table.emulated_s, wall_s=time.perf_counter() - t0)
    return figures


# ----------------------------------------------------------------- printing

JOB_NAMES = ("readers", "buttons", "game", "display", "signals", "console")
# the work ahead of need (table/app.py idle_work: the journal's next sector erased, the
# garbage collected): its own row, not a step that keeps a card or a button waiting
# (it runs only when nothing waits)
AHEAD = "idle"


def _kb(n):
    return "-" if n is None else "%.1f KB" % (n / 1024)


def _ms(us):
    return "-" if us is None else "%.1f ms" % (us / 1000)


def measure(quick=False, log=None, session=True, display="spi"):
    """{firmware name: {figure: value}} for every firmware (REPL, and the session
    unless ``session`` is false)."""
    out = {}
    with tempfile.TemporaryDirectory(prefix="tapp-bench-rp2040-") as tmp:
        for fw in FIRMWARES:
            figures = {}
            try:
                figures.update(repl_heap(fw, tmp))
                if session and fw.session:
                    figures.update(run_session(fw, tmp, 1 if quick else 20,
                                               plays=CUT_AT_PLAY + 4 if quick else None,
                                               log=log, display=display))
            except (rp2_images.ImageMissing, OSError, RuntimeError) as exc:
                figures["failure"] = str(exc).splitlines()[0]
            out[fw.name] = figures
    return out


def print_device_bench(quick=False, session=True, display="spi"):
    variant, players = SESSION
    print("The device: MicroPython v1.28.0's rp2 port on the emulated RP2040 (rp2040js),")
    print("the unchanged firmware/main.py from the flash the one UF2 leaves, the chip models")
    print("at the Pico's pins.  A session: setup by the buttons, %s with %d players, strict,"
          % (variant, players))
    print("dealt over the centre reader, the auction, every card, a power cut after %d cards,"
          % CUT_AT_PLAY)
    print("%s.  The same inputs go to the table under CPython (the twin),"
          % ("then %d more cards (--quick)" % 4 if quick else "the next deal, 20 deals in all"))
    print("whose display the Pico's must match after each; the journals are compared at the end.")
    print("The display on %s." % ("SPI0 (4 MHz), as boards/pico.py wires it" if display == "spi"
                                  else "I2C0 (400 kHz, 0x3C): --display i2c"))
    if not session:
        print("(--device repl: only the heap at the REPL; the session's rows stay '-')")
    print_figures(measure(quick, session=session, display=display))


def print_figures(figures):
    """The device table from ``measure``'s figures."""
    names = [fw.name for fw in FIRMWARES]
    rows = [
        ("free heap at boot (REPL, gc.collect)", lambda f: _kb(f.get("boot_free"))),
        ("  after main.py's imports", lambda f: _kb(f.get("import_free"))),
        ("  app built, its loop starting", lambda f: _kb(f.get("start_free"))),
        ("  lowest in the session (after the idle collections)",
         lambda f: _kb(f.get("low_free")) + _in_deal(f.get("low_free_deal"))),
        ("card on the on-turn reader -> shown: median", lambda f: _median(f.get("shown_ms"))),
        ("  max (cards)", lambda f: "%s (%d)" % (_max(f.get("shown_ms")),
                                                 len(f.get("shown_ms") or ()))),
        ("button let go -> shown: median", lambda f: _median(f.get("press_ms"))),
        ("  max (presses)", lambda f: "%s (%d)" % (_max(f.get("press_ms")),
                                                   len(f.get("press_ms") or ()))),
    ]
    rows += [("longest step: %s" % job if i == 0 else "  %s" % job,
              lambda f, job=job: _ms(f.get("step_us_" + job)))
             for i, job in enumerate(JOB_NAMES)]
    rows += [
        ("  idle work: erase ahead, collect (only when nothing waits)",
         lambda f: _ms(f.get("step_us_" + AHEAD))),
        ("MicroPython's own collections (heap full): count, longest step",
         lambda f: "%d, %s" % (f.get("auto_gc", 0), _ms(f.get("auto_gc_us")))),
        ("an idle collection (gc.collect) at most", lambda f: _ms(f.get("gc_us"))),
        ("  of them while a card could come: count, longest",
         lambda f: "%d, %s" % (f.get("deal_gc", 0), _ms(f.get("deal_gc_us")))),
        ("  while a finished trick was cleared (no card shown then)",
         lambda f: "%d" % f.get("clear_gc", 0)),
        ("  while a menu was up (the auction: no card awaited)",
         lambda f: "%d" % f.get("menu_gc", 0)),
        ("qstr pool at the lowest: qstrs, chunks (8th: 15 KB)",
         lambda f: "%s, %s" % (f.get("qstrs", "-"), f.get("qstr_pools", "-"))),
        ("console client: status asked, answered", lambda f: "%s, %s" % (
            f.get("asked", "-"), f.get("answered", "-"))),
        ("flash: erases, page programs", lambda f: "%s, %s" % (
            f.get("flash", {}).get("erase", "-"), f.get("flash", {}).get("program", "-"))),
        ("deals played, cards", lambda f: "%s, %s" % (f.get("deals", "-"), f.get("cards", "-"))),
        ("the Pico's journal = the twin's", lambda f: {True: "yes", False: "NO",
                                                       None: "-"}[f.get("same_journal")]),
        ("emulated / wall time", lambda f: "%.0f s / %.0f s" % (
            f.get("emulated_s", 0), f.get("wall_s", 0))),
    ]
    print("  %-54s %s" % ("", "".join("%-18s" % n for n in names)))
    for label, cell in rows:
        print("  %-54s %s" % (label, "".join("%-18s" % cell(figures[n]) for n in names)))
    for n in names:
        if figures[n].get("failure"):
            print("  %s: the device stopped: %s" % (n, figures[n]["failure"]))
    _verdict(figures)


def _in_deal(deal):
    """Where the lowest free heap was seen: " (deal N)", " (setup)", or ""."""
    if deal is None:
        return ""
    return " (deal %d)" % deal if deal else " (setup)"


def _median(values):
    if not values:
        return "-"
    v = sorted(values)
    return "%.0f ms" % v[len(v) // 2]


def _max(values):
    return "%.0f ms" % max(values) if values else "-"


def _verdict(figures):
    table = FIRMWARES[1].name
    low = figures[table].get("low_free")
    print("  goals: the session on the table's firmware with >= %d KB free at its lowest: %s"
          % (GOAL_LOW_FREE // 1024,
             "met" if not figures[table].get("failure") and low is not None
             and low >= GOAL_LOW_FREE else "NOT met"))
    for name, f in ((fw.name, figures[fw.name]) for fw in FIRMWARES if fw.session):
        shown = sorted(f.get("shown_ms") or [])
        pressed = f.get("press_ms") or []
        steps = [f.get("step_us_" + j) or 0 for j in JOB_NAMES]
        print("    %-10s a card shown, median <= %d ms and max <= %d ms: %s" % (
            name, GOAL_SHOWN_MS, 2 * GOAL_SHOWN_MS,
            "-" if not shown else "met" if shown[len(shown) // 2] <= GOAL_SHOWN_MS
            and shown[-1] <= 2 * GOAL_SHOWN_MS else
            "NOT met (%.0f / %.0f ms)" % (shown[len(shown) // 2], shown[-1])))
        print("    %-10s a press shown within %d ms: %s; no step over %d ms: %s" % (
            "", GOAL_PRESS_MS,
            "-" if not pressed else "met" if max(pressed) <= GOAL_PRESS_MS else
            "NOT met (%.0f ms)" % max(pressed),
            GOAL_STEP_MS, "-" if not any(steps) else "met" if max(steps) <= GOAL_STEP_MS * 1000
            else "NOT met (%.0f ms)" % (max(steps) / 1000)))
        print("    %-10s no collection MicroPython starts itself (the heap full): %s" % (
            "", "-" if f.get("failure") else "met" if not f.get("auto_gc") else
            "NOT met (%d, the longest step %.0f ms)" % (f["auto_gc"], f["auto_gc_us"] / 1000)))
        print("    %-10s no collection over %d ms during a deal: %s" % (
            "", GOAL_STEP_MS, "-" if f.get("failure") else "met"
            if f.get("deal_gc_us", 0) <= GOAL_STEP_MS * 1000 else
            "NOT met (%d, the longest %.0f ms)" % (f["deal_gc"], f["deal_gc_us"] / 1000)))
    print("  The emulator charges one cycle per memory access: flash (XIP) cache misses are not")
    print("  modelled, so code running from flash -- ROMFS bytecode most -- is slower on a Pico.")
    print("  The display's bytes take their time on the wire (SPI at 4 MHz: a page 0.26 ms; I2C")
    print("  at 400 kHz: 2.9 ms), in its step; a reader's SPI bytes none.  Flash erase and program")
    print("  take the W25Q16's typical times (45 ms a 4 KB sector), the CPU waiting meanwhile.")
