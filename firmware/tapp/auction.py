"""Auction protocols of docs/rules 1.8 as small state machines.

Every protocol answers the same questions: whose turn (``turn``, -1 once
done), which calls are legal now (``legal``), and takes one call (``call``,
returning an error code).  When ``done`` it names ``declarer`` (-1: all
passed), the ``contract`` row and the ``trump`` if already named (-1 if not).

``legal`` answers with bids in ``Session.bid``'s form after the seat --
(call, contract id, trump, value) -- from tuples made once, so asking costs
no allocation per bid.
"""
from . import errors as E
from .variants import C_ID, C_RANK, C_TRUMP, TRUMP_ANY, TRUMP_CHOOSE

try:
    from micropython import const
except ImportError:  # CPython
    const = lambda x: x  # noqa: E731


def _call_only(call):
    return (call, None, None, None)


PASS = _call_only("pass")
HOLD_OR_PASS = (_call_only("hold"), PASS)
SPIELE_OR_WEG = (_call_only("spiele"), _call_only("weg"))
SPIELE_OR_PASS = (_call_only("spiele"), PASS)
VORN_OR_PASS = (_call_only("vorn"), PASS)
HERZ_OR_NOT = (_call_only("herz"), _call_only("nicht_herz"))


def bids_above(contracts):
    """For each rank r (0 = none yet): the ``bid`` calls of the contracts
    ranked above r, as (call, contract id, trump, value) tuples."""
    top = 0
    for row in contracts:
        top = max(top, row[C_RANK])
    return tuple(tuple(("bid", row[C_ID], None, None) for row in contracts if row[C_RANK] > r)
                 for r in range(top + 1))


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

    def __init__(self, order, rules):
        self.order = order
        self.contracts = rules.contracts
        self.above = rules.bids_above     # bids_above(contracts), made once per session
        self.pass_above = rules.pass_bids_above     # (PASS,) + each of them
        self.pos = 0
        self.contract = None
        self.trump = -1
        self.declarer = -1
        self.done = False

    def call(self, seat, word, row, arg):
        """One call; ``arg`` is the named trump, or a ladder bid's target (-1: none)."""
        if self.done:
            return E.WRONG_PHASE
        if seat != self.turn():
            return E.NOT_YOUR_TURN
        return self._call(seat, word, row, arg)

    def _call(self, seat, word, row, arg):
        return E.ILLEGAL_CALL

    def turn(self):
        """Seat to speak, -1 once the auction is over."""
        return -1 if self.done else self.order[self.pos]

    def declarable(self):
        """Contracts the declarer may name after the auction (protocols B, E)."""
        return []

    def _outranking(self):
        """The bids of the contracts ranked strictly above the current one."""
        return self.above[self.contract[C_RANK] if self.contract else 0]


class Holding(Auction):
    """Protocols A and B: one round; the holder answers a later bid at once with
    ``hold`` (he keeps the lead and takes the bid) or ``pass`` (docs/rules 1.8)."""

    def __init__(self, order, rules):
        Auction.__init__(self, order, rules)
        self.holder = -1
        self.challenger = -1

    def turn(self):
        if self.done:
            return -1
        return self.holder if self.challenger >= 0 else self.order[self.pos]

    def legal(self):
        if self.done:
            return ()
        if self.challenger >= 0:
            return HOLD_OR_PASS
        return (PASS,) + self._bids()

    def _call(self, seat, word, row, trump):
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
        err = self._bid(word, row, trump)
        if err:
            return err
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

    def _bids(self):
        return ()

    def _bid(self, word, row, trump):
        return E.ILLEGAL_CALL


class NamedBids(Holding):
    """Protocol A: named bids, any higher contract (docs/rules 1.8 A, D03)."""

    def legal(self):
        if self.done:
            return ()
        if self.challenger >= 0:
            return HOLD_OR_PASS
        return self.pass_above[self.contract[C_RANK] if self.contract else 0]

    def _bids(self):
        return self._outranking()

    def _bid(self, word, row, trump):
        if word != "bid":
            return E.ILLEGAL_CALL
        rank = self.contract[C_RANK] if self.contract else 0
        if row is None or row[C_RANK] <= rank or not trump_fits(row, trump):
            return E.ILLEGAL_CONTRACT
        self.contract = row
        self.trump = trump
        return E.OK


class TwoRounds(Auction):
    """Protocol C: ``spiele``/``weg``, then ascending bids (docs/rules 1.8 C, D09)."""

    def __init__(self, order, rules):
        Auction.__init__(self, order, rules)
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
            return ()
        if self.round == 1:
            return SPIELE_OR_WEG
        if self.contract is None:
            return self._outranking()
        return (SPIELE_OR_WEG[1],) + self._outranking()

    def _call(self, seat, word, row, trump):
        if word == "pass":
            word = "weg"  # docs/record-format.md convention 6
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



