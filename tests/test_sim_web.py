"""`tapptable sim --web`: the virtual table in the browser.

End to end in headless Chromium (Debian's /usr/bin/chromium driven by
Playwright; Playwright's own browser download is never used): a whole deal by
drags and clicks, an illegal card refused with the device's message on the
page's OLED text, two tabs watching one table, seat claiming.  And the
WebSocket protocol with aiohttp's own client, no browser.

The server runs in a thread of this process (``ServerThread``) with its clock
running faster than wall time (``SPEED``) to keep the suite short.
"""
import asyncio
import json
import os
import random
import shutil
import tempfile
import threading
import time

import aiohttp
import pytest

from table.names import card_text as _card_text
from table.texts import error_text
from tapp import errors as E
from tapp.cards import CODE_INDEX, RANKS
from tools.tapptable.sim_web.server import ServerThread

CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic",
                 "--no-first-run", "--disable-background-networking",
                 "--disable-component-update", "--disable-sync"]
INSTALL = "apt-get update && apt-get install -y chromium"
SPEED = 5.0                 # virtual ms per wall ms
# The waits are ceilings, not delays: a passing test never waits them out.  They
# leave room for the whole suite's load (every core busy with the emulated Pico
# and the MicroPython VMs beside Chromium): 10-15 s timed out twice in 4 runs.
TIMEOUT = 45_000            # ms for one wait in the page
WAIT_S = 30.0               # s for one wait on the table (``wait_until``)
AWAY_S = 1.0                # a tab that has gone keeps its seats this long (wall s)


# ----------------------------------------------------------------- fixtures


@pytest.fixture(scope="module")
def browser():
    """One Chromium (fresh profile) for the module; tests open their own tabs."""
    if not (os.path.exists(CHROMIUM) or shutil.which("chromium")):
        pytest.fail("Chromium is missing; install Debian's package: %s" % INSTALL,
                    pytrace=False)
    from playwright.sync_api import sync_playwright
    profile = tempfile.mkdtemp(prefix="tapptable-chromium-")
    with sync_playwright() as p:
        ctx = p.chromium.launch_persistent_context(
            profile, executable_path=CHROMIUM if os.path.exists(CHROMIUM)
            else shutil.which("chromium"), headless=True, args=CHROMIUM_ARGS,
            viewport={"width": 1280, "height": 900})
        ctx.set_default_timeout(TIMEOUT)
        yield ctx
        ctx.close()
    shutil.rmtree(profile, ignore_errors=True)


@pytest.fixture
def server():
    with ServerThread(variant="tapp_modern", players=3, mode="strict", seed=3,
                      robots=False, speed=SPEED, away_s=AWAY_S) as srv:
        yield srv


@pytest.fixture
def tabs(browser):
    """Opens tabs (``tabs(srv)``) and closes them after the test."""
    pages = []

    def open_tab(srv):
        page = open_table(browser, srv)
        pages.append(page)
        return page
    yield open_tab
    for page in pages:
        page.close()


def open_table(browser, srv):
    page = browser.new_page()
    errors = []
    page.on("pageerror", lambda exc: errors.append(str(exc)))
    page.errors = errors
    page.goto(srv.url)
    page.wait_for_function("window.tappSim && tappSim.states > 0 && tappSim.frames > 0")
    return page


# the deck is dealt and its last card lifted off the centre reader into its hand
DEALT = ("tappSim.state.step === 'game' && tappSim.state.deck === 0 && !tappSim.state.dealing"
         " && tappSim.state.readers.every((r) => r.length === 0)")


def state(page):
    return page.evaluate("window.tappSim.state")


def oled_text(page):
    return page.text_content("#oled-text")


def wait_until(srv, check, what, limit_s=WAIT_S):
    """Poll the hub (in the server's thread) until ``check(hub)`` is true."""
    end = time.monotonic() + limit_s
    while time.monotonic() < end:
        if srv.call(check):
            return
        time.sleep(0.02)
    seen = srv.call(lambda hub: {
        "screen": hub.table.screen(), "hub_readers": hub.on_reader,
        "placed": [hub.tv.placed(i) for i in range(hub.centre + 1)],
        "refused": [hub.tv.refused(i) for i in range(hub.centre + 1)],
        "jammed": [hub.tv.jammed(i) for i in range(hub.centre + 1)],
        "trick": hub.view.trick(), "turn": hub.view.turn(),
        "dealt": hub.tv.deal_scanned(), "tags": [
            [t.uid.hex() for t in tags] for tags in hub.table.tags]})
    raise AssertionError("timed out waiting for %s; the table: %r" % (what, seen))


def claim(page, seat):
    page.click("[data-claim='%d']" % seat)
    page.wait_for_selector("[data-release='%d']" % seat)


def sit_among_others(page, srv, seat):
    """This tab sits at ``seat``, another tab at the other seats and deals."""
    claim(page, seat)

    def sit(hub):
        for other in range(hub.players):
            if other != seat:
                hub.claim("other", other)
        hub.deal("other")
    srv.call(sit)
    wait_until(srv, lambda hub: hub.tv.mode() == "play", "the deal", 2 * WAIT_S)


def drag(page, card, reader):
    page.locator(".hand .card[data-card='%s']" % card).drag_to(
        page.locator(".reader[data-reader='%s']" % reader))


def press_ok(page, srv):
    """Click OK and wait until the display shows its answer.  The last OK's
    button goes up PRESS_MS of virtual time after the display changed; a click
    before that is refused ("that button is being held"), so wait for it first."""
    wait_until(srv, lambda hub: not hub.held, "the OK button released")
    before = oled_text(page)
    page.click(".hw[data-key='ok']")
    page.wait_for_function("t => document.querySelector('#oled-text').textContent !== t",
                           arg=before)


def deal_and_bid(page, srv):
    """All three seats in this tab: deal, then OK to every question until the
    first card is due (seed 3: a Frage with a discard, over the centre reader by
    click card, click reader)."""
    page.click("#deal-all")
    page.wait_for_function("tappSim.state.step === 'game'", timeout=2 * TIMEOUT)
    for _ in range(30):
        expects = srv.call(lambda hub: hub.view.expects())
        if expects == "card":
            return
        if expects == "discard":
            decl = srv.call(lambda hub: hub.view.declarer())
            card = srv.call(lambda hub, d=decl: hub.hand(d)[0])
            page.click(".hand .card[data-card='%s']" % card)          # choose ...
            page.click("#reader-centre")                                # ... and place
            wait_until(srv, lambda hub, c=card: hub.tv.refused(hub.centre) or
                       c in hub.taken_discards() or hub.view.expects() != "discard",
                       "the discard")
            page.click("#reader-centre")                                # lift it
            wait_until(srv, lambda hub: not hub.on_reader[hub.centre], "the lift")
            continue
        press_ok(page, srv)
    raise AssertionError("the auction did not end")


