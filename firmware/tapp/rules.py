"""Rules: a record header resolved against the variant tables.

One object per session holds everything the deal and settlement code needs to
know about the variant, so they never look at variant ids themselves.
"""
from .announce import DOUBLING_CALLS
from .auction import PASS, bids_above
from .cards import DECKS, deck_cards, mask_count
from .catalog import PRESETS, VARIANTS, base_variant
from .dealing import TALON, receivers
from .variants import (
    C_FLAGS,
    C_ID,
    F_OUVERT,
    F_RUFER,
    HeaderError,
    resolve_options,
)


def _int_field(header, key, lo, hi):
    v = header.get(key)
    if not isinstance(v, int) or isinstance(v, bool) or v < lo or v > hi:
        raise HeaderError("header field " + key + " must be an integer "
                          + str(lo) + ".." + str(hi))
    return v


def _variant(header):
    """(variant id, table, options given) with presets expanded."""
    vid = header.get("variant")
    given = header.get("options")
    if isinstance(vid, str) and vid in PRESETS:
        base, merged = base_variant(vid)
        if isinstance(given, dict):
            merged.update(given)
        elif given is not None:
            raise HeaderError("options must be an object")
        return base, VARIANTS[base], merged
    table = VARIANTS.get(vid) if isinstance(vid, str) else None
    if table is None:
        raise HeaderError("unknown variant: " + str(vid))
    return vid, table, given


