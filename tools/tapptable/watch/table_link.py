"""The one console client of one table (``tapptable console``'s ``Link``).

``TableWatcher`` connects to the table's serial port (a device, the
simulator's pty or TCP port, the emulated Pico), says ``hello``, reads the
open answers (``status``, ``view``, ``score``) into the table's
``TablePicture`` and follows the live events; a display that changes without
an event (a menu, a message) is asked for every ``poll_s``.  After each
settled deal it downloads the session's journal (each line's CRC checked, as
``tapptable console journal`` does) into the history; with the referee PIN it
also fetches the finished session files the table still holds.  It never asks
for anything hidden (no ``details``, no ``debug`` log level).

When the table goes away -- unplugged, power cut, the simulator stopped -- the
client opens the port again for as long as the watcher runs and takes the
table up from its journal.  Another client already holding the table is not
fought: the watcher says so and stops (``Refused``).
"""
import threading

from tools.tapptable.console import ConsoleError, DeviceError, Link, ReplError, check_crc

from .fold import FoldError

POLL_S = 0.3             # the display is asked this often (a menu changes no event)
RETRY_S = 1.0            # a port that cannot be opened is tried again this often
TIMEOUT_S = 10.0         # one answer
GONE = "the table at %s went away (unplugged, power cut?); waiting for it to come back"
BUSY = ("another client holds this table (a second tapptable watch or console): one "
        "console client per table; open the first watcher's page instead")


class Refused(Exception):
    """The table cannot be watched from here (another client holds it)."""


def busy_text(exc):
    """The reason if ``exc`` says another client holds the table, else None."""
    if isinstance(exc, DeviceError) and exc.code == "busy":
        return BUSY
    if isinstance(exc, ConsoleError) and "port busy" in str(exc):
        return BUSY
    return None


