"""Announcements and doublings before the first lead (docs/rules 2.1, 2.9, 2.11).

``check`` answers whether ``seat`` may announce ``what`` now (an error code);
``multiplier`` is the doubling factor c = 2^k of the calls made.
"""
from . import errors as E

DOUBLING_CALLS = ("kontra", "re", "supp", "resupp", "hirsch")


def check(rules, deal, seat, what):
    if what not in rules.announcements or not deal.can_announce() or deal.declarer < 0:
        return E.ILLEGAL_ANNOUNCE
    made = deal.announced
    decl = deal.declarer
    if what in made:
        return E.ILLEGAL_ANNOUNCE
    if what in DOUBLING_CALLS:
        k = DOUBLING_CALLS.index(what)
        for i in range(len(DOUBLING_CALLS)):
            if (DOUBLING_CALLS[i] in made) != (i < k):
                return E.ILLEGAL_ANNOUNCE   # the chain goes kontra, re, supp, ...
        if k % 2 == 1:
            return E.OK if seat == decl else E.ILLEGAL_ANNOUNCE
        if seat == decl or seat not in deal.active:
            return E.ILLEGAL_ANNOUNCE
        if rules.double_needs_unasked and seat not in deal.auction.never_asked():
            return E.ILLEGAL_ANNOUNCE       # 2.11: only defenders never asked
        return E.OK
    if seat != decl:
        return E.ILLEGAL_ANNOUNCE
    if what in ("66", "du"):
        # 2.11, D39: one of them, before any contra
        if "66" in made or "du" in made or "kontra" in made:
            return E.ILLEGAL_ANNOUNCE
    return E.OK


def multiplier(announced):
    c = 1
    for what in announced:
        if what in DOUBLING_CALLS:
            c *= 2
    return c
