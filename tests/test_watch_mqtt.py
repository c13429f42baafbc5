"""Several watchers, one club: `tapptable watch --mqtt` through Debian's mosquitto.

The test starts its own broker on a free port of 127.0.0.1 (no persistence, so
a restart forgets everything), a watcher process on a virtual table that plays
by itself (watch_bench.py), and a second watcher's club in this process.  The
second one must show the first one's table live and get its session into its
history; after a broker restart nothing is lost and nothing is stored twice;
what a stranger publishes is rebuilt key by key or ignored, never a hand.
"""
import json
import os
import shutil
import socket
import subprocess
import sys
import time
from pathlib import Path

import paho.mqtt.client as mqtt
import pytest
from watch_bench import LiveTable

from tools.tapptable.watch.club import Club
from tools.tapptable.watch.history import History
from tools.tapptable.watch.mqtt_bridge import Bridge
from tools.tapptable.watch.public import check_public

ROOT = Path(__file__).resolve().parent.parent
TAPPTABLE = [sys.executable, "-m", "tools.tapptable.cli"]
INSTALL = "apt-get update && apt-get install -y mosquitto"


def mosquitto_path():
    found = shutil.which("mosquitto") or shutil.which("mosquitto", path="/usr/sbin:/usr/bin")
    if not found:
        pytest.fail("mosquitto is missing; install Debian's package: %s" % INSTALL, pytrace=False)
    return found


class Broker:
    """mosquitto on 127.0.0.1:``port``, anonymous, nothing kept across a restart."""

    def __init__(self, tmp_path):
        self.exe = mosquitto_path()
        with socket.socket() as s:
            s.bind(("127.0.0.1", 0))
            self.port = s.getsockname()[1]
        self.conf = tmp_path / "mosquitto.conf"
        self.conf.write_text("listener %d 127.0.0.1\nallow_anonymous true\npersistence false\n"
                             % self.port)
        self.proc = None
        self.start()

    def start(self):
        self.proc = subprocess.Popen([self.exe, "-c", str(self.conf)], stdout=subprocess.DEVNULL,
                                     stderr=subprocess.DEVNULL)
        end = time.monotonic() + 10
        while True:
            try:
                socket.create_connection(("127.0.0.1", self.port), 0.2).close()
                return
            except OSError:
                assert self.proc.poll() is None, "mosquitto did not start"
                assert time.monotonic() < end, "mosquitto did not listen"
                time.sleep(0.05)

    def stop(self):
        self.proc.terminate()
        self.proc.wait(10)


def wait_for(check, what, limit_s=60.0, seen=lambda: ""):
    end = time.monotonic() + limit_s
    while not check():
        assert time.monotonic() < end, "waited %.0f s for %s %s" % (limit_s, what, seen())
        time.sleep(0.05)


def test_two_watchers_one_club_through_a_broker_restart(tmp_path):
    broker = Broker(tmp_path)
    table = LiveTable(speed=8.0)
    proc = subprocess.Popen(TAPPTABLE + ["watch", "Stammtisch=" + table.port, "--mqtt",
                                         "127.0.0.1:%d" % broker.port, "--name", "keller",
                                         "--db", str(tmp_path / "a.db"), "--web-host",
                                         "127.0.0.1", "--web-port", "0", "--no-qr"],
                            cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            env=dict(os.environ, PYTHONUNBUFFERED="1"))
    club = Club(History(str(tmp_path / "b.db")), "saal")
    said = []
    bridge = Bridge(club, "127.0.0.1", broker.port, log=said.append)
    bridge.start()
    try:
        def remote():
            return [t for t in club.tables() if t["key"] == "keller/Stammtisch"]
        wait_for(lambda: remote() and remote()[0]["link"]["state"] == "connected",
                 "the other watcher's table")
        table.play(1)
        wait_for(lambda: [s["deals"] for s in club.history.sessions()] == [1],
                 "the other watcher's session")
        # the table's live view and its session are two messages: either may come first
        wait_for(lambda: remote()[0]["score"]["rows"], "the live score sheet's first row")
        assert remote()[0]["score"]["rows"][0]["deal"] == 1
        assert club.history.sessions()[0]["origin"] == "keller"
        broker.stop()                                  # the broker restarts, forgetting all
        wait_for(lambda: not bridge.connected.is_set(), "the bridge noticing")
        table.play(1)
        broker.start()
        wait_for(lambda: [s["deals"] for s in club.history.sessions()] == [2],
                 "the second deal after the restart",
                 seen=lambda: "club %r; said %r" % (club.history.sessions(), said))
        h = club.history.db
        assert h.execute("SELECT count(*) FROM sessions").fetchone()[0] == 1
        assert h.execute("SELECT count(*) FROM deals").fetchone()[0] == 2
        assert club.history.sessions()[0]["balances"] == table.table.view.balances()
        # a stranger publishes a table with hands and a session that is none
        c = mqtt.Client(mqtt.CallbackAPIVersion.VERSION2)
        c.connect("127.0.0.1", broker.port)
        c.loop_start()
        evil = {"name": "x", "view": {"hands": [["HA"]], "phase": "play"}, "hands": [["HA"]],
                "session": {"seats": ["A", "B"]}, "talon": ["SK"]}
        c.publish("tapptable/club/fremd/table/x", json.dumps(evil), qos=1).wait_for_publish(5)
        c.publish("tapptable/club/fremd/session/" + "a" * 64, b"{not json", qos=1
                  ).wait_for_publish(5)
        c.publish("tapptable/club/fremd/session/" + "b" * 64, json.dumps({"id": "b" * 64}),
                  qos=1).wait_for_publish(5)
        c.loop_stop()
        c.disconnect()
        wait_for(lambda: any(t["key"] == "fremd/x" for t in club.tables()), "the stranger")
        stranger = [t for t in club.tables() if t["key"] == "fremd/x"][0]
        check_public(stranger)
        assert '"HA"' not in json.dumps(stranger) and stranger["session"]["seats"] == ["A", "B"]
        wait_for(lambda: sum("ignored" in s for s in said) >= 2, "two ignored messages")
        assert len(club.history.sessions()) == 1
    finally:
        bridge.close()
        proc.terminate()
        out, err = proc.communicate(timeout=15)
        table.close()
        broker.stop()
    assert "The page: http://127.0.0.1:" in out, err
