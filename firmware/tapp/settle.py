"""End of deal and settlement (RULES.md 2.x "End of deal & settlement", 3.4).

``settle`` turns a finished Deal into the RECORD.md ``result`` fields plus the
per-seat payments and the pot change; amounts are integers throughout (money
in the session's unit, rational rates as numerator/denominator).
"""
from .deal import RULE_NAMES
from .variants import (
    C_GOAL,
    C_ID,
    C_TALON,
    C_VALUE,
    GOAL_NO_TRICK,
    GOAL_POINTS,
    GOAL_RAMSCH,
    NO_CONTRACT,
    TALON_DECLARER,
    TALON_EXCHANGE,
)

TARGET = 61


def ceil_div(a, b):
    return -((-a) // b)


def _suit(trump):
    return "CSHD"[trump] if trump >= 0 else None


class Outcome:
    """Who won, on which card points, after any revoke penalty (RULES.md 3.4)."""

    def __init__(self, rules, deal):
        decl = deal.declarer
        row = deal.contract
        self.defenders = [s for s in deal.active if s != decl]
        e = 0
        et = 0
        for s in self.defenders:
            e += deal.seat_points[s]
            et += deal.seat_tricks[s]
        self.d = 120 - e
        self.e = e
        self.dt = deal.seat_tricks[decl]
        self.et = et
        self.tout = rules.all_tricks_announced(deal.announced)
        goal = row[C_GOAL]
        self.trick_goal = goal != GOAL_POINTS or self.tout
        self.target = None if self.trick_goal else TARGET
        self.draw = rules.draw
        self.settled = self.d
        self.penalty = None
        if goal == GOAL_NO_TRICK:
            self.won = self.dt == 0
        elif self.trick_goal:
            self.won = not deal.early_end and self.dt == deal.ntricks
        else:
            self.won = self._point_win(self.d)
        r = deal.deciding_revoke()
        if r >= 0 and rules.revoke_forfeit:
            self._penalise(deal, r, decl)

    def _point_win(self, d):
        if self.draw and d == 60:
            return None
        return d >= TARGET

    def _penalise(self, deal, r, decl):
        offender = deal.rev_seat[r]
        self.penalty = {"seat": offender, "trick": deal.rev_key[r] >> 3,
                        "rule": RULE_NAMES[deal.rev_rule[r]]}
        by_declarer = offender == decl
        if self.trick_goal:
            self.won = not by_declarer
            return
        d = self.d
        if by_declarer and self.won is not False:
            d = 59 if self.draw else TARGET - 1
        elif not by_declarer and self.won is not True:
            d = TARGET
        self.settled = d
        self.won = self._point_win(d)


def _thrown_in(result):
    for k in ("declarer", "contract", "trump", "target", "points", "tricks", "won"):
        result[k] = None


def settle(rules, deal, pot_before):
    """Return (result dict, payments list, pot change)."""
    n = rules.players
    pay = [0] * n
    pot = 0
    result = {"schneider": False, "schwarz": False, "multiplier": 1}
    if rules.settle_kind == "excess" and rules.options["pot"]:
        ante = rules.options["pot_ante"]  # RULES.md 2.1, D06: every deal
        pay[deal.dealer] -= ante
        pot += ante
    row = deal.contract
    if row is NO_CONTRACT:
        _thrown_in(result)
    elif row[C_GOAL] == GOAL_RAMSCH:
        _ramsch(rules, deal, result, pay)
    else:
        o = Outcome(rules, deal)
        decl = deal.declarer
        result["declarer"] = decl
        result["contract"] = row[C_ID]
        result["trump"] = _suit(deal.trump)
        result["target"] = o.target
        result["points"] = [o.d, o.e]
        result["tricks"] = [o.dt, o.et]
        result["won"] = o.won
        result["schwarz"] = not deal.early_end and (o.dt == deal.ntricks or o.et == deal.ntricks)
        if o.penalty is not None:
            result["penalty"] = o.penalty
            if not o.trick_goal:
                result["settled_points"] = [o.settled, 120 - o.settled]
        if rules.settle_kind == "excess":
            pot += _excess(rules, row, o, decl, pay, pot_before + pot)
        else:
            _fixed(row, o, decl, pay)
    result["payments"] = pay
    result["pot"] = pot
    return result, pay, pot


def _transfer(o, decl, pay, value):
    """Won: each defender pays ``value``; lost: the declarer pays each defender."""
    if o.won is None:
        return
    sign = 1 if o.won else -1
    for s in o.defenders:
        pay[s] -= sign * value
        pay[decl] += sign * value


def _excess(rules, row, o, decl, pay, pot_content):
    """wuerttemberg (2.1) and tapp_classic (2.2): value of the excess over 60."""
    num, den = row[C_VALUE]
    opts = rules.options
    if o.tout:
        value = opts["tout_factor"] * ceil_div(60 * num, den)  # D05
    else:
        value = ceil_div(abs(o.settled - 60) * num, den)
    _transfer(o, decl, pay, value)
    if not opts["pot"] or o.won is None:
        return 0
    talon = row[C_TALON]
    if talon == TALON_EXCHANGE and not o.won:
        pay[decl] -= value       # a lost Frage also pays the pot
        return value
    if talon == TALON_DECLARER:
        if o.won:
            pay[decl] += pot_content  # Solo won takes the pot
            return -pot_content
        pay[decl] -= pot_content      # Solo lost doubles it
        return pot_content
    return 0


def _fixed(row, o, decl, pay):
    """tapp_modern (2.3): a fixed value per defender."""
    if o.won is None:
        o.won = False  # no draw in modern Tapp: 60-60 loses
    _transfer(o, decl, pay, row[C_VALUE])


def _ramsch(rules, deal, result, pay):
    """tapp_modern Ramsch with Jungfer (2.3, D13); revoke: offender pays (3.4)."""
    active = deal.active
    pts = list(deal.seat_points)
    taken = 0
    for s in active:
        taken += pts[s]
    pts[deal.last_winner] += 120 - taken  # the tapp goes with the last trick
    base = deal.contract[C_VALUE]
    r = deal.deciding_revoke()
    losers = []
    if r >= 0 and rules.revoke_forfeit:
        losers = [deal.rev_seat[r]]
        result["penalty"] = {"seat": deal.rev_seat[r], "trick": deal.rev_key[r] >> 3,
                             "rule": RULE_NAMES[deal.rev_rule[r]]}
    else:
        top = max(pts[s] for s in active)
        losers = [s for s in active if pts[s] == top]
        if len(losers) == len(active):
            losers = []
        elif len(losers) > 1 and rules.options["ramsch_tie"] == "none_pay":
            losers = []
    for lo in losers:
        for s in active:
            if s not in losers:
                amount = base * 2 if deal.seat_tricks[s] == 0 else base
                pay[lo] -= amount
                pay[s] += amount
    result["declarer"] = None
    result["contract"] = deal.contract[C_ID]
    result["trump"] = None
    result["target"] = None
    result["points"] = pts
    result["tricks"] = list(deal.seat_tricks)
    result["won"] = None