LEVEL_WORDS = ("", "spiele", "besser", "am_besten")
LEVEL_BIDS = tuple(_call_only(w) for w in LEVEL_WORDS)


class Levels(Holding):
    """Protocol B: level words (docs/rules 1.8 B, 2.4).

    The contract is declared afterwards: any at level 1, Solo or Heart Solo at
    level 2, Heart Solo at level 3 (``declarable``).
    """

    def __init__(self, order, rules):
        Holding.__init__(self, order, rules)
        self.level = 0

    def _bids(self):
        return (LEVEL_BIDS[self.level + 1],) if self.level < 3 else ()

    def _bid(self, word, row, trump):
        if self.level >= 3 or word != LEVEL_WORDS[self.level + 1]:
            return E.ILLEGAL_CALL
        self.level += 1
        return E.OK

    def declarable(self):
        # level 1: any; level 2: rank >= 2 (Solo, Heart Solo); level 3: Heart Solo
        low = 1 if self.level <= 1 else 2 if self.level == 2 else 3
        return [row for row in self.contracts if row[C_RANK] >= low]


def ladder_target(step):
    """Haferl ladder (docs/rules 1.8 D, D24): step 0 and 1 aim at 61, then +5."""
    return 61 if step <= 1 else 61 + 5 * (step - 1)


_MAX_STEP = const(12)
# The ladder's bid at each step: spiele, auch, then mehr naming its target.
LADDER_BIDS = tuple(("spiele" if step == 0 else "auch" if step == 1 else "mehr", None, None,
                     ladder_target(step) if step >= 2 else None)
                    for step in range(_MAX_STEP + 1))
# Ladder.legal's answer when the next step is s: pass or that step's bid
LADDER_LEGAL = tuple((PASS, bid) for bid in LADDER_BIDS)
# RAISES[s]: the Haferl self-raise (D28) to step s, named by its target
# (RAISES[s + 1:] are those above step s: one tuple of bids, not one per step)
RAISES = tuple(("raise", None, None, ladder_target(step)) for step in range(_MAX_STEP + 1))


class Ladder(Auction):
    """Protocol D: the Haferl ladder with ``vorn`` (docs/rules 1.8 D, 2.6, 2.7).

    ``lowest`` gives each seat's lowest opening step (the Berliner rule: only
    the privileged seat may open at step 0).
    """

    def __init__(self, order, rules, privileged=-1):
        Auction.__init__(self, order, rules)
        self.privileged = privileged   # Berliner: who may bid Pick-up; -1 = anybody
        self.holder = -1
        self.step = -1
        self.challenger = -1
        self.waiting = 0               # 0 next speaker, 1 holder answers, 2 challenger bids
        self.challenged = False        # did any other player make a positive bid?
        self.target = 61

    def turn(self):
        if self.done:
            return -1
        if self.waiting == 1:
            return self.holder
        if self.waiting == 2:
            return self.challenger
        return self.order[self.pos]

    def _next_step(self, seat):
        """The step ``seat`` may bid next: above the holder's, else his lowest
        opening step (Berliner: only the privileged seat may open at 0)."""
        if self.holder >= 0:
            return self.step + 1
        return 1 if self.privileged >= 0 and seat != self.privileged else 0

    def legal(self):
        if self.done:
            return ()
        if self.waiting == 1:
            return VORN_OR_PASS
        nxt = self._next_step(self.challenger if self.waiting == 2 else self.order[self.pos])
        if nxt <= _MAX_STEP:
            return LADDER_LEGAL[nxt]
        return (PASS,)

    def call(self, seat, word, row, value):
        """``Auction.call``; ``value`` is the target of a ``mehr`` bid (or -1).
        The turn and the step are worked out here, not by calls: the ladder is
        the auction of every Haferltarock deal."""
        if self.done:
            return E.WRONG_PHASE
        waiting = self.waiting
        if waiting == 1:                  # the holder answers a challenge
            if seat != self.holder:
                return E.NOT_YOUR_TURN
            if word == "vorn":
                self.waiting = 2
            elif word == "pass":
                self.holder = self.challenger
                self._duel_over()
            else:
                return E.ILLEGAL_CALL
            return E.OK
        if seat != (self.challenger if waiting == 2 else self.order[self.pos]):
            return E.NOT_YOUR_TURN
        if word == "pass":
            if waiting == 2:
                self._duel_over()
            else:
                self._advance()
            return E.OK
        nxt = self._next_step(seat)
        if nxt > _MAX_STEP or word != LADDER_BIDS[nxt][0]:
            return E.ILLEGAL_CALL
        if nxt >= 2 and value >= 0 and value != LADDER_BIDS[nxt][3]:     # its target
            return E.ILLEGAL_CALL
        self.step = nxt
        if self.holder < 0:
            self.holder = seat
            self._advance()
        else:
            self.challenger = seat
            self.challenged = True
            self.waiting = 1
        return E.OK

    def _duel_over(self):
        self.challenger = -1
        self.waiting = 0
        self._advance()

    def _advance(self):
        self.pos += 1
        if self.pos >= len(self.order):
            self.done = True
            self.declarer = self.holder
            if self.holder >= 0:
                self.contract = self.contracts[0 if self.step == 0 else 1]
                self.target = ladder_target(self.step)

    def raise_to(self, value):
        """Self-raise (D28) to a higher step, named by its target (from Pick-up,
        61 names Hand 61); an error code."""
        for step in range(self.step + 1, _MAX_STEP + 1):
            if ladder_target(step) == value:
                self.step = step
                self.contract = self.contracts[1]
                self.target = value
                return E.OK
        return E.ILLEGAL_CALL


