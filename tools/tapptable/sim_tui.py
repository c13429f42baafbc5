"""``tapptable sim`` in a terminal: sit down at the virtual table.

A full-screen view (Textual) of the virtual table (host_sim/table.py): the
unchanged firmware on the chip models, on a virtual clock that runs with wall
time. Around the table sit the seats, each with its reader and its LED; you act
for one seat (its hand face up, the others face down), the simulated people
for the rest. In the middle the centre reader; beside it the OLED, mirrored
pixel for pixel from the SSD1306 model with half blocks (128x64 pixels -> 128
columns x 32 rows), the buzzer, the three buttons and the journal.

Keys: left/right choose a card, enter/space put it on your seat's reader, c on
the centre reader (laying away); l/backspace lift your card, L clear every
reader; , PREV  . NEXT  o or / OK (the device's buttons); held (a long press):
O OK (undo), < PREV (score sheet), > NEXT (points so far, the last trick);
d the dealer deals, a the simulated people make the next move, A lets them move
by themselves (on by default), s act for the next seat, z pixel/text OLED, P a
power cut; with --record: n next event, p previous; q quits (during a deal it
asks first).  Mouse: click a card, a seat, a button.  The table keeps its flash
in a directory (sim_flash.py): started again, it takes the session up.

Everything goes through the table's front door: ``place``/``lift`` virtual
cards, ``press`` buttons, read ``screen()``, the display model's pixels, the
LED strip and the buzzer (see sim_text.py for the readers used by both views).
"""
import json
import time

from rich.segment import Segment
from rich.style import Style
from textual.app import App, ComposeResult
from textual.binding import Binding
from textual.containers import Grid, Horizontal, Vertical
from textual.markup import escape
from textual.strip import Strip
from textual.widget import Widget
from textual.widgets import Button, Header, Static

from host_sim.table import VirtualTable
from table.names import contract_name, variant_name
from tapp.cards import CARD_CODES
from tapp.dealing import TALON
from tapp.session import Session as EngineSession
from tools.tapptable.outcome import view_words
from tools.tapptable.sim_flash import TableDir, state_dir
from tools.tapptable.sim_text import (
    TablePlayers,
    card_text,
    inverted_rows,
    led_rgb,
    reader_codes,
    rufer_note,
    seat_name,
    undo_target,
)

TICK_MS = 50                 # the virtual clock moves on by this much every tick
SETTLE_MS = 100              # after an action: the display job has sent every page
AUTO_DELAY_S = 0.8           # the simulated people take a moment before they act
CLEAR_DELAY_S = 1.6          # ... and look at a complete trick a little longer
SUIT_ORDER = "CSHD"
RANK_ORDER = ("A", "10", "K", "Q", "J", "9", "8", "7", "6")
RED_SUITS = "HD"
# the key help, always on screen (two lines of at most 78 columns: 80x24 fits)
# the device's buttons are PREV, NEXT, OK; a capital (or < >) holds one (a long press)
KEY_HELP = ("[b]←→[/] card  [b]⏎[/] put on reader  [b]c[/] centre  [b]l[/] lift  "
            "[b]L[/] clear all  [b], . o[/] PREV NEXT OK\n"
            "held: [b]<[/] PREV [b]>[/] NEXT [b]O[/] OK  [b]d[/] deal  [b]a[/] others  "
            "[b]s[/] seat  [b]P[/] power cut  [b]q[/] quit")
OLED_ON = "#dff3ff"
OLED_OFF = "#05080c"

# (row, column) in the 3x3 grid of the seat that sits ``k`` places after you,
# clockwise seen from above: you at the bottom, then left, top, right.
PLACES = {
    2: [(2, 1), (0, 1)],
    3: [(2, 1), (0, 0), (0, 2)],
    4: [(2, 1), (1, 0), (0, 1), (1, 2)],
    5: [(2, 1), (1, 0), (0, 0), (0, 2), (1, 2)],
    6: [(2, 1), (2, 0), (0, 0), (0, 1), (0, 2), (2, 2)],
}
CENTRE_CELL = (1, 1)


def sort_hand(codes):
    def key(code):
        return SUIT_ORDER.index(code[0]), RANK_ORDER.index(code[1:])
    return sorted(codes, key=key)


def card_markup(code):
    colour = "#ff5f5f" if code[0] in RED_SUITS else "#e8e8e8"
    return "[%s]%s[/]" % (colour, escape(card_text(code)))


# ----------------------------------------------------------------- the table and you


