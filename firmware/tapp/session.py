"""Session: the fold of RECORD.md events into outcomes.

``Session(header).apply(event_dict)`` answers every event with one outcome
dict; a rejected event changes nothing.  Undo replays the deal's accepted
events without the last one (DESIGN.md principle 2: event-sourced).
"""
from . import deal as D
from . import errors as E
from .announce import check as announce_check
from .auction import MAX_STEP, ladder_target, trump_fits
from .cards import CARD_BIT, CARD_CODES, CARD_SUIT, DECKS, SUITS, card_index, suit_index
from .rules import Rules
from .settle import settle
from .variants import C_ID, NO_CONTRACT


class Reject(Exception):
    """Raised inside a handler to answer with an error code."""

    def __init__(self, code):
        self.code = code


def _int(v):
    return isinstance(v, int) and not isinstance(v, bool)


class Session:
    def __init__(self, header):
        rules = Rules(header)
        self.rules = rules
        n = rules.players
        # RECORD.md convention 10: session-start antes (bank, Haferl) and start balance
        self.balances = [rules.options.get("start_balance", 0) - rules.ante] * n
        self.pot_total = rules.ante * n
        self.dealer = rules.first_dealer   # who deals next
        self.deal = None
        self.log = []                      # accepted events of the deal in progress
        self.session_over = False
        self._handlers = {
            "deal": self._deal, "hand": self._hand, "bid": self._bid,
            "exchange": self._exchange, "rufer": self._rufer,
            "announce": self._announce, "play": self._play,
            "redeal": self._redeal, "undo": self._undo,
        }

    # ----- the fold -----------------------------------------------------------

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
            out = {"ok": False, "error": E.NAMES[r.code]}
            seat = ev.get("seat")
            if _int(seat):
                out["seat"] = seat
            if ev.get("ev") == "play" and isinstance(ev.get("card"), str):
                out["card"] = ev["card"]
            return out
        if name not in ("undo", "redeal"):
            if self.in_progress():
                self.log.append(ev)
            else:
                self.log = []
        return out

    def in_progress(self):
        return self.deal is not None and self.deal.phase != D.DONE

    def _need_deal(self):
        deal = self.deal
        if deal is None or deal.phase == D.DONE:
            raise Reject(E.WRONG_PHASE)
        return deal

    def _seat(self, ev):
        seat = ev.get("seat")
        if not _int(seat) or seat < 0 or seat >= self.rules.players:
            raise Reject(E.BAD_EVENT)
        return seat

    def _card(self, code, deal):
        """Card int for a code, checked against the session's deck."""
        if not isinstance(code, str):
            raise Reject(E.BAD_EVENT)
        c = card_index(code)
        if c < 0:
            raise Reject(E.UNKNOWN_CARD)
        if not DECKS[self.rules.deck][CARD_SUIT[c]] & CARD_BIT[c]:
            raise Reject(E.NOT_IN_DECK)
        return c

    def _cards(self, codes, count, deal, seen):
        """Validate a card list: codes, deck, no card twice (``seen`` masks)."""
        if not isinstance(codes, list) or (count >= 0 and len(codes) != count):
            raise Reject(E.BAD_EVENT)
        out = []
        for code in codes:
            c = self._card(code, deal)
            s = CARD_SUIT[c]
            if seen[s] & CARD_BIT[c]:
                raise Reject(E.CARD_USED)
            seen[s] |= CARD_BIT[c]
            out.append(c)
        return out

    # ----- deal, hands, redeal, undo --------------------------------------------

    def _deal(self, ev):
        if self.session_over or self.in_progress():
            raise Reject(E.WRONG_PHASE)
        if ev.get("dealer") != self.dealer or not _int(ev.get("dealer")):
            raise Reject(E.BAD_EVENT)
        rules = self.rules
        deal = D.Deal(rules, self.dealer)
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
                    deal.set_hand(seat, self._cards(h, rules.hand_size, deal, seen))
        if talon is not None:
            deal.set_talon(self._cards(talon, rules.talon_size, deal, seen))
        if not rules.strict:
            deal.phase = D.AUCTION
        elif deal.all_hands_known():
            deal.start_auction()
        self.deal = deal
        self.log = []
        return {"ok": True}

    def _hand(self, ev):
        deal = self._need_deal()
        seat = self._seat(ev)
        if seat not in deal.active or deal.known[seat]:
            raise Reject(E.WRONG_PHASE)
        if self.rules.strict:
            if deal.phase != D.HANDS:
                raise Reject(E.WRONG_PHASE)
        elif not (seat == deal.declarer and deal.can_announce()
                  and deal.contract[C_ID] == "bettel_ouvert"):
            raise Reject(E.WRONG_PHASE)  # open mode: only the exposed Bettel hand
        seen = list(deal.aside)
        for s in range(4):
            seen[s] |= deal.used[s]
            for other in deal.active:
                if deal.known[other]:
                    seen[s] |= deal.hands[other * 4 + s]
        cards = self._cards(ev.get("cards"), self.rules.hand_size, deal, seen)
        deal.set_hand(seat, cards)
        if deal.phase == D.HANDS and deal.all_hands_known():
            deal.start_auction()
        return {"ok": True}

    def _redeal(self, ev):
        """RECORD.md convention 3: a misdeal before the first trick is complete."""
        deal = self._need_deal()
        if deal.trick_no > 1:
            raise Reject(E.WRONG_PHASE)
        self.deal = None
        self.log = []
        return {"ok": True}

    def _undo(self, ev):
        """RECORD.md convention 11: take back the last accepted event of the deal."""
        self._need_deal()
        events = self.log[:-1]
        self.deal = None
        self.log = []
        for old in events:
            self.apply(old)
        return {"ok": True}

    # ----- auction, declaration, exchange, rufer, announcements ------------------

    def _bid(self, ev):
        deal = self._need_deal()
        seat = self._seat(ev)
        call = ev.get("call")
        if not isinstance(call, str):
            raise Reject(E.BAD_EVENT)
        row = None
        cid = ev.get("contract")
        if cid is not None:
            row = self.rules.contract(cid) if isinstance(cid, str) else None
            if row is None:
                raise Reject(E.ILLEGAL_CONTRACT)
        trump = -1
        if ev.get("trump") is not None:
            trump = suit_index(ev.get("trump"))
            if trump < 0:
                raise Reject(E.ILLEGAL_CONTRACT)
        if call == "declare":
            return self._declare(deal, seat, row, trump)
        if call == "raise":
            return self._raise(deal, seat, ev.get("value"))
        if deal.phase != D.AUCTION:
            raise Reject(E.WRONG_PHASE)
        a = deal.auction
        if seat not in deal.active:
            raise Reject(E.NOT_YOUR_TURN)
        if self.rules.auction == "D":        # the ladder's mehr carries a target
            value = ev.get("value")
            if value is not None and not _int(value):
                raise Reject(E.BAD_EVENT)
            trump = value if value is not None else -1
        err = a.call(seat, call, row, trump)
        if err:
            raise Reject(err)
        if a.done:
            deal.end_auction()
            if deal.phase == D.DONE:
                return {"ok": True, "result": self._finish()}
        return {"ok": True}

    def _declare(self, deal, seat, row, trump):
        """Name the contract and/or trump, or repeat what is fixed (convention 6)."""
        if deal.phase not in (D.EXCHANGE, D.DECLARE, D.RUFER) and not deal.can_announce():
            raise Reject(E.WRONG_PHASE)
        if seat != deal.declarer:
            raise Reject(E.NOT_YOUR_TURN)
        if deal.contract is NO_CONTRACT:
            # protocols B and E: the declarer chooses among what his bid allows
            if row is None or row not in deal.auction.declarable() or not trump_fits(row, trump):
                raise Reject(E.ILLEGAL_CONTRACT)
            deal.set_contract(row, trump)
            return {"ok": True}
        if row is not None and row is not deal.contract:
            raise Reject(E.ILLEGAL_CONTRACT)
        if deal.phase == D.DECLARE:
            err = deal.declare_trump(trump)
            if err:
                raise Reject(err)
        elif trump >= 0 and trump != deal.trump:
            raise Reject(E.ILLEGAL_CONTRACT if deal.trump >= 0 else E.WRONG_PHASE)
        return {"ok": True}

    def _raise(self, deal, seat, value):
        """Haferl self-raise (RULES.md 2.6, D28): a Hand game at a higher target."""
        if deal.phase not in (D.EXCHANGE, D.DECLARE):
            raise Reject(E.WRONG_PHASE)
        if seat != deal.declarer:
            raise Reject(E.NOT_YOUR_TURN)
        if not _int(value):
            raise Reject(E.BAD_EVENT)
        if not deal.raise_ok or deal.auction.raise_to(value):
            raise Reject(E.ILLEGAL_CALL)
        deal.target = value
        deal.raise_ok = False
        deal.set_contract(deal.auction.contract, -1)
        return {"ok": True}

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
        deal = self._declarer_step(ev, D.EXCHANGE)
        take = ev.get("take")
        if take is not None:
            cards = self._cards(take, -1, deal, [0, 0, 0, 0])
            if deal.talon_known and (len(cards) != self.rules.talon_size or any(
                    not deal.talon[CARD_SUIT[c]] & CARD_BIT[c] for c in cards)):
                raise Reject(E.ILLEGAL_DISCARD)
        discard = ev.get("discard")
        cards = None
        if discard is not None and discard != []:
            cards = self._cards(discard, -1, deal, [0, 0, 0, 0])
        elif self.rules.strict:
            raise Reject(E.ILLEGAL_DISCARD)
        err = deal.exchange(cards)
        if err:
            raise Reject(err)
        return {"ok": True}

    def _rufer(self, ev):
        deal = self._declarer_step(ev, D.RUFER)
        card = self._card(ev.get("card"), deal)
        give = ev.get("give")
        g = -1 if give is None else self._card(give, deal)
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
        deal.announced.append(what)
        return {"ok": True}

    # ----- play ---------------------------------------------------------------------

    def _play(self, ev):
        deal = self._need_deal()
        seat = self._seat(ev)
        if deal.phase != D.PLAY:
            raise Reject(E.WRONG_PHASE)
        code = ev.get("card")
        if not isinstance(code, str):
            raise Reject(E.BAD_EVENT)
        revokes = deal.rev_count
        err = deal.play(seat, card_index(code))
        if err:
            raise Reject(err)
        out = {"ok": True}  # type: dict
        if deal.tcount == 0:
            out["trick"] = {
                "n": deal.trick_no - 1, "leader": deal.last_leader,
                "cards": [CARD_CODES[c] for c in deal.last_cards],
                "winner": deal.last_winner, "points": deal.last_points,
            }
        if deal.rev_count > revokes:
            out["revoke"] = {"seat": deal.rev_seat[revokes],
                             "trick": deal.rev_key[revokes] >> 3,
                             "rule": D.RULE_NAMES[deal.rev_rule[revokes]]}
        if deal.phase == D.DONE:
            out["result"] = self._finish()
        return out

    def play_card(self, seat, card):
        """Device hot path: play a card int, answer an error code (no allocation)."""
        deal = self.deal
        if deal is None:
            return E.WRONG_PHASE
        return deal.play(seat, card)

    def _finish(self):
        """Settle the finished deal and book it into the session ledger."""
        rules = self.rules
        result, pay, pot, over = settle(rules, self.deal, self.pot_total)
        for s in range(rules.players):
            self.balances[s] += pay[s]
        self.pot_total += pot
        self.dealer = rules.next_of(self.dealer)
        result["balances"] = list(self.balances)
        result["pot_total"] = self.pot_total
        result["next_dealer"] = self.dealer
        if rules.options.get("end_when_broke") and min(self.balances) <= 0:
            over = True   # RULES.md 2.8
        self.session_over = over
        if self.session_over:
            result["session_over"] = True
        self.log = []
        return result

    # ----- what may happen now ----------------------------------------------------------

    def turn(self):
        """Seat whose input is expected now, or -1."""
        deal = self.deal
        if deal is None or deal.phase == D.DONE or deal.phase == D.HANDS:
            return -1
        if deal.phase == D.AUCTION:
            return deal.auction.turn()
        if deal.phase == D.PLAY:
            return deal.turn
        return deal.declarer

    def phase_name(self):
        if self.deal is None:
            return "over" if self.session_over else "deal"
        if self.deal.phase == D.DONE:
            return "over" if self.session_over else "deal"
        return D.PHASE_NAMES[self.deal.phase]

    def legal_calls(self):
        """Event dicts of the auction calls / declarations allowed now."""
        deal = self.deal
        out = []
        if deal is None:
            return out
        seat = self.turn()
        if deal.phase == D.AUCTION:
            for word, row in deal.auction.legal():
                ev = {"ev": "bid", "seat": seat, "call": word}
                if isinstance(row, int):
                    ev["value"] = row          # the ladder's target
                elif row is not None:
                    ev["contract"] = row[C_ID]
                out.append(ev)
        elif deal.phase == D.DECLARE and deal.contract is NO_CONTRACT:
            for row in deal.auction.declarable():
                out.append({"ev": "bid", "seat": seat, "call": "declare",
                            "contract": row[C_ID]})
        elif deal.phase == D.DECLARE:
            for t in deal.trump_choices():
                out.append({"ev": "bid", "seat": seat, "call": "declare",
                            "contract": deal.contract[C_ID], "trump": SUITS[t]})
        if deal.raise_ok and deal.phase in (D.EXCHANGE, D.DECLARE):
            # Haferl self-raise (D28): every higher step, named by its target
            step = deal.auction.step + 1
            while step <= MAX_STEP:
                out.append({"ev": "bid", "seat": deal.declarer, "call": "raise",
                            "value": ladder_target(step)})
                step += 1
        return out

    def legal_announcements(self):
        """Event dicts of the announcements any seat may make now (Tout, 66/Du,
        Kontra, Re, ...); empty once the first card is led."""
        deal = self.deal
        out = []
        if deal is None or not deal.can_announce():
            return out
        for what in self.rules.announcements:
            for seat in deal.active:
                if announce_check(self.rules, deal, seat, what) == E.OK:
                    out.append({"ev": "announce", "seat": seat, "what": what})
        return out

    def legal_cards(self):
        """Card codes the seat to play may play (strict mode)."""
        deal = self.deal
        if deal is None:
            return []
        return [CARD_CODES[c] for c in deal.legal_cards(deal.turn)]
