"""What a session at the table is in, and the questions about it.

The table's session (table/game.py ``Game``) is a state machine: one *step*
at a time, and over it at most two *overlays*, the pages the next press closes
or answers.  This module names them and holds the state with the questions
the screens, the console and the hosts ask (through ``app.view``,
table/table_view.py); ``Game`` adds the inputs that change it.  Every field is
private: the state changes only through ``Game``'s inputs.

Steps (small ints; ``mode()`` says the ``shown`` name):

==========  ========  ==========================================================
step        shown     the table
==========  ========  ==========================================================
dealing     dealing   strict mode: learns the hands dealt over the readers
auction     play      takes the calls, the contract, the called card (the menu)
lay-away    play      takes the declarer's discards on the centre reader
play        play      takes the cards, trick by trick
result      result    shows a settled deal; OK deals the next one
over        over      the session has ended (pot/bank rules)
==========  ========  ==========================================================

Overlays (``Overlays``): a long press opens one *panel* (the undo question,
the score sheet, this deal's points; opening one closes another); a proven
revoke's *notice* lies under the panel; the top one is shown.
"""
from drivers.buttons import KEY_OK, KEY_PREV
from drivers.leds import IDLE, REFUSED, TURN, WINNER
from tapp import errors as E

from .menus import entry_label, menu_for, needs_hold
from .names import short_name
from .rows import COLS
from .texts import error_text, text

try:
    from micropython import const
except ImportError:  # CPython
    const = lambda x: x  # noqa: E731


# The steps, as small ints (objects for six names would take heap on the device).
DEALING = const(0)
AUCTION = const(1)
_LAY_AWAY = const(2)
PLAY = const(3)
RESULT = const(4)
OVER = const(5)
# ``mode()``: each step as the table names it
SHOWN = ("dealing", "play", "play", "play", "result", "over")


def in_deal(step):
    """Does the engine drive ``step`` (auction to the last trick; ``view.expects()``
    says what)?"""
    return AUCTION <= step <= PLAY


# Overlays, as ``overlay()`` names them
UNDO = "undo"
SCORES = "scores"
INFO = "info"
NOTICE = "notice"

NO_CARD = -1
# The stable word of each refusal the table itself makes (besides the engine's codes).
TABLE_REFUSALS = {"unknown": "unknown_tag", "other_deck": "other_deck", "not_now": "not_now",
                  "clear": "clear_table"}
REFUSALS_KEPT = 8    # refusals a watcher (the console, every 20 ms) can still read


class Overlays:
    """The pages over the game, in one place: their exclusion (one panel at a
    time) and their priority (the panel over the notice)."""

    def __init__(self):
        self._panel = ""
        self._notice = False

    def shown(self):
        """The overlay on top ("" none)."""
        return self._panel or (NOTICE if self._notice else "")

    def panel(self):
        """The panel open ("" none): the undo question, scores or info."""
        return self._panel

    def asks_undo(self):
        return self._panel == UNDO

    def long_press(self, key):
        """OK held opens the undo question, prev the scores, next this deal's
        points (closing another panel); the same again closes it."""
        panel = UNDO if key == KEY_OK else SCORES if key == KEY_PREV else INFO
        self._panel = "" if self._panel == panel else panel

    def close_panel(self):
        self._panel = ""

    def push_notice(self):
        """A proven revoke: its notice, under any panel open."""
        self._notice = True

    def drop_notice(self):
        """Close the notice; was it open?"""
        was = self._notice
        self._notice = False
        return was


