"""Session: the fold of docs/record-format.md events into outcomes — the engine's one door.

``Session(header).apply(event_dict)`` answers every event with one outcome
dict; a rejected event changes nothing.  ``play(seat, card)`` is the same door
for a card int (the device's hot path): it checks, logs, settles and rotates
the dealer exactly like a ``play`` event and allocates nothing.  ``deal`` (card
ints in dealing order) and ``bid`` (an auction call's fields) are the same
doors for those events without building them (the simulator's path), each
with the event's checks, error codes and log.  Everything that shows the game
reads ``session.view`` (a read-only ``view.View``).  Undo replays the deal's
accepted events without the last one (docs/design.md, principle 2).
"""
from array import array

from . import errors as E
from .announce import check as announce_check
from .auction import trump_fits
from .cards import (
    CARD_BIT,
    CARD_CODES,
    CARD_SUIT,
    CODE_INDEX,
    DECKS,
    NCARDS,
    suit_index,
)
from .deal import AUCTION, DECLARE, DONE, EXCHANGE, HANDS, PLAY, RUFER, RULE_NAMES, Deal
from .dealing import deal_out
from .rules import rules_for
from .settle import settle
from .variants import NO_CONTRACT
from .view import View


class Reject(Exception):
    """Raised inside a handler to answer with an error code."""

    def __init__(self, code):
        self.code = code


def _int(v):
    """A plain int (JSON's numbers; not a bool, which is an int in Python)."""
    return type(v) is int


def _card_ints(seq):
    """A list or tuple of card ints (0..35)?"""
    if not isinstance(seq, (list, tuple)):
        return False
    for c in seq:
        if not _int(c) or c < 0 or c >= NCARDS:
            return False
    return True


