"""The table's modes: what the buttons, the cards and the screen mean now.

``App`` (table/app.py) holds the current mode and routes every input to it;
each mode answers the same small interface, so adding one is a class here,
not a branch in every job:

=================  ================================================================
``name``           what ``app.view.mode()`` says ("setup", "enrol", "full"; the play
                   mode says the game's: "dealing", "play", "result", "over")
``number``         the mode's number (SETUP, ENROL, PLAYING, FULL)
``button(ev)``     a button event (drivers.buttons.event(key, SHORT/LONG))
``undo()``         take the last input back (the console's ``undo``)
``card(ev, r)``    a card event of the presence arbiter (table/presence.py) on reader r
``draw(screens)``  draw the screen if something changed since it was last drawn
``redraw()``       draw it all at the next refresh (something else drew on the display)
=================  ================================================================

The modes: ``SetupMode`` (the setup questions, table/setup.py), ``EnrolMode``
(a deck learnt card by card, table/enrol.py), ``PlayMode`` (a session,
table/game.py), ``FullMode`` (the flash refused even the session read back)
and ``RenewMode`` (on a full flash, OK held asks for a new session; it sits
over the mode it was asked from and gives that one back).  A mode changes the
table through the App's doors (``start_game``, ``setup_done``, ``ask_renew``,
``back_to``), never its fields.
"""
from drivers.buttons import LONG, OK_LONG, OK_SHORT, key_of, kind_of

from . import presence as P
from .enrol import ACCEPTED
from .texts import text

# The modes' numbers (``number``: table/table_view.py asks whether a session is on).
SETUP = 0
ENROL = 1
PLAYING = 2
FULL = 3              # the flash refused even the session read back: nothing is written


class _Rows:
    """A mode whose screen is 8 rows made as (text, inverted) when it changed
    (``rows()``): drawn at the next refresh after ``dirty`` is set."""

    dirty = True

    def draw(self, screens):
        if self.dirty:
            screens.set_rows(self.rows())
            self.dirty = False
        else:
            screens.step()

    def redraw(self):
        self.dirty = True

    def rows(self):
        """The 8 rows: every subclass answers it (EnrolMode, FullMode, RenewMode);
        this one only names the contract for the type checker."""
        raise NotImplementedError


class SetupMode:
    """The setup questions (prev / next / OK; a long prev goes back)."""

    name = "setup"
    number = SETUP

    def __init__(self, app, setup):
        self.app = app
        self.setup = setup               # table/setup.py Setup

    def button(self, ev):
        setup = self.setup
        setup.button(key_of(ev), kind_of(ev) == LONG)   # KEY_PREV/NEXT/OK are 0/1/2
        if setup.done:
            self.app.setup_done()

    def undo(self):
        """Nothing to take back: a long prev goes back a question."""

    def card(self, ev, reader):
        """Cards mean nothing before the session starts."""

    def draw(self, screens):
        setup = self.setup
        if setup.dirty:
            screens.set_rows(setup.rows())
            setup.dirty = False
        else:
            screens.step()

    def redraw(self):
        self.setup.dirty = True


class EnrolMode(_Rows):
    """Enrolment: the cards go one by one on the centre reader, as the screen
    asks; OK held (or the console's undo) takes the last one back."""

    name = "enrol"
    number = ENROL

    def __init__(self, app, enrolment):
        self.app = app
        self.enrolment = enrolment       # table/enrol.py Enrolment
        self.note = ""                   # the answer to the last card laid

    def button(self, ev):
        if ev == OK_LONG:
            self.undo()

    def undo(self):
        if self.enrolment.undo_last() >= 0:
            self.note = text("undone", self.app.settings.language)
            self.dirty = True

    def card(self, ev, reader):
        if ev != P.EV_PLACED:
            return
        app = self.app
        enrol = self.enrolment
        lang = app.settings.language
        if reader != app.centre:
            self.note = text("to_centre", lang)
            app.signals.tone("reject")
        else:
            code = enrol.offer(app.presence.uid_view())
            self.note = enrol.text(code, lang)
            app.signals.tone("accept" if code == ACCEPTED else "reject")
        self.dirty = True
        if enrol.done():
            app.start_game()

    def rows(self):
        lang = self.app.settings.language
        enrol = self.enrolment
        have, total = enrol.progress()
        return [((text("enrol", lang) % enrol.deck_id)[:16], True), ("", False),
                (enrol.prompt(lang), False), ("%d/%d" % (have, total), False),
                ("", False), (self.note, False), ("", False), ("", False)]