# ----------------------------------------------------------------- browser tests


def test_full_deal_by_drags(tabs, server):
    page = tabs(server)
    for seat in range(3):
        claim(page, seat)
    deal_and_bid(page, server)
    tricks = 0
    for _ in range(200):
        info = server.call(lambda hub: {
            "mode": hub.tv.mode(), "turn": hub.view.turn(), "clearing": hub.tv.clearing(),
            "legal": hub.view.legal_cards(), "hands": [hub.hand(s) for s in range(3)],
            "readers": [len(r) for r in hub.on_reader], "n": hub.view.trick_number(),
            "size": hub.view.trick_size()})
        if info["mode"] != "play" and not any(info["readers"][:3]):
            break
        if info["clearing"] or info["mode"] != "play":
            for seat in range(3):
                if info["readers"][seat]:
                    page.click(".reader[data-reader='%d']" % seat)      # lift (no card chosen)
            wait_until(server, lambda hub: not any(hub.on_reader[:3]) and
                       not hub.tv.clearing(), "the table cleared")
            tricks += 1
            continue
        seat = info["turn"]
        card = sorted(c for c in info["legal"] if c in info["hands"][seat])[0]
        drag(page, card, seat)
        before = (info["n"], info["size"])
        wait_until(server, lambda hub, b=before: (hub.view.trick_number(),
                   hub.view.trick_size()) != b or not hub.view.in_deal(), "the play")
    else:
        raise AssertionError("the deal did not end")
    page.wait_for_function("tappSim.state.step === 'result' && tappSim.state.deals === 1")
    st = state(page)
    assert tricks == len(st["tricks"]) and tricks >= 1
    assert st["history"][0] == [0, 0, 0] and st["history"][1] == st["balances"]
    assert st["history"][1] != [0, 0, 0]
    # the score sheet: a row for deal 1 and one line per seat in the chart
    assert page.locator("#score-table tbody tr").count() == 2
    assert page.locator("#chart polyline").count() == 3
    assert page.locator("#tricks li").count() == tricks
    screen = server.call(lambda hub: hub.table.screen())
    assert oled_text(page) == "\n".join(screen)
    assert "OK" in screen[-1]                                  # "OK: neues Spiel"
    assert page.errors == []


def test_a_state_update_leaves_the_cards_and_readers_in_place(tabs, server):
    """The page may be pressed at any moment: a state (an LED, the turn, a reader
    changed) must not replace the node under the pointer nor move it.  A card's
    button lives as long as the card is in the hand; the readers and the claim
    buttons stay; the hands do not move when the turn passes or a card lies on a
    reader.  (Replaced nodes lost drags and clicks: the mousedown on the old node,
    the drag never started or the click went to the seat.)"""
    page = tabs(server)
    for seat in range(3):
        claim(page, seat)
    deal_and_bid(page, server)
    page.evaluate("""() => {
        window.kept = [...document.querySelectorAll(
          '.seat .hand .card, .seat .reader, .seat .claim, #reader-centre')];
        window.handTops = [...document.querySelectorAll('.seat .hand')].map(
          (h) => h.getBoundingClientRect().top);
      }""")
    lead = server.call(lambda hub: hub.view.turn())
    card = server.call(lambda hub: sorted(hub.view.legal_cards())[0])
    # by keyboard: Enter plays the focused card; the focus goes on to its neighbour
    page.locator(".hand .card[data-card='%s']" % card).focus()
    page.keyboard.press("Enter")
    wait_until(server, lambda hub: hub.view.trick_size() == 1, "the lead")
    page.wait_for_function("([s, c]) => tappSim.state.turn !== s && "
                           "tappSim.state.readers[s].includes(c)", arg=[lead, card])
    focused = page.evaluate("""() => [document.activeElement.classList.contains('card'),
        document.activeElement.dataset.seat]""")
    assert focused == [True, str(lead)]
    gone = page.evaluate("""(c) => window.kept.filter((el) => !el.isConnected)
        .map((el) => el.dataset.card || el.dataset.reader || el.className)""", card)
    assert gone == [card]                           # only the card played left the page
    tops = page.evaluate("""() => [...document.querySelectorAll('.seat .hand')].map(
        (h) => h.getBoundingClientRect().top)""")
    assert tops == page.evaluate("window.handTops")
    assert page.errors == []


def test_illegal_card_refused_with_the_message_on_the_oled(tabs, server):
    page = tabs(server)
    for seat in range(3):
        claim(page, seat)
    page.click("#sound")                               # Web Audio on: the buzzer plays
    assert page.get_attribute("#sound", "aria-pressed") == "true"
    deal_and_bid(page, server)
    lead = server.call(lambda hub: hub.view.turn())
    first = server.call(lambda hub: sorted(hub.view.legal_cards())[0])
    drag(page, first, lead)
    wait_until(server, lambda hub: hub.view.trick_size() == 1, "the lead")
    seat = server.call(lambda hub: hub.view.turn())
    wrong = server.call(lambda hub, s=seat: sorted(
        c for c in hub.hand(s) if c not in hub.view.legal_cards()))
    assert wrong, "seed 3: the second hand cannot follow with every card"
    # by keyboard: focus the card, Enter places it on its seat's reader
    page.locator(".hand .card[data-card='%s']" % wrong[0]).focus()
    page.keyboard.press("Enter")
    wait_until(server, lambda hub, s=seat: hub.tv.refused(s), "the refusal")
    message = server.call(lambda hub: hub.tv.message())
    page.wait_for_function("document.querySelector('#hint').textContent.includes('lift it')")
    assert message in [error_text(code, "de") for code in (
        E.MUST_FOLLOW, E.MUST_TRUMP, E.MUST_OVERTRUMP)]
    page.wait_for_function("m => document.querySelector('#oled-text').textContent.includes(m)",
                           arg=message)
    page.wait_for_function("s => tappSim.state.leds[s].state === 'refused'", arg=seat)
    # the reject tone (330 Hz, then 262 Hz) reached the page's Web Audio player
    page.wait_for_function("tappSim.pwm.some(([t, f, on]) => on && f === 262)")
    assert server.call(lambda hub: hub.view.trick_size()) == 1          # nothing played
    # L on the focused reader lifts the card back into the hand
    page.locator(".reader[data-reader='%d']" % seat).focus()
    page.keyboard.press("l")
    page.wait_for_function("([s, c]) => tappSim.state.hands[s].cards.includes(c)",
                           arg=[seat, wrong[0]])
    assert page.errors == []


