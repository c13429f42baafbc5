"""The console where a real board differs from the happy path, on the virtual table.

Each test is one thing a user met (docs/console.md says what they see now):
the simulated REPL (0x03/0x04 while the table plays and at the REPL), partial
lines left on the link, the log level of one connection, the self-test's
progress, reconnecting after a long absence, the score sheet from the
journal, files written only when complete, the referee PIN's natural form and
its back-off across restarts, one client at a time, back-pressure instead of
lost answers, argument types, damaged downloads, finding the port, and the
small things of the interactive client.
"""
from __future__ import annotations

import io
import json
import os
import socket
import subprocess
import sys
import threading
import time
import types
from pathlib import Path

import pytest
from console_bench import PIN, Bench, pinned_table

from host_sim.table import AutoPlayers
from table import console_events as EV
from table.console_link import IDLE_DROP_MS
from tools.tapptable import console as client
from tools.tapptable import deploy as D
from tools.tapptable import sim_serial

ROOT = Path(__file__).resolve().parent.parent

TAPPTABLE = [sys.executable, "-m", "tools.tapptable.cli"]


class AheadClock:
    """Wall time that a test can move ahead: ``ahead(ms)`` runs the served table
    ``ms`` further at once (a PIN back-off passes without sleeping)."""

    def __init__(self):
        self.offset = 0.0

    def __call__(self):
        return time.monotonic() + self.offset

    def ahead(self, sim, ms):
        target = sim.table.scheduler.now_ms() + ms
        self.offset += ms / 1000.0
        deadline = time.monotonic() + 10
        while sim.table.scheduler.now_ms() < target:     # the serving thread caught up
            assert time.monotonic() < deadline
            time.sleep(0.01)


@pytest.fixture
def served():
    """Virtual tables behind a pty or a TCP port, served on wall time in a thread."""
    running = []

    def start(spec="pty", table=None):
        table = table or pinned_table()
        link = sim_serial.open_link(spec)
        sim = sim_serial.SerialSim(table, link, clock=AheadClock())
        stop = threading.Event()
        th = threading.Thread(target=sim.serve, args=(stop.is_set,), daemon=True)
        th.start()
        running.append((stop, th, link))
        return sim, link.path

    def halt(k=-1):
        stop, th, link = running[k]
        stop.set()
        th.join(5)
        link.close()
        link.close = lambda: None             # (closed once)
    start.halt = halt
    yield start
    for stop, th, link in running:
        stop.set()
        th.join(5)
        link.close()


# ----------------------------------------------------------------- 2. Ctrl-C, the REPL


def test_the_simulated_board_keeps_playing_through_ctrl_c_and_models_the_repl(served):
    sim, port = served()
    texts, statuses = [], []
    link = client.Link(port, on_text=texts.append, on_status=statuses.append)
    try:
        link.hello()
        before = link.request("status")["journal"]
        link.send_raw(b"\x03\x04{\"cmd\":\x03\"status\"}\x04\n")   # noise with Ctrl-C, Ctrl-D
        time.sleep(0.2)
        a = link.request("status")
        assert a["state"] == "play" and a["journal"] == before
        assert any("bad_line" in s for s in statuses)           # the garbled line, shown
        with pytest.raises(client.DeviceError) as e:
            link.request("repl", pin="0000")
        assert e.value.code == "bad_pin" and e.value.answer["retry_ms"] == 500
        sim.clock.ahead(sim, 500)                               # the back-off, on the table's clock
        assert link.request("repl", pin=PIN)["repl"] is True
        time.sleep(0.3)
        with pytest.raises(client.ReplError, match="not running"):
            link.request("status", timeout=3)
        link.send_raw(b"\x03")                                  # at the REPL: a new prompt
        time.sleep(0.3)
        assert any("KeyboardInterrupt" in t for t in texts)
        link.send_raw(b"\x04")                                  # soft reset: the table again
        time.sleep(0.5)
        a = link.request("status")
        assert a["state"] == "play" and a["journal"] == before  # the journal taken up
    finally:
        link.close()


