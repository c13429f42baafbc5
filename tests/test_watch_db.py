"""The watcher's history (tools/tapptable/watch/history.py) against `tapptable replay`.

Fifty sessions (simulate.py: several variants, strict and open, two tables
whose players partly share names) reach the database the way a watcher meets
them: deal by deal while played, cut short by power cuts (a torn last line),
again after a restart, out of order and twice.  Every stored deal's balances
must be the ones `tapptable replay` prints for that record, each session one
row, each player one row over both tables, and the season's balances the sums.
Also: the schema's versioned migrations, a database from a newer watcher
refused, a bad record refused without a change, the CSV and printable pages.
"""
import csv
import io
import json
import random
import sqlite3

import pytest

from tapp.record import parse_line, with_crc
from tapp.session import Session
from tools.tapptable.cli import main
from tools.tapptable.simulate import Simulator
from tools.tapptable.watch import history as H
from tools.tapptable.watch.fold import FoldError, fold
from tools.tapptable.watch.server import printable

SESSIONS = 50
KINDS = (("tapp_modern", 3, "strict"), ("tapp_classic", 3, "open"), ("wuerttemberg", 3, "strict"),
         ("tarock_simple", 3, "open"), ("herzblatt", 4, "strict"), ("haferltarock", 4, "strict"))
TABLES = {"Stammtisch": ["Anna", "Bert", "Cora", "Dora"],
          "Nebenzimmer": ["anna ", "Emil", "Seat 3", "Fritz"]}   # Anna twice; a generic seat


def sessions():
    rng = random.Random(29)
    out = []
    for k in range(SESSIONS):
        variant, players, mode = KINDS[k % len(KINDS)]
        table = sorted(TABLES)[k % 2]
        names = TABLES[table][:players]
        sim = Simulator(variant, players, seed=1000 + k, mode=mode, seats=names)
        lines = [with_crc(x) for x in sim.record_lines(rng.randint(1, 6))]
        out.append((table, lines))
    return out


def replayed_results(tmp_path, capsys, k, lines):
    """The results `tapptable replay` prints for a record, in order."""
    f = tmp_path / ("s%d.jsonl" % k)
    f.write_text("".join(x + "\n" for x in lines))
    capsys.readouterr()
    assert main(["replay", str(f)]) == 0
    out = [json.loads(x) for x in capsys.readouterr().out.splitlines()]
    return [o["result"] for o in out if "result" in o]


def test_fifty_sessions_with_power_cuts_match_replay(tmp_path, capsys):
    db = H.History(str(tmp_path / "h.sqlite3"))
    made = sessions()
    rng = random.Random(7)
    arrivals = []
    for k, (table, lines) in enumerate(made):
        for _ in range(3):                                # cut short: a torn line at the end
            cut = rng.randrange(2, len(lines) + 1)
            torn = lines[cut - 1][:rng.randrange(1, len(lines[cut - 1]))]
            arrivals.append((k, table, lines[:cut - 1] + [torn]))
        arrivals.append((k, table, lines))                # complete, and again
        arrivals.append((k, table, lines))
    rng.shuffle(arrivals)
    day = 1767225600.0                                    # 2026-01-01, one session a day
    for k, table, lines in arrivals:
        db.add_record(lines, table, "here", seen=day + 86400 * k)
    sids = {fold(lines).sid for _t, lines in made}
    assert len(sids) == SESSIONS and None not in sids
    assert db.db.execute("SELECT count(*) FROM sessions").fetchone()[0] == SESSIONS
    expected_season = {}
    for k, (table, lines) in enumerate(made):
        results = replayed_results(tmp_path, capsys, k, lines)
        sid = fold(lines).sid
        got = db.session(sid)
        assert got["table"] == table and got["deals"] == len(results)
        assert [r["balances"] for r in got["rows"]] == [r["balances"] for r in results]
        assert [r["payments"] for r in got["rows"]] == [r["payments"] for r in results]
        for seat, name in enumerate(got["seats"]):
            key = H.player_key(name, table)
            expected_season[key] = expected_season.get(key, 0) + results[-1]["balances"][seat]
    board = db.leaderboard("2026")
    assert {H.player_key(p["name"], "?"): p["balance"] for p in board["players"]
            if "@" not in H.player_key(p["name"], "?")} == {
        k: v for k, v in expected_season.items() if "@" not in k}
    names = [p["name"] for p in board["players"]]
    assert [n.casefold() for n in names].count("anna") == 1        # one Anna, both tables
    assert sum(p["balance"] for p in board["players"]) == sum(expected_season.values())
    for p in board["players"]:
        assert p["series"][-1][2] == p["balance"]
    assert db.db.execute("SELECT count(*) FROM players").fetchone()[0] == len(expected_season)
    # the same again from scratch in another order: the same rows
    again = H.History(":memory:")
    for k, table, lines in reversed(arrivals):
        again.add_record(lines, table, "here", seen=day + 86400 * k)
    assert [(s["id"], s["deals"], s["balances"]) for s in again.sessions(limit=999)] == \
        [(s["id"], s["deals"], s["balances"]) for s in db.sessions(limit=999)]


