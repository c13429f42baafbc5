"""The virtual table: the unchanged firmware application on the chip models.

``VirtualTable`` builds the simulator's board (host_sim/board.py), a deck of
virtual NFC stickers enrolled through the registry's front door, and the
application (firmware/table/app.py) by the device's own power-up
(firmware/table/power_up.py), and runs its jobs on the virtual clock.
Front-ends (terminal, browser, scenario files, tests) only place and lift
virtual cards, press the three buttons and read what the device shows: the
OLED's pixels and text, the seat LEDs, the buzzer.

``AutoPlayers`` (host_sim/players.py, re-exported here) sit at the virtual
table: they deal over the centre reader (in strict mode), answer the menus with
the buttons and put legal cards on their readers, as people would.
"""
import itertools
import os
import tempfile

from host_sim.board import SimBoard
from host_sim.flash import PICO_JOURNAL_KB, journal_flash, split
from host_sim.mfrc522_model import Tag
from host_sim.players import AutoPlayers
from host_sim.scheduler import Scheduler
from host_sim.vm.vm_deck import DECK_ID, card_uid, enrol_virtual_decks
from table.app import JOBS
from table.power_up import boot
from tapp.cards import CARD_CODES, CODE_INDEX

SETTLE_MS = 120          # long enough for the arbiter to settle a placement
REACT_MS = 50            # the game and display jobs have run after an input
PRESS_MS = 80            # a short button press
LONG_MS = 900            # a long press (the pad's long_ms is 700)
SHOWN_MS = 1000          # after a press, the longest wait for the table to show it
KEYS = {"prev": 0, "next": 1, "ok": 2}
SEATS = ("Anna", "Bert", "Cora", "Dora", "Emil")
JOURNAL_IMAGE = "journal.img"   # the journal's flash area in a table's folder
__all__ = ["AutoPlayers", "VirtualTable"]
LED_NAMES = ("off", "idle", "turn", "played", "refused", "winner", "dealer", "flag",
             "bidding")


def press_button(table, key, long=False):
    """Press and release ``table``'s button "prev", "next" or "ok" (its
    ``board.button_pins`` and ``wait``): held LONG_MS for a long press."""
    pin = table.board.button_pins[KEYS[key]]
    pin.press()
    table.wait(LONG_MS if long else PRESS_MS)
    pin.release()
    table.wait(PRESS_MS)
    # a slower table (the emulated Pico: a bid's game step and its screen can
    # take longer than PRESS_MS) is given the time to show what the press did
    table.wait_until(table.app.view.shown, limit_ms=SHOWN_MS)


