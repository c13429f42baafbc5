"""The table monkey: random physical actions at a table, a sensible person who
recovers, and checks after every step -- the table can never be wedged.

The monkey lays any card of the enrolled deck or a foreign tag on any reader
(on top of another card too), lifts and slides cards, presses the buttons short
and long, unplugs a reader and cuts the power at random moments (lifting cards
while the power is off); between its bursts a sensible person takes over
(``Person``): he lifts what does not belong on the readers, plugs a reader
back in, closes the page the display shows and then does what it asks --
deals, answers the menu (a stake needs OK held), lays the discards, plays a
card of the seat on turn, presses OK under the settlement.

After every step (``Checks``):

* no exception came out of the table;
* the journal replays through the engine with no refusal to the state the
  table shows (a shadow session follows it line by line);
* nothing was journalled that no one did: a card play names a card lying on
  that seat's reader; a strict deal or exchange holds only cards laid on a
  reader since; calls, announcements, undo only follow an OK press;
* no row of the screen is cut: the message and each menu entry fit.

Liveness: whenever the person takes over, he must finish the deal within
``RECOVERY_LIMIT`` actions (every deal's end is such a sample; after one burst
in twelve he plays the deal out at once, else he makes a few actions).

With ``make_front`` the monkey sits at a front-end instead -- the browser's
hub or the terminal's seating, through an adapter with ``table``,
``deal_all()``, ``power_cut()`` and ``undo()`` -- and also uses the front-end's
own controls at random (deal all, power cut, undo: OK held, then OK), checked
after each as any other step.

It runs on any table with the virtual table's front door (``place_tag``,
``lift``, ``press``, ``wait``, ``power_cut``, ``board.chips[r]``, ``tags``,
``app.view``, ``view``, ``journal_lines(start)``): ``QuickTable`` below (the
unchanged application on a reader set without chip models, so thousands of
steps take seconds), ``host_sim.table.VirtualTable`` and, inside MicroPython,
``host_sim.vm_table.VmTable``.

    result = Monkey(QuickTable.factory("tapp_modern", 3, "strict"), seed=1).run(2000)
    print(result)        # steps, deals finished, power cuts, ... per kind
"""
import itertools
import json
import random
import tempfile

from host_sim import flash
from host_sim.clock import Clock
from host_sim.i2c_bus import I2CBus
from host_sim.mfrc522_model import Tag
from host_sim.pins import ButtonPin, NeoPixelModel, PWMModel
from host_sim.ssd1306_model import SSD1306Model
from host_sim.table import KEYS, press_button
from host_sim.vm.fake_board import FakeReaders, Pad, fake_board
from host_sim.vm.vm_deck import DECK_ID, card_uid, enrol_virtual_decks
from table.app import JOBS
from table.power_up import boot
from tapp.cards import CODE_INDEX
from tapp.session import Session

RECOVERY_LIMIT = 500     # actions the person may need to finish a deal (137 the most seen)
SESSION_DEALS = 8        # deals a session runs before the monkey sits down at a new one
TICK_MS = 5              # the shortest job period (app.JOBS)
SEATS = ("Anna", "Bert", "Cora", "Dora", "Emil")


class MonkeyError(AssertionError):
    """A check failed: the table was wedged, journalled what no one did, ..."""


# ----- a table without chip models ---------------------------------------------------


class QuickBoard:
    """The board of ``host_sim.board.SimBoard`` with the readers replaced by the
    fake board's (host_sim/vm/fake_board.py: ``FakeReaders`` over ``pads``):
    the real display, button, LED and buzzer drivers on their models, one
    virtual clock, the journal's flash area in RAM."""

    def __init__(self, pads, clock, root, journal_flash):
        self.clock = clock
        self.chips = pads
        self.i2c = I2CBus()
        self.oled = self.i2c.attach(0x3C, SSD1306Model())
        self.button_pins = (ButtonPin("prev"), ButtonPin("next"), ButtonPin("ok"))
        self.strip = NeoPixelModel(n=len(pads) - 1)
        self.pwm = PWMModel(clock=self.ticks_ms)
        board = fake_board(FakeReaders(pads), self.ticks_ms, root, journal_flash, i2c=self.i2c,
                           pins=self.button_pins, strip=self.strip, pwm=self.pwm)
        self.root = board.root
        self.journal_flash = board.journal_flash
        self.readers = board.readers
        self.display = board.display
        self.buttons = board.buttons
        self.leds = board.leds
        self.buzzer = board.buzzer

    def ticks_ms(self):
        return self.clock.ticks_ms()