def first_card(page, srv):
    """This tab takes every seat, deals, bids and leads; returns the trick."""
    for seat in range(3):
        claim(page, seat)
    deal_and_bid(page, srv)
    seat = srv.call(lambda hub: hub.view.turn())
    card = srv.call(lambda hub, s=seat: hub.view.legal_cards()[0])
    drag(page, card, seat)
    wait_until(srv, lambda hub: hub.view.trick_size() == 1, "the first card")
    return srv.call(lambda hub: hub.view.trick())


def test_power_cut_and_resume_shows_the_same_trick(tabs, server):
    page = tabs(server)
    trick = first_card(page, server)
    journal = server.call(lambda hub: len(hub.table.journal_lines()))
    before = server.call(lambda hub: hub.table.screen())
    page.click("#power")
    wait_until(server, lambda hub: hub.table.screen() == before, "the same screen again")
    assert server.call(lambda hub: hub.view.trick()) == trick
    assert server.call(lambda hub: len(hub.table.journal_lines())) == journal
    page.wait_for_function("t => document.querySelector('#oled-text').textContent === t",
                           arg="\n".join(before))
    assert page.errors == []


def test_two_tabs_watch_the_same_table(tabs, server):
    one = tabs(server)
    two = tabs(server)
    claim(one, 0)
    one.click(".hw[data-key='next']")                  # something changes on the screen
    for page in (one, two):
        page.wait_for_function("tappSim.state.claims[0] !== null")
    screen = "\n".join(server.call(lambda hub: hub.table.screen()))
    for page in (one, two):
        page.wait_for_function("t => document.querySelector('#oled-text').textContent === t",
                               arg=screen)
    pixels = [p.evaluate("document.querySelector('#oled').toDataURL()") for p in (one, two)]
    assert pixels[0] == pixels[1]
    lit = server.call(lambda hub: sum(bin(b).count("1") for b in hub.oled_frame()))
    assert lit > 0
    assert one.evaluate("tappSim.lit") == two.evaluate("tappSim.lit") == lit
    # what the device shows is the same; the hands are not: only the seat's tab sees them
    assert state(one)["claims"][0] == "you" and state(two)["claims"][0] == "taken"
    one.click("#deal-all")
    for page in (one, two):
        page.wait_for_function(DEALT, timeout=2 * TIMEOUT)
    assert len(state(one)["hands"][0]["cards"]) == 11
    assert state(two)["hands"][0]["cards"] is None
    assert two.locator(".seat[data-seat='0'] .hand .card[data-card]").count() == 0
    assert one.locator(".seat[data-seat='0'] .hand .card[data-card]").count() == 11
    assert one.errors == two.errors == []


def test_a_taken_seat_cannot_be_claimed_or_used(tabs, server):
    one = tabs(server)
    two = tabs(server)
    claim(one, 0)
    two.wait_for_function("tappSim.state.claims[0] === 'taken'")
    assert two.locator("[data-claim='0']").count() == 0        # no "Sit here" any more
    assert two.locator(".hw[data-key='ok']").is_disabled()     # watchers press nothing
    # the watcher tries anyway (a crafted request): refused, nothing changes
    two.evaluate("""() => new Promise((done) => {
        const ws = new WebSocket(`ws://${location.host}/ws`);
        ws.onmessage = (ev) => {
          if (typeof ev.data === 'string' && JSON.parse(ev.data).t === 'welcome') {
            ws.send(JSON.stringify({t: 'claim', seat: 0}));
            ws.send(JSON.stringify({t: 'lift', reader: 0}));
          }
          if (typeof ev.data === 'string' && JSON.parse(ev.data).t === 'error') {
            window.refusals = (window.refusals || []).concat([JSON.parse(ev.data).text]);
            if (window.refusals.length === 2) { ws.close(); done(); }
          }
        };
      })""")
    assert two.evaluate("window.refusals") == ["seat 1 is taken", "take a seat first"]
    assert server.call(lambda hub: hub.claims[0]) is not None
    # the watcher clicks a reader: the page says why nothing happens
    two.click(".reader[data-reader='1']")
    two.wait_for_function("document.querySelector('#toast').textContent.length > 0")
    # the first tab stands up; now the second may sit there
    one.click("[data-release='0']")
    two.wait_for_selector("[data-claim='0']")
    claim(two, 0)
    one.wait_for_function("tappSim.state.claims[0] === 'taken'")
    assert one.errors == two.errors == []


# ----------------------------------------------------------------- protocol, no browser


async def _receive(ws, want, limit=10.0):
    """The next message of type ``want`` ("binary" for an OLED frame)."""
    async def loop():
        while True:
            msg = await ws.receive()
            if msg.type == aiohttp.WSMsgType.BINARY and want == "binary":
                return msg.data
            if msg.type == aiohttp.WSMsgType.TEXT:
                data = json.loads(msg.data)
                if data["t"] == want:
                    return data
            if msg.type in (aiohttp.WSMsgType.CLOSED, aiohttp.WSMsgType.ERROR):
                raise AssertionError("connection closed")
    return await asyncio.wait_for(loop(), limit)


async def _state_where(ws, check, limit=20.0):
    async def loop():
        while True:
            st = await _receive(ws, "state", limit)
            if check(st):
                return st
    return await asyncio.wait_for(loop(), limit)


