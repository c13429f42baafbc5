"""The page and its WebSocket: ``tapptable sim --web`` (aiohttp, 127.0.0.1 only).

``GET /`` is the page (static/index.html), ``/static/`` its script and style,
``GET /ws`` the WebSocket.  A background task moves the table's virtual clock on
with wall time (every ``TICK_MS``) and sends every tab what changed.

Protocol (JSON text frames unless said otherwise)
-------------------------------------------------

Server to page:

``{"t": "welcome", "id": 3, "token": "..", "variant": .., "variant_name": ..,
"players": 3, "mode": .., "lang": .., "centre": 3, "speed": 1.0, "resumed": null}``
    once, first; ``centre`` is the centre reader's number (the seats are 0..n-1).
    ``token`` names the tab: the page keeps it (sessionStorage) and connects
    with ``/ws?token=..`` again after a reload, so its seats stay its own (a
    tab that has gone keeps its seats for ``AWAY_S`` seconds; no robot plays
    them meanwhile).  ``resumed``: the server found the table's journal on its
    flash directory when it started and took the session up where it stood, as
    the device does after a power cut (``{"deals": n, "events": k}``), else null.
binary frame, first byte 1, then 1024 bytes
    the OLED: 128x64 pixels row by row, 8 pixels a byte, the most significant bit
    leftmost, 1 = lit; read from the SSD1306 model's pixels, sent only when they
    changed (and once to a new tab).
``{"t": "state", ...}``
    the whole table as this tab may see it, sent when it changed: ``screen`` (the
    OLED's 8 text rows), ``leds`` (``{"state", "rgb"}`` per seat), ``readers``
    (card codes lying on each reader, the centre last), ``hands`` (per seat
    ``{"count", "cards"}``; ``cards`` only for this tab's own seats, else null),
    ``claims`` (per seat "you", "taken" or null), ``you`` (this tab's seats),
    ``names``, ``dealer``, ``turn``, ``expects``, ``phase``, ``step``
    (dealing/game/result/over), ``declarer``, ``trump``, ``trick`` (the
    current trick, ``[[seat, card], ..]``), ``tricks`` (this deal's completed
    tricks: ``n``, ``leader``, ``cards``, ``seats``, ``winner``, ``points``),
    ``balances``, ``history`` (balances after every deal, the first entry
    before the first deal), ``deals``, ``result`` (the engine's last result),
    ``deck``/``talon``/``aside``/``played`` (card counts), ``robots``,
    ``dealing`` (an automatic deal is running), ``held`` (buttons held down),
    ``variant_name``, ``contract``/``contract_name`` (the contract being
    played, its id and its name), ``result_name`` (the last result's contract
    by name), ``clearing`` (a complete trick waits to be lifted), ``refused``
    (per reader: the table refused the card lying there), ``question`` (the
    seats whose question the menu on screen is), ``resumed`` (as in welcome).
``{"t": "pwm", "now": ms, "speed": 1.0, "events": [[ms, freq, on], ..]}``
    the buzzer's PWM changes on the virtual clock (``now`` is the clock at
    sending); the page plays them with Web Audio.
``{"t": "error", "for": "place", "text": ".."}``
    a request of this tab that was not carried out (the device's own refusals
    are on its screen, not here).

Page to server:

``{"t": "claim", "seat": s}``, ``{"t": "release", "seat": s}``
    sit down / stand up; the first tab to claim a seat has it, the others watch.
``{"t": "place", "card": "HA", "reader": r}``
    put a card of one of your hands (or ``"deck"``: the deck's top card, strict
    dealing) on your seat's reader or the centre reader.
``{"t": "lift", "reader": r}``
    take the cards off a reader (your seat's or the centre).
``{"t": "press", "key": "prev"|"next"|"ok", "long": false}``
    a whole button press (long: held 900 ms).
``{"t": "button", "key": "ok", "down": true}``
    press-and-hold: down, later ``"down": false`` (a hold of 700 ms or more is a
    long press on the device).
``{"t": "deal"}``
    strict mode: deal the rest of the deck over the centre reader.
``{"t": "aside", "card": "HA"}``
    open mode: the declarer puts a discard away.
``{"t": "robots", "on": true}``
    simulated players for the seats nobody claimed.

Every request except ``claim`` needs a seat.
"""
import asyncio
import errno
import itertools
import json
import os
import re
import sys
import threading
import time
import traceback
from pathlib import Path

