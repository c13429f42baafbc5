"""Every table one watcher shows: its own and those other watchers publish.

``Club`` is what the web server reads and the MQTT bridge writes: the
snapshots of the tables (``tables()``), the history, and a version number
that moves whenever either changed, so the server knows when to push.
"""
import threading
import time

from .public import sanitize

REMOTE_STALE_S = 120       # a remote table not heard of for this long says so


class Club:
    def __init__(self, history, name):
        self.history = history
        self.name = name                 # this watcher's name (MQTT: its topic level)
        self.local = {}                  # table name -> TablePicture
        self.remote = {}                 # (watcher, table) -> (snapshot, received)
        self.offline = set()             # watchers whose last will came
        self.lock = threading.Lock()
        self.version = 0
        self.history_version = 0
        self.listeners = []
        history.listeners.append(self.history_changed)

    def add_local(self, picture):
        self.local[picture.name] = picture

    def changed(self):
        with self.lock:
            self.version += 1
        for fn in list(self.listeners):
            fn()

    def history_changed(self, _sid=None, _origin=None):
        with self.lock:
            self.history_version += 1
        self.changed()

    def set_remote(self, watcher, table, snapshot):
        """A table another watcher publishes; ValueError if it is no snapshot."""
        clean = sanitize(snapshot)
        with self.lock:
            self.remote[(watcher, table)] = (clean, time.time())
            self.offline.discard(watcher)
        self.changed()

    def set_offline(self, watcher, offline=True):
        with self.lock:
            if offline:
                self.offline.add(watcher)
            else:
                self.offline.discard(watcher)
        self.changed()

    def tables(self):
        """The snapshots, this watcher's tables first; a remote one says where it
        comes from and whether its watcher is still there."""
        out = []
        for name in sorted(self.local):
            snap = self.local[name].snapshot()
            snap["key"] = "%s/%s" % (self.name, name)
            snap["watcher"] = self.name
            out.append(snap)
        now = time.time()
        with self.lock:
            remote = sorted(self.remote.items())
            offline = set(self.offline)
        for (watcher, table), (snap, received) in remote:
            snap = dict(snap, key="%s/%s" % (watcher, table), watcher=watcher)
            if watcher in offline:
                snap["link"] = {"state": "waiting", "text": "the watcher %s is away; waiting "
                                "for it to publish again" % watcher}
            elif now - received > REMOTE_STALE_S and snap["link"].get("state") == "connected":
                snap["link"] = dict(snap["link"], text="nothing heard from the watcher %s "
                                    "for %d s" % (watcher, now - received))
            out.append(snap)
        return out