def test_websocket_protocol(server):
    url = server.url.replace("http", "ws") + "ws"

    async def run():
        async with aiohttp.ClientSession() as session:
            a = await session.ws_connect(url)
            welcome = await _receive(a, "welcome")
            assert welcome["players"] == 3 and welcome["centre"] == 3
            frame = await _receive(a, "binary")
            assert len(frame) == 1 + 128 * 64 // 8 and frame[0] == 1
            # the frame is the display model's pixels, bit for bit
            expect = server.call(lambda hub: [hub.table.board.oled.visible(x, y)
                                              for y in range(64) for x in range(128)])
            got = [(frame[1 + (i >> 3)] >> (7 - (i & 7))) & 1 for i in range(128 * 64)]
            assert got == expect
            st = await _receive(a, "state")
            assert st["claims"] == [None, None, None] and st["you"] == []
            assert st["screen"] == server.call(lambda hub: hub.table.screen())
            assert st["step"] == "dealing" and st["deck"] == 36

            b = await session.ws_connect(url)
            await _receive(b, "welcome")
            await a.send_json({"t": "claim", "seat": 1})
            await _state_where(a, lambda s: s["claims"][1] == "you")
            await b.send_json({"t": "claim", "seat": 1})
            assert (await _receive(b, "error"))["text"] == "seat 2 is taken"
            await b.send_json({"t": "place", "card": "HA", "reader": 1})
            assert (await _receive(b, "error"))["text"] == "take a seat first"
            await b.send_json({"t": "nonsense"})
            assert (await _receive(b, "error"))["text"] == "unknown request"
            await b.send_str("[not json")
            assert (await _receive(b, "error"))["text"] == "unknown request"
            await a.send_json({"t": "press", "key": ["ok"]})
            assert (await _receive(a, "error"))["text"] == "bad request"
            await a.send_json({"t": "lift", "reader": 7})
            assert (await _receive(a, "error"))["text"] == "that is not your reader"
            await a.send_json({"t": "place", "card": "HA", "reader": 1})
            assert "not in your hand" in (await _receive(a, "error"))["text"]

            # deal one card by hand: the deck's top card over the centre reader
            await a.send_json({"t": "place", "card": "deck", "reader": 3})
            st = await _state_where(a, lambda s: s["readers"][3])
            card = st["readers"][3][0]
            pwm = await _receive(a, "pwm")                  # the accept blip
            assert any(on and freq > 1000 for _t, freq, on in pwm["events"])
            await _state_where(a, lambda s: "Karte 1/" in "".join(s["screen"]))
            await a.send_json({"t": "lift", "reader": 3})
            st = await _state_where(a, lambda s: not s["readers"][3])
            owner = [s for s in range(3) if st["hands"][s]["count"]]
            assert len(owner) == 1 and st["deck"] == 35
            if owner == [1]:
                assert st["hands"][1]["cards"] == [card]
            else:
                assert st["hands"][owner[0]]["cards"] is None     # another seat's card

            # a whole short press by down/up, and the rest of the deal
            await a.send_json({"t": "button", "key": "next", "down": True})
            await _state_where(a, lambda s: s["held"] == ["next"])
            await a.send_json({"t": "button", "key": "next", "down": False})
            await _state_where(a, lambda s: s["held"] == [])
            await a.send_json({"t": "deal"})
            st = await _state_where(a, lambda s: s["step"] == "game", limit=40)
            assert st["hands"][1]["count"] == 11 and len(st["hands"][1]["cards"]) == 11
            # b watches: the same screen, no cards face up
            st_b = await _state_where(b, lambda s: s["step"] == "game")
            assert all(h["cards"] is None for h in st_b["hands"])
            # leaving keeps the seat a while (a reload), then frees it
            await a.close()
            await asyncio.sleep(0.2)
            assert server.call(lambda hub: hub.claims[1]) is not None
            await _state_where(b, lambda s: s["claims"][1] is None)
            await b.close()

    in_own_thread(run)


def in_own_thread(coro_fn):
    """asyncio.run in a thread of its own (Playwright's loop may hold this one)."""
    box = {}

    def target():
        try:
            asyncio.run(coro_fn())
        except BaseException as exc:          # re-raised in the test's thread
            box["error"] = exc
    worker = threading.Thread(target=target)
    worker.start()
    worker.join(120)
    if "error" in box:
        raise box["error"]


# ----------------------------------------------------------------- a person among robots


@pytest.fixture
def robot_server(tmp_path):
    """Robots play the free seats; the table keeps its flash in ``tmp_path`` (a
    restarted server takes the session up from there)."""
    with ServerThread(variant="tapp_modern", players=3, mode="strict", seed=3,
                      robots=True, speed=2 * SPEED, away_s=AWAY_S,
                      root=str(tmp_path)) as srv:
        srv.root = str(tmp_path)
        yield srv


def person_step(page, srv, seat=0):
    """One thing the person at ``seat`` does if the table waits for him: deal,
    answer his question (the entry shown: the pass or "play on"), lay away the
    first cards, play his first legal card, lift his card off a complete trick,
    start the next deal.  Returns what he did, or "" (the robots' move)."""
    st = state(page)
    if st["step"] == "dealing" and st["dealer"] == seat and not st["dealing"]:
        page.click("#deal-all")
        return "dealt"
    if st["step"] == "result":
        if st["readers"][seat]:
            page.click(".reader[data-reader='%d']" % seat)
            return "lifted"
        if not any(st["readers"][:st["players"]]):
            wait_until(srv, lambda hub: not hub.held, "the OK button released")
            page.click(".hw[data-key='ok']")
            page.wait_for_function("tappSim.state.step !== 'result'")
            return "next deal"
        return ""
    if st["step"] != "game":
        return ""
    if st["readers"][seat] and (st["clearing"] or st["refused"][seat]):
        page.click(".reader[data-reader='%d']" % seat)
        wait_until(srv, lambda hub: not hub.on_reader[seat], "the lift")
        return "lifted"
    if seat in st["question"]:
        press_ok(page, srv)
        return "answered"
    if st["expects"] == "discard" and st["declarer"] == seat:
        card = st["hands"][seat]["cards"][0]
        page.click(".hand .card[data-card='%s']" % card)
        page.click("#reader-centre")
        wait_until(srv, lambda hub: hub.tv.refused(hub.centre) or card in hub.taken_discards(),
                   "the discard")
        page.click("#reader-centre")
        wait_until(srv, lambda hub: not hub.on_reader[hub.centre], "the lift")
        return "discarded"
    if st["expects"] == "card" and st["turn"] == seat and not st["readers"][seat] \
            and not st["clearing"]:
        legal = srv.call(lambda hub: hub.players_model.legal_cards(seat))
        before = srv.call(lambda hub: (hub.view.trick_number(), hub.view.trick_size()))
        drag(page, sorted(legal)[0], seat)
        wait_until(srv, lambda hub: (hub.view.trick_number(), hub.view.trick_size()) != before
                   or not hub.view.in_deal(), "the play")
        return "played"
    return ""


