"""The table's read-only view: what the table is doing, one question per method.

The engine has ``session.view``; the table layer around it (the setup, the
enrolment, the game with its menus, dealing and readers) has this one,
``app.view``.  Screens, the console, the virtual tables and tests ask it
instead of reading ``App`` and ``Game`` fields, so those can change behind it
(tests/test_table_seam.py holds a whole session to the App's doors and to
this view at run time).  It changes nothing and hands out no writer: the
journal comes as a ``JournalReader``, menu events as copies.  The game's
questions are the game's own (table/game_state.py), asked of the session in
play; with none on, each answers "none" itself; ``engine()`` is the engine's view of the session in
play (None before the session starts).  The screens ask it at every redraw:
what they ask allocates nothing, and each method is small (a MicroPython
frame over 11 words would go on the heap: tests/test_frames.py).

Modes (``mode()``): ``setup`` (the settings menu), ``enrol`` (learning a deck),
``dealing`` (strict mode: the hands are scanned), ``play`` (auction to the last
trick, as ``engine().expects()`` says), ``result`` (a settled deal on screen),
``over`` (the session has ended), ``full`` (the flash refused the session).
"""

from .hand_scan import NOT_DUE
from .modes import PLAYING


class JournalReader:
    """The record of the session in play, to read only (the journal itself
    writes: table/journal.py): ``len()``, ``line(k)``, ``tail(n)``, ``read_lines()``,
    ``name()`` (the session's in ``journal list``)."""

    def __init__(self, journal):
        self._journal = journal
        self._reader = None      # the journal's reader for ``line``, made at the first

    def reads(self, journal):
        return self._journal is journal

    def __len__(self):
        return len(self._journal)

    def line(self, k):
        if self._reader is None:
            self._reader = self._journal.line_reader()
        return self._journal.line(k, self._reader)

    def tail(self, n):
        return self._journal.tail(n)

    def read_lines(self):
        return self._journal.read_lines()

    def name(self):
        return self._journal.name()