class GameState:
    """A session's state at the table and the questions about it (no inputs:
    table/game.py ``Game``).  ``view``: the engine's read-only view."""

    def __init__(self, session, journal, signals, readers, centre, deck_id, lang):
        self._session = session
        self.view = session.view
        self._journal = journal
        self._signals = signals          # leds/tones: .led(seat, state), .tone(name)
        self._readers = readers
        self._centre = centre
        self._deck_id = deck_id
        self._lang = lang
        self._on_reader = [NO_CARD] * readers   # accepted card lying on each reader
        self._refused = bytearray(readers)      # a refused card waits to be lifted
        self._jammed = bytearray(readers)       # two cards / reader fault
        self._clearing = False
        self._step = DEALING
        self._overlays = Overlays()
        self._menu = []                  # [(label or None: made when asked, event or None)]
        self._menu_pos = 0
        self._menu_twice = False         # every entry commits: chosen with a second OK
        self._sure = False               # ... and the first OK was pressed ("Sicher? OK")
        self._message = ""
        self._message_seat = -1
        self._news = ""                  # note(): the flash running full
        self._dirty = True
        self._undone = False             # an event taken back since ``undone()`` was asked
        self._scan = None                # strict dealing: the hands scanned (hand_scan.py)
        self._discards = []
        self._rufer_card = NO_CARD       # the card picked to call (Rufer), before the give
        self._undo_at = -1               # the journal's length when undo was asked
        self._waiting = NO_CARD          # the next leader's card laid while clearing
        self._waiting_reader = -1
        self._powered_up = False         # resumed after a power cut: nothing dealt or
                                         # discarded yet since (those lived in RAM)
        self._trick_shown = False
        self._page = 0                   # the page shown (result, score sheet, this deal)
        self._revokes_told = 0           # proven revokes announced so far (open mode)
        # the cards of the trick being played (or just completed) by seat, 255
        # none; _trick_at says which completed trick they are (see last_trick_card)
        self._trick_cards = bytearray(b"\xff" * readers)
        self._trick_at = -1
        self._play_ev = {"ev": "play", "seat": 0, "card": ""}   # filled at each play
        self._refusals = 0               # refusals so far; the last REFUSALS_KEPT are kept
        self._refusal_reader = bytearray(REFUSALS_KEPT)
        self._refusal_word = [""] * REFUSALS_KEPT
        self._refusal_text = [""] * REFUSALS_KEPT

    # ----- the step and the overlays ---------------------------------------------------

    def mode(self):
        """The step as the table names it: dealing, play, result or over."""
        return SHOWN[self._step]

    def overlay(self):
        """The page over the game the next press closes or answers: "undo",
        "scores", "info", "notice", or ""."""
        return self._overlays.shown()

    def page(self):
        """The page turned to on the settlement, the score sheet or this deal's pages."""
        return self._page

    def language(self):
        return self._lang

    def message(self):
        """The refusal, warning or note on screen ("" when none)."""
        return self._message

    def news(self):
        """The table's own news (the flash running full; "" none)."""
        return self._news

    # ----- the menu ----------------------------------------------------------------------

    def menu_size(self):
        return len(self._menu)

    def menu_pos(self):
        return self._menu_pos if self._menu else -1

    def menu_label(self, k):
        """Entry ``k``'s label; an auction call's or a Rufer card's is made
        when asked (table/menus.py: the menu row asks for one entry a
        change), not kept -- a question changes nothing."""
        label, ev = self._menu[k]
        if label is None:
            return entry_label(self.view, self._lang, ev)
        return label

    def menu_event(self, k):
        """The event entry ``k`` stands for (a copy), or None ("play on")."""
        ev = self._menu[k][1]
        return dict(ev) if ev is not None else None

    def menu_needs_hold(self):
        """The entry shown raises the stakes: OK must be held to choose it."""
        return len(self._menu) > 0 and needs_hold(self._menu[self._menu_pos][1])

    def menu_asks_sure(self):
        """The first OK on the entry shown was pressed, and every entry of the
        menu commits: the next OK takes it ("Sicher? OK"), prev/next moves on."""
        return self._sure

    # ----- cards on the readers ----------------------------------------------------------

    def clearing(self):
        return self._clearing

    def trick_shown(self):
        return self._trick_shown

    def card_on(self, reader):
        return self._on_reader[reader]

    def refused(self, reader):
        return self._refused[reader] != 0

    def jammed(self, reader):
        return self._jammed[reader] != 0

    def taken_back(self, reader):
        """The card lying on ``reader`` was taken back by an undo (lift it; it
        was not refused)."""
        return self._refused[reader] == 2

    def _trick_key(self):
        """Which completed trick is the view's last one (deals played, trick number)."""
        return self.view.deals_played() * 64 + self.view.trick_number()

    def last_trick_card(self, seat):
        """The card ``seat`` laid in the last completed trick (-1: none), from
        the game's own record of the plays (the view's ``last_trick()`` makes a
        dict); -2 when the record is not of that trick (ask the view)."""
        if self._trick_at < 0 or self._trick_at != self._trick_key():
            return -2
        card = self._trick_cards[seat]
        return -1 if card == 255 else card

    def refusals(self):
        """How many cards the table has refused in this session (see ``refusal``)."""
        return self._refusals

    def refusal(self, k):
        """The ``k``-th refusal (0-based): (reader, stable error word, display
        text), or None if it is not among the last REFUSALS_KEPT."""
        if not 0 <= k < self._refusals or k < self._refusals - REFUSALS_KEPT:
            return None
        i = k % REFUSALS_KEPT
        return self._refusal_reader[i], self._refusal_word[i], self._refusal_text[i]

    # ----- strict dealing and discarding ------------------------------------------------

    def dealing(self):
        """Strict dealing: the hands scanned so far (table/hand_scan.py, read
        by ``app.view``), or None when no deal is being dealt."""
        return self._scan if self._step == DEALING else None

    def discards_taken(self):
        return len(self._discards)

    def discard(self, k):
        return self._discards[k]

    def rufer_pick(self):
        """The card the declarer picked to call (Rufer), before he chose what to
        give for it (-1: none picked)."""
        return self._rufer_card

    # ----- changing the state: for the inputs (table/game.py) ----------------------------

    def _apply(self, ev):
        """Apply an event; journal it when accepted; the outcome."""
        out = self._session.apply(ev)
        if out.get("ok"):
            self._journal.append(ev)
        return out

    def _t(self, key):
        return text(key, self._lang)

    def _named(self, key, seat):
        """The text ``key`` with the seat's name in it, shortened to the room
        its "%s" leaves (at most 8 columns, as the screens show names)."""
        t = self._t(key)
        room = COLS - len(t) + 2
        return t % short_name(self.view.seat_name(seat), room if room < 8 else 8)

    def _say(self, msg, seat=-1):
        self._message = msg
        self._message_seat = seat
        self._dirty = True

    def _said(self):
        """A step was taken: the table's last word (no refused card's) goes."""
        if self._message_seat < 0:
            self._say("")

    def _trick_order(self, leader):
        seats = self.view.active_seats()
        k = seats.index(leader)
        return seats[k:] + seats[:k]

    def _show_winner(self):
        """LEDs while the table is cleared: the trick's winner lit, the others idle."""
        winner = self.view.last_winner()
        for s in range(self.view.players()):      # the deal's active seats
            if self.view.is_active(s):
                self._signals.led(s, WINNER if s == winner else IDLE)

    def _clear_trick(self):
        cards = self._trick_cards
        i = 0
        while i < len(cards):
            cards[i] = 255
            i += 1
        self._trick_at = -1

    def _record_trick(self):
        """The record is the view's current trick (after a power-up, an undo)."""
        self._clear_trick()
        view = self.view
        for i in range(view.trick_size()):
            self._trick_cards[view.trick_seat(i)] = view.trick_card(i)

    def _cards_on_seats(self):
        for r in range(self._readers):
            if r != self._centre and self._on_reader[r] != NO_CARD:
                return True
        return False

    def _refuse(self, reader, word, msg):
        k = self._refusals % REFUSALS_KEPT       # kept for watchers (the console)
        self._refusal_reader[k] = reader
        self._refusal_word[k] = word
        self._refusal_text[k] = msg
        self._refusals += 1
        self._refused[reader] = 1
        self._say(msg, reader)
        if reader != self._centre and reader < self.view.players():
            self._signals.led(reader, REFUSED)
        self._signals.tone("reject")

    def _refuse_code(self, reader, err):
        self._refuse(reader, E.NAMES[err], error_text(err, self._lang))

    def _refuse_text(self, reader, key):
        self._refuse(reader, TABLE_REFUSALS[key], self._t(key))

    def _reader_down(self, reader):
        if reader == self._centre:
            return self._t("centre_down")
        return self._t("reader_down") % str(reader + 1)

    def _after_change(self):
        self._menu_for_state()
        self._show_turn()
        self._dirty = True

    def _enter_deal(self):
        """The engine drives the deal: the step is the one for what it expects."""
        expects = self.view.expects()
        self._step = _LAY_AWAY if expects == "discard" else PLAY if expects == "card" \
            else AUCTION

    def _menu_for_state(self):
        """What the menu row offers now (table/menus.py)."""
        self._menu_pos = 0
        self._sure = False
        if not in_deal(self._step):
            self._menu = []
            return
        self._enter_deal()
        self._menu, self._menu_pos, self._menu_twice = menu_for(self.view, self._lang,
                                                                self._rufer_card)

    def _show_turn(self):
        """LEDs: the seat to act in blue (the trick's winner stays lit while the
        table is cleared); the others idle."""
        if self._clearing:
            return
        turn = self.view.turn() if in_deal(self._step) else -1
        for s in range(self.view.players()):
            if self._refused[s] or self._jammed[s]:
                continue
            self._signals.led(s, TURN if s == turn else IDLE)

    def _resync_readers(self):
        """After an undo: the cards of the current trick that still lie there stay
        (one lifted already is not waited for); any other card lying on a seat
        reader must be lifted (it is no longer played)."""
        view = self.view
        keep = [NO_CARD] * self._readers
        for i in range(view.trick_size()):
            keep[view.trick_seat(i)] = view.trick_card(i)
        for r in range(self._readers):
            if r == self._centre:
                continue
            if self._on_reader[r] != NO_CARD and keep[r] == NO_CARD:
                self._refused[r] = 2       # no longer played: to be lifted (taken_back)
                if r < self.view.players():
                    self._signals.led(r, REFUSED)
            self._on_reader[r] = keep[r] if self._on_reader[r] == keep[r] else NO_CARD
        self._clearing = False
        self._trick_shown = False
        self._waiting_reader = -1
