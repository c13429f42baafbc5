"""Scenario files: scripted sessions at the virtual table with expectations.

A scenario is a text file, one command per line (``#`` starts a comment).
It drives the unchanged firmware on the chip models through the virtual
table's front door and checks what the device shows.  The format is documented
in host_sim/README.md ("Scenario files"); in short:

    table variant=tapp_modern players=3 mode=strict seed=4 lang=de
    deal                        # the simulated dealer deals a shuffled deck
    call passe                  # choose the menu entry with this label (prev/next, OK)
    call                        # let the seat on turn choose (a random allowed entry)
    discard                     # the declarer lays the discards on the centre reader
    play turn illegal           # the seat on turn tries a card against the duties
    play 0 legal | play 2 HA    # a legal card of seat 0, or a named card
    place 1 HA | place centre HA | tag 1 04a1b2c3 | lift 1 | lift all
    place 1 HA nowait | lift 1 nowait   # the time runs on only by ``wait``
    press ok | hold ok | wait 200 | fault 2 | back 2
    autoplay                    # the simulated players finish the deal
    autoplay deals=3            # ... and play two more
    next                        # OK on the result screen: the next deal
    expect screen 6 Farbe bedienen!     # row 6 contains the text (no row: any row)
    expect no screen Nicht am Zug
    expect led 0 refused        # off idle turn played refused winner dealer flag bidding
    expect tone reject          # the buzzer played this sound since the last command
    expect view expects card    # any zero-argument view question, compared as text
    expect journal 12           # events journalled (the header not counted)
    expect journal last play 0 HA
    expect result won=false contract=solo
    expect replay               # the journal replays to the same balances, no refusal
    png trick3                  # save the OLED picture (with --png DIR)

``run`` returns the failures as readable text (line, command, what was
expected, and the screen at that moment).
"""
import json
import os
import re

from drivers.buzzer import SOUNDS
from host_sim.runtimes import UnknownRuntime, table_class
from host_sim.table import AutoPlayers
from table.menus import needs_hold
from tapp.replay import Replayer

KNOWN_OPTIONS = ("variant", "players", "mode", "lang")


class ScenarioError(Exception):
    """A line the runner cannot understand (a mistake in the scenario file)."""


def _unescaped(text):
    """``\\uXXXX`` in an expected screen text is that character: the German
    suits' glyphs are private-use code points no editor shows (U+E000 Eichel,
    U+E001 Grün, U+E002 Herz, U+E003 Schellen)."""
    return re.sub(r"\\u([0-9a-fA-F]{4})", lambda m: chr(int(m.group(1), 16)), text)


def _value(text):
    """A scenario value: JSON where it parses (numbers, true, null, lists), else text."""
    try:
        return json.loads(text)
    except ValueError:
        return text


