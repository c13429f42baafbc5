"""One table as the people round it see it: what the page may show.

``TablePicture`` is filled from the console's open answers (``status``,
``view`` without details, ``score``) and its live events, and hands out
``snapshot()``: a dict built key by key from what is public -- the seats,
the cards lying face up on the readers, the trick, whose turn, the auction
as called, the display's rows and message, revokes, refusals, the last
settlement and the score sheet.  Nothing is copied wholesale from an answer,
so a hand or the talon cannot reach the page even when the console was given
the referee PIN (``check_public`` says so again before anything is sent).
"""
import re
import threading
import time

from . import words

HIDDEN_KEYS = frozenset(("hands", "hand", "talon", "legal_cards", "dealt", "discards",
                         "discard", "give", "menu", "menu_pos", "uid", "placed_uid", "record",
                         "cards_held"))
REFUSALS_KEPT = 6
CARD = re.compile(r"^[CSHD](A|10|K|Q|J|9|8|7|6)$")
VIEW_KEYS = ("phase", "expects", "turn", "dealer", "declarer", "contract", "trump", "target",
             "multiplier", "announcements", "trick_number", "last_trick", "points",
             "tricks_won", "balances", "pot", "deals", "session_over", "revokes")
TABLE_KEYS = ("mode", "clearing", "refused", "jammed", "message")


def check_public(obj, path="state"):
    """Raise ValueError if ``obj`` carries a key that names hidden cards."""
    if isinstance(obj, dict):
        for k, v in obj.items():
            if k in HIDDEN_KEYS:
                raise ValueError("%s.%s is not public" % (path, k))
            check_public(v, "%s.%s" % (path, k))
    elif isinstance(obj, list):
        for i, v in enumerate(obj):
            check_public(v, "%s[%d]" % (path, i))


def _pair(xs):
    """[declarer, defenders] points, or None."""
    ok = isinstance(xs, list) and len(xs) == 2 and all(
        isinstance(x, int) and not isinstance(x, bool) for x in xs)
    return list(xs) if ok else None


def _card(c):
    return c if isinstance(c, str) and CARD.match(c) else None


def _trick(pairs):
    out = []
    for p in pairs or []:
        if isinstance(p, (list, tuple)) and len(p) == 2 and isinstance(p[0], int):
            out.append([p[0], _card(p[1])])
    return out


def _call(ev):
    """An auction call or announcement as everyone heard it."""
    out = {"seat": ev.get("seat"), "what": ev.get("ev")}
    for k in ("call", "contract", "trump", "value", "what", "card"):
        v = ev.get(k)
        if isinstance(v, (str, int)) and not isinstance(v, bool):
            out["call" if k == "what" else k] = v
    return out