def test_safe_boot_with_prev_held_skips_the_app(monkeypatch, capsys):
    """main.py reads PREV from the pin map before any table code; held (low): the
    REPL stays, nothing of the table is built."""
    levels = {10: 0, 11: 1, 12: 1}

    class Pin:
        IN = 0
        PULL_UP = 1

        def __init__(self, n, mode, pull):
            self.n = n

        def value(self):
            return levels[self.n]
    monkeypatch.setitem(sys.modules, "machine", types.SimpleNamespace(Pin=Pin))
    sys.modules.pop("main", None)
    import main as M

    def make(root):
        raise AssertionError("the board was built in safe boot")
    board = types.SimpleNamespace(PINS={"buttons": (10, 11, 12)}, make=make)
    monkeypatch.setattr(M, "board_module", lambda: board)
    assert M.safe_boot(board) is True
    M.main()
    assert "safe boot (PREV held at power-up)" in capsys.readouterr().out
    levels[10] = 1
    assert M.safe_boot(board) is False


# ----------------------------------------------------------------- 3. leftovers


def test_a_partial_line_left_on_the_link_does_not_swallow_the_next_request(served):
    import serial
    _sim, port = served()
    for junk in (b'{"id": 1, "cmd": "sta', b"x" * 20000):    # half a request, a long tail
        ser = serial.Serial(port, timeout=0.1)
        ser.write(junk)
        ser.flush()
        ser.close()
        time.sleep(1.2)                        # the table reads 512 bytes a step
        link = client.Link(port)
        try:
            t0 = time.monotonic()
            assert link.request("status", timeout=5)["ok"]
            assert time.monotonic() - t0 < 2
        finally:
            link.close()


def test_the_device_drops_a_partial_line_after_an_idle_gap():
    b = Bench(pinned_table())
    b.pipe.feed(b'{"id": 1, "cmd": "sta')
    b.table.wait(IDLE_DROP_MS - 500)           # a pause within a line: it is kept
    b.pipe.feed(b'tus"}\n')
    assert b.ask(id=9, cmd="ping")["ok"] and b.out.answer(1)[0]["ok"]
    b.pipe.feed(b'{"id": 1, "cmd": "sta')
    b.table.wait(IDLE_DROP_MS + 100)
    b.out.lines.clear()
    a = b.ask(id=2, cmd="ping")
    assert a["ok"] and not b.out.answer(1)
    assert [m for m in b.out.lines if m.get("ok") is False] == []


def test_the_console_looks_at_the_readers_only_when_a_card_moved(monkeypatch):
    """A console step looks at each reader's card only after the arbiter's
    events moved on (six readers 40 times a second cost the Pico 50 ms of
    every second); the debug level, which reports every raw status, looks
    at each step; a card laid is still its event."""
    table = pinned_table()
    b = Bench(table)
    tv = table.app.view
    asked = []
    placed_uid = tv.placed_uid
    monkeypatch.setattr(tv, "placed_uid", lambda i, buf: asked.append(i) or placed_uid(i, buf))
    table.wait(1000)
    assert asked == []                                   # nothing moved: nothing looked at
    table.place(table.centre, "H7")
    table.wait(300)
    assert [m for m in b.out.lines if m.get("event") == "tag" and m["state"] == "placed"]
    looked = len(asked)
    assert looked >= tv.readers()
    table.wait(1000)
    assert len(asked) == looked                          # and not again while it lies
    b.ask(id=1, cmd="log", level="debug", pin=PIN)
    del asked[:]
    table.wait(200)
    assert len(asked) >= 5 * tv.readers()                # the debug level: every step


# ----------------------------------------------------------------- 4. the log level


def test_the_debug_level_ends_with_the_connection_that_set_it():
    table = pinned_table()
    b = Bench(table)
    assert b.ask(id=1, cmd="log", level="debug", pin=PIN)["level"] == "debug"
    assert b.ask(id=2, cmd="hello")["ok"]                       # the next client
    assert b.ask(id=3, cmd="status")["log"] == "info"
    b.out.lines.clear()
    AutoPlayers(table, seed=2).deal_cards()
    table.wait(200)
    events = [m for m in b.out.lines if "event" in m]
    assert all("uid" not in m for m in events if m["event"] == "tag")
    hands = [m for m in events if m["event"] == "accepted" and m["ev"]["ev"] == "hand"]
    assert hands and all(m["ev"]["cards"] == "hidden" for m in hands)
    assert b.ask(id=4, cmd="log", level="off")["level"] == "off"   # off: this client only
    b.ask(id=5, cmd="hello")
    assert b.ask(id=6, cmd="status")["log"] == "info"
    b.ask(id=7, cmd="log", level="debug", pin=PIN)
    table.wait(EV.LEVEL_LEASE_MS + 100)                          # a client gone silent
    assert b.ask(id=8, cmd="status")["log"] == "info"


