"""The virtual table: the unchanged firmware application on the chip models.

``VirtualTable`` builds the simulator's board (host_sim/board.py), a deck of
virtual NFC stickers enrolled through the registry's front door, and the
application (firmware/table/app.py), and runs its jobs on the virtual clock.
Front-ends (terminal, browser, scenario files, tests) only place and lift
virtual cards, press the three buttons and read what the device shows: the
OLED's pixels and text, the seat LEDs, the buzzer.

``AutoPlayers`` sit at the virtual table: they deal over the centre reader (in
strict mode), answer the menus with the buttons and put legal cards on their
readers, as people would.
"""
import random
import tempfile

from host_sim.board import SimBoard
from host_sim.mfrc522_model import Tag
from host_sim.scheduler import Scheduler
from table import registry as R
from table.app import JOBS, App
from table.settings import Settings
from tapp.cards import CARD_CODES, CODE_INDEX, DECKS, mask_cards
from tapp.dealing import TALON, receivers

DECK_ID = 1
SETTLE_MS = 120          # long enough for the arbiter to settle a placement
PRESS_MS = 80            # a short button press
LONG_MS = 900            # a long press (the pad's long_ms is 700)
KEYS = {"prev": 0, "next": 1, "ok": 2}
LED_NAMES = ("off", "idle", "turn", "played", "refused", "winner", "dealer", "flag",
             "bidding")


def card_uid(deck_id, card):
    """The 7-byte UID of a virtual NTAG sticker (stable per deck and card)."""
    return bytes((0x04, 0x54, deck_id, card, 0xA1, 0xB2, 0x80 | (deck_id ^ card)))


def enrol_virtual_deck(registry, deck_id=DECK_ID, kind="d36"):
    """Enrol every card of a virtual deck through the registry's front door."""
    if registry.kind(deck_id) is None:
        registry.create_deck(deck_id, kind)
    for card in R.kind_cards(kind):
        if not registry.has_card(deck_id, card):
            code = registry.add(deck_id, card, card_uid(deck_id, card))
            if code != R.OK:
                raise RuntimeError("virtual deck: %s" % R.message(code))


class VirtualTable:
    """The table with ``players`` seat readers and a centre reader."""

    def __init__(self, variant="tapp_modern", players=3, mode="strict", options=None,
                 seats=None, first_dealer=0, lang="de", root=None, setup=False):
        self.root = root or tempfile.mkdtemp(prefix="tapptable-")
        self.board = SimBoard(seats=players, root=self.root)
        self.registry = R.Registry(self.root)
        self.registry.load()
        enrol_virtual_deck(self.registry)
        settings = Settings(self.root)
        settings.load()
        values = settings.as_dict()
        values.update({"variant": variant, "players": players, "mode": mode,
                       "options": dict(options or {}), "first_dealer": first_dealer,
                       "language": lang})
        if seats:
            values["seat_names"] = list(seats)
        self.app = App(self.board, values, self.registry, DECK_ID, start=not setup)
        self.scheduler = Scheduler(self.board.clock, [
            (name, getattr(self.app, method), period) for name, method, period in JOBS])
        self.tags = [[] for _ in range(players + 1)]
        self.centre = players
        self.wait(50)

    # ----- acting at the table ----------------------------------------------------------

    def wait(self, ms=SETTLE_MS):
        self.scheduler.run_for(ms)

    def place(self, reader, code, deck_id=DECK_ID, wait=True):
        """Put the card ``code`` (e.g. "HA") on ``reader`` (seats 0.., centre last)."""
        tag = Tag(card_uid(deck_id, CODE_INDEX[code]))
        self.board.chips[reader].place(tag)
        self.tags[reader].append(tag)
        if wait:
            self.wait()

    def place_tag(self, reader, uid, wait=True):
        """Put an arbitrary NFC tag (``uid`` bytes) on ``reader``."""
        tag = Tag(bytes(uid))
        self.board.chips[reader].place(tag)
        self.tags[reader].append(tag)
        if wait:
            self.wait()

    def lift(self, reader, wait=True):
        """Take every card off ``reader`` (and wait until the table noticed)."""
        if self.tags[reader]:
            self.board.chips[reader].remove(*self.tags[reader])
            self.tags[reader] = []
        if wait:
            self.wait_until(lambda: self.app.presence.placed_len(reader) == 0)

    def wait_until(self, done, limit_ms=3000, step_ms=20):
        """Run the table until ``done()`` (or ``limit_ms``); True if it happened."""
        waited = 0
        while not done():
            if waited >= limit_ms:
                return False
            self.wait(step_ms)
            waited += step_ms
        return True

    def press(self, key, long=False):
        """Press and release a button: "prev", "next" or "ok"."""
        pin = self.board.button_pins[KEYS[key]]
        pin.press()
        self.wait(LONG_MS if long else PRESS_MS)
        pin.release()
        self.wait(PRESS_MS)

    # ----- what the device shows ---------------------------------------------------------

    def screen(self):
        """The OLED's 8 text rows, read back from the display model's pixels."""
        return self.board.oled.text_rows()

    def leds(self):
        """Each seat LED's state name, decoded from the WS2812 model's colours."""
        leds = self.board.leds
        colours = {leds.colour(i): LED_NAMES[i] for i in range(len(LED_NAMES))}
        return [colours.get(tuple(c), "?") for c in self.board.strip.colours()]

    def tones(self):
        return self.board.pwm.tones()

    @property
    def game(self):
        return self.app.game

    @property
    def view(self):
        return self.app.game.view

    def journal_lines(self):
        return list(self.app.journal.lines) if self.app.journal else []


