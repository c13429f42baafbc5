"""The table behind the page: the virtual table, the cards in people's hands, robots.

``TableHub`` owns one ``host_sim.table.VirtualTable`` (the unchanged firmware on
the chip models) and everything the device cannot know but a page must show:
where each physical card is (the deck, a seat's hand, the talon, lying on a
reader, set aside, played), who sits where (seat claims by browser tabs), and
the simulated players ("robots") that play the seats nobody claimed.

It talks to the table only as a person would: cards placed on and lifted off
readers, buttons pressed and released; it reads what the device shows (OLED,
LEDs, buzzer) and the engine's read-only view.  Nothing here knows about the
network: ``server.py`` feeds it requests and sends its snapshots.

Who holds which card, and what the robots do, is the one player model of every
virtual table (host_sim/players.py, ``AutoPlayers``): it follows the journal
with the true hands (the talon, the discards, a Rufer swap, a person's revoke in
open mode) and chooses the robots' calls, discards and legal cards by asking
the engine.  The hub keeps only what is physical: the deck being dealt, the
cards lying on readers, the piles; a hand is the player model's hand less the
cards lying on a reader or put aside.  A seat a person holds is never played
by the robots, also while his tab reloads.

Time: the table runs on its virtual clock; ``advance(ms)`` moves it on and runs
every timed action (a button release, the next card of an automatic deal, a
robot's move) at its virtual instant.  The server calls it with wall time.
"""
import heapq
import json
import random

from drivers.leds import COLOURS, STATE_NAMES
from host_sim.players import AutoPlayers
from host_sim.table import KEYS, LONG_MS, PRESS_MS, SETTLE_MS, VirtualTable
from table.menus import needs_hold
from table.names import contract_name, variant_name
from tapp.cards import CARD_CODES, CODE_INDEX
from tapp.dealing import TALON
from tapp.session import Session
from tools.tapptable.outcome import view_words
from tools.tapptable.sim_text import rufer_note, undo_target

LIFT_GAP_MS = 40                       # automatic dealing: after a lift, before the next card
ROBOT_THINK_MS = 600                   # a robot's pause before it acts
ROBOT_CLEAR_MS = 900                   # ... before it takes its card off a finished trick
ROBOT_NEXT_DEAL_MS = 2500              # robots alone: the result stays this long
SEEN_POLL_MS = 20                      # a lift waits until the table has seen the card ...
SEEN_LIMIT_MS = 1500                   # ... but no longer than this
CLEAR_LIMIT_MS = 800                   # a card put down waits until the last lift was seen


ROBOT = "robot"                        # holds a button like a tab does


class Refused(Exception):
    """A request the page may not make now (the message goes back to that tab)."""


