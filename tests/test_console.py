"""The serial console end to end: the unchanged firmware (firmware/table/console.py
on the virtual table) behind a real pseudo-terminal or TCP socket, and the
pyserial client (tools/tapptable/console.py, ``tapptable console``).

* protocol: every command's answer, request ids, error codes, the referee PIN
  lock and its growing delay (on the board's clock), bounded work per step;
* over a pty and TCP (``tapptable sim --serial``): status, view, the lock and
  its rate limit, journal download that ``tapptable replay`` reads;
* fuzzing while the simulated people play a deal (garbled bytes, invalid UTF-8,
  overlong lines, unknown commands, floods, wrong PINs): the journal is the one
  of a run without the noise, and the download replays identically;
* the client's messages: REPL instead of the app, port busy, no port, reconnect.
"""
from __future__ import annotations

import json
import os
import random
import socket
import subprocess
import sys
import threading
import time
from pathlib import Path
from types import SimpleNamespace

import pytest
from console_bench import PIN, Bench, pinned_table

from host_sim.table import AutoPlayers, VirtualTable
from table import console as C
from table.console_out import line_of
from tapp.jsonout import dumps
from tapp.record import parse_line, with_crc
from tools.tapptable import console as client
from tools.tapptable import sim_serial

ROOT = Path(__file__).resolve().parent.parent

TAPPTABLE = [sys.executable, "-m", "tools.tapptable.cli"]


@pytest.fixture
def bench():
    b = Bench(pinned_table())
    return b.table, b.pipe, b.out, b.ask


# ----------------------------------------------------------------- the protocol


def test_status_echoes_the_id_and_describes_the_table(bench):
    table, _pipe, out, ask = bench
    events = [m["event"] for m in out.take() if "event" in m]
    assert events[:3] == ["hello", "mode", "session"]
    a = ask(id=7, cmd="status")
    assert a["ok"] is True and a["id"] == 7
    assert a["state"] == "play" and a["variant"] == "tapp_modern" and a["players"] == 3
    assert a["pin"] is True and a["journal"] == 1 and len(a["screen"]) == 8
    assert ask(id="abc", cmd="ping")["id"] == "abc"


def test_view_hides_the_hands_without_the_pin(bench):
    table, _pipe, _out, ask = bench
    AutoPlayers(table, seed=2).deal_cards()
    a = ask(id=1, cmd="view")
    assert a["ok"] and a["phase"] == "auction" and "hands" not in a and "talon" not in a
    assert a["legal_calls"] and a["table"]["mode"] == "play"
    assert ask(id=2, cmd="view", details=True)["error"] == "locked"
    d = ask(id=3, cmd="view", details=True, pin=PIN)
    assert d["ok"] and [len(h) for h in d["hands"]] == [11, 11, 11]
    assert ask(id=4, cmd="journal")["error"] == "locked"      # hands inside: strict deal


def test_a_card_taken_back_is_listed_so_not_as_refused(bench):
    """After an undo the card still lies on its reader, to be lifted: the view
    lists it under ``taken_back``, not ``refused``."""
    table, _pipe, _out, ask = bench
    people = AutoPlayers(table, seed=2, illegal_once=False)
    people.deal_cards()
    while table.view.expects() != "card" or table.app.view.menu_size():
        people.sync()
        people.discard() if table.view.expects() == "discard" else people.choose()
    people.sync()
    seat = table.view.turn()
    table.place(seat, people.card_choice(seat))
    assert table.view.trick_size() == 1
    assert ask(id=1, cmd="undo", pin=PIN)["ok"]
    got = ask(id=2, cmd="view")["table"]
    assert got["taken_back"] == [seat] and got["refused"] == [], got


def test_errors_have_stable_codes(bench):
    _table, pipe, out, ask = bench
    assert ask(id=1, cmd="fly")["error"] == "unknown_command"
    assert ask(id=2, cmd="place", reader=99, card="HA", pin=PIN)["error"] == "bad_args"
    assert ask(id=3, cmd="log", level="loud")["error"] == "bad_args"
    assert ask(id=4, cmd="reset-session")["error"] == "locked"
    assert ask(id=5, nocmd=1)["error"] == "bad_request"
    assert ask(id=6, cmd="place", reader=0, card="HA", deck=7, pin=PIN)["error"] == "not_found"
    out.take()
    pipe.feed(b"\xff\xfe\x00garbage\n{\"cmd\": \"status\",}\n" + b"[" * 9000 + b"\n"
              + "{\"cmd\": \"st\xe4tus\"}\n".encode("latin-1") + b"\n\n")
    _table.wait(800)              # 9 KB at 512 bytes a step
    errs = [m["error"] for m in out.take() if m.get("ok") is False]
    assert errs == ["bad_line", "bad_line", "too_long", "bad_line"]


