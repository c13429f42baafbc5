"""`tapptable watch` against a virtual table that plays by itself (watch_bench.py).

A real browser (Debian's Chromium, as tests/test_sim_web.py drives it) checks
that the page follows the table's display within a second, at 360 and 1280 px;
the WebSocket and HTTP answers never carry a hand, even when the watcher has
the referee PIN; a power cut mid-deal and a pulled cable lose nothing and store
nothing twice; a second watcher on the same port is refused while the table
plays on; a damaged download is refused and a torn last line costs only itself.
"""
import asyncio
import json
import re
import subprocess
import sys
import threading
import time
from pathlib import Path

import aiohttp
import pytest
from console_bench import PIN
from test_sim_web import browser  # noqa: F401  (the module's Chromium fixture)
from watch_bench import LiveTable

from tapp.record import with_crc
from tools.tapptable import console as client
from tools.tapptable.watch.club import Club
from tools.tapptable.watch.history import History
from tools.tapptable.watch.public import TablePicture, check_public
from tools.tapptable.watch.server import ServerThread
from tools.tapptable.watch.table_link import TableWatcher

ROOT = Path(__file__).resolve().parent.parent
TAPPTABLE = [sys.executable, "-m", "tools.tapptable.cli"]
CARD = re.compile(r'"[CSHD](?:10|[AKQJ9876])"')
LAG_S = 1.0


class Watch:
    """A watcher (history, club, one table) and its web server, in this process."""

    def __init__(self, tmp_path, port, pin=None, name="Stammtisch"):
        self.history = History(str(tmp_path / "history.sqlite3"))
        self.club = Club(self.history, "here")
        self.picture = TablePicture(name, port)
        self.club.add_local(self.picture)
        self.links = []                       # every link state the picture went through
        self.watcher = TableWatcher(port, self.picture, self.history, "here", pin=pin,
                                    log=lambda s: None)

        def changed():
            state = self.picture.link["state"]
            if not self.links or self.links[-1] != state:
                self.links.append(state)
            self.club.changed()
        self.watcher.on_change = changed
        self.watcher.connect_first()
        self.watcher.start()
        self.server = ServerThread(self.club).__enter__()

    def close(self):
        self.server.__exit__(None, None, None)
        self.watcher.close()
        self.history.close()


@pytest.fixture
def live():
    tables = []

    def start(**kw):
        t = LiveTable(**kw)
        tables.append(t)
        return t
    yield start
    for t in tables:
        t.close()


@pytest.fixture
def watch(tmp_path):
    made = []

    def start(port, **kw):
        w = Watch(tmp_path, port, **kw)
        made.append(w)
        return w
    yield start
    for w in made:
        w.close()


def wait_for(check, what, limit_s=15.0):
    end = time.monotonic() + limit_s
    while not check():
        assert time.monotonic() < end, "waited %.0f s for %s" % (limit_s, what)
        time.sleep(0.05)


def open_page(browser, url, width):  # noqa: F811
    page = browser.new_page()
    page.set_viewport_size({"width": width, "height": 800})
    errors = []
    page.on("pageerror", lambda exc: errors.append(str(exc)))
    page.errors = errors
    page.goto(url)
    page.wait_for_function("window.tappWatch && tappWatch.tables.length > 0")
    return page


def lags(table_screens, page_log):
    """For each screen the page showed: how long after the table first showed it
    (the latest time the table showed those rows before the page did)."""
    out = []
    for t_page, _key, text in page_log:
        rows = text.split("\n")
        shown = [t for t, r in table_screens if r == rows and t <= t_page / 1000.0 + 0.05]
        assert shown, "the page showed rows the table never did: %r" % rows
        out.append(max(0.0, t_page / 1000.0 - shown[-1]))
    return out


# ----------------------------------------------------------------- the page follows


