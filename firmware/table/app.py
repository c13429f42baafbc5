"""The device application: one job per task, joined by preallocated queues.

Jobs (each a method that does one short step and returns; ``run`` makes an
``asyncio`` task of each, the simulator steps the very same methods on its
virtual clock):

========  =====================================================================
readers   poll one reader (the seat on turn every other step, the rest in
          turn), feed the presence arbiter; its ring is the queue to the game;
          it steps aside while what the game took waits to be shown
buttons   poll the button pad into a small ring
game      drain both queues into the current mode (table/modes.py: setup,
          enrolment, play, a full flash)
display   the current mode draws the screen when something changed; only
          changed pages are sent
signals   LEDs and the buzzer
console   the serial line protocol (table/console.py), when the board has a port
idle      work ahead of need, only when nothing waits: no card settling or
          queued, no button held or queued, the screen sent (``idle_work``):
          the setup's answers saved, else the journal's next sector erased,
          else a part of the console loaded (no card awaited), else a
          screen page imported, else the garbage collected (in a deal only
          when the heap runs low: the result's moment)
========  =====================================================================

What the table is doing is asked through ``app.view`` (table/table_view.py,
read-only); inputs come in through the readers, the buttons and ``input()``,
and go to the current mode (``app.current``, table/modes.py), which changes
modes through the App's doors (``start_game``, ``setup_done``, ``ask_renew``,
``back_to``).

Hardware comes from a board object (firmware/boards/): ``readers`` (a
ReaderSet, the seat readers first and the centre reader last), ``display``,
``buttons`` (ButtonPad), ``leds`` (SeatLeds), ``buzzer``, ``ticks_ms`` and
``root`` (the folder on flash for decks, settings and journal files); the
sessions come from a store (``journals``: table/journal.py).
"""
import gc

from drivers.buzzer import SOUNDS
from drivers.ticks import TICKS_MAX
from tapp.session import Session
from tapp.variants import HeaderError

from . import presence as P
from .enrol import Enrolment
from .game import Game
from .journal import WARN_DEALS, MemoryJournals, line_of
from .modes import EnrolMode, FullMode, PlayMode, RenewMode, SetupMode
from .names import german_suited
from .presence import ticks_diff
from .reader_round import ReaderRound
from .ring import Ring
from .screens import Screens
from .setup import Setup
from .table_view import TableView
from .texts import text

try:
    from micropython import const
except ImportError:  # CPython
    const = lambda x: x  # noqa: E731

# Inputs besides the button events (drivers.buttons.event(key, kind), 1..6) that ``App.input``
# queues for the game job: what the serial console asks for.
UNDO = 16             # take the last event back (enrolment: the last card)
NEW_SESSION = 17      # a new session from the settings

# How long a card must lie on one reader alone (and every other reader must
# have had a look) before it counts: short, for the 50 ms answer on turn --
# no longer than the sweep takes (table/reader_round.py: its look at every
# reader at once reads the card again a step after the first read, 5-9 ms on
# the Pico), so that read places it.
SETTLE_MS = 5
# Pages sent a display step: every one (more than screens.ROWS_PER_STEP), so a
# change goes out in the step that drew it (a row's changed cells only: a few
# bytes; a whole page is 2.9 ms of I2C at 400 kHz, 0.3 ms on SPI).
_PAGES_PER_STEP = const(8)
# The readers step aside for the display at most this many steps in a row
# (a screen takes one display step, or a few where the display's budget is
# smaller; a display that never finishes must not stop the readers).
_READERS_HELD = const(8)
# After a power-up, how long the readers look before a card the journal
# expects on a reader, but not found there, counts as gone (every reader is
# polled several times in this time).
BOOT_LOOK_MS = 600
# ... and at most this much longer while a reader's last read and the arbiter
# disagree (a card being lifted: its lift counts after the arbiter's grace).
_BOOT_SETTLE_MS = const(400)
# A display that stopped answering (a loose wire) is tried again this often;
# play goes on without it meanwhile.
DISPLAY_RETRY_MS = 1000

# job name, step method, period in ms (the readers' period covers a field's
# 5 ms settle time: a reader is switched on in one step and scanned in the next)
JOBS = (("readers", "poll_readers", 5), ("buttons", "poll_buttons", 5),
        ("game", "run_game", 5), ("display", "refresh", 5), ("signals", "run_signals", 10),
        ("console", "poll_console", 20), ("idle", "idle_work", 50))
