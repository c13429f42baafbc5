"""The club's score history in SQLite (stdlib ``sqlite3``): docs/watch.md.

Every settled session the watcher downloads (tools/tapptable/watch/fold.py
folds it and names it) goes in here once: a session is a row keyed by its id,
its deals rows keyed by (session, deal number), so the same session coming
again -- live deal by deal, after a restart, from a finished journal file or
from another watcher over MQTT -- only ever adds the deals not yet stored.
Players are rows of their own, matched by name (``player_key``), so a person
who sits at two tables over a season is one row.

The schema is versioned: ``schema_version`` holds the number of the last
migration applied; ``MIGRATIONS`` are applied in order, each in its own
transaction, when the file is opened.  A file written by a newer watcher is
refused, not guessed at.
"""
import csv
import io
import json
import re
import sqlite3
import threading
import time
import unicodedata

from . import words
from .fold import FoldError, fold

MIGRATIONS = (
    # 1: sessions, their seats and deals, players, the files already fetched
    """
    CREATE TABLE players (
        id INTEGER PRIMARY KEY,
        key TEXT NOT NULL UNIQUE,          -- the matched name (player_key)
        name TEXT NOT NULL                 -- as first written
    );
    CREATE TABLE sessions (
        id TEXT PRIMARY KEY,               -- fold.py: SHA-256 of the identifying prefix
        table_name TEXT NOT NULL,          -- the watcher's name of the table
        origin TEXT NOT NULL,              -- the watcher that downloaded it
        variant TEXT NOT NULL,
        players INTEGER NOT NULL,
        mode TEXT NOT NULL,
        header TEXT NOT NULL,              -- the record's header line (JSON)
        record TEXT,                       -- the settled lines (hands!): never served
        deals INTEGER NOT NULL,
        day TEXT NOT NULL,                 -- first seen, YYYY-MM-DD (the table has no clock)
        season TEXT NOT NULL,              -- the year of ``day``
        updated REAL NOT NULL              -- time.time() of the last change
    );
    CREATE TABLE seats (
        session_id TEXT NOT NULL REFERENCES sessions(id),
        seat INTEGER NOT NULL,
        player_id INTEGER NOT NULL REFERENCES players(id),
        name TEXT NOT NULL,
        PRIMARY KEY (session_id, seat)
    );
    CREATE TABLE deals (
        session_id TEXT NOT NULL REFERENCES sessions(id),
        deal INTEGER NOT NULL,             -- 1, 2, ...
        result TEXT NOT NULL,              -- the engine's result (docs/record-format.md)
        PRIMARY KEY (session_id, deal)
    );
    CREATE TABLE fetched (
        table_name TEXT NOT NULL,
        file TEXT NOT NULL,                -- a finished journal file (journal list)
        bytes INTEGER NOT NULL,
        PRIMARY KEY (table_name, file, bytes)
    );
    """,
    # 2: the season's leaderboard and the evening list read by these
    """
    CREATE INDEX sessions_season ON sessions(season, day);
    CREATE INDEX seats_player ON seats(player_id);
    """,
    # 3: the table's language, so the exports name contracts as its display did
    """
    ALTER TABLE sessions ADD COLUMN lang TEXT NOT NULL DEFAULT 'de';
    """,
)
SCHEMA_VERSION = len(MIGRATIONS)
GENERIC = re.compile(r"^(platz|seat|sitz|spieler|player)\s*\d+$")


class HistoryError(Exception):
    """The database cannot be used (one line for the user)."""


def player_key(name, table_name):
    """How names are matched (docs/watch.md): Unicode NFKC, case folded, runs of
    white space as one space.  A generic seat name ("Platz 2", "Seat 2") names
    nobody, so it stays a player of its table only."""
    key = " ".join(unicodedata.normalize("NFKC", name).casefold().split())
    if not key or GENERIC.match(key):
        return "%s@%s" % (key or "?", table_name)
    return key


def _today(seen):
    return time.strftime("%Y-%m-%d", time.localtime(seen))