@pytest.mark.parametrize("spec", ["pty", "tcp:0"])
def test_a_client_that_leaves_takes_its_log_level_along(served, spec):
    import serial
    _sim, port = served(spec)
    a = client.Link(port)
    try:
        assert a.request("log", level="debug", pin=PIN)["level"] == "debug"
    finally:
        a.close()
    time.sleep(0.3)
    raw = serial.serial_for_url(port, timeout=0.2) if "://" in port else \
        serial.Serial(port, timeout=0.2)
    try:                                       # a client that does not even say hello
        raw.write(b'{"id":1,"cmd":"status"}\n')
        got = b""
        deadline = time.monotonic() + 5
        while b'"id":1' not in got or not got.endswith(b"\n"):
            assert time.monotonic() < deadline, got
            got += raw.read(65536)
        lines = got.split(b"\n")
        assert json.loads([x for x in lines if b'"id":1' in x][0])["log"] == "info"
        assert not any(b'"uid"' in x for x in lines)     # nothing left from the last one
    finally:
        raw.close()


# ----------------------------------------------------------------- 5. the self-test


def test_the_selftest_streams_its_progress_and_takes_its_waits_as_options():
    table = pinned_table()
    b = Bench(table)
    table.board.sleep_ms = lambda ms: table.board.clock.advance(ms * 1000)
    a = b.ask(id=1, cmd="selftest", card_ms=50, button_ms=50, pin=PIN, wait=300)
    parts = [m["progress"] for m in b.out.answer(1) if m.get("more")]
    assert a["ok"] and parts and parts == a["report"]
    assert b.ask(id=2, cmd="selftest", card_ms="soon", pin=PIN)["error"] == "bad_args"
    # while it waits (here 2 s for a card per reader) the link is answered
    b.out.lines.clear()
    b.pipe.feed(b'{"id":3,"cmd":"selftest","card_ms":2000,"button_ms":50,"pin":"4711"}\n'
                b'{"id":4,"cmd":"ping"}\n{"id":5,"cmd":"status"}\n')
    table.wait(300)
    table.wait(60)          # (its final answer, made in a long step: written at the next)
    order = [m.get("id") for m in b.out.lines if "ok" in m]
    assert order[:3] == [4, 5, 3]
    assert b.out.answer(4)[0]["selftest"] is True and b.out.answer(5)[0]["error"] == "busy"
    assert client.selftest_timeout({"card_ms": 50, "button_ms": 50}, 10) == 10
    assert client.selftest_timeout({}, 10) == 35
    assert client.parse_words(["selftest", "card_ms=500"])[1] == {"card_ms": 500}
    # enrol (the old spelling enroll is understood too): K=V words, numbers as ints
    for word in ("enrol", "enroll"):
        assert client.parse_words([word, "deck=2", "kind=d36"]) == (
            "enrol", {"deck": 2, "kind": "d36"})


# ----------------------------------------------------------------- 6. reconnecting


def test_the_interactive_link_comes_back_after_a_long_absence(served):
    _sim, url = served("tcp:0")
    _other, other_url = served("tcp:0")        # one client per table
    port = int(url.rsplit(":", 1)[1])
    statuses = []
    stay = client.Link(url, on_status=statuses.append, reconnect_s=None)   # interactive
    once = client.Link(other_url, reconnect_s=1)                            # one-shot
    try:
        assert stay.request("status")["ok"] and once.request("status")["ok"]
        served.halt(0)
        served.halt(1)
        time.sleep(2.5)                        # longer than the one-shot waits
        with pytest.raises(client.ConsoleError, match="not connected"):
            once.request("status", timeout=2)
        table = pinned_table()
        served("tcp:%d" % port, table)
        deadline = time.monotonic() + 10
        while not stay.connected.is_set():
            assert time.monotonic() < deadline, statuses
            time.sleep(0.1)
        assert stay.request("status")["ok"]
        assert statuses[-1].startswith("connected again")
    finally:
        stay.close()
        once.close()


# ----------------------------------------------------------------- 7. the score sheet