from aiohttp import WSCloseCode, WSMsgType, web

from host_sim.table import VirtualTable
from tools.tapptable.sim_flash import TableDir, state_dir

from .hub import Refused, TableHub

HOST = "127.0.0.1"
AWAY_S = 60                # a tab that has gone keeps its seats this long (a reload)
TOKEN = re.compile(r"^[A-Za-z0-9_-]{8,64}$")
PORT = 8765                # tapptable sim --web's port unless --port says
TICK_MS = 50
MAX_STEP_MS = 250          # the clock never jumps further in one tick (a busy machine)
STATIC = Path(__file__).resolve().parent / "static"
OLED_FRAME = 1


def _json(obj):
    return json.dumps(obj, separators=(",", ":"), default=str)


class Client:
    def __init__(self, cid, ws):
        self.cid = cid
        self.ws = ws
        self.frame = None
        self.state = None


class WebTable:
    """The aiohttp application around one ``TableHub``."""

    def __init__(self, hub, speed=1.0, tick_ms=TICK_MS, away_s=AWAY_S):
        self.hub = hub
        self.away_s = away_s
        self.speed = speed
        self.tick_ms = tick_ms
        self.clients = {}
        self.ids = itertools.count(1)
        self.away = {}             # cid -> the timer that frees its seats
        self.ticker = None
        self.failed = False
        self.app = web.Application()
        self.app.router.add_get("/", self.index)
        self.app.router.add_get("/ws", self.websocket)
        self.app.router.add_static("/static/", STATIC, append_version=False)
        self.app.on_startup.append(self._start)
        self.app.on_shutdown.append(self._stop)

    # ----- lifecycle ----------------------------------------------------------------------

    async def _start(self, _app):
        loop = asyncio.get_running_loop()
        self.ticker = loop.create_task(self._tick())
        for cid in set(c for c in self.hub.claims if c is not None):
            self.away[cid] = loop.call_later(self.away_s, self._gone, cid)

    async def _stop(self, _app):
        if self.ticker:
            self.ticker.cancel()
        for client in list(self.clients.values()):
            await client.ws.close(code=WSCloseCode.GOING_AWAY, message=b"server stopped")

    async def _tick(self):
        last = time.monotonic()
        while True:
            await asyncio.sleep(self.tick_ms / 1000)
            now = time.monotonic()
            ms = min((now - last) * 1000 * self.speed, MAX_STEP_MS)
            last = now
            try:
                self.hub.advance(ms)
            except Exception:                 # the table stops; the page still shows it
                if not self.failed:
                    traceback.print_exc()
                    print("tapptable sim: the virtual table stopped (the error above)",
                          file=sys.stderr, flush=True)
                self.failed = True
            await self.broadcast()

    # ----- HTTP ---------------------------------------------------------------------------

    async def index(self, _request):
        return web.FileResponse(STATIC / "index.html", headers={"Cache-Control": "no-store"})

    def _client_id(self, request):
        """The tab's id: its token again after a reload (the seats it holds stay
        its own), else a new one."""
        token = request.query.get("token", "")
        if TOKEN.match(token) and token not in self.clients:
            return token
        return "tab%d-%s" % (next(self.ids), os.urandom(4).hex())

    async def websocket(self, request):
        ws = web.WebSocketResponse(heartbeat=30)
        await ws.prepare(request)
        cid = self._client_id(request)
        timer = self.away.pop(cid, None)
        if timer is not None:
            timer.cancel()                 # back in time: the seats are still its own
        client = Client(cid, ws)
        self.clients[cid] = client
        hub = self.hub
        await ws.send_str(_json({
            "t": "welcome", "id": cid, "token": cid, "variant": hub.variant,
            "variant_name": hub.shared_state()["variant_name"], "players": hub.players,
            "mode": hub.mode, "lang": hub.lang, "centre": hub.centre, "speed": self.speed,
            "resumed": hub.resumed}))
        await self.send_to(client, hub.shared_state(), hub.oled_frame())
        try:
            async for msg in ws:
                if msg.type == WSMsgType.TEXT:
                    await self.handle(client, msg.data)
                elif msg.type == WSMsgType.ERROR:
                    break
        finally:
            self.clients.pop(cid, None)
            hub.let_go(cid)
            if hub.seats_of(cid):
                self.away[cid] = asyncio.get_running_loop().call_later(
                    self.away_s, self._gone, cid)
            await self.broadcast()
        return ws

    def _gone(self, cid):
        """A tab did not come back: its seats are free (robots may play them)."""
        self.away.pop(cid, None)
        if cid not in self.clients:
            self.hub.leave(cid)

    # ----- requests -----------------------------------------------------------------------

    async def handle(self, client, text):
        try:
            req = json.loads(text)
            kind = req.get("t") if isinstance(req, dict) else None
        except ValueError:
            req, kind = {}, None
        try:
            self.apply(client.cid, kind, req)
        except Refused as exc:
            await self.send(client, _json({"t": "error", "for": kind, "text": str(exc)}))
        except (TypeError, ValueError, KeyError, AttributeError):
            await self.send(client, _json({"t": "error", "for": kind, "text": "bad request"}))
        await self.broadcast()

    def apply(self, cid, kind, req):
        hub = self.hub
        if kind == "claim":
            hub.claim(cid, req.get("seat"))
        elif kind == "release":
            hub.release(cid, req.get("seat"))
        elif kind == "place":
            hub.place(cid, req.get("card"), req.get("reader"))
        elif kind == "lift":
            hub.lift(cid, req.get("reader"))
        elif kind == "press":
            hub.press(cid, req.get("key"), bool(req.get("long")))
        elif kind == "button":
            hub.button(cid, req.get("key"), bool(req.get("down")))
        elif kind == "deal":
            hub.deal(cid)
        elif kind == "aside":
            hub.set_aside(cid, req.get("card"))
        elif kind == "robots":
            hub.set_robots(cid, bool(req.get("on")))
        elif kind == "power":
            hub.power_cut(cid)
        else:
            raise Refused("unknown request")

    # ----- sending ------------------------------------------------------------------------

    async def broadcast(self):
        hub = self.hub
        shared = hub.shared_state()
        frame = hub.oled_frame()
        pwm = hub.pwm_events()
        pwm_msg = _json({"t": "pwm", "now": hub.now(), "speed": self.speed,
                         "events": pwm}) if pwm else None
        for client in list(self.clients.values()):
            if pwm_msg:
                await self.send(client, pwm_msg)
            await self.send_to(client, shared, frame)

    async def send_to(self, client, shared, frame):
        if frame is not client.frame:
            client.frame = frame
            await self.send(client, bytes((OLED_FRAME,)) + frame)
        state = _json(self.hub.state_for(client.cid, shared))
        if state != client.state:
            client.state = state
            await self.send(client, state)

    async def send(self, client, data):
        if client.ws.closed:
            return
        try:
            if isinstance(data, bytes):
                await client.ws.send_bytes(data)
            else:
                await client.ws.send_str(data)
        except (ConnectionError, RuntimeError):
            pass