def test_selftest_runs_the_bring_up_test_and_the_table_draws_again(bench):
    table, _pipe, _out, ask = bench
    table.board.sleep_ms = lambda ms: table.board.clock.advance(ms * 1000)
    before = table.screen()
    assert ask(id=1, cmd="selftest")["error"] == "locked"
    a = ask(id=2, cmd="selftest", card_ms=50, button_ms=50, pin=PIN)
    assert a["ok"] and a["report"] and isinstance(a["result"], list)
    table.wait(200)
    assert table.screen() == before
    assert ask(id=3, cmd="status")["ok"]


def test_no_pin_on_the_table_locks_every_locked_command():
    b = Bench(VirtualTable())                                 # settings: referee_pin None
    b.pipe.feed(b'{"id":1,"cmd":"undo","pin":"1234"}\n{"id":2,"cmd":"status"}\n')
    b.table.wait(60)
    assert b.out.answer(1)[0]["error"] == "no_pin"
    assert b.out.answer(2)[0]["pin"] is False


def test_wrong_pins_wait_longer_each_time_on_the_board_clock(bench):
    table, _pipe, _out, ask = bench
    a = ask(id=1, cmd="undo", pin="0000", wait=20)
    assert a["error"] == "bad_pin" and a["retry_ms"] == 500
    a = ask(id=2, cmd="undo", pin=PIN, wait=20)               # even the right one waits
    assert a["error"] == "rate_limited" and 0 < a["retry_ms"] <= 500
    table.wait(500)
    assert ask(id=3, cmd="undo", pin="9999", wait=20)["retry_ms"] == 1000
    table.wait(1000)
    assert ask(id=4, cmd="undo", pin="9998", wait=20)["retry_ms"] == 2000
    table.wait(2000)
    assert ask(id=5, cmd="undo", pin=PIN)["error"] == "nothing_to_undo"   # the PIN counts
    assert ask(id=6, cmd="undo", pin="1", wait=20)["retry_ms"] == 500     # the count restarts
    table.wait(600)
    assert ask(id=7, cmd="status")["ok"]                      # read-only: never locked


def test_a_flood_costs_bounded_work_per_step(bench):
    table, pipe, out, _ask = bench
    out.take()
    pipe.feed(b'{"cmd":"nope"}\n' * 400)
    table.wait(20)                                            # one console step
    assert 0 < len(out.take()) <= C.CMDS_PER_STEP
    table.wait(20 * 110)                                      # 400 / 4 steps of 20 ms
    assert len(pipe.buf) == 0
    assert len(table.journal_lines()) == 1                    # nothing happened to the game


def test_place_lift_press_undo_score_and_registry(bench):
    table, _pipe, out, ask = bench
    a = ask(id=1, cmd="place", reader=3, card="CA", pin=PIN, wait=800)   # (steps wait, PAUSE_MS)
    assert a["ok"] and a["settled"] and a["screen"][2].startswith("Karte 1/")
    assert ask(id=2, cmd="lift", reader=3, pin=PIN, wait=400)["settled"]
    assert ask(id=3, cmd="readers")["readers"][3]["injected"] is False
    assert ask(id=4, cmd="press", key="prev", long=True, pin=PIN, wait=100)["ok"]
    assert table.app.view.overlay() == "scores"
    reg = ask(id=5, cmd="registry")
    assert reg["decks"] == [{"deck": 1, "kind": "d36", "cards": 36, "complete": True}]
    assert ask(id=6, cmd="registry", op="download", deck=1)["error"] == "locked"
    down = ask(id=7, cmd="registry", op="download", deck=1, pin=PIN)
    assert down["lines"][0].startswith("tappdeck\t1\t1\td36\t36\t")
    up = dict(down["lines"] and {"lines": down["lines"]})
    assert ask(id=8, cmd="registry", op="upload", pin=PIN, **up)["cards"] == 36
    bad = ask(id=9, cmd="registry", op="upload", pin=PIN, lines=["tappdeck\t1\t1"])
    assert bad["error"] == "corrupt"
    e = ask(id=10, cmd="enrol", deck=2, kind="d36", card="HA", uid="04aabbccddeeff", pin=PIN)
    assert e["cards"] == 1 and not e["complete"] and "HA" not in e["missing"]
    e = ask(id=10, cmd="enroll", deck=2, card="HK", uid="04aabbccddeef0", pin=PIN)   # old name
    assert e["cards"] == 2 and "HK" not in e["missing"]
    assert ask(id=11, cmd="score")["deals"] == 0
    assert ask(id=12, cmd="set")["values"]["variant"] == "tapp_modern"
    s = ask(id=13, cmd="set", values={"players": 4, "variant": "haferltarock"}, pin=PIN)
    assert s["ok"] and s["values"]["players"] == 4
    assert ask(id=14, cmd="set", values={"players": 9}, pin=PIN)["error"] == "bad_args"
    r = ask(id=15, cmd="reset-session", pin=PIN)
    assert r["variant"] == "haferltarock" and r["players"] == 4
    assert any(m.get("event") == "session" for m in out.lines)