def test_the_score_history_comes_from_the_journal(tmp_path):
    table = pinned_table()
    players = AutoPlayers(table, seed=3)
    players.play_deal()
    players.next_deal()
    players.play_deal()
    table.wait(200)
    b = Bench(table)                           # attached after two deals
    a = b.ask(id=1, cmd="score", wait=200)
    parts = [m for m in b.out.answer(1) if m.get("more")]
    assert [p["deal"] for p in parts] == [1, 2] and a["deals"] == 2
    assert parts[-1]["balances"] == a["balances"]
    text = client.show_score(dict(a, parts=parts))
    assert len([x for x in text.splitlines() if x[:1] in "12"]) == 2


# ----------------------------------------------------------------- 8. files


def test_a_refused_download_leaves_the_file_as_it_was(served, tmp_path):
    table = pinned_table()
    AutoPlayers(table, seed=2).deal_cards()    # a strict deal in play: its journal is locked
    _sim, port = served(table=table)
    f = tmp_path / "game.jsonl"
    f.write_text("the old file\n")
    link = client.Link(port)
    try:
        out = io.StringIO()
        client.interactive_line(link, "journal > %s" % f, None, out)
        assert "locked" in out.getvalue() and f.read_text() == "the old file\n"
        client.interactive_line(link, "journal > %s" % f, PIN, out)
        assert "written to" in out.getvalue() and f.read_text().startswith('{"first_dealer"')
    finally:
        link.close()
    g = tmp_path / "other.jsonl"
    r = subprocess.run(TAPPTABLE + ["console", "--port", port, "--out", str(g), "journal"],
                       cwd=ROOT, capture_output=True, text=True, timeout=60)
    assert r.returncode == 2 and "locked" in r.stderr and not g.exists()


# ----------------------------------------------------------------- 10. the referee PIN


def test_the_pin_in_its_natural_form_applies_at_once():
    assert client.parse_words(["set", "referee_pin=0815"])[1] == {"values": {"referee_pin":
                                                                            "0815"}}
    b = Bench(pinned_table())
    a = b.ask(id=1, cmd="set", values={"referee_pin": 2468}, pin=PIN)
    assert a["ok"] and "applies at once" in a["note"]
    assert b.ask(id=2, cmd="undo", pin=PIN)["error"] == "bad_pin"
    b.table.wait(600)
    assert b.ask(id=3, cmd="undo", pin=2468)["error"] == "nothing_to_undo"


def test_the_pin_back_off_survives_a_restart():
    table = pinned_table()
    b = Bench(table)
    assert b.ask(id=1, cmd="undo", pin="0000")["retry_ms"] == 500
    table.power_cut()
    b = Bench(table)
    assert b.ask(id=2, cmd="undo", pin=PIN)["error"] == "rate_limited"
    table.wait(600)
    assert b.ask(id=3, cmd="undo", pin="0001")["retry_ms"] == 1000    # the count went on
    table.wait(1100)
    assert b.ask(id=4, cmd="undo", pin=PIN)["error"] == "nothing_to_undo"
    table.power_cut()
    b = Bench(table)
    assert b.ask(id=5, cmd="status")["retry_ms"] == 0


# ----------------------------------------------------------------- 11. one client


def test_a_second_client_is_told_busy(served):
    _sim, port = served("tcp:0")
    first = client.Link(port)
    try:
        first.hello()
        r = subprocess.run(TAPPTABLE + ["console", "--port", port, "status"], cwd=ROOT,
                           capture_output=True, text=True, timeout=60)
        assert r.returncode == 2 and "busy" in r.stderr
        assert first.request("status")["ok"]
    finally:
        first.close()


def test_a_second_program_cannot_open_the_terminal_the_console_holds():
    link = sim_serial.PtyLink()
    try:
        os.chmod(link.path, 0o666)
        held = client.open_serial(link.path)
        pid = os.fork()
        if pid == 0:                       # another user's program (TIOCEXCL binds root too
            try:                           # only by CAP_SYS_ADMIN, so drop it)
                os.setgid(65534)
                os.setuid(65534)
                os.close(os.open(link.path, os.O_RDWR | os.O_NOCTTY))
                os._exit(1)
            except OSError as exc:
                os._exit(0 if exc.errno == 16 else 2)
        _, status = os.waitpid(pid, 0)
        assert os.waitstatus_to_exitcode(status) == 0
        held.close()
    finally:
        link.close()


# ----------------------------------------------------------------- 12. back-pressure