class TableWatcher:
    """Follows one table; ``picture`` is what the page shows, ``history`` the database."""

    def __init__(self, port, picture, history, origin, pin=None, poll_s=POLL_S, log=print):
        self.port = port
        self.picture = picture
        self.history = history
        self.origin = origin
        self.pin = pin
        self.poll_s = poll_s
        self.log = log
        self.link = None
        self.wake = threading.Event()
        self.stop = threading.Event()
        self.need_sync = True
        self.need_journal = False
        self.thread = None
        self.refused = None
        self.on_change = lambda: None

    # ----- lifecycle ------------------------------------------------------------------

    def connect_first(self):
        """The first connection, at start: Refused if another client holds the
        table; a port not there yet is waited for (``run``)."""
        try:
            self._open()
            self._hello()
        except Refused:
            self.close()
            raise
        except (ConsoleError, DeviceError) as exc:
            self._away(exc)

    def start(self):
        self.thread = threading.Thread(target=self.run, name="watch %s" % self.port,
                                       daemon=True)
        self.thread.start()

    def close(self):
        self.stop.set()
        self.wake.set()
        if self.link is not None:
            self.link.close()
        if self.thread is not None and self.thread is not threading.current_thread():
            self.thread.join(5)

    def _open(self):
        if self.link is not None:
            return
        try:
            self.link = Link(self.port, on_event=self._event, on_status=self._status,
                             reconnect_s=None)
        except ConsoleError as exc:
            why = busy_text(exc)
            if why:
                raise Refused("%s: %s" % (self.port, why)) from None
            raise

    def _hello(self):
        try:
            self.link.hello(timeout=TIMEOUT_S)
        except DeviceError as exc:
            why = busy_text(exc)
            if why:
                raise Refused("%s: %s" % (self.port, why)) from None
            raise
        self.picture.set_link("connected", "connected to %s" % self.port)
        self.need_sync = True

    def _away(self, exc):
        text = "waiting for the table at %s (%s)" % (self.port, exc)
        if isinstance(exc, ReplError):
            text = "%s is at the MicroPython REPL: the table's app is not running" % self.port
        elif "connection lost" in str(exc):
            text = GONE % self.port
        self.picture.set_link("waiting", text)
        self._changed()

    def _changed(self):
        self.on_change()

    # ----- the link's callbacks (its reader thread) -------------------------------------

    def _event(self, ev):
        kind = ev.get("event")
        if kind == "hello":                    # the table (re)started: take it up again
            self.need_sync = True
        elif kind == "result":
            self.need_journal = True
        elif kind == "session":
            self.need_sync = True
        if self.picture.event(ev):
            self._changed()
        self.wake.set()

    def _status(self, text):
        if text.startswith("connected again"):
            self.need_sync = True
            self.picture.set_link("connected", "connected to %s again" % self.port)
        elif text.startswith("connection lost"):
            self.picture.set_link("waiting", GONE % self.port)
        else:
            self.log("%s: %s" % (self.picture.name, text))
        self._changed()
        self.wake.set()

    # ----- the loop -----------------------------------------------------------------------

    def run(self):
        while not self.stop.is_set():
            try:
                if self.link is None:
                    self._open()
                    self._hello()
                self.step()
            except Refused as exc:
                self.refused = str(exc)
                self.picture.set_link("refused", str(exc))
                self._changed()
                self.log(str(exc))
                if self.link is not None:
                    self.link.close()
                    self.link = None
                self.stop.wait(RETRY_S * 5)
            except (ConsoleError, DeviceError) as exc:
                self._away(exc)
                if self.link is not None and not self.link.connected.is_set():
                    self.stop.wait(RETRY_S)       # the link reopens the port by itself
                elif self.link is None:
                    self.stop.wait(RETRY_S)
                else:
                    self.need_sync = True
                    self.stop.wait(RETRY_S)
            self.wake.wait(self.poll_s)
            self.wake.clear()

    def step(self):
        """One look at the table: everything after a (re)connect, else the display."""
        if self.need_sync:
            self.need_sync = False
            try:
                self._hello()
                self.sync()
            except BaseException:
                self.need_sync = True
                raise
            return
        self.refresh()
        if self.need_journal:
            self.need_journal = False
            self.fetch_current()

    def request(self, cmd, **args):
        return self.link.request(cmd, timeout=TIMEOUT_S, **args)

    def refresh(self):
        """The display and the game as everyone may see them."""
        try:
            self.picture.set_view(self.request("view"))
        except DeviceError as exc:
            if exc.code != "not_ready":
                raise
            self.picture.set_status(self.request("status"))
        self._changed()

    def sync(self):
        """After a (re)connect: the whole picture, the score sheet from the journal,
        and what the history lacks."""
        status = self.request("status")
        self.picture.set_status(status)
        if status.get("state") == "play":
            self.refresh()
            self.picture.set_score(self.request("score"))
            self.fetch_current()
        self.fetch_finished()
        self._changed()

    # ----- history ----------------------------------------------------------------------

    def download(self, **args):
        """One journal (``current`` or a file): its lines, each CRC checked.  A
        damaged line in the middle refuses the download (ConsoleError); a torn last
        line of a file is dropped, as the table itself drops it."""
        lines = []
        answer = self.link.request("journal", timeout=TIMEOUT_S, on_part=lambda m: lines.append(
            m.get("line", "")), **args)
        if answer.get("count") != len(lines):
            raise ConsoleError("journal: %d lines received, the table sent %s"
                               % (len(lines), answer.get("count")))
        for n, line in enumerate(lines[:-1], start=1):
            check_crc(line, n)
        if lines:
            try:
                check_crc(lines[-1], len(lines))
            except ConsoleError:
                lines.pop()                        # a torn tail costs only itself
        return lines

    def store(self, lines, what):
        try:
            sid, added = self.history.add_record(lines, self.picture.name, self.origin,
                                                 lang=self.picture.lang)
        except FoldError as exc:
            self.log("%s: %s: not stored: %s" % (self.picture.name, what, exc))
            return
        if added:
            self.log("%s: %s: %d deal(s) stored (session %s)" % (self.picture.name, what,
                                                                 added, sid[:12]))

    def fetch_current(self):
        """The session in play, unless its journal holds a strict deal's hands now
        (the table then refuses without the PIN: the next result brings it)."""
        try:
            lines = self.download(session="current", pin=self.pin)
        except DeviceError as exc:
            if exc.code in ("locked", "not_ready", "bad_pin", "rate_limited", "no_pin"):
                return                             # the next result brings it
            raise
        except ConsoleError as exc:
            if "damaged" in str(exc):
                self.log("%s: %s; trying again after the next deal" % (self.picture.name, exc))
                return
            raise
        self.store(lines, "the session in play")

    def fetch_finished(self):
        """The finished sessions on the table's flash not fetched before (anybody
        may download them; the session in play, while a strict deal holds its
        hands, needs the PIN: without it the next result brings it)."""
        try:
            files = self.request("journal", list=True).get("sessions") or []
        except DeviceError:
            return
        for f in files:
            name, size = f.get("name"), f.get("bytes")
            if name == "current" or not isinstance(size, int):
                continue
            if self.history.was_fetched(self.picture.name, name, size):
                continue
            try:
                lines = self.download(session=name, pin=self.pin)
            except DeviceError as exc:
                if exc.code == "locked":
                    continue                       # the session in play: its hands
                self.log("%s: %s: %s" % (self.picture.name, name, exc))
                return                             # a wrong PIN: not again and again
            except ConsoleError as exc:
                self.log("%s: %s: %s" % (self.picture.name, name, exc))
                continue
            self.store(lines, name)
            self.history.mark_fetched(self.picture.name, name, size)