class Rules:
    def __init__(self, header):
        if not isinstance(header, dict):
            raise HeaderError("header must be a JSON object")
        from .variants import shown_value
        version = header.get("record")
        if not isinstance(version, int) or isinstance(version, bool) or version != 1:
            raise HeaderError("not a version 1 record (\"record\": 1 missing)")
        vid = header.get("variant")
        if not isinstance(vid, str) or (vid not in VARIANTS and vid not in PRESETS):
            raise HeaderError("unknown variant: " + shown_value(vid))
        vid, table, given = _variant(header)
        self.variant = vid
        self.table = table
        n = _int_field(header, "players", 2, 6)
        if n not in table["players"]:
            raise HeaderError(str(vid) + " is not played by " + str(n) + " players")
        self.players = n
        mode = header.get("mode", "strict")
        if mode not in ("strict", "open"):
            raise HeaderError("mode must be strict or open")
        self.mode = mode
        self.strict = mode == "strict"
        self.first_dealer = _int_field(header, "first_dealer", 0, n - 1)
        seats = header.get("seats")
        if seats is None:
            seats = ["Seat " + str(i + 1) for i in range(n)]
        if not isinstance(seats, list) or len(seats) != n:
            raise HeaderError("seats must list one name per player")
        for name in seats:
            if not isinstance(name, str):
                raise HeaderError("seat names must be strings")
        self.seats = list(seats)        # the caller's list may change later
        opts = resolve_options(table, given)
        self.options = opts
        self.direction = table["direction"]
        self._deck_and_deal(table, opts, n)
        self.sit_out = table.get("sit_out", False) and n == 4
        self.active_count = n - 1 if self.sit_out else n
        self.hand_size = (mask_count(DECKS[self.deck]) - self.talon_size) // self.active_count
        self.deck_cards = deck_cards(self.deck)     # the deck's card ints, in order (bytes)
        self.deck_set = frozenset(self.deck_cards)
        self.auction = table["auction"]
        self.contracts = self._contracts(table, opts)
        self._by_id = {row[C_ID]: row for row in self.contracts}
        self.bids_above = bids_above(self.contracts)
        # protocol A's answers: pass or any bid above rank r
        self.pass_bids_above = tuple((PASS,) + bids for bids in self.bids_above)
        all_pass = table.get("all_pass")   # the contract when everyone passes
        if opts.get("all_pass") == "last_trick":
            all_pass = table.get("last_trick_game")
        self.all_pass = None if all_pass is None else all_pass + (0,)
        self.bettel_order = opts.get("bettel_order", "bettel") == "bettel"
        self.settle_kind = table["settle"]
        self.announcements = self._announcements(table, opts)
        self.draw = table.get("draw", True)
        self.target = table.get("target", 61)
        self.overtrump = table.get("overtrump", False)
        self.revoke_forfeit = opts["revoke_penalty"] == "forfeit"
        self.refill = opts.get("shortfall") == "refill"     # docs/rules 1.7, D21
        self.start_balance = opts.get("start_balance", 0)
        self.end_when_broke = bool(opts.get("end_when_broke"))
        self.ante = self._session_ante(opts)
        # docs/rules 2.11: only defenders never asked may double (Muhr)
        self.double_needs_unasked = table.get("double_needs_unasked", False)
        # docs/rules 2.7, D29: only the last seat in the bidding may bid Pick-up
        self.berliner = bool(opts.get("berliner"))
        if opts.get("berliner_hearts") and not self.berliner:
            raise HeaderError("option berliner_hearts needs berliner = true (docs/rules 2.7)")
        # docs/rules 2.6 herz_neischaugn: a Pick-up game is played in Hearts;
        # 2.7 berliner_hearts: so is the last seat's Pick-up
        self.pickup_hearts = bool(opts.get("herz_neischaugn"))
        self.last_seat_pickup_hearts = bool(opts.get("berliner_hearts"))
        self.self_raise = bool(opts.get("self_raise"))   # docs/rules 2.6, D28
        self._seating = [None] * n  # type: list  # per dealer: made once (``seating``)
        self._slots = [None] * n  # type: list  # per dealer: made once (``deal_slots``)

    def _session_ante(self, opts):
        """Each person's session-start ante into the bank or Haferl (convention 10)."""
        if opts.get("payment") == "per_point":
            return opts["bank_ante"]      # docs/rules 2.4: the bank (Kasse)
        if self.settle_kind == "haferl":
            return opts["pot_ante"]       # docs/rules 2.6: the Haferl
        return 0                          # no bank (the Tapp pot antes per deal)

    def _deck_and_deal(self, table, opts, n):
        deck = table["deck"][n]
        deal = table["deal"][n]
        if opts.get("pack") == 32:
            if n != 4:
                raise HeaderError("pack 32 needs 4 players (docs/rules 2.3)")
            deck = "d32"
            deal = table["deal32"][n]
        if n == 4 and deck == "hb4" and opts.get("four_player_removed") == "H7,D7":
            deck = "hb4_7"
        self.deck = deck
        self.deal_pattern = deal
        talon = 0
        for p in deal:
            if p < 0:
                talon -= p
        self.talon_size = talon

    def _contracts(self, table, opts):
        """Contract rows with the options that change them applied, and their flags.

        A table's ``row_options`` rows say which option changes which column of
        which contract: ``(option, when, contract id, column, value)``; ``when``
        None means "always, to the option's value" (tapp_modern ``frage_value``,
        D10), else the change applies when the option equals ``when``
        (tarock_simple ``frage_trump = any``, D16).  ``flags`` name the contracts
        with special steps (C_FLAGS: Rufer call, exposed hand).
        """
        flags = table.get("flags", {})
        rows = []
        for row in table["contracts"]:
            row = row + (flags.get(row[C_ID], 0),)
            for option, when, cid, column, value in table.get("row_options", ()):
                if cid == row[C_ID] and (when is None or opts.get(option) == when):
                    new = opts[option] if when is None else value
                    row = row[:column] + (new,) + row[column + 1:]
            rows.append(row)
        return tuple(rows)

    def _announcements(self, table, opts):
        calls = table["announce"]
        doubling = opts.get("doubling")
        if doubling is None:
            return calls
        keep = 0 if doubling == "off" else 2 if doubling == "kontra_re" else 5
        return tuple(c for c in calls if c not in DOUBLING_CALLS[keep:])

    def next_of(self, seat):
        return (seat + self.direction) % self.players

    def active_order(self, dealer):
        """Active seats in play order from forehand (docs/rules 1.4)."""
        out = []
        s = self.next_of(dealer)
        for _ in range(self.players):
            if not (self.sit_out and s == dealer):
                out.append(s)
            s = self.next_of(s)
        return out

    def bidding_order(self, active):
        if self.options.get("first_bidder") == "middlehand":
            return active[1:] + active[:1]
        return list(active)

    def seating(self, dealer):
        """A deal by ``dealer``: (active seats in play order, bidding order, the
        next active seat after each seat, each seat's position in the play
        order; -1 for a seat sitting out), as tuples made once per dealer."""
        s = self._seating[dealer]
        if s is None:
            active = self.active_order(dealer)
            nxt = [-1] * self.players
            pos = [-1] * self.players
            for i, seat in enumerate(active):
                nxt[seat] = active[(i + 1) % len(active)]
                pos[seat] = i
            s = (tuple(active), tuple(self.bidding_order(active)), tuple(nxt), tuple(pos))
            self._seating[dealer] = s
        return s

    def deal_slots(self, dealer):
        """Where each card dealt by ``dealer`` goes, in dealing order (docs/rules
        1.4, ``dealing.receivers``): 4 * seat, or 4 * players for the talon
        (bytes made once per dealer)."""
        b = self._slots[dealer]
        if b is None:
            talon = 4 * self.players
            b = bytes([talon if seat == TALON else 4 * seat
                       for seat in receivers(self, dealer)])
            self._slots[dealer] = b
        return b

    def contract(self, cid):
        """The contract row of id ``cid`` (a str), or None."""
        return self._by_id.get(cid)

    def is_rufer(self, row):
        """Does the declarer call a card after the exchange (tapp_modern Rufer, D12)?"""
        return bool(row[C_FLAGS] & F_RUFER)

    def is_ouvert(self, row):
        """Is the declarer's hand exposed before the first lead (Bettel ouvert)?"""
        return bool(row[C_FLAGS] & F_OUVERT)

    def only_hearts(self, declarer, last_seat):
        """After a Pick-up (exchange) game, must the declarer name Hearts (2.6, 2.7)?"""
        return self.pickup_hearts or (self.last_seat_pickup_hearts and declarer == last_seat)

    def all_tricks_announced(self, announced):
        """An announcement that ends the deal at the first lost trick (D15)."""
        return "tout" in announced


