"""The deal of a session at the table: started, dealt card by card (strict
mode: over the centre reader, table/hand_scan.py), journalled, dealt again.

``GameDeal`` is the part of ``Game`` (table/game.py) that deals: the ``deal``
event is journalled with the first card taken, the ``hand`` events once every
hand is complete; after a power cut while it was being dealt, or an undo that
took a hand back, it is dealt again from its first card ("Von vorn geben").
"""
from tapp import errors as E

from .game_state import DEALING, NO_CARD, OVER, GameState
from .hand_scan import NOT_NOW, TO_TALON, HandScan
from .texts import error_text


class GameDeal(GameState):
    """The dealing steps of ``Game`` (its own state: table/game_state.py)."""

    def _deal_again(self):
        """Strict mode: the deal is dealt again from its first card -- after a
        power-up while it was being dealt (its ``deal`` event is on flash, the
        cards dealt lived in RAM: "Von vorn geben") or an undo that took a hand
        back.  Hands still journalled (a cut between their lines, the other
        hands of an undo) are taken back once the new ones are complete
        (``_deal_progress``): nothing is written at power-up."""
        self._reset_deal()
        self._scan_anew()
        self._after_change()

    # ----- deals -------------------------------------------------------------------

    def _start_deal(self):
        self._reset_deal()
        view = self.view
        if view.session_over():
            self._step = OVER
            self._menu_for_state()
            return
        if not view.strict():
            self._apply({"ev": "deal", "dealer": view.dealer(), "hands": None, "talon": None})
            self._enter_deal()
        else:
            self._scan_anew()
        self._after_change()

    def _reset_deal(self):
        """Nothing of the last deal lies on the table any more."""
        self._on_reader = [NO_CARD] * self._readers
        self._clearing = False
        self._clear_trick()
        self._discards = []
        self._rufer_card = NO_CARD
        self._waiting_reader = -1
        self._powered_up = False

    def _scan_anew(self):
        """Strict mode: the hands are learnt card by card from the first one
        (table/hand_scan.py); the ``deal`` event is journalled with the first
        card taken, the hands once they are complete."""
        self._step = DEALING
        self._scan = HandScan(self.view, self.view.dealer(), self._centre)

    def _deal_card(self, reader, card):
        """Strict mode: a card passes over the centre reader (packet order) or is
        swept over its owner's seat reader (table/hand_scan.py)."""
        scan = self._scan
        if scan is None:
            return
        out = scan.offer(reader, card)
        if out == NOT_NOW:
            return self._refuse_text(reader, "not_now")
        if out > 0:
            return self._refuse_code(reader, out)
        if out == TO_TALON:
            self._say("")                 # the talon's card: no sound, the dealer goes on
        else:
            self._signals.tone("accept")
            if self._powered_up:
                self._say("")
        self._powered_up = False
        if not self.view.in_deal():
            # the first card taken: the deal is under way, on flash (after a cut
            # the table asks for it from the start at once: _deal_again)
            self._apply({"ev": "deal", "dealer": self.view.dealer(), "hands": None,
                         "talon": None})
        return self._deal_progress(True)

    def step(self):
        """The game job's own work, before its inputs: the hands of a deal
        scanned complete go on flash one a step (each 4 ms on the Pico: all
        four in the last card's step held the loop 17 ms), then the play
        begins."""
        scan = self._scan
        if self._step == DEALING and scan is not None and scan.complete():
            self._deal_progress()

    def _deal_progress(self, fresh=False):
        """``fresh``: a card was dealt (the scan may have just completed)."""
        self._dirty = True
        scan = self._scan
        if scan is None or not scan.complete():
            return
        done = self._journal_hands(scan, fresh)
        if done is None:
            self._say(error_text(E.BAD_EVENT, self._lang))
            return
        if done:
            self._enter_deal()
            self._signals.tone("deal_done")
            self._after_change()

    def _journal_hands(self, scan, fresh):
        """The next hand of the complete scan as a ``hand`` event
        (docs/record-format.md), in the order the scan names the seats; when
        it has just completed (``fresh``) the hands of a deal dealt again are
        taken back first.  Is every hand now on flash: True, False (the next
        at the game's next step), None (refused)?  An undo or a power cut
        between two hands leaves some on flash: the deal is dealt again and
        they are taken back (``_deal_again``)."""
        view = self.view
        if fresh:
            for _ in range(view.players()):
                if not self._hands_known():
                    break
                self._apply({"ev": "undo"})
        left = 0
        for i in range(scan.seats()):
            if not view.hand_known(scan.seat(i)):
                left += 1
        for i in range(scan.seats()):
            seat = scan.seat(i)
            if not view.hand_known(seat):
                ev = {"ev": "hand", "seat": seat, "cards": scan.hands()[seat]}
                return left == 1 if self._apply(ev).get("ok") else None
        return True

    def _hands_known(self):
        view = self.view
        for s in view.active_seats():
            if view.hand_known(s):
                return True
        return False
