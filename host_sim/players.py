"""Simulated people at the virtual table: the one player model of every front-end.

The terminal table, the browser table, the printed deal, the scenario files and
the tests all seat the same ``AutoPlayers``.  They know their own cards, deal
over the centre reader (strict mode), answer the menus with the buttons and put
legal cards on their readers, as people would.

What they know: a strict-mode *shadow* session follows the device's journal with
the true hands and discards filled in (in open mode the device never sees the
hands: the players' own shuffle deals them), so the engine's view answers which
cards are legal (``legal_cards``, the same duties the table enforces) and what
each seat holds after the talon, the discards and a Rufer swap.  Two things the
shadow cannot follow: a revoke a person makes in open mode (the strict shadow
refuses it; the device accepts it and proves it later), and a deal after that.
From the revoke on, the players keep the hands themselves from what was actually
played (``held``), and ask an open-mode *follower* (a session fed the journal as
the device wrote it) which of their cards the trick allows
(``hand_legal_cards``: every duty of docs/rules 1.5, over-trumping too); the deal
after it gets a fresh shadow.

People: ``people`` holds the seats a person plays.  The simulated players never
answer a question that belongs to such a seat (a bid on his turn, his discards,
his Rufer call, an announcement menu that offers him a call) and never play or
lay a card for him; ``question_seats`` says whose question a menu is.

Two ways to use them: the *acting* methods (``deal_cards``, ``choose``,
``discard``, ``play_card``, ``play_deal``) press the buttons and place the cards
on a table that runs synchronously (``host_sim.table.VirtualTable``); the
*deciding* methods (``menu_choice``, ``discard_choice``, ``card_choice``) only
say what a player would do, for a front-end that acts on its own clock (the
browser hub).
"""
import json
import random

from table.menus import needs_hold
from tapp.cards import CARD_BIT, CARD_CODES, CARD_SUIT, CODE_INDEX, mask_cards
from tapp.dealing import TALON
from tapp.session import Session


def question_seats(menu, declarer, turn):
    """The seats whose question ``menu`` (the device's ``[(label, event)]``) is:
    the seats its events name (a Rufer card to call is the declarer's), else the
    seat on turn.  "play on" (``None``) belongs to nobody."""
    seats = set()
    for _label, ev in menu:
        if ev is None:
            continue
        if "pick" in ev:
            seats.add(declarer)
        elif "seat" in ev:
            seats.add(ev["seat"])
    if not seats and turn >= 0:
        seats.add(turn)
    return seats


def menu_entries(table_view):
    """The menu on the table's display, ``[(label, event or None)]``, asked of the
    table's read-only view (firmware/table/table_view.py)."""
    return [(table_view.menu_label(k), table_view.menu_event(k))
            for k in range(table_view.menu_size())]


def rufer_entry_ok(ev, hand, talon):
    """May the declarer holding ``hand`` (talon ``talon``) choose this entry of
    the Rufer menu (tapp_modern, docs/rules D12)?  He calls a card he lacks; if it
    lies in the talon he gives nothing, else he gives a card of his hand.  The
    device's menu cannot tell in open mode (it does not know the hand)."""
    if ev is None:
        return True
    if "pick" in ev:
        return ev["pick"] not in hand
    if ev.get("ev") == "rufer":
        if ev["card"] in talon:
            return ev["give"] is None
        return ev["give"] in hand
    return True


def hand_legal_cards(view, hand):
    """The cards of ``hand`` (codes) the seat to play may play to the trick on
    the table now, by the engine's duties (``View.hand_legal_masks``: it needs
    no hand of its own, so an open-mode session answers too)."""
    masks = [0, 0, 0, 0]
    for code in hand:
        c = CODE_INDEX[code]
        masks[CARD_SUIT[c]] |= CARD_BIT[c]
    out = [0, 0, 0, 0]
    view.hand_legal_masks(masks, out)
    return [CARD_CODES[c] for c in mask_cards(out)]


