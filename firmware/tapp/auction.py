"""Auction protocols of RULES.md 1.8 as small state machines.

Every protocol answers the same questions: whose turn (``turn``, -1 once
done), which calls are legal now (``legal``), and takes one call (``call``,
returning an error code).  When ``done`` it names ``declarer`` (-1: all
passed), the ``contract`` row and the ``trump`` if already named (-1 if not).
"""
from . import errors as E
from .variants import C_RANK, C_TRUMP, TRUMP_ANY, TRUMP_CHOOSE


def trump_fits(row, trump):
    """May ``trump`` (suit int, -1 = not named) go with contract ``row``?"""
    if trump < 0:
        return True
    t = row[C_TRUMP]
    if t == TRUMP_CHOOSE:
        return trump != 2  # C, S or D: Hearts have their own contracts
    if t == TRUMP_ANY:
        return True
    return trump == t


class Auction:
    """What every protocol keeps: the speaking order and the outcome so far."""

    def __init__(self, order, contracts):
        self.order = order
        self.contracts = contracts
        self.pos = 0
        self.contract = None
        self.trump = -1
        self.declarer = -1
        self.done = False

    def _outranking(self):
        """Contract rows ranked strictly above the current one."""
        rank = self.contract[C_RANK] if self.contract else 0
        return [row for row in self.contracts if row[C_RANK] > rank]


class NamedBids(Auction):
    """Protocol A: named bids with holding, one round (RULES.md 1.8 A, D03)."""

    def __init__(self, order, contracts):
        Auction.__init__(self, order, contracts)
        self.holder = -1
        self.challenger = -1

    def turn(self):
        if self.done:
            return -1
        if self.challenger >= 0:
            return self.holder
        return self.order[self.pos]

    def _rank(self):
        return self.contract[C_RANK] if self.contract else 0

    def legal(self):
        if self.done:
            return []
        if self.challenger >= 0:
            return [("hold", None), ("pass", None)]
        return [("pass", None)] + [("bid", row) for row in self._outranking()]

    def call(self, seat, word, row, trump):
        if self.done:
            return E.WRONG_PHASE
        if seat != self.turn():
            return E.NOT_YOUR_TURN
        if self.challenger >= 0:
            if word == "hold":
                self.trump = -1  # the holder names his own suit later
            elif word == "pass":
                self.holder = self.challenger
            else:
                return E.ILLEGAL_CALL
            self.challenger = -1
            self._next()
            return E.OK
        if word == "pass":
            self._next()
            return E.OK
        if word != "bid":
            return E.ILLEGAL_CALL
        if row is None or row[C_RANK] <= self._rank() or not trump_fits(row, trump):
            return E.ILLEGAL_CONTRACT
        self.contract = row
        self.trump = trump
        if self.holder < 0:
            self.holder = seat
            self._next()
        else:
            self.challenger = seat
        return E.OK

    def _next(self):
        self.pos += 1
        if self.pos >= len(self.order):
            self.done = True
            self.declarer = self.holder


class TwoRounds(Auction):
    """Protocol C: ``spiele``/``weg``, then ascending bids (RULES.md 1.8 C, D09)."""

    def __init__(self, order, contracts):
        Auction.__init__(self, order, contracts)
        self.players = []   # who said spiele, in order
        self.round = 1

    def turn(self):
        if self.done:
            return -1
        if self.round == 1:
            return self.order[self.pos]
        return self.players[self.pos]

    def legal(self):
        if self.done:
            return []
        if self.round == 1:
            return [("spiele", None), ("weg", None)]
        out = [] if self.contract is None else [("weg", None)]
        return out + [("bid", row) for row in self._outranking()]

    def call(self, seat, word, row, trump):
        if self.done:
            return E.WRONG_PHASE
        if seat != self.turn():
            return E.NOT_YOUR_TURN
        if word == "pass":
            word = "weg"  # RECORD.md convention 6
        if self.round == 1:
            if word == "spiele":
                self.players.append(seat)
            elif word != "weg":
                return E.ILLEGAL_CALL
            self.pos += 1
            if self.pos == len(self.order):
                self.round = 2
                self.pos = 0
                if not self.players:
                    self.done = True  # all passed: Ramsch
            return E.OK
        if word == "weg":
            if self.contract is None:
                return E.ILLEGAL_CALL  # the first spiele player must name a contract
        elif word == "bid":
            rank = self.contract[C_RANK] if self.contract else 0
            if row is None or row[C_RANK] <= rank or not trump_fits(row, trump):
                return E.ILLEGAL_CONTRACT
            self.contract = row
            self.trump = trump
            self.declarer = seat
        else:
            return E.ILLEGAL_CALL
        self.pos += 1
        if self.pos == len(self.players):
            self.done = True
        return E.OK


PROTOCOLS = {"A": NamedBids, "C": TwoRounds}
