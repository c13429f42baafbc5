"""The table during a session: cards on readers and button presses become events.

``Game`` turns what the readers and buttons report into docs/record-format.md
events for the engine's one door (``Session.apply`` / ``Session.play``),
journals every event the engine accepted, and keeps what the screens, LEDs
and buzzer show (its state and questions: table/game_state.py).

Readers: seat ``s`` plays on reader ``s``; reader ``centre`` takes the deal
(strict mode: the dealer deals over it in the variant's packet order), the
discards and enrolment.  The presence arbiter (table/presence.py) has already
settled every report: a repeat is not a new placement, and a card seen on two
readers belongs to neither until it settles on one.

Handling of the irregular (each one a test scenario):

* an illegal card (strict), out of turn, a card already played, a card of
  another deck, an unknown tag: refused with a short message, red LED at that
  seat and the reject tone; the card must be lifted, nothing else changes;
* a card lifted before the trick is complete: the play stands (it is in the
  journal); the display asks to put it back, but nothing waits for it: the
  trick goes on and the table is clear once the other cards are lifted.
  Putting the same card back on the same reader is not a second play (the
  game knows which card each seat laid in the trick from the journal, so this
  holds after a power cut too);
* a second card on a reader (the reader reports a collision): "one card only",
  nothing is played until the reader sees one card again;
* a reader that stops answering: the display names the seat, the game goes on
  (the reader recovers by itself, drivers/reader_set.py);
* when every active seat has played: the winner's LED and tone, the trick's
  points; the next trick starts when the trick's cards are off the readers.
  The next leader may lay his card before that: it waits, and is played once
  the table is clear (it is not refused);
* a power cut: everything that matters is in the journal (which card each
  seat laid in the trick, the phase, a deal being dealt: its ``deal`` event
  is written with the first card taken); what only lived in RAM is asked for
  again in plain words, at once and only then: cards dealt over the centre
  before the cut ("deal all cards again") and discards laid before the cut
  ("lay the discards again": a discard already taken is not counted twice).
"""
from drivers.buttons import KEY_NEXT, KEY_OK, KEY_PREV, LONG, key_of, kind_of
from drivers.leds import FLAG, PLAYED, REFUSED
from tapp import errors as E
from tapp.cards import CARD_CODES, CODE_INDEX
from tapp.session import Session

from .game_deal import GameDeal
from .game_state import (
    DEALING,
    NO_CARD,
    OVER,
    RESULT,
    in_deal,
)
from .menus import needs_hold
from .registry import card_of, deck_of, pack
from .texts import error_text