def test_the_page_follows_the_display_within_a_second_at_360_and_1280_px(
        browser, live, watch):  # noqa: F811
    table = live(speed=3.0)
    w = watch(table.port)
    pages = [open_page(browser, w.server.url, width) for width in (360, 1280)]
    started = time.time()
    table.play(1)
    time.sleep(LAG_S)
    screens = [(t, r) for t, r in table.screens if t >= started]
    for page in pages:
        log = page.evaluate("tappWatch.screenLog")
        measured = lags(screens, [x for x in log if x[0] / 1000.0 >= started])
        assert len(measured) > 20
        print("page %d px: %d screens, lag median %.3f s, max %.3f s" % (
            page.viewport_size["width"], len(measured), sorted(measured)[len(measured) // 2],
            max(measured)))
        assert max(measured) < LAG_S
        shown = {x[2] for x in log}
        for (t, rows), (t_next, _r) in zip(screens, screens[1:], strict=False):
            if t_next - t >= LAG_S:              # a display that stood a second: on the page
                assert "\n".join(rows) in shown
        assert page.errors == []
    narrow = pages[0]
    assert narrow.evaluate("document.documentElement.scrollWidth") <= 360
    assert narrow.locator(".t-screen").is_visible()
    # the score sheet and the history: one deal, on the page and in the database
    wait_for(lambda: w.history.sessions(), "the session in the history")
    narrow.wait_for_function("tappWatch.history && tappWatch.history.sessions.length == 1")
    assert narrow.locator("#leaderboard tbody tr").count() == 3
    assert narrow.locator(".t-sheet tbody tr").count() == 2          # deal 1 and the total
    # the watcher stops and comes back on the same port: the page says so and reconnects
    port = w.server.port
    w.server.__exit__(None, None, None)
    narrow.wait_for_function("!tappWatch.connected")
    assert "away" in narrow.text_content("#conn")
    w.server = ServerThread(w.club, port=port).__enter__()
    narrow.wait_for_function("tappWatch.connected", timeout=15_000)
    for page in pages:
        page.close()


# ----------------------------------------------------------------- hands stay hidden


def test_no_hand_reaches_the_page_even_when_the_watcher_has_the_pin(live, watch):
    table = live(speed=6.0)
    w = watch(table.port, pin=PIN)
    got = []

    async def follow():
        async with aiohttp.ClientSession() as s:
            async with s.ws_connect(w.server.url + "ws") as ws:
                while table.deals_done < 1:
                    try:
                        m = await ws.receive(timeout=0.5)
                    except asyncio.TimeoutError:
                        continue
                    if m.type == aiohttp.WSMsgType.TEXT:
                        got.append(m.data)
            out = []
            sid = w.history.sessions()[0]["id"]
            for path in ("api/tables", "api/history", "api/session/" + sid,
                         "session/%s/print" % sid, "session/%s.csv" % sid):
                async with s.get(w.server.url + path) as r:
                    assert r.status == 200, path
                    out.append(await r.text())
            return out
    out = {}
    # a thread of its own: Playwright's sync API keeps an event loop in this one
    th = threading.Thread(target=lambda: out.update(http=asyncio.run(follow())), daemon=True)
    th.start()
    table.play(1)
    th.join(60)
    http = out["http"]
    assert len(got) > 20
    before_first_card = True
    for text in got:
        msg = json.loads(text)
        check_public(msg)                         # no hands, talon, discards, menu
        if msg["t"] != "tables":
            continue
        t = msg["tables"][0]
        if t["trick"] or t["view"].get("last_trick"):
            before_first_card = False
        if before_first_card:                     # dealt, bid on: not one card named
            assert not CARD.search(json.dumps(dict(t, auction=[]))), t
    for text in http:
        assert "hands" not in text and "talon" not in text
    # the watcher did fetch the journal with the PIN (hands inside): kept, never served
    assert '"hands"' in w.history.db.execute("SELECT record FROM sessions").fetchone()[0]


# ----------------------------------------------------------------- faults


def test_a_power_cut_mid_deal_and_a_pulled_cable_lose_nothing_and_store_nothing_twice(
        live, watch):
    table = live(speed=8.0)
    w = watch(table.port)
    table.play(1)
    table.cut_after = 25                       # mid-deal: the power goes and comes back
    table.play(1)
    assert table.cuts == 1
    wait_for(lambda: w.picture.link["state"] == "connected", "the watcher after the cut")
    table.drop_client()                        # the cable pulled
    wait_for(lambda: "waiting" in w.links, "the page saying it waits")
    table.play(1)
    wait_for(lambda: w.picture.link["state"] == "connected", "the watcher back")
    wait_for(lambda: (w.history.sessions() or [{}])[0].get("deals") == 3, "three deals stored")
    rows = w.history.sessions()
    assert len(rows) == 1 and w.history.db.execute("SELECT count(*) FROM deals").fetchone()[0] == 3
    assert rows[0]["balances"] == table.table.view.balances()
    wait_for(lambda: len(w.picture.snapshot()["score"]["rows"]) == 3,
             "the page's score sheet following the history")
    sheet = w.picture.snapshot()["score"]
    assert [r["deal"] for r in sheet["rows"]] == [1, 2, 3]
    assert sheet["balances"] == rows[0]["balances"]
    assert w.links[0] == "connected" and "waiting" in w.links and w.links[-1] == "connected"


def test_a_second_watcher_is_refused_and_the_table_plays_on(live, watch, tmp_path):
    table = live(speed=8.0)
    w = watch(table.port)
    table.play_on()                              # the people play while the second one tries
    before = len(table.table.journal_lines())
    r = subprocess.run(TAPPTABLE + ["watch", table.port, "--db", str(tmp_path / "b.db"),
                                    "--web-host", "127.0.0.1", "--web-port", "0", "--no-qr"],
                       cwd=ROOT, capture_output=True, text=True, timeout=60)
    assert r.returncode == 2 and r.stdout == ""
    assert "another client holds this table" in r.stderr, r.stderr
    wait_for(lambda: len(table.table.journal_lines()) > before + 3, "the table playing on")
    wait_for(lambda: w.picture.snapshot()["auction"], "the first watcher following the game")
    assert w.picture.link["state"] == "connected"
    # a serial port (here a pseudo-terminal) held by the first: refused the same way
    from tools.tapptable import sim_serial
    pty = sim_serial.open_link("pty")
    first = client.Link(pty.path)
    try:
        r = subprocess.run(TAPPTABLE + ["watch", pty.path, "--db", str(tmp_path / "c.db"),
                                        "--web-port", "0", "--no-qr"],
                           cwd=ROOT, capture_output=True, text=True, timeout=60)
    finally:
        first.close()
        pty.close()
    assert r.returncode == 2 and "another client holds this table" in r.stderr, r.stderr


class FakeLink:
    """A link that answers ``journal`` with the given lines."""

    def __init__(self, lines):
        self.lines = lines

    def request(self, cmd, timeout=10.0, on_part=None, **args):
        for line in self.lines:
            on_part({"more": True, "line": line})
        return {"ok": True, "count": len(self.lines)}


def test_a_damaged_download_is_refused_and_a_torn_last_line_costs_only_itself(tmp_path):
    from tools.tapptable.simulate import Simulator
    lines = [with_crc(x) for x in Simulator("tapp_classic", 3, 4).record_lines(2)]
    h = History(":memory:")
    w = TableWatcher("nowhere", TablePicture("t", "nowhere"), h, "here", log=lambda s: None)
    damaged = list(lines)
    damaged[5] = damaged[5].replace('"seat"', '"Seat"')
    w.link = FakeLink(damaged)
    with pytest.raises(client.ConsoleError, match="arrived damaged"):
        w.download(session="current")
    torn = lines[:-1] + [lines[-1][:-7]]
    w.link = FakeLink(torn)
    assert w.download(session="current") == lines[:-1]
    w.fetch_current()                          # the first deal is stored, the torn one not yet
    assert h.sessions()[0]["deals"] == 1
    w.link = FakeLink(lines)
    w.fetch_current()
    assert h.sessions()[0]["deals"] == 2 and len(h.sessions()) == 1


def test_bad_arguments_are_refused_with_one_line(tmp_path, capsys):
    from tools.tapptable.cli import main
    for argv, said in ((["watch"], "nothing to watch"),
                       (["watch", "a0", "/dev/ttyACM0"], "given twice"),
                       (["watch", "x=a0", "x=a1"], "two tables are named"),
                       (["watch", "a0", "--poll", "0"], "--poll"),
                       (["watch", "--mqtt", "localhost:x"], "no port number")):
        assert main(argv + ["--db", str(tmp_path / "h.db"), "--no-qr"]) == 2
        assert said in capsys.readouterr().err
    bad = tmp_path / "new.db"
    import sqlite3
    db = sqlite3.connect(str(bad))
    db.executescript("CREATE TABLE schema_version (version INTEGER); "
                     "INSERT INTO schema_version VALUES (99);")
    db.close()
    assert main(["watch", "a0", "--db", str(bad), "--no-qr"]) == 2
    assert "newer tapptable watch" in capsys.readouterr().err
