"""The watcher's web page and its WebSocket (aiohttp), on the LAN.

``GET /`` is the page (static/index.html), ``/static/`` its script and style,
``GET /ws`` the WebSocket, and plain HTTP for what a person may keep:

``GET /api/tables``, ``GET /api/history?season=YYYY``, ``GET /api/session/ID``
    the same JSON the WebSocket sends;
``GET /session/ID.csv``
    a session's score sheet as CSV (a download);
``GET /session/ID/print``
    the score sheet as a printable page.

WebSocket, server to page (JSON text frames): ``{"t": "tables", "tables":
[...], "now": s}`` whenever a table changed (each table: ``public.py``'s
snapshot plus ``key`` and ``watcher``); ``{"t": "history", "seasons": [...],
"season": .., "leaderboard": .., "sessions": [...]}`` when the history
changed or the page asked for another season; ``{"t": "ping", "now": s}``
every ``PING_S`` so a page open all day knows the watcher is there.  Page to
server: ``{"t": "season", "season": "2026"}``.  Anything else is answered
``{"t": "error", "text": ..}`` and changes nothing.
"""
import asyncio
import html
import json
import re
import threading
import time
from pathlib import Path

from aiohttp import WSMsgType, web

from tools.tapptable.sim_web.server import ServerThread as SimServerThread

STATIC = Path(__file__).resolve().parent / "static"
TICK_S = 0.05              # how often the server looks for changes to push
PING_S = 15.0
SID = re.compile(r"^[0-9a-f]{64}$")
SEASON = re.compile(r"^[0-9]{4}$")


def _json(obj):
    return json.dumps(obj, separators=(",", ":"), ensure_ascii=False)


class WatchWeb:
    """The aiohttp application over one ``Club``."""

    def __init__(self, club):
        self.club = club
        self.pages = {}            # ws -> the season it shows
        site = web.Application()            # (``app`` is the aiohttp application)
        r = site.router
        r.add_get("/", self.index)
        r.add_get("/ws", self.websocket)
        r.add_get("/api/tables", self.api_tables)
        r.add_get("/api/history", self.api_history)
        r.add_get("/api/session/{sid}", self.api_session)
        r.add_get("/session/{sid}.csv", self.session_csv)
        r.add_get("/session/{sid}/print", self.session_print)
        r.add_static("/static/", STATIC, append_version=False)
        site.on_startup.append(self._start)
        site.on_shutdown.append(self._stop)
        self.app = site
        self.ticker = None

    # ----- lifecycle ----------------------------------------------------------------

    async def _start(self, _app):
        self.ticker = asyncio.get_running_loop().create_task(self._tick())

    async def _stop(self, _app):
        if self.ticker:
            self.ticker.cancel()
        for ws in list(self.pages):
            await ws.close()

    async def _tick(self):
        seen = (self.club.version, self.club.history_version)
        last_ping = time.monotonic()
        while True:
            await asyncio.sleep(TICK_S)
            now = (self.club.version, self.club.history_version)
            if now != seen:
                tables = _json(self.tables_msg())
                history_changed = now[1] != seen[1]
                seen = now
                for ws in list(self.pages):
                    await self.send(ws, tables)
                    if history_changed:
                        await self.send(ws, _json(self.history_msg(self.pages.get(ws))))
            if time.monotonic() - last_ping > PING_S:
                last_ping = time.monotonic()
                for ws in list(self.pages):
                    await self.send(ws, _json({"t": "ping", "now": time.time()}))

    # ----- messages ----------------------------------------------------------------

    def tables_msg(self):
        return {"t": "tables", "tables": self.club.tables(), "now": time.time(),
                "watcher": self.club.name}

    def history_msg(self, season=None):
        h = self.club.history
        seasons = h.seasons()
        season = season or (seasons[0] if seasons else None)
        return {"t": "history", "seasons": seasons, "season": season,
                "leaderboard": h.leaderboard(season), "sessions": h.sessions(season)}

    async def send(self, ws, text):
        if ws.closed:
            return
        try:
            await ws.send_str(text)
        except (ConnectionError, RuntimeError):
            pass

    # ----- HTTP ---------------------------------------------------------------------

    async def index(self, _request):
        return web.FileResponse(STATIC / "index.html", headers={"Cache-Control": "no-store"})

    async def websocket(self, request):
        ws = web.WebSocketResponse(heartbeat=20)
        await ws.prepare(request)
        self.pages[ws] = None
        try:
            await self.send(ws, _json(self.tables_msg()))
            await self.send(ws, _json(self.history_msg()))
            async for msg in ws:
                if msg.type == WSMsgType.TEXT:
                    await self.handle(ws, msg.data)
                elif msg.type == WSMsgType.ERROR:
                    break
        finally:
            self.pages.pop(ws, None)
        return ws

    async def handle(self, ws, text):
        try:
            req = json.loads(text)
        except ValueError:
            req = None
        if isinstance(req, dict) and req.get("t") == "season" and (
                req.get("season") is None or SEASON.match(str(req.get("season")))):
            self.pages[ws] = req.get("season")
            await self.send(ws, _json(self.history_msg(req.get("season"))))
            return
        await self.send(ws, _json({"t": "error", "text": "not understood: a request is "
                                   '{"t": "season", "season": "YYYY"}'}))

    async def api_tables(self, _request):
        return web.json_response(self.tables_msg(), dumps=_json)

    async def api_history(self, request):
        season = request.query.get("season")
        if season is not None and not SEASON.match(season):
            raise web.HTTPBadRequest(text="season: a year such as 2026\n")
        return web.json_response(self.history_msg(season), dumps=_json)

    def _session(self, request):
        sid = request.match_info["sid"]
        if not SID.match(sid):
            raise web.HTTPBadRequest(text="not a session id (64 hex digits)\n")
        s = self.club.history.session(sid)
        if s is None:
            raise web.HTTPNotFound(text="no session %s in the history\n" % sid)
        return s

    async def api_session(self, request):
        return web.json_response(self._session(request), dumps=_json)

    async def session_csv(self, request):
        s = self._session(request)
        text = self.club.history.score_csv(s["id"])
        name = "tapptable-%s-%s-%s.csv" % (s["day"], re.sub(r"[^A-Za-z0-9_-]+", "_",
                                                            s["table"]), s["id"][:8])
        return web.Response(text=text, content_type="text/csv", charset="utf-8", headers={
            "Content-Disposition": 'attachment; filename="%s"' % name})

    async def session_print(self, request):
        return web.Response(text=printable(self._session(request)), content_type="text/html",
                            charset="utf-8")