def make_table(variant="tapp_modern", players=3, mode="strict", seed=1, lang="de",
               robots=True, speed=1.0, autoplay=False, root=None, away_s=AWAY_S,
               table_class=VirtualTable):
    """The table and its hub; with ``root`` (a flash directory) a session found
    there is resumed from its journal, as the device does when switched on.
    ``table_class``: the runtime's table (host_sim/runtimes.py ``table_class``)."""
    flash = TableDir(root)
    table = flash.open(table_class, variant, players, mode, lang)
    hub = TableHub(variant, players, mode, seed=seed, lang=lang, robots=flash.robots(robots),
                   autoplay=autoplay, table=table, dealt=flash.dealt(),
                   claims=flash.claims(), flash=flash)
    hub.resumed = flash.resumed
    return WebTable(hub, speed=speed, away_s=away_s)


async def start(web_table, port):
    """Listen on 127.0.0.1:``port`` (0: any free port); returns (runner, port)."""
    runner = web.AppRunner(web_table.app, access_log=None)
    await runner.setup()
    site = web.TCPSite(runner, HOST, port)
    await site.start()
    return runner, runner.addresses[0][1]


class ServerThread:
    """The server in a thread of its own (tests, screenshot.py): ``url``, ``call``."""

    def __init__(self, port=0, **table_args):
        self.web_table = make_table(**table_args)
        self.hub = self.web_table.hub
        self.loop = asyncio.new_event_loop()
        self.ready = threading.Event()
        self.runner = None
        self.port = port
        self.error = None
        self.thread = threading.Thread(target=self._run, name="sim-web", daemon=True)

    def _run(self):
        asyncio.set_event_loop(self.loop)
        try:
            self.runner, self.port = self.loop.run_until_complete(
                start(self.web_table, self.port))
        except OSError as exc:
            self.error = exc
            self.ready.set()
            return
        self.ready.set()
        self.loop.run_forever()
        self.loop.run_until_complete(self.runner.cleanup())
        self.loop.close()

    def __enter__(self):
        self.thread.start()
        self.ready.wait(10)
        if self.error:
            raise self.error
        return self

    def __exit__(self, *exc):
        self.loop.call_soon_threadsafe(self.loop.stop)
        self.thread.join(10)

    @property
    def url(self):
        return "http://%s:%d/" % (HOST, self.port)

    def call(self, fn):
        """Run ``fn(hub)`` in the server's thread (between ticks); its result."""
        async def run():
            return fn(self.web_table.hub)
        return asyncio.run_coroutine_threadsafe(run(), self.loop).result(10)


