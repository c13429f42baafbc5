"""The console against a board: MicroPython's unix port behind a pseudo-terminal.

``socat`` puts ``micropython -i`` on a pty as a board's USB serial port is: at
the REPL it echoes what it is sent and prints ``>>>``; with a script it first
runs the table's console there (the unchanged firmware/table/console*.py and
``console_door.run_table``, the app's other jobs replaced by the small fakes
of tests/mp/console_fakes.py) and then falls to the REPL as main.py does.

* the client recognises a REPL (its echo, its prompt) and a loopback: exit 2,
  one line that says the app is not running, the PIN never printed;
* while the table runs, 0x03 and 0x04 are ordinary bytes; the PIN-guarded
  ``repl`` command hands the board to the REPL with the journal closed, after
  which mpremote works; ``tapptable deploy`` does that by itself.
"""
from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tools import mpvm
from tools.tapptable import console as client
from tools.tapptable import deploy as D

ROOT = Path(__file__).resolve().parent.parent

TAPPTABLE = [sys.executable, "-m", "tools.tapptable.cli"]
PIN = "4711"

BOARD_APP = r'''
import sys
from console_fakes import App, Journal, RealTimeBoard
from table.console import Console
from table.console_door import run_table

app = App(RealTimeBoard())
app.set_console(Console(app, sys.stdin, sys.stdout))
run_table(app)
print("journal closed:", Journal.closed)
'''


def _socat():
    socat = shutil.which("socat")
    if socat is None:
        pytest.fail("socat is missing: apt-get install socat (.ci/run does)", pytrace=False)
    return socat


@pytest.fixture
def vm_board(tmp_path):
    """Start ``micropython -i [script]`` behind a pty: a function (script text or
    None) -> the pty's path."""
    procs = []

    def start(script=None):
        flash = tmp_path / ("flash%d" % len(procs))
        flash.mkdir()
        link = tmp_path / ("ttyMP%d" % len(procs))
        cmd = "%s -i" % mpvm.unix_binary()
        if script is not None:
            (flash / "board_app.py").write_text(script)
            cmd += " board_app.py"
        env = dict(os.environ, MICROPYPATH=mpvm.micropypath(()))
        proc = subprocess.Popen([_socat(), "PTY,link=%s,raw,echo=0" % link,
                                 'EXEC:"%s",pty,raw,echo=0' % cmd], cwd=flash, env=env,
                                stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        procs.append(proc)
        deadline = time.monotonic() + 10
        while not link.exists():
            assert time.monotonic() < deadline, "socat made no pty"
            time.sleep(0.05)
        time.sleep(0.5 if script is None else 1.5)      # the banner; the app's imports
        return str(link)
    yield start
    for proc in procs:
        proc.terminate()
        proc.wait(10)


def _console(port, *words, pin=None):
    cmd = TAPPTABLE + ["console", "--port", port, "--timeout", "5"] + \
        (["--pin", pin] if pin else []) + list(words)
    return subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True, timeout=60)


def test_a_repl_or_a_loopback_is_not_taken_for_the_table(vm_board):
    port = vm_board()
    r = _console(port, "status")
    assert r.returncode == 2 and r.stdout == ""
    assert "the table's app is not running" in r.stderr and "Ctrl-D" in r.stderr
    assert len(r.stderr.strip().splitlines()) == 1
    r = _console(port, "--json", "ping")
    assert r.returncode == 2 and r.stdout == "" and "not running" in r.stderr
    r = _console(port, "undo", pin="1234")
    assert r.returncode == 2 and "1234" not in r.stdout + r.stderr
    r = _console("loop://", "status", pin="1234")
    assert r.returncode == 2 and "echoes what it is sent" in r.stderr
    assert "1234" not in r.stdout + r.stderr


def test_ctrl_c_is_a_byte_while_the_table_runs_and_repl_hands_the_board_over(vm_board):
    port = vm_board(BOARD_APP)
    texts = []
    link = client.Link(port, on_text=texts.append, reconnect_s=0)
    try:
        assert link.hello(timeout=10)["protocol"] >= 2
        link.send_raw(b"\x03\x04\x03 noise \x03\n")          # line noise with Ctrl-C, Ctrl-D
        time.sleep(0.3)
        assert link.request("status")["state"] == "play"     # still the table
        with pytest.raises(client.DeviceError) as e:
            link.request("repl")
        assert e.value.code == "locked"
        assert link.request("repl", pin=PIN)["repl"] is True
        time.sleep(0.5)
        with pytest.raises(client.ReplError):
            link.request("status", timeout=3)
        assert any("journal closed: True" in t for t in texts)
    finally:
        link.close()
    out = D.Board(port, timeout=30).run("exec", "print(6 * 7)")   # mpremote has the board
    assert out.strip().splitlines()[-1] == "42"


def test_deploy_stops_the_table_by_itself(vm_board, tmp_path):
    src = tmp_path / "src" / "firmware"
    shutil.copytree(ROOT / "firmware", src,
                    ignore=shutil.ignore_patterns("__pycache__", "*.pyc", "*.md"))
    out = tmp_path / "build" / "pico"
    D.build("pico", out, src=src, log=lambda s: None)
    port = vm_board(BOARD_APP)
    with pytest.raises(D.DeployError, match="give the referee PIN"):
        D.deploy("pico", port, out, dry_run=True, reset=False, log=lambda s: None)
    said = []
    copy, remove = D.deploy("pico", port, out, dry_run=True, reset=False, stop_pin=PIN,
                            log=said.append)
    assert said[0].startswith("the table's app stopped for the REPL")
    assert "linux" in said[1] and len(copy) == len(json.loads(
        (out / "manifest.json").read_text())["files"]) and not remove