def test_migrations_are_numbered_and_applied_once(tmp_path):
    path = str(tmp_path / "m.sqlite3")
    conn = sqlite3.connect(path)                 # a file a first watcher left: schema 1 only
    conn.executescript(H.MIGRATIONS[0] + "; CREATE TABLE schema_version (version INTEGER "
                       "NOT NULL); INSERT INTO schema_version VALUES (1);")
    conn.close()
    db = H.History(path)
    assert db.version() == H.SCHEMA_VERSION == 3
    assert "lang" in [r[1] for r in db.db.execute("PRAGMA table_info(sessions)")]
    names = {r[0] for r in db.db.execute("SELECT name FROM sqlite_master WHERE type='index'")}
    assert {"sessions_season", "seats_player"} <= names
    db.close()
    db = H.History(path)                         # opened again: nothing applied twice
    assert [r[0] for r in db.db.execute("SELECT version FROM schema_version")] == [1, 2, 3]
    db.db.execute("INSERT INTO schema_version VALUES (4)")
    db.db.commit()
    db.close()
    with pytest.raises(H.HistoryError, match="newer tapptable watch"):
        H.History(path)
    (tmp_path / "junk.db").write_bytes(b"not a database at all" * 100)
    with pytest.raises(H.HistoryError, match="not a usable SQLite database"):
        H.History(str(tmp_path / "junk.db"))


def test_a_bad_record_changes_nothing_and_a_session_without_play_waits():
    db = H.History(":memory:")
    with pytest.raises(FoldError, match="bad header"):
        db.add_record(['{"record": 1, "variant": "nope", "players": 3}'], "t", "here")
    with pytest.raises(FoldError, match="empty record"):
        db.add_record([], "t", "here")
    lines = Simulator("tapp_modern", 3, seed=5, mode="open").record_lines(1)
    assert db.add_record(lines[:1], "t", "here") == (None, 0)    # the header alone: no id yet
    assert db.sessions() == []
    sid, added = db.add_record(lines, "t", "here")
    assert added == 1 and db.add_record(lines, "t", "here") == (sid, 0)


@pytest.mark.parametrize("lang", ["de", "en"])
def test_csv_and_printable_score_sheet(lang):
    """The exports name each deal's contract as the table's display did (its
    language kept with the session) and say the deal in the result line's words."""
    from table.names import contract_name
    from tools.tapptable.outcome import words
    db = H.History(":memory:")
    seats = ["<b>Anna</b>", "Bert, jr.", "Cora"]
    lines = Simulator("tapp_modern", 3, seed=8, seats=seats).record_lines(3)
    sid, _ = db.add_record(lines, "Tisch \"1\"", "here", lang=lang)
    rows = list(csv.reader(io.StringIO(db.score_csv(sid))))
    assert rows[0][:6] == ["deal", "contract", "declarer", "won", "<b>Anna</b> payment",
                           "Bert, jr. payment"] and rows[0][-1] == "result"
    results = fold(lines).deals
    tricks = Session(parse_line(lines[0])).view.hand_size()
    assert len(rows) == 4 and rows[-1][0] == "3"
    for row, r in zip(rows[1:], results, strict=True):
        name = contract_name(r["contract"], lang) if r["contract"] else ""
        assert row[1] == name
        assert row[-1] == words(r, seats, name, None, tricks)
    page = printable(db.session(sid))
    assert "<b>Anna</b>" not in page and "&lt;b&gt;Anna&lt;/b&gt;" in page
    assert "Tapp neu" in page and all(x[1] in page for x in rows[1:] if x[1])
    assert db.score_csv("0" * 64) is None and db.session("0" * 64) is None
