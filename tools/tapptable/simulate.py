"""Random legal games: the simulator's players (``tapptable simulate``).

The players choose among exactly what the engine's view says may happen now
(``view.legal_bids`` / ``random_legal_card`` / ``legal_announcements``) and act only
through the session's door (``deal`` for the shuffled cards, ``bid`` and
``apply`` for calls, ``player()`` -- ``play`` bound to the deal -- for cards).  They see
the true hands through a strict-mode shadow session even when the record is
written in open mode.  Records stream: ``stream(deals)`` yields record lines
as they are played and keeps nothing.
"""
import json
import random

from tapp.cards import BIT_COUNT, CARD_CODES, WIDTH, nth_bit_table
from tapp.session import Session
from tapp.view import bid_event


def _line(obj):
    return json.dumps(obj, separators=(",", ":"))


# NTH_BIT[m][k]: the rank of the k-th card (from 0) of the 9-bit suit mask m
# (suit s's card ints are 9 * s + rank)
NTH_BIT = nth_bit_table()


_DRAWS = {}


def _draws(n):
    """The Fisher-Yates steps of a shuffle of ``n``, two at a time (made once
    per n): (i, i - 1, i + 1, (i + 1) * i, bits) for i = n-1, n-3, ... down to 1 or 2.
    One number r below (i + 1) * i, drawn from the random bits (a draw beyond
    drawn again), gives step i's index r % (i + 1) (0..i) and step i-1's
    r // (i + 1) (0..i-1): both uniform and independent.  For i = 1 the second
    index is 0 (step 0 swaps a card with itself)."""
    d = _DRAWS.get(n)
    if d is None:
        d = _DRAWS[n] = tuple((i, i - 1, i + 1, (i + 1) * i, ((i + 1) * i - 1).bit_length())
                              for i in range(n - 1, 0, -2))
    return d