class QuickTable:
    """The unchanged application (table/app.py) on a ``QuickBoard``, its jobs on
    the virtual clock; the virtual table's front door (host_sim/table.py)."""

    def __init__(self, variant, players, mode, root=None, resume=False, chips=None,
                 clock=None, options=None, enrolled=True, journal_flash=None):
        self.args = (variant, players, mode, options)
        self.root = root or tempfile.mkdtemp(prefix="tapp-monkey-")
        self.centre = players
        self.chips = chips or [Pad() for _ in range(players + 1)]
        self.board = QuickBoard(self.chips, clock or Clock(), self.root,
                                journal_flash or flash.journal_flash())
        values = {"variant": variant, "players": players, "mode": mode,
                  "options": dict(options or {}), "first_dealer": 0, "language": "de",
                  "seat_names": list(SEATS[:players])}
        self.app = boot(self.board, self.root, values, remember=False, resume=resume,
                        enrol=lambda registry: enrol_virtual_decks(registry, 1 if enrolled else 0),
                        deck=DECK_ID, start=True)   # as the virtual tables power up
        # the jobs by their period in 5 ms ticks (no job takes bus time here, so
        # host_sim/scheduler.py's order comes down to this)
        self.ticks = [(getattr(self.app, method), period // TICK_MS)
                      for _name, method, period in JOBS]
        self.tick = 0
        self.wait(50)

    @classmethod
    def factory(cls, variant, players, mode, options=None):
        return lambda: cls(variant, players, mode, options=options)

    @property
    def tags(self):
        return [chip.tags for chip in self.chips]

    @property
    def view(self):
        return self.app.view.engine()

    def close(self):
        pass

    def wait(self, ms):
        """Run the jobs for ``ms`` of virtual time."""
        clock = self.board.clock
        for _ in range(max(1, ms // TICK_MS)):
            k = self.tick
            for step, every in self.ticks:
                if k % every == 0:
                    step()
            self.tick = k + 1
            clock.advance(TICK_MS * 1000.0)

    def wait_until(self, done, limit_ms=1000, step_ms=10):
        waited = 0
        while not done() and waited < limit_ms:
            self.wait(step_ms)
            waited += step_ms

    def place_tag(self, reader, uid, wait=True):
        self.chips[reader].place(Tag(bytes(uid)))
        if wait:
            self.wait_until(lambda: self.app.view.where(uid) == reader)
            self.wait(30)

    def lift(self, reader, wait=True):
        self.chips[reader].tags = []
        if wait:
            self.wait_until(lambda: not self.app.view.placed(reader))
            self.wait(30)

    def press(self, key, long=False):
        press_button(self, key, long)

    def power_cut(self):
        """Power off and on: a new application on the same flash and readers."""
        variant, players, mode, options = self.args
        table = QuickTable(variant, players, mode, root=self.root, resume=True,
                           chips=self.chips, clock=self.board.clock, options=options,
                           enrolled=False, journal_flash=self.board.journal_flash.power_on())
        table.wait(700)                  # the boot look (app.BOOT_LOOK_MS)
        return table

    def journal_lines(self, start=0, stop=None):
        journal = self.app.view.journal()
        if journal is None:
            return []
        if start >= len(journal) - 1:    # the newest line (what a step adds): from the tail
            return journal.tail(len(journal) - start)
        return list(itertools.islice(journal.read_lines(), start, stop))


# ----- the checks after every step ----------------------------------------------------


def _event(line):
    return json.loads(line.split("\t")[0])


def _pressed(action):
    """Was the step a button press?  (A card is seen on any other step: laid,
    left when another is lifted, or on a reader plugged back in.)"""
    return action.split()[-1] in KEYS


class Checks:
    """Follows the table's journal with a shadow session and checks each step."""

    def __init__(self, table):
        self.reset(table)

    def reset(self, table):
        self.table = table
        self.seen = 0
        self.shadow = None
        self.laid = set()        # cards laid on a reader since the last deal / exchange
        self.plays = []          # cards played in the deal in progress, in order

    def laid_card(self, card):
        self.laid.add(card)

    def after(self, action):
        """Check the step ``action`` (a word: place, lift, press, hold, ...) just made;
        returns the new events."""
        t = self.table
        lines = t.journal_lines(self.seen)
        if self.shadow is None and lines:
            self.shadow = Session(_event(lines[0]))
        events = [_event(x) for x in (lines[1:] if self.seen == 0 else lines)]
        self.seen += len(lines)
        for ev in events:
            self._explained(ev, action)
            out = self.shadow.apply(ev)
            if not out.get("ok"):
                raise MonkeyError("the journal does not replay: %r -> %r" % (ev, out))
            self._follow(ev)
        self._same_state()
        self._fits()
        return events

    def _explained(self, ev, action):
        kind = ev.get("ev")
        t = self.table
        if kind == "play":
            uid = card_uid(DECK_ID, CODE_INDEX[ev["card"]])
            if not any(tag.uid == uid for tag in t.tags[ev["seat"]]):
                raise MonkeyError("journalled %r: that card does not lie on reader %d "
                                  "(%s)" % (ev, ev["seat"], action))
        elif kind == "deal" and ev.get("hands") is not None:
            cards = {CODE_INDEX[c] for h in ev["hands"] for c in h}
            if _pressed(action) or not cards <= self.laid:
                raise MonkeyError("journalled a deal of cards not laid (%s): %r" % (
                    action, sorted(cards - self.laid)))
            self.laid = set()
        elif kind == "hand":                     # strict: a hand scanned, all laid
            cards = {CODE_INDEX[c] for c in ev["cards"]}
            if _pressed(action) or not cards <= self.laid:
                raise MonkeyError("journalled a hand of cards not laid (%s): %r" % (
                    action, sorted(cards - self.laid)))
        elif kind == "deal" and self.shadow.view.strict():
            if _pressed(action):                 # strict: with the first card dealt
                raise MonkeyError("journalled %r after %s" % (ev, action))
        elif kind == "exchange" and ev.get("discard"):
            cards = {CODE_INDEX[c] for c in ev["discard"]}
            if _pressed(action) or not cards <= self.laid:
                raise MonkeyError("journalled discards not laid (%s): %r" % (action, ev))
            self.laid = set()
        elif kind == "deal":                     # open mode: the cards lie face down
            if action not in ("ok", "hold ok", "power", "start"):
                raise MonkeyError("journalled %r after %s" % (ev, action))
        elif kind == "undo" and self.shadow.view.expects() == "hand":
            if _pressed(action):                 # the hands left from before the deal
                raise MonkeyError("journalled %r after %s" % (ev, action))   # was dealt
                                                 # again go when the new ones are complete
        elif kind in ("bid", "announce", "rufer", "exchange", "undo"):
            if action not in ("ok", "hold ok"):
                raise MonkeyError("journalled %r after %s" % (ev, action))
        else:
            raise MonkeyError("journalled an event the table never makes: %r" % ev)

    def _follow(self, ev):
        """Keep the cards played in this deal; forget the cards laid once it ends."""
        view = self.shadow.view
        if ev["ev"] == "deal":
            self.plays = []
        elif ev["ev"] == "hand" and view.expects() != "hand":
            self.laid = set()                    # the deal is known: its cards were laid
        elif ev["ev"] == "play":
            self.plays.append(CODE_INDEX[ev["card"]])
        elif ev["ev"] == "undo":
            n = (view.trick_number() - 1) * len(view.active_seats()) + view.trick_size() \
                if view.in_deal() else 0
            del self.plays[n:]
        if not view.in_deal():
            self.laid = set()

    def _same_state(self):
        if self.shadow is None:
            return
        mine = self.table.view
        ref = self.shadow.view
        for q in ("expects", "turn", "trick_number", "trick_size", "deals_played",
                  "balances", "dealer", "declarer", "session_over"):
            a = getattr(mine, q)()
            b = getattr(ref, q)()
            if a != b:
                raise MonkeyError("the table's %s() is %r, the journal's replay says %r"
                                  % (q, a, b))

    def _fits(self):
        tv = self.table.app.view
        if len(tv.message()) > 16:
            raise MonkeyError("message cut on screen: %r" % tv.message())
        for k in range(tv.menu_size()):
            if len(tv.menu_label(k)) > 14:        # shown as <label> in 16 columns
                raise MonkeyError("menu entry cut on screen: %r" % tv.menu_label(k))


# ----- the sensible person -------------------------------------------------------------


class Person:
    """Recovers the table the way a sensible person would: lift what does not
    belong, plug the reader back in, close the page shown, then do what the
    display asks.  ``act()`` makes one action and names it (None: nothing to do,
    the session is over)."""

    def __init__(self, monkey):
        self.monkey = monkey
        self.rng = monkey.rng
        self.tried = {}          # what was tried in this state (menus, cards)

    def act(self):
        m = self.monkey
        t = m.table
        tv = t.app.view
        for r in sorted(m.unplugged):           # the display names the reader
            return m.plug_in(r)
        mode = tv.mode()
        for r in range(tv.readers()):
            if t.tags[r] and not self._belongs(tv, mode, r):
                return m.lift(r)
        page = tv.overlay()
        if page:
            return m.press("prev" if page in ("undo", "notice") else "ok")
        if mode == "dealing":
            return self._deal(tv)
        if mode == "result":
            return m.press("ok")
        if mode == "over":
            return None
        if mode != "play":
            return m.press("ok")                  # the setup: its answers as they are
        return self._play(tv, t.view)

    def _belongs(self, tv, mode, r):
        """A card of the trick on the table lying on its seat's reader."""
        if mode != "play" or tv.clearing() or r == tv.centre() or tv.refused(r) \
                or tv.jammed(r):
            return False
        card = tv.card_on(r)
        tags = self.monkey.table.tags[r]
        return card >= 0 and len(tags) == 1 and tags[0].uid == card_uid(DECK_ID, card)

    def _deal(self, tv):
        m = self.monkey
        unseen = [c for c in m.deck if not tv.deal_seen(c)]
        if tv.next_receiver() == -2:             # the centre takes no more: sweep
            for seat in range(tv.centre()):
                if tv.deal_short(seat):
                    return m.lay(seat, self.rng.choice(unseen), "place")
        return m.lay(tv.centre(), self.rng.choice(unseen), "place")

    def _play(self, tv, view):
        expects = view.expects()
        if expects == "discard" and view.mode() == "strict":
            return self._discard(view)
        if tv.menu_size():
            return self._menu(tv)
        if expects == "card":
            return self._card(view)
        raise MonkeyError("the table expects %s and offers nothing to do: %r" % (
            expects, tv.rows()))

    def _state_key(self, tv):
        return (self.monkey.checks.seen, tv.mode(), tuple(
            tv.menu_label(k) for k in range(tv.menu_size())))

    def _menu(self, tv):
        """Answer the menu: "play on" where offered, else an entry not tried in
        this state (a refused one is not tried again); a stake needs OK held."""
        m = self.monkey
        if tv.menu_asks_sure():                 # "Sicher? OK": the entry chosen
            return m.press("ok")
        key = self._state_key(tv)
        tried = self.tried.setdefault(key, set())
        n = tv.menu_size()
        pos = tv.menu_pos()
        untried = [k for k in range(n) if k not in tried]
        if not untried:
            tried.clear()
            untried = list(range(n))
        quiet = [k for k in untried if tv.menu_event(k) is None]     # "play on"
        want = quiet[0] if quiet else self.rng.choice(untried)
        if pos != want:
            return m.press("next")
        tried.add(want)
        ev = tv.menu_event(want)
        if ev is not None and (ev.get("ev") == "announce" or ev.get("call") == "raise"):
            return m.press("ok", long=True)
        return m.press("ok")

    def _discard(self, view):
        m = self.monkey
        pool = list(view.hand(view.declarer()) or []) + list(view.talon() or [])
        return m.lay(m.table.app.view.centre(), CODE_INDEX[self.rng.choice(pool)], "place")

    def _card(self, view):
        m = self.monkey
        seat = view.turn()
        if view.mode() == "strict":
            cards = [CODE_INDEX[c] for c in view.legal_cards()]
        else:                                   # open mode: the person knows his hand
            key = (m.checks.seen, seat)
            tried = self.tried.setdefault(key, set())
            cards = [c for c in m.deck if c not in m.played_in_deal() and c not in tried]
            if not cards:
                tried.clear()
                cards = [c for c in m.deck if c not in m.played_in_deal()]
            card = self.rng.choice(cards)
            tried.add(card)
            return m.lay(seat, card, "place", lift_after=False)
        return m.lay(seat, self.rng.choice(cards), "place", lift_after=False)


# ----- the monkey --------------------------------------------------------------------


class Monkey:
    """Random physical actions at ``make_table()``'s table, the person recovering
    in between, every step checked.  ``run(steps)`` returns the counts."""

    def __init__(self, make_table=None, seed=1, recovery_limit=RECOVERY_LIMIT,
                 make_front=None):
        self.make_front = make_front   # a front-end's adapter (see the module's text)
        self.front = None
        self.make_table = self._front_table if make_front else make_table
        self.rng = random.Random(seed)
        self.limit = recovery_limit
        self.table = self.make_table()
        self.checks = Checks(self.table)
        self.checks.after("start")
        self.person = Person(self)
        self.unplugged = set()
        self.steps = 0
        self.counts = {}
        self.deck = list(self.table.app.view.deck_cards())
        self.deal_played = set()
        self._played_key = None

    def _front_table(self):
        self.front = self.make_front()
        return self.front.table

    # ----- actions (each one a step, checked) ------------------------------------------

    def _step(self, kind, action):
        self.steps += 1
        self.counts[kind] = self.counts.get(kind, 0) + 1
        self.checks.after(action)
        return kind

    def lay(self, reader, card, action, lift_after=None, wait=True):
        """Lay the card (int, deck 1) on ``reader`` (from wherever it lies); the
        person passes a card over the centre (lays and lifts it: one step)."""
        uid = card_uid(DECK_ID, card)
        self._take_away(uid)
        t = self.table
        busy = bool(t.tags[reader]) or reader in self.unplugged
        self.checks.laid_card(card)
        t.place_tag(reader, uid, wait=wait and not busy)
        if busy or not wait:
            t.wait(150)
        if lift_after is None:
            lift_after = reader == t.centre
        if not lift_after:
            return self._step("lay", action)
        t.lift(reader, wait=reader not in self.unplugged)
        if reader in self.unplugged:
            t.wait(100)
        return self._step("swipe", action)

    def _take_away(self, uid):
        t = self.table
        for r in range(len(t.tags)):
            for tag in list(t.tags[r]):
                if tag.uid == uid:                # a card lies in one place only
                    self._chip(r).remove(tag)
                    if tag in t.tags[r]:
                        t.tags[r].remove(tag)

    def lift(self, reader):
        self.table.lift(reader, wait=reader not in self.unplugged)
        if reader in self.unplugged:
            self.table.wait(100)
        return self._step("lift", "lift")

    def press(self, key, long=False):
        self.table.press(key, long)
        return self._step("hold" if long else "press", ("hold " if long else "") + key)

    def plug_in(self, reader):
        self._chip(reader).reconnect()
        self.unplugged.discard(reader)
        self.table.wait(300)
        return self._step("plug in", "plug in")

    def _chip(self, reader):
        return self.table.board.chips[reader]

    def power_cut(self):
        t = self.table
        where = "cut while " + t.app.view.mode()          # dealing, play, result ...
        if where.endswith("play"):
            where += " " + t.view.expects()                # call, discard, card ...
        self.counts[where] = self.counts.get(where, 0) + 1
        if self.rng.random() < 0.3:                   # cards lifted while it is off
            for r in range(len(t.tags)):
                if t.tags[r] and self.rng.random() < 0.5:
                    t.tags[r][:] = []
        if self.front is not None:
            self.front.power_cut()
            self.table = self.front.table
        else:
            self.table = t.power_cut()
        self.checks.table = self.table
        self.person.tried.clear()
        cards = {card_uid(DECK_ID, c): c for c in self.deck}
        for r in range(len(self.table.tags)):         # the powered-up table sees the
            for tag in self.table.tags[r]:            # cards lying there anew (a card
                if tag.uid in cards:                  # of the last trick swept into a
                    self.checks.laid_card(cards[tag.uid])   # hand being dealt)
        for r in self.unplugged:                      # a loose wire stays loose
            self._chip(r).disconnect()
        return self._step("power cut", "power")

    def front_control(self):
        """One of the front-end's own controls: "Deal all" (any card of the deck
        may pass over the centre reader), a power cut, or undo (OK held, OK)."""
        kind = self.rng.choice(("deal all", "power cut", "undo"))
        self.counts["front " + kind] = self.counts.get("front " + kind, 0) + 1
        if kind == "power cut":
            return self.power_cut()
        if kind == "undo":
            self.front.undo()
            return self._step("undo", "ok")
        for card in self.deck:
            self.checks.laid_card(card)
        self.front.deal_all()
        return self._step("deal all", "place")

    def played_in_deal(self):
        """Cards played in the deal in progress (open mode: the person's memory)."""
        return set(self.checks.plays)

    def random_action(self):
        rng = self.rng
        t = self.table
        n = len(t.tags)
        if self.front is not None and rng.random() < 0.25:
            return self.front_control()
        roll = rng.random()
        if roll < 0.30:
            return self.lay(rng.randrange(n), rng.choice(self.deck), "place",
                            lift_after=False)
        if roll < 0.34:                                  # a foreign tag, or deck 2
            uid = bytes([0x04] + [rng.randrange(256) for _ in range(6)]) \
                if rng.random() < 0.5 else card_uid(2, rng.choice(self.deck))
            r = rng.randrange(n)
            t.place_tag(r, uid, wait=False)
            t.wait(150)
            return self._step("tag", "place")
        if roll < 0.52:
            full = [r for r in range(n) if t.tags[r]]
            return self.lift(rng.choice(full)) if full else self.press("prev")
        if roll < 0.60:                                  # slide a card to another reader
            full = [r for r in range(n) if t.tags[r]]
            if full:
                r = rng.choice(full)
                uid = t.tags[r][-1].uid
                if uid[:3] == card_uid(DECK_ID, 0)[:3]:
                    return self.lay(rng.randrange(n), uid[3], "place", lift_after=False)
            return self.press("next")
        if roll < 0.78:
            return self.press(rng.choice(("prev", "next", "ok")))
        if roll < 0.85:
            return self.press(rng.choice(("prev", "next", "ok")), long=True)
        if roll < 0.88:
            r = rng.randrange(n)
            self._chip(r).disconnect()
            self.unplugged.add(r)
            t.wait(300)
            return self._step("unplug", "unplug")
        if roll < 0.92:
            return self.power_cut()
        t.wait(rng.randrange(1200))
        return self._step("wait", "wait")

    # ----- the run ----------------------------------------------------------------------

    def recover(self, to_end):
        """The person takes over: to the end of the deal (``to_end``), or a few
        actions.  The deal must end within the limit."""
        view = self.table.view
        start = (view.deals_played(), self.table.app.view.mode())
        budget = self.limit if to_end else self.rng.randrange(
            8 if self.rng.random() < 0.5 else 40)
        for k in range(self.limit + 1):
            if k >= budget and not to_end:
                return
            tv = self.table.app.view
            if tv.mode() == "over":
                self._new_session()
                return
            if self.table.view.deals_played() != start[0] and tv.mode() == "result":
                self.counts["deals"] = self.counts.get("deals", 0) + 1
                if to_end and k > self.counts.get("longest recovery", 0):
                    self.counts["longest recovery"] = k      # actions to the deal's end
                if self.table.view.deals_played() >= SESSION_DEALS:
                    self._new_session()        # a power-up folds the whole session
                return
            if self.person.act() is None:
                return
        raise MonkeyError("wedged: the person did not finish the deal in %d actions; "
                          "screen %r" % (self.limit, self.table.app.view.rows()))

    def _new_session(self):
        self.table.close()
        self.table = self.make_table()
        self.checks.reset(self.table)
        self.checks.after("start")
        self.person.tried.clear()
        self.unplugged = set()
        self.counts["sessions"] = self.counts.get("sessions", 0) + 1

    def run(self, steps):
        while self.steps < steps:
            for _ in range(self.rng.randrange(1, 11)):
                self.random_action()
                self.counts["random"] = self.counts.get("random", 0) + 1
            self.recover(to_end=self.rng.random() < 0.08)
        self.counts["steps"] = self.steps
        return self.counts