class _EventWire:
    """The wire's door the live events use: each body as the line it becomes."""

    def __init__(self):
        self.lines = []
        self.dropped = 0

    def event(self, body):
        self.lines.append(line_of(body))


class _Readers:
    def readers(self):
        return 4


@pytest.mark.parametrize("ev", [
    {"ev": "hand", "seat": 2, "cards": ["H7", "SA", "D10"]},          # as the journal writes
    {"ev": "hand", "seat": 11, "cards": ["H7"]},                      # a seat of two digits
    {"ev": "deal", "dealer": 1, "hands": [["H7"], ["SA"]], "talon": []},
    {"ev": "deal", "dealer": 1, "hands": None, "talon": None},        # dealt card by card
    {"ev": "play", "seat": 0, "card": "H7"},
])
def test_a_journal_line_is_pushed_as_redact_says(ev):
    """Below debug, a strict hand's line is pushed hidden without being parsed
    (its layout as the journal writes it); every line is pushed as the parsed
    line redacted would be."""
    live = C.Live(SimpleNamespace(view=_Readers()), _EventWire(), 0)
    line = with_crc(dumps(ev))
    live.accepted(7, line)
    want = line_of({"event": "accepted", "n": 7, "ev": live.redact(parse_line(line))})
    assert live.wire.lines == [want]


def test_a_hand_line_of_another_layout_is_parsed_and_hidden():
    live = C.Live(SimpleNamespace(view=_Readers()), _EventWire(), 0)
    live.accepted(3, with_crc('{"seat": 1, "cards": ["H7"], "ev": "hand"}'))
    live.accepted(4, with_crc('{"ev":"hand","seat":2,"cards":["SA"]}'))
    assert [json.loads(x)["ev"] for x in live.wire.lines] == [
        {"ev": "hand", "seat": 1, "cards": "hidden"}, {"ev": "hand", "seat": 2, "cards": "hidden"}]


def test_refusals_tricks_and_results_are_live_events(bench):
    table, _pipe, out, ask = bench
    out.take()
    AutoPlayers(table, seed=3).play_deal()
    table.wait(100)
    events = [m for m in out.take() if "event" in m]
    kinds = {m["event"] for m in events}
    assert {"tag", "accepted", "trick", "result", "refused"} <= kinds
    refused = [m for m in events if m["event"] == "refused"]
    assert refused[0]["reason"] in ("must_follow", "must_trump", "must_overtrump")
    deal = next(m for m in events if m["event"] == "accepted" and m["ev"]["ev"] == "deal")
    assert deal["ev"]["hands"] is None                        # strict: the hands follow,
    hands = [m for m in events if m["event"] == "accepted" and m["ev"]["ev"] == "hand"]
    assert len(hands) == 3 and all(m["ev"]["cards"] == "hidden" for m in hands)   # hidden
    assert sorted(m["ev"]["seat"] for m in hands) == [0, 1, 2]
    assert all(set(m["ev"]) == {"ev", "seat", "cards"} for m in hands)
    assert all("uid" not in m for m in events if m["event"] == "tag")
    tricks = [m for m in events if m["event"] == "trick"]
    assert [t["n"] for t in tricks] == list(range(1, len(tricks) + 1))
    score = ask(id=1, cmd="score")
    parts = [m for m in out.answer(1) if m.get("more")]
    assert [p["deal"] for p in parts] == [1] and score["deals"] == 1
    assert parts[0]["result"] == score["last_result"]