class AutoPlayers:
    """Simulated people at the virtual table (``seed`` makes them repeatable).

    Once, on purpose (``illegal_once``), a player tries a card the table must
    refuse (strict: against the duties; open: out of turn)."""

    def __init__(self, table, seed=1, illegal_once=True, people=(), dealt=None):
        self.table = table
        self.rng = random.Random(seed)
        self.illegal_once = illegal_once
        self.people = set(people)  # seats a person plays: never answered for
        self.refused = []          # (seat, card, screen rows) of refused attempts
        self.hands = {}            # seat (TALON: the talon) -> card codes as dealt
        self.discards = []
        self.to_deal = []          # the rest of the deck being dealt over the centre
        self.dealing = []          # ... the whole of it, in the order dealt
        self.dealt_at = {}         # journal line of an open-mode deal -> its hands
        for line, hands in (dealt or {}).items():   # a resumed session's (see dealt_hands)
            self.dealt_at[int(line)] = {int(s): list(h) for s, h in hands.items()}
        self._follow_from_start()

    def _follow_from_start(self):
        self.last_seen = self.table.journal_lines(0, 1)[0]
        self.header = json.loads(self.last_seen.split("\t")[0])
        self.shadow = self._new_shadow(self.header.get("first_dealer", 0))
        # open mode: the journal as the device wrote it (a revoke accepted too)
        self.follower = Session(self.header) if self.header.get("mode") == "open" else None
        self.synced = 1            # journal lines the players have seen (the header)
        self.behind = False        # a revoke left the shadow behind in this deal
        self.held = {}             # seat -> cards held (kept by hand once behind)
        self.behind_plays = []     # (seat, card) played since, for an undo

    def rejoin(self, table):
        """After a power cut: the same people at the powered-up ``table``.  They
        keep what they know -- the hands as dealt (open mode too), the cards still
        to deal, the discards, their random stream -- so the same physical deal
        goes on.  If the journal lost what they had seen (a cut inside a write),
        they follow it again from its start, with the hands they dealt."""
        self.table = table
        if table.journal_lines(self.synced - 1, self.synced) != [self.last_seen]:
            self._follow_from_start()
        self.sync()

    def dealt_hands(self):
        """The open-mode hands dealt so far, as JSON can keep them: give them back
        as ``dealt`` to players who follow the same journal in a new process (the
        device never saw them)."""
        return {str(line): {str(s): list(h) for s, h in hands.items()}
                for line, hands in self.dealt_at.items()}

    def _new_shadow(self, dealer):
        header = dict(self.header, mode="strict", first_dealer=dealer)
        return Session(header)

    # ----- knowing the cards ---------------------------------------------------------

    def shuffle(self, dealer):
        view = self.shadow.view
        cards = [CARD_CODES[c] for c in view.deck_cards()]
        self.rng.shuffle(cards)
        seats = view.deal_order(dealer)
        self.hands = {s: [] for s in range(view.players())}
        self.hands[TALON] = []
        for k, code in enumerate(cards):
            self.hands[seats[k]].append(code)
        return cards

    def sync(self):
        """Follow what the device has journalled since the last look (a new
        session -- the line last seen is gone -- from its start, the old hands
        forgotten; after a power cut ``rejoin`` has looked already)."""
        if self.table.journal_lines(self.synced - 1, self.synced) != [self.last_seen]:
            self.dealt_at = {}
            self._follow_from_start()
        for line in self.table.journal_lines(self.synced):
            self.synced += 1
            self.last_seen = line
            self._follow(json.loads(line.split("\t")[0]))

    def _follow(self, ev):
        kind = ev.get("ev")
        if self.follower is not None:
            self.follower.apply(ev)
        if kind == "deal":
            if self.behind or self.shadow.view.in_deal():
                self.shadow = self._new_shadow(ev["dealer"])   # a fresh start
                self.behind = False
            if ev["hands"] is not None:
                self.hands = {s: list(h or []) for s, h in enumerate(ev["hands"])}
                self.hands[TALON] = list(ev.get("talon") or [])
            elif self.header.get("mode") == "open":   # the cards lie face down
                if self.synced in self.dealt_at:  # dealt before a power cut
                    self.hands = self.dealt_at[self.synced]
                else:
                    self.shuffle(ev["dealer"])
                    self.dealt_at[self.synced] = self.hands
                active = self.shadow.view.active_order(ev["dealer"])
                ev = {"ev": "deal", "dealer": ev["dealer"], "talon": None,
                      "hands": [self.hands[s] if s in active else []
                                for s in range(self.shadow.view.players())]}
            # strict: the hands follow as the table scanned them (``hand`` events)
            self.discards = []
        elif kind == "exchange" and not ev.get("discard"):
            ev = dict(ev, discard=self._complete_discards())
        if self.behind:
            if kind == "play" and ev["card"] in self.held.get(ev["seat"], ()):
                self.held[ev["seat"]].remove(ev["card"])
                self.behind_plays.append((ev["seat"], ev["card"]))
            elif kind == "undo" and self.behind_plays:
                seat, card = self.behind_plays.pop()
                self.held[seat].append(card)
            return
        out = self.shadow.apply(ev)
        if out.get("ok"):
            return
        if kind != "play" or self.table.view.mode() == "strict":
            raise RuntimeError("shadow refused %r: %r" % (ev, out))
        # open mode: a revoke the device accepted; from here the hands are ours
        view = self.shadow.view
        self.held = {s: list(view.hand(s) or []) for s in view.active_seats()}
        self.behind = True
        self.behind_plays = [(ev["seat"], ev["card"])]
        held = self.held.get(ev["seat"], [])
        if ev["card"] in held:          # (a card they did not deal him: nothing to take)
            held.remove(ev["card"])

    def _complete_discards(self):
        """Open mode: the discards put aside; if the declarer confirmed with too
        few (or too many), the rest is chosen for him from his hand and the talon."""
        need = self.shadow.view.talon_size()
        pool = [c for c in self.hand(self.shadow.view.declarer()) + self.talon()
                if c not in self.discards]
        self.discards = self.discards[:need]
        self.discards += self.rng.sample(pool, need - len(self.discards))
        return self.discards

    def put_aside(self, code):
        """Open mode: the declarer puts ``code`` aside as a discard (the table
        does not see it; the players know it)."""
        self.discards.append(code)

    def discards_missing(self):
        """Open mode, a person lays away: how many discards he has still to put
        aside before he may confirm ("Gedrückt? OK").  The table cannot know;
        the virtual table asks him instead of choosing for him."""
        view = self.table.view
        if view.mode() != "open" or view.expects() != "discard" or \
                view.declarer() not in self.people:
            return 0
        return max(0, view.talon_size() - len(self.discards))

    def hand(self, seat):
        """The cards ``seat`` holds now (as the journal says), [] before the deal."""
        if self.behind:
            return list(self.held.get(seat, ()))
        return list(self.shadow.view.hand(seat) or [])

    def talon(self):
        return [] if self.behind else list(self.shadow.view.talon() or [])

    def legal_cards(self, seat):
        """The cards ``seat`` may play now (the engine's answer while the shadow
        follows the deal; after a revoke the follower's, for the hand kept)."""
        if not self.behind:
            view = self.shadow.view
            return view.legal_cards() if view.turn() == seat else []
        follower = self.follower
        if follower is None:            # (strict mode: the shadow never falls behind)
            return []
        view = follower.view
        return hand_legal_cards(view, self.held.get(seat, ())) if view.turn() == seat else []

    # ----- deciding -------------------------------------------------------------------

    def menu(self):
        """The menu on the table's display (``menu_entries``)."""
        return menu_entries(self.table.app.view)

    def menu_seats(self):
        """The seats whose question the menu on screen is (see ``question_seats``)."""
        view = self.table.view
        return question_seats(self.menu(), view.declarer(), view.turn())

    def may_answer(self):
        """Is there a menu on screen the simulated players may answer?"""
        return bool(self.table.app.view.menu_size()) and not self.menu_seats() & self.people

    def waits_for_person(self):
        """Is the table waiting for a person (his menu, his card, his discards)?"""
        t = self.table
        view = t.view
        if t.app.view.menu_size():
            return bool(self.menu_seats() & self.people)
        expects = view.expects()
        if expects == "discard":
            return view.declarer() in self.people
        return expects == "card" and view.turn() in self.people

    def _menu_ok(self, entry):
        """Would the shadow accept this menu entry (it knows the hidden cards)?"""
        decl = self.shadow.view.declarer()
        return rufer_entry_ok(entry[1], self.hand(decl), self.talon())

    def menu_choice(self):
        """The index of the entry a simulated player chooses (random, allowed)."""
        menu = self.menu()
        ok = [k for k in range(len(menu)) if self._menu_ok(menu[k])]
        return self.rng.choice(ok)

    def discard_choice(self):
        """The declarer's discards: ``talon_size`` cards of his hand and the talon."""
        view = self.shadow.view
        decl = view.declarer()
        pool = self.hand(decl) + self.talon()
        return self.rng.sample(pool, self.shadow.view.talon_size())

    def card_choice(self, seat):
        """A legal card of ``seat``'s hand, at random."""
        legal = self.legal_cards(seat)
        return self.rng.choice(legal) if legal else None

    # ----- acting (a table that runs synchronously) -----------------------------------

    def gather(self):
        """The dealer gathers the cards dealt so far: the next ``deal_cards``
        shuffles and deals the whole deck from the start."""
        self.to_deal = []

    def deal_cards(self, count=None):
        """Strict mode: the dealer deals the shuffled deck over the centre reader
        (only the next ``count`` cards, if given; the next call goes on).  If the
        table no longer counts a card he dealt (a power cut: "Von vorn geben"),
        he gathers them first and deals the whole deck again."""
        t = self.table
        tv = t.app.view
        if self.to_deal and not all(tv.deal_seen(CODE_INDEX[c]) for c in self.dealing
                                    if c not in self.to_deal):
            self.gather()
        if not self.to_deal:
            self.dealing = self.shuffle(t.view.dealer())
            self.to_deal = list(self.dealing)
        while self.to_deal and (count is None or count > 0):
            code = self.to_deal.pop(0)
            t.place(t.centre, code)
            t.lift(t.centre)
            if count is not None:
                count -= 1

    def press_entry(self, k):
        """Move the menu to entry ``k`` (next presses), then OK."""
        t = self.table
        menu = self.menu()
        for _ in range((k - t.app.view.menu_pos()) % len(menu)):
            t.press("next")
        t.press("ok", long=needs_hold(menu[k][1]))   # a stake: OK held
        if t.app.view.menu_asks_sure():              # every entry commits: OK twice
            t.press("ok")

    def choose(self):
        """Answer the menu on screen: a random allowed entry (prev/next, then OK)."""
        k = self.menu_choice()
        ev = self.menu()[k][1]
        if ev is not None and ev.get("ev") == "exchange":
            self.pick_discards()
        self.press_entry(k)

    def pick_discards(self):
        self.discards = self.discard_choice()

    def discard(self):
        """Strict mode: the declarer lays his discards on the centre reader."""
        t = self.table
        self.pick_discards()
        for code in self.discards:
            t.place(t.centre, code)
            t.lift(t.centre)

    def _try_refused(self, seat, legal):
        """The one attempt the table must refuse; the card is lifted again."""
        t = self.table
        view = self.shadow.view
        if t.view.mode() == "strict":
            if not view.trick_size():
                return
            wrong = [c for c in self.hand(seat) if c not in legal]
            if not wrong:
                return
            where, card = seat, wrong[0]
        else:
            others = [s for s in t.view.active_seats() if s != seat and s not in self.people]
            if not others:
                return
            where, card = others[0], self.hand(others[0])[0]
        self.illegal_once = False
        t.place(where, card, wait=False)
        t.wait_until(lambda: t.app.view.refused(where))
        t.wait(60)                             # the display shows it
        self.refused.append((where, card, t.screen()))
        t.lift(where)

    def play_card(self):
        t = self.table
        view = t.view
        seat = view.turn()
        legal = self.legal_cards(seat)
        if self.illegal_once:
            self._try_refused(seat, legal)
        if t.app.view.clearing():     # a finished trick still lying (a power cut came
            self._clear_trick()       # before it was cleared): the table waits for that
        elif t.app.view.placed(seat) or t.app.view.refused(seat) or t.app.view.collision(seat):
            t.lift(seat)          # cards left lying there (one the table refused, two laid
                                  # on each other): taken back
        before = (view.trick_number(), view.trick_size())
        card = self.rng.choice(legal)
        t.place(seat, card, wait=False)
        if not t.wait_until(lambda: (view.trick_number(), view.trick_size()) != before
                            or not view.in_deal()):
            raise RuntimeError("the table did not take seat %d's %s; it shows %r"
                               % (seat, card, t.screen()))
        if view.trick_size() == 0:           # trick complete: clear the readers
            t.wait(300)
            self._clear_trick()

    def _clear_trick(self):
        """Every seat takes its card of the finished trick off its reader."""
        t = self.table
        for s in t.view.active_seats():
            t.lift(s, wait=False)
        for s in t.view.active_seats():
            t.lift(s)

    def play_deal(self, on_step=None):
        """One whole deal at the table; returns the result the device settled."""
        t = self.table
        if t.app.view.mode() == "dealing":
            self.deal_cards()
        for _ in range(2000):
            self.sync()
            if on_step:
                on_step(t)
            tv = t.app.view                    # asked anew: ``on_step`` may cut the power
            if tv.mode() != "play":
                return t.view.last_result()
            expects = t.view.expects()
            if tv.menu_size():
                self.choose()
            elif expects == "discard":
                self.discard()
            elif expects == "card":
                self.play_card()
            else:
                t.wait(100)
        raise RuntimeError("the deal did not end: expects %s" % t.view.expects())

    def next_deal(self):
        """After a result: OK starts the next deal."""
        self.table.press("ok")