class VirtualTable:
    """The table with ``players`` seat readers and a centre reader.

    Its flash: decks and settings in ``root`` (a folder of the host's; with
    ``flash_kb``, littlefs of its share of that flash, host_sim/flash.py), the
    journal in its own flash area as on the Pico (``journal_area``), or with
    ``journal_files`` in files under ``root`` as on the stock firmware."""

    def __init__(self, variant="tapp_modern", players=3, mode="strict", options=None,
                 seats=None, first_dealer=0, lang="de", root=None, setup=False,
                 enrolled=True, decks=1, resume=False, fields_on=False, flash_kb=None,
                 flash_store=None, journal_flash=None, journal_files=False, journal_kb=None):
        self.args = dict(variant=variant, players=players, mode=mode, options=options,
                         seats=seats, first_dealer=first_dealer, lang=lang, setup=setup,
                         fields_on=fields_on, flash_kb=flash_kb, journal_files=journal_files,
                         journal_kb=journal_kb)
        self.powered = True
        self.flash_store = self.mount_flash(flash_kb, flash_store)
        given = root is not None and self.flash_store is None
        if self.flash_store is not None:
            root = self.flash_store.root
        self.root = root or tempfile.mkdtemp(prefix="tapptable-")
        self.journal_flash = self.journal_area(journal_kb or flash_kb and split(flash_kb)[1],
                                               journal_flash, journal_files, given)
        self.decks = decks if enrolled else 0
        values = {"variant": variant, "players": players, "mode": mode,
                  "options": dict(options or {}), "first_dealer": first_dealer,
                  "language": lang, "seat_names": list(seats or SEATS[:players])}
        self.boot(values, setup, resume)
        self.tags = [[] for _ in range(players + 1)]
        self.centre = players
        self.wait(50)
        self.wait_until(self.app.view.shown, limit_ms=SHOWN_MS)   # its first screen

    def boot(self, values, setup, resume):
        """Power up: the board (host_sim/board.py), then the application by the
        power-up every host shares (table/power_up.py) with the virtual table's
        differences -- the decks enrolled on the first boot, the settings
        ``values`` kept in RAM, the journal resumed only if ``resume`` -- and
        the scheduler of its jobs."""
        self.board = SimBoard(seats=values["players"], root=self.root,
                              fields_on=self.args["fields_on"], journal_flash=self.journal_flash)
        self.app = boot(self.board, self.root, values, remember=False, resume=resume,
                        enrol=lambda registry: enrol_virtual_decks(registry, self.decks),
                        deck=DECK_ID, start=not setup)
        self.scheduler = Scheduler(self.board.clock, [
            (name, getattr(self.app, method), period) for name, method, period in JOBS],
            self.app.wait_after)

    def mount_flash(self, flash_kb, flash_store):
        """``flash_kb``: the table's files on littlefs of that size (host_sim/flash.py)
        instead of the host's file system; ``flash_store``: that flash again after
        a power cut.  None: no flash of its own."""
        if flash_store is not None:
            flash_store.power_cycle()
            return flash_store
        if flash_kb is None:
            return None
        from host_sim import flash
        flash.install()
        return flash.Flash(flash.split(flash_kb)[0])

    def journal_area(self, kb, dev, files, given):
        """The journal's own flash area (host_sim/vm/nor_flash.py): ``dev``
        again after a power cut, else ``kb`` KiB (``journal_kb``, or
        ``flash_kb``'s share of the flash: host_sim/flash.py ``split``; the
        Pico's 512 by default) -- kept in ``<root>/journal.img`` when the table
        was given its folder (``given``: a table directory that outlives the
        process), else in RAM.  None with ``files``: the journal in files
        under ``root``."""
        if files:
            return None
        if dev is not None:
            return dev.power_on()
        return journal_flash(kb or PICO_JOURNAL_KB, path=os.path.join(self.root, JOURNAL_IMAGE)
                             if given else None)

    @staticmethod
    def session_found(root):
        """Does the table folder ``root`` hold a session to take up?"""
        from table.journal_flash import FlashJournals
        path = os.path.join(root, JOURNAL_IMAGE)
        if not os.path.exists(path):
            return False
        return FlashJournals(journal_flash(path=path, through=False)).last() is not None

    def close(self):
        """Power off for good (nothing to do in this process; the VM table stops its VM)."""

    def power_up_args(self):
        """What a power-up on the same flash is built with (the table's settings)."""
        return dict(self.args, flash_store=self.flash_store, journal_flash=self.journal_flash)

    # ----- acting at the table ----------------------------------------------------------

    def wait(self, ms=SETTLE_MS):
        self.scheduler.run_for(ms)

    def place(self, reader, code, deck_id=DECK_ID, wait=True):
        """Put the card ``code`` (e.g. "HA") on ``reader`` (seats 0.., centre last)."""
        self.place_tag(reader, card_uid(deck_id, CODE_INDEX[code]), wait)

    def place_tag(self, reader, uid, wait=True):
        """Put an arbitrary NFC tag (``uid`` bytes) on ``reader``."""
        tag = Tag(bytes(uid))
        self.board.chips[reader].place(tag)
        self.tags[reader].append(tag)
        if wait and self.powered:   # until the table has settled it (or given up), then a step
            self.wait_until(lambda: self.app.view.where(tag.uid) == reader, 1000)
            self.wait(REACT_MS)

    def lift(self, reader, wait=True):
        """Take every card off ``reader`` (and wait until the table noticed)."""
        if self.tags[reader]:
            self.board.chips[reader].remove(*self.tags[reader])
            self.tags[reader] = []
        if wait and self.powered:   # until the table has noticed, then the game and display steps
            self.wait_until(lambda: not self.app.view.placed(reader))
            self.wait(REACT_MS)

    def wait_until(self, done, limit_ms=3000, step_ms=20):
        """Run the table until ``done()`` (or ``limit_ms``); True if it happened."""
        waited = 0
        while not done():
            if waited >= limit_ms:
                return False
            self.wait(step_ms)
            waited += step_ms
        return True

    def press(self, key, long=False):
        """Press and release a button: "prev", "next" or "ok"."""
        press_button(self, key, long)

    def power_cut(self):
        """Power off and on: a new table on the same flash (decks, settings, the
        journal, which it resumes); the cards lying on the readers stay there.
        Everything in RAM is gone."""
        self.power_off()
        return self.power_on()

    def power_off(self):
        """The power goes: the application stops (what it had not written to
        flash is gone).  Cards may still be placed and lifted (``place``,
        ``lift``: they only change what lies on the readers) until ``power_on``."""
        self.close()
        self.powered = False

    def power_on(self):
        """Power back on after ``power_off``: a new table on the same flash that
        resumes the journal, with the cards that lie on the readers now."""
        if self.powered:
            raise RuntimeError("power_on: the table is on")
        table = type(self)(root=self.root, enrolled=False, resume=True,
                           **self.power_up_args())
        for reader, tags in enumerate(self.tags):
            for tag in tags:
                table.place_tag(reader, tag.uid, wait=False)
        table.wait()
        return table

    def enrol_cards(self, count=None, deck_id=DECK_ID):
        """Put the cards the enrolment screen asks for on the centre reader, one by one."""
        tv = self.app.view
        done = 0
        while count is None or done < count:
            card = tv.enrol_expected()
            if card < 0:
                return
            self.place(self.centre, CARD_CODES[card], deck_id)
            self.wait_until(lambda c=card: tv.enrol_expected() != c, 1000)
            self.lift(self.centre)
            done += 1

    # ----- what the device shows ---------------------------------------------------------

    def screen(self):
        """The OLED's 8 text rows, read back from the display model's pixels."""
        return self.board.oled.text_rows()

    def leds(self):
        """Each seat LED's state name, decoded from the WS2812 model's colours."""
        leds = self.board.leds
        colours = {leds.colour(i): LED_NAMES[i] for i in range(len(LED_NAMES))}
        return [colours.get(tuple(c), "?") for c in self.board.strip.colours]

    def tones(self):
        return self.board.pwm.tones()

    @property
    def view(self):
        return self.app.view.engine()

    def journal_name(self):
        """The name of the session in play (``journal list``), or None."""
        journal = self.app.view.journal()
        return journal.name() if journal is not None else None

    def journal_lines(self, start=0, stop=None):
        """The journal's lines ``start`` (0: the header) up to ``stop`` (the end)."""
        journal = self.app.view.journal()
        if journal is None:
            return []
        return list(itertools.islice(journal.read_lines(), start, stop))