# ----------------------------------------------------------------- over a pty, with noise


def _noise(port, stop, seen):
    """Garbled bytes, invalid UTF-8, overlong lines, unknown commands, floods and
    wrong PINs, while the table plays; every answer is read."""
    import serial
    rng = random.Random(5)
    ser = serial.Serial(port, timeout=0.05)
    junk = [b"\xff\xfe\xfd\n", b"{\"cmd\":\"status\"\n", b"\xc3\x28{}\n", b"x" * 6000 + b"\n",
            b'{"cmd":"nope","id":1}\n', b'{"cmd":"undo","pin":"0000"}\n',
            b'{"cmd":"view","id":2}\n', b'{"cmd":"status","id":3}\n' * 50,
            bytes(rng.randrange(256) for _ in range(300)) + b"\n",
            b'{"cmd":"reset-session","pin":"9999"}\n', b'{"cmd":"place","reader":0}\n']
    i = 0
    while not stop.is_set() or i < len(junk):    # every kind at least once, however short
        ser.write(junk[i % len(junk)])            # the deal: each in turn, again and again
        i += 1
        data = ser.read(65536)
        seen.append(data)
    t = time.monotonic() + 1
    while time.monotonic() < t:
        seen.append(ser.read(65536))
    ser.close()


def _play(seed, noise):
    table = pinned_table(variant="tapp_modern", players=3)
    link = sim_serial.PtyLink()
    sim_serial.attach(table, link)
    stop = threading.Event()
    seen = []
    th = None
    if noise:
        th = threading.Thread(target=_noise, args=(link.path, stop, seen), daemon=True)
        th.start()
        time.sleep(0.2)
    AutoPlayers(table, seed=seed).play_deal()
    table.wait(200)
    stop.set()
    if th is not None:
        while th.is_alive():
            table.wait(20)
            th.join(0.01)
    return table, link, b"".join(seen)


def test_noise_on_the_line_while_a_deal_is_played_changes_nothing(tmp_path):
    quiet, qlink, _ = _play(seed=3, noise=False)
    noisy, link, said = _play(seed=3, noise=True)
    qlink.close()
    assert noisy.journal_lines() == quiet.journal_lines()
    assert len(noisy.journal_lines()) > 30
    answers = [json.loads(x) for x in said.split(b"\n")[:-1] if x.startswith(b"{")]
    errors = {m.get("error") for m in answers if m.get("ok") is False}
    assert {"bad_line", "too_long", "unknown_command", "bad_args"} <= errors
    assert errors & {"bad_pin", "rate_limited"}
    assert any(m.get("event") == "trick" for m in answers)
    # the journal downloaded over the same pty replays as the table's own journal
    got = []
    holder = {}

    def pump():
        while not holder.get("done"):
            noisy.wait(20)
    th = threading.Thread(target=pump, daemon=True)
    th.start()
    try:
        lk = client.Link(link.path)
        try:
            ans = lk.request("journal", on_part=lambda m: got.append(m["line"]))
        finally:
            lk.close()
    finally:
        holder["done"] = True
        th.join(5)
    assert ans["count"] == len(got) and got == noisy.journal_lines()
    f = tmp_path / "game.jsonl"
    f.write_text("".join(x + "\n" for x in got))
    direct = tmp_path / "direct.jsonl"
    direct.write_text("".join(x.split("\t")[0] + "\n" for x in quiet.journal_lines()))
    a = subprocess.run(TAPPTABLE + ["replay", str(f)], cwd=ROOT, capture_output=True,
                       text=True, timeout=60)
    b = subprocess.run(TAPPTABLE + ["replay", str(direct)], cwd=ROOT, capture_output=True,
                       text=True, timeout=60)
    assert a.returncode == 0 and a.stdout == b.stdout and '"result"' in a.stdout
    assert '"ok":false' not in a.stdout
    link.close()


# ----------------------------------------------------------------- tapptable sim --serial


def _start_sim(serial_spec, *extra):
    proc = subprocess.Popen(TAPPTABLE + ["sim", "--serial", serial_spec, "--pin", PIN] +
                            list(extra), cwd=ROOT, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True)
    line = proc.stdout.readline()
    assert line.startswith("serial: "), proc.stderr.read()
    return proc, line.split(": ", 1)[1].strip()


