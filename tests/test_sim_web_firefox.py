"""`tapptable sim --web` in Firefox (Debian's firefox-esr, headless).

Playwright drives only its own patched Firefox build, which cannot be
downloaded everywhere; a stock Firefox speaks WebDriver BiDi, the W3C protocol
(https://w3c.github.io/webdriver-bidi/), over a WebSocket.  These tests use
just enough of it (a session, navigate, evaluate, key presses) through
aiohttp's WebSocket client to check that the page works in Firefox as in
Chromium (tests/test_sim_web.py has the full end-to-end tests): it connects,
draws the OLED, takes seats and the deal by clicks, answers the buttons'
keys, and throws no error.
"""
import asyncio
import json
import os
import re
import shutil
import subprocess
import tempfile
import time

import aiohttp
import pytest

from tools.tapptable.sim_web.server import ServerThread

FIREFOX = "/usr/bin/firefox-esr"
INSTALL = "apt-get update && apt-get install -y firefox-esr"
SPEED = 5.0
LISTENING = re.compile(r"WebDriver BiDi listening on (ws://\S+)")


class Bidi:
    """A WebDriver BiDi session on one browsing context."""

    def __init__(self, ws):
        self.ws = ws
        self.next_id = 0
        self.context = None

    async def send(self, method, **params):
        self.next_id += 1
        await self.ws.send_str(json.dumps({"id": self.next_id, "method": method,
                                           "params": params}))
        while True:
            msg = json.loads((await self.ws.receive()).data)
            if msg.get("id") == self.next_id:
                if msg.get("type") == "error":
                    raise AssertionError("%s: %s" % (method, msg.get("message")))
                return msg["result"]

    async def start(self, url):
        await self.send("session.new", capabilities={})
        tree = await self.send("browsingContext.getTree")
        self.context = tree["contexts"][0]["context"]
        # errors of the page's own scripts, collected from before they run
        await self.send("script.addPreloadScript", functionDeclaration=(
            "() => { window.pageErrors = []; window.addEventListener('error', "
            "e => window.pageErrors.push(String(e.message))); }"))
        await self.send("browsingContext.navigate", context=self.context, url=url,
                        wait="complete")

    async def eval(self, expression):
        res = await self.send("script.evaluate", expression=expression,
                              target={"context": self.context}, awaitPromise=True)
        if res.get("type") == "exception":
            raise AssertionError("%s: %s" % (expression, res["exceptionDetails"]["text"]))
        return _value(res["result"])

    async def wait_for(self, expression, limit_s=45.0):
        end = time.monotonic() + limit_s
        while time.monotonic() < end:
            if await self.eval(expression):
                return
            await asyncio.sleep(0.05)
        raise AssertionError("timed out waiting for " + expression)

    async def key(self, value):
        await self.send("input.performActions", context=self.context, actions=[{
            "type": "key", "id": "keyboard", "actions": [
                {"type": "keyDown", "value": value}, {"type": "keyUp", "value": value}]}])


def _value(remote):
    """A BiDi remote value as Python data (primitives and arrays are enough here)."""
    kind = remote.get("type")
    if kind == "array":
        return [_value(v) for v in remote["value"]]
    if kind in ("undefined", "null"):
        return None
    return remote.get("value")


@pytest.fixture
def firefox():
    """Headless firefox-esr with a fresh profile; the BiDi WebSocket's URL."""
    if not os.path.exists(FIREFOX):
        pytest.fail("Firefox is missing; install Debian's package: %s" % INSTALL,
                    pytrace=False)
    profile = tempfile.mkdtemp(prefix="tapptable-firefox-")
    proc = subprocess.Popen([FIREFOX, "--headless", "--no-remote", "--profile", profile,
                             "--remote-debugging-port", "0", "about:blank"],
                            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    try:
        url = None
        end = time.monotonic() + 60
        while url is None and time.monotonic() < end:
            line = proc.stderr.readline()
            if not line:
                break
            found = LISTENING.search(line)
            if found:
                url = found.group(1)
        assert url, "firefox-esr did not open its WebDriver BiDi port"
        yield url.rstrip("/") + "/session"
    finally:
        proc.kill()
        proc.wait()
        proc.stderr.close()
        shutil.rmtree(profile, ignore_errors=True)


def wait_until(srv, check, what, limit_s=15.0):
    end = time.monotonic() + limit_s
    while time.monotonic() < end:
        if srv.call(check):
            return
        time.sleep(0.02)
    raise AssertionError("timed out waiting for " + what)


def test_the_page_works_in_firefox(firefox):
    with ServerThread(variant="tapp_modern", players=3, mode="strict", seed=3,
                      robots=False, speed=SPEED) as srv:
        async def session():
            async with aiohttp.ClientSession() as http, \
                    http.ws_connect(firefox, max_msg_size=0) as ws:
                page = Bidi(ws)
                await page.start(srv.url)
                await page.wait_for("window.tappSim && tappSim.states > 0 && "
                                    "tappSim.frames > 0")
                # the OLED canvas shows what the display model shows
                screen = srv.call(lambda hub: hub.table.screen())
                await page.wait_for("document.querySelector('#oled-text').textContent"
                                    " === %s" % json.dumps("\n".join(screen)))
                lit = await page.eval(
                    "(() => { const c = document.querySelector('canvas');"
                    " const d = c.getContext('2d').getImageData(0, 0, c.width, c.height)"
                    ".data; let n = 0; for (let i = 0; i < d.length; i += 4)"
                    " if (d[i] + d[i + 1] + d[i + 2] > 200) n++; return n; })()")
                assert lit > 100, lit
                # seats and the deal by clicks
                for seat in range(3):
                    await page.eval("document.querySelector(\"[data-claim='%d']\").click()"
                                    % seat)
                    await page.wait_for("!!document.querySelector(\"[data-release='%d']\")"
                                        % seat)
                await page.eval("document.querySelector('#deal-all').click()")
                await page.wait_for("tappSim.state.step === 'game'", limit_s=60)
                # the OK button's key answers the first question of the auction
                before = srv.call(lambda hub: len(hub.table.journal_lines()))
                await page.eval("document.activeElement && document.activeElement.blur()")
                await page.key("o")
                wait_until(srv, lambda hub: len(hub.table.journal_lines()) > before,
                           "the key o to press OK")
                assert await page.eval("window.pageErrors") == []
        asyncio.run(session())