def test_answers_wait_for_a_host_that_stops_reading(monkeypatch):
    monkeypatch.setattr(sim_serial, "OUT_MAX", 32768)
    table = pinned_table()
    link = sim_serial.PtyLink()
    sim_serial.attach(table, link)
    import serial
    ser = serial.Serial(link.path, timeout=0, write_timeout=None)
    n = 80
    writer = threading.Thread(target=lambda: ser.write(b"".join(
        b'{"id":%d,"cmd":"view"}\n' % i for i in range(n))), daemon=True)
    writer.start()                             # ~2 KB answers each: far more than 32 KB
    try:
        while writer.is_alive():
            table.wait(20)
        table.wait(500)                        # nobody reads meanwhile
        assert len(link.pending) <= 32768
        got = b""
        for _ in range(400):
            table.wait(20)
            link.pump()                        # as the serving loop does every tick
            got += ser.read(1 << 20)
            if got.count(b'"ok":true') >= n and got.endswith(b"\n"):
                break
        ids = {json.loads(x)["id"] for x in got.split(b"\n")[:-1] if x.startswith(b"{\"id\"")}
        assert ids == set(range(n))
    finally:
        ser.close()
        link.close()


# ----------------------------------------------------------------- 13. argument types


def test_wrong_argument_types_are_bad_args_never_failed():
    b = Bench(pinned_table())
    values = [None, True, 0, -1, 7, 2.5, "", "x", "HA", [], [1], {}, {"a": 1}]
    keys = ("key", "value", "values", "level", "reader", "card", "uid", "deck", "kind",
            "remove", "op", "lines", "session", "list", "details", "long", "card_ms",
            "button_ms")
    commands = [c for c in b.console.command_names()
                if c not in ("repl", "selftest", "reset-session")]
    rid = 0
    for cmd in commands:
        for key in keys:
            for v in values:
                rid += 1
                req = {"id": rid, "cmd": cmd, key: v}
                if rid % 2:
                    req["pin"] = PIN
                b.pipe.feed((json.dumps(req) + "\n").encode())
    b.table.wait_until(lambda: len([m for m in b.out.lines if "ok" in m and "id" in m])
                       >= rid, limit_ms=600000, step_ms=500)
    answers = [m for m in b.out.lines if "ok" in m and "id" in m]
    assert len(answers) == rid
    failed = [m for m in answers if m.get("error") == "failed"]
    assert failed == []


# ----------------------------------------------------------------- 14. damaged downloads


def _fake_table(lines):
    """A TCP 'table' that answers hello and streams ``lines`` as the journal."""
    srv = socket.socket()
    srv.bind(("127.0.0.1", 0))
    srv.listen(1)

    def run():
        conn, _ = srv.accept()
        f = conn.makefile("rb")
        for raw in f:
            if not raw.strip():
                continue
            req = json.loads(raw)
            rid = req["id"]
            if req["cmd"] == "journal":
                for x in lines:
                    conn.sendall(json.dumps({"id": rid, "more": True, "line": x}).encode()
                                 + b"\n")
                conn.sendall(json.dumps({"id": rid, "ok": True, "count": len(lines)})
                             .encode() + b"\n")
            else:
                conn.sendall(json.dumps({"id": rid, "ok": True, "protocol": 2}).encode()
                             + b"\n")
    threading.Thread(target=run, daemon=True).start()
    return srv, "socket://127.0.0.1:%d" % srv.getsockname()[1]


def _download(lines, out):
    """``tapptable console --out OUT journal`` from a fake table sending ``lines``."""
    srv, url = _fake_table(lines)
    try:
        return subprocess.run(TAPPTABLE + ["console", "--port", url, "--out", str(out),
                                           "journal"], cwd=ROOT, capture_output=True,
                              text=True, timeout=60)
    finally:
        srv.close()


def test_a_damaged_journal_line_is_named_and_nothing_is_written(tmp_path):
    from tapp.record import with_crc
    good = [with_crc('{"record":1}'), with_crc('{"ev":"deal"}')]
    bad = good[:1] + [good[1][:-1] + ("0" if good[1][-1] != "0" else "1")]
    out = tmp_path / "j.jsonl"
    r = _download(bad, out)
    assert r.returncode == 2 and "journal line 2 arrived damaged" in r.stderr
    assert not out.exists()
    r = _download(good, out)
    assert r.returncode == 0 and out.read_text() == "".join(x + "\n" for x in good)


# ----------------------------------------------------------------- 15. finding the board