class Run:
    """One scenario being run."""

    def __init__(self, name, png_dir=None, runtime="cpython", folder=".", depth=0):
        self.name = name
        self.png_dir = png_dir
        self.runtime = runtime
        self.folder = folder       # where ``expect same-as FILE`` looks for FILE
        self.depth = depth         # reference runs inside reference runs
        self.references = {}       # FILE -> what its run left behind
        self.table = None
        self.off = False           # between power-off and power-on
        self.players = None
        self.failures = []
        self.tone_mark = 0
        self.seed = 1

    # ----- commands ----------------------------------------------------------------------

    def cmd_table(self, args):
        kw = {"variant": "tapp_modern", "players": 3, "mode": "strict", "lang": "de"}
        options = {}
        seed = 1
        for item in args:
            key, _, val = item.partition("=")
            if key.startswith("opt."):
                options[key[4:]] = _value(val)
            elif key == "seed":
                seed = int(val)
            elif key == "dealer":
                kw["first_dealer"] = int(val)
            elif key == "seats":
                kw["seats"] = val.split(",")
            elif key == "players":
                kw["players"] = int(val)
            elif key in ("enrolled", "setup"):
                kw[key] = val == "true"
            elif key == "decks":
                kw["decks"] = int(val)
            elif key == "flash":
                kw["flash_kb"] = int(val)
            elif key in KNOWN_OPTIONS:
                kw[key] = val
            else:
                raise ScenarioError("unknown table setting %r" % key)
        kw["options"] = options
        if self.table is not None:
            self.table.close()
        try:
            cls = table_class(self.runtime)
        except UnknownRuntime as exc:
            raise ScenarioError(str(exc)) from None
        self.table = cls(**kw)
        self.off = False
        self.seed = seed
        self.players = None      # they sit down once the session has started

    def _t(self):
        if self.table is None:
            raise ScenarioError("no table yet: start with a 'table' line")
        if self.off:
            raise ScenarioError("the table is off: only place, lift, tag and wait "
                                "until power-on")
        if self.players is None and self.table.app.view.journal() is not None:
            self.players = AutoPlayers(self.table, seed=self.seed, illegal_once=False)
        if self.players is not None:
            self.players.sync()
        return self.table

    def _players(self):
        self._t()
        if self.players is None:
            raise ScenarioError("the session has not started yet (setup or enrolment)")
        return self.players

    def _reader(self, word):
        if self.off and word != "turn":
            return self.table.centre if word == "centre" else int(word)
        t = self._t()
        if word == "centre":
            return t.centre
        if word == "turn":
            return t.view.turn()
        return int(word)

    def cmd_deal(self, args):
        """The dealer deals a shuffled deck over the centre reader (``deal 5``:
        only the next 5 cards; ``deal`` again goes on; ``deal again``: the dealer
        gathers the cards dealt so far, shuffles and deals from the start)."""
        self._players()
        if args and args[0] == "again":
            self.players.gather()
            args = args[1:]
        self.players.deal_cards(int(args[0]) if args else None)

    def cmd_call(self, args):
        t = self._t()
        tv = t.app.view
        if not tv.menu_size():
            raise ScenarioError("no menu on screen to call from")
        if not args:
            self.players.choose()
            return
        label = _unescaped(" ".join(args))
        labels = [tv.menu_label(k) for k in range(tv.menu_size())]
        if label not in labels:
            self._fail("call %s" % label, "a menu entry %r" % label, "menu %r" % labels)
            return
        event = tv.menu_event(labels.index(label))
        if event is not None and event.get("ev") == "exchange":
            self.players.pick_discards()
        while tv.menu_label(tv.menu_pos()) != label:
            t.press("next")
        t.press("ok", long=needs_hold(tv.menu_event(tv.menu_pos())))   # a stake: OK held
        if tv.menu_asks_sure():                 # every entry commits: "Sicher? OK"
            t.press("ok")

    def cmd_discard(self, args):
        self._t()
        self.players.discard()

    def cmd_play(self, args):
        t = self._t()
        seat = self._reader(args[0])
        what = args[1] if len(args) > 1 else "legal"
        shadow = self.players.shadow.view
        if what == "legal":
            card = shadow.legal_cards()[0] if seat == shadow.turn() else \
                shadow.hand(seat)[0]
        elif what == "illegal":
            legal = shadow.legal_cards()
            wrong = [c for c in shadow.hand(seat) if c not in legal]
            if not wrong:
                raise ScenarioError("seat %d has no card against the duties now" % seat)
            card = wrong[0]
        else:
            card = what
        t.place(seat, card)

    def cmd_place(self, args):
        deck = 1
        wait = True
        for item in args[2:]:
            if item.startswith("deck="):
                deck = int(item[5:])
            elif item == "nowait":
                wait = False
        reader = self._reader(args[0])
        self._on_or_off().place(reader, args[1], deck, wait=wait)

    def cmd_auction(self, args):
        """The players answer every menu until the first card is due (the
        announcement menu is closed with "weiter" / "play on"), or until the
        auction ends the deal (every seat passed: thrown in)."""
        t = self._t()
        for _ in range(200):
            self.players.sync()
            if t.view.expects() == "card" and not t.app.view.menu_size() or \
                    t.app.view.mode() != "play":
                return
            if t.view.expects() == "card":
                t.press("ok")             # the first entry: play on
            elif t.app.view.menu_size():
                self.players.choose()
            elif t.view.expects() == "discard":
                self.players.discard()
            else:
                t.wait(100)
        raise ScenarioError("the auction did not reach the first card")

    def cmd_enrol(self, args):
        """Put the cards the enrolment asks for on the centre (all, or ``count``)."""
        self._t().enrol_cards(int(args[0]) if args else None)

    def cmd_power_cut(self, args):
        """Power off and on: flash (decks, settings) stays, RAM is gone."""
        self.cmd_power_off(args)
        self.cmd_power_on(args)

    def cmd_power_off(self, args):
        """The power goes; cards may be placed and lifted until ``power-on``."""
        self._t().power_off()
        self.off = True

    def cmd_power_on(self, args):
        """Power comes back: the table resumes its journal with the cards that
        lie on the readers now; the players keep their hands (the same physical
        deal goes on)."""
        if not self.off:
            raise ScenarioError("power-on: the table is on (power-off first)")
        self.table = self.table.power_on()
        self.off = False
        if self.players is not None:
            self.players.rejoin(self.table)

    def _on_or_off(self):
        """The table to place and lift cards on: while the power is off, cards
        only move (nobody is looking)."""
        return self.table if self.off else self._t()

    def cmd_tag(self, args):
        reader = self._reader(args[0])
        self._on_or_off().place_tag(reader, bytes.fromhex(args[1]))

    def cmd_lift(self, args):
        t = self._on_or_off()
        if args[0] == "all":
            for r in range(t.centre + 1):
                t.lift(r, wait=False)
            for r in range(t.centre + 1):
                t.lift(r)
        else:
            t.lift(self._reader(args[0]), wait="nowait" not in args[1:])

    def cmd_press(self, args):
        self._t().press(args[0])

    def cmd_hold(self, args):
        self._t().press(args[0], long=True)

    def cmd_wait(self, args):
        if args[0] == "look":          # timed to the power-up's first look, on every runtime
            self._wait_look(int(args[1]))
        elif not self.off:             # while off: time passes, nothing runs
            self._t().wait(int(args[0]))

    def _wait_look(self, ms):
        """Until the readers' first look after the power-up has lasted ``ms``."""
        t = self._t()
        looked = t.app.view.boot_look_ms()
        if looked < 0 or looked > ms:
            raise ScenarioError("wait look %d: the first look %s" % (
                ms, "is over" if looked < 0 else "has lasted %d ms already" % looked))
        t.wait(ms - looked)

    def cmd_fault(self, args):
        t = self._t()
        t.board.chips[self._reader(args[0])].disconnect()
        t.wait(400)

    def cmd_back(self, args):
        t = self._t()
        t.board.chips[self._reader(args[0])].reconnect()
        t.wait(2500)

    def cmd_autoplay(self, args):
        t = self._t()
        deals = 1
        for item in args:
            key, _, val = item.partition("=")
            if key == "deals":
                deals = int(val)
        for k in range(deals):
            if k:
                self.players.next_deal()
            self.players.play_deal()
            if t.view.session_over():
                break

    def cmd_next(self, args):
        self._t()
        self.players.next_deal()

    def cmd_png(self, args):
        if self.png_dir:
            os.makedirs(self.png_dir, exist_ok=True)
            self._t().board.oled.save_png(os.path.join(self.png_dir, args[0] + ".png"))

    # ----- expectations ----------------------------------------------------------------------

    def cmd_expect(self, args):
        t = self._t()
        kind = args[0]
        rest = args[1:]
        line = "expect " + " ".join(args)
        if kind == "screen" or (kind == "no" and rest and rest[0] == "screen"):
            negate = kind == "no"
            if negate:
                rest = rest[1:]
            rows = t.screen()
            if rest and rest[0].isdigit() and len(rest) > 1:
                where = [rows[int(rest[0])]]
                want = " ".join(rest[1:])
            else:
                where = rows
                want = " ".join(rest)
            want = _unescaped(want)
            found = any(want in row for row in where)
            if found == negate:
                self._fail(line, ("no " if negate else "") + repr(want), "the screen")
        elif kind == "led":
            got = t.leds()[int(rest[0])]
            if got != rest[1]:
                self._fail(line, rest[1], "LED %s is %s (all: %s)" % (rest[0], got, t.leds()))
        elif kind == "tone":
            want = SOUNDS[rest[0]][0]
            played = [f for start, _ms, f in t.tones() if f and start >= self.tone_mark]
            if want not in played:
                self._fail(line, "the %s sound (%d Hz)" % (rest[0], want),
                           "tones %r" % played[-8:])
        elif kind == "view":
            if not t.app.view.deck_cards():           # no session yet
                self._fail(line, " ".join(rest), "no session yet")
                return
            method = getattr(t.view, rest[0])
            if rest[1:] and rest[1].isdigit() and len(rest) > 2:
                got = method(int(rest[1]))          # a question about one seat
                rest = rest[1:]
            else:
                got = method()
            want = " ".join(rest[1:])
            if str(got) != want:
                self._fail(line, want, "view.%s() = %r" % (rest[0], got))
        elif kind == "journal":
            self._expect_journal(t, rest, line)
        elif kind == "result":
            result = t.view.last_result() or {}
            for item in rest:
                key, _, val = item.partition("=")
                if result.get(key) != _value(val):
                    self._fail(line, "%s=%s" % (key, val), "%s=%s" % (
                        key, json.dumps(result.get(key))))
        elif kind == "same-as":
            self._expect_same_as(t, rest, line)
        elif kind == "replay":
            lines = t.journal_lines()
            rep = Replayer(lines[0])
            outs = [rep.feed(x) for x in lines[1:]]
            bad = [o for o in outs if o and '"ok":false' in o]
            if bad or rep.session.view.balances() != t.view.balances():
                self._fail(line, "a clean replay with balances %s" % t.view.balances(),
                           "refused %r, balances %s" % (bad[:2], rep.session.view.balances()))
        else:
            raise ScenarioError("unknown expectation %r" % kind)

    def _expect_journal(self, t, rest, line):
        events = [json.loads(x.split("\t")[0]) for x in t.journal_lines()[1:]]
        if rest[0] == "last":
            last = events[-1] if events else {}
            want = {"ev": rest[1]}
            if len(rest) > 2:
                want["seat"] = int(rest[2])
            if len(rest) > 3:
                want["card" if rest[1] == "play" else "call"] = rest[3]
            if any(last.get(k) != v for k, v in want.items()):
                self._fail(line, json.dumps(want), json.dumps(last))
        elif int(rest[0]) != len(events):
            self._fail(line, "%s events" % rest[0], "%d events" % len(events))

    def _reference(self, name):
        """What the scenario file ``name`` leaves behind when run to its end in a
        fresh run of this runtime: its journal's events, screen and LEDs."""
        if name not in self.references:
            if self.depth >= 3:
                raise ScenarioError("same-as: references nested too deep")
            path = os.path.join(self.folder, name)
            with open(path, encoding="utf-8") as f:
                lines = f.read().splitlines()
            ref = Run(name, None, self.runtime, os.path.dirname(path), self.depth + 1)
            try:
                failures = ref.run_lines(lines)
                if failures:
                    raise ScenarioError("same-as: the reference %s fails itself:\n%s" % (
                        name, format_failures(path, failures)))
                if ref.table is None or ref.off:
                    raise ScenarioError("same-as: the reference %s ends without a "
                                        "running table" % name)
                self.references[name] = (_events(ref.table), ref.table.screen(),
                                         ref.table.leds())
            finally:
                if ref.table is not None:
                    ref.table.close()
        return self.references[name]

    def _expect_same_as(self, t, rest, line):
        """``expect same-as FILE [screen] [leds]``: see host_sim/README.md."""
        events, screen, leds = self._reference(rest[0])
        mine = _events(t)
        if mine != events:
            k = next((i for i in range(min(len(mine), len(events)))
                      if mine[i] != events[i]), min(len(mine), len(events)))
            self._fail(line, "the journal of %s (%d lines); line %d: %s" % (
                rest[0], len(events), k, json.dumps(events[k]) if k < len(events) else "-"),
                "%d lines; line %d: %s" % (len(mine), k, json.dumps(mine[k])
                                           if k < len(mine) else "-"))
        if "screen" in rest[1:] and t.screen() != screen:
            self._fail(line, "the screen of %s: %r" % (rest[0], screen), "the screen")
        if "leds" in rest[1:] and t.leds() != leds:
            self._fail(line, "the LEDs of %s: %s" % (rest[0], leds), "LEDs %s" % t.leds())

    def _fail(self, line, expected, got):
        screen = self.table.screen() if self.table else []
        self.failures.append((self.lineno, line, expected, got, screen))

    # ----- running -------------------------------------------------------------------------------

    def run_lines(self, lines):
        for lineno, raw in enumerate(lines, 1):
            self.lineno = lineno
            text = raw.strip()
            if text.startswith("#") or not text:
                continue
            if not text.startswith("expect"):     # expectations may contain '#'
                text = text.split("#", 1)[0].strip()
            words = text.split()
            handler = getattr(self, "cmd_" + words[0].replace("-", "_"), None)
            if handler is None:
                raise ScenarioError("line %d: unknown command %r" % (lineno, words[0]))
            if self.table is not None and words[0] != "expect":
                self.tone_mark = self.table.board.ticks_ms()   # "since the last command"
            try:
                handler(words[1:])
            except ScenarioError as exc:
                raise ScenarioError("line %d: %s" % (lineno, exc)) from None
            except (LookupError, ValueError, TypeError, RuntimeError, AttributeError) as exc:
                raise ScenarioError("line %d: %s: %s: %s" % (
                    lineno, text, type(exc).__name__, exc)) from None
        return self.failures


def _events(table):
    """The journal as JSON values: the header, then every event (no CRCs)."""
    return [json.loads(x.split("\t")[0]) for x in table.journal_lines()]


def run_file(path, png_dir=None, runtime="cpython"):
    """Run one scenario file; the list of failures (empty: it passed)."""
    with open(path, encoding="utf-8") as f:
        lines = f.read().splitlines()
    run = Run(os.path.basename(path), png_dir, runtime, os.path.dirname(path))
    try:
        return run.run_lines(lines)
    finally:
        if run.table is not None:
            run.table.close()


def format_failures(path, failures):
    out = []
    for lineno, line, expected, got, screen in failures:
        out.append("%s:%d: %s" % (path, lineno, line))
        out.append("  expected: %s" % expected)
        out.append("  got:      %s" % got)
        out.append("  screen:")
        out += ["    |%-16s|" % row for row in screen]
    return "\n".join(out)
