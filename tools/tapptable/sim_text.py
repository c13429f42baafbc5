"""``tapptable sim`` without a terminal: one deal played by itself, shown as text.

When standard input is not a terminal (CI, a pipe, ``python3 tools/dev.py run
< /dev/null``) or with ``--text``, the simulated people at the virtual table
(host_sim/table.py) deal over the centre reader, answer the menus with the
buttons and put legal cards on their readers -- once, on purpose, a card that
breaks the rules, which the table refuses. After each notable step (the deal,
each call, each trick, the refusal, the result) the OLED's text rows are
printed in a box, read back from the display model's pixels, with what each
seat's LED shows and what the buzzer played.

The helpers here read the virtual table only through its front door
(``screen()``, ``board``, ``view``, ``app.view``, ``tags``, ``journal_lines()``);
the full-screen view (sim_tui.py) uses them too.
"""
import json
import shutil
import sys
import textwrap

from drivers.buzzer import SOUNDS
from host_sim.players import AutoPlayers
from host_sim.runtimes import table_class
from table.names import CARD_TEXT, call_label, contract_name, variant_name
from tapp.cards import CARD_CODES, CODE_INDEX
from tools.tapptable.outcome import played_points, words

BOX_W = 16            # OLED text columns
INFO_W = 20           # the notes beside each box
SOUND_BY_FIRST_NOTE = {seq[0]: name for name, seq in SOUNDS.items()}
SOUND_WORDS = {"accept": "blip", "reject": "buzz", "trick_won": "fanfare",
               "deal_done": "tune", "error": "error"}


# ----------------------------------------------------------------- reading the table