class Scharf(Auction):
    """Protocol E: ``spiele``, then Hearts priority (docs/rules 1.8 E, D30)."""

    def __init__(self, order, rules):
        Auction.__init__(self, order, rules)
        self.bidders = []
        self.round = 1

    def turn(self):
        if self.done:
            return -1
        return self.order[self.pos] if self.round == 1 else self.bidders[self.pos]

    def legal(self):
        if self.done:
            return ()
        if self.round == 1:
            return SPIELE_OR_PASS
        return HERZ_OR_NOT

    def _row(self, cid):
        for row in self.contracts:
            if row[0] == cid:
                return row
        return None

    def _call(self, seat, word, row, trump):
        if self.round == 1:
            if word == "spiele":
                self.bidders.append(seat)
            elif word != "pass":
                return E.ILLEGAL_CALL
            self.pos += 1
            if self.pos == len(self.order):
                self._round_one_over()
            return E.OK
        if word == "herz":
            self.declarer = seat
            self.contract = self._row("heart_solo")
            self.done = True
        elif word == "nicht_herz":
            self.pos += 1
            if self.pos == len(self.bidders):
                self.declarer = self.bidders[0]
                self.contract = self._row("solo")
                self.done = True
        else:
            return E.ILLEGAL_CALL
        return E.OK

    def _round_one_over(self):
        self.pos = 0
        self.round = 2
        if len(self.bidders) <= 1:
            self.done = True
            self.declarer = self.bidders[0] if self.bidders else -1

    def declarable(self):
        """The sole bidder chooses Solo, Heart Solo or Frage."""
        return list(self.contracts)


class AskInTurn(Auction):
    """Protocol F: the first to say ``spiele`` is soloist (docs/rules 1.8 F, D34)."""

    def legal(self):
        return () if self.done else SPIELE_OR_PASS

    def _call(self, seat, word, row, trump):
        if word == "spiele":
            self.declarer = seat
            self.contract = self.contracts[0]
            self.done = True
        elif word == "pass":
            self.pos += 1
            self.done = self.pos == len(self.order)
        else:
            return E.ILLEGAL_CALL
        return E.OK

    def never_asked(self):
        """Seats after the soloist in asking order: Muhr's contra right (2.11)."""
        return self.order[self.pos + 1:] if self.declarer >= 0 else []


class SuitBids(Auction):
    """Protocol G: ascending suit bids round the table (docs/rules 1.8 G, D40)."""

    def __init__(self, order, rules):
        Auction.__init__(self, order, rules)
        self.out = []

    def legal(self):
        if self.done:
            return ()
        return (PASS,) + self._outranking()

    def _call(self, seat, word, row, trump):
        if word == "pass":
            self.out.append(seat)
        elif word == "bid":
            if row is None or (self.contract and row[C_RANK] <= self.contract[C_RANK]):
                return E.ILLEGAL_CONTRACT
            self.contract = row
            self.declarer = seat
        else:
            return E.ILLEGAL_CALL
        n = len(self.order)
        if len(self.out) == n or (self.declarer >= 0 and len(self.out) == n - 1):
            self.done = True
            return E.OK
        self.pos = (self.pos + 1) % n
        while self.order[self.pos] in self.out or self.order[self.pos] == self.declarer:
            self.pos = (self.pos + 1) % n
        return E.OK

PROTOCOLS = {"A": NamedBids, "B": Levels, "C": TwoRounds, "D": Ladder, "E": Scharf,
             "F": AskInTurn, "G": SuitBids}