class Game(GameDeal):
    """One session at the table: its inputs (cards, buttons, the console's
    undo, the App's notes) move it from step to step (table/game_state.py).
    ``header`` is the docs/record-format.md header; ``journal`` has
    ``append(event_dict)`` (written and flushed before it returns; it must not
    keep the dict: a card play's is one dict, made once and filled at each play)."""

    def __init__(self, header, journal, signals, readers, centre, deck_id=1, lang="de",
                 resume=None, session=None):
        if session is None:             # (else made ahead for this header: table/app.py)
            session = Session(header)
        super().__init__(session, journal, signals, readers, centre, deck_id, lang)
        if resume is None:
            self._start_deal()
        else:
            self._resume(resume)

    # ----- the App's notes ----------------------------------------------------------

    def note(self, msg, tone):
        """The table's own news (table/app.py: the flash is running full), kept
        in ``news`` until the next note and said on the message row; the result
        screen shows it too.  ``tone``: a sound with it ("" none)."""
        self._news = msg
        self._dirty = True
        if msg:
            self._say(msg)
        if tone:
            self._signals.tone(tone)

    def changed(self):
        """Has what the screens show changed since the last call?  (The play
        mode asks it before each redraw: table/modes.py.)"""
        changed = self._dirty
        self._dirty = False
        return changed

    def undone(self):
        """Was an event taken back since the last call?  The play mode then
        has every row written anew: a row's key names a call by its place in
        the auction (table/pages/play.py), and an undo and a new call may
        fill that place anew between two draws."""
        undone = self._undone
        self._undone = False
        return undone

    # ----- after a power cut -------------------------------------------------------

    def _resume(self, events):
        """Fold the journal's events (already on flash: not written again) and
        take up the table where it was, mid-trick included."""
        for ev in events:
            self._session.apply(ev)
        view = self.view
        if view.session_over():
            self._step = OVER
        elif view.expects() == "hand":
            self._deal_again()
            self._powered_up = True
            self._say(self._t("deal_again"))
            return
        elif view.in_deal():
            self._enter_deal()
            for i in range(view.trick_size()):      # the cards of the trick lie there
                self._on_reader[view.trick_seat(i)] = view.trick_card(i)
            self._record_trick()
            last = view.last_trick()
            if not view.trick_size() and last is not None:
                # perhaps the finished trick still lies on the readers: cleared
                # as usual, or at once if the readers find nothing (after_boot)
                order = self._trick_order(last["leader"])
                for i, code in enumerate(last["cards"]):
                    self._on_reader[order[i]] = CODE_INDEX[code]
                    self._trick_cards[order[i]] = CODE_INDEX[code]
                self._trick_at = self._trick_key()
                self._clearing = True
                self._trick_shown = True
                self._show_winner()
        elif view.deals_played():
            self._step = RESULT
        else:
            self._start_deal()
            return
        self._powered_up = True
        self._after_change()
        self._discard_note()

    def after_boot(self, present):
        """The readers have had a first look after a power-up: a card the journal
        expects on a reader that holds nothing is gone (lifted while the power
        was off)."""
        self.resync(present)
        self._after_change()

    def resync(self, present):
        """Forget the cards believed to lie on readers where ``present(reader)``
        finds nothing (after a power-up; after card events were lost)."""
        for r in range(self._readers):
            if not present(r):
                if r != self._centre:
                    self._on_reader[r] = NO_CARD
                self._refused[r] = 0
                if r == self._waiting_reader:
                    self._waiting_reader = -1
        if self._clearing and not self._cards_on_seats():
            self._cleared()

    # ----- inputs: cards -------------------------------------------------------------

    def placed(self, reader, packed):
        """A card settled on ``reader``; ``packed`` = registry.pack(deck, card), or -1."""
        self._dirty = True
        if self._on_reader[reader] != NO_CARD and \
                packed != pack(self._deck_id, self._on_reader[reader]):
            self._gone(reader)      # one card a reader: the one believed there has gone
        if self._jammed[reader]:
            return
        if packed < 0:
            return self._refuse_text(reader, "unknown")
        if deck_of(packed) != self._deck_id:
            return self._refuse_text(reader, "other_deck")
        card = card_of(packed)
        if self._step == DEALING:
            return self._deal_card(reader, card)
        if not in_deal(self._step):
            return self._refuse_text(reader, "not_now")
        expects = self.view.expects()
        if reader == self._centre:
            if expects == "discard" and self.view.strict():
                return self._discard(card)
            return self._refuse_text(reader, "not_now")
        if self._on_reader[reader] == card or self._laid_back(reader, card):
            self._on_reader[reader] = card
            self._say("")                 # the same card put back: not a second play
            self._show_turn()
            return
        if self._clearing:
            if reader == self.view.turn() and expects == "card":
                self._waiting = card       # the next leader's card: played once clear
                self._waiting_reader = reader
                return
            return self._refuse_text(reader, "clear")
        if expects != "card":
            return self._refuse_text(reader, "not_now")
        self._play(reader, card)

    def _laid_back(self, reader, card):
        """Is ``card`` the one seat ``reader`` laid in the trick on the table (the
        trick being played, or the completed one while it is cleared)?"""
        return self._trick_cards[reader] == card and (self._clearing or
                                                      self.view.trick_size() > 0)

    def _play(self, reader, card):
        """A card play: nothing is allocated here but the journal's line (the
        event dict is made once; tests/mp/mptest_app_heap.py).  Split in small
        methods: a frame over 11 words would be put on the heap."""
        self._overlays.drop_notice()             # a revoke's notice gives way to play
        new_trick = self.view.trick_size() == 0
        err = self._session.play(reader, card)
        if err:
            self._refuse_code(reader, err)
            return
        if new_trick:
            self._clear_trick()                  # the last trick is gone from the screen
        self._played(reader, card)
        if self.view.revoke_count() != self._revokes_told:
            self._revoke_proven()

    def _revoke_proven(self):
        """Open mode: the card proved a revoke (docs/rules 3.3): said at once --
        the notice (who, which trick, what rule) until OK or the next card,
        the offender's LED, the error tone; the settlement names it too."""
        n = self.view.revoke_count()
        if n > self._revokes_told:
            self._overlays.push_notice()
            self._signals.led(self.view.revoke_seat(n - 1), FLAG)
            self._signals.tone("error")
        self._revokes_told = n

    def _played(self, seat, card):
        ev = self._play_ev
        ev["seat"] = seat
        ev["card"] = CARD_CODES[card]
        self._journal.append(ev)
        self._on_reader[seat] = card
        self._trick_cards[seat] = card
        if self._menu:
            self._menu = []
        self._say("")
        if self.view.trick_size() == 0:          # the trick is complete
            self._trick_done()
        else:
            self._signals.led(seat, PLAYED)
            self._signals.tone("accept")
            self._show_turn()

    def _trick_done(self):
        self._clearing = True
        self._trick_shown = True
        self._waiting_reader = -1
        self._trick_at = self._trick_key()
        self._show_winner()
        self._signals.tone("trick_won")
        if not self.view.in_deal():
            self._deal_over()
        elif not self._cards_on_seats():
            self._cleared()               # no card lies there (played from the console)

    def _discard(self, card):
        code = CARD_CODES[card]
        if code in self._discards:
            return
        self._discards.append(code)
        self._signals.tone("accept")
        self._said()                     # "Zurückgenommen" does not stay through it
        if len(self._discards) < self.view.talon_size():
            self._discard_note()
            return
        if self._powered_up:
            self._powered_up = False
            self._say("")
        out = self._apply({"ev": "exchange", "seat": self.view.declarer(),
                           "discard": self._discards})
        self._discards = []
        if not out.get("ok"):
            return self._refuse_code(self._centre, E.NAMES.index(out["error"]))
        self._after_change()

    def _discard_note(self):
        """After a power cut while the declarer laid his discards (the ones taken
        lived in RAM): "lay them again", with how many are counted so far."""
        if self._powered_up and in_deal(self._step) and self.view.strict() \
                and self.view.expects() == "discard":
            self._say(self._t("discard_again") % (
                "%d/%d" % (len(self._discards), self.view.talon_size())))

    def lifted(self, reader):
        """The card on ``reader`` has gone."""
        self._dirty = True
        if self._refused[reader]:
            self._refused[reader] = 0
            if self._message_seat == reader or reader == self._centre:
                self._say("")
            self._show_turn()
            return
        if reader == self._waiting_reader:
            self._waiting_reader = -1
            return
        if self._on_reader[reader] == NO_CARD:
            return
        self._on_reader[reader] = NO_CARD
        if self._clearing:
            if not self._cards_on_seats():
                self._cleared()
            return
        if in_deal(self._step) and self.view.trick_size() and self._trick_cards[reader] != 255:
            # lifted before the trick is complete: the play stands, nothing waits for it
            self._say(self._named("put_back", reader), reader)   # "Bert: zurück!"

    def _gone(self, reader):
        """The accepted card believed on ``reader`` is not there (another card is:
        after a power-up the journal's card may have been swapped meanwhile)."""
        self._on_reader[reader] = NO_CARD
        if self._clearing and not self._cards_on_seats():
            self._cleared()

    def _cleared(self):
        """The completed trick's cards are off the readers: the next trick; the
        next leader's card laid meanwhile is played now."""
        self._clearing = False
        self._trick_shown = False
        self._show_turn()
        reader = self._waiting_reader
        if reader >= 0:
            self._waiting_reader = -1
            if in_deal(self._step) and self.view.expects() == "card":
                self._play(reader, self._waiting)

    def jam(self, reader, on, fault=False):
        """Two cards on a reader (collision) or a reader fault, and its end."""
        self._jammed[reader] = 1 if on else 0
        if on:
            if reader == self._waiting_reader:
                # the next leader's card: whether it stays cannot be seen now, so
                # it is not played blind; laid again, it counts
                self._waiting_reader = -1
            self._say(self._reader_down(reader) if fault else self._t("one_card"), reader)
            if reader != self._centre:
                self._signals.led(reader, REFUSED)
        else:
            self._say("")
            self._show_turn()

    # ----- inputs: buttons -------------------------------------------------------------

    def button(self, ev):
        """A ButtonPad event (drivers.buttons.event(key, SHORT/LONG))."""
        key = key_of(ev)
        kind = kind_of(ev)
        self._dirty = True
        if self._overlays.drop_notice() and kind != LONG:
            return                          # a revoke's notice: the press closes it
        if kind == LONG:
            self._long(key)
            return
        panel = self._overlays.panel()
        if self._overlays.asks_undo():
            if key == KEY_OK and len(self._journal) != self._undo_at:
                self._undo_at = len(self._journal)   # another input came first: the
                self._signals.tone("reject")         # screen names it now, ask again
                return
            self._overlays.close_panel()
            if key == KEY_OK:
                self._undo()
            else:
                self._say("")
            return
        if panel or (self._step == RESULT or self._step == OVER) \
                and key != KEY_OK:
            self._turn_page(key)
            return
        if self._step == RESULT and key == KEY_OK:
            self._page = 0
            self._start_deal()
            return
        if not self._menu:
            return
        sure = self._sure
        self._sure = False
        if key == KEY_PREV:
            self._menu_pos = (self._menu_pos - 1) % len(self._menu)
        elif key == KEY_NEXT:
            self._menu_pos = (self._menu_pos + 1) % len(self._menu)
        elif key == KEY_OK and needs_hold(self._menu[self._menu_pos][1]):
            self._say(self._t("hold_ok"))       # a stake: OK must be held
            self._signals.tone("reject")
        elif key == KEY_OK and self._menu_twice and not sure:
            self._sure = True                   # every entry commits: OK once more
            self._say(self._t("sure_q"))
            return
        elif key == KEY_OK:
            if sure:
                self._say("")                   # answered: the question is gone
            self._choose(self._menu[self._menu_pos][1])
            return
        if sure:
            self._say("")                       # moved on: the question is gone

    def _long(self, key):
        """Long presses: OK held chooses a stake entry, else asks to undo; prev
        shows the score sheet, next this deal's points and last trick."""
        if key == KEY_OK and self._menu and needs_hold(self._menu[self._menu_pos][1]) \
                and not self._overlays.panel():
            self._choose(self._menu[self._menu_pos][1])
            return
        if self._sure:
            self._sure = False                  # a page over the menu: asked anew
            self._say("")
        self._page = 0
        self._overlays.long_press(key)
        self._undo_at = len(self._journal)       # what the question names (game_state)

    def _turn_page(self, key):
        """The score sheet, this deal's pages and the settlement have pages:
        prev/next turn them (the screen wraps), OK closes the first two."""
        if key == KEY_OK:
            self._overlays.close_panel()
            self._page = 0
        else:
            self._page += 1 if key == KEY_NEXT else -1

    def _choose(self, ev):
        if ev is None:                      # "play on": close the announcement menu
            self._menu = []
            self._dirty = True
            return
        if "pick" in ev:                    # Rufer: first the called card, then the give
            self._rufer_card = CODE_INDEX[ev["pick"]]
            self._after_change()
            return
        out = self._apply(ev)
        if not out.get("ok"):
            self._say(error_text(E.NAMES.index(out["error"]), self._lang))
            self._signals.tone("reject")
            return
        self._rufer_card = NO_CARD
        self._said()
        if "result" in out:
            self._deal_over()
            return
        self._after_change()

    def undo(self):
        """Take the last event back (what a long then a short OK press does)."""
        if self._overlays.asks_undo():
            self._overlays.close_panel()
        self._dirty = True
        self._undo()

    def _undo(self):
        if self._step == DEALING:       # the cards dealt so far live in RAM only
            self._say(self._t("nothing_undo"))
            return
        out = self._apply({"ev": "undo"})
        if not out.get("ok"):
            self._say(self._t("nothing_undo"))
            return
        self._say(self._t("undone"))
        self._undone = True
        self._record_trick()
        self._discards = []             # the lay-away (in RAM) begins again
        self._rufer_card = NO_CARD
        if self.view.expects() == "hand":
            self._deal_again()          # a hand was taken back: dealt again, whole
            return
        if in_deal(self._step) and not self.view.in_deal():
            self._start_deal()          # the deal itself was taken back: deal again
            return
        if in_deal(self._step):
            self._resync_readers()
        self._after_change()

    def _deal_over(self):
        self._step = OVER if self.view.session_over() else RESULT
        self._page = 0
        self._menu = []
        self._signals.tone("deal_done")
        self._dirty = True