def printable(s):
    """A session's score sheet as a page to print (every value escaped)."""
    e = html.escape
    seats = s["seats"]
    head = "".join("<th>%s</th>" % e(n) for n in seats)
    rows = []
    for r, said in zip(s["rows"], s["said"], strict=True):
        pays = r.get("payments") or []
        d = r.get("declarer")
        who = seats[d] if isinstance(d, int) and 0 <= d < len(seats) else ""
        rows.append("<tr><td>%d</td><td>%s</td><td>%s</td>%s<td>%s</td><td>%s</td></tr>" % (
            r["deal"], e(said["contract"] or "eingeworfen / thrown in"), e(who),
            "".join("<td>%+d</td>" % p for p in pays), e(str(r.get("pot", ""))),
            e(said["text"])))
    totals = "".join("<td><b>%d</b></td>" % b for b in (s.get("balances") or []))
    return """<!doctype html><html lang="de"><head><meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Score sheet %(day)s %(table)s</title>
<style>body{font:14px system-ui,sans-serif;margin:1.5em}table{border-collapse:collapse}
td,th{border:1px solid #999;padding:.2em .5em;text-align:right}td:nth-child(2),td:nth-child(3),
td:last-child{text-align:left}@media print{button{display:none}}</style></head><body>
<h1>%(table)s &middot; %(day)s</h1><p>%(variant)s, %(players)d players, %(mode)s mode,
%(deals)d deals &middot; session %(short)s</p><button onclick="print()">Print</button>
<table><thead><tr><th>deal</th><th>contract</th><th>declarer</th>%(head)s<th>pot</th>
<th>result</th></tr></thead><tbody>%(rows)s</tbody><tfoot><tr><td colspan="3">total</td>
%(totals)s<td></td><td></td></tr></tfoot></table></body></html>
""" % {"day": e(s["day"]), "table": e(s["table"]), "variant": e(s["variant_name"]),
       "players": s["players"], "mode": e(s["mode"]), "deals": s["deals"], "head": head,
       "rows": "\n".join(rows), "totals": totals, "short": e(s["id"][:12])}


async def start(watch_web, host, port):
    """Listen on ``host``:``port`` (0: any free port); (runner, port)."""
    runner = web.AppRunner(watch_web.app, access_log=None)
    await runner.setup()
    site = web.TCPSite(runner, host, port)
    await site.start()
    return runner, runner.addresses[0][1]


class ServerThread(SimServerThread):
    """The watcher's page served from a thread of its own on 127.0.0.1 (the tests),
    run as the browser table's server runs: ``url``, a context manager."""

    def __init__(self, club, port=0):
        self.web_table = WatchWeb(club)
        self.hub = None
        self.loop = asyncio.new_event_loop()
        self.ready = threading.Event()
        self.runner = None
        self.port = port
        self.error = None
        self.thread = threading.Thread(target=self._run, name="watch-web", daemon=True)