class PlayMode:
    """A session: buttons and cards go to the game (table/game.py) through its
    doors, and the screen is drawn from the table's view when the game says
    something changed.  Nothing here allocates in steady play (the display
    job runs ``draw`` every 10 ms)."""

    name = "play"                        # (app.view.mode() says the game's step)
    number = PLAYING

    def __init__(self, app, game):
        self.app = app
        self.game = game
        self.dirty = True

    def button(self, ev):
        app = self.app
        if ev == OK_LONG and app.flash_full and not self.game.view.in_deal():
            app.ask_renew()              # a full flash between deals: a new session?
            return
        self.game.button(ev)

    def undo(self):
        self.game.undo()

    def card(self, ev, reader):
        """(Small methods: a frame over 11 words would go on the heap at every card.)"""
        game = self.game
        if ev == P.EV_PLACED:
            self._placed(reader)
        elif ev == P.EV_LIFTED:
            game.lifted(reader)
        elif ev == P.EV_COLLISION:
            game.jam(reader, True)
        elif ev == P.EV_COLLISION_OVER or ev == P.EV_BACK:
            game.jam(reader, False)
        elif ev == P.EV_FAULT:
            game.jam(reader, True, fault=True)
        elif ev == P.EV_OVERFLOW:
            game.resync(self.app.card_present)   # events were lost: ask the arbiter

    def _placed(self, reader):
        app = self.app
        self.game.placed(reader, app.registry.lookup(app.presence.uid_view()))

    def draw(self, screens):
        """A change: the rows it touches are due; else the next rows due are
        written (a whole screen takes a few steps: table/screens.py)."""
        changed = self.game.changed()
        if changed or self.dirty:
            self.dirty = False
            screens.draw(self.app.view, self.game.undone())
        else:
            screens.step()

    def redraw(self):
        self.dirty = True


class FullMode(_Rows):
    """The flash refused even the session read back (table/app.py,
    ``_journal_failed``): the table says so and stops; OK held asks for a new
    session (finished sessions are removed to make room), as the console's
    ``reset-session`` does."""

    name = "full"
    number = FULL

    def __init__(self, app):
        self.app = app

    def button(self, ev):
        if ev == OK_LONG:
            self.app.ask_renew()

    def undo(self):
        """Nothing is written, so nothing to take back."""

    def card(self, ev, reader):
        """No session: cards mean nothing."""

    def rows(self):
        lang = self.app.settings.language
        return [(text("flash_full", lang), True), ("", False),
                (text("flash_help", lang), False)] + [("", False)] * 5


class RenewMode(_Rows):
    """A full flash, no deal under way, OK held: "new session?" (the running
    session becomes a finished one, and table/journal.py removes the oldest
    finished sessions to make room).  OK starts it, any other button goes back
    to the mode it was asked from, which keeps taking the cards meanwhile."""

    def __init__(self, app, back):
        self.app = app
        self.back = back
        self.name = back.name
        self.number = back.number

    def button(self, ev):
        app = self.app
        app.back_to(self.back)
        if ev == OK_SHORT:
            app.start_game()

    def undo(self):
        self.back.undo()

    def card(self, ev, reader):
        self.back.card(ev, reader)

    def rows(self):
        lang = self.app.settings.language
        return [(text("renew_q", lang), True), ("", False), (text("renew_keeps", lang), False),
                (text("renew_drops", lang), False), (text("renew_drops2", lang), False),
                ("", False), (text("renew_ok", lang), False), ("", False)]