class TablePicture:
    """The public picture of one table; every method may be called from any thread."""

    def __init__(self, name, port):
        self.lock = threading.Lock()
        self.name = name
        self.port = port
        self.link = {"state": "waiting", "text": "connecting to %s" % port, "since": time.time()}
        self.stage = None
        self.session = {}
        self.view = {}
        self.table = {}
        self.screen = []
        self.trick = []
        self.on_reader = []
        self.auction = []
        self.refusals = []
        self.score = {"rows": [], "balances": [], "pot": 0, "session_over": False}
        self.last_result = None
        self.played = {}                 # deal -> [declarer, defenders] points as played
        self.lang = "de"                 # the display's language (words.language)
        self.version = 0
        self.updated = time.time()

    def _touch(self):
        self.version += 1
        self.updated = time.time()

    # ----- the link ---------------------------------------------------------------------

    def set_link(self, state, text):
        """``state``: connected, waiting (what for: ``text``), refused."""
        with self.lock:
            if self.link.get("state") != state or self.link.get("text") != text:
                self.link = {"state": state, "text": text, "since": time.time()}
                self._touch()

    # ----- answers ----------------------------------------------------------------------

    def set_status(self, a):
        with self.lock:
            self.stage = a.get("state") if isinstance(a.get("state"), str) else None
            self._screen(a.get("screen"))
            if a.get("language") in words.LANGS:     # the table says it (its rows may not)
                self.lang = a["language"]
            if self.stage == "play":
                self.session = {k: a.get(k) for k in ("variant", "players", "seats", "mode")}
                self.trick = _trick(a.get("trick"))
            else:
                self.view = {}
            self._touch()

    def set_view(self, a):
        with self.lock:
            self.stage = "play"
            self.session = {k: a.get(k) for k in ("variant", "players", "seats", "mode")}
            self.view = {k: a.get(k) for k in VIEW_KEYS}
            self.view["last_trick"] = self._last(a.get("last_trick"))
            self.view["revokes"] = [{k: r.get(k) for k in ("seat", "trick", "rule")}
                                    for r in a.get("revokes") or [] if isinstance(r, dict)]
            t = a.get("table") if isinstance(a.get("table"), dict) else {}
            self.table = {k: t.get(k) for k in TABLE_KEYS}
            # only while cards are played, and the seats' readers only: the
            # cards being dealt (over the centre or swept over a seat), the
            # discards, a card laid out of turn in the auction are hands
            seats = self.session.get("players") if self.view.get("expects") == "card" else 0
            seats = seats if isinstance(seats, int) and seats > 0 else 0
            self.on_reader = [_card(c) for c in (t.get("on_reader") or [])[:seats]]
            self.trick = _trick(a.get("trick"))
            self._screen(a.get("screen"))
            last = self.last_result
            if last is not None and last.get("deal") not in self.played:
                pts = words.played(last, a)
                if pts is not None and all(isinstance(x, int) for x in pts):
                    self.played[last.get("deal")] = pts
            self._touch()

    def _screen(self, rows):
        self.screen = [r for r in rows or [] if isinstance(r, str)][:8]
        self.lang = words.language(self.screen, self.lang)

    @staticmethod
    def _last(t):
        if not isinstance(t, dict):
            return None
        return {"n": t.get("n"), "leader": t.get("leader"), "winner": t.get("winner"),
                "points": t.get("points"), "cards": [_card(c) for c in t.get("cards") or []]}

    def set_score(self, a):
        """The score sheet (``score``'s parts and final line)."""
        rows = []
        for p in a.get("parts") or []:
            r = p.get("result") if isinstance(p.get("result"), dict) else {}
            rows.append(self._row(p.get("deal"), r))
        with self.lock:
            self.score = {"rows": rows, "balances": a.get("balances") or [],
                          "pot": a.get("pot") or 0, "session_over": bool(a.get("session_over"))}
            if rows:
                self.last_result = rows[-1]
            self._touch()

    @staticmethod
    def _row(deal, r):
        return {"deal": deal, "contract": r.get("contract"), "declarer": r.get("declarer"),
                "trump": r.get("trump"), "won": r.get("won"), "points": r.get("points"),
                "tricks": r.get("tricks"), "schneider": r.get("schneider"),
                "schwarz": r.get("schwarz"), "multiplier": r.get("multiplier"),
                "payments": r.get("payments"), "pot": r.get("pot"),
                "balances": r.get("balances"), "pot_total": r.get("pot_total"),
                "penalty": r.get("penalty"), "target": r.get("target"),
                "settled_points": r.get("settled_points"), "played": _pair(r.get("played"))}

    # ----- live events ------------------------------------------------------------------

    def event(self, ev):
        """One live event; True if the picture changed."""
        kind = ev.get("event")
        with self.lock:
            if kind == "session":
                self.session = {k: ev.get(k) for k in ("variant", "players", "seats", "mode")}
                self.auction = []
                self.trick = []
                self.refusals = []
                self.score = {"rows": [], "balances": [], "pot": 0, "session_over": False}
                self.last_result = None
                self.played = {}
            elif kind == "accepted":
                e = ev.get("ev") if isinstance(ev.get("ev"), dict) else {}
                name = e.get("ev")
                if name == "deal":
                    self.auction = []
                    self.trick = []
                    self.last_result = None
                    self.refusals = []
                elif name in ("bid", "announce", "rufer"):
                    self.auction.append(_call(e))
                elif name == "play" and _card(e.get("card")):
                    self.trick.append([e.get("seat"), e.get("card")])
                elif name == "undo" and self.auction and not self.trick:
                    self.auction.pop()
                else:
                    return False
            elif kind == "trick":
                self.view["last_trick"] = self._last(ev)
                self.trick = []
            elif kind == "refused":
                self.refusals.append({"seat": ev.get("seat"), "reader": ev.get("reader"),
                                      "card": _card(ev.get("card")),
                                      "reason": ev.get("reason"), "message": ev.get("message"),
                                      "at": time.time()})
                del self.refusals[:-REFUSALS_KEPT]
            elif kind == "result":
                r = ev.get("result") if isinstance(ev.get("result"), dict) else {}
                row = self._row(ev.get("deal"), r)
                rows = [x for x in self.score["rows"] if x.get("deal") != row["deal"]]
                self.score = {"rows": rows + [row], "balances": ev.get("balances") or [],
                              "pot": ev.get("pot") or 0,
                              "session_over": bool(ev.get("session_over"))}
                self.last_result = row
            elif kind == "mode":
                self.stage = ev.get("state")
            else:
                return False
            self._touch()
            return True

    # ----- the page's view --------------------------------------------------------------

    def snapshot(self):
        with self.lock:
            lang = self.lang
            session = dict(self.session, variant_name=words.variant_name(
                self.session.get("variant"), lang))
            view = dict(self.view)
            if view.get("phase") not in (None, "deal", "over"):     # the deal's, not the last
                view["contract_name"] = words.contract(view.get("contract"), lang)
            rows = [dict(r, played=self.played.get(r.get("deal"), r.get("played")))
                    for r in self.score["rows"]]
            seats = [n if isinstance(n, str) else "?" for n in session.get("seats") or []]
            tricks = words.hand_size(session)
            sheet = [words.settlement(r, seats, lang, tricks) for r in rows]
            last = self.last_result
            settled = sheet[-1] if last is not None and sheet else None   # until a deal starts
            out = {"name": self.name, "port": self.port, "link": dict(self.link),
                   "stage": self.stage, "session": session, "lang": lang,
                   "view": view, "table": dict(self.table),
                   "screen": list(self.screen), "trick": [list(p) for p in self.trick],
                   "on_reader": list(self.on_reader),
                   "auction": [dict(c, label=words.call(c, lang)) for c in self.auction],
                   "refusals": list(self.refusals),
                   "score": dict(self.score, rows=rows, said=sheet),
                   "last_result": last, "settlement": settled, "version": self.version,
                   "updated": self.updated}
        check_public(out)
        return out


