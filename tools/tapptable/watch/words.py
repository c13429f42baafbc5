"""The page's words for what the table shows: names, calls and the settlement.

The console speaks in ids (``heart_rufer``, ``tapp_modern``) and gives the
engine's result dict, whose card points count the cards never played for the
declarer after a trick-goal contract ended early (docs/rules D15).  The
page says it as the table does: the contract and the calls by the names the
display uses (``table.names``, in the table's language), the variant by its
name, and a settled deal in the words of the terminal's and the browser
table's result line (``tools/tapptable/outcome.py``: what decided it, the
tricks, the points *as played*), with every seat's payment and balance as
the display's second settlement page shows them.

The console's ``status`` says the table's language; between two of them
the display's rows do: ``language(rows)`` reads it from them (the texts
only one language has); rows that say neither keep the language seen
before (German, the table's default, until then).
"""
from table import names
from table.names import call_label, contract_name
from table.texts import KEYS, text
from tapp.session import Session
from tapp.variants import HeaderError
from tools.tapptable.outcome import words

LANGS = ("de", "en")


def _fragments():
    """Per language: the fixed parts (4 characters and more) of the texts only it has."""
    parts = {lang: set() for lang in LANGS}
    for key in KEYS.split():
        for lang in LANGS:
            for p in text(key, lang).split("%s"):
                p = p.strip()
                if len(p) >= 4:
                    parts[lang].add(p)
    return {lang: frozenset(parts[lang] - parts[other])
            for lang, other in zip(LANGS, reversed(LANGS), strict=True)}


FRAGMENTS = _fragments()


def language(rows, before="de"):
    """The table's language as its display rows say it (``before`` if they
    say neither more than the other)."""
    score = {}
    for lang in LANGS:
        score[lang] = sum(1 for row in rows for p in FRAGMENTS[lang] if p in row)
    if score["de"] == score["en"]:
        return before
    return "de" if score["de"] > score["en"] else "en"


def variant_name(vid, lang="de"):
    return names.variant_name(vid, lang) if isinstance(vid, str) else None


def contract(cid, lang):
    return contract_name(cid, lang) if isinstance(cid, str) else None


def call(c, lang):
    """An auction call as the display's menu names it ("Herz-Rufer", "weg")."""
    ev = {k: c[k] for k in ("call", "contract", "trump", "value") if c.get(k) is not None}
    if not ev.get("call"):
        ev["what"] = c.get("what")
    try:
        return call_label(ev, lang) or str(c.get("call") or c.get("what") or "")
    except (KeyError, ValueError, TypeError):
        return str(c.get("call") or c.get("what") or "")


_HAND_SIZES = {}


def hand_size(session):
    """Tricks in a deal of the session (variant, players; 0 unknown)."""
    key = (session.get("variant"), session.get("players"))
    if key not in _HAND_SIZES:
        try:
            _HAND_SIZES[key] = Session({"record": 1, "variant": key[0], "players": key[1],
                                        "first_dealer": 0}).view.hand_size()
        except (HeaderError, ValueError, TypeError, KeyError):
            return 0
    return _HAND_SIZES[key]


def played(result, view):
    """[declarer, defenders] card points as played, read from the console's
    ``view`` while it still holds the settled deal (``outcome.played_points``);
    None when it is not known (the next deal under way)."""
    points = result.get("points")
    decl = result.get("declarer")
    if not isinstance(decl, int) or not isinstance(points, list) or len(points) != 2:
        return None
    vp = view.get("points")
    held = view.get("phase") in ("deal", "over") and view.get("deals") == result.get("deal")
    if not held or not isinstance(vp, list) or not 0 <= decl < len(vp):
        return None
    return [vp[decl], points[1]]


def settlement(row, seats, lang, tricks_in_deal):
    """A settled deal as the table says it: ``text`` (the result line's words),
    every seat's ``payments`` and ``balances``, ``pot`` (the display's pages)."""
    cid = row.get("contract")
    result = {k: row.get(k) for k in ("contract", "declarer", "won", "points", "tricks",
                                      "target", "settled_points", "penalty")}
    try:
        said = words(result, list(seats), contract(cid, lang) or "", row.get("played"),
                     tricks_in_deal)
    except (TypeError, ValueError, KeyError, IndexError):
        said = str(contract(cid, lang) or "thrown in")
    return {"deal": row.get("deal"), "text": said, "contract": contract(cid, lang),
            "payments": row.get("payments") or [], "balances": row.get("balances") or [],
            "pot": row.get("pot_total")}