class History:
    """The database file ``path`` (``:memory:`` for a test); thread-safe."""

    def __init__(self, path):
        self.path = path
        self.lock = threading.Lock()
        try:
            self.db = sqlite3.connect(path, check_same_thread=False, timeout=10)
            self.db.execute("PRAGMA foreign_keys = ON")
            if path != ":memory:":
                self.db.execute("PRAGMA journal_mode = WAL")
            self.migrate()
        except sqlite3.DatabaseError as exc:
            raise HistoryError("%s: not a usable SQLite database (%s)" % (path, exc)) \
                from None
        self.listeners = []

    # ----- schema -------------------------------------------------------------------

    def version(self):
        self.db.execute("CREATE TABLE IF NOT EXISTS schema_version (version INTEGER NOT NULL)")
        row = self.db.execute("SELECT max(version) FROM schema_version").fetchone()
        return row[0] or 0

    def migrate(self):
        """Apply the migrations this file has not had yet, each in one transaction."""
        with self.lock:
            have = self.version()
            if have > SCHEMA_VERSION:
                raise HistoryError(
                    "%s: written by a newer tapptable watch (schema %d, this one knows %d): "
                    "update tapptable, or give another --db" % (self.path, have, SCHEMA_VERSION))
            for number in range(have + 1, SCHEMA_VERSION + 1):
                script = MIGRATIONS[number - 1]
                self.db.execute("BEGIN")
                try:
                    for stmt in script.split(";"):
                        if stmt.strip():
                            self.db.execute(stmt)
                    self.db.execute("INSERT INTO schema_version VALUES (?)", (number,))
                    self.db.execute("COMMIT")
                except BaseException:
                    self.db.execute("ROLLBACK")
                    raise

    def close(self):
        with self.lock:
            self.db.close()

    def changed(self, sid, origin):
        """Tell the listeners (``fn(sid, origin)``) that a session took new deals."""
        for fn in list(self.listeners):
            fn(sid, origin)

    # ----- writing ------------------------------------------------------------------

    def add_record(self, lines, table_name, origin, seen=None, lang="de"):
        """A session's record (downloaded journal lines): its settled deals not yet
        stored go in.  Returns (session id or None, deals added).  A record that
        makes no session raises FoldError and changes nothing."""
        f = fold(lines)
        if f.sid is None:
            return None, 0
        return self.add_session(f.sid, f.header, f.deals, table_name, origin, seen,
                                "\n".join(f.settled_lines()), lang)

    def add_session(self, sid, header, deals, table_name, origin, seen=None, record=None,
                    lang="de"):
        """A session by its id: header, the results of its settled deals (in order).
        Only deals beyond those stored are added; a shorter copy changes nothing."""
        seen = time.time() if seen is None else seen
        names = header.get("seats") if isinstance(header.get("seats"), list) else []
        players = header.get("players")
        if not isinstance(players, int) or not 0 < players <= 8:
            raise FoldError("session %s: bad player count" % sid)
        names = [n if isinstance(n, str) and n.strip() else "Platz %d" % (i + 1)
                 for i, n in enumerate((names + [""] * players)[:players])]
        with self.lock, self.db:
            row = self.db.execute("SELECT deals FROM sessions WHERE id = ?", (sid,)).fetchone()
            have = row[0] if row else 0
            if row is not None and len(deals) <= have:
                return sid, 0
            if row is None:
                day = _today(seen)
                self.db.execute(
                    "INSERT INTO sessions (id, table_name, origin, variant, players, mode, "
                    "header, record, deals, day, season, updated, lang) "
                    "VALUES (?, ?, ?, ?, ?, ?, ?, ?, 0, ?, ?, ?, ?)",
                    (sid, table_name, origin, str(header.get("variant")), players,
                     str(header.get("mode", "strict")), json.dumps(header), record, day,
                     day[:4], seen, lang if lang in words.LANGS else "de"))
                for seat, name in enumerate(names):
                    pid = self._player(name, table_name)
                    self.db.execute("INSERT INTO seats VALUES (?, ?, ?, ?)",
                                    (sid, seat, pid, name))
            for k in range(have, len(deals)):
                self.db.execute("INSERT INTO deals VALUES (?, ?, ?)",
                                (sid, k + 1, json.dumps(deals[k])))
            self.db.execute("UPDATE sessions SET deals = ?, updated = ?, record = "
                            "coalesce(?, record) WHERE id = ?", (len(deals), seen, record, sid))
        self.changed(sid, origin)
        return sid, len(deals) - have

    def _player(self, name, table_name):
        key = player_key(name, table_name)
        self.db.execute("INSERT OR IGNORE INTO players (key, name) VALUES (?, ?)",
                        (key, " ".join(name.split())))
        return self.db.execute("SELECT id FROM players WHERE key = ?", (key,)).fetchone()[0]

    def was_fetched(self, table_name, file, size):
        with self.lock:
            return self.db.execute("SELECT 1 FROM fetched WHERE table_name = ? AND file = ? "
                                   "AND bytes = ?", (table_name, file, size)).fetchone() \
                is not None

    def mark_fetched(self, table_name, file, size):
        with self.lock, self.db:
            self.db.execute("INSERT OR IGNORE INTO fetched VALUES (?, ?, ?)",
                            (table_name, file, size))

    # ----- reading (what the page may see: never the record) ------------------------

    def seasons(self):
        with self.lock:
            return [r[0] for r in self.db.execute(
                "SELECT DISTINCT season FROM sessions ORDER BY season DESC")]

    def sessions(self, season=None, limit=200):
        """The evenings, newest first: id, table, day, variant, deals, seats with
        their final balances."""
        q = ("SELECT id, table_name, origin, day, variant, players, mode, deals, lang "
             "FROM sessions "
             + ("WHERE season = ? " if season else "") + "ORDER BY day DESC, updated DESC LIMIT ?")
        with self.lock:
            rows = self.db.execute(q, ((season, limit) if season else (limit,))).fetchall()
            return [self._summary(r) for r in rows]

    def _summary(self, r):
        sid = r[0]
        last = self.db.execute("SELECT result FROM deals WHERE session_id = ? ORDER BY deal "
                               "DESC LIMIT 1", (sid,)).fetchone()
        balances = json.loads(last[0]).get("balances") if last else None
        seats = self.db.execute("SELECT seat, name FROM seats WHERE session_id = ? ORDER BY "
                                "seat", (sid,)).fetchall()
        return {"id": sid, "table": r[1], "origin": r[2], "day": r[3], "variant": r[4],
                "variant_name": words.variant_name(r[4], r[8] or "de"), "players": r[5],
                "mode": r[6], "deals": r[7], "lang": r[8], "seats": [n for _s, n in seats],
                "balances": balances}

    def session(self, sid):
        """One session's score sheet, or None: the summary and every deal's result."""
        with self.lock:
            r = self.db.execute("SELECT id, table_name, origin, day, variant, players, mode, "
                                "deals, lang FROM sessions WHERE id = ?", (sid,)).fetchone()
            if r is None:
                return None
            out = self._summary(r)
            out["rows"] = [dict(json.loads(res), deal=d) for d, res in self.db.execute(
                "SELECT deal, result FROM deals WHERE session_id = ? ORDER BY deal", (sid,))]
        tricks = words.hand_size(out)
        out["said"] = [words.settlement(row, out["seats"], out["lang"], tricks)
                       for row in out["rows"]]
        return out

    def final_balances(self, season=None):
        """(session id, day, [(player id, name, balance)]) per session in order."""
        q = ("SELECT s.id, s.day, (SELECT result FROM deals d WHERE d.session_id = s.id "
             "ORDER BY deal DESC LIMIT 1) FROM sessions s "
             + ("WHERE s.season = ? " if season else "") + "ORDER BY s.day, s.updated")
        with self.lock:
            out = []
            for sid, day, res in self.db.execute(q, (season,) if season else ()).fetchall():
                if res is None:
                    continue
                balances = json.loads(res).get("balances") or []
                seats = self.db.execute(
                    "SELECT st.seat, p.id, p.name FROM seats st JOIN players p ON "
                    "p.id = st.player_id WHERE st.session_id = ? ORDER BY st.seat",
                    (sid,)).fetchall()
                out.append((sid, day, [(pid, name, balances[seat]) for seat, pid, name in seats
                                       if seat < len(balances)]))
            return out

    def leaderboard(self, season=None):
        """Each player's balance over the season and its running course, best first:
        ``{"players": [{"id", "name", "balance", "sessions", "series"}]}`` where
        ``series`` is the running balance after each session of the season."""
        runs = self.final_balances(season)
        players = {}
        for k, (_sid, day, seats) in enumerate(runs):
            for pid, name, bal in seats:
                p = players.setdefault(pid, {"id": pid, "name": name, "balance": 0,
                                             "sessions": 0, "series": []})
                p["balance"] += bal
                p["sessions"] += 1
                p["series"].append([k, day, p["balance"]])
        ranked = sorted(players.values(), key=lambda p: (-p["balance"], p["name"]))
        return {"season": season, "sessions": len(runs), "players": ranked}

    def score_csv(self, sid):
        """The score sheet of one session as CSV text, or None."""
        s = self.session(sid)
        if s is None:
            return None
        buf = io.StringIO()
        w = csv.writer(buf, lineterminator="\n")
        seats = s["seats"]
        w.writerow(["deal", "contract", "declarer", "won"]
                   + ["%s payment" % n for n in seats] + ["pot"]
                   + ["%s balance" % n for n in seats] + ["pot total", "result"])
        for r, said in zip(s["rows"], s["said"], strict=True):
            d = r.get("declarer")
            w.writerow([r["deal"], said["contract"] or "", seats[d] if isinstance(d, int)
                        and 0 <= d < len(seats) else "",
                        {True: "yes", False: "no"}.get(r.get("won"), "")]
                       + list(r.get("payments") or []) + [r.get("pot", "")]
                       + list(r.get("balances") or []) + [r.get("pot_total", ""), said["text"]])
        return buf.getvalue()


def record_error(exc):
    """FoldError as one line for the log."""
    return str(exc) if isinstance(exc, FoldError) else "%s: %s" % (type(exc).__name__, exc)