def _console(port, *words, pin=None, check=True):
    cmd = TAPPTABLE + ["console", "--port", port] + (["--pin", pin] if pin else []) + list(words)
    r = subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True, timeout=60)
    if check:
        assert r.returncode == 0, r.stderr
    return r


@pytest.fixture(params=["pty", "tcp"])
def sim(request):
    # tcp:0: the sim binds any free port and prints it (no port picked here
    # and freed again, which a parallel test could take in between)
    spec = "pty" if request.param == "pty" else "tcp:0"
    proc, port = _start_sim(spec, "--mode", "open")
    yield port
    proc.terminate()
    proc.wait(10)


def test_tapptable_console_against_the_sim(sim, tmp_path):
    port = sim
    st = _console(port, "--json", "status")
    a = json.loads(st.stdout)
    assert a["state"] == "play" and a["mode"] == "open" and a["journal"] == 2
    view = _console(port, "view").stdout
    assert "tapp_modern, 3 players, open mode" in view and "phase auction" in view
    r = _console(port, "undo", check=False)
    assert r.returncode == 2 and "locked" in r.stderr
    link = client.Link(port)                   # one connection: no start-up time between
    try:
        with pytest.raises(client.DeviceError) as e:
            link.request("undo", pin="0000")
        assert e.value.code == "bad_pin" and e.value.answer["retry_ms"] == 500
        with pytest.raises(client.DeviceError) as e:
            link.request("undo", pin=PIN)
        assert e.value.code == "rate_limited"
        time.sleep(0.6)
        assert link.request("log", level="debug", pin=PIN)["level"] == "debug"  # after the wait
        assert link.request("log", level="info")["level"] == "info"
    finally:
        link.close()
    for _ in range(3):                         # every seat passes ("weg")
        d = json.loads(_console(port, "--json", "view", "details", pin=PIN).stdout)
        labels = [label for label, _ev in d["menu"]]
        for _ in range((labels.index("weg") - d["menu_pos"]) % len(labels)):
            _console(port, "press", "next", pin=PIN)
        _console(port, "press", "ok", pin=PIN)
    st = json.loads(_console(port, "--json", "status").stdout)
    assert st["expects"] == "card"             # Ramsch
    turn = st["turn"]
    placed = json.loads(_console(port, "--json", "place", str(turn), "HA", pin=PIN).stdout)
    assert placed["settled"] and placed["accepted"] == 1
    journal = _console(port, "journal").stdout
    lines = journal.splitlines()
    assert len(lines) == 6 and '"card":"HA"' in lines[-1] and "\t" in lines[-1]
    assert [json.loads(x.split("\t")[0])["call"] for x in lines[2:5]] == ["weg"] * 3
    assert _console(port, "journal").stdout == journal
    f = tmp_path / "game.jsonl"
    f.write_text(journal)
    rep = subprocess.run(TAPPTABLE + ["replay", str(f)], cwd=ROOT, capture_output=True,
                         text=True, timeout=60)
    assert rep.returncode == 0 and rep.stdout.splitlines() == ['{"ok":true}'] * 5
    score = _console(port, "score").stdout
    assert "total" in score and "Anna" in score


def test_the_client_reconnects_after_a_reset():
    proc, url = _start_sim("tcp:0")                     # any free port; back on it below
    port = int(url.rsplit(":", 1)[1])
    statuses, events = [], []
    link = client.Link(url, on_status=statuses.append, on_event=events.append,
                       reconnect_s=20)
    try:
        assert link.request("status")["ok"]
        proc.terminate()
        proc.wait(10)
        proc, _ = _start_sim("tcp:%d" % port)             # the table is back
        deadline = time.monotonic() + 20
        while not statuses or not statuses[-1].startswith("connected") \
                or not link.connected.is_set():
            assert time.monotonic() < deadline, statuses
            time.sleep(0.1)
        assert link.request("status")["ok"]
        assert any(s.startswith("connection lost") for s in statuses)
    finally:
        link.close()
        proc.terminate()
        proc.wait(10)


# ----------------------------------------------------------------- client messages


