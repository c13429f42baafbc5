"""What the table pushes to the console's client: live events (docs/console.md).

``Live`` watches the table each console step through its read-only view
(``app.view``: the stage, the readers and the cards the arbiter settled, the
journal, the engine's view and the refusal log) and queues one event line per
change on the ``Wire``.  The log
level belongs to the connection that set it: it falls back to ``info`` when
the link says the client went, when a new client says ``hello``, or after
``LEVEL_LEASE_MS`` without a request (a board's USB serial cannot tell that a
client left; ``tapptable console`` keeps its level alive with a ``ping``).
Below ``debug``, hidden cards are removed from what is pushed.
"""
from tapp.cards import CARD_CODES
from tapp.jsonout import RawJson
from tapp.record import parse_line

from . import presence as P
from .deck_file import uid_hex
from .presence import ticks_diff
from .registry import card_of, deck_of

try:
    from micropython import const
except ImportError:  # CPython
    const = lambda x: x  # noqa: E731

LEVELS = ("off", "error", "info", "debug")
OFF = 0
ERROR = 1
INFO = 2
DEBUG = 3
LEVEL_LEASE_MS = 30000   # a level other than info ends this long after the last request

_JOURNAL_PER_STEP = const(1)     # journal lines watched per step (each 2-4 ms on the Pico
                                 # and more; two, a deal's hands held a step 12-13 ms) ...
_PARSED = const(7)               # ... a parsed one counting this much more (one a step)
STATUS_NAMES = ("absent", "present", "collision", "error")


def _may_hide(line):
    """May ``redact`` change this journal line (a hand, a deal's hands, a
    lay-away, a give)?  (Not a deal whose hands are dealt card by card.)"""
    return (('"hand' in line and '"hands":null' not in line) or '"discard' in line
            or '"give' in line)


