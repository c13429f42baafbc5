"""Rules: a record header resolved against the variant tables.

One object per session holds everything the deal and settlement code needs to
know about the variant, so they never look at variant ids themselves.
"""
from .cards import DECKS, mask_count
from .variants import (
    C_GOAL,
    C_ID,
    C_RANK,
    C_VALUE,
    GOAL_ALL_TRICKS,
    VARIANTS,
    HeaderError,
    resolve_options,
)


def _int_field(header, key, lo, hi):
    v = header.get(key)
    if not isinstance(v, int) or isinstance(v, bool) or v < lo or v > hi:
        raise HeaderError("header field " + key + " must be an integer "
                          + str(lo) + ".." + str(hi))
    return v


class Rules:
    def __init__(self, header):
        if not isinstance(header, dict):
            raise HeaderError("header must be a JSON object")
        if header.get("record") != 1:
            raise HeaderError("not a version 1 record (\"record\": 1 missing)")
        vid = header.get("variant")
        table = VARIANTS.get(vid) if isinstance(vid, str) else None
        if table is None:
            raise HeaderError("unknown variant: " + str(vid))
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
        self.seats = seats
        opts = resolve_options(table, header.get("options"))
        self.options = opts
        self.direction = table["direction"]
        deck = table["deck"][n]
        deal = table["deal"][n]
        if opts.get("pack") == 32:
            if n != 4:
                raise HeaderError("pack 32 needs 4 players (RULES.md 2.3)")
            deck = "d32"
            deal = table["deal32"][n]
        self.deck = deck
        self.deal_pattern = deal
        talon = 0
        for p in deal:
            if p < 0:
                talon -= p
        self.talon_size = talon
        self.sit_out = table.get("sit_out", False) and n == 4
        self.active_count = n - 1 if self.sit_out else n
        self.hand_size = (mask_count(DECKS[deck]) - talon) // self.active_count
        self.auction = table["auction"]
        self.contracts = self._contracts(table, opts)
        self.all_pass = table.get("all_pass")
        self.bettel_order = opts.get("bettel_order", "bettel") == "bettel"
        self.settle_kind = table["settle"]
        self.announcements = table["announce"]
        self.draw = table.get("draw", True)
        self.revoke_forfeit = opts["revoke_penalty"] == "forfeit"

    def _contracts(self, table, opts):
        rows = table["contracts"]
        fv = opts.get("frage_value")
        if fv is None:
            return rows
        return tuple(
            (r[:C_VALUE] + (fv,) + r[C_VALUE + 1:]) if r[C_ID] == "frage" else r
            for r in rows
        )

    def next_of(self, seat):
        return (seat + self.direction) % self.players

    def active_order(self, dealer):
        """Active seats in play order from forehand (RULES.md 1.4)."""
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

    def contract(self, cid):
        for row in self.contracts:
            if row[C_ID] == cid:
                return row
        return None

    def is_rufer(self, row):
        return row[C_GOAL] == GOAL_ALL_TRICKS and row[C_ID].endswith("_rufer")

    def all_tricks_announced(self, announced):
        return "tout" in announced

    def rank(self, row):
        return row[C_RANK]
