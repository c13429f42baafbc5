"""A settled deal in words, for the terminal and the browser.

The engine's ``result`` (docs/record-format.md, "Outcomes") gives the card
points as ``[120 - e, e]``: after a trick-goal contract ended early (docs/rules
D15: a Rufer or Durch broken at the trick the declarer lost, a Bettel at the
trick he took) the cards never played count for the declarer there.  People
want the points as they were played and what decided the deal, as the
display's settlement says it (table/pages/result.py):

    Herz-Rufer by Cora, lost in trick 1 (tricks 0:1, points 0:11)
    Rufer by Cora, won: Bert's revoke in trick 1, follow suit (tricks 1:1, points 21:7)
    Solo by Bert, won (points 73:47)

``words(result, names, contract, played, tricks_in_deal)``: ``names`` the
seats' names, ``contract`` the contract's name in the table's language,
``played`` the points as played (``played_points``; None: not known any more,
then an early-ended deal names only its tricks).
"""

# the duty a revoke broke (docs/rules 3.3), in the terminal's and page's words
DUTIES = {"must_follow": "follow suit", "must_trump": "trump", "must_overtrump": "overtrump",
          "rufer_card": "the called card"}


def broken_in(result, tricks_in_deal):
    """The trick a trick-goal contract ended in before the deal's last one
    (docs/rules D15), 0 when it was played out or is decided by points."""
    if result.get("target") is not None or result.get("declarer") is None \
            or not result.get("tricks"):
        return 0
    n = sum(result["tricks"])
    return n if n < tricks_in_deal else 0


def played_points(result, view):
    """[declarer, defenders] card points as played: after an early end only
    the tricks taken, read from the engine's ``view`` while it still holds
    the settled deal (None once the next deal is under way); else the
    result's points (the declarer's discards counted for him)."""
    points = result.get("points")
    decl = result.get("declarer")
    if points is None or decl is None or len(points) != 2:
        return points
    if broken_in(result, view.hand_size()):
        return None if view.in_deal() else [view.points(decl), points[1]]
    return list(points)


def _pair(xs):
    return ":".join(str(x) for x in xs)


def words(result, names, contract, played=None, tricks_in_deal=0):
    """The deal in one line (see the module's docstring)."""
    if result is None:
        return ""
    if result.get("contract") is None:
        return "thrown in"
    decl = result.get("declarer")
    points = result.get("points")
    if decl is None:                          # Ramsch, the last trick: each for himself
        return "%s (points %s)" % (contract, _pair(points or []))
    who = names[decl] if 0 <= decl < len(names) else "seat %d" % decl
    state = {True: "won", False: "lost", None: "a draw"}[result.get("won")]
    text = "%s by %s, %s" % (contract, who, state)
    pen = result.get("penalty")
    broken = broken_in(result, tricks_in_deal)
    if pen is not None:
        seat = pen.get("seat")
        offender = names[seat] if isinstance(seat, int) and 0 <= seat < len(names) else "?"
        text += ": %s's revoke in trick %s, %s" % (offender, pen.get("trick"),
                                                   DUTIES.get(pen.get("rule"), pen.get("rule")))
    elif broken:
        text += " in trick %d" % broken
    if broken:
        points = played                       # the cards never played count for nobody
    figures = []
    if result.get("target") is None and result.get("tricks"):
        figures.append("tricks %s" % _pair(result["tricks"]))
    if points:
        figures.append("points %s" % _pair(points))
    if result.get("settled_points"):
        figures.append("settled %s" % _pair(result["settled_points"]))
    return text + (" (%s)" % ", ".join(figures) if figures else "")


def view_words(view, lang, contract_name):
    """The last settled deal of the engine's ``view`` in words ("" none);
    ``contract_name(cid, lang)`` names its contract."""
    result = view.last_result()
    if result is None:
        return ""
    cid = result.get("contract")
    return words(result, list(view.seat_names()), contract_name(cid, lang) if cid else "",
                 played_points(result, view), view.hand_size())