class Simulator:
    def __init__(self, variant, players, seed, mode="strict", options=None,
                 first_dealer=0, seats=None):
        self.rng = random.Random(seed)
        self.header = {
            "record": 1, "variant": variant, "players": players,
            "seats": seats or ["Seat %d" % (i + 1) for i in range(players)],
            "options": options or {}, "first_dealer": first_dealer, "mode": mode,
        }
        self.mode = mode
        self.next_session()             # the first one
        view = self.view
        self.deck = list(view.deck_cards())
        self._draws = _draws(len(self.deck))
        # contract id -> the suits its trump may be named from with the bid, or ""
        self._trump_later = {cid: view.trump_suits(cid) for cid in view.contract_ids()}
        self.masks = [0, 0, 0, 0, -1]   # scratch: the discard pool's masks; [0]: the seat to play
        self.sink = None                # a list collecting record events, or None
        self.results = []
        self.deals_done = 0
        self.last_result = None
        self.steps = 0                  # events made (calls, cards, ...)

    def next_session(self):
        """Sit down at the table in a new session with the same header: the
        first one, or again once the session is over (the bank or the Haferl
        ran dry), the random stream going on; ``results`` and ``steps`` keep
        counting.  The players see it through a strict-mode shadow."""
        shadow = dict(self.header)
        shadow["mode"] = "strict"
        self.shadow = Session(shadow)   # knows every hand: picks legal moves
        self.view = self.shadow.view
        self._exposed_deal = -1         # open mode: deal whose Bettel ouvert hand is shown

    # ----- acting through the door ------------------------------------------------

    def _emit(self, ev, shadow_ev=None):
        out = self.shadow.apply(shadow_ev or ev)
        self.steps += 1
        if not out.get("ok"):
            raise AssertionError("simulator made an illegal move: %r -> %r" % (ev, out))
        if self.sink is not None:
            self.sink.append(ev)
        if "result" in out:
            self.results.append(out["result"])
        return out

    # ----- the players -------------------------------------------------------------

    def _shuffle(self, cards):
        """Fisher-Yates with each index drawn exactly uniformly: random bits, a
        draw beyond the range drawn again (random.shuffle's method), two steps
        from one draw (``_draws``)."""
        bits = self.rng.getrandbits
        for i, h, m, lim, width in self._draws:    # h = i - 1
            r = bits(width)
            while r >= lim:
                r = bits(width)
            j = r % m
            cards[i], cards[j] = cards[j], cards[i]
            j = r // m
            cards[h], cards[j] = cards[j], cards[h]

    def deal_cards(self):
        """Shuffle and deal through ``Session.deal`` (card ints in dealing order);
        the ``deal`` event is built only for a record."""
        dealer = self.view.dealer()
        cards = self.deck
        self._shuffle(cards)
        err = self.shadow.deal(dealer, bytes(cards))
        self.steps += 1
        if err:
            raise AssertionError("simulator dealt badly: %d" % err)
        if self.sink is not None:
            if self.mode == "open":
                self.sink.append({"ev": "deal", "dealer": dealer, "hands": None, "talon": None})
            else:
                hands, talon = self.view.deal_out(dealer, [CARD_CODES[c] for c in cards])
                self.sink.append({"ev": "deal", "dealer": dealer, "hands": hands,
                                  "talon": talon})

    def _play_out(self):
        """Random legal cards until the deal ends; the announcements may come
        before the first card.  The tight loop of ``simulate`` and ``bench``:
        the view's draw among the legal cards, then ``Session.play``."""
        self._maybe_announce()
        seat_of = self.masks            # the seat to play, in [0]
        pick = self.view.random_legal_card
        play = self.shadow.player()     # Session.play's door, bound to this deal
        bits = self.rng.getrandbits
        sink = self.sink
        while True:
            card = pick(bits, seat_of)
            if card < 0:
                break                       # no card to play: the deal is over
            seat = seat_of[0]
            err = play(seat, card)
            if err:
                raise AssertionError("simulator played an illegal card: %s %s -> %d"
                                     % (seat, CARD_CODES[card], err))
            if sink is not None:
                sink.append({"ev": "play", "seat": seat, "card": CARD_CODES[card]})
        # a deal ends with a trick: its cards are the tricks' (the view shows
        # the deal until the next one starts)
        self.steps += (self.view.trick_number() - 1) * self.view.active_count()
        self.results.append(self.view.last_result())

    def play_deal(self):
        """Play one whole deal with random legal choices; return its result.
        An auction call is any legal one, drawn uniformly; with a contract
        whose trump is named later, a random trump half the time."""
        self.deal_cards()
        view = self.view
        rnd = self.rng.random
        bits = self.rng.getrandbits
        bid = self.shadow.bid
        later = self._trump_later
        sink = self.sink
        while True:
            expects = view.expects()
            if expects == "call":
                seat = view.turn()
                bids = view.legal_bids()
                n = len(bids)
                k = bits(WIDTH[n])
                while k >= n:
                    k = bits(WIDTH[n])
                call, cid, trump, value = bids[k]
                if cid is not None and later[cid] and rnd() < 0.5:
                    trump = self.pick(later[cid])
                err = bid(seat, call, cid, trump, value)
                if err:
                    raise AssertionError("simulator made an illegal call: %s %s -> %d"
                                         % (seat, call, err))
                self.steps += 1
                if sink is not None:
                    sink.append(bid_event(seat, call, cid, trump, value))
            elif expects == "card":
                self._play_out()
                return self.results[-1]
            elif expects == "deal" or expects == "over":    # thrown in: nobody played
                self.results.append(view.last_result())
                return self.results[-1]
            elif expects == "discard" or expects == "declare":
                seat = view.turn()
                bids = view.legal_bids()        # declarations first, then raises
                i = 0
                while i < len(bids) and bids[i][0] != "raise":
                    i += 1
                if i < len(bids) and rnd() < 0.3:
                    self._bid(seat, self.pick(bids[i:]))
                elif expects == "declare":
                    self._bid(seat, self.pick(bids[:i]))
                else:
                    self._exchange(seat)
            elif expects == "rufer":
                self._rufer(view.turn())
            else:
                raise AssertionError("simulator stuck: expects %s" % expects)

    def below(self, n):
        """A uniformly random int below ``n`` (random bits, a draw beyond drawn
        again: exact, and cheaper than random.randrange)."""
        bits = self.rng.getrandbits
        k = bits(WIDTH[n])
        while k >= n:
            k = bits(WIDTH[n])
        return k

    def pick(self, seq):
        """A uniformly random item of ``seq``."""
        return seq[self.below(len(seq))]

    def _bid(self, seat, b):
        """Make bid ``b`` (call, contract, trump, value) for ``seat`` through
        ``Session.bid``."""
        err = self.shadow.bid(seat, b[0], b[1], b[2], b[3])
        self.steps += 1
        if err:
            raise AssertionError("simulator made an illegal call: %s %r -> %d" % (seat, b, err))
        if self.sink is not None:
            self.sink.append(bid_event(seat, b[0], b[1], b[2], b[3]))

    def _exchange(self, seat):
        """Discard a uniform sample of the hand and talon: through
        ``Session.exchange`` (card ints), or in open mode half the time the
        ``exchange`` event with the discards hidden."""
        pool = self.masks
        n = self.view.discard_pool(pool)
        discard = bytearray()
        for _ in range(self.view.talon_size()):    # without replacement
            k = self.below(n)
            s = 0
            while k >= BIT_COUNT[pool[s]]:
                k -= BIT_COUNT[pool[s]]
                s += 1
            rank = NTH_BIT[pool[s]][k]
            pool[s] -= 1 << rank
            n -= 1
            discard.append(9 * s + rank)
        if self.mode == "open" and self.rng.random() < 0.5:
            return self._emit({"ev": "exchange", "seat": seat, "discard": None},
                              {"ev": "exchange", "seat": seat,
                               "discard": [CARD_CODES[c] for c in discard]})
        err = self.shadow.exchange(seat, discard)
        self.steps += 1
        if err:
            raise AssertionError("simulator discarded badly: %s %r -> %d"
                                 % (seat, list(discard), err))
        if self.sink is not None:
            self.sink.append({"ev": "exchange", "seat": seat,
                              "discard": [CARD_CODES[c] for c in discard]})

    def _rufer(self, seat):
        own = self.view.hand(seat)
        others = [CARD_CODES[c] for c in self.deck if CARD_CODES[c] not in own]
        called = self.rng.choice(sorted(others))
        give = None if called in self.view.talon() else self.rng.choice(own)
        return self._emit({"ev": "rufer", "seat": seat, "card": called, "give": give})

    def _maybe_announce(self):
        view = self.view
        if view.declarer() < 0:
            return
        if self.mode == "open" and self._exposed_deal != view.deals_played() \
                and view.ouvert():
            # open mode: the Bettel ouvert hand is laid open (docs/record-format.md "hand"
            # event; the strict shadow knows it already)
            self._exposed_deal = view.deals_played()
            if self.sink is not None:
                self.sink.append({"ev": "hand", "seat": view.declarer(),
                                  "cards": view.hand(view.declarer())})
            return
        if not view.announcement_kinds():
            return          # nothing may be announced in this variant
        made = True
        while made:   # each call may open the next (Kontra -> Re -> Supp ...)
            made = False
            for ev in view.legal_announcements():
                if self.rng.random() < 0.15:
                    self._emit(ev)
                    made = True
                    break

    # ----- sessions --------------------------------------------------------------------

    def run(self, deals):
        """Play up to ``deals`` deals (fewer if the bank or Haferl ends the
        session); the results.  Nothing of the record is kept."""
        for _ in range(deals):
            if self.view.session_over():
                break
            self.play_deal()
        return self.results

    def stream(self, deals, keep_results=False):
        """The record of up to ``deals`` new deals, line by line, as they are
        played (the header first): memory does not grow with the deals.
        ``deals_done`` counts them and ``last_result`` is the latest result;
        ``results`` keeps them all only with ``keep_results``."""
        yield _line(self.header)
        for _ in range(deals):
            if self.view.session_over():
                break
            self.sink = []
            self.last_result = self.play_deal()
            self.deals_done += 1
            if not keep_results:
                self.results.clear()
            for ev in self.sink:
                yield _line(ev)
            self.sink = None

    def record_lines(self, deals):
        """The whole record of ``deals`` new deals as a list of lines."""
        return list(self.stream(deals, keep_results=True))