class TableHub:
    """One virtual table and its people.  ``seed`` makes shuffles and robots repeatable."""

    def __init__(self, variant="tapp_modern", players=3, mode="strict", seed=1, lang="de",
                 robots=True, options=None, table=None, autoplay=False, dealt=None,
                 flash=None, claims=None):
        self.table = table or VirtualTable(variant, players, mode, options=options, lang=lang)
        # the robots and every hand; ``dealt``: the open-mode hands of a session
        # resumed from its journal (the device never saw them)
        self.players_model = AutoPlayers(self.table, seed=seed, illegal_once=False,
                                         dealt=dealt)
        self.variant = variant
        self.mode = mode
        self.lang = lang
        self.seed = seed
        self.players = players
        self.centre = self.table.centre
        self.robots_on = robots
        self.autoplay = autoplay                 # robots alone deal and start deals too
        self.claims = [None] * players           # client id holding each seat
        if claims and len(claims) == players:    # a resumed session's seats
            self.claims = [c if isinstance(c, str) else None for c in claims]
        self.flash = flash                       # the flash directory (sim_flash.TableDir)
        self.scanned = [[] for _ in range(players)]   # strict dealing: the cards scanned so far
        self.deck = []
        self.talon = []
        self.aside = []                          # discards (and cards put away)
        self.played = []                         # cards of cleared tricks
        self.on_reader = [[] for _ in range(players + 1)]   # [(code, origin)]
        self.prepared = None                     # deals_played when the cards were shuffled
        self.exchanged = False                   # the declarer has laid away in this deal
        self.auto_dealing = False
        self.restarts = 0                        # deals gathered after a power cut
        self.lifting = {}                        # reader -> a lift waits for the table
        self.timers = []                         # heap of (virtual ms, seq, fn)
        self.seq = 0
        self.robot_busy = False
        self.held = {}                           # button -> client id holding it down
        self.pressed_at = {}                     # button -> virtual ms it went down
        self.balance_history = self._history()     # balances before and after each deal
        self.deals_seen = self.view.deals_played()
        self.result_text = view_words(self.view, self.lang, contract_name)   # the last deal
        self.tricks = {}                         # trick number -> last_trick() dict
        self.collecting = False                  # the tricks are this deal's
        self.pwm_seen = 0
        self.oled_bytes = -1
        self.frame = b""
        self.journal_seen = 0
        self.resumed = None                      # (deals, events) of a resumed journal
        self.sync()

    # ----- the table's public face ---------------------------------------------------

    @property
    def view(self):
        return self.table.view

    def strict(self):
        """Strict mode (the hands are scanned), else open."""
        return self.view.mode() == "strict"

    @property
    def tv(self):
        """The table's read-only view (firmware/table/table_view.py)."""
        return self.table.app.view

    def taken_discards(self):
        """The discards laid over the centre and counted, not yet journalled (codes)."""
        tv = self.tv
        return [tv.discard(k) for k in range(tv.discards_taken())]

    def menu(self):
        """The menu on the display: [(label, event or None)]."""
        tv = self.tv
        return [(tv.menu_label(k), tv.menu_event(k)) for k in range(tv.menu_size())]

    def step_name(self):
        """What the table does, in the page's words (dealing, game, result, over)."""
        mode = self.tv.mode()
        return "game" if mode == "play" else mode

    def now(self):
        return self.table.scheduler.now_ms()

    # ----- time --------------------------------------------------------------------------

    def after(self, ms, fn):
        """Run ``fn`` when the virtual clock is ``ms`` further on."""
        self.seq += 1
        heapq.heappush(self.timers, (self.now() + ms, self.seq, fn))

    def advance(self, ms):
        """Run the table ``ms`` virtual milliseconds on, with every timed action."""
        end = self.now() + ms
        while self.timers and self.timers[0][0] <= end:
            due, _seq, fn = heapq.heappop(self.timers)
            if due > self.now():
                self.table.wait(due - self.now())
            fn()
            self.sync()
        if end > self.now():
            self.table.wait(end - self.now())
        self.sync()
        self.think()

    # ----- seats -------------------------------------------------------------------------

    def seats_of(self, cid):
        return [s for s in range(self.players) if self.claims[s] == cid]

    def claim(self, cid, seat):
        self._seat_number(seat)
        holder = self.claims[seat]
        if holder is not None and holder != cid:
            raise Refused("seat %d is taken" % (seat + 1))
        self.claims[seat] = cid
        self._keep_claims()

    def release(self, cid, seat):
        self._seat_number(seat)
        if self.claims[seat] != cid:
            raise Refused("seat %d is not yours" % (seat + 1))
        self.claims[seat] = None
        self._keep_claims()

    def leave(self, cid):
        """A person has gone for good: his seats are free, his buttons released."""
        for s in self.seats_of(cid):
            self.claims[s] = None
        self._keep_claims()
        self.let_go(cid)

    def _keep_claims(self):
        """Who sits where, next to the journal: a restarted server gives each tab
        (by its token) its seats back."""
        if self.flash is not None:
            self.flash.keep_claims(self.claims)

    def let_go(self, cid):
        """A tab's connection has gone (maybe a reload): the buttons it held are
        released; its seats stay its own (``leave`` frees them)."""
        for key, holder in list(self.held.items()):
            if holder == cid:
                self._release_button(key)

    def _seat_number(self, seat):
        if not isinstance(seat, int) or not 0 <= seat < self.players:
            raise Refused("no such seat")

    def _seated(self, cid):
        if not self.seats_of(cid):
            raise Refused("take a seat first")

    # ----- cards -------------------------------------------------------------------------

    def hand(self, seat):
        """The cards in ``seat``'s hand now: while the deck is dealt, the cards
        scanned for him; then what the player model says he holds (with the talon
        while he lays away), less the cards lying on a reader or put aside."""
        if self.tv.mode() == "dealing":
            return list(self.scanned[seat])
        model = self.players_model
        cards = model.hand(seat)
        view = self.view
        if view.expects() == "discard" and view.declarer() == seat:
            cards += model.talon()
        gone = {code for lying in self.on_reader for code, _o in lying}
        gone.update(self.aside)
        gone.update(self.taken_discards())    # laid over the centre, not yet journalled
        return [c for c in cards if c not in gone]

    def talon_cards(self):
        """The talon while it lies face down (before the declarer takes it up)."""
        if self.strict() and self.tv.mode() == "dealing":
            return self.talon
        if self.tv.mode() != "play" or self.exchanged or self.view.expects() == "discard":
            return []
        return self.players_model.talon() if self.view.in_deal() else []

    def place(self, cid, code, reader):
        """Put a card from one of ``cid``'s hands (or the top of the deck, ``"deck"``)
        on ``reader``: its own seat's reader or the centre reader."""
        self._seated(cid)
        mine = self.seats_of(cid)
        if not isinstance(reader, int) or not 0 <= reader <= self.centre:
            raise Refused("no such reader")
        if reader != self.centre and reader not in mine:
            raise Refused("that is not your reader")
        if self.auto_dealing:
            raise Refused("the cards are being dealt")
        if code == "deck":
            if not self.deck:
                raise Refused("the deck is empty")
            self._place_from_deck(reader)
            return
        for s in mine:
            if code in self.hand(s):
                self._put(reader, code, ("hand", s))
                return
        raise Refused("%s is not in your hand" % code)

    def set_aside(self, cid, code):
        """Open mode: the declarer puts a discard away (the device does not see it)."""
        self._seated(cid)
        decl = self.view.declarer()
        if self.strict() or self.view.expects() != "discard" or decl not in self.seats_of(cid):
            raise Refused("only the declarer's discards are put aside (open mode)")
        if code not in self.hand(decl):
            raise Refused("%s is not in your hand" % code)
        self.aside.append(code)
        self.players_model.put_aside(code)

    def lift(self, cid, reader):
        self._seated(cid)
        if reader != self.centre and reader not in self.seats_of(cid):
            raise Refused("that is not your reader")
        if not self.on_reader[reader]:
            raise Refused("no card lies there")
        if not self.lifting.get(reader):
            self._lift(reader)

    def deal(self, cid):
        """Strict mode: deal the rest of the deck over the centre reader, card by card."""
        self._seated(cid)
        if not self.strict() or self.tv.mode() != "dealing":
            raise Refused("nothing to deal now")
        if not self.auto_dealing:
            self.auto_dealing = True
            self._deal_next()

    def _put(self, reader, code, origin):
        if origin[0] == "hand" and self.tv.mode() == "dealing":
            self.scanned[origin[1]].remove(code)
        self.on_reader[reader].append((code, origin))
        if len(self.on_reader[reader]) > 1:
            self.table.place(reader, code, wait=False)
        else:
            self._place_when_clear(reader, code, 0)

    def _place_when_clear(self, reader, code, waited):
        """Put the card down once the table has noticed that the last one was lifted
        (a card put down at once would be taken as the old one still lying there)."""
        if code not in [c for c, _o in self.on_reader[reader]]:
            return                           # taken up again meanwhile
        if self.tv.placed(reader) and waited < CLEAR_LIMIT_MS:
            self.after(SEEN_POLL_MS, lambda: self._place_when_clear(
                reader, code, waited + SEEN_POLL_MS))
            return
        self.table.place(reader, code, wait=False)

    def _place_from_deck(self, reader):
        code = self.deck.pop(0)
        to = reader
        if reader == self.centre:
            to = self.tv.next_receiver()
        self._put(reader, code, ("deck", to))

    def _lift(self, reader, then=None, waited=0):
        """Take the cards off ``reader`` once the table has taken note of them (as a
        person lifts a card after its beep); each goes where a person would put it."""
        if not self.on_reader[reader]:
            if then:
                then()
            return
        if waited < SEEN_LIMIT_MS and not all(
                self._noted(reader, code) for code, _o in self.on_reader[reader]):
            self.lifting[reader] = True
            self.after(SEEN_POLL_MS, lambda: self._lift(reader, then, waited + SEEN_POLL_MS))
            return
        self.lifting.pop(reader, None)
        tv = self.tv
        for code, origin in self.on_reader[reader]:
            self._after_lift(reader, code, origin, tv)
        self.on_reader[reader] = []
        self.table.lift(reader, wait=False)
        if then:
            then()

    def _noted(self, reader, code):
        """Has the table answered the card lying on ``reader`` (taken or refused)?"""
        tv = self.tv
        card = CODE_INDEX[code]
        if tv.refused(reader) or tv.jammed(reader):
            return True
        if tv.mode() == "dealing":
            return tv.deal_seen(card)
        if tv.mode() == "play":
            if reader != self.centre:
                return tv.card_on(reader) == card
            return code in self.taken_discards() or self._discarded(self.view.declarer(), code)
        return tv.placed(reader)

    def _after_lift(self, reader, code, origin, tv):
        """Where a lifted card goes: a dealt card to its hand (or back on the deck
        if the device did not count it), a played or discarded card to its pile; a
        card of a hand that was not taken back to the hand (nothing to do: the
        hand is the player model's)."""
        card = CODE_INDEX[code]
        if origin[0] == "deck":            # strict dealing: did the device count it?
            to = origin[1]
            if tv.deal_seen(card) and not tv.refused(reader):
                if to == TALON:
                    self.talon.append(code)
                elif 0 <= to < self.players:
                    self.scanned[to].append(code)
                else:
                    self.aside.append(code)
            else:
                self.deck.insert(0, code)
            return
        seat = origin[1]
        if tv.mode() == "dealing":
            self.scanned[seat].append(code)
            return
        if reader == self.centre:
            if tv.mode() == "play" and not tv.refused(reader) and self._discarded(seat, code):
                self.aside.append(code)
            return
        played = tv.card_on(reader) == card
        if played and (tv.clearing() or tv.mode() != "play") or \
                code in self._played_codes():
            self.played.append(code)

    def _played_codes(self):
        """The cards played in this deal (the journal since its deal event)."""
        out = []
        for line in reversed(self.table.journal_lines()):
            ev = json.loads(line.split("\t")[0])
            if ev.get("ev") == "deal":
                return out
            if ev.get("ev") == "play":
                out.append(ev["card"])
        return out

    def _discarded(self, seat, code):
        """Strict mode: was ``code`` taken as one of the declarer's discards?"""
        view = self.view
        if code in self.taken_discards():
            return True
        if view.expects() == "discard" or seat != view.declarer():
            return False
        hand = view.hand(seat)
        return hand is not None and code not in hand

    # ----- buttons -----------------------------------------------------------------------

    def press(self, cid, key, long=False):
        """A whole press: down now, up after a short (or long) hold of virtual time."""
        self._seated(cid)
        self._button_down(cid, key)
        self.after(LONG_MS if long else PRESS_MS, lambda: self._release_button(key))

    def button(self, cid, key, down):
        """Press-and-hold from the page: ``down`` True on press, False on release."""
        self._seated(cid)
        if down:
            self._button_down(cid, key)
        elif self.held.get(key) == cid:
            early = self.pressed_at.get(key, 0) + PRESS_MS - self.now()
            if early > 0:                     # a quick click is still a whole short press
                self.after(early, lambda: self._release_button(key))
            else:
                self._release_button(key)

    def _button_down(self, cid, key):
        if key not in KEYS:
            raise Refused("no such button")
        missing = self.players_model.discards_missing() if self.tv.mode() == "play" else 0
        if key == "ok" and missing and self.view.declarer() in self.seats_of(cid):
            raise Refused("put %d more card%s aside first (drag %s onto “Put aside”): the "
                          "table does not see discards, you choose them"
                          % (missing, "s" if missing > 1 else "", "them" if missing > 1
                             else "it"))
        if key in self.held:
            raise Refused("that button is being held")
        self.held[key] = cid
        self.pressed_at[key] = self.now()
        self.table.board.button_pins[KEYS[key]].press()

    def _release_button(self, key):
        if key in self.held:
            del self.held[key]
            self.table.board.button_pins[KEYS[key]].release()

    def power_cut(self, cid):
        """Power off and on: the table restarts from its flash (the journal is
        replayed, the cards lying on the readers stay and are matched)."""
        self._seated(cid)
        self.timers = []                          # whatever was under way is gone
        self.auto_dealing = False                 # ... a deal of the whole deck too
        self.lifting = {}
        self.held = {}
        self.pressed_at = {}
        self.robot_busy = False
        self.table = self.table.power_cut()
        self.players_model.rejoin(self.table)     # the people keep their hands
        self.table.wait(800)                      # the readers take their first look
        self.oled_bytes = -1
        self.pwm_seen = 0
        self.sync()

    def set_robots(self, cid, on):
        self._seated(cid)
        self.robots_on = bool(on)
        if self.flash is not None:
            self.flash.keep_robots(self.robots_on)

    # ----- keeping the cards in step with the table -------------------------------------

    def sync(self):
        """Follow the table: the player model reads the journal; a new deal is
        shuffled (strict: the deck to deal); the score and trick history."""
        tv, view = self.tv, self.view
        self.players_model.people = {s for s in range(self.players)
                                     if self.claims[s] is not None}
        self.players_model.sync()
        if self.flash is not None:
            self.flash.keep_dealt(self.players_model)
        played = view.deals_played()
        if played != self.deals_seen:
            self.deals_seen = played
            self.balance_history.append(list(view.balances()))
            self.result_text = view_words(view, self.lang, contract_name)   # while it is held
        strict = self.strict()
        if self.prepared != played and (
                (strict and tv.mode() == "dealing") or (not strict and view.in_deal())):
            self._new_deal(played)
        elif strict and tv.mode() == "dealing":
            self._gather_if_restarted()
        elif self.deck and tv.mode() == "play":
            self.deck = []           # the table knows the deal: the rest is the talon
        lines = self.table.journal_lines()
        for line in lines[self.journal_seen:]:
            ev = json.loads(line.split("\t")[0])
            if ev.get("ev") == "exchange":
                self.exchanged = True
            elif ev.get("ev") == "deal":
                self.exchanged = False
            elif ev.get("ev") == "undo":
                self.exchanged = any(json.loads(x.split("\t")[0]).get("ev") == "exchange"
                                     for x in self._deal_lines(lines))
        self.journal_seen = len(lines)
        if self.collecting and tv.mode() != "dealing":
            last = view.last_trick()
            if last is None:
                self.tricks = {}
            elif {k: v for k, v in self.tricks.get(last["n"], {}).items() if k != "seats"} \
                    != last:
                active = view.active_seats()
                at = active.index(last["leader"]) if last["leader"] in active else 0
                last["seats"] = [active[(at + k) % len(active)]
                                 for k in range(len(last["cards"]))]
                self.tricks[last["n"]] = last
                for n in [n for n in self.tricks if n > last["n"]]:
                    del self.tricks[n]       # taken back (undo)
            if not view.in_deal():
                self.collecting = False      # settled: the history stays until the next deal

    def _history(self):
        """The balances before the first deal and after each one, from the journal
        (a resumed session's score sheet and chart keep every deal)."""
        lines = self.table.journal_lines()
        session = Session(json.loads(lines[0].split("\t")[0]))
        out = [list(session.view.balances())]
        for line in lines[1:]:
            session.apply(json.loads(line.split("\t")[0]))
            while len(out) <= session.view.deals_played():
                out.append(list(session.view.balances()))
        return out

    @staticmethod
    def _deal_lines(lines):
        """The journal lines of the deal in progress (from its deal event on)."""
        for k in range(len(lines) - 1, 0, -1):
            if json.loads(lines[k].split("\t")[0]).get("ev") == "deal":
                return lines[k:]
        return []

    def _new_deal(self, played):
        self.prepared = played
        self.tricks = {}
        self.collecting = True
        for r in range(self.centre + 1):
            if self.on_reader[r]:
                self.on_reader[r] = []
                self.table.lift(r, wait=False)
        self.scanned = [[] for _ in range(self.players)]
        self.deck, self.talon, self.aside, self.played = [], [], [], []
        self.auto_dealing = False
        if self.strict():                     # the physical deck, dealt by hand
            cards = [CARD_CODES[c] for c in self.tv.deck_cards()]
            random.Random(self.seed * 7919 + played).shuffle(cards)
            self.deck = cards

    def _gather_if_restarted(self):
        """Strict dealing: a card in a hand (or the talon) is one the table has
        counted.  After a power cut the table counts the deal from the start
        ("Von vorn geben"): the dealer gathers every dealt card back into the
        deck and shuffles it, so "Deal all" deals the whole deck again."""
        tv = self.tv
        dealt = [c for hand in self.scanned for c in hand] + self.talon + self.aside
        if all(tv.deal_seen(CODE_INDEX[c]) for c in dealt):
            return
        self.restarts += 1
        self.deck += dealt
        random.Random(self.seed * 7919 + self.prepared * 101 + self.restarts).shuffle(
            self.deck)
        self.scanned = [[] for _ in range(self.players)]
        self.talon, self.aside = [], []

    def _deal_next(self):
        """The next card of an automatic deal: first the card lying on the centre
        reader is lifted (the last one dealt, or one left there by a power cut)."""
        if not self.auto_dealing:
            return
        def next_card():
            self.after(LIFT_GAP_MS, self._deal_next)
        if self.on_reader[self.centre]:
            self._lift(self.centre, next_card)
            return
        if self.tv.mode() != "dealing" or not self.deck:
            self.auto_dealing = False
            return
        self._place_from_deck(self.centre)
        self.after(SETTLE_MS, lambda: self._lift(self.centre, next_card))

    # ----- robots: the player model's choices, acted on the virtual clock ----------------

    def robot_seats(self):
        if not self.robots_on:
            return []
        return [s for s in range(self.players) if self.claims[s] is None]

    def think(self):
        """Robots look at the table and, if it is for them, plan one move."""
        robots = self.robot_seats()
        if not robots or self.robot_busy:
            return
        tv, view = self.tv, self.view
        model = self.players_model
        for s in robots:
            if self.on_reader[s] and (tv.clearing() or tv.mode() != "play" or tv.refused(s)):
                return self._robot(ROBOT_CLEAR_MS, lambda s=s: self._lift(s), s)
        alone = self.autoplay and len(robots) == self.players   # nobody sits: play on
        if tv.mode() == "result" and alone:
            return self._robot(ROBOT_NEXT_DEAL_MS, lambda: self._robot_press("ok"))
        seated = len(robots) < self.players       # a person plays: robots deal for
        if tv.mode() == "dealing" and view.dealer() in robots and (seated or alone) \
                and (self.deck or self.on_reader[self.centre]) and not self.auto_dealing:
            return self._robot(ROBOT_NEXT_DEAL_MS if alone else ROBOT_THINK_MS,
                               self._robot_deal)
        if tv.mode() != "dealing" and any(o[0] == "deck" for _c, o in self.on_reader[
                self.centre]) and not self.auto_dealing and not self.lifting.get(self.centre):
            # a dealt card the table no longer waits for (the deal was complete,
            # or a power cut stopped the dealing): the robots take it off
            return self._robot(ROBOT_CLEAR_MS, lambda: self._lift(self.centre))
        if tv.mode() != "play" or model.waits_for_person():
            return
        turn = view.turn()
        expects = view.expects()
        if tv.menu_size():
            if model.may_answer():
                return self._robot(ROBOT_THINK_MS, self._robot_choose)
            return
        if turn not in robots:
            return
        if expects == "card" and not tv.clearing() and not self.on_reader[turn]:
            return self._robot(ROBOT_THINK_MS, lambda: self._robot_play(turn), turn)
        if expects == "discard":
            return self._robot(ROBOT_THINK_MS, lambda: self._robot_discard(turn), turn)

    def _robot(self, ms, fn, seat=None):
        """``fn`` after ``ms``, if the robots still play (and ``seat`` is still theirs)."""
        self.robot_busy = True

        def act():
            self.robot_busy = False
            robots = self.robot_seats()
            if robots and (seat is None or seat in robots):
                fn()
        self.after(ms, act)

    def _robot_deal(self):
        if self.tv.mode() == "dealing" and not self.auto_dealing \
                and self.view.dealer() in self.robot_seats():
            self.auto_dealing = True
            self._deal_next()

    def _robot_press(self, key, then=None, long=False):
        if key in self.held:
            return
        self.held[key] = ROBOT
        self.table.board.button_pins[KEYS[key]].press()
        self.robot_busy = True

        def up():
            self._release_button(key)
            self.after(PRESS_MS, done)

        def done():
            self.robot_busy = False
            if then:
                then()
        self.after(LONG_MS if long else PRESS_MS, up)

    def _robot_menu(self, index, menu):
        """Move the menu to ``index`` with next presses, then OK (if it is still
        the same menu: a person may have answered meanwhile)."""
        tv = self.tv
        if self.menu() != menu or not self.players_model.may_answer():
            return
        steps = (index - tv.menu_pos()) % len(menu)
        if steps:
            self._robot_press("next", lambda: self._robot_menu(index, menu))
        else:
            self._robot_press("ok", self._robot_sure, long=needs_hold(menu[index][1]))

    def _robot_sure(self):
        """Every entry of the menu commits ("Sicher? OK"): OK once more."""
        if self.tv.menu_asks_sure():
            self._robot_press("ok")

    def _robot_choose(self):
        tv = self.tv
        model = self.players_model
        menu = self.menu()
        if tv.mode() == "play" and menu and model.may_answer():
            k = model.menu_choice()
            ev = menu[k][1]
            if ev is not None and ev.get("ev") == "exchange":
                model.pick_discards()
                self.aside = list(model.discards)
            self._robot_menu(k, menu)

    def _robot_play(self, seat):
        view = self.view
        if view.turn() != seat or view.expects() != "card" or self.tv.clearing():
            return
        code = self.players_model.card_choice(seat)
        if code is not None and code in self.hand(seat):
            self._put(seat, code, ("hand", seat))

    def _robot_discard(self, seat):
        view = self.view
        model = self.players_model
        if view.expects() != "discard" or view.declarer() != seat:
            return
        if not self.strict():
            return self._robot_choose()           # the "discarded? OK" menu
        if self.on_reader[self.centre]:
            self._lift(self.centre)
            return
        if not self.tv.discards_taken():
            model.pick_discards()
        todo = [c for c in model.discards if c in self.hand(seat)]
        if todo:
            self._put(self.centre, todo[0], ("hand", seat))
            self.robot_busy = True

            def lift_it():
                self.robot_busy = False
                if self.on_reader[self.centre]:
                    self._lift(self.centre)
            self.after(SETTLE_MS, lift_it)

    # ----- what the page shows -----------------------------------------------------------

    def led_states(self):
        """Each seat LED as (state name, full-scale RGB), decoded from the strip."""
        board = self.table.board
        lut = {tuple(board.leds.colour(i)): i for i in range(len(STATE_NAMES))}
        colours = board.strip.colours
        if callable(colours):
            colours = colours()
        out = []
        for c in colours:
            i = lut.get(tuple(c))
            out.append(("?", list(c)) if i is None else (STATE_NAMES[i], list(COLOURS[i])))
        return out

    def oled_frame(self):
        """The OLED as 1024 bytes, row by row, 8 pixels a byte (MSB left); the same
        object until the display was written to."""
        oled = self.table.board.oled
        if oled.bytes != self.oled_bytes:
            self.oled_bytes = oled.bytes
            out = bytearray(oled.width * oled.height // 8)
            visible = oled.visible
            for y in range(oled.height):
                base = y * oled.width
                for x in range(oled.width):
                    if visible(x, y):
                        out[(base + x) >> 3] |= 0x80 >> (x & 7)
            out = bytes(out)
            if out != self.frame:
                self.frame = out
        return self.frame

    def pwm_events(self):
        """New buzzer changes since the last call: [virtual ms, freq Hz, on]."""
        log = self.table.board.pwm.log
        start = max(0, min(self.pwm_seen, len(log)) - 1) if self.pwm_seen else 0
        out = []
        for t, freq, duty in log[start:]:
            out.append([t, freq, 1 if duty > 0 else 0])
        if self.pwm_seen and out:
            out = out[1:]                  # the last entry was sent already
        self.pwm_seen = len(log)
        return out

    def shared_state(self):
        """Everything every tab sees alike."""
        tv, view = self.tv, self.view
        leds = self.led_states()
        history = [self.tricks[n] for n in sorted(self.tricks)]
        result = view.last_result()
        model = self.players_model
        question = sorted(model.menu_seats()) if tv.mode() == "play" and tv.menu_size() else []
        return {
            "variant": self.variant, "mode": self.mode, "lang": self.lang,
            "variant_name": variant_name(self.variant),
            "contract": view.contract(),
            "contract_name": contract_name(view.contract(), self.lang)
            if view.contract() else None,
            "result_name": contract_name(result["contract"], self.lang)
            if result and result.get("contract") else None,
            "clearing": bool(tv.mode() == "play" and tv.clearing()),
            "refused": [tv.refused(r) for r in range(self.centre + 1)],
            "taken_back": [tv.taken_back(r) for r in range(self.centre + 1)],
            "rufer": rufer_note(self.table) if tv.mode() == "play" else "",
            "undo": undo_target(self.table) if tv.overlay() == "undo" else None,
            "question": question, "resumed": self.resumed,
            "players": self.players, "centre": self.centre,
            "names": [view.seat_name(s) for s in range(self.players)],
            "dealer": view.dealer(), "turn": view.turn(), "expects": view.expects(),
            "phase": view.phase(), "step": self.step_name(),
            "declarer": view.declarer(), "trump": view.trump(),
            "screen": self.table.screen(),
            "leds": [{"state": n, "rgb": rgb} for n, rgb in leds],
            "readers": [[code for code, _o in cards] for cards in self.on_reader],
            "deck": len(self.deck), "talon": len(self.talon_cards()),
            "aside": len(self.aside),
            "played": len(self.played),
            "trick": view.trick(), "tricks": history,
            "balances": list(view.balances()), "history": self.balance_history,
            "deals": view.deals_played(), "result": result, "result_text": self.result_text,
            "robots": self.robots_on, "dealing": self.auto_dealing,
            "held": sorted(self.held),
        }

    def state_for(self, cid, shared):
        """``shared`` plus what this tab may see: its own hands face up."""
        mine = self.seats_of(cid)
        view = self.view
        shown = view.declarer() if view.in_deal() and view.ouvert() else -1   # Bettel ouvert
        hands = []
        for s in range(self.players):
            cards = self.hand(s)
            hands.append({"count": len(cards), "cards": list(cards) if s in mine or s == shown
                          else None, "open": s == shown})
        claims = ["you" if c == cid else ("taken" if c is not None else None)
                  for c in self.claims]
        return dict(shared, t="state", you=mine, claims=claims, hands=hands)