# what the person at seat 0 does in the first two deals of seed 3 (the robot
# server's): deals, answers the first question, plays cards by drags, lifts
# his card off complete tricks, starts the next deal
PERSON_DOES = {"dealt", "answered", "played", "lifted", "next deal"}


def test_a_person_among_robots_two_deals(tabs, robot_server):
    """A person at seat 0, the robots at the others: whole deals by clicks,
    drags and buttons, never stuck, until two deals are settled and the person
    has done each of his things (PERSON_DOES) at least once.  On the way: the
    hints say what to do (lift a complete trick; the display's "Tisch
    abräumen" once), the results name names, a reload keeps the seat (no robot
    plays it meanwhile).  Later deals repeat these steps (five took 50 s here;
    many deals: the session scenarios, in both runtimes)."""
    srv = robot_server
    page = tabs(srv)
    claim(page, 0)
    assert "Tapp neu" in page.text_content("#game-info")
    assert page.locator(".hand.closed .count").count() == 0          # no "0" under readers
    reloaded = trick_hint = False
    deals = 0
    done = set()
    for _ in range(3000):
        if state(page)["deals"] >= 2 and done >= PERSON_DOES and reloaded and trick_hint \
                or state(page)["deals"] >= 5:
            break
        st = state(page)
        if st["clearing"] and st["readers"][0] and not trick_hint:
            assert "lift your card" in page.text_content("#hint")
            assert oled_text(page).count("Tisch abräumen") == 1
            trick_hint = True
        if not reloaded and st["step"] == "game" and st["expects"] == "card" \
                and st["turn"] == 0 and not st["readers"][0] and not st["clearing"]:
            plays = srv.call(lambda hub: len(hub.table.journal_lines()))
            page.reload()
            page.wait_for_function("window.tappSim && tappSim.states > 0")
            page.wait_for_function("tappSim.state.claims[0] === 'you'")
            time.sleep(1.0)                      # 5 s of table time: robots would have played
            assert srv.call(lambda hub: len(hub.table.journal_lines())) == plays
            assert len(state(page)["hands"][0]["cards"]) == st["hands"][0]["count"]
            reloaded = True
            continue
        did = person_step(page, srv)
        done.add(did)
        if not did:
            time.sleep(0.05)
        if state(page)["deals"] > deals:
            deals = state(page)["deals"]
            result = page.text_content("#result")
            assert "_" not in result, result                           # no raw ids
    assert state(page)["deals"] >= 2, state(page)["screen"]
    assert done >= PERSON_DOES, done
    assert reloaded and trick_hint
    assert page.errors == []


def test_a_restarted_server_resumes_from_the_journal(browser, tmp_path):
    kw = dict(variant="tapp_modern", players=3, mode="strict", seed=3, robots=False,
              speed=SPEED, away_s=WAIT_S, root=str(tmp_path))   # (a busy machine may take
    # longer than AWAY_S to bring the tab back: its seats must still be its own then)
    with ServerThread(**kw) as srv:
        page = open_table(browser, srv)
        trick = first_card(page, srv)
        events = srv.call(lambda hub: len(hub.table.journal_lines())) - 1
        port = srv.port
        assert page.is_hidden("#resumed")
    # the server is gone: the page says so and cannot be used
    page.wait_for_function("document.body.dataset.connected === '0'")
    assert page.is_visible("#offline")
    assert page.evaluate("getComputedStyle(document.querySelector('main')).pointerEvents") \
        == "none"
    assert page.locator(".hw[data-key='ok']").is_disabled()
    with ServerThread(port=port, **kw) as srv:
        assert srv.call(lambda hub: hub.view.trick()) == trick
        page.wait_for_function("document.body.dataset.connected === '1'", timeout=2 * TIMEOUT)
        page.wait_for_selector("#resumed:not([hidden])")
        assert "journal" in page.text_content("#resumed")
        assert "%d events" % events in page.text_content("#resumed")
        # the tab's token: its seats are still its own
        page.wait_for_function("tappSim.state.you.length === 3")
        assert not page.locator(".hw[data-key='ok']").is_disabled()
    page.close()


def test_narrow_screen_keeps_the_display_and_buttons_in_view(browser, server):
    page = browser.new_page()
    page.set_viewport_size({"width": 320, "height": 640})
    page.errors = []
    page.on("pageerror", lambda exc: page.errors.append(str(exc)))
    page.goto(server.url)
    page.wait_for_function("window.tappSim && tappSim.states > 0 && tappSim.frames > 0")
    for seat in range(3):
        claim(page, seat)
    deal_and_bid(page, server)
    seat = server.call(lambda hub: hub.view.turn())
    hand = page.locator(".seat[data-seat='%d'] .hand" % seat)
    hand.scroll_into_view_if_needed()
    hand.evaluate("(el) => el.scrollIntoView({block: 'end'})")
    for sel in ("#oled", ".hw[data-key='prev']", ".hw[data-key='ok']"):
        box = page.locator(sel).bounding_box()
        assert box and box["y"] >= 0 and box["y"] + box["height"] <= 640, (sel, box)
        assert box["x"] >= 0 and box["x"] + box["width"] <= 320, (sel, box)
    width = page.evaluate("document.documentElement.scrollWidth")
    assert width <= 320
    page.close()


def test_chart_lines_that_are_equal_stay_apart(tabs, server):
    page = tabs(server)
    claim(page, 0)
    page.wait_for_function("document.querySelectorAll('#chart polyline').length === 3")
    lines = page.evaluate("""() => [...document.querySelectorAll('#chart polyline')].map(
        (l) => [l.getAttribute('points'), l.getAttribute('stroke-dasharray') || '',
                l.getAttribute('stroke')])""")
    assert len({p for p, _d, _c in lines}) == 3            # all at 0: drawn apart
    assert len({d for _p, d, _c in lines}) == 3            # each its own dash
    assert page.locator("#chart-legend .key").count() == 3


def test_the_page_gets_names_not_ids():
    """The state names the variant and the contracts as the table does ("Solo",
    not "soloist"); the page shows those (test_a_person_among_robots_two_deals)."""
    from table.names import contract_name
    from tools.tapptable.sim_web.hub import TableHub
    hub = TableHub("herzblatt", 3, "strict", seed=2, robots=True, autoplay=True)
    contracts = set()
    for _ in range(3000):
        hub.advance(500)
        result = hub.view.last_result()
        if result and result.get("contract"):
            st = hub.shared_state()
            assert st["result_name"] == contract_name(result["contract"], "de")
            contracts.add(result["contract"])
        if hub.view.deals_played() >= 3 and contracts:
            break
    st = hub.shared_state()
    assert st["variant_name"] == "Herzblatt" and contracts


