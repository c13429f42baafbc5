"""The read-only view of a session: what screens, LEDs, the console and tools show.

Everything outside the engine reads the game through ``session.view`` and
changes it only through ``Session.apply``/``Session.play``.  Methods that the
device calls in steady play (``turn``, ``trick_size``, ``trick_card``,
``trick_seat``, ``points``, ``legal_masks``, ``seat_names``, ``hand_size``
...) answer ints (or a tuple made once) and allocate nothing; the others
build fresh lists or dicts, so a caller can never change the game through
what it was given.  What the table needs of the variant (seats, mode, deck,
sizes, dealing order) is asked here too, never of ``session.rules``
(tests/test_engine_seam.py).  The shape follows OpenSpiel's observation
strings: ``string_from(seat)`` tells what that seat may know.
"""
from .announce import DOUBLING_CALLS, multiplier
from .announce import check as announce_check
from .auction import RAISES
from .cards import BIT_COUNT, CARD_CODES, SUITS, WIDTH, mask_cards, nth_bit_table, suit_letter
from .dealing import deal_out, receivers
from .phases import AUCTION, DECLARE, DONE, EXCHANGE, HANDS, PHASE_NAMES, PLAY, RUFER
from .revokes import RULE_NAMES
from .variants import C_ID, C_TRUMP, NO_CONTRACT, TRUMP_ANY, TRUMP_CHOOSE

# What the table waits for, per phase (``expects``).
EXPECTS = ("hand", "call", "discard", "declare", "rufer", "card")

_nth = None     # cards.nth_bit_table(), made for the first random_legal_card


def _nth_table():
    global _nth
    _nth = nth_bit_table()
    return _nth


def bid_event(seat, call, contract=None, trump=None, value=None):
    """The ``bid`` event of ``Session.bid``'s arguments (None: left out), as
    ``legal_calls`` and a record write it."""
    ev = {"ev": "bid", "seat": seat, "call": call}
    if contract is not None:
        ev["contract"] = contract
    if trump is not None:
        ev["trump"] = trump
    if value is not None:
        ev["value"] = value
    return ev