def test_a_device_at_the_repl_is_named():
    srv = socket.socket()
    srv.bind(("127.0.0.1", 0))
    srv.listen(1)
    port = srv.getsockname()[1]

    def repl():
        conn, _ = srv.accept()
        conn.sendall(b"MicroPython v1.28.0 on 2026-01-01; Raspberry Pi Pico with RP2040\r\n"
                     b'Type "help()" for more information.\r\n>>> ')
        heard = b""
        while b"status" not in heard:           # the client's line break, then its request
            heard += conn.recv(1000)
        conn.sendall(b"{'id': 1, 'cmd': 'status'}\r\n>>> ")
        conn.settimeout(10)
        try:                                    # a REPL never hangs up: wait for the client
            while conn.recv(1000):
                pass
        except OSError:
            pass
        conn.close()
    threading.Thread(target=repl, daemon=True).start()
    link = client.Link("socket://127.0.0.1:%d" % port, reconnect_s=0.1)
    try:
        with pytest.raises(client.ReplError, match="MicroPython REPL"):
            link.request("status", timeout=3)
    finally:
        link.close()
        srv.close()


def test_port_busy_no_port_and_permission_messages():
    link = sim_serial.PtyLink()
    try:
        held = client.open_serial(link.path)
        with pytest.raises(client.ConsoleError, match="port busy"):
            client.open_serial(link.path)
        held.close()
    finally:
        link.close()
    with pytest.raises(client.ConsoleError, match="no such port"):
        client.open_serial("/dev/tapptable-nothing-here")
    msg = client.explain_open_error("/dev/ttyACM0", PermissionError(13, "Permission denied"))
    assert "permission denied" in msg and "dialout" in msg
    r = subprocess.run(TAPPTABLE + ["console", "status"], cwd=ROOT, capture_output=True,
                       text=True, timeout=60,
                       env={k: v for k, v in os.environ.items() if k != "TAPPTABLE_PORT"})
    assert r.returncode == 2 and "no table found" in r.stderr


# ----------------------------------------------------------------- on MicroPython


MP_SCRIPT = r'''
import sys
from console_fakes import App, SteppedBoard
from table.console import Console


class Board(SteppedBoard):
    """A clock that moves 20 ms a step, not within one (the bytes waiting are read)."""
    now = 0

    def ticks_ms(self):
        return Board.now


con = Console(App(Board()), sys.stdin, sys.stdout)     # polled stdin, as on the device
for _ in range(60):
    Board.now += 20
    con.step()
'''

# The clock moves 20 ms at every reading (console_fakes.SteppedBoard): a polled
# byte read is a step's work (``_POLLED_MS``), the line's handling the next step's.
MP_SLOW_SCRIPT = r'''
import sys
from console_fakes import App, SteppedBoard
from table.console import Console

con = Console(App(SteppedBoard()), sys.stdin, sys.stdout)
steps = 0
while steps < 200:
    con.step()
    steps += 1
    if con.wire.requests:
        break
print("steps", steps)
for _ in range(5):
    con.step()
'''


def test_the_console_runs_under_micropython_on_a_polled_stdin():
    from tools import mpvm
    requests = (b'{"id":1,"cmd":"status"}\n{"id":2,"cmd":"view"}\n{"id":3,"cmd":"score"}\n'
                b'\xff\xfe garbage\n{"id":4,"cmd":"journal"}\n{"id":5,"cmd":"readers"}\n'
                b'{"id":6,"cmd":"undo","pin":"0000"}\n{"id":7,"cmd":"undo","pin":"4711"}\n'
                b'{"id":8,"cmd":"nope"}\n' + b"y" * 5000 + b"\n")
    # (the heap is not what this test measures -- tests/mp/mptest_app_heap.py and the
    # device bench do -- and compiling the sources needs more than running them:
    # 512k left under 32k to spare, so the table's growth failed it now and then)
    cmd, env = mpvm.unix_cmd(MP_SCRIPT, (), "1m", (), None)   # stdin as bytes
    r = subprocess.run(cmd, input=requests, capture_output=True, env=env, cwd=ROOT,
                       timeout=120)
    assert r.returncode == 0, (r.stdout + r.stderr).decode()
    lines = [json.loads(x) for x in r.stdout.decode().splitlines()]
    by_id = {m["id"]: m for m in lines if "id" in m and "more" not in m}
    assert by_id[1]["ok"] and by_id[1]["mode"] == "open" and by_id[1]["journal"] == 2
    assert by_id[2]["phase"] == "auction" and by_id[3]["balances"] == [0, 0, 0]
    assert by_id[4]["count"] == 2 and by_id[5]["readers"][3]["name"] == "centre"
    assert by_id[6]["error"] == "bad_pin", by_id[6]
    assert by_id[7]["error"] == "rate_limited"
    assert by_id[8]["error"] == "unknown_command"
    assert [m["error"] for m in lines if "id" not in m and m.get("ok") is False] == [
        "bad_line", "too_long"]