class Session:
    def __init__(self, header):
        rules = rules_for(header)
        self.rules = rules
        n = rules.players
        # docs/record-format.md convention 10: session-start antes (bank, Haferl) and start balance
        self._balances = [rules.start_balance - rules.ante] * n
        self._pot = rules.ante * n
        self._dealer = rules.first_dealer   # who deals next
        self._deal = None
        self._over = False
        self._deals_played = 0
        self._result = None
        # every settled deal's payments, ``players`` ints a deal (the score
        # sheet's rows: view.deal_payment); an array, not a list of lists
        self._paid = array("i")
        # The deal in progress as accepted events: those before its first card
        # (with the number of redundant declares accepted after each, docs/record-format.md
        # convention 6); its cards are in the deal (Deal.played: a card is
        # accepted only from the seat whose turn it is, so the seat is not kept).
        self._events = []
        self._noops = []
        self._handlers = {
            "deal": self._start_deal, "hand": self._hand, "bid": self._bid,
            "exchange": self._exchange, "rufer": self._rufer,
            "announce": self._announce, "play": self._play_event,
            "redeal": self._redeal, "undo": self._undo,
        }
        self.view = View(self, rules)

    # ----- the door -----------------------------------------------------------

    def apply(self, ev):
        """Apply one event dict; return its outcome dict."""
        if not isinstance(ev, dict):
            return {"ok": False, "error": "bad_event"}
        name = ev.get("ev")
        handler = self._handlers.get(name) if isinstance(name, str) else None
        if handler is None:
            return {"ok": False, "error": "bad_event"}
        try:
            out = handler(ev)
        except Reject as r:
            return self._refusal(r.code, ev)
        if name in ("undo", "redeal", "play", "bid") or not self.in_progress():
            return out                  # those log themselves (or end the deal)
        self._events.append(dict(ev))
        self._noops.append(0)
        return out

    def _refusal(self, code, ev):
        """The outcome of a refused event; echoes only small, valid-looking values."""
        out = {"ok": False, "error": E.NAMES[code]}
        seat = ev.get("seat")
        if _int(seat) and 0 <= seat < self.rules.players:
            out["seat"] = seat
        if ev.get("ev") == "play":
            card = ev.get("card")
            if isinstance(card, str) and card in CODE_INDEX:
                out["card"] = card
        return out

    def play(self, seat, card):
        """Play card int ``card`` for ``seat``: an error code (0 = accepted).

        The same door as a ``play`` event (checks, log, trick, settlement,
        dealer rotation); the outcome details are in ``view``.  Allocates
        nothing except the ``result`` when the card ends the deal.
        """
        deal = self._deal
        if deal is None:
            return E.WRONG_PHASE
        return deal.play(seat, card)    # checks the phase first; the last trick settles

    def player(self):
        """The current deal's card door: ``f(seat, card)`` is ``play(seat, card)``
        -- the same checks, the trick buffer, settlement and dealer rotation
        when the card ends the deal -- one call less a card (the simulator's
        loop).  Take it again for every deal: once the deal is over, undone or
        replaced it refuses every card (``wrong_phase``)."""
        deal = self._deal
        return self.play if deal is None else deal.play

    def deal(self, dealer, cards):
        """Deal card ints ``cards`` (bytes, bytearray, list or tuple) in the order
        dealt, strict mode: an error code (0 = accepted).

        The order is the variant's packets from forehand (docs/rules 1.4,
        ``dealing.receivers``), as the cards pass the centre reader.  The same
        door as the ``deal`` event whose hands and talon are those packets
        (``dealing.deal_out``): the same checks and error code, the same log
        (undo replays it), without 36 card codes to build and look up.  A
        wrong number of cards is ``bad_event``.
        """
        if self._over or self.in_progress():
            return E.WRONG_PHASE
        rules = self.rules
        slots = rules.deal_slots(self._dealer)
        if not (isinstance(cards, (bytes, bytearray)) or _card_ints(cards)) \
                or dealer != self._dealer or not _int(dealer) or not rules.strict \
                or len(cards) != len(slots):
            return self._deal_refused(dealer, cards)
        cards = bytes(cards)
        dealt = self._sort_dealt(slots, cards)
        if dealt is None:
            return self._deal_refused(dealer, cards)
        deal = Deal(rules, dealer, dealt)
        deal.start_auction()
        self._new_deal(deal)
        self._events.append(cards)      # undo replays it through ``deal``
        self._noops.append(0)
        return E.OK

    def _sort_dealt(self, slots, cards):
        """The cards dealt sorted into the hands and talon by ``slots``: 4 masks a
        seat, then the talon's; None unless they are the deck's cards, each once."""
        rules = self.rules
        if set(cards) != rules.deck_set:      # the lengths are equal: each card once
            return None
        m = [0] * (4 * rules.players + 4)
        suit = CARD_SUIT                     # the tables as locals in the loop
        bit = CARD_BIT
        for slot, c in zip(slots, cards):
            m[slot + suit[c]] += bit[c]      # each card once: + sets its bit
        return m

    def _deal_refused(self, dealer, cards):
        """The error code of the ``deal`` event with these cards dealt out: its
        checks name the first problem, in their order."""
        rules = self.rules
        if not isinstance(cards, (bytes, bytearray, list, tuple)) \
                or len(cards) != len(rules.deal_slots(self._dealer)):
            return E.BAD_EVENT
        codes = [(CARD_CODES[c] if 0 <= c < NCARDS else "?") if _int(c) else None
                 for c in cards]
        hands, talon = deal_out(rules, self._dealer, codes)
        try:
            self._start_deal({"ev": "deal", "dealer": dealer, "hands": hands, "talon": talon})
        except Reject as r:
            return r.code
        self._events.append(bytes(cards))   # not expected: the event was accepted
        self._noops.append(0)
        return E.OK

    def in_progress(self):
        return self._deal is not None and self._deal.phase != DONE

    def _need_deal(self):
        deal = self._deal
        if deal is None or deal.phase == DONE:
            raise Reject(E.WRONG_PHASE)
        return deal

    def _seat(self, ev):
        seat = ev.get("seat")
        if not _int(seat) or seat < 0 or seat >= self.rules.players:
            raise Reject(E.BAD_EVENT)
        return seat

    def _card(self, code):
        """Card int for a code, checked against the session's deck."""
        if not isinstance(code, str):
            raise Reject(E.BAD_EVENT)
        c = CODE_INDEX.get(code, -1)
        if c < 0:
            raise Reject(E.UNKNOWN_CARD)
        if not DECKS[self.rules.deck][CARD_SUIT[c]] & CARD_BIT[c]:
            raise Reject(E.NOT_IN_DECK)
        return c

    def _cards(self, codes, count, seen):
        """Validate a card list: codes, deck, no card twice (``seen`` masks)."""
        if not isinstance(codes, list) or (count >= 0 and len(codes) != count):
            raise Reject(E.BAD_EVENT)
        deck = DECKS[self.rules.deck]
        index = CODE_INDEX
        out = []
        for code in codes:
            c = index.get(code, -1) if isinstance(code, str) else -2
            if c < 0:
                raise Reject(E.UNKNOWN_CARD if c == -1 else E.BAD_EVENT)
            s = CARD_SUIT[c]
            bit = CARD_BIT[c]
            if not deck[s] & bit:
                raise Reject(E.NOT_IN_DECK)
            if seen[s] & bit:
                raise Reject(E.CARD_USED)
            seen[s] |= bit
            out.append(c)
        return out

    # ----- deal, hands, redeal, undo --------------------------------------------

    def _new_deal(self, deal):
        old = self._deal
        if old is not None:
            old.on_done = None          # a deal left behind (undo, redeal, the next
            old.phase = DONE            # deal): its ``player`` refuses every card
        if deal is not None:
            deal.on_done = self._finish
        self._deal = deal
        self._events = []
        self._noops = []
        self.view.attach(deal)

    def _start_deal(self, ev):
        if self._over or self.in_progress():
            raise Reject(E.WRONG_PHASE)
        if ev.get("dealer") != self._dealer or not _int(ev.get("dealer")):
            raise Reject(E.BAD_EVENT)
        rules = self.rules
        deal = Deal(rules, self._dealer)
        hands = ev.get("hands")
        talon = ev.get("talon")
        seen = [0, 0, 0, 0]
        if hands is not None:
            if not rules.strict or not isinstance(hands, list) or len(hands) != rules.players:
                raise Reject(E.BAD_EVENT)
            for seat in range(rules.players):
                h = hands[seat]
                if seat not in deal.active:
                    if h not in (None, []):
                        raise Reject(E.BAD_EVENT)
                elif h is not None:
                    deal.set_hand(seat, self._cards(h, rules.hand_size, seen))
        if talon is not None:
            deal.set_talon(self._cards(talon, rules.talon_size, seen))
        if not rules.strict:
            deal.open_auction()
        elif deal.all_hands_known():
            deal.start_auction()
        self._new_deal(deal)
        return {"ok": True}

    def _hand(self, ev):
        deal = self._need_deal()
        seat = self._seat(ev)
        if seat not in deal.active or deal.known[seat]:
            raise Reject(E.WRONG_PHASE)
        if self.rules.strict:
            if deal.phase != HANDS:
                raise Reject(E.WRONG_PHASE)
        elif not (seat == deal.declarer and deal.can_announce()
                  and self.rules.is_ouvert(deal.contract)):
            raise Reject(E.WRONG_PHASE)  # open mode: only the exposed Bettel hand
        seen = list(deal.aside)
        for s in range(4):
            seen[s] |= deal.used[s]
            for other in deal.active:
                if deal.known[other]:
                    seen[s] |= deal.hands[other * 4 + s]
        cards = self._cards(ev.get("cards"), self.rules.hand_size, seen)
        deal.set_hand(seat, cards)
        if deal.phase == HANDS and deal.all_hands_known():
            deal.start_auction()
        return {"ok": True}

    def _redeal(self, ev):
        """docs/record-format.md convention 3: a misdeal before the first trick is complete."""
        deal = self._need_deal()
        if deal.trick_no > 1:
            raise Reject(E.WRONG_PHASE)
        self._new_deal(None)
        return {"ok": True}

    def _undo(self, ev):
        """docs/record-format.md convention 11: take back the last accepted event of the deal.

        A card or a real event is taken back by replaying the rest (at most one
        deal's events: linear); a redundant declare only by its count."""
        deal = self._need_deal()
        events = self._events
        noops = self._noops
        plays = deal.tbase + deal.tcount        # cards played so far (Deal.played)
        if plays:
            plays -= 1
        elif noops[-1]:
            noops[-1] -= 1
            return {"ok": True}
        else:
            events = events[:-1]
            noops = noops[:-1]
        saved = bytes(deal.played[:plays])
        self._new_deal(None)
        for ev in events:
            if isinstance(ev, bytes):
                self.deal(self._dealer, ev)     # logged by ``deal``
            elif isinstance(ev, dict):
                self.apply(ev)
            elif ev[0] == "bid":
                self.bid(ev[1], ev[2], ev[3], ev[4], ev[5])     # logged by ``bid``
            else:
                self.exchange(ev[1], ev[2])     # logged by ``exchange``
        self._noops = noops
        for i in range(plays):
            self.play(self.view.turn(), saved[i])
        return {"ok": True}

    # ----- auction, declaration, exchange, rufer, announcements ------------------

    def bid(self, seat, call, contract=None, trump=None, value=None):
        """An auction call, a declaration or a self-raise for ``seat``: an error
        code (0 = accepted).

        The door of the ``bid`` event with these fields (None: the field is
        absent; ``view.legal_bids`` lists the allowed ones), which comes here
        too: the checks, error codes and log (undo replays it); a deal the call
        throws in is settled (``view.last_result()``).
        """
        noop = False
        deal = self._deal
        try:
            if deal is None or deal.phase == DONE:
                raise Reject(E.WRONG_PHASE)
            if type(seat) is not int or not 0 <= seat < self.rules.players \
                    or not isinstance(call, str):
                raise Reject(E.BAD_EVENT)
            row = None
            if contract is not None:
                row = self.rules.contract(contract) if isinstance(contract, str) else None
                if row is None:
                    raise Reject(E.ILLEGAL_CONTRACT)
            suit = -1
            if trump is not None:
                suit = suit_index(trump)
                if suit < 0:
                    raise Reject(E.ILLEGAL_CONTRACT)
            if call == "declare":
                noop = self._declare(deal, seat, row, suit)
            elif call == "raise":
                self._raise(deal, seat, value)
            else:                               # an auction call
                if deal.phase != AUCTION:
                    raise Reject(E.WRONG_PHASE)
                if deal.pos_of[seat] < 0:       # sitting out
                    raise Reject(E.NOT_YOUR_TURN)
                if self.rules.auction == "D":    # the ladder's mehr carries a target
                    if value is not None and not _int(value):
                        raise Reject(E.BAD_EVENT)
                    suit = value if value is not None else -1
                auction = deal.auction
                err = auction.call(seat, call, row, suit)
                if err:
                    return err
                if auction.done:
                    deal.end_auction()
                    if deal.phase == DONE:
                        self._finish()          # thrown in: settled, nothing to log
                        return E.OK
        except Reject as r:
            return r.code
        if noop:
            self._noops[-1] += 1        # a no-op does not grow the log (convention 6)
        else:
            self._events.append(("bid", seat, call, contract, trump, value))
            self._noops.append(0)
        return E.OK

    def exchange(self, seat, discard):
        """The declarer's discards as card ints (bytes, bytearray, list or
        tuple): an error code (0 = accepted).

        The same door as the ``exchange`` event discarding these cards: the
        same checks, error code and log (undo replays it), without the card
        codes to build and look up (the simulator's path).
        """
        deal = self._deal
        if deal is not None and deal.phase == EXCHANGE and _int(seat) \
                and seat == deal.declarer and discard \
                and (isinstance(discard, (bytes, bytearray)) and max(discard) < NCARDS
                     or _card_ints(discard)):
            cards = bytes(discard)
            if not deal.exchange(cards):      # checks them all, changes nothing if not
                self._events.append(("exchange", seat, cards))
                self._noops.append(0)
                return E.OK
        # refused: the event's checks name the first problem, in their order
        codes = discard
        if isinstance(discard, (bytes, bytearray, list, tuple)):
            codes = [(CARD_CODES[c] if 0 <= c < NCARDS else "?") if _int(c) else None
                     for c in discard]
        out = self.apply({"ev": "exchange", "seat": seat, "discard": codes})
        return E.OK if out["ok"] else E.NAMES.index(out["error"])

    def _bid(self, ev):
        err = self.bid(ev.get("seat"), ev.get("call"), ev.get("contract"), ev.get("trump"),
                       ev.get("value"))
        if err:
            raise Reject(err)
        if self._deal is not None and self._deal.phase == DONE:    # thrown in: settled
            return {"ok": True, "result": self._result}
        return {"ok": True}

    def _declare(self, deal, seat, row, trump):
        """Name the contract and/or trump, or repeat what is fixed (convention 6):
        True for a repeat (accepted, nothing changes)."""
        if deal.phase not in (EXCHANGE, DECLARE, RUFER) and not deal.can_announce():
            raise Reject(E.WRONG_PHASE)
        if seat != deal.declarer:
            raise Reject(E.NOT_YOUR_TURN)
        if deal.contract is NO_CONTRACT:
            # protocols B and E: the declarer chooses among what his bid allows
            if row is None or row not in deal.auction.declarable() or not trump_fits(row, trump):
                raise Reject(E.ILLEGAL_CONTRACT)
            deal.set_contract(row, trump)
            return False
        if row is not None and row is not deal.contract:
            raise Reject(E.ILLEGAL_CONTRACT)
        if deal.phase == DECLARE:
            err = deal.declare_trump(trump)
            if err:
                raise Reject(err)
            return False
        if trump >= 0 and trump != deal.trump:
            raise Reject(E.ILLEGAL_CONTRACT if deal.trump >= 0 else E.WRONG_PHASE)
        return True

    def _raise(self, deal, seat, value):
        """Haferl self-raise (docs/rules 2.6, D28): a Hand game at a higher target."""
        if deal.phase not in (EXCHANGE, DECLARE):
            raise Reject(E.WRONG_PHASE)
        if seat != deal.declarer:
            raise Reject(E.NOT_YOUR_TURN)
        if not _int(value):
            raise Reject(E.BAD_EVENT)
        err = deal.self_raise(value)
        if err:
            raise Reject(err)

    def _declarer_step(self, ev, phase):
        """The deal, if ``phase`` is the current step and the declarer is speaking."""
        deal = self._need_deal()
        seat = self._seat(ev)
        if deal.phase != phase:
            raise Reject(E.WRONG_PHASE)
        if seat != deal.declarer:
            raise Reject(E.NOT_YOUR_TURN)
        return deal

    def _exchange(self, ev):
        deal = self._declarer_step(ev, EXCHANGE)
        take = ev.get("take")
        if take is not None:
            cards = self._cards(take, -1, [0, 0, 0, 0])
            if deal.talon_known and (len(cards) != self.rules.talon_size or any(
                    not deal.talon[CARD_SUIT[c]] & CARD_BIT[c] for c in cards)):
                raise Reject(E.ILLEGAL_DISCARD)
        discard = ev.get("discard")
        cards = None
        if discard is not None and discard != []:
            cards = self._cards(discard, -1, [0, 0, 0, 0])
        elif self.rules.strict:
            raise Reject(E.ILLEGAL_DISCARD)
        err = deal.exchange(cards)
        if err:
            raise Reject(err)
        return {"ok": True}

    def _rufer(self, ev):
        deal = self._declarer_step(ev, RUFER)
        card = self._card(ev.get("card"))
        give = ev.get("give")
        g = -1 if give is None else self._card(give)
        err = deal.call_rufer(card, g)
        if err:
            raise Reject(err)
        return {"ok": True}

    def _announce(self, ev):
        deal = self._need_deal()
        seat = self._seat(ev)
        what = ev.get("what")
        if not isinstance(what, str):
            raise Reject(E.BAD_EVENT)
        err = announce_check(self.rules, deal, seat, what)
        if err:
            raise Reject(err)
        deal.announce(what)
        return {"ok": True}

    # ----- play ---------------------------------------------------------------------

    def _play_event(self, ev):
        deal = self._need_deal()
        seat = self._seat(ev)
        if deal.phase != PLAY:
            raise Reject(E.WRONG_PHASE)
        code = ev.get("card")
        if not isinstance(code, str):
            raise Reject(E.BAD_EVENT)
        revokes = deal.rev_count
        err = self.play(seat, CODE_INDEX.get(code, -1))
        if err:
            raise Reject(err)
        out = {"ok": True}  # type: dict
        if deal.tcount == 0:
            out["trick"] = {
                "n": deal.trick_no - 1, "leader": deal.last_leader,
                "cards": [CARD_CODES[c] for c in deal.last_trick_cards()],
                "winner": deal.last_winner, "points": deal.last_points,
            }
        r = deal.earliest_revoke(revokes)   # one card may prove several (docs/rules 3.3)
        if r >= 0:
            out["revoke"] = {"seat": deal.rev_seat[r], "trick": deal.rev_key[r] >> 3,
                             "rule": RULE_NAMES[deal.rev_rule[r]]}
        if deal.phase == DONE:
            out["result"] = self._result
        return out

    def _finish(self):
        """Settle the finished deal and book it into the session ledger."""
        rules = self.rules
        result, pay, pot, over = settle(rules, self._deal, self._pot)
        for s in range(rules.players):
            self._balances[s] += pay[s]
            self._paid.append(pay[s])
        self._pot += pot
        self._dealer = rules.next_of(self._dealer)
        self._deals_played += 1
        result["balances"] = list(self._balances)
        result["pot_total"] = self._pot
        result["next_dealer"] = self._dealer
        if rules.end_when_broke and min(self._balances) <= 0:
            over = True   # docs/rules 2.8
        self._over = over
        if over:
            result["session_over"] = True
        self._result = result
        self._events = []
        self._noops = []
        return result

    # ----- read by the view ----------------------------------------------------------

    def balance(self, seat):
        return self._balances[seat]

    def pot(self):
        return self._pot

    def dealer(self):
        """Who deals the deal in progress, or else the next one."""
        return self._dealer

    def deals_played(self):
        return self._deals_played

    def session_over(self):
        return self._over

    def last_result(self):
        """The ``result`` of the last settled deal (None before the first)."""
        return self._result

    def deal_payment(self, k, seat):
        """What ``seat`` was paid in the settled deal ``k`` (0 = the first)."""
        return self._paid[k * self.rules.players + seat]

    def bid_count(self):
        """Calls (``bid`` events) the deal in progress has accepted so far."""
        n = 0
        for ev in self._events:
            if type(ev) is tuple and ev[0] == "bid":
                n += 1
        return n

    def last_kept(self):
        """What ``undo`` takes back now (convention 11), for the view to name:
        "play" (the last card), "declare" (a redundant declare: its count), the
        last kept event before the cards (bytes of a strict deal, a ("bid" or
        "exchange", seat, ...) tuple, the event dict), or None (no deal in
        progress).  The view reads it and hands none of it out."""
        deal = self._deal
        if deal is None or deal.phase == DONE or not self._events:
            return None
        if deal.tbase + deal.tcount:
            return "play"
        return "declare" if self._noops[-1] else self._events[-1]

    def last_bid_of(self, seat):
        """The number (``bid_at``) of ``seat``'s last call, -1: none -- one
        pass over the deal's events, where asking ``bid_at`` from the last
        call back would be one pass a call."""
        n = 0
        last = -1
        for ev in self._events:
            if type(ev) is tuple and ev[0] == "bid":
                if ev[1] == seat:
                    last = n
                n += 1
        return last

    def bid_at(self, i):
        """The ``i``-th of them as kept: ("bid", seat, call, contract, trump,
        value), None for a field the event left out (a tuple: read-only)."""
        for ev in self._events:
            if type(ev) is tuple and ev[0] == "bid":
                if not i:
                    return ev
                i -= 1
        return None