class TableView:
    """Questions about the table ``app`` (table/app.py), answered from its state."""

    def __init__(self, app):
        self._app = app
        self._journal = None             # the JournalReader of the journal in play

    def _play(self):
        """The session in play (table/game_state.py), or None."""
        app = self._app
        return app.game if app.current.number == PLAYING else None

    def _playing(self, k):
        """The session in play, asked for its ``k``-th entry; none on: IndexError."""
        game = self._play()
        if game is None:
            raise IndexError(k)
        return game

    def _scan(self):
        """The deal being dealt (table/hand_scan.py), or None."""
        game = self._play()
        return game.dealing() if game is not None else None

    # ----- what the table is doing -----------------------------------------------------

    def mode(self):
        """What the table is doing now (the names above)."""
        game = self._play()
        return game.mode() if game is not None else self._app.current.name

    def stage(self):
        """What the table does, coarsely (the console's ``state``): "setup",
        "enrol", "play" (a session, whatever its step) or "full"."""
        current = self._app.current
        return "play" if current.number == PLAYING else current.name

    def deck(self):
        """The id of the deck the table plays with (and enrols)."""
        return self._app.deck_id

    def engine(self):
        """The engine's read-only view of the session in play, or None.  A new
        session has a new one: ``is`` tells whether the session changed."""
        game = self._app.game
        return game.view if game is not None else None

    def deck_cards(self):
        """The card ints of the deck in play (the variant's deck), or () before
        the session starts."""
        game = self._app.game
        return list(game.view.deck_cards()) if game is not None else ()

    def readers(self):
        """Readers: the seat readers 0.., then the centre reader (``centre()``)."""
        return self._app.centre + 1

    def centre(self):
        return self._app.centre

    # ----- the readers' diagnostics (the console's ``readers``) -------------------------

    def reader_down(self, reader):
        """``reader`` does not answer (it is re-initialised with a back-off)."""
        return self._app.readers.down(reader)

    def reader_status(self, reader):
        """The reader's status after its last scan (0 absent, 1 present, 2
        collision, 3 error: drivers/reader_set.py)."""
        return self._app.readers.status[reader]

    def reader_raw(self, reader):
        """The reader's last scan as it came (the same codes), before the
        reader's own debouncing."""
        return self._app.readers.raw[reader]

    def reader_faults(self, reader):
        return self._app.readers.faults(reader)

    def reader_recoveries(self, reader):
        return self._app.readers.recoveries(reader)

    def reader_errors(self, reader):
        return self._app.readers.errors(reader)

    def reader_uid(self, reader):
        """The UID the reader read last (a memoryview into its buffer: copy it to keep it)."""
        return self._app.readers.uid_view(reader)

    # ----- the presence arbiter: the cards it settled -----------------------------------

    def placed(self, reader):
        """A card lies settled on ``reader`` (whether the game took it or not)."""
        return self._app.presence.placed_len(reader) > 0

    def placed_uid(self, reader, buf):
        """The UID settled on ``reader`` copied into ``buf``; its length (0: none)."""
        return self._app.presence.placed_uid(reader, buf)

    def where(self, uid):
        """The reader the tag ``uid`` is settled on, or -1."""
        return self._app.presence.where(uid)

    def collision(self, reader):
        """``reader`` sees two cards."""
        return self._app.presence.collision(reader)

    def fault(self, reader):
        """``reader`` has stopped answering (as the arbiter saw it)."""
        return self._app.presence.fault(reader)

    def card_changes(self):
        """A number that changes whenever what is placed on a reader, a
        collision or a fault does (the arbiter's events, queued or lost): a
        watcher looks at the readers only when it moved."""
        return self._app.presence.changes

    def card_events_lost(self):
        """Card events the arbiter could not queue (the game asked the readers again)."""
        return self._app.presence.overflows

    def polls(self):
        """Reader polls since power-up."""
        return self._app.round.polls

    def boot_look_ms(self):
        """How long the readers have looked for the cards lying after a
        power-up, before those not found count as lifted meanwhile (-1: no
        such look runs)."""
        return self._app.boot_look_ms()

    def hot(self):
        """The reader polled fastest now (the one a card is expected on)."""
        return self._app.round.hot

    def shown(self):
        """Every input queued has been taken and the screen shows what it
        changed (drawn and sent; a display that stopped answering is not
        waited for): what a person pressing a button waits for."""
        app = self._app
        return not len(app.keys) and (not app.show_pending or app.display_retry >= 0)

    def keys_overflows(self):
        """Button events lost because the input queue was full."""
        return self._app.keys.overflows

    def injected(self, reader):
        """A tag injected on ``reader`` by the console (``inject``) lies there."""
        return self._app.round.injected(reader)

    def journal(self):
        """The record of the session in play, to read (``len()``, ``line(k)``:
        docs/record-format.md; a JournalReader, never the writer), or None; a
        new session (or the session taken up again after a refused write) has a
        new one."""
        journal = self._app.journal
        if journal is None:
            return None
        if self._journal is None or not self._journal.reads(journal):
            self._journal = JournalReader(journal)
        return self._journal

    def journal_length(self):
        """Lines in that record (the header too; 0: none): a host that watches the
        record grow counts them without holding the journal (the VM's tables ask
        across their bridge, where an object does not travel)."""
        journal = self._app.journal
        return len(journal) if journal is not None else 0

    # ----- the session in play: table/game_state.py answers ------------------------------

    def language(self):
        """The table's language ("de", "en", ...): the texts on screen (a
        session keeps the language it began in; the settings' one is the next's)."""
        game = self._play()
        return game.language() if game is not None else self._app.settings.language

    def refusals(self):
        """How many cards the table refused in the session in play (0: none on)."""
        game = self._play()
        return game.refusals() if game is not None else 0

    def refusal(self, k):
        """The ``k``-th refusal: (reader, stable error word, display text), or
        None when it is no longer kept (table/game_state.py REFUSALS_KEPT)."""
        game = self._play()
        return game.refusal(k) if game is not None else None

    def message(self):
        """The refusal, warning or note on screen ("" when none)."""
        game = self._play()
        return game.message() if game is not None else ""

    def overlay(self):
        """A page over the game that the next press closes or answers: "undo"
        (the undo question), "scores" (the score sheet), "info" (this deal's
        points), "notice" (a proven revoke), or ""."""
        game = self._play()
        return game.overlay() if game is not None else ""

    def page(self):
        """The page turned to (prev/next) on the settlement, the score sheet or
        this deal's pages; the screens wrap it to the pages there are."""
        game = self._play()
        return game.page() if game is not None else 0

    def news(self):
        """The table's own news (the flash running full): the result screen says
        it where it would say "OK: next deal" ("" none)."""
        game = self._play()
        return game.news() if game is not None else ""

    def menu_size(self):
        game = self._play()
        return game.menu_size() if game is not None else 0

    def menu_pos(self):
        """The entry shown, or -1 (no menu)."""
        game = self._play()
        return game.menu_pos() if game is not None else -1

    def menu_label(self, k):
        return self._playing(k).menu_label(k)

    def menu_needs_hold(self):
        """The entry shown raises the stakes (an announcement, a self-raise): OK
        must be held to choose it, and the screen says so."""
        game = self._play()
        return game.menu_needs_hold() if game is not None else False

    def menu_asks_sure(self):
        """An entry of a menu whose every entry commits (Tapp neu's second
        round, the Tarock declaration) was given one OK: the next OK takes it,
        the screen asks "Sicher? OK"."""
        game = self._play()
        return game.menu_asks_sure() if game is not None else False

    def menu_event(self, k):
        """The event entry ``k`` stands for (a copy), or None ("play on")."""
        return self._playing(k).menu_event(k)

    def clearing(self):
        """A completed trick's cards are still to be lifted."""
        game = self._play()
        return game.clearing() if game is not None else False

    def trick_shown(self):
        """The completed trick's cards are still shown at the seats (cleared from
        the readers, the next trick's first card not yet laid)."""
        game = self._play()
        return game.trick_shown() if game is not None else False

    def last_trick_card(self, seat):
        """The card (int) ``seat`` laid in the last completed trick, -1 none, -2
        when the table kept no record of that trick (after a power-up or an
        undo: ask the engine's ``last_trick()``, which allocates)."""
        game = self._play()
        return game.last_trick_card(seat) if game is not None else -2

    def card_on(self, reader):
        """The accepted card (int) the table believes lies on ``reader``, or -1."""
        game = self._play()
        return game.card_on(reader) if game is not None else -1

    def refused(self, reader):
        """A card the table does not take lies on ``reader``: it must be lifted
        (refused, or taken back by an undo: ``taken_back``)."""
        game = self._play()
        return game.refused(reader) if game is not None else False

    def taken_back(self, reader):
        """The card to lift from ``reader`` was played and taken back by an
        undo (not refused)."""
        game = self._play()
        return game.taken_back(reader) if game is not None else False

    def jammed(self, reader):
        """``reader`` sees two cards, or does not answer."""
        game = self._play()
        return game.jammed(reader) if game is not None else False

    # ----- strict dealing and discarding ------------------------------------------------

    def dealt(self, seat):
        """Cards scanned for ``seat`` in the deal being dealt."""
        scan = self._scan()
        return scan.dealt_count(seat) if scan is not None else 0

    def deal_seen(self, card):
        """Has the card (int) been scanned in the deal being dealt?"""
        scan = self._scan()
        return scan.seen_card(card) if scan is not None else False

    def next_receiver(self):
        """Who gets the next card dealt over the centre (a seat, tapp.dealing.TALON)
        or -2 when no more are due there."""
        scan = self._scan()
        return scan.next_receiver() if scan is not None else NOT_DUE

    def deal_short(self, seat):
        """Cards still to be scanned for ``seat`` in the deal being dealt (0 when it
        has them all or sits out)."""
        scan = self._scan()
        return scan.short(seat) if scan is not None else 0

    def deal_seats(self):
        """How many seats the deal being dealt goes to (``deal_seat(i)``: which)."""
        scan = self._scan()
        return scan.seats() if scan is not None else 0

    def deal_seat(self, i):
        """The ``i``-th seat dealt to, in the order the cards go round (-1: no deal
        is being dealt)."""
        scan = self._scan()
        return scan.seat(i) if scan is not None else -1

    def deal_scanned(self):
        """Cards scanned so far in the deal being dealt (all seats)."""
        scan = self._scan()
        return scan.scanned() if scan is not None else 0

    def deal_due(self):
        """Cards the deal being dealt scans in all (hand size times seats dealt to)."""
        scan = self._scan()
        return scan.due() if scan is not None else 0

    def discards_taken(self):
        """Discards laid on the centre and counted, not yet journalled."""
        game = self._play()
        return game.discards_taken() if game is not None else 0

    def discard(self, k):
        """The ``k``-th of those discards (a card code, as the readers see it)."""
        return self._playing(k).discard(k)

    def rufer_pick(self):
        """The card (int) the declarer picked to call in the Rufer menu, before
        he chose what to give for it; -1 none (the engine's ``rufer_call``
        tells the call once it is made)."""
        game = self._play()
        return game.rufer_pick() if game is not None else -1

    # ----- enrolment -------------------------------------------------------------------

    def enrol_progress(self):
        """While a deck is enrolled: (cards enrolled, cards in the deck); else None."""
        enrol = self._app.enrolment
        return enrol.progress() if enrol is not None and self.mode() == "enrol" else None

    def enrol_expected(self):
        """The card (int) the enrolment asks for next, or -1 (none asked)."""
        enrol = self._app.enrolment
        return enrol.expected() if enrol is not None and self.mode() == "enrol" else -1

    # ----- the screen --------------------------------------------------------------------

    def rows(self):
        """The screen's 8 rows as text."""
        return self._app.screens.text_rows()

    def heap_free(self):
        """The free heap after the table's last garbage collection (bytes), None
        where the runtime does not say (CPython).  Not read afresh: that walks
        the whole heap (8.5 ms on the Pico)."""
        app = self._app
        return app.heap_size - app.heap_kept if app.heap_size else None

    def display_down(self):
        """The display stopped answering (a loose wire): play goes on and the
        table tries it again now and then (App.refresh)."""
        return self._app.display_retry >= 0