class Seating:
    """The virtual table, the simulated people and the seat you act for; every
    action goes through the table's front door.  No Textual here."""

    def __init__(self, variant="tapp_modern", players=3, mode="strict", seed=1, lang="de",
                 options=None, seats=None, first_dealer=0, you=0, illegal_once=False,
                 table_class=VirtualTable, root=None):
        # the table's flash in ``root`` (sim_flash.py): a session found there goes on
        self.flash = TableDir(root)
        self.table = self.flash.open(table_class, variant, players, mode, lang,
                                     options=options, seats=seats, first_dealer=first_dealer)
        self.nseats = players
        self.you = you % players
        self.people = TablePlayers(self.table, seed=seed, illegal_once=illegal_once,
                                   people={self.you}, dealt=self.flash.dealt())
        self.selected = 0
        resumed = self.flash.resumed
        self.note = "" if resumed is None else (
            "the table took the session up from its journal in %s (%d deals, %d events), "
            "as the device does after a power cut" % (root, resumed["deals"],
                                                      resumed["events"]))

    # ----- what is known ----------------------------------------------------------

    @property
    def view(self):
        return self.table.view

    @property
    def table_view(self):
        """The table's read-only view (firmware/table/table_view.py)."""
        return self.table.app.view

    def mode(self):
        return self.table.app.view.mode()

    def follow(self):
        """Let the simulated people catch up with the journal (host_sim/players.py:
        they know every hand); False if they can't."""
        try:
            self.people.sync()
        except (RuntimeError, KeyError, ValueError) as exc:
            self.note = "the simulated people lost track: %s" % exc
            return False
        self.flash.keep_dealt(self.people)
        return True

    def deal_under_way(self):
        """Has a deal begun that is not settled (cards dealt, or the deal in play)?"""
        tv = self.table_view
        if tv.mode() == "dealing":
            return tv.deal_scanned() > 0
        return tv.mode() == "play" and self.view.in_deal()

    def power_cut(self):
        """Power off and on: the table resumes its journal from its flash; the
        cards stay on the readers, the people keep their hands."""
        self.table = self.table.power_cut()
        self.people.rejoin(self.table)
        self.note = "power cut: the table resumed its journal"

    def picks_up_talon(self, seat):
        """Is ``seat`` the declarer who has taken up the talon to lay away?"""
        view = self.view
        return self.mode() == "play" and view.expects() == "discard" and \
            view.declarer() == seat

    def hand(self, seat):
        """The cards ``seat`` holds in his hand: what the players know he was dealt
        and took up (the talon, while he lays away), less the cards lying on
        readers, passed over the centre or put aside."""
        if not self.view.in_deal() or self.mode() != "play":
            return []
        self.follow()
        cards = self.people.hand(seat)
        gone = set(reader_codes(self.table)[seat])
        if self.picks_up_talon(seat):
            cards += self.people.talon()
            tv = self.table_view
            gone.update(tv.discard(k) for k in range(tv.discards_taken()))
            gone.update(self.people.discards)
        return sort_hand(c for c in cards if c not in gone)

    def laid_open(self, seat):
        """Does ``seat``'s hand lie face up (the declarer of a Bettel ouvert)?"""
        view = self.view
        return view.in_deal() and view.ouvert() and view.declarer() == seat

    def your_hand(self):
        hand = self.hand(self.you)
        if hand:
            self.selected = max(0, min(self.selected, len(hand) - 1))
        return hand

    def on_reader(self, reader):
        return reader_codes(self.table)[reader]

    def actor(self):
        """The seat the table waits for now (-1: nobody in particular)."""
        view = self.view
        mode = self.mode()
        if mode == "dealing":
            return view.dealer()
        if mode != "play":
            return -1
        return view.turn()

    def your_move(self):
        tv = self.table_view
        mode = tv.mode()
        if mode in ("result", "over") or tv.overlay() in ("undo", "scores"):
            return True
        if mode == "play" and tv.clearing():
            return False
        if mode == "play" and tv.menu_size():
            self.follow()
            return self.you in self.people.menu_seats()
        return self.actor() == self.you

    # ----- you, at the table --------------------------------------------------------

    def choose(self, delta):
        hand = self.your_hand()
        if hand:
            self.selected = (self.selected + delta) % len(hand)

    def pick(self, index):
        hand = self.your_hand()
        if 0 <= index < len(hand):
            self.selected = index

    def put(self, centre=False):
        """Put the chosen card on your seat's reader (or the centre reader; in
        open mode, laying away, put it aside: the table does not see discards)."""
        hand = self.your_hand()
        if not hand:
            self.note = "no cards in your hand yet (d: the dealer deals)"
            return
        code = hand[self.selected]
        if centre and not self.view.strict() and self.picks_up_talon(self.you):
            self.people.put_aside(code)
            left = self.people.discards_missing()
            self.note = "%s put aside%s" % (card_text(code), "; %d more" % left if left > 0
                                             else "; o confirms")
            return
        reader = self.table.centre if centre else self.you
        self.table.place(reader, code)
        if centre:                      # laying away: the card passes over the reader
            self.table.lift(reader)
        self.note = "%s on the %s reader" % (card_text(code), "centre" if centre
                                             else "seat")

    def lift(self):
        """Take your card off your reader; the cursor goes to it in your hand
        (a refused card: right/left then choose another)."""
        lying = self.on_reader(self.you)
        self.table.lift(self.you)
        self.note = "lifted"
        hand = self.your_hand()
        if lying and lying[-1] in hand:
            self.selected = hand.index(lying[-1])

    def clear(self):
        """Everybody takes their card off their reader."""
        t = self.table
        for reader in range(self.nseats):
            t.lift(reader, wait=False)
        for reader in range(self.nseats):
            t.lift(reader)

    def press(self, key, long=False):
        """A button; OK under the settlement clears the last trick first, and OK
        at "Gedrückt? OK" waits until you have put your discards aside."""
        missing = self.people.discards_missing() if self.mode() == "play" else 0
        if key == "ok" and not long and missing:
            self.note = "Put %d more card%s aside first (←/→, c): the table does not see " \
                "discards, you choose them" % (missing, "s" if missing > 1 else "")
            return
        if key == "ok" and not long and self.mode() == "result" and \
                self.table_view.overlay() not in ("undo", "scores"):
            self.clear()                # everybody picks up the last trick first
        self.table.press(key, long)

    def deal(self):
        if self.mode() != "dealing":
            self.note = "nothing to deal now" if self.view.strict() else \
                "open mode: the cards are dealt face down, nothing to scan"
            return
        self.people.deal_cards()
        self.note = "%s dealt" % seat_name(self.table, self.view.dealer())

    def switch(self, seat=None):
        self.you = (self.you + 1) % self.nseats if seat is None else seat % self.nseats
        self.people.people = {self.you}
        self.selected = 0

    # ----- the simulated people -------------------------------------------------------

    def auto_step(self):
        """One move by whoever the table waits for (you too); returns what happened
        or "" when there was nothing to do."""
        t = self.table
        tv = self.table_view
        view = self.view
        for seat in range(self.nseats):
            if seat != self.you and tv.refused(seat) and self.on_reader(seat):
                t.lift(seat)
                return "%s took the refused card back" % seat_name(t, seat)
        mode = tv.mode()
        if mode == "dealing":
            self.people.deal_cards()
            return "%s dealt" % seat_name(t, view.dealer())
        if mode != "play":
            return ""
        if tv.clearing():
            self.clear()
            return "the table is cleared"
        if not self.follow() or self.people.waits_for_person():
            return ""
        if tv.menu_size():
            who = sorted(self.people.menu_seats())
            self.people.choose()
            return "%s chose in the menu" % seat_name(t, who[0]) if who else \
                "the menu was answered"
        expects = view.expects()
        if expects == "discard":
            self.people.discard()
            return "%s laid away" % seat_name(t, view.declarer())
        if expects == "card":
            return self.play_for(view.turn())
        return ""

    def play_for(self, seat):
        """A simulated person puts a legal card (from what it holds) on its reader."""
        t = self.table
        view = self.view
        if seat in self.people.people:
            return ""
        if self.on_reader(seat):
            t.lift(seat)
        code = self.people.card_choice(seat)
        if code is None:
            return ""
        before = (view.trick_number(), view.trick_size())
        t.place(seat, code, wait=False)
        t.wait_until(lambda: (view.trick_number(), view.trick_size()) != before
                     or not view.in_deal() or self.table_view.refused(seat))
        return "%s played %s" % (seat_name(t, seat), card_text(code))

    # ----- what to do now ---------------------------------------------------------------

    def hint(self):
        tv = self.table_view
        view = self.view
        t = self.table
        you = seat_name(t, self.you)
        mode = tv.mode()
        if tv.overlay() == "undo":
            what = undo_target(t)
            return "Undo %s? o: yes, any other button: no" % what if what else \
                "Nothing to undo (o or any button closes the question)"
        if tv.overlay() == "scores":
            return "The score sheet; any button goes back"
        if tv.taken_back(self.you) and self.on_reader(self.you):
            return "Undo took back the card on your reader: lift it (l)"
        if tv.refused(self.you) and self.on_reader(self.you):
            return "The table did not take the card on your reader: lift it (l)"
        note = rufer_note(t, self.you)
        if note:
            return note + ". " + self._hint(tv, view, t, you, mode)
        return self._hint(tv, view, t, you, mode)

    def _hint(self, tv, view, t, you, mode):
        if mode == "dealing":
            dealer = view.dealer()
            if dealer == self.you:
                return "You deal: press d (the cards pass over the centre reader)"
            return "%s deals: press d or a (or wait)" % seat_name(t, dealer)
        if mode == "result":             # what decided it, the points as played
            return "%s. o starts the next deal" % view_words(view, tv.language(), contract_name)
        if mode == "over":
            return "The session is over (q quits)"
        if tv.clearing():
            return "Trick complete: L clears the readers (or a, or wait)"
        actor = view.turn()
        if tv.menu_size():
            seats = self.people.menu_seats()
            if self.you in seats:
                return "You (%s) choose: , and . move through the menu, o confirms" % you
            if actor == self.you and view.expects() == "card":
                return "Your lead, %s, once the others have answered the menu (a)" % you
            return "%s chooses in the menu (a, or wait)" % ", ".join(
                seat_name(t, x) for x in sorted(seats))
        expects = view.expects()
        if expects == "discard":
            if view.declarer() == self.you:
                if not view.strict():
                    return "You took up the talon: c puts %d cards aside, then o" \
                        % view.talon_size()
                return "You took up the talon: lay away %d cards, left/right and c " \
                       "(over the centre reader; %d laid)" % (view.talon_size(),
                                                             tv.discards_taken())
            return "%s lays away (a)" % seat_name(t, view.declarer())
        if expects == "card":
            if actor == self.you:
                return "Your turn, %s: left/right choose a card, enter puts it on " \
                       "your reader" % you
            return "%s's turn (a, or wait; s acts for the next seat)" % seat_name(t, actor)
        return ""