def test_a_polled_line_is_read_a_few_bytes_a_step_and_handled_at_the_next():
    """On the Pico a polled byte costs 0.2-0.5 ms: a step reads them for at
    most 2 ms of the board's clock (here a byte: the fake clock moves 20 ms at
    each reading), and a line whose reading spent the step is handled at the
    next -- the request is answered all the same."""
    from tools import mpvm
    line = b'{"id":9,"cmd":"ping"}\n'
    cmd, env = mpvm.unix_cmd(MP_SLOW_SCRIPT, (), "1m", (), None)
    r = subprocess.run(cmd, input=line, capture_output=True, env=env, cwd=ROOT, timeout=120)
    assert r.returncode == 0, (r.stdout + r.stderr).decode()
    out = r.stdout.decode().splitlines()
    steps = [int(x.split()[1]) for x in out if x.startswith("steps ")]
    assert steps and len(line) <= steps[0] < 200, out   # a byte a step, the line a step later
    answers = [json.loads(x) for x in out if x.startswith("{")]
    assert [(a.get("id"), a.get("ok")) for a in answers if "id" in a] == [(9, True)], out


def test_a_finished_session_downloads_without_the_pin_the_one_in_play_not(bench):
    """Only the session in play can hold a strict deal's hands (docs/console.md,
    ``journal``): by its name too it needs the PIN while the deal is on; a
    finished session is anybody's (a watcher keeps the club's history)."""
    table, _pipe, _out, ask = bench
    assert ask(id=1, cmd="reset-session", pin=PIN)["ok"]
    names = [s["name"] for s in ask(id=2, cmd="journal", list=True)["sessions"]]
    current = table.app.view.journal().name()
    finished = [n for n in names if n not in ("current", current)]
    assert finished and current in names, names
    got = ask(id=3, cmd="journal", session=finished[0])
    assert got["ok"] and got["count"] >= 1
    AutoPlayers(table, seed=1).deal_cards()
    table.wait(200)
    assert table.app.view.engine().in_deal()
    assert ask(id=4, cmd="journal", session=current)["error"] == "locked"
    assert ask(id=5, cmd="journal")["error"] == "locked"
    assert ask(id=6, cmd="journal", session=current, pin=PIN)["ok"]
    assert ask(id=7, cmd="journal", session=finished[0])["ok"]


def test_a_step_begins_no_more_work_once_it_has_run_2_ms():
    """On a board whose clock runs while the console works (here 20 ms a
    reading; a Pico's status answer takes 3-7 ms), a step does one thing: an
    answer made once the step has run 2 ms is rendered at the start of the
    next step, and that step takes no request -- yet every step does some
    work, so every request is answered, in order.  An answer rendered at a
    step's start is written at the next (both in one held the Pico 10-12 ms)."""
    from console_bench import Lines, Pipe

    from tests.mp.console_fakes import App, SteppedBoard
    app = App(SteppedBoard())
    pipe, out = Pipe(), Lines()
    con = C.Console(app, pipe, out)
    pipe.feed(b'{"id":1,"cmd":"status"}\n{"id":2,"cmd":"ping"}\n{"id":3,"cmd":"status"}\n')
    answered, waiting = [], []
    for _ in range(16):
        before = len(out.lines)
        con.step()
        answered.append([m.get("id") for m in out.lines[before:] if "ok" in m])
        waiting.append(not con.wire.empty())
    assert [ids for ids in answered if ids] == [[1], [2], [3]]      # one answer a step at most
    for i, ids in enumerate(answered):            # made, then rendered, then written
        assert not ids or (i > 1 and answered[i - 2] == answered[i - 1] == []
                           and waiting[i - 2] and waiting[i - 1]), (answered, waiting)
    assert out.answer(1)[0]["ok"] and out.answer(3)[0]["state"] == out.answer(1)[0]["state"]


class _RoomWire(_EventWire):
    """``_EventWire`` with the queue's room, which each line takes from."""

    def room(self):
        return 48 - len(self.lines)


class _Journal(list):
    def line(self, n):
        return self[n]