# ----------------------------------------------------------------- a power cut while dealing


def deal_by_hand(page, srv, cards):
    """The deck's top card over the centre reader (click the deck, click the
    reader), then lifted (click the reader again), ``cards`` times."""
    for _ in range(cards):
        counted = srv.call(lambda hub: hub.tv.deal_scanned())
        page.click("#deck")
        page.click("#reader-centre")
        wait_until(srv, lambda hub, n=counted: hub.tv.deal_scanned() > n, "the card counted")
        page.click("#reader-centre")
        wait_until(srv, lambda hub: not hub.on_reader[hub.centre], "the lift")


def test_a_power_cut_while_dealing_by_hand_gathers_the_cards(tabs, server):
    """Issue 27, 3: two cards dealt by hand, then a power cut: the table says
    "Von vorn geben" and the dealer holds the whole deck again (no card stays in
    a hand); a second cut during the new deal leaves "Deal all" in view; "Deal
    all" then gives every seat its share."""
    page = tabs(server)
    for seat in range(3):
        claim(page, seat)
    deal_by_hand(page, server, 2)
    page.wait_for_function("tappSim.state.deck === 34 && "
                           "tappSim.state.hands.reduce((n, h) => n + h.count, 0) === 2")
    for cut in range(2):
        page.click("#power")
        page.wait_for_function("document.querySelector('#oled-text').textContent"
                               ".includes('Von vorn geben')")
        page.wait_for_function("tappSim.state.deck === 36 && "
                               "tappSim.state.hands.every((h) => h.count === 0)")
        st = state(page)
        assert [h["count"] for h in st["hands"]] == [0, 0, 0] and st["talon"] == 0, cut
        assert page.is_visible("#deal-all"), cut
        if cut == 0:
            deal_by_hand(page, server, 3)
            page.wait_for_function("tappSim.state.deck === 33")
    page.click("#deal-all")
    page.wait_for_function(DEALT, timeout=2 * TIMEOUT)
    st = state(page)
    assert [h["count"] for h in st["hands"]] == [11, 11, 11]
    assert st["talon"] == 3 and st["deck"] == 0
    assert page.errors == []


# ----------------------------------------------------------------- robots never stall


def robots_through_power_cuts(hub, deals, seed, stall_ms=60_000):
    """Robots play every seat (``autoplay``); now and then, and on result screens
    more often, somebody sits down, cuts the power and stands up again.  Fails
    when the table stands still (no journal line, no card counted, nothing
    lying differently) for ``stall_ms`` of table time."""
    rng = random.Random(seed)
    last, still = None, 0
    while hub.view.deals_played() < deals:
        hub.advance(250)
        if rng.random() < 0.004 or (hub.tv.mode() == "result" and rng.random() < 0.05):
            hub.claim("cutter", 0)
            hub.power_cut("cutter")
            hub.release("cutter", 0)
        now = (len(hub.table.journal_lines()), hub.tv.mode(), hub.tv.deal_scanned(),
               repr(hub.on_reader))
        still = still + 250 if now == last else 0
        last = now
        assert still < stall_ms, "the robots stalled after %d deals: %r, readers %r" % (
            hub.view.deals_played(), hub.table.screen(), hub.on_reader)


@pytest.mark.parametrize("runtime, deals", [("cpython", 7), ("micropython", 2)])
def test_robots_never_stall_through_power_cuts(runtime, deals):
    """Issue 27, 9: Württemberg Tarock, 3 players, strict, power cuts while
    dealing, playing and on the result screen.  The robots stalled on a dealt
    card left on the centre reader by a cut (the automatic deal stopped, nobody
    lifted it: the dealer waited, or the card was a robot's only legal card), on
    a card put back at once after a lift the table had not yet seen, and on a
    deck emptied while the cut fell back to the last settlement."""
    from host_sim.runtimes import table_class
    from tools.tapptable.sim_web.hub import TableHub
    table = table_class(runtime)("wuerttemberg", 3, "strict")
    hub = TableHub("wuerttemberg", 3, "strict", seed=1, robots=True, autoplay=True,
                   table=table)
    try:
        robots_through_power_cuts(hub, deals, seed=1)
    finally:
        hub.table.close()


def test_open_mode_ok_at_the_lay_away_waits_for_the_discards(tabs):
    """Issue 27, 10: in open mode OK at "Gedrückt? OK" before the declarer has put
    his cards aside is refused with a message (the table threw away three cards
    of its own choice); put aside by clicks, OK lays away those."""
    with ServerThread(variant="tapp_modern", players=3, mode="open", seed=3,
                      robots=False, speed=SPEED, away_s=AWAY_S) as srv:
        page = tabs(srv)
        for seat in range(3):
            claim(page, seat)
        page.click(".hw[data-key='next']")            # seed 3: Cora "spiele", then Frage
        page.wait_for_function("document.querySelector('#oled-text').textContent"
                               ".includes('spiele')")
        for _ in range(30):
            if srv.call(lambda hub: hub.view.expects()) == "discard":
                break
            press_ok(page, srv)
        assert srv.call(lambda hub: hub.view.expects()) == "discard"
        lines = srv.call(lambda hub: len(hub.table.journal_lines()))
        page.click(".hw[data-key='ok']")
        page.wait_for_function("document.querySelector('#toast').textContent"
                               ".includes('aside first')")
        assert srv.call(lambda hub: len(hub.table.journal_lines())) == lines
        decl = srv.call(lambda hub: hub.view.declarer())
        need = srv.call(lambda hub: hub.view.talon_size())
        chosen = srv.call(lambda hub, d=decl: sorted(hub.hand(d))[:need])
        for card in chosen:
            page.click(".hand .card[data-card='%s']" % card)
            page.click("#aside")
            page.wait_for_function("c => !tappSim.state.hands.some((h) => h.cards && "
                                   "h.cards.includes(c))", arg=card)
        page.click(".hw[data-key='ok']")
        wait_until(srv, lambda hub: hub.view.expects() != "discard", "the lay-away")
        last = srv.call(lambda hub: json.loads(hub.table.journal_lines()[lines].split("\t")[0]))
        assert last["ev"] == "exchange"
        assert srv.call(lambda hub: sorted(hub.players_model.discards)) == chosen
        assert page.errors == []


# ----------------------------------------------------------------- issue 27, 8 and 13