# ----------------------------------------------------------------- stepping through a record


def read_record(path):
    """(header, events) of a record file; CRC suffixes and blank lines dropped."""
    header = None
    events = []
    with open(path, encoding="utf-8") as f:
        for line in f:
            text = line.split("\t", 1)[0].strip()
            if not text:
                continue
            try:
                obj = json.loads(text)
            except ValueError:
                obj = None
            if header is None:
                if not isinstance(obj, dict):
                    raise ValueError("%s: the first line is not a record header" % path)
                header = obj
            else:
                events.append(obj if isinstance(obj, dict) else {"corrupt": text[:60]})
    if header is None:
        raise ValueError("%s: an empty record" % path)
    return header, events


class RecordSteps:
    """A record replayed event by event into a fresh virtual table, through the
    front door: a strict deal is dealt over the centre reader, calls are chosen
    with the menu buttons, plays are cards put on the seat readers, an undo is a
    long OK and OK.  Going back rebuilds the table and replays up to there."""

    def __init__(self, path, seed=1, you=0):
        self.path = path
        self.header, self.events = read_record(path)
        self.accepted = self._outcomes()
        self.seed = seed
        self.you = you
        self.pos = 0
        self.notes = []
        self.seating = None
        self.rebuild(0)

    def _outcomes(self):
        session = EngineSession(self.header)
        out = []
        for ev in self.events:
            if "corrupt" in ev:
                out.append(False)
                continue
            try:
                out.append(bool(session.apply(dict(ev)).get("ok")))
            except Exception:     # a line the engine cannot take: shown, not replayed
                out.append(False)
        return out

    def rebuild(self, upto):
        h = self.header
        you = self.seating.you if self.seating else self.you
        self.seating = Seating(h["variant"], h["players"], h.get("mode", "strict"),
                               seed=self.seed, options=h.get("options"),
                               seats=h.get("seats"), first_dealer=h.get("first_dealer", 0),
                               you=you)
        self.pos = 0
        self.notes = []
        while self.pos < upto:
            self.forward()

    def forward(self):
        if self.pos >= len(self.events):
            return False
        ev = self.events[self.pos]
        ok = self.accepted[self.pos]
        self.pos += 1
        try:
            note = self._replay(ev, ok)
        except Exception as exc:      # keep the view alive; say what went wrong
            note = "could not replay: %s" % exc
        self.seating.table.wait(SETTLE_MS)
        self.notes.append(note)
        return True

    def back(self):
        if self.pos > 0:
            self.rebuild(self.pos - 1)

    def status(self):
        if self.pos == 0:
            return "record %s: %d events; n steps forward" % (self.path, len(self.events))
        ev = self.events[self.pos - 1]
        return "event %d/%d: %s%s" % (self.pos, len(self.events),
                                      json.dumps(ev, ensure_ascii=False),
                                      " -- " + self.notes[-1] if self.notes[-1] else "")

    # ----- one event through the front door -------------------------------------------------

    def _tidy(self):
        """Take refused cards back; clear a complete trick before the next card."""
        s = self.seating
        t = s.table
        for reader in range(t.centre + 1):
            if s.table_view.refused(reader) and s.on_reader(reader):
                t.lift(reader)
        if s.table_view.clearing():
            s.clear()

    def _declare_pending(self, ev):
        """The table asks for a trump or contract that the record gave with an
        earlier bid of the same seat: choose it before ``ev``."""
        s = self.seating
        if not s.table_view.menu_size() or s.view.expects() != "declare" or \
                (ev.get("ev") == "bid" and ev.get("call") == "declare"):
            return
        seat = s.view.turn()
        for earlier in reversed(self.events[:self.pos - 1]):
            if earlier.get("ev") == "deal":
                return
            if earlier.get("ev") == "bid" and earlier.get("seat") == seat and \
                    ("trump" in earlier or "contract" in earlier):
                if self._go_to(lambda e, b=earlier: e is not None
                               and _covers(e, b, "declare")):
                    s.press("ok")
                return

    def _replay(self, ev, ok):
        s = self.seating
        t = s.table
        tv = s.table_view
        kind = ev.get("ev")
        if "corrupt" in ev:
            return "a corrupt line (bad_event): nothing happens at the table"
        self._tidy()
        self._declare_pending(ev)
        if kind == "play":
            seat = ev["seat"]
            if s.on_reader(seat):
                t.lift(seat)
            view = s.view
            before = (view.trick_number(), view.trick_size())
            t.place(seat, ev["card"], wait=False)
            t.wait_until(lambda: (view.trick_number(), view.trick_size()) != before
                         or not view.in_deal() or tv.refused(seat))
            return "refused by the table" if tv.refused(seat) else ""
        if not ok:
            return "refused by the engine; not replayed"
        if kind == "deal":
            if tv.mode() == "result":
                t.press("ok")
            return self._deal(ev)
        if kind == "hand":
            if not s.view.strict() or tv.mode() != "dealing":
                return "an exposed hand: nothing to scan at this table"
            for code in ev["cards"]:
                t.place(ev["seat"], code)
                t.lift(ev["seat"], wait=False)
                t.wait(40)
            return ""
        if kind == "undo":
            t.press("ok", long=True)
            t.press("ok")
            return ""
        if kind == "exchange" and s.view.strict() and ev.get("discard"):
            for code in ev["discard"]:
                t.place(t.centre, code)
                t.lift(t.centre, wait=False)
                t.wait(40)
            return ""
        if kind in ("bid", "announce", "rufer", "exchange"):
            return self._menu(ev)
        if kind == "redeal":
            return "the table has no misdeal input: not replayed (what follows may differ)"
        return "no button for %r at the table; not replayed" % kind

    def _deal(self, ev):
        s = self.seating
        t = s.table
        tv = s.table_view
        hands = ev.get("hands")
        if not s.view.strict() or hands is None:
            if hands:
                s.people.hands = {i: list(h or []) for i, h in enumerate(hands)}
            return ""
        deck = [CARD_CODES[c] for c in tv.deck_cards()]
        held = {c for h in hands if h for c in h}
        talon = list(ev.get("talon") or [c for c in deck if c not in held])
        queues = {i: list(h or []) for i, h in enumerate(hands)}
        queues[TALON] = talon
        s.people.hands = {i: list(h or []) for i, h in enumerate(hands)}
        s.people.hands[TALON] = list(talon)
        for _ in range(len(deck) + 1):
            if tv.mode() != "dealing":
                break
            seat = tv.next_receiver()
            if seat == -2 or not queues.get(seat):
                break
            t.place(t.centre, queues[seat].pop(0))
            t.lift(t.centre, wait=False)
            t.wait(40)
        t.wait()
        return "" if tv.mode() != "dealing" else "the deal did not complete"

    def _menu(self, ev):
        """Choose the menu entry that is this event, with prev/next and OK."""
        if ev.get("ev") == "rufer" and self._go_to(
                lambda e: e is not None and e.get("pick") == ev["card"]):
            self._ok()                 # first the called card, then the give
        if self._go_to(lambda e: e is not None and _same_event(e, ev)):
            self._ok()
            return ""
        # The table may ask in two steps what the record says in one (a contract,
        # then its trump), or may not know what was laid away (open mode).
        if not self._go_to(lambda e: e is not None and _covers(e, ev)):
            return "not offered by the table's menu; not replayed"
        self._ok()
        for _ in range(3):
            if not self._go_to(lambda e: e is not None and e.get("seat") == ev.get("seat")
                               and e.get("call") == "declare" and _covers(e, ev, "declare")):
                break
            self._ok()
        return "chosen as the table offers it"

    def _ok(self):
        """OK on the menu entry shown; a menu whose every entry commits asks
        "Sicher? OK": once more."""
        s = self.seating
        s.press("ok")
        if s.table_view.menu_asks_sure():
            s.press("ok")

    def _go_to(self, match):
        s = self.seating
        tv = s.table_view
        n = tv.menu_size()
        for k in range(n):
            if match(tv.menu_event(k)):
                steps = (k - tv.menu_pos()) % n
                key = "next"
                if steps > n // 2:
                    steps = n - steps
                    key = "prev"
                for _ in range(steps):
                    s.press(key)
                return True
        return False