# JSON scalars (a float is left to Rules, which refuses it)
_PLAIN = (str, int, bool, type(None))


def _header_key(header):
    """``repr(header)`` if it holds only scalars, lists of them and objects of
    them (a header's shape), else None: short to build, and no deep or odd
    value is ever repr'd (Rules refuses those with its own messages)."""
    if type(header) is not dict:
        return None
    for v in header.values():
        t = type(v)
        if t is list:
            for x in v:
                if type(x) not in _PLAIN:
                    return None
        elif t is dict:
            for k in v:
                if type(v[k]) not in _PLAIN:
                    return None
        elif t not in _PLAIN:
            return None
    return repr(header)


_last = [None, None]  # type: list  # rules_for: the last header's key and its Rules


def rules_for(header):
    """``Rules(header)``, the same object again for the same header as the
    last call: a new session at the same table (the simulator's next session,
    the device's after the Haferl ran dry) skips resolving the variant and
    the per-dealer tables.  Rules never change once made (those tables fill
    in once, the same for everyone), so sessions may share them.  The key is
    the header's repr, which tells 4 from 4.0 and from True; a header that
    Rules refuses is never kept."""
    key = _header_key(header)
    if key is None or key != _last[0]:
        rules = Rules(header)           # HeaderError: nothing is kept
        if key is None:
            return rules
        _last[0] = key
        _last[1] = rules
    return _last[1]