def choose_here(srv):
    """OK on the menu entry shown (as client "other"), and once more where the
    table asks "Sicher? OK" (a menu whose every entry commits); wait for the
    call on the journal."""
    before = srv.call(lambda hub: len(hub.table.journal_lines()))
    wait_until(srv, lambda hub: not hub.held, "the buttons released")
    srv.call(lambda hub: hub.press("other", "ok"))
    wait_until(srv, lambda hub, b=before: len(hub.table.journal_lines()) > b
               or hub.tv.menu_asks_sure(), "the call")
    if srv.call(lambda hub: hub.tv.menu_asks_sure()):
        wait_until(srv, lambda hub: not hub.held, "the OK button released")
        srv.call(lambda hub: hub.press("other", "ok"))
        wait_until(srv, lambda hub, b=before: len(hub.table.journal_lines()) > b, "the call")


def test_the_last_deal_says_what_decided_it_and_the_points_as_played(tabs):
    """Issue 27, 8: a Durch lost in its first trick (seed 1, open mode: Cora
    plays Durch ♣, Bert's ♦A takes the first trick) reads "lost in trick 1"
    with the tricks and the points as played (0:11), not the engine's 109:11
    that counts the cards never played for her."""
    with ServerThread(variant="tapp_modern", players=3, mode="open", seed=1,
                      robots=False, speed=SPEED, away_s=AWAY_S) as srv:
        page = tabs(srv)
        srv.call(lambda hub: [hub.claim("other", s) for s in range(3)])
        for label in ("spiele", "weg", "weg", "Durch", "Durch \u2663"):
            _move_menu_to(srv, label)
            choose_here(srv)
        assert srv.call(lambda hub: hub.view.contract()) == "suit_durch"
        hands = srv.call(lambda hub: {s: hub.hand(s) for s in range(3)})
        # Cora leads her lowest card of a side suit in which another holds a higher one
        lead = max((c for c in hands[2] if c[0] != "C" and any(
            o[0] == c[0] and RANKS.index(o[1:]) < RANKS.index(c[1:])
            for s in (0, 1) for o in hands[s])), key=lambda c: RANKS.index(c[1:]))
        for seat in (2, 1, 0):
            legal = [c for c in srv.call(lambda hub, t=seat: hub.players_model.legal_cards(t))
                     if c in hands[seat]]
            same = sorted((c for c in legal if c[0] == lead[0]), key=lambda c: RANKS.index(c[1:]))
            card = lead if seat == 2 else (same or legal)[0]     # the highest it may
            srv.call(lambda hub, c=card, r=seat: hub.place("other", c, r))
            wait_until(srv, lambda hub, c=card: c in [x for _, x in hub.view.trick()] or
                       not hub.view.in_deal(), "the card")
        wait_until(srv, lambda hub: hub.view.deals_played() == 1, "the settlement")
        points = srv.call(lambda hub: hub.view.last_result()["points"])
        assert points[0] == 120 - points[1]            # the engine's: the unplayed for her
        text = "Durch by Cora, lost in trick 1 (tricks 0:1, points 0:%d)" % points[1]
        assert srv.call(lambda hub: hub.shared_state()["result_text"]) == text
        page.wait_for_function("t => document.querySelector('#result').textContent"
                               ".includes(t)", arg=text)
        assert "109" not in page.text_content("#result")
        assert page.errors == []


def test_a_bettel_ouvert_hand_lies_face_up_for_everybody(tabs):
    """Cora plays Bettel ouvert (seed 1): Anna's tab sees Cora's hand face up
    (not to be played from), Bert's stays face down."""
    with ServerThread(variant="tapp_modern", players=3, mode="strict", seed=1,
                      robots=False, speed=SPEED, away_s=AWAY_S) as srv:
        page = tabs(srv)
        sit_among_others(page, srv, 0)
        for _ in range(12):
            labels = srv.call(lambda hub: [label for label, _ev in hub.menu()])
            if not labels:
                break
            want = [x for x in labels if x == "Bettel ouvert"] or (
                ["spiele"] if "spiele" in labels and "weg" in labels and
                srv.call(lambda hub: hub.view.turn()) == 2 else ["weg"])
            k = labels.index(want[0])
            while srv.call(lambda hub: hub.tv.menu_pos()) != k:
                before = srv.call(lambda hub: hub.tv.menu_pos())
                srv.call(lambda hub: hub.press("other", "next"))
                wait_until(srv, lambda hub, b=before: hub.tv.menu_pos() != b, "next")
            choose_here(srv)
        assert srv.call(lambda hub: hub.view.ouvert()) and \
            srv.call(lambda hub: hub.view.declarer()) == 2
        page.wait_for_selector(".seat[data-seat='2'] .hand.shown .card.face")
        shown = page.locator(".seat[data-seat='2'] .hand.shown .card.face").count()
        assert shown == srv.call(lambda hub: len(hub.hand(2))) >= 10
        assert page.locator(".seat[data-seat='1'] .hand.closed").count() == 1
        assert page.locator(".seat[data-seat='2'] .hand [data-card]").count() == 0  # not yours
        assert page.errors == []


def test_the_buttons_are_labelled_as_the_device_s(tabs, server):
    page = tabs(server)
    labels = [page.text_content(".hw[data-key='%s']" % k).strip()
              for k in ("prev", "next", "ok")]
    assert labels == ["◀ PREV", "NEXT ▶", "OK"]


def test_a_restarted_server_keeps_the_score_history_and_the_robots_switch(browser, tmp_path):
    """After a restart the score sheet has a row per deal played and the chart
    every point; the robots switch stays as it was turned."""
    kw = dict(variant="tapp_modern", players=3, mode="strict", seed=3, robots=True,
              speed=4 * SPEED, away_s=AWAY_S, root=str(tmp_path), autoplay=True)
    with ServerThread(**kw) as srv:
        wait_until(srv, lambda hub: hub.view.deals_played() >= 2, "two deals", 120)

        def off(hub):
            hub.claim("t", 0)
            hub.set_robots("t", False)
            hub.release("t", 0)
            return hub.balance_history
        history = srv.call(off)
    with ServerThread(**kw) as srv:
        page = open_table(browser, srv)
        page.wait_for_function("tappSim.state.history.length >= 3")
        st = state(page)
        assert st["history"][:len(history)] == history and st["robots"] is False
        assert page.locator("#score-table tbody tr").count() == len(st["history"])
        assert page.locator("#chart circle, #chart rect, #chart polygon").count() >= \
            len(st["history"])
        assert not page.is_checked("#robots")
        page.close()


