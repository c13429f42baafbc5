"""End of deal and settlement (docs/rules 2.x "End of deal & settlement", 3.4).

``settle`` turns a finished Deal into the docs/record-format.md ``result`` fields plus the
per-seat payments and the pot/bank change; amounts are integers throughout
(money in the session's unit, rational rates as numerator/denominator).
"""
from .announce import multiplier
from .cards import suit_letter
from .revokes import RULE_NAMES
from .variants import (
    C_GOAL,
    C_ID,
    C_TALON,
    C_VALUE,
    GOAL_LAST_TRICK,
    GOAL_NO_TRICK,
    GOAL_POINTS,
    GOAL_RAMSCH,
    NO_CONTRACT,
    TALON_DECLARER,
    TALON_EXCHANGE,
)


def ceil_div(a, b):
    return -((-a) // b)


def round_money(kind, a, b):
    """docs/rules 1.7 rounding of the rational a/b >= 0: up5, nearest5 or cent."""
    if kind == "up5":
        return 5 * ceil_div(a, 5 * b)
    if kind == "nearest5":
        return 5 * ((2 * a + 5 * b) // (10 * b))
    return ceil_div(a, b)


class Ledger:
    """Payments per seat and the pot/bank, with the shortfall rule (docs/rules 1.7)."""

    __slots__ = ("rules", "pay", "pot", "content", "over")

    def __init__(self, rules, pot_before):
        self.rules = rules
        self.pay = [0] * rules.players
        self.pot = 0
        self.content = pot_before
        self.over = False

    def move(self, payer, payee, amount):
        self.pay[payer] -= amount
        self.pay[payee] += amount

    def to_pot(self, payer, amount):
        self.pay[payer] -= amount
        self.pot += amount
        self.content += amount

    def from_pot(self, payee, amount):
        """The pot pays; under ``cap_end`` only what it holds (D21)."""
        if amount > self.content:
            ante = self.rules.ante
            if self.rules.refill and ante > 0:
                while amount > self.content:
                    for s in range(self.rules.players):
                        self.to_pot(s, ante)
            else:
                amount = self.content
                self.over = True
        self.pay[payee] += amount
        self.pot -= amount
        self.content -= amount


class Outcome:
    """Who won, on which card points, after any revoke penalty (docs/rules 3.4)."""

    __slots__ = ("defenders", "d", "e", "dt", "et", "all_tricks", "tout", "trick_goal",
                 "target", "draw", "settled", "penalty", "won")

    def __init__(self, rules, deal):
        decl = deal.declarer
        row = deal.contract
        defenders = []
        e = 0
        et = 0
        for s in deal.active:
            if s != decl:
                defenders.append(s)
                e += deal.seat_points[s]
                et += deal.seat_tricks[s]
        self.defenders = defenders
        self.d = 120 - e
        self.e = e
        self.dt = deal.seat_tricks[decl]
        self.et = et
        self.all_tricks = not deal.early_end and self.dt == deal.ntricks
        made = deal.announced
        self.tout = "tout" in made or "du" in made
        goal = row[C_GOAL]
        self.trick_goal = goal != GOAL_POINTS or self.tout
        self.target = deal.target
        if "66" in made:
            self.target = 66
        self.draw = rules.draw
        self.settled = self.d
        self.penalty = None
        if goal == GOAL_NO_TRICK:
            self.won = self.dt == 0
        elif self.trick_goal:
            self.won = self.all_tricks
        else:
            self.won = self._point_win(self.d)
        if deal.rev_count and rules.revoke_forfeit:     # a revoke proven (open mode)
            self._penalise(deal, deal.deciding_revoke(), decl)

    def _point_win(self, d):
        if self.draw and d == 60:
            return None
        return d >= self.target

    def _penalise(self, deal, r, decl):
        offender = deal.rev_seat[r]
        self.penalty = _penalty(deal, r)
        by_declarer = offender == decl
        if self.trick_goal:
            self.won = not by_declarer
            return
        d = self.d
        if by_declarer and self.won is not False:
            d = 59 if self.draw else self.target - 1
        elif not by_declarer and self.won is not True:
            d = self.target
        self.settled = d
        self.won = self._point_win(d)


def _penalty(deal, r):
    """The ``penalty`` result field for proven revoke ``r`` (docs/record-format.md convention 9)."""
    return {"seat": deal.rev_seat[r], "trick": deal.rev_key[r] >> 3,
            "rule": RULE_NAMES[deal.rev_rule[r]]}


def settle(rules, deal, pot_before):
    """Return (result dict, payments list, pot change, session over)."""
    led = Ledger(rules, pot_before)
    if rules.settle_kind == "excess" and rules.options["pot"]:
        led.to_pot(deal.dealer, rules.options["pot_ante"])  # docs/rules 2.1, D06: every deal
    row = deal.contract
    if row is NO_CONTRACT:
        result = {"schneider": False, "schwarz": False, "multiplier": 1, "declarer": None,
                  "contract": None, "trump": None, "target": None, "points": None,
                  "tricks": None, "won": None}
    elif row[C_GOAL] == GOAL_RAMSCH or row[C_GOAL] == GOAL_LAST_TRICK:
        result = {"schneider": False, "schwarz": False, "multiplier": 1}
        _everyone_for_himself(rules, deal, result, led)
    else:
        o = Outcome(rules, deal)
        c = multiplier(deal.announced)
        result = {
            "schneider": False,
            "schwarz": not deal.early_end and (o.dt == deal.ntricks or o.et == deal.ntricks),
            "multiplier": c, "declarer": deal.declarer, "contract": row[C_ID],
            "trump": suit_letter(deal.trump), "target": None if o.trick_goal else o.target,
            "points": [o.d, o.e], "tricks": [o.dt, o.et], "won": o.won}
        if o.penalty is not None:
            result["penalty"] = o.penalty
            if not o.trick_goal:
                result["settled_points"] = [o.settled, 120 - o.settled]
        SETTLERS[rules.settle_kind](rules, deal, row, o, c, led, result)
    over = led.over
    if rules.ante > 0 and led.content == 0 and not rules.refill:
        over = True   # D21: the bank or Haferl is empty
    result["payments"] = led.pay
    result["pot"] = led.pot
    return result, led.pay, led.pot, over


def _each(o, decl, led, value):
    """Won: each defender pays ``value``; lost: the declarer pays each defender."""
    if o.won is None:
        return
    for s in o.defenders:
        if o.won:
            led.move(s, decl, value)
        else:
            led.move(decl, s, value)


def _excess(rules, deal, row, o, c, led, result):
    """wuerttemberg (2.1) and tapp_classic (2.2): value of the excess over 60."""
    num, den = row[C_VALUE]
    opts = rules.options
    decl = deal.declarer
    if o.tout:
        value = opts["tout_factor"] * ceil_div(60 * num, den)  # D05
    else:
        value = ceil_div(abs(o.settled - 60) * num, den)
    _each(o, decl, led, value)
    if not opts["pot"] or o.won is None:
        return
    talon = row[C_TALON]
    if talon == TALON_EXCHANGE and not o.won:
        led.to_pot(decl, value)          # a lost Frage also pays the pot
    elif talon == TALON_DECLARER:
        if o.won:
            led.from_pot(decl, led.content)   # Solo won takes the pot
        else:
            led.to_pot(decl, led.content)     # Solo lost doubles it


def _fixed(rules, deal, row, o, c, led, result):
    """tapp_modern (2.3): a fixed value per defender; 60-60 loses."""
    _each(o, deal.declarer, led, row[C_VALUE])


def _tarock(rules, deal, row, o, c, led, result):
    """tarock_simple (2.4) and tarock_bettel (2.5), per point or fixed; x c (2.9)."""
    opts = rules.options
    decl = deal.declarer
    kind = row[C_VALUE]
    durch = o.all_tricks and kind != "bettel"
    schneider = o.settled >= 91 if o.won else o.settled <= 30
    if kind != "bettel":
        result["schneider"] = bool(o.won is not None and schneider)
    if o.won is None:
        return          # 60-60: a draw, nothing moves, the bank untouched
    if opts["payment"] == "fixed":
        if kind == "bettel":
            value = 4 * opts["bettel_base"]
        else:
            simple, high = opts["fixed_frage" if kind == "frage" else "fixed_" + row[C_ID]]
            value = high if (schneider or (o.won and durch)) else simple
            if o.won and durch:
                value += opts["durch_bonus"]
        _each(o, decl, led, value * c)
        return
    rnd = opts["rounding"]
    if kind == "bettel":
        a, b = 4 * opts["bettel_base"], 1
    else:
        num, den = opts["rate_frage"] if kind == "frage" else opts["rate_solo"]
        a, b = abs(o.settled - 60) * num, den
    if o.won:
        if durch:
            a *= 2      # D19: a Durch doubles
        led.from_pot(decl, round_money(rnd, a, b) * c)
        return
    p = round_money(rnd, a, b)
    h = round_money(rnd, p, 2)   # D18: each defender R(P/2), the bank tops up
    led.to_pot(decl, p * c)
    for s in o.defenders:
        led.from_pot(s, h * c)


def _haferl(rules, deal, row, o, c, led, result):
    """haferltarock (2.6, D25-D27): W/L units, the Haferl pays Pick-up wins."""
    decl = deal.declarer
    d = o.settled
    base = 61 if rules.options["raise_payment"] == "base61" else o.target
    w = max(5, d - 60)
    loss = max(5, base - d)
    if row[C_VALUE] == "hand":   # the tariff class: a Hand game pays double
        _each(o, decl, led, 2 * (w if o.won else loss) * c)
    elif o.won:
        led.from_pot(decl, w * c)
    else:
        nxt = deal.next_seat[decl]
        led.move(decl, nxt, loss * c)
        for s in o.defenders:
            if s != nxt:
                led.from_pot(s, loss * c)


def _scharf(rules, deal, row, o, c, led, result):
    """scharfer_tarock (2.8, D32): 10 c plus Schneider and Schwarz supplements."""
    d = o.settled
    if o.won:
        s = 10 + 10 * (d >= 91) + 10 * o.all_tricks
        result["schneider"] = d >= 91
        if row[C_VALUE] == "frage":   # the tariff class: a Frage pays half
            s //= 2
    else:
        s = 10 + 10 * (d <= 30) + 10 * (o.et == deal.ntricks and o.e == 120)
        result["schneider"] = d <= 30
    _each(o, deal.declarer, led, s * c)


def _herzblatt(rules, deal, row, o, c, led, result):
    """herzblatt (2.10) and braun_solo (2.12): stakes, schneider at 33."""
    stake = rules.options["stake"]
    d = o.settled
    if o.won:
        schneider = 120 - d <= 33
        value = 3 * stake if schneider else stake
    else:
        schneider = d <= 33
        value = 4 * stake if schneider else rules.options["loss_multiplier"] * stake
    result["schneider"] = schneider
    _each(o, deal.declarer, led, value)


def _muhr(rules, deal, row, o, c, led, result):
    """herzblatt_muhr (2.11, D39): V = stake x a x k x c, won or lost alike."""
    opts = rules.options
    made = deal.announced
    a = 3 if "du" in made else 2 if "66" in made else 1
    d = o.settled
    limit = opts["schneider_limit"]
    if o.won:
        schneider = 120 - d <= limit and "du" not in made
    else:
        schneider = d <= limit
    result["schneider"] = schneider
    _each(o, deal.declarer, led, opts["stake"] * a * (2 if schneider else 1) * c)


def _everyone_for_himself(rules, deal, result, led):
    """tapp_modern Ramsch with Jungfer (2.3, D13; revoke: the offender pays, 3.4)
    and braun_solo's last-trick game (2.12, D40)."""
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
        # docs/rules 3.4: the offender pays, nobody else (in the last-trick game
        # too: 1 stake to every other player, 2.12)
        losers = [deal.rev_seat[r]]
        result["penalty"] = _penalty(deal, r)
        if deal.contract[C_GOAL] == GOAL_LAST_TRICK:
            base = rules.options["stake"]
    elif deal.contract[C_GOAL] == GOAL_LAST_TRICK:
        for s in active:
            if s != deal.last_winner:
                led.move(s, deal.last_winner, rules.options["stake"])
    else:
        top = max(pts[s] for s in active)
        losers = [s for s in active if pts[s] == top]
        if len(losers) == len(active):
            losers = []
        elif len(losers) > 1 and rules.options["ramsch_tie"] == "none_pay":
            losers = []
    last_trick_game = deal.contract[C_GOAL] == GOAL_LAST_TRICK
    for lo in losers:
        for s in active:
            if s not in losers:
                jungfer = deal.seat_tricks[s] == 0 and not last_trick_game   # D13
                led.move(lo, s, base * 2 if jungfer else base)
    result["declarer"] = None
    result["contract"] = deal.contract[C_ID]
    result["trump"] = None
    result["target"] = None
    result["points"] = pts
    result["tricks"] = list(deal.seat_tricks)
    result["won"] = None


SETTLERS = {"excess": _excess, "fixed": _fixed, "tarock": _tarock, "haferl": _haferl,
            "scharf": _scharf, "herzblatt": _herzblatt, "muhr": _muhr}