class AutoPlayers:
    """Simulated people at the virtual table (``seed`` makes them repeatable)."""

    def __init__(self, table, seed=1, illegal_once=True):
        self.table = table
        self.rng = random.Random(seed)
        self.illegal_once = illegal_once
        self.refused = []          # (seat, card, screen row) of refused attempts
        self.hands = {}

    def deal_cards(self):
        """Strict mode: the dealer deals the shuffled deck over the centre reader."""
        t = self.table
        view = t.view
        rules = t.game.rules
        cards = [CARD_CODES[c] for c in mask_cards(DECKS[rules.deck])]
        self.rng.shuffle(cards)
        seats = receivers(rules, view.dealer())
        self.hands = {s: [] for s in range(rules.players)}
        self.hands[TALON] = []
        for k, code in enumerate(cards):
            self.hands[seats[k]].append(code)
            if rules.strict:
                t.place(t.centre, code)
                t.lift(t.centre, wait=False)
                t.wait(40)

    def choose(self):
        """Answer the menu on screen: a random entry (prev/next, then OK)."""
        t = self.table
        game = t.game
        k = self.rng.randrange(len(game.menu))
        for _ in range(k):
            t.press("next")
        t.press("ok")

    def discard(self):
        t = self.table
        view = t.view
        decl = view.declarer()
        pool = list(view.hand(decl)) + list(view.talon())
        for code in self.rng.sample(pool, t.game.rules.talon_size):
            t.place(t.centre, code)
            t.lift(t.centre, wait=False)
            t.wait(40)

    def play_card(self):
        t = self.table
        view = t.view
        seat = view.turn()
        legal = view.legal_cards()
        hand = view.hand(seat) or []
        if self.illegal_once and view.trick_size() and hand:
            wrong = [c for c in hand if c not in legal]
            if wrong:
                self.illegal_once = False
                t.place(seat, wrong[0], wait=False)
                t.wait_until(lambda: t.game.refused[seat])
                self.refused.append((seat, wrong[0], t.screen()))
                t.lift(seat)
        before = (view.trick_number(), view.trick_size())
        t.place(seat, self.rng.choice(legal), wait=False)
        t.wait_until(lambda: (view.trick_number(), view.trick_size()) != before
                     or not view.in_deal())
        if view.trick_size() == 0:           # trick complete: clear the readers
            t.wait(300)
            for s in view.active_seats():
                t.lift(s, wait=False)
            for s in view.active_seats():
                t.lift(s)

    def play_deal(self, on_step=None):
        """One whole deal at the table; returns the result the device settled."""
        t = self.table
        game = t.game
        if game.step == 0:                    # DEALING
            self.deal_cards()
        for _ in range(2000):
            if on_step:
                on_step(t)
            if game.step != 1:                # GAME over: RESULT / OVER
                return t.view.last_result()
            expects = t.view.expects()
            if game.menu:
                self.choose()
            elif expects == "discard":
                self.discard()
            elif expects == "card":
                self.play_card()
            else:
                t.wait(100)
        raise RuntimeError("the deal did not end: expects %s" % t.view.expects())