def sanitize(snapshot):
    """A snapshot from elsewhere (another watcher over MQTT) rebuilt key by key:
    only what ``TablePicture.snapshot`` makes, the hidden keys never."""
    if not isinstance(snapshot, dict):
        raise ValueError("not an object")
    p = TablePicture(str(snapshot.get("name", "?"))[:64], str(snapshot.get("port", ""))[:200])
    link = snapshot.get("link") if isinstance(snapshot.get("link"), dict) else {}
    p.link = {"state": str(link.get("state", "waiting"))[:20],
              "text": str(link.get("text", ""))[:300], "since": link.get("since")}
    view = snapshot.get("view") if isinstance(snapshot.get("view"), dict) else {}
    table = snapshot.get("table") if isinstance(snapshot.get("table"), dict) else {}
    session = snapshot.get("session") if isinstance(snapshot.get("session"), dict) else {}
    p.set_view(dict({k: view.get(k) for k in VIEW_KEYS}, table=dict(
        {k: table.get(k) for k in TABLE_KEYS}, on_reader=snapshot.get("on_reader")),
        trick=snapshot.get("trick"), screen=snapshot.get("screen"), **{
            k: session.get(k) for k in ("variant", "players", "seats", "mode")}))
    p.stage = snapshot.get("stage") if isinstance(snapshot.get("stage"), str) else None
    if snapshot.get("lang") in words.LANGS:
        p.lang = words.language(p.screen, snapshot.get("lang"))
    if not view:
        p.view = {}
    p.auction = [_call(dict(c, ev=c.get("what"), what=None))
                 for c in snapshot.get("auction") or [] if isinstance(c, dict)]
    score = snapshot.get("score") if isinstance(snapshot.get("score"), dict) else {}
    p.set_score({"parts": [{"deal": r.get("deal"), "result": r} for r in score.get("rows") or []
                           if isinstance(r, dict)],
                 "balances": score.get("balances"), "pot": score.get("pot"),
                 "session_over": score.get("session_over")})
    if not isinstance(snapshot.get("last_result"), dict):
        p.last_result = None
    p.refusals = [{k: r.get(k) for k in ("seat", "reader", "card", "reason", "message", "at")}
                  for r in snapshot.get("refusals") or [] if isinstance(r, dict)][-REFUSALS_KEPT:]
    out = p.snapshot()
    out["updated"] = snapshot.get("updated")
    return out