# the garbage is collected while nothing waits once this much was allocated
# since the last collection (25-57 ms on the Pico: MicroPython's own, when the
# heap runs out, would come in the middle of a card); how much was allocated
# is looked at no more often than _IDLE_GC_LOOK_MS: gc.mem_alloc() walks the
# whole heap (8.5 ms on the Pico), too long to do at every idle step
_IDLE_GC_BYTES = const(16384)
_IDLE_GC_LOOK_MS = const(1000)
# While a deal is dealt and played a card may come at any moment and play
# allocates nothing (tests/mp/mptest_app_heap.py): the collection waits for the
# deal's end (the result on screen, the cards being gathered) unless the free
# heap fell below this -- a valve, not the rule (on the Pico the session's
# start, the dealing and the auction allocate some 50 KB, 80 KB are free).
# While a menu is up (the auction, a declaration, a call) no card is awaited:
# the garbage is collected as outside a deal (the dealing's and the menus'
# garbage, before the first card of play).
_IDLE_GC_DEAL_FREE = const(24576)
# ... and while a finished trick is cleared, once this much was allocated since
# the last collection (a console client's answers, the live events): no card
# can be shown then (the next leader's waits for the trick to be off the
# readers, table/game.py), so the collection keeps nobody waiting and the valve
# above stays shut during play
_IDLE_GC_CLEARING_BYTES = const(8192)
DEAL_MODES = ("dealing", "play")


class Signals:
    """What the game lights and sounds, on the board's LEDs and buzzer."""

    def __init__(self, leds, buzzer):
        self.leds = leds
        self.buzzer = buzzer

    def led(self, seat, state):
        if seat < self.leds.nseats:
            self.leds.set(seat, state)

    def tone(self, name):
        self.buzzer.play(SOUNDS[name])