def _covers(menu_ev, ev, call=None):
    """The menu's event says nothing the record's event contradicts (a None in the
    menu, e.g. open mode's unknown discards, stands for anything)."""
    for key, value in menu_ev.items():
        if key == "call" and call is not None:
            continue
        if value is not None and ev.get(key) != value:
            return False
    return True


def _same_event(menu_ev, ev):
    a = {k: v for k, v in menu_ev.items() if v is not None}
    b = {k: v for k, v in ev.items() if v is not None}
    return a == b


# ----------------------------------------------------------------- widgets


class OledView(Widget):
    """The SSD1306 model's visible pixels: two pixel rows per character cell with
    ▀ ▄ █ (128 columns x 32 rows), or, when ``compact``, its 8 text rows."""

    DEFAULT_CSS = """
    OledView { width: 130; height: 34; border: round #5f87af; background: #05080c; }
    OledView.compact { width: 18; height: 10; }
    """

    def __init__(self, oled, **kw):
        super().__init__(**kw)
        self.oled = oled
        self.lines = []
        self.key = None
        self.compact = False
        self.on_style = Style(color=OLED_ON, bgcolor=OLED_OFF)
        self.inv_style = Style(color=OLED_OFF, bgcolor=OLED_ON)

    def state_key(self):
        o = self.oled
        return (bytes(o.ram), o.display_on, o.inverted, o.entire_on, o.start_line,
                o.display_offset, o.com_scan_dec, self.compact)

    def pixel_lines(self):
        o = self.oled
        chars = " ▀▄█"
        if o.display_on and not o.entire_on and o.com_scan_dec and \
                o.start_line == 0 and o.display_offset == 0:
            # the usual mounting, no scrolling: what ``visible`` gives, read from GDDRAM
            flip = 1 if o.inverted else 0
            ram = o.ram
            w = o.width
            lit = [[((ram[(y >> 3) * w + x] >> (y & 7)) & 1) ^ flip for x in range(w)]
                   for y in range(o.height)]
        else:
            lit = [[o.visible(x, y) for x in range(o.width)] for y in range(o.height)]
        return ["".join(chars[top[x] | (bottom[x] << 1)] for x in range(o.width))
                for top, bottom in zip(lit[0::2], lit[1::2], strict=True)]

    def sync(self):
        key = self.state_key()
        if key == self.key:
            return
        self.key = key
        if self.compact:
            rows = self.oled.text_rows()
            inv = inverted_rows(self.oled)
            self.lines = [((r + " " * 16)[:16], i) for r, i in zip(rows, inv, strict=True)]
        else:
            self.lines = [(line, False) for line in self.pixel_lines()]
        self.refresh()

    def set_compact(self, compact):
        if compact != self.compact:
            self.compact = compact
            self.set_class(compact, "compact")
            self.key = None
            self.sync()

    def text(self):
        """What the widget shows, as plain lines (for tests)."""
        return [line for line, _inv in self.lines]

    def render_line(self, y):
        if y >= len(self.lines):
            return Strip.blank(self.size.width, self.on_style)
        line, inv = self.lines[y]
        return Strip([Segment(line, self.inv_style if inv else self.on_style)])