def test_console_and_deploy_pick_the_same_board(monkeypatch):
    from serial.tools import list_ports
    from serial.tools.list_ports_common import ListPortInfo

    def port(dev, vid, pid):
        p = ListPortInfo(dev)
        p.vid, p.pid = vid, pid
        p.hwid = "USB VID:PID=%04X:%04X SER=1" % (vid, pid)
        p.description = "test port"
        return p
    ports = [port("/dev/ttyACM7", 0x2E8A, 0x0005), port("/dev/ttyUSB3", 0x1234, 0x5678)]
    monkeypatch.setattr(list_ports, "comports", lambda include_links=False: ports)
    monkeypatch.delenv("TAPPTABLE_PORT", raising=False)
    assert client.find_port() == "/dev/ttyACM7"
    assert D.Board().device() == "/dev/ttyACM7"
    assert client.find_port("a0") == "/dev/ttyACM0" == D.Board("a0").device()
    assert client.find_port("c3") == "COM3" and client.find_port("u1") == "/dev/ttyUSB1"
    monkeypatch.setenv("TAPPTABLE_PORT", "u2")
    assert client.find_port() == "/dev/ttyUSB2" == D.Board().device()
    monkeypatch.delenv("TAPPTABLE_PORT")
    ports.append(port("/dev/ttyACM8", 0x2E8A, 0x0005))
    with pytest.raises(client.ConsoleError, match="several tables"):
        client.find_port()
    ports[:] = []
    with pytest.raises(D.DeployError, match="no table found"):
        D.Board().device()
    with pytest.raises(client.ConsoleError, match="no serial port matches"):
        client.open_serial("hwgrep://2E8A:0005")


# ----------------------------------------------------------------- 16. small things


def test_the_live_trick_line_is_numbered_and_knows_earlier_cards():
    lines = []
    p = client.EventPrinter(lines.append)
    p.start({"seats": ["Anna", "Bert", "Cora"], "trick_number": 3, "trick": [[1, "HA"]]})
    p({"event": "accepted", "ev": {"ev": "play", "seat": 2, "card": "H10"}})
    assert lines[-1] == "  trick 3: Anna \u00b7  Bert \u2665A  Cora \u266510"
    p({"event": "trick", "n": 3, "cards": ["HA", "H10", "HK"], "winner": 1, "points": 25})
    p({"event": "accepted", "ev": {"ev": "play", "seat": 1, "card": "S9"}})
    assert lines[-1].startswith("  trick 4: Anna \u00b7  Bert \u26609")


def test_ramsch_has_no_declarer_and_help_names_the_clients_words():
    view = {"variant": "tapp_modern", "players": 3, "mode": "open", "deals": 0, "dealer": 0,
            "seats": ["A", "B", "C"], "phase": "play", "turn": 1, "expects": "card",
            "contract": "ramsch", "declarer": -1, "trick_number": 1, "trick": []}
    text = client.show_view(view)
    assert "contract ramsch\n" in text + "\n" and " by " not in text.splitlines()[2]
    helptext = client.render("help", {"commands": ["status"], "locked": ["undo"]})
    assert "pin NNNN" in helptext and "raw JSON" in helptext and "> FILE" in helptext


class FakeLink:
    port = "fake"

    def __init__(self, fail=None):
        self.asked = []
        self.fail = fail

    def request(self, cmd, timeout=10.0, on_part=None, **args):
        self.asked.append((cmd, args))
        if self.fail is not None:
            raise self.fail
        return {"ok": True, "t": 1, "parts": []}


def test_raw_keeps_its_quotes_and_ctrl_c_keeps_the_session(monkeypatch, tmp_path):
    link = FakeLink()
    out = io.StringIO()
    client.interactive_line(link, 'raw {"cmd": "ping", "x": "a b"}', None, out)
    assert link.asked == [("ping", {"x": "a b"})]
    monkeypatch.setenv("HOME", str(tmp_path))
    typed = iter(["status", "status"])

    def fake_input(prompt):
        try:
            return next(typed)
        except StopIteration:
            raise EOFError from None
    monkeypatch.setattr("builtins.input", fake_input)
    link = FakeLink(KeyboardInterrupt())
    out = io.StringIO()
    assert client.interactive(link, None, out) == 0
    assert out.getvalue().count("interrupted") == 2 and len(link.asked) == 2
    assert (tmp_path / ".tapptable_history").exists()