def overlap(a, b):
    return a["x"] < b["x"] + b["width"] and b["x"] < a["x"] + a["width"] and \
        a["y"] < b["y"] + b["height"] and b["y"] < a["y"] + a["height"]


@pytest.mark.parametrize("size", [(1280, 800), (360, 640)])
def test_your_hand_in_view_and_the_message_clear_of_your_reader(browser, server, size):
    """At 1280x800 your whole hand is in view without scrolling; at every size a
    refused request's message covers neither your reader nor your hand."""
    width, height = size
    page = browser.new_page()
    page.set_viewport_size({"width": width, "height": height})
    page.errors = []
    page.on("pageerror", lambda exc: page.errors.append(str(exc)))
    page.goto(server.url)
    page.wait_for_function("window.tappSim && tappSim.states > 0")
    claim(page, 0)
    page.click("#deal-all")
    page.wait_for_function("tappSim.state.step === 'game'", timeout=2 * TIMEOUT)
    page.evaluate("window.scrollTo(0, 0)")
    hand = page.locator(".seat[data-seat='0'] .hand").bounding_box()
    if width >= 1280:
        assert hand["y"] + hand["height"] <= height, hand
    reader = page.locator(".seat[data-seat='0'] .reader")
    reader.scroll_into_view_if_needed()
    reader.click()                                   # no card chosen: the page says why
    page.wait_for_selector("#toast.show")
    toast = page.locator("#toast").bounding_box()
    for sel in (".seat[data-seat='0'] .reader", ".seat[data-seat='0'] .hand"):
        assert not overlap(toast, page.locator(sel).bounding_box()), sel
    assert page.errors == []
    page.close()


# ----------------------------------------------------------------- issue 27, 1 and 6


def card_text(code):
    """``C8`` -> ``♣8`` (as the display and the page write it)."""
    return _card_text(CODE_INDEX[code])


def _move_menu_to(srv, label):
    """Another tab presses next until the menu stands on ``label``."""
    labels = srv.call(lambda hub: [x for x, _ev in hub.menu()])
    k = labels.index(label)
    while srv.call(lambda hub: hub.tv.menu_pos()) != k:
        before = srv.call(lambda hub: hub.tv.menu_pos())
        wait_until(srv, lambda hub: not hub.held, "the buttons released")
        srv.call(lambda hub: hub.press("other", "next"))
        wait_until(srv, lambda hub, b=before: hub.tv.menu_pos() != b, "next")


def _choose(srv, label):
    """Another tab moves the menu to ``label`` and chooses it (OK)."""
    _move_menu_to(srv, label)
    before = srv.call(lambda hub: (len(hub.table.journal_lines()), hub.tv.rufer_pick()))
    wait_until(srv, lambda hub: not hub.held, "the buttons released")
    srv.call(lambda hub: hub.press("other", "ok"))
    wait_until(srv, lambda hub, b=before: hub.tv.menu_asks_sure() or (
        len(hub.table.journal_lines()), hub.tv.rufer_pick()) != b, "the choice")
    if srv.call(lambda hub: hub.tv.menu_asks_sure()):     # every entry commits: OK again
        wait_until(srv, lambda hub: not hub.held, "the buttons released")
        srv.call(lambda hub: hub.press("other", "ok"))
        wait_until(srv, lambda hub, b=before: (len(hub.table.journal_lines()),
                                               hub.tv.rufer_pick()) != b, "the choice")


def test_the_rufer_hand_over_and_an_undone_card_are_named(tabs):
    """Bert's tab: Cora plays a Herz-Rufer, calls a card of Bert's and gives
    one for it.  The page says who gives what to whom (the OLED and the hint);
    Bert's hand shows the swap.  Then Bert's first card is taken back by an
    undo: the question names it, and the page asks to lift it -- not as a
    refused card."""
    with ServerThread(variant="tapp_modern", players=3, mode="strict", seed=1,
                      robots=False, speed=SPEED, away_s=AWAY_S) as srv:
        page = tabs(srv)
        sit_among_others(page, srv, 1)
        for label in ("spiele", "weg", "weg", "Herz-Rufer"):
            _choose(srv, label)
        called = srv.call(lambda hub: hub.hand(1)[0])
        give = srv.call(lambda hub: hub.hand(2)[0])
        _choose(srv, card_text(called))
        _choose(srv, card_text(give) + "\u2192Bert")
        page.wait_for_function("t => document.querySelector('#oled-text').textContent"
                               ".includes(t)", arg="Cora ruft " + card_text(called))
        assert card_text(called) + "\u2192Cora" in oled_text(page)
        assert card_text(give) + "\u2192Bert" in oled_text(page)
        assert "Cora called %s: Bert hands it to Cora and gets %s face down" % (
            card_text(called), card_text(give)) in page.text_content("#hint")
        mine = state(page)["hands"][1]["cards"]
        assert give in mine and called not in mine
        # Cora leads, Bert follows from this tab; then an undo takes Bert's card back
        lead = srv.call(lambda hub: hub.view.legal_cards()[0])
        srv.call(lambda hub: hub.place("other", lead, 2))
        wait_until(srv, lambda hub: hub.view.turn() == 1, "Cora's lead")
        card = srv.call(lambda hub: hub.view.legal_cards()[0])
        drag(page, card, 1)
        wait_until(srv, lambda hub: hub.view.turn() == 0, "Bert's card")
        assert "ruft" not in oled_text(page) and "called" not in page.text_content("#hint")
        wait_until(srv, lambda hub: not hub.held, "the buttons released")
        srv.call(lambda hub: hub.press("other", "ok", True))
        page.wait_for_function("document.querySelector('#hint').textContent"
                               ".startsWith('Undo ')")
        assert page.text_content("#hint").startswith("Undo Bert's %s?" % card_text(card))
        assert "Bert " + card_text(card) in oled_text(page)
        wait_until(srv, lambda hub: not hub.held, "the buttons released")
        srv.call(lambda hub: hub.press("other", "ok"))
        page.wait_for_function("document.querySelector('#hint').textContent"
                               ".startsWith('Undo took back the card on your reader')")
        assert "refused" not in page.text_content("#hint")
        assert page.get_attribute(".seat[data-seat='1'] .led", "aria-label") == \
            "LED: red, lift the card undo took back"
        assert page.errors == []