class Cell(Static):
    """One place in the 3x3 grid round the table: a seat, the centre reader, or
    nothing.  A click on a seat makes you that seat."""

    DEFAULT_CSS = """
    Cell { height: auto; min-height: 5; border: round #444444; padding: 0 0 0 1; }
    Cell.empty { border: none; }
    Cell.you { border: round #87d787; }
    Cell.turn { border: double #5f87ff; }
    Cell.centre { border: round #af875f; }
    """

    def __init__(self, **kw):
        super().__init__("", **kw)
        self.seat = -1
        self.shown = None

    def show(self, markup, seat, classes):
        if (markup, seat, classes) == self.shown:
            return
        self.shown = (markup, seat, classes)
        self.seat = seat
        for name in ("empty", "you", "turn", "centre"):
            self.set_class(name in classes, name)
        self.update(markup)

    def on_click(self):
        if self.seat >= 0:
            self.app.action_be(self.seat)


class Text(Static):
    """A Static that re-renders only when its text changed."""

    def __init__(self, *a, **kw):
        super().__init__(*a, **kw)
        self.shown = None

    def show(self, markup):
        if markup != self.shown:
            self.shown = markup
            self.update(markup)


class HandView(Text):
    """Your hand on one line: a click on a card chooses it (by its column, so the
    cards keep their colours; a markup link would paint them all alike)."""

    def __init__(self, *a, **kw):
        super().__init__(*a, **kw)
        self.spans = []              # (line, first column, end column, card index)

    def on_click(self, event):
        col = event.x - (self.content_region.x - self.region.x)
        row = event.y - (self.content_region.y - self.region.y)
        for line, start, end, index in self.spans:
            if line == row and start <= col < end:
                self.app.action_pick(index)
                return