def test_a_deals_result_is_a_step_of_its_own_after_its_last_lines_and_trick():
    """At a deal's end its last journal lines (a line's event a step), its last
    trick and its result came in one console step (16 ms on the Pico): the
    trick waits for a step that pushed no line, the result for one that
    pushed nothing else (a line and a trick in one held the Pico's loop
    10-12 ms)."""
    journal = _Journal([with_crc('{"ev":"session"}'),
                        with_crc('{"ev":"play","seat":0,"card":"H7"}'),
                        with_crc('{"ev":"play","seat":1,"card":"H8"}')])
    tv = SimpleNamespace(journal=lambda: journal, refusals=lambda: 0, readers=lambda: 4)
    view = SimpleNamespace(deals_played=lambda: 1, trick_number=lambda: 1,
                           last_trick=lambda: {"n": 1, "cards": ["H7", "H8"], "winner": 1},
                           last_result=lambda: {"won": True}, balances=lambda: [1, -1],
                           pot=lambda: 0, session_over=lambda: False)
    live = C.Live(SimpleNamespace(view=tv), _RoomWire(), 0)
    live.journal = journal
    live.journal_seen = 1                    # the header seen
    steps = []
    for _ in range(5):
        before = len(live.wire.lines)
        live.watch_play(view)
        steps.append([json.loads(x)["event"] for x in live.wire.lines[before:]])
    assert steps == [["accepted"], ["accepted"], ["trick"], ["result"], []], steps


def test_a_step_that_pushed_the_readers_tags_pushes_no_journal_line():
    """A card laid: its reader's tag and its journal line came in one console
    step (2 ms and 4-8 ms of rendering on the Pico: with the trick the loop
    was held 10-12 ms); the tag goes first, the line at the next step, the
    trick at the one after."""
    journal = _Journal([with_crc('{"ev":"session"}'),
                        with_crc('{"ev":"play","seat":0,"card":"H7"}')])
    changes = [0]

    def placed_uid(i, buf):
        if i:
            return 0
        buf[0:4] = b"\x04\xa1\xb2\xc3"
        return 4

    tricks = [0]
    view = SimpleNamespace(deals_played=lambda: 0, trick_number=lambda: tricks[0],
                           last_trick=lambda: {"n": 1, "cards": ["H7"], "winner": 0},
                           variant=lambda: "tapp_modern", players=lambda: 4,
                           seat_names=lambda: ["A", "B", "C", "D"], mode=lambda: "strict")
    tv = SimpleNamespace(journal=lambda: journal, refusals=lambda: 0, readers=lambda: 4,
                         stage=lambda: "play", engine=lambda: view,
                         card_changes=lambda: changes[0], placed_uid=placed_uid,
                         collision=lambda i: False, fault=lambda i: False,
                         card_events_lost=lambda: 0)
    live = C.Live(SimpleNamespace(view=tv), _RoomWire(), 0)
    live.new_session(view)
    live.stage = "play"
    live.journal_seen = 1                    # the card's line not yet pushed
    live.wire.lines.clear()
    changes[0] = 1                           # ... and the arbiter placed it
    tricks[0] = 1                            # (a trick of one card, for the test)
    steps = []
    for _ in range(4):
        before = len(live.wire.lines)
        live.watch()
        steps.append([json.loads(x)["event"] for x in live.wire.lines[before:]])
    assert steps == [["tag"], ["accepted"], ["trick"], []], steps


def test_the_console_waits_while_the_display_has_rows_to_write():
    """A screen is written a few rows a display step (table/screens.py); the
    console's step (up to 12 ms on the Pico) between two of them would hold
    the rest of the screen back, so the console job steps aside until every
    row is written -- then the request is answered."""
    import io
    table = VirtualTable("tapp_modern", 3)
    app = table.app
    out = io.StringIO()
    app.set_console(C.Console(app, io.BytesIO(b'{"id":7,"cmd":"status"}\n'), out))
    app.redraw()
    app.refresh()                         # the first rows of the screen written
    assert not app.nothing_waits()        # ... the others still due
    for _ in range(20):
        app.poll_console()
    assert '"id":7' not in out.getvalue()
    for _ in range(20):
        app.refresh()
        app.poll_console()
    assert app.nothing_waits()
    answer = [json.loads(x) for x in out.getvalue().splitlines() if '"id":7' in x]
    assert answer and answer[0]["ok"] is True
