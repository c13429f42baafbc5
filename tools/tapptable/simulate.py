"""Random legal games: the simulator's players (``tapptable simulate``).

The players choose among exactly what the engine says may happen now
(``Session.legal_calls`` / ``legal_cards``); they see the true hands through a
strict-mode shadow session even when the record is written in open mode.
"""
import json
import random

from tapp import deal as D
from tapp.cards import CARD_CODES, DECKS, mask_cards
from tapp.session import Session
from tapp.variants import C_ID, C_TRUMP, TRUMP_ANY, TRUMP_CHOOSE


class Simulator:
    def __init__(self, variant, players, seed, mode="strict", options=None,
                 first_dealer=0, seats=None):
        self.rng = random.Random(seed)
        self.header = {
            "record": 1, "variant": variant, "players": players,
            "seats": seats or ["Seat %d" % (i + 1) for i in range(players)],
            "options": options or {}, "first_dealer": first_dealer, "mode": mode,
        }
        shadow = dict(self.header)
        shadow["mode"] = "strict"
        self.shadow = Session(shadow)   # knows every hand: picks legal moves
        self.mode = mode
        self.events = []
        self.results = []

    def _emit(self, ev, shadow_ev=None):
        out = self.shadow.apply(shadow_ev or ev)
        if not out.get("ok"):
            raise AssertionError("simulator made an illegal move: %r -> %r" % (ev, out))
        self.events.append(ev)
        if "result" in out:
            self.results.append(out["result"])
        return out

    def deal_cards(self):
        rules = self.shadow.rules
        dealer = self.shadow.dealer
        cards = mask_cards(DECKS[rules.deck])
        self.rng.shuffle(cards)
        active = rules.active_order(dealer)
        hands = [[] for _ in range(rules.players)]
        talon = []
        it = iter(cards)
        for packet in rules.deal_pattern:  # RULES.md dealing: packets from forehand
            if packet < 0:
                talon.extend(next(it) for _ in range(-packet))
            else:
                for seat in active:
                    hands[seat].extend(next(it) for _ in range(packet))
        codes = [[CARD_CODES[c] for c in h] for h in hands]
        tcodes = [CARD_CODES[c] for c in talon]
        ev = {"ev": "deal", "dealer": dealer, "hands": codes, "talon": tcodes}
        if self.mode == "open":
            self._emit({"ev": "deal", "dealer": dealer, "hands": None, "talon": None}, ev)
        else:
            self._emit(ev)

    def play_deal(self):
        """Play one whole deal with random legal choices; return its result."""
        n_before = len(self.results)
        self.deal_cards()
        s = self.shadow
        rng = self.rng
        while len(self.results) == n_before:
            phase = s.deal.phase
            seat = s.turn()
            raises = [ev for ev in s.legal_calls() if ev["call"] == "raise"]
            if raises and rng.random() < 0.3:
                self._emit(rng.choice(raises))
            elif phase in (D.AUCTION, D.DECLARE):
                ev = rng.choice([ev for ev in s.legal_calls() if ev["call"] != "raise"])
                row = s.rules.contract(ev.get("contract", ""))
                if (phase == D.AUCTION and row is not None
                        and row[C_TRUMP] in (TRUMP_CHOOSE, TRUMP_ANY) and rng.random() < 0.5):
                    ev["trump"] = rng.choice("CSD" if row[C_TRUMP] == TRUMP_CHOOSE else "CSHD")
                self._emit(ev)
            elif phase == D.EXCHANGE:
                self._exchange(seat)
            elif phase == D.RUFER:
                self._rufer(seat)
            else:
                self._maybe_announce()
                self._emit({"ev": "play", "seat": seat, "card": rng.choice(s.legal_cards())})
        return self.results[-1]

    def _exchange(self, seat):
        deal = self.shadow.deal
        pool = mask_cards(deal.hands, seat * 4) + mask_cards(deal.talon)
        discard = [CARD_CODES[c] for c in self.rng.sample(pool, self.shadow.rules.talon_size)]
        ev = {"ev": "exchange", "seat": seat, "discard": discard}
        if self.mode == "open" and self.rng.random() < 0.5:
            self._emit({"ev": "exchange", "seat": seat, "discard": None}, ev)
        else:
            self._emit(ev)

    def _rufer(self, seat):
        deal = self.shadow.deal
        own = mask_cards(deal.hands, seat * 4)
        others = [c for c in mask_cards(DECKS[self.shadow.rules.deck]) if c not in own]
        called = self.rng.choice(others)
        in_talon = called in mask_cards(deal.talon)
        give = None if in_talon else CARD_CODES[self.rng.choice(own)]
        self._emit({"ev": "rufer", "seat": seat, "card": CARD_CODES[called], "give": give})

    def _maybe_announce(self):
        s = self.shadow
        deal = s.deal
        if not deal.can_announce() or deal.declarer < 0:
            return
        if self.mode == "open" and deal.contract[C_ID] == "bettel_ouvert" \
                and not self._exposed():
            cards = [CARD_CODES[c] for c in mask_cards(deal.hands, deal.declarer * 4)]
            self.events.append({"ev": "hand", "seat": deal.declarer, "cards": cards})
            return
        made = True
        while made:   # each call may open the next (Kontra -> Re -> Supp ...)
            made = False
            for ev in s.legal_announcements():
                if self.rng.random() < 0.15:
                    self._emit(ev)
                    made = True
                    break

    def _exposed(self):
        for ev in reversed(self.events):
            if ev["ev"] == "hand":
                return True
            if ev["ev"] == "deal":
                return False
        return False

    def run(self, deals):
        """Play up to ``deals`` deals; fewer if the bank or Haferl ends the session."""
        for _ in range(deals):
            if self.shadow.session_over:
                break
            self.play_deal()
        return self.results

    def record_lines(self):
        lines = [json.dumps(self.header, separators=(",", ":"))]
        lines += [json.dumps(ev, separators=(",", ":")) for ev in self.events]
        return lines