def serve(args):
    """``tapptable sim --web``: serve until Ctrl+C."""
    root = getattr(args, "table_dir", None) or state_dir(
        args.variant, args.players, args.mode, args.lang)
    try:
        from host_sim.runtimes import table_class
        web_table = make_table(args.variant, args.players, args.mode, seed=args.seed,
                               lang=args.lang, root=root,
                               table_class=table_class(getattr(args, "runtime", "cpython")))
    except (OSError, ValueError, KeyError) as exc:
        print("tapptable sim: %s" % exc, file=sys.stderr)
        return 2

    listen = PORT if args.port is None else args.port

    async def main():
        try:
            runner, port = await start(web_table, listen)
        except OSError as exc:
            why = "the port is in use; choose another with --port" \
                if exc.errno == errno.EADDRINUSE else (exc.strerror or str(exc))
            print("tapptable sim: cannot listen on %s:%d: %s" % (HOST, listen, why),
                  file=sys.stderr)
            return 2
        print("The virtual table: http://%s:%d/  (%s, %d players, %s mode; Ctrl+C stops)"
              % (HOST, port, args.variant, args.players, args.mode), flush=True)
        resumed = web_table.hub.resumed
        print("Its flash: %s -- %s" % (root, (
            "the session found there was taken up from its journal (%d deals, %d events)"
            % (resumed["deals"], resumed["events"])) if resumed else "a new session"),
            flush=True)
        try:
            await asyncio.Event().wait()
        finally:
            await runner.cleanup()
        return 0

    try:
        return asyncio.run(main())
    except KeyboardInterrupt:
        print("stopped")
        return 0