class Live:
    """The live events of one table on one wire."""

    def __init__(self, app, wire, now):
        self.app = app
        self.wire = wire
        self.level = INFO
        self.last_request = now
        self.uidbuf = bytearray(P.UID_MAX)
        self.raw = RawJson("")                   # a journal line pushed as it is
        self.tag_body = {"event": "tag", "reader": 0, "state": ""}   # a tag event's, reused
        self.accepted_body = {"event": "accepted", "n": 0, "ev": self.raw}   # ... a line's
        self.hand_body = {"ev": "hand", "seat": 0, "cards": "hidden"}   # ... a hidden hand
        n = app.view.readers()
        self.session = None                      # the engine's view of the session watched
        self.journal = None
        self.journal_seen = 0
        self.refusals_seen = 0
        self.stage = ""
        self.placed = bytearray(P.UID_MAX * n)   # UID placed per reader
        self.placed_len = bytearray(n)
        self.flags = bytearray(n)                # bit 0 collision, bit 1 fault
        self.raw_status = bytearray(n)
        self.overflows = 0
        self.card_changes = -1                   # the arbiter's events when last looked
        self.deals = 0
        self.tricks = 0
        self.trick_sig = None

    # ----- the connection's log level ------------------------------------------------

    def heard(self, now):
        """A request came: the connection is alive."""
        self.last_request = now

    def end_connection(self):
        """The client went (or a new one said hello): its log level ends with it."""
        self.level = INFO

    def expire(self, now):
        if self.level != INFO and ticks_diff(now, self.last_request) >= LEVEL_LEASE_MS:
            self.level = INFO

    def push(self, body, level):
        if level <= self.level:
            self.wire.event(body)

    # ----- what may be seen -------------------------------------------------------------

    def card_on(self, reader):
        """The card code placed on ``reader`` (registry lookup), or None."""
        n = self.app.view.placed_uid(reader, self.uidbuf)
        if not n:
            return None
        packed = self.app.registry.lookup(memoryview(self.uidbuf)[0:n])
        if packed < 0:
            return None
        return CARD_CODES[card_of(packed)]

    def redact(self, ev):
        """An accepted event as everyone may see it (hands, discards, the Rufer's
        give are hidden in strict mode below the debug level)."""
        if self.level >= DEBUG:
            return ev
        name = ev.get("ev")
        if name == "deal" and ev.get("hands") is not None:
            ev = {"ev": "deal", "dealer": ev.get("dealer"), "hands": "hidden"}
        elif name == "hand":
            ev = {"ev": "hand", "seat": ev.get("seat"), "cards": "hidden"}
        elif name == "exchange" and ev.get("discard"):
            ev = {"ev": "exchange", "seat": ev.get("seat"), "discard": "hidden"}
        elif name == "rufer" and ev.get("give") is not None:
            ev = {"ev": "rufer", "seat": ev.get("seat"), "card": ev.get("card"),
                  "give": "hidden"}
        return ev

    # ----- watching ---------------------------------------------------------------------

    def watch(self):
        """Push what changed since the last step: the stage, the readers' tags,
        then the session's refusals and journal lines, then a trick, a result
        -- each of those parts only where the parts before pushed nothing
        (each renders its lines as it pushes them: the readers' tags 2 ms on
        the Pico, a journal line 4-8 ms, a trick 2 ms -- in one step they held
        the loop 10-12 ms); what a step leaves is pushed at the next."""
        tv = self.app.view
        stage = tv.stage()
        if stage != self.stage:
            self.stage = stage
            self.push({"event": "mode", "state": stage}, INFO)
        room = self.wire.room()
        self.watch_readers()
        if self.wire.room() != room:
            return
        view = tv.engine()
        if view is not self.session:
            self.new_session(view)     # its lines seen: the play at the next step
        elif view is not None:
            self.watch_play(view)

    def watch_play(self, view):
        """The session's refusals, journal lines, tricks and results.  (Apart
        from ``watch``, and the trick's event apart again: a frame over 11
        words would be put on the heap at every console step.)"""
        room = self.wire.room()
        self.watch_refusals(view)
        self.watch_journal()
        if self.wire.room() != room:
            return              # the trick and the result at a step of their own
        deals = view.deals_played()
        tricks = view.trick_number()
        if deals > self.deals or (deals == self.deals and tricks > self.tricks):
            self.trick_done(view, deals)
        if deals > self.deals:
            if self.wire.room() != room:
                return          # the result at a step of its own (with the deal's
                                # last trick it held a step 16 ms on the Pico)
            self.push({"event": "result", "deal": deals, "result": view.last_result(),
                       "balances": view.balances(), "pot": view.pot(),
                       "session_over": view.session_over()}, INFO)
        self.deals = deals
        self.tricks = tricks

    def trick_done(self, view, deals):
        last = view.last_trick()
        if last is None:
            return
        sig = (deals, last["n"], tuple(last["cards"]))
        if sig != self.trick_sig:
            self.trick_sig = sig
            body = {"event": "trick"}
            for k in last:
                body[k] = last[k]
            self.push(body, INFO)

    def new_session(self, view):
        """``view``: the engine's view of the new session (None: none on)."""
        tv = self.app.view
        self.session = view
        self.journal = tv.journal()
        self.journal_seen = 0
        self.deals = 0
        self.tricks = 0
        self.trick_sig = None
        if view is None:
            return
        self.refusals_seen = tv.refusals()
        self.deals = view.deals_played()
        self.tricks = view.trick_number()
        self.journal_seen = len(self.journal) if self.journal is not None else 0
        self.push({"event": "session", "variant": view.variant(), "players": view.players(),
                   "seats": list(view.seat_names()), "mode": view.mode(),
                   "journal": self.journal_seen}, INFO)

    def watch_refusals(self, view):
        """Each card the table refused, with the refusal's stable word."""
        tv = self.app.view
        while self.refusals_seen < tv.refusals():
            k = self.refusals_seen
            self.refusals_seen += 1
            self.refused(view, tv.refusal(k))

    def refused(self, view, got):
        """The event of one refusal ``got`` (reader, word, text), None: no longer kept."""
        if got is None:
            self.wire.dropped += 1           # too many since the last step
            return
        tv = self.app.view
        reader, word, msg = got
        body = {"event": "refused", "reader": reader, "reason": word, "message": msg}
        if reader < view.players() and reader != tv.centre():
            body["seat"] = reader
            card = self.card_on(reader)
            if card is not None:
                body["card"] = card          # face up on a seat reader: public
        elif self.level >= DEBUG:
            body["card"] = self.card_on(reader)
        self.push(body, ERROR)

    def watch_journal(self):
        journal = self.app.view.journal()
        if journal is not self.journal:
            self.journal = journal
            self.journal_seen = 0
        if journal is None:
            return
        k = 0
        while self.journal_seen < len(journal) and k < _JOURNAL_PER_STEP:
            line = journal.line(self.journal_seen)
            self.journal_seen += 1
            k += 1
            if self.journal_seen > 1 and self.level >= INFO:    # (line 0: the header)
                if self.accepted(self.journal_seen - 1, line):
                    k += _PARSED

    def accepted(self, n, line):
        """The event of journal line ``n``: its JSON as it is (the line without
        its CRC, which the journal checked), unless hidden cards may have to
        come out of it (``redact``) or it is not the journal's usual
        ``{...}<tab><crc>``: parsed then.  Whether it was parsed (some 15 ms on
        the Pico: a step takes fewer such lines)."""
        if isinstance(line, str):
            end = line.find("}\t") + 1
            if end > 0 and line.startswith("{") and len(line) == end + 9:
                if self.level >= DEBUG or not _may_hide(line):
                    self.raw.text = line[:end]
                    self.push_accepted(n, self.raw)
                    return False
                if self.hidden_hand(n, line, end):
                    return False
        ev = parse_line(line)
        if ev is not None:
            self.push({"event": "accepted", "n": n, "ev": self.redact(ev)}, INFO)
        return True

    def hidden_hand(self, n, line, end):
        """A strict deal's ``hand`` line, ``{"seat":N,"cards":[...],"ev":"hand"}``
        as the journal writes it, pushed hidden without parsing it (each hand
        was a KB of garbage on the Pico); whether it was one."""
        if not line.startswith('{"seat":') or line.find('"ev":"hand"}', end - 12) != end - 12:
            return False
        k = line.find(",", 8)
        if not 8 < k < 11:
            return False
        self.hand_body["seat"] = int(line[8:k])
        self.push_accepted(n, self.hand_body)
        return True

    def push_accepted(self, n, ev):
        """The event of journal line ``n``, ``ev`` (the line as it is, ``raw``,
        or a hidden hand): one dict for them all, no garbage."""
        body = self.accepted_body
        body["n"] = n
        body["ev"] = ev
        self.push(body, INFO)

    def watch_readers(self):
        """Each reader's tag, its collision and fault flags, its raw status (debug);
        the card events lost.  One small method per part: a frame over 11 words
        would be put on the heap at every console step (tests/mp/mptest_door.py).
        Nothing to look at unless the arbiter's events moved on (a step over six
        readers cost 1.2 ms on the Pico, 40 times a second), but at the debug
        level, which reports each poll's raw status."""
        tv = self.app.view
        if not self.cards_moved(tv):
            return
        for i in range(tv.readers()):
            self.watch_reader(tv, i)
        lost = tv.card_events_lost()
        if lost != self.overflows:
            self.overflows = lost
            self.push({"event": "error", "state": "overflow", "count": lost}, ERROR)

    def cards_moved(self, tv):
        changes = tv.card_changes()
        if changes == self.card_changes and self.level < DEBUG:
            return False
        self.card_changes = changes
        return True

    def watch_reader(self, tv, i):
        n = tv.placed_uid(i, self.uidbuf)
        if not self.same_tag(i, n):
            self.tag_changed(i, n)
        flags = (1 if tv.collision(i) else 0) | (2 if tv.fault(i) else 0)
        if flags != self.flags[i]:
            self.flags_changed(i, flags)
        if self.level >= DEBUG:
            self.watch_status(i, tv.reader_status(i))

    def same_tag(self, i, n):
        """Is the UID just read into ``uidbuf`` (``n`` bytes) the one reader ``i`` had?"""
        if n != self.placed_len[i]:
            return False
        base = P.UID_MAX * i
        k = 0
        while k < n:
            if self.uidbuf[k] != self.placed[base + k]:
                return False
            k += 1
        return True

    def tag_changed(self, i, n):
        """Reader ``i`` now has the ``n`` bytes of ``uidbuf`` (0: no tag).  (The
        UIDs as bytes only where they are said, at the debug level; small
        methods: a frame over 11 words would be put on the heap.)"""
        old = self.placed_len[i]
        if old:
            uid = self.uid_bytes(self.placed, P.UID_MAX * i, old)
            self.tag_event(i, "lifted", uid)
        if n:
            uid = self.uid_bytes(self.uidbuf, 0, n)
            self.tag_event(i, "placed", uid)
        self.keep_uid(P.UID_MAX * i, n)
        self.placed_len[i] = n

    def uid_bytes(self, buf, base, n):
        return bytes(buf[base:base + n]) if self.level >= DEBUG else None

    def keep_uid(self, base, n):
        k = 0
        while k < n:
            self.placed[base + k] = self.uidbuf[k]
            k += 1

    def flags_changed(self, i, flags):
        was = self.flags[i]
        if (flags ^ was) & 1:
            self.tag_event(i, "collision" if flags & 1 else "collision_over", None)
        if (flags ^ was) & 2:
            body = {"event": "error" if flags & 2 else "tag", "reader": i,
                    "state": "reader_fault" if flags & 2 else "reader_back"}
            self.push(body, ERROR if flags & 2 else INFO)
        self.flags[i] = flags

    def watch_status(self, i, status):
        if status != self.raw_status[i]:
            self.raw_status[i] = status
            self.push({"event": "reader", "reader": i,
                       "status": STATUS_NAMES[status & 3]}, DEBUG)

    def tag_event(self, reader, state, uid):
        if self.level < INFO:
            return
        if self.level < DEBUG or uid is None:
            body = self.tag_body                 # one dict for them all: no garbage
            body["reader"] = reader
            body["state"] = state
            self.push(body, INFO)
            return
        body = {"event": "tag", "reader": reader, "state": state, "uid": uid_hex(uid)}
        packed = self.app.registry.lookup(uid)
        if packed >= 0:
            body["deck"] = deck_of(packed)
            body["card"] = CARD_CODES[card_of(packed)]
        self.push(body, INFO)