class App:
    """The table: setup, enrolment and play on one board."""

    def __init__(self, board, settings, registry, deck_id=1, journals=None,
                 start=False, console=None, resume=None):
        self.board = board
        self.readers = board.readers
        self.centre = board.readers.n - 1
        self.presence = P.Presence(board.readers.n, settle_ms=SETTLE_MS)
        self.registry = registry
        self.deck_id = deck_id
        self.settings = settings             # table/settings.Settings: the setup's answers
        self.heap_kept = 0                   # gc.mem_alloc() after the last idle collection
        self.heap_size = 0                   # the heap's size (MicroPython's gc; else 0)
        self.heap_looked = board.ticks_ms()  # when the idle job last looked at the heap
        self.clearing_looked = False         # ... and whether in this trick's clearing
        self.settings_due = False            # the setup's answers still to be saved (idle job)
        self.rules_made = -1                 # the setup's answers the session was made ahead for
        self.cleared_for = -1                # ... and the heap collected for
        self.ahead = None                    # (header, Session) made then, taken by its OK
        self.console = console               # the line protocol: .step(), or None
        self.journals = journals or MemoryJournals()   # the sessions (table/journal.py)
        self.screens = Screens(board.display, getattr(board, "ticks_us", None))
        self.signals = Signals(board.leds, board.buzzer)
        self.keys = Ring(8)
        self.round = ReaderRound(board.readers, self.presence, board.ticks_ms)
        self.game = None
        self.journal = None
        self.deals_seen = 0                  # the journal's deals when last looked at
        self.flash_full = False              # the flash refused a line: OK held offers renew
        self.current = SetupMode(self, Setup(settings))   # the mode: table/modes.py
        self.enrolment = None                # the deck being enrolled (table/enrol.py)
        self.boot_check = None               # after resuming: when the readers looked
        self.display_retry = -1              # the display stopped answering: next try (ticks)
        self.show_pending = False            # the screen has yet to show what the game took
        self.readers_held = 0                # readers steps skipped in a row for the display
        self.view = TableView(self)          # the table's read-only view
        if resume is not None:
            self.start_game(resume)
            # a power-up mid-session shows a page at once: the pages are
            # imported now, before the loop runs, not in its first display
            # step (on the Pico: 100 ms, the import and the whole screen)
            while self.screens.preload():
                pass
        elif start:
            self._after_setup()
        self._collect_now()

    def _collect_now(self):
        """Collect the garbage before the loop runs (what the imports and the
        resumed journal left: else the first idle moment collects it, maybe in
        the middle of a deal) and count from what lives then: whether it
        collected."""
        mem_alloc = getattr(gc, "mem_alloc", None)   # MicroPython's (CPython collects itself)
        if mem_alloc is None:
            return False
        gc.collect()
        self.heap_kept = mem_alloc()
        if not self.heap_size:
            self.heap_size = self.heap_kept + gc.mem_free()
        return True

    # ----- modes (table/modes.py): the current one gets the inputs and draws ------------

    def start_game(self, journal=None):
        """A new session (its header from the setup), or the one in ``journal``
        taken up again after a power cut.  A journal the flash refuses: see
        ``_journal_failed``."""
        if self._start_game(journal).failed:
            self._journal_failed()

    def _start_game(self, journal):
        """The game on ``journal`` (None: a new one); the journal."""
        resume = None
        session = None
        if journal is None:
            header = self.settings.header()
            journal = self.journals.create(header)
            ahead = self.ahead                 # made for these answers? (``_make_session``)
            self.ahead = None
            if ahead is not None and ahead[0] == header:
                session = ahead[1]
        else:
            header = journal.header()
            resume = journal.iter_events()     # folded one by one, not all held
        self.journal = journal
        self.flash_full = False
        self.game = Game(header, journal, self.signals, self.readers.n, self.centre,
                         self.deck_id, self.settings.language, resume=resume, session=session)
        if resume is not None:                 # the look begins once the game is folded
            self.boot_check = self.board.ticks_ms()
        self.current = PlayMode(self, self.game)
        self.deals_seen = journal.deals
        return journal

    def _journal_failed(self):
        """The journal could not write an event (the flash is full, or failing;
        table/journal.py refuses a new deal that would not fit whole).  The
        engine may have taken the event already: it must not count.  So the
        game is taken up again from what the flash holds, as after a power cut,
        and the display says the flash is full.  If even that fails, the table
        stops with the message (a new session, from the console, makes room:
        finished sessions are removed)."""
        journal = self.journal
        self.game = None
        again = journal.reopen() if journal is not None else None
        if again is not None:
            self._start_game(again)
            game = self.game
            if not again.failed and game is not None:
                game.note(text("flash_full", self.settings.language), "error")
                self.flash_full = True
                return
            again.close()
        self.game = None
        self.journal = None
        self.current = FullMode(self)
        self.flash_full = True
        self.signals.tone("error")

    def _flash_warning(self):
        """A new deal was journalled: when only a few more fit, say so."""
        journal = self.journal
        game = self.game
        if journal is None or game is None:
            return
        self.deals_seen = journal.deals
        left = journal.deals_left()
        if 0 <= left <= WARN_DEALS:
            game.note(text("flash_low", self.settings.language) % left, "")
        elif game.news():
            game.note("", "")

    def setup_done(self):
        """The setup's last answer is taken: keep the answers, then enrol or play."""
        self._remember()
        self._after_setup()

    def _after_setup(self):
        """Enrol the deck first if it is not complete (resumes where it stopped)."""
        kind = "d36"
        if self.registry.complete(self.deck_id):
            self.start_game()
            return
        self.enrolment = Enrolment(self.registry, self.deck_id, kind,
                                   german_suited(self.settings.variant))
        self.current = EnrolMode(self, self.enrolment)

    def ask_renew(self):
        """A full flash, no deal under way, OK held: "new session?" over the
        current mode (table/modes.py RenewMode)."""
        self.current = RenewMode(self, self.current)

    def back_to(self, mode):
        """A mode that sat over ``mode`` (the renew question) gives it back."""
        self.current = mode
        mode.redraw()

    def _remember(self):
        """Keep the answers on flash for the next power-up (the virtual tables
        keep them in RAM: table/settings.py) -- by the idle job, when nothing
        waits: a littlefs write takes 70 ms on the Pico, and the session
        starts in this step (its header holds the answers the session needs)."""
        self.settings_due = True

    def card_present(self, reader):
        """A card lies on ``reader`` as the arbiter has it, and was seen there
        last (one whose lift is pending counts as gone: after a power-up the
        cards not found count as gone at once, so a next leader's card lifted
        just before the check must not be played when the trick clears)."""
        return self.presence.placed_len(reader) > 0 and not self.presence.missing(reader)

    # ----- jobs ------------------------------------------------------------------------

    def poll_readers(self):
        """The readers job's step: the next reader scanned, the arbiter fed
        (table/reader_round.py) -- unless what the game just took waits to be
        shown (``_show_first``)."""
        if self._show_first():
            return
        self.readers_held = 0
        self.round.step()

    def _show_first(self):
        """A card or press the game took and the display not yet sent it: the
        readers step aside (a scan that reads a card holds the loop 12 ms on
        the Pico, and nothing it could find is more urgent than the screen),
        at most ``_READERS_HELD`` steps in a row, never in a sweep, while
        the display is gone, nor during the look after a power-up (it counts
        time: with the readers aside for a screen's three steps of 10 ms a card
        lying there went unfound on the Pico and counted as gone)."""
        if not self.show_pending or self.readers_held >= _READERS_HELD or self.round.sweeping \
                or self.display_retry >= 0 or self.boot_check is not None:
            return False
        self.readers_held += 1
        return True

    def inject(self, reader, uid):
        """Debugging (the console's place/lift): from its next poll on, ``reader``
        reports the tag ``uid`` (bytes) instead of what it reads; None ends that."""
        self.round.inject(reader, uid)

    def input(self, ev):
        """Queue an input for the game job: a button event, UNDO or NEW_SESSION.
        False when the queue is nearly full (two places stay for the buttons)."""
        if len(self.keys) + 2 >= self.keys.size:
            return False
        self.keys.put(ev)
        return True

    def inputs_pending(self):
        """Inputs queued and not yet handled by the game job."""
        return len(self.keys)

    def redraw(self):
        """Draw the whole screen again (something else drew on the display)."""
        self.screens.draw_rows([(" ", False)] * 8)
        self.current.redraw()
        self.show_pending = True

    def poll_buttons(self):
        ev = self.board.buttons.poll()
        if ev:
            self.keys.put(ev)

    def run_game(self):
        """The game's own work left from its last step (a deal's hands
        journalled, one a step), then the queues drained into the current mode."""
        if self.game is not None:
            self.game.step()
        while True:
            ev = self.keys.get()
            if ev < 0:
                break
            self._key(ev)
            self.show_pending = True
        arb = self.presence
        while arb.pending():
            ev = arb.pop()
            self.current.card(ev, arb.reader)
            self.show_pending = True
        self.round.hot = self._hot_reader()
        if self.boot_check is not None and self._boot_looked():
            self.boot_check = None
            if self.game is not None:
                self.game.after_boot(self.card_present)
        if self.journal is not None:      # a refused write, a new deal: the flash
            if self.journal.failed:
                self._journal_failed()
            elif self.journal.deals != self.deals_seen and self.game is not None:
                self._flash_warning()

    def _boot_looked(self):
        """Have the readers looked long enough after a power-up: BOOT_LOOK_MS,
        and what they read last agrees with the arbiter (a card lifted just
        now, its lift still pending, is not taken for lying there) -- or
        _BOOT_SETTLE_MS more have passed (a reader that never agrees)."""
        waited = self.boot_look_ms()
        return waited >= BOOT_LOOK_MS and (self.cards_settled()
                                           or waited >= BOOT_LOOK_MS + _BOOT_SETTLE_MS)

    def boot_look_ms(self):
        """How long the readers have looked for the cards lying after a
        power-up (-1: no such look runs).  It counts from the game's fold or
        the readers' first step, whichever came later: on the Pico the fold of
        a long journal and the rest of the power-up take seconds in which no
        reader looked."""
        if self.boot_check is None:
            return -1
        rnd = self.round
        if not rnd.polls:
            return 0
        since = self.boot_check
        if ticks_diff(rnd.first_at, since) > 0:
            since = rnd.first_at
        return ticks_diff(self.board.ticks_ms(), since)

    def cards_settled(self):
        """Every reader's last read agrees with the arbiter: a card where one
        is placed, none where none is (no card settling, none being lifted)."""
        raw = self.readers.raw
        for i in range(self.readers.n):
            if (raw[i] == P.PRESENT) != (self.presence.placed_len(i) > 0):
                return False
        return True

    def refresh(self):
        """Draw the screen when something changed, then send at most
        ``_PAGES_PER_STEP`` changed pages (up to 2.9 ms of I2C each at 400 kHz)."""
        self.current.draw(self.screens)
        if self.display_retry >= 0 and ticks_diff(self.board.ticks_ms(),
                                                  self.display_retry) < 0:
            return              # it stopped answering: not yet time to try again
        try:
            if self.display_retry >= 0:     # it was gone: it may have lost power too
                self.board.display.init_display(clear=False)
                self.display_retry = -1
            sent = self.board.display.show(limit=_PAGES_PER_STEP)
        except OSError:         # a loose wire: play goes on, the display is tried again
            self.display_retry = (self.board.ticks_ms() + DISPLAY_RETRY_MS) & TICKS_MAX
            return
        # rows still to write or pages to send: worked out here, once a display
        # step, not by the readers at each of theirs (``_show_first``)
        self.show_pending = bool(self.screens.due) or (
            sent >= _PAGES_PER_STEP and bool(self.board.display.dirty_pages()))

    def stop(self):
        """The table stops (the console hands the board to the REPL): the
        setup's answers are saved if the idle job had not yet, the journal is
        closed, so nothing stays half-written."""
        self._save_settings()
        close = getattr(self.journal, "close", None)
        if close is not None:
            close()

    def set_console(self, console):
        """The line protocol (``.step()``) the console job runs from now on, or None."""
        self.console = console

    def poll_console(self):
        """The serial line protocol (table/console.py), when the board has a
        port -- not while the screen has rows to write (a console step of up
        to 12 ms on the Pico between two of the display's held the screen back:
        a press shown after 52 ms)."""
        if self.console is not None and not self.screens.due:
            self.console.step()

    def run_signals(self):
        self.board.leds.show()
        self.board.buzzer.update()

    def idle_work(self):
        """Work ahead of need, done only when nothing waits for the table (no
        input queued, no card being settled or lifted, no button down, the
        screen written and sent): the setup's answers saved, else the
        journal's next sector erased (45 ms on the Pico, the loop standing
        still), else a part of the serial console loaded (no card awaited:
        before a client's first byte comes, at power-up, before the setup's
        first press, where it often comes; or a client's byte waits:
        table/console_door.py), else a screen page imported before it is first
        shown, else on the setup's last screen the
        session's engine and its header's line made, then the garbage
        collected (``_session_ahead``),
        else the garbage collected once
        ``_IDLE_GC_BYTES`` were allocated since the last time (during a deal,
        unless a menu is up, while a finished trick is cleared once
        ``_IDLE_GC_CLEARING_BYTES`` were, else only when less than
        ``_IDLE_GC_DEAL_FREE`` is free).  What it did:
        "settings", "erase", "import", "rules", "collect" or None."""
        if not self.nothing_waits():
            return None
        if self._save_settings():
            return "settings"
        store = self.journal if self.journal is not None else self.journals
        if store.prepare():                  # the running session's, else the store's
            return "erase"
        prepare = getattr(self.console, "prepare", None)   # the console's door, not yet through
        if prepare is not None and prepare():  # (no card awaited, or a client waits)
            return "import"
        if self.screens.preload():
            return "import"
        ahead = self._session_ahead()
        if ahead is not None:
            return ahead
        return "collect" if self._collect() else None

    def _session_ahead(self):
        """On the setup's last screen, what the session OK starts needs done
        ahead, once for its answers: its engine made (``_make_session``), then
        the garbage collected (the deal it starts collects only when the heap
        runs low: after quick presses through the setup the valve opened in
        the first auction).  "rules", "collect" or None."""
        mode = self.current
        if not isinstance(mode, SetupMode) or not mode.setup.at_start():
            return None
        answers = mode.setup.answers
        if self.rules_made != answers:
            self.rules_made = answers
            self._make_session()
            return "rules"
        if self.cleared_for != answers:
            self.cleared_for = answers
            if self._collect_now():
                return "collect"
        return None

    def _make_session(self):
        """The session's engine for the answers, its rules made (tapp/rules.py
        keeps the last ones made), and the header's journal line
        (table/journal.py ``line_of`` keeps it), for the OK that starts it
        (``_start_game``): on the Pico the rules took some 15 ms of that
        press's step, the line 5.5 ms, the engine (the rules found again by
        the header) 2.8 ms.  (Apart: a ``try`` enlarges a frame, and a frame
        over 11 words goes on the heap at every idle step.)"""
        header = self.settings.header()
        try:
            session = Session(header)
        except HeaderError:                  # the start says why, in its own words
            return
        line_of(header)
        self.ahead = (header, session)

    def _save_settings(self):
        """The setup's answers on flash, if still due (``_remember``): whether it wrote."""
        if not self.settings_due:
            return False
        self.settings_due = False
        self.settings.save()
        return True

    def _collect(self):
        mem_alloc = getattr(gc, "mem_alloc", None)   # MicroPython's (CPython collects itself)
        now = self.board.ticks_ms()
        if mem_alloc is None or not self._look_due(now):
            return False
        self.heap_looked = now
        used = mem_alloc()
        if self.card_awaited():
            if self.heap_size - used >= _IDLE_GC_DEAL_FREE:
                return False
        elif self.view.clearing() and self.view.mode() in DEAL_MODES and not self.view.menu_size():
            if used - self.heap_kept < _IDLE_GC_CLEARING_BYTES:
                return False
        elif used - self.heap_kept < _IDLE_GC_BYTES:
            return False
        self._collect_now()
        return True

    def _look_due(self, now):
        """Is the heap to be looked at: _IDLE_GC_LOOK_MS after the last look, and
        at once in a finished trick's first idle moment (the clearing is short)."""
        clearing = self.view.clearing()
        first = clearing and not self.clearing_looked
        self.clearing_looked = clearing
        return first or ticks_diff(now, self.heap_looked) >= _IDLE_GC_LOOK_MS

    def card_awaited(self):
        """May a card be laid and have to be shown any moment: a deal dealt or
        played, no menu up (the auction, a declaration), no finished trick being
        cleared (the next leader's card waits for it, table/game.py).  Work
        that would keep a card waiting waits for a moment when this is False:
        the console's loading (table/console_door.py), the garbage's
        collection (``_collect``, but for its valve)."""
        view = self.view
        return view.mode() in DEAL_MODES and not view.menu_size() and not view.clearing()

    def nothing_waits(self):
        """No input queued, no card being settled or lifted, no button down,
        the screen written and sent -- also between the game's step and the
        display's, when the game took a card the screen has yet to show (a
        display that stopped answering, or was never there, is not waited
        for): the idle job's, the console's (and a probe's) moment."""
        if len(self.keys) or self.presence.pending() or self.screens.due:
            return False
        if self.display_retry < 0 and (self.show_pending or self.board.display.dirty_pages()):
            return False
        buttons = self.board.buttons
        if buttons.prev.pressed or buttons.next.pressed or buttons.ok.pressed:
            return False
        return self.cards_settled()

    # ----- routing ------------------------------------------------------------------------

    def _key(self, ev):
        if ev == NEW_SESSION:
            self.start_game()
        elif ev == UNDO:
            self.current.undo()
        else:
            self.current.button(ev)

    def _hot_reader(self):
        """The reader polled most often: the seat on turn, else the centre."""
        game = self.game
        if game is None:
            return self.centre
        turn = game.view.turn()
        if game.view.expects() == "card" and 0 <= turn < self.centre:
            return turn
        return self.centre

    # ----- asyncio ---------------------------------------------------------------------------

    async def run(self):
        """Run every job as its own task (the device's main loop)."""
        import asyncio
        tasks = [asyncio.create_task(self._loop(name, getattr(self, method), period))
                 for name, method, period in JOBS]
        await asyncio.gather(*tasks)

    def wait_after(self, name, period):
        """How long job ``name`` waits after a step (``period``: its JOBS
        period): the readers not at all while a sweep runs (every field is on
        and settled), the display 1 ms while rows are still to be written or
        sent -- the wait then only lets the other jobs that are due run first.
        (The readers' sweep may wait for its card's settle time: ReaderRound.wait.)
        Every host's scheduler asks this too (host_sim/scheduler.py)."""
        if name == "readers":
            return self.round.wait(period)
        if name == "display" and self.display_retry < 0 and (
                self.screens.due or self.board.display.dirty_pages()):
            return 1
        return period

    async def _loop(self, name, step, period):
        import asyncio
        sleep_ms = getattr(asyncio, "sleep_ms", None)
        while True:
            step()
            wait = self.wait_after(name, period)
            if sleep_ms is not None:
                await sleep_ms(wait)
            else:
                await asyncio.sleep(wait / 1000)