def led_rgb(table):
    """The (r, g, b) each seat LED shows, at full brightness for the screen."""
    out = []
    for r, g, b in table.board.strip.colours:
        top = max(r, g, b)
        out.append((0, 0, 0) if top == 0 else (r * 255 // top, g * 255 // top,
                                               b * 255 // top))
    return out


def card_of_uid(uid):
    """The card code of a virtual deck sticker (host_sim.table.card_uid), or None."""
    uid = bytes(uid)
    if len(uid) == 7 and uid[0] == 0x04 and uid[1] == 0x54 and uid[3] < len(CARD_CODES):
        return CARD_CODES[uid[3]]
    return None


def reader_codes(table):
    """Per reader (seats first, the centre last): the cards lying on it."""
    return [[card_of_uid(tag.uid) or "?" for tag in tags] for tags in table.tags]


def card_text(code):
    """``HA`` -> ``♥A`` (as the display writes it)."""
    return CARD_TEXT[CODE_INDEX[code]] if code in CODE_INDEX else code


def inverted_rows(oled):
    """Which of the 8 text rows are drawn inverted (mostly lit)."""
    out = []
    for page in range(8):
        lit = sum(bin(b).count("1") for b in oled.ram[page * 128:(page + 1) * 128])
        out.append(lit > 512)
    return out


def journal_events(table):
    """The journal's events as dicts (the header and the CRC suffixes dropped)."""
    out = []
    for line in table.journal_lines()[1:]:
        try:
            out.append(json.loads(line.split("\t", 1)[0]))
        except ValueError:
            continue
    return out


def deal_events(table):
    """The accepted events of the deal in progress, undos folded in."""
    events = []
    for ev in journal_events(table):
        if ev.get("ev") == "deal":
            events = [ev]
        elif ev.get("ev") == "undo":
            if events:
                events.pop()
        else:
            events.append(ev)
    return events


def played_cards(table):
    """Cards played so far in the deal in progress."""
    return [ev["card"] for ev in deal_events(table) if ev.get("ev") == "play"]


def sounds_since(table, since_ms):
    """Names of the buzzer's sounds that started at or after ``since_ms``."""
    out = []
    prev = 0
    for start, _dur, freq in table.tones():
        if start >= since_ms and freq and prev == 0:
            name = SOUND_BY_FIRST_NOTE.get(freq)
            if name:
                out.append(name)
        prev = freq
    return out


def seat_name(table, seat):
    return table.view.seat_name(seat)


def handing_over(view):
    """Is a Rufer's hand-over due: the card called, no card played yet (the
    display shows it until then)?"""
    return view.rufer_call(0) >= 0 and view.expects() == "card" and \
        view.trick_number() == 1 and view.trick_size() == 0


def rufer_note(table, you=-1):
    """The Rufer's call and who gives what to whom, in words, while the
    hand-over is due ("" otherwise); ``you``: the seat the words speak to."""
    view = table.view
    if not handing_over(view):
        return ""
    decl, holder = view.declarer(), view.rufer_call(2)
    give = view.rufer_call(1)

    def who(seat):
        return "you" if seat == you else seat_name(table, seat)

    head = "%s called %s" % ("You" if decl == you else who(decl),
                             card_text(CARD_CODES[view.rufer_call(0)]))
    if give < 0:
        return head + ": it lies in the talon, nothing to hand over"
    gave = card_text(CARD_CODES[give])
    if holder < 0:
        return head + ": whoever holds it hands it to %s and gets %s face down" % (
            who(decl), gave)
    verbs = ("hand", "get") if holder == you else ("hands", "gets")
    return head + ": %s %s it to %s and %s %s face down" % (
        who(holder), verbs[0], who(decl), verbs[1], gave)


UNDONE_WORDS = {"bid": "call", "exchange": "lay-away", "rufer": "Rufer call",
                "announce": "announcement", "deal": "deal", "hand": "hand",
                "declare": "declaration"}


def undo_target(table):
    """What an undo would take back now, in words ("Bert's ♣J", "Cora's
    call"; "" nothing), as the display names it above its question."""
    view = table.view
    kind = view.undo_kind()
    if not kind:
        return ""
    who = seat_name(table, view.undo_seat()) + "'s " if view.undo_seat() >= 0 else "the "
    if kind == "play":
        return who + card_text(CARD_CODES[view.undo_card()])
    return who + UNDONE_WORDS.get(kind, kind)


def describe(table, ev):
    """A short line for a journal event (calls and announcements)."""
    kind = ev.get("ev")
    who = seat_name(table, ev["seat"]) if "seat" in ev else ""
    lang = table.app.view.language()
    if kind in ("bid", "announce"):
        return "%s: %s" % (who, call_label(ev, lang) or ev.get("call", ""))
    if kind == "exchange":
        n = len(ev.get("discard") or [])
        return "%s lays away %s" % (who, "%d cards" % n if n else "the talon cards")
    if kind == "rufer":
        give = ev.get("give")
        holder = table.view.rufer_call(2)
        if give and holder >= 0 and table.view.rufer_call(0) == CODE_INDEX[ev["card"]]:
            return "%s calls %s: %s hands it over, gets %s" % (
                who, card_text(ev["card"]), seat_name(table, holder), card_text(give))
        return "%s calls %s%s" % (who, card_text(ev["card"]),
                                  ", gives %s" % card_text(give) if give else
                                  " (in the talon)")
    if kind == "play":
        return "%s plays %s" % (who, card_text(ev["card"]))
    return kind or "?"


# ----------------------------------------------------------------- printing


class Screens:
    """Collects snapshots of the device (OLED text, LEDs, sounds) and prints them
    side by side, as many per row as the terminal is wide."""

    def __init__(self, table, out=None, per_row=None):
        self.table = table
        self.out = out or sys.stdout
        width = shutil.get_terminal_size((80, 24)).columns
        self.per_row = per_row or max(1, min(3, (width + 2) // (BOX_W + INFO_W + 5)))
        self.pending = []
        self.sound_mark = table.board.ticks_ms()
        self.count = 0

    def snap(self, caption):
        t = self.table
        now = t.board.ticks_ms()
        sounds = sounds_since(t, self.sound_mark)
        self.sound_mark = now
        rows = t.screen()
        notes = textwrap.wrap(caption, INFO_W) or [""]
        for seat, state in enumerate(t.leds()):
            if t.app.view.taken_back(seat):
                state = "taken back"        # undone: to be lifted, not refused
            notes.append("%-8s %s" % (seat_name(t, seat)[:8], state))
        if sounds:
            notes.append("♪ " + ", ".join(SOUND_WORDS.get(s, s) for s in sounds[-2:]))
        self.pending.append((rows, notes))
        self.count += 1
        if len(self.pending) >= self.per_row:
            self.flush()

    def flush(self):
        if not self.pending:
            return
        blocks = []
        for rows, notes in self.pending:
            lines = ["┌" + "─" * BOX_W + "┐"]
            lines += ["│" + (r + " " * BOX_W)[:BOX_W] + "│" for r in (list(rows) + [""] * 8)[:8]]
            lines.append("└" + "─" * BOX_W + "┘")
            height = max(len(lines), len(notes))
            block = []
            for i in range(height):
                left = lines[i] if i < len(lines) else " " * (BOX_W + 2)
                right = notes[i] if i < len(notes) else ""
                block.append(left + " " + right.ljust(INFO_W))
            blocks.append(block)
        height = max(len(b) for b in blocks)
        blank = " " * (BOX_W + 3 + INFO_W)
        for i in range(height):
            line = "  ".join(b[i] if i < len(b) else blank for b in blocks)
            self.out.write(line.rstrip() + "\n")
        self.out.write("\n")
        self.out.flush()
        self.pending = []

    def say(self, text):
        self.flush()
        self.out.write(text + "\n")
        self.out.flush()


class _Watched:
    """The virtual table as the simulated players see it, with two peepholes for the
    printout: just before a card is lifted -- a trick being cleared, or a refused
    card taken back."""

    def __init__(self, table, on_lift):
        self._table = table
        self._on_lift = on_lift

    def __getattr__(self, name):
        return getattr(self._table, name)

    def lift(self, reader, wait=True):
        self._on_lift(reader)
        return self._table.lift(reader, wait)


PASSES = ("pass", "weg")


class TablePlayers(AutoPlayers):
    """AutoPlayers who mostly play the plain game: in the auction the first to
    speak bids the lowest game and the others mostly pass; elsewhere they mostly
    take the first entry ("play on", no announcement). So a shown deal is
    played out, rather than thrown in or ended early by a daring contract."""

    def choose(self):
        t = self.table
        menu = self.menu()
        evs = [ev for _label, ev in menu]
        auction = any(ev and ev.get("ev") == "bid" and ev.get("call") in PASSES
                      for ev in evs)
        if auction:
            bid = any(ev.get("ev") == "bid" and ev.get("call") not in PASSES
                      for ev in deal_events(t))
            want = [k for k, ev in enumerate(evs) if (ev.get("call") in PASSES) == bid]
            if want and (not bid or self.rng.random() < 0.8):
                return self._pick(want[0])
        elif menu and evs[0] is not None and evs[0].get("ev") == "bid":
            return self._pick(0)             # the contract: the first (plainest) one
        elif menu and (evs[0] is None or evs[0].get("ev") == "announce") \
                and self.rng.random() < 0.7:
            return self._pick(0)
        return super().choose()

    def _pick(self, k):
        self.press_entry(k)


def autoplay(args, out=None):
    """Play one deal at the virtual table by itself and print the screens."""
    out = out or sys.stdout
    table = table_class(getattr(args, "runtime", "cpython"))(
        args.variant, args.players, args.mode, lang=args.lang)
    view = table.view
    tv = table.app.view
    shots = Screens(table, out)
    state = {"events": 0, "trick": 0}
    refusals = set()
    said = []

    def new_calls():
        events = journal_events(table)
        fresh = events[state["events"]:]
        state["events"] = len(events)
        return [ev for ev in fresh if ev.get("ev") not in ("deal", "play")]

    def on_lift(reader):
        if tv.refused(reader) and not tv.taken_back(reader) and reader_codes(table)[reader]:
            key = (reader, view.trick_number(), view.trick_size())
            if key not in refusals:
                refusals.add(key)
                said.append(tv.message())
                shots.snap("REFUSED: %s put %s on the reader; the table says no" % (
                    seat_name(table, reader), card_text(reader_codes(table)[reader][-1])))
            return
        last = view.last_trick()
        if last is None or last["n"] == state["trick"] or not tv.clearing():
            return
        state["trick"] = last["n"]
        if view.in_deal():
            shots.snap("Trick %d: %s wins it, %d points" % (
                last["n"], seat_name(table, last["winner"]), last["points"]))

    def on_step(_t):
        calls = new_calls()
        if calls:
            shots.snap("; ".join(describe(table, ev) for ev in calls))

    players = TablePlayers(_Watched(table, on_lift), seed=args.seed)
    name = variant_name(args.variant)
    out.write("The virtual table: %s (%s), %d players, %s mode, seed %d.\n" % (
        name, args.variant, args.players, args.mode, args.seed))
    if getattr(args, "runtime", "cpython") == "micropython":
        out.write("The firmware runs inside the MicroPython unix port.\n")
    if getattr(args, "runtime", "cpython") == "rp2040":
        out.write("The firmware runs on MicroPython's rp2 port in an emulated Pico.\n")
    out.write("The unchanged firmware runs on simulated chips; simulated people deal,\n"
              "call with the buttons and put cards on their seat readers. Each box is\n"
              "the OLED (read back from its pixels); beside it the seat LEDs and the\n"
              "buzzer. (In a terminal, `tapptable sim` lets you play yourself.)\n\n")
    if tv.mode() == "dealing":
        shots.snap("Before the deal: %s deals over the centre reader" % seat_name(
            table, view.dealer()))
        players.deal_cards()
        new_calls()
        shots.snap("Dealt: every card passed over the centre reader")
    else:
        new_calls()
        shots.snap("Dealt by %s, face down: open mode, the hands stay secret" % seat_name(
            table, view.dealer()))
    result = players.play_deal(on_step)
    calls = new_calls()
    shots.snap("Result" + (" (after %s)" % "; ".join(describe(table, ev) for ev in calls)
                           if calls else ""))
    shots.flush()
    out.write(summary(table, result, players, said) + "\n")
    table.close()
    return 0


def summary(table, result, players, said=()):
    """A few lines about the deal's outcome."""
    lines = []
    if players.refused:
        seat, card, _rows = players.refused[0]
        lines.append("Refused: %s's %s -- the display said \"%s\"." % (
            seat_name(table, seat), card_text(card), said[0] if said else "?"))
    if result is None:
        lines.append("Result: none (the deal did not end).")
        return "\n".join(lines)
    view = table.view            # still the settled deal: its points as played
    cid = result["contract"]
    lines.append("Result: %s." % words(
        result, [seat_name(table, s) for s in range(view.players())],
        contract_name(cid, table.app.view.language()) if cid else "",
        played_points(result, view), view.hand_size()))
    lines.append("Payments: " + ", ".join(
        "%s %+d" % (seat_name(table, s), p) for s, p in enumerate(result["payments"])))
    lines.append("Journal: %d lines (the record of this session)." % len(
        table.journal_lines()))
    return "\n".join(lines)