# ----------------------------------------------------------------- the app


class SimApp(App):
    """The virtual table in the terminal."""

    TITLE = "Tapp table -- the virtual table"
    AUTO_FOCUS = None            # the keys are the table's, not a focused button's
    ENABLE_COMMAND_PALETTE = False
    CSS = """
    Screen { background: #101418; }
    #main { height: 1fr; }
    #left { width: 1fr; min-width: 40; overflow-y: auto; }
    #right { width: auto; }
    #table { grid-size: 3 3; grid-columns: 1fr 1fr 1fr; grid-rows: auto auto auto;
             height: auto; grid-gutter: 0 1; }
    #hand { border: round #87d787; padding: 0 1; height: auto; min-height: 3; }
    #controls { height: 3; }
    #controls Button { min-width: 8; margin: 0 1 0 0; }
    #buzzer { width: 14; height: 3; content-align: center middle; border: round #444444; }
    #buzzer.on { background: #d7af00; color: #000000; border: round #ffd700; }
    #bar { dock: bottom; height: auto; }
    #keys { height: auto; padding: 0 1; background: #1c2a38; color: #c8d0d8; }
    #hint { height: auto; padding: 0 1; color: #ffd787; }
    #status { height: 1; padding: 0 1; color: #8a8a8a; text-wrap: nowrap;
              text-overflow: ellipsis; }
    Screen.small Header, Screen.small #controls { display: none; }
    Screen.small Cell { min-height: 3; }
    Screen.narrow #journal { display: none; }
    Screen.narrow #right.compact { width: 20; }
    #journal { height: 1fr; min-height: 3; border: round #444444; padding: 0 1;
               color: #a8a8a8; text-wrap: nowrap; text-overflow: ellipsis; }
    #right.compact { width: 56; }
    """
    BINDINGS = [
        Binding("left", "choose(-1)", "card", key_display="←→"),
        Binding("right", "choose(1)", "card", show=False),
        Binding("enter,space", "put", "put on reader", key_display="⏎"),
        Binding("c", "put_centre", "centre", show=False),
        Binding("l,backspace", "lift", "lift"),
        Binding("L", "clear", "clear all", show=False),
        Binding("comma", "button('prev')", "prev", key_display=","),
        Binding("full_stop", "button('next')", "next", key_display="."),
        Binding("o,slash", "button('ok')", "OK", key_display="o"),
        Binding("O", "button('ok', True)", "OK held", key_display="O"),
        Binding("less_than_sign", "button('prev', True)", "PREV held", key_display="<"),
        Binding("greater_than_sign", "button('next', True)", "NEXT held", key_display=">"),
        Binding("P", "power_cut", "power cut", show=False),
        Binding("d", "deal", "deal"),
        Binding("a", "auto", "others move"),
        Binding("A", "toggle_auto", "auto on/off", show=False),
        Binding("s", "be", "next seat"),
        Binding("z", "toggle_oled", "pixels/text", show=False),
        Binding("n", "record(1)", "next event", show=False),
        Binding("p", "record(-1)", "prev event", show=False),
        Binding("q", "quit", "quit"),
    ]

    def __init__(self, variant="tapp_modern", players=3, mode="strict", seed=1, lang="de",
                 record=None, realtime=True, auto=None, oled=None, seats=None,
                 table_class=VirtualTable, root=None):
        super().__init__()
        self.record = RecordSteps(record, seed=seed) if record else None
        if self.record:
            self.seating = self.record.seating
        else:
            self.seating = Seating(variant, players, mode, seed=seed, lang=lang, seats=seats,
                                   table_class=table_class, root=root)
        self.quit_asked = False            # q during a deal: asked once, q again quits
        self.realtime = realtime
        self.auto = (realtime and not record) if auto is None else auto
        self.oled_mode = oled              # None: by the terminal's size
        self.last_action = time.monotonic()
        self.buzz_until = 0.0
        self.tone_mark = 0
        self.buzz_freq = 0
        self.message = ""

    # ----- layout ------------------------------------------------------------------

    def compose(self) -> ComposeResult:
        yield Header(show_clock=False)
        with Horizontal(id="main"):
            with Vertical(id="left"):
                with Grid(id="table"):
                    for row in range(3):
                        for col in range(3):
                            yield Cell(id="cell-%d-%d" % (row, col))
                yield HandView("", id="hand")
                with Horizontal(id="controls"):
                    for label, bid in (("◀ PREV", "prev"), ("NEXT ▶", "next"), ("OK", "ok"),
                                       ("hold OK", "ok-long")):
                        button = Button(label, id=bid,
                                        variant="primary" if bid == "ok" else "default")
                        button.can_focus = False
                        yield button
                    yield Text("♪", id="buzzer")
            with Vertical(id="right"):
                yield OledView(self.seating.table.board.oled, id="oled")
                yield Text("", id="journal")
        with Vertical(id="bar"):     # always on screen: what to do now, the keys
            yield Text("", id="hint")
            yield Text("", id="status")
            yield Text(KEY_HELP, id="keys")

    def on_mount(self):
        self._title()
        self._fit_oled()
        self.sync()
        if self.realtime:
            self.set_interval(TICK_MS / 1000, self.tick)

    def on_resize(self, _event):
        self._fit_oled()

    def _fit_oled(self):
        # a small terminal (80x24): no title bar and on-screen buttons (the keys do
        # it), the journal hidden; the hint line and the key help stay in view
        self.screen.set_class(self.size.height < 32, "small")
        self.screen.set_class(self.size.width < 110, "narrow")
        compact = self.oled_mode == "text" if self.oled_mode else (
            self.size.width < 176 or self.size.height < 40)
        self.query_one(OledView).set_compact(compact)
        self.query_one("#right").set_class(compact, "compact")

    def _title(self):
        t = self.seating.table
        view = t.view
        self.sub_title = "%s (%s) · %d players · %s · you: %s%s" % (
            variant_name(view.variant()), view.variant(), view.players(),
            "strict" if view.strict() else "open", seat_name(t, self.seating.you),
            " · record" if self.record else "")

    # ----- time ---------------------------------------------------------------------

    def tick(self):
        self.seating.table.wait(TICK_MS)
        if self.auto and not self.record:
            self._auto_tick()
        self.sync()

    def _auto_tick(self):
        s = self.seating
        if s.your_move():
            return
        idle = time.monotonic() - self.last_action
        if idle < (CLEAR_DELAY_S if s.table_view.clearing() else AUTO_DELAY_S):
            return
        if s.mode() == "dealing" and s.view.dealer() == s.you:
            return
        note = s.auto_step()
        if note:
            self.message = note
            self.last_action = time.monotonic()

    # ----- showing ------------------------------------------------------------------

    def sync(self):
        """Bring every widget up to date with the virtual table."""
        s = self.seating
        t = s.table
        view = s.view
        n = s.nseats
        places = PLACES.get(n, PLACES[6])
        at = {places[k]: (s.you + k) % n for k in range(min(n, len(places)))}
        leds = t.leds()
        rgb = led_rgb(t)
        readers = reader_codes(t)
        actor = s.actor()
        active = view.active_seats() if view.in_deal() else list(range(n))
        for row in range(3):
            for col in range(3):
                cell = self.query_one("#cell-%d-%d" % (row, col), Cell)
                if (row, col) == CENTRE_CELL:
                    cell.show(self._centre_markup(readers[t.centre]), -1, ("centre",))
                elif (row, col) in at:
                    seat = at[(row, col)]
                    classes = []
                    if seat == s.you:
                        classes.append("you")
                    elif seat == actor:
                        classes.append("turn")
                    cell.show(self._seat_markup(seat, leds[seat], rgb[seat], readers[seat],
                                                seat == actor, seat in active), seat,
                              tuple(classes))
                else:
                    cell.show("", -1, ("empty",))
        self.query_one("#hand", Text).show(self._hand_markup())
        self._buzzer()
        hint = s.hint()
        if self.record:
            hint = self.record.status()
        self.query_one("#hint", Text).show(escape(hint))
        self.query_one("#status", Text).show(escape(self.message or s.note))
        self.query_one(OledView).sync()
        self.query_one("#journal", Text).show(self._journal_markup())

    def _seat_markup(self, seat, led, rgb, lying, on_turn, active):
        s = self.seating
        t = s.table
        colour = "#%02x%02x%02x" % rgb if any(rgb) else "#3a3a3a"
        dot = "[%s]●[/]" % colour
        name = escape(seat_name(t, seat))
        mark = " ▶" if on_turn else ""
        if s.table_view.taken_back(seat):
            led = "taken back"               # undone: lift it (the LED is red)
        card = " ".join(card_markup(c) for c in lying) if lying else "[#555555]·[/]"
        lines = ["%s [b]%s[/b]%s" % (dot, name, mark),
                 "\\[%s] [#6a6a6a]%s[/]" % (card, led)]
        if not active:
            lines.append("[#6a6a6a]sits out[/]")
        elif seat != s.you and s.laid_open(seat):      # Bettel ouvert: face up
            lines.append(" ".join(card_markup(c) for c in s.hand(seat)))
        elif seat != s.you:
            count = len(s.hand(seat))
            lines.append("[#5f5f87]%s[/]" % ("▒▒" * count) if count else "")
        else:
            count = len(s.your_hand())
            lines.append("[#87d787]you · %d cards ↓[/]" % count if count else
                         "[#87d787]you[/]")
        return "\n".join(lines)

    def _centre_markup(self, lying):
        s = self.seating
        tv = s.table_view
        card = " ".join(card_markup(c) for c in lying) if lying else "[#555555]·[/]"
        lines = ["[b]centre[/b]", "\\[%s] [#6a6a6a]reader[/]" % card]
        if tv.mode() == "dealing":
            lines.append("[#8a8a8a]dealt %d/%d[/]" % (tv.deal_scanned(), tv.deal_due()))
        else:
            trick = s.view.trick()
            lines.append("[#8a8a8a]trick %d[/]" % s.view.trick_number()
                         if trick or s.view.in_deal() else "")
        return "\n".join(lines)

    def _hand_markup(self):
        """Your hand, hearts and diamonds red, the chosen card reversed; where each
        card stands on the line (a click picks it: HandView)."""
        s = self.seating
        hand = s.your_hand()
        name = seat_name(s.table, s.you)
        title = "[b]Your hand[/b] (%s)  " % escape(name)
        view = self.query_one("#hand", HandView)
        room = view.content_region.width or 10 ** 6
        at = len("Your hand (%s)  " % name)
        line = 0
        spans = []
        view.spans = spans
        if not hand:
            return title + "[#6a6a6a]no cards yet[/]"
        out = title
        for i, code in enumerate(hand):
            text = card_markup(code)
            if i == s.selected:
                text = "[reverse]%s[/reverse]" % text
            width = len(card_text(code))
            if at + width > room:           # the next line (wrapped here, not by Rich)
                out += "\n"
                line += 1
                at = 0
            elif i:
                out += " "
            out += text
            spans.append((line, at, at + width, i))
            at += width + 1
        return out

    def _buzzer(self):
        t = self.seating.table
        pwm = t.board.pwm
        now = t.board.ticks_ms()
        sounded = pwm.sounding
        freq = 0
        for start, dur, f in t.tones():
            if f and start + dur >= self.tone_mark:
                sounded = True
                freq = f
        self.tone_mark = now
        if sounded:
            self.buzz_until = time.monotonic() + 0.35
            self.buzz_freq = freq or pwm.freq()
        widget = self.query_one("#buzzer", Text)
        on = time.monotonic() < self.buzz_until
        widget.set_class(on, "on")
        widget.show("♪ %d Hz" % self.buzz_freq if on else "[#555555]♪ buzzer[/]")

    def _journal_markup(self):
        lines = self.seating.table.journal_lines()[-12:]
        return "\n".join(escape(line.split("\t", 1)[0]) for line in lines) or "(journal)"

    # ----- actions ------------------------------------------------------------------------

    def _acted(self, message=""):
        self.quit_asked = False            # any other key: play on
        self.message = message
        self.last_action = time.monotonic()
        self.seating.table.wait(SETTLE_MS)
        self.sync()

    def action_choose(self, delta):
        self.seating.choose(delta)
        self._acted()

    def action_pick(self, index):
        self.seating.pick(index)
        self._acted()

    def action_put(self):
        self.seating.put()
        self._acted(self.seating.note)

    def action_put_centre(self):
        self.seating.put(centre=True)
        self._acted(self.seating.note)

    def action_lift(self):
        self.seating.lift()
        self._acted("you lifted your card")

    def action_clear(self):
        self.seating.clear()
        self._acted("every reader cleared")

    def action_button(self, key, long=False):
        s = self.seating
        s.note = ""
        s.press(key, long)
        self._acted(s.note or "%s %s" % ("held" if long else "pressed", key.upper()))

    def action_deal(self):
        self.seating.deal()
        self._acted(self.seating.note)

    def action_auto(self):
        note = self.seating.auto_step()
        self._acted(note or "nothing for the simulated people to do")

    def action_toggle_auto(self):
        self.auto = not self.auto
        self._acted("the simulated people move %s" % ("by themselves" if self.auto
                                                      else "when you press a"))

    def action_be(self, seat=None):
        self.seating.switch(seat)
        self._title()
        self._acted("you act for %s" % seat_name(self.seating.table, self.seating.you))

    def action_power_cut(self):
        self.seating.power_cut()
        self._new_table()
        self._acted(self.seating.note)

    def _new_table(self):
        """After a power cut or a record step: the view shows the new table's OLED."""
        oled = self.query_one(OledView)
        oled.oled = self.seating.table.board.oled
        oled.key = None
        self._title()

    async def action_quit(self):
        """q quits; during a deal under way it asks first (q again quits)."""
        s = self.seating
        if s.deal_under_way() and not self.quit_asked and not self.record:
            kept = s.flash.root
            self._acted("A deal is under way: q again quits%s; any other key plays on" % (
                " (the table keeps it in %s and takes it up next time)" % kept if kept
                else " and the deal is lost"))
            self.quit_asked = True
            return
        self.exit()

    def action_toggle_oled(self):
        oled = self.query_one(OledView)
        self.oled_mode = "pixels" if oled.compact else "text"
        self._fit_oled()
        self._acted()

    def action_record(self, step):
        if not self.record:
            self._acted("n/p step through a record: tapptable sim --record FILE")
            return
        if step > 0:
            self.record.forward()
        else:
            self.record.back()
        self.seating = self.record.seating
        self._new_table()
        self._acted()

    def on_button_pressed(self, event):
        bid = event.button.id
        if bid == "ok-long":
            self.action_button("ok", True)
        elif bid in ("prev", "next", "ok"):
            self.action_button(bid)


def run_tui(args):
    """``tapptable sim`` on a terminal."""
    root = None if args.record else args.table_dir or state_dir(
        args.variant, args.players, args.mode, args.lang)
    try:
        from host_sim.runtimes import table_class
        app = SimApp(args.variant, args.players, args.mode, seed=args.seed, lang=args.lang,
                     record=args.record, root=root,
                     table_class=table_class(getattr(args, "runtime", "cpython")))
    except (OSError, ValueError) as exc:
        print("tapptable sim: %s" % exc)
        return 2
    app.run()
    return 0
