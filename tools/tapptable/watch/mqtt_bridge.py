"""Several watchers, one club: the tables and sessions over an MQTT broker.

Each watcher publishes under ``PREFIX/CLUB/WATCHER/``:

``.../online``          "1", retained; its last will "0" (retained) when it goes
``.../table/TABLE``     a table's public snapshot (public.py), retained, on every
                        change and every ``BEAT_S``
``.../session/ID``      a settled session's summary, retained, QoS 1: ``header``
                        (variant, players, seats, mode: no cards), ``deals`` (each
                        deal's result), ``table``, ``day``, ``lang``

and reads everybody else's: remote tables go on the page (rebuilt key by key,
``public.sanitize``), remote sessions into the history (deduplicated by id,
as every session).  On every (re)connect -- a broker restart too -- it
publishes its own sessions and tables again, so a broker that kept nothing
loses nothing.  paho-mqtt reconnects by itself (``loop_start``).
"""
import json
import re
import threading
import time

import paho.mqtt.client as mqtt

PREFIX = "tapptable"
BEAT_S = 30.0
NAME = re.compile(r"^[A-Za-z0-9_.-]{1,64}$")


def topic_name(text):
    """A name as one topic level: no ``/``, ``+``, ``#`` (replaced by ``_``)."""
    return re.sub(r"[^A-Za-z0-9_.-]+", "_", text)[:64] or "_"


class Bridge:
    def __init__(self, club, host, port=1883, club_name="club", log=print):
        self.club = club
        self.host = host
        self.port = port
        self.base = "%s/%s" % (PREFIX, topic_name(club_name))
        self.me = topic_name(club.name)
        self.log = log
        self.connected = threading.Event()
        self.published = {}            # table -> version last published
        self.stop = threading.Event()
        c = mqtt.Client(mqtt.CallbackAPIVersion.VERSION2, client_id="tapptable-%s-%s" % (
            self.me, int(time.time() * 1000) % 100000000))
        c.will_set(self.topic("online"), "0", qos=1, retain=True)
        c.reconnect_delay_set(min_delay=1, max_delay=5)
        c.on_connect = self._on_connect
        c.on_disconnect = self._on_disconnect
        c.on_message = self._on_message
        self.client = c
        self.thread = None
        club.history.listeners.append(self.stored)

    def topic(self, *levels):
        return "/".join((self.base, self.me) + levels)

    # ----- lifecycle ----------------------------------------------------------------

    def start(self):
        self.client.connect_async(self.host, self.port, keepalive=15)
        self.client.loop_start()
        self.thread = threading.Thread(target=self._beat, name="mqtt-beat", daemon=True)
        self.thread.start()

    def close(self):
        self.stop.set()
        try:
            if self.connected.is_set():
                info = self.client.publish(self.topic("online"), "0", qos=1, retain=True)
                info.wait_for_publish(2)
        except (RuntimeError, ValueError):
            pass
        self.client.disconnect()
        self.client.loop_stop()

    # ----- paho's callbacks (its network thread) -----------------------------------

    def _on_connect(self, client, _userdata, _flags, reason, _props):
        if reason.is_failure:
            self.log("mqtt %s:%d: refused: %s" % (self.host, self.port, reason))
            return
        client.subscribe("%s/+/online" % self.base, qos=1)
        client.subscribe("%s/+/table/+" % self.base, qos=0)
        client.subscribe("%s/+/session/+" % self.base, qos=1)
        client.publish(self.topic("online"), "1", qos=1, retain=True)
        self.connected.set()
        self.published.clear()
        self.log("mqtt: connected to %s:%d" % (self.host, self.port))
        threading.Thread(target=self.publish_all, daemon=True).start()

    def _on_disconnect(self, _client, _userdata, _flags, reason, _props):
        if self.connected.is_set():
            self.log("mqtt: lost the broker %s:%d (%s); reconnecting" % (self.host, self.port,
                                                                         reason))
        self.connected.clear()

    def _on_message(self, _client, _userdata, msg):
        parts = msg.topic.split("/")
        if len(parts) < 4 or parts[2] == self.me:
            return
        watcher = parts[2]
        try:
            if parts[3] == "online" and len(parts) == 4:
                self.club.set_offline(watcher, msg.payload != b"1")
            elif parts[3] == "table" and len(parts) == 5 and msg.payload:
                self.club.set_remote(watcher, parts[4], json.loads(msg.payload))
            elif parts[3] == "session" and len(parts) == 5 and msg.payload:
                self.take_session(watcher, json.loads(msg.payload))
        except (ValueError, TypeError, KeyError, AttributeError) as exc:
            self.log("mqtt: ignored %s: %s" % (msg.topic, exc))

    def take_session(self, watcher, s):
        if not isinstance(s, dict) or not isinstance(s.get("header"), dict) or not isinstance(
                s.get("deals"), list) or not re.match(r"^[0-9a-f]{64}$", str(s.get("id"))):
            raise ValueError("not a session summary")
        deals = [d for d in s["deals"] if isinstance(d, dict)]
        if len(deals) != len(s["deals"]):
            raise ValueError("a deal is not an object")
        h = s["header"]
        header = {k: h.get(k) for k in ("record", "variant", "players", "seats", "mode",
                                        "options", "first_dealer")}
        day = s.get("day") if re.match(r"^\d{4}-\d\d-\d\d$", str(s.get("day"))) else None
        seen = time.mktime(time.strptime(day, "%Y-%m-%d")) + 43200 if day else None
        self.club.history.add_session(s["id"], header, deals, str(s.get("table"))[:64],
                                      watcher, seen, lang=s.get("lang"))

    # ----- publishing ----------------------------------------------------------------

    def publish_all(self):
        """Every session this watcher downloaded, and its tables (after a connect)."""
        for s in self.club.history.sessions(limit=100000):
            if s["origin"] == self.club.name:
                self.publish_session(s["id"])
        self.publish_tables(force=True)

    def publish_session(self, sid):
        s = self.club.history.session(sid)
        if s is None or not self.connected.is_set():
            return
        header = {"record": 1, "variant": s["variant"], "players": s["players"],
                  "seats": s["seats"], "mode": s["mode"]}
        body = {"id": sid, "table": s["table"], "day": s["day"], "lang": s["lang"],
                "header": header,
                "deals": [{k: v for k, v in r.items() if k != "deal"} for r in s["rows"]]}
        self.client.publish(self.topic("session", sid), json.dumps(body), qos=1, retain=True)

    def publish_tables(self, force=False):
        if not self.connected.is_set():
            return
        for name, picture in list(self.club.local.items()):
            if not force and self.published.get(name) == picture.version:
                continue
            self.published[name] = picture.version
            self.client.publish(self.topic("table", topic_name(name)),
                                json.dumps(picture.snapshot()), qos=0, retain=True)

    def stored(self, sid, origin):
        """The history took deals of a session: this watcher's own go out."""
        if origin == self.club.name:
            self.publish_session(sid)

    def _beat(self):
        last = 0.0
        while not self.stop.wait(0.2):
            force = time.monotonic() - last > BEAT_S
            if force:
                last = time.monotonic()
            self.publish_tables(force)