class View:
    """One per session, made by it; ``attach`` is the session's to call."""

    def __init__(self, session, rules):
        self._session = session
        self._rules = rules
        self._seats = tuple(rules.seats)     # seat_names(): made once, nobody can change it
        self._deal = None
        self._declare_bids = {}     # (contract id, trump choices) -> the declarations
        self._pick = [0, 0, 0, 0]   # random_legal_card's legal masks (no allocation)

    def attach(self, deal):
        """The session shows which deal is current (None: between deals)."""
        self._deal = deal

    # ----- the session ----------------------------------------------------------------

    def variant(self):
        return self._rules.variant

    def mode(self):
        return self._rules.mode

    def players(self):
        return self._rules.players

    def seat_name(self, seat):
        return self._rules.seats[seat]

    def seat_names(self):
        """All seat names, seat by seat (a tuple made once: allocates nothing)."""
        return self._seats

    def strict(self):
        """Does the table know every hand (strict mode), or only what is played (open)?"""
        return self._rules.strict

    # ----- the variant's deck and deal (constants of the session) --------------------

    def deck(self):
        """The deck's name, a key of ``tapp.cards.DECKS``."""
        return self._rules.deck

    def deck_cards(self):
        """The deck's card ints in order (bytes made once per deck)."""
        return self._rules.deck_cards

    def hand_size(self):
        """Cards dealt to each active seat."""
        return self._rules.hand_size

    def active_count(self):
        """Seats in each deal (one fewer than the players when the dealer sits out)."""
        return self._rules.active_count

    def active_order(self, dealer):
        """The seats of a deal by ``dealer`` in play order, forehand first (a
        fresh list; ``active_seats`` is the deal in progress's)."""
        return self._rules.active_order(dealer)

    def deal_order(self, dealer):
        """The seat receiving each card of a deal by ``dealer`` in dealing order
        (``tapp.dealing.TALON`` for the talon; docs/rules 1.4): a fresh list."""
        return receivers(self._rules, dealer)

    def deal_out(self, dealer, cards):
        """``cards`` (in dealing order) as a deal by ``dealer`` gives them out:
        (a list of cards per seat, the talon's)."""
        return deal_out(self._rules, dealer, cards)

    def contract_ids(self):
        """The ids of the contracts this session may play, lowest first."""
        return [row[C_ID] for row in self._rules.contracts]

    def trump_suits(self, cid):
        """The suits the declarer may name as contract ``cid``'s trump: ``CSD``
        (any but hearts), ``CSHD``, or ``""`` when the contract fixes it."""
        t = self._rules.contract(cid)[C_TRUMP]
        return "CSD" if t == TRUMP_CHOOSE else "CSHD" if t == TRUMP_ANY else ""

    def announcement_kinds(self):
        """What may ever be announced in this session (a tuple; empty: nothing)."""
        return self._rules.announcements

    def dealer(self):
        """Dealer of the deal in progress, else of the next deal."""
        return self._session.dealer()

    def balance(self, seat):
        return self._session.balance(seat)

    def balances(self):
        return [self._session.balance(s) for s in range(self._rules.players)]

    def pot(self):
        """The pot, bank or Haferl (docs/record-format.md ``pot_total``)."""
        return self._session.pot()

    def deals_played(self):
        return self._session.deals_played()

    def session_over(self):
        return self._session.session_over()

    def last_result(self):
        """A copy of the last settled deal's ``result`` (None before the first)."""
        r = self._session.last_result()
        return None if r is None else dict(r)

    def deal_payment(self, k, seat):
        """What ``seat`` was paid (negative: paid out) in settled deal ``k``
        (0 = the session's first; ``deals_played()`` of them): the score
        sheet deal by deal.  Allocates nothing."""
        return self._session.deal_payment(k, seat)

    # ----- where the deal stands ---------------------------------------------------

    def in_deal(self):
        """Is a deal in progress (dealt, not yet settled)?"""
        return self._deal is not None and self._deal.phase != DONE

    def phase(self):
        """``deal`` (waiting for the next deal), ``hands``, ``auction``, ``exchange``,
        ``declare``, ``rufer``, ``play`` or ``over`` (the session has ended)."""
        deal = self._deal
        if deal is not None and deal.phase != DONE:
            return PHASE_NAMES[deal.phase]      # no deal is in progress once over
        return "over" if self._session.session_over() else "deal"

    def expects(self):
        """What input the table waits for: ``deal``, ``hand`` (hands to be
        scanned), ``call``, ``discard``, ``declare`` (contract or trump),
        ``rufer`` (the called card), ``card``, or ``over``."""
        deal = self._deal
        if deal is not None and deal.phase != DONE:
            return EXPECTS[deal.phase]          # no deal is in progress once over
        return "over" if self._session.session_over() else "deal"

    def turn(self):
        """Seat whose input is expected now, or -1 (hands being scanned, no deal)."""
        deal = self._deal
        if deal is None:
            return -1
        phase = deal.phase
        if phase == PLAY:
            return deal.turn
        if phase == AUCTION:
            return deal.auction.turn()
        if phase == DONE or phase == HANDS:
            return -1
        return deal.declarer

    def active_seats(self):
        """Seats in this deal's play order, forehand first (a sitting-out dealer
        is not among them)."""
        if self._deal is None:
            return self._rules.active_order(self._session.dealer())
        return list(self._deal.active)

    def is_active(self, seat):
        deal = self._deal
        return deal is not None and deal.pos_of[seat] >= 0

    def hand_known(self, seat):
        """Does the table know this seat's hand (strict mode, once scanned)?"""
        return self._deal is not None and self._deal.known[seat]

    # ----- contract --------------------------------------------------------------------

    def declarer(self):
        return -1 if self._deal is None else self._deal.declarer

    def contract(self):
        """Contract id, or None before it is known (or a thrown-in deal)."""
        deal = self._deal
        if deal is None or deal.contract is NO_CONTRACT:
            return None
        return deal.contract[C_ID]

    def trump(self):
        """Trump suit letter, or None."""
        return None if self._deal is None else suit_letter(self._deal.trump)

    def target(self):
        return self._rules.target if self._deal is None else self._deal.target

    def announcements(self):
        return [] if self._deal is None else list(self._deal.announced)

    def ouvert(self):
        """Is the deal's contract played with the declarer's hand open (Bettel ouvert)?"""
        deal = self._deal
        return deal is not None and self._rules.is_ouvert(deal.contract)

    def multiplier(self):
        """The doubling factor of the Kontra/Re chain so far (1 without)."""
        return 1 if self._deal is None else multiplier(self._deal.announced)

    # ----- tricks (allocation-free for the display) ------------------------------------

    def trick_number(self):
        """Number of the trick being played (1-based)."""
        return 0 if self._deal is None else self._deal.trick_no

    def trick_size(self):
        """Cards on the table in the current trick."""
        return 0 if self._deal is None else self._deal.tcount

    def trick_card(self, i):
        """Card int of the i-th card of the current trick (-1: no deal)."""
        deal = self._deal
        return -1 if deal is None else deal.played[deal.tbase + i]

    def trick_seat(self, i):
        """Seat that played the i-th card of the current trick (-1: no deal)."""
        deal = self._deal
        if deal is None:
            return -1
        return deal.active[(deal.pos_of[deal.leader] + i) % deal.nact]

    def trick(self):
        """The current trick as ``[[seat, code], ...]``."""
        return [[self.trick_seat(i), CARD_CODES[self.trick_card(i)]]
                for i in range(self.trick_size())]

    def last_winner(self):
        """Winner of the last completed trick, or -1."""
        return -1 if self._deal is None else self._deal.last_winner

    def last_points(self):
        return 0 if self._deal is None else self._deal.last_points

    def last_trick(self):
        """The last completed trick as in a ``trick`` outcome, or None."""
        deal = self._deal
        if deal is None or deal.last_winner < 0:
            return None
        return {"n": deal.trick_no - 1, "leader": deal.last_leader,
                "cards": [CARD_CODES[c] for c in deal.last_trick_cards()],
                "winner": deal.last_winner, "points": deal.last_points}

    def last_trick_card(self, i):
        """Card int of the i-th card of the last completed trick (-1: none);
        ``last_trick_seat(i)`` played it.  Allocates nothing."""
        deal = self._deal
        if deal is None or deal.last_winner < 0:
            return -1
        return deal.played[deal.tbase - deal.nact + i]

    def last_trick_seat(self, i):
        """Seat that played the i-th card of the last completed trick (-1: none)."""
        deal = self._deal
        if deal is None or deal.last_winner < 0:
            return -1
        return deal.active[(deal.pos_of[deal.last_leader] + i) % deal.nact]

    def points(self, seat):
        """Card points ``seat`` has taken in tricks this deal."""
        return 0 if self._deal is None else self._deal.seat_points[seat]

    def tricks_won(self, seat):
        return 0 if self._deal is None else self._deal.seat_tricks[seat]

    def revokes(self):
        """Revokes proven so far (open mode), earliest offence first."""
        deal = self._deal
        if deal is None:
            return []
        out = [{"seat": deal.rev_seat[i], "trick": deal.rev_key[i] >> 3,
                "rule": RULE_NAMES[deal.rev_rule[i]], "key": deal.rev_key[i]}
               for i in range(deal.rev_count)]
        out.sort(key=lambda r: r["key"])
        for r in out:
            del r["key"]
        return out

    def revoke_count(self):
        """How many revokes are proven so far (open mode), in the order they
        were proven; ``revoke_seat/trick/rule(i)`` tell each.  Allocates nothing."""
        return 0 if self._deal is None else self._deal.rev_count

    def revoke_seat(self, i):
        deal = self._deal
        return -1 if deal is None else deal.rev_seat[i]

    def revoke_trick(self, i):
        """The trick of the offence (not of the proof)."""
        deal = self._deal
        return -1 if deal is None else deal.rev_key[i] >> 3

    def revoke_rule(self, i):
        """The duty broken: ``must_follow``, ``must_trump``, ``must_overtrump``
        or ``rufer_card`` (a constant str)."""
        deal = self._deal
        return "" if deal is None else RULE_NAMES[deal.rev_rule[i]]

    # ----- the auction (allocation-free: the screens show every call) -----------------

    def calls_made(self):
        """How many calls (auction calls, declarations, self-raises) this deal
        has accepted so far; ``call_made(i)`` tells each, in order.  While
        the deal is in progress: a settled or thrown-in deal keeps none."""
        return self._session.bid_count() if self.in_deal() else 0

    def last_call_of(self, seat):
        """The number (``call_made``) of ``seat``'s last call this deal, -1:
        none yet (the screens key a seat's row in the auction by it)."""
        return self._session.last_bid_of(seat) if self.in_deal() else -1

    def call_made(self, i):
        """The ``i``-th call as the session keeps it: the tuple ("bid", seat,
        call, contract, trump, value), None for a field the call left out (the
        ``bid`` event's fields).  Allocates nothing."""
        return self._session.bid_at(i)

    # ----- hidden information (strict mode; the console guards it) --------------------

    def hand(self, seat):
        """Codes of ``seat``'s known hand, or None if the table does not know it."""
        deal = self._deal
        if deal is None or not deal.known[seat]:
            return None
        return [CARD_CODES[c] for c in mask_cards(deal.hands, seat * 4)]

    def talon(self):
        """Codes known to lie in the talon (or discards), or None if unknown."""
        deal = self._deal
        if deal is None or not deal.talon_known:
            return None
        return [CARD_CODES[c] for c in mask_cards(deal.talon)]

    # ----- what may happen now ---------------------------------------------------------

    def legal_masks(self, out):
        """Per-suit masks of the cards the seat to play (``turn()``) may play now,
        written into ``out`` (4 ints); returns their count.  A known hand only
        (strict mode, or the exposed hand in open mode), else 0.  The engine's
        one statement of the duties (``Tricks.legal_in``, docs/rules 1.5 rules
        1, 2 and 4) answers; allocates nothing."""
        deal = self._deal
        if deal is None or deal.phase != PLAY or not deal.known[deal.turn]:
            out[0] = out[1] = out[2] = out[3] = 0
            return 0
        deal.legal_in(deal.hands, deal.turn * 4, out)
        return BIT_COUNT[out[0]] + BIT_COUNT[out[1]] + BIT_COUNT[out[2]] + BIT_COUNT[out[3]]

    def hand_legal_masks(self, hand, out):
        """Of ``hand`` (4 suit masks: the cards the seat to play holds, as its
        owner knows them), the cards he may play to the trick on the table now,
        written into ``out`` (4 ints); returns their count, 0 outside trick
        play.  The duties of ``legal_masks`` (``Tricks.legal_in``) for a hand
        the engine need not know: open mode, where the cards lie face down, or
        a hand a player keeps after a revoke the engine has not proven yet.
        Allocates nothing."""
        deal = self._deal
        if deal is None or deal.phase != PLAY:
            out[0] = out[1] = out[2] = out[3] = 0
            return 0
        deal.legal_in(hand, 0, out)
        return BIT_COUNT[out[0]] + BIT_COUNT[out[1]] + BIT_COUNT[out[2]] + BIT_COUNT[out[3]]

    def random_legal_card(self, bits, out):
        """One of the cards ``legal_masks`` names, drawn uniformly with ``bits``
        (``random.getrandbits`` or alike): its card int, and the seat to play
        in ``out[0]``; -1 when no known hand is to play.  A robot player's
        card in one call (the simulator's, every card of a deal)."""
        deal = self._deal
        pick = self._pick
        n = self.legal_masks(pick)
        if deal is None or not n:
            return -1
        out[0] = deal.turn
        nth = _nth or _nth_table()
        k = bits(WIDTH[n])                  # uniform below n: a draw beyond drawn again
        while k >= n:
            k = bits(WIDTH[n])
        s = 0
        c = BIT_COUNT[pick[0]]
        while k >= c:                       # the k-th legal card, suit by suit
            k -= c
            s += 1
            c = BIT_COUNT[pick[s]]
        return 9 * s + nth[pick[s]][k]

    def discard_pool(self, out):
        """The cards the declarer discards from now (his hand and the talon,
        strict mode): per-suit masks written into ``out`` (4 ints); returns
        their count, 0 outside the exchange.  ``talon_size()`` of them go."""
        deal = self._deal
        out[0] = out[1] = out[2] = out[3] = 0
        if deal is None or deal.phase != EXCHANGE or not deal.known[deal.declarer]:
            return 0
        base = deal.declarer * 4
        n = 0
        for s in range(4):
            m = deal.hands[base + s] | deal.talon[s]
            out[s] = m
            n += BIT_COUNT[m]
        return n

    def talon_size(self):
        """How many cards the talon holds (and the declarer discards)."""
        return self._rules.talon_size

    def legal_cards(self):
        """Card codes the seat to play may play (strict mode; [] when unknown)."""
        masks = [0, 0, 0, 0]
        self.legal_masks(masks)
        return [CARD_CODES[c] for c in mask_cards(masks)]

    def legal_calls(self):
        """Event dicts of the auction calls / declarations / self-raises allowed now."""
        seat = self.turn()
        return [bid_event(seat, call, contract, trump, value)
                for call, contract, trump, value in self.legal_bids()]

    def legal_bids(self):
        """``legal_calls`` as ``Session.bid`` arguments after the seat (who is
        ``turn()``): a tuple of (call, contract, trump, value), None for a field
        the event leaves out."""
        deal = self._deal
        if deal is None or deal.phase == DONE:
            return ()
        if deal.phase == AUCTION:
            return deal.auction.legal()
        out = ()
        if deal.phase == DECLARE and deal.contract is NO_CONTRACT:
            out = tuple(("declare", row[C_ID], None, None) for row in deal.auction.declarable())
        elif deal.phase == DECLARE:
            out = self._trump_bids(deal.contract[C_ID], deal.trump_choices())
        if deal.raise_ok and deal.phase in (EXCHANGE, DECLARE):
            # Haferl self-raise (D28): every higher step, named by its target
            out += RAISES[deal.auction.step + 1:]
        return out

    def _trump_bids(self, cid, choices):
        """The declarations of contract ``cid`` with each trump of ``choices``
        (a tuple made once per pair)."""
        key = (cid, choices)
        bids = self._declare_bids.get(key)
        if bids is None:
            bids = self._declare_bids[key] = tuple(("declare", cid, SUITS[t], None)
                                                   for t in choices)
        return bids

    def legal_announcements(self):
        """Event dicts of the announcements any seat may make now (Tout, 66/Du,
        Kontra, Re, ...); empty once the first card is led."""
        deal = self._deal
        out = []
        if deal is None or not deal.can_announce():
            return out
        declarer = (deal.declarer,)
        for what in self._rules.announcements:
            # only doublings may come from others (announce.check): the
            # declarer's own calls are asked of him alone
            for seat in deal.active if what in DOUBLING_CALLS else declarer:
                if announce_check(self._rules, deal, seat, what) == 0:
                    out.append({"ev": "announce", "seat": seat, "what": what})
        return out

    def exposed_hand_due(self):
        """Open mode: must the declarer's hand be shown (Bettel ouvert) before
        the first lead, and has it not been yet?"""
        deal = self._deal
        return (deal is not None and not self._rules.strict and deal.can_announce()
                and deal.declarer >= 0 and self._rules.is_ouvert(deal.contract)
                and not deal.known[deal.declarer])

    def rufer_pending(self):
        return self._deal is not None and self._deal.phase == RUFER

    # ----- the Rufer call and what undo takes back (allocation-free: on screen) -------

    def rufer_call(self, k):
        """The Rufer call (docs/rules 2.3, D12): ``k`` 0 the card the declarer
        called, 1 the card he gave its holder (-1: it lies in the talon), 2 that
        holder (-1: the talon, or not known in open mode); -1 before the call."""
        deal = self._deal
        return -1 if deal is None else deal.rufer_call[k]

    def undo_kind(self):
        """What ``undo`` takes back now: "play" (the last card), "bid",
        "exchange" (the lay-away), "rufer", "announce", "deal", "hand",
        "declare" (a redundant declare: only its count), or "" (nothing)."""
        ev = self._session.last_kept()
        if ev is None:
            return ""
        if isinstance(ev, str):
            return ev
        if isinstance(ev, dict):
            return ev["ev"]
        return ev[0] if isinstance(ev, tuple) else "deal"

    def undo_seat(self):
        """Whose input ``undo`` takes back: who laid the last card, made the
        call, laid away, called or announced; the dealer of a deal; -1 none."""
        ev = self._session.last_kept()
        deal = self._deal
        if ev is None or deal is None or ev == "declare":
            return -1
        if ev == "play":
            k = deal.tcount
            return self.trick_seat(k - 1) if k else self.last_trick_seat(deal.nact - 1)
        if isinstance(ev, tuple):
            return ev[1]
        return ev.get("seat", deal.dealer) if isinstance(ev, dict) else deal.dealer

    def undo_card(self):
        """The card ``undo`` takes back (the last card played) or the called
        card of the Rufer call it takes back; -1 otherwise."""
        ev = self._session.last_kept()
        deal = self._deal
        if ev is None or deal is None:
            return -1
        if ev == "play":
            return deal.played[deal.tbase + deal.tcount - 1]
        return deal.rufer_call[0] if isinstance(ev, dict) and ev["ev"] == "rufer" else -1

    def undo_word(self):
        """The word of the announcement ``undo`` takes back (``tout``,
        ``kontra`` ...), else None (a call: ``call_made``'s last)."""
        ev = self._session.last_kept()
        return ev.get("what") if isinstance(ev, dict) and ev["ev"] == "announce" else None

    # ----- text -----------------------------------------------------------------------

    def string_from(self, seat=-1):
        """A few lines of what ``seat`` may see (-1: a spectator; no hidden hands)."""
        rules = self._rules
        lines = ["%s %d players, %s; deal %d, dealer %s" % (
            rules.variant, rules.players, rules.mode, self.deals_played() + 1,
            rules.seats[self.dealer()])]
        phase = self.phase()
        turn = self.turn()
        line = "phase %s" % phase
        if turn >= 0:
            line += ", %s to %s" % (rules.seats[turn], self.expects())
        lines.append(line)
        if self.contract() is not None:
            line = "contract %s by %s" % (self.contract(), rules.seats[self.declarer()])
            if self.trump():
                line += ", trump %s" % self.trump()
            if self.multiplier() > 1:
                line += ", x%d" % self.multiplier()
            if self.announcements():
                line += ", announced " + " ".join(self.announcements())
            lines.append(line)
        if self.trick_size():
            lines.append("trick %d: " % self.trick_number() + " ".join(
                "%s %s" % (rules.seats[s], c) for s, c in self.trick()))
        last = self.last_trick()
        if last is not None:
            lines.append("last trick %d won by %s (%d points)" % (
                last["n"], rules.seats[last["winner"]], last["points"]))
        hand = self.hand(seat) if seat >= 0 else None
        if hand is not None:
            lines.append("hand of %s: %s" % (rules.seats[seat], " ".join(hand)))
        lines.append("balances " + ", ".join(
            "%s %d" % (rules.seats[s], self.balance(s)) for s in range(rules.players))
            + (", pot %d" % self.pot() if self.pot() else ""))
        return "\n".join(lines)
