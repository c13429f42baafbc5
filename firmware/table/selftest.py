"""Bring-up self-test: every part of the table is asked to show that it works.

    from table.selftest import run_selftest
    results = run_selftest(board, print)   # -> [(item, ok, detail), ...]

    from table.selftest import run_at_boot # main.py, after the board is made:
    run_at_boot(board)                     # the self-test if OK is held at power-up

``board`` is what firmware/boards/ builds (common.Board): ``readers`` (a
ReaderSet), ``display``, ``buttons``, ``leds``, ``buzzer``, ``ticks_ms``.
``report(line)`` gets one line per prompt and per result, ``"<item>: <text>"``
(the items: ``display``, ``seat 1`` .. ``seat N`` and ``centre`` for the
readers, ``leds``, ``buzzer``, ``button prev|next|ok``), results as
``"<item>: ok ..."`` / ``"<item>: FAIL ..."`` and the last line
``"selftest: all ok"`` or ``"selftest: N failed: ..."``.  The display shows the
same, shorter.  The steps, in order (hardware/README.md, "Bring-up"):

1. display: every pixel on, a checkerboard, a frame with diagonals (a display
   that does not acknowledge on I2C fails, and the test goes on without it);
2. readers: all re-initialised (shared reset), then each one's VersionReg:
   0x91/0x92 is an MFRC522; 0x00 or a chip that never leaves reset is no
   answer (supply, CS or MISO wiring); 0x88 and others are clones;
3. LEDs: each seat's LED red, green, blue in turn (look);
4. buzzer: four rising notes (listen);
5. buttons: all released first (OK may still be held from power-up; one still
   pressed after RELEASE_MS is stuck), then PREV, NEXT, OK asked for in turn;
   another button coming instead means swapped wires;
6. cards: a card asked for on each reader that answered; every reader is
   polled meanwhile, so a card seen by another reader names a swapped
   chip-select; no card within ``card_ms`` fails (range, supply, SPI).

At the end the seat LEDs show each seat reader's result (green/red) and the
buzzer the verdict.  Waiting uses ``sleep_ms`` (``time.sleep_ms`` on the
device; the simulator passes its virtual clock's) and the board's clock; a
clock that stands still still ends every wait (loops are counted too).
This runs once at bring-up, not in the game loop: it may allocate.
"""
import time

from drivers import leds as L
from drivers import mfrc522 as M
from drivers.buzzer import ACCEPT, REJECT

CARD_MS = 20000      # per reader, to put a card on it
BUTTON_MS = 10000    # per button
RELEASE_MS = 3000    # buttons up / card lifted
LED_MS = 250         # each colour of each LED
PATTERN_MS = 700     # each display pattern
STEP_MS = 10         # the wait loops' step
TONE_MS = 3000       # longest a tone sequence may take
CALM_STEPS = 10      # buttons count as released after this many steps (100 ms) up
WAIT_OK_MS = 120000  # wait_ok: the verdict stays this long at most

SCALE = (523, 150, 659, 150, 784, 150, 1047, 300)   # C5 E5 G5 C6
KEYS = ("prev", "next", "ok")
VERSION_NAMES = {0x91: "v1.0", 0x92: "v2.0"}
CLONES = {0x88: "an FM17522 clone", 0x12: "a counterfeit (0x12)", 0xB2: "an FM17522 clone",
          0x82: "a clone (0x82)"}


def _cpython_sleep_ms(ms):
    time.sleep(ms / 1000)


_sleep_ms = getattr(time, "sleep_ms", _cpython_sleep_ms)


def boot_requested(board):
    """True when OK was held as the board came up (the button pad saw it pressed
    when it was made), which asks for the self-test instead of the game."""
    return board.buttons.ok.pressed == 1


def run_at_boot(board, report=print, sleep_ms=None):
    """main.py's hook: the self-test when OK was held at power-up (the verdict stays
    on the display until OK is pressed); its results, else None."""
    if not boot_requested(board):
        return None
    return run_selftest(board, report, sleep_ms, wait_ok=True)


def reader_names(n):
    """The readers' names: the seats first, the centre last."""
    names = []
    for i in range(n - 1):
        names.append("seat %d" % (i + 1))
    names.append("centre")
    return names


def uid_hex(uid):
    return "".join("%02x" % b for b in uid)


def run_selftest(board, report, sleep_ms=None, card_ms=CARD_MS, button_ms=BUTTON_MS,
                 wait_ok=False):
    """Test every part of ``board``; results (item, ok, detail) in order.  Lines go
    to ``report`` and the display as the test goes.  With ``wait_ok`` the verdict
    stays on the display until OK is pressed (at most WAIT_OK_MS), as at boot."""
    run = _Run(board, report, sleep_ms if sleep_ms is not None else _sleep_ms)
    run.card_ms = card_ms
    run.button_ms = button_ms
    run.display()
    good = run.readers()
    run.leds()
    run.buzzer()
    run.buttons()
    run.cards(good)
    run.summary()
    if wait_ok:
        run.wait_ok()
    return run.results


class _Run:
    """One self-test run: the board, what was found, what the display shows."""

    def __init__(self, board, report, sleep_ms):
        self.board = board
        self.report = report
        self.sleep = sleep_ms
        self.card_ms = CARD_MS
        self.button_ms = BUTTON_MS
        self.results = []
        self.shown = []            # short result lines for the display
        self.disp = board.display  # None once it stopped answering
        self.disp_failed = False
        self.prompt = ("", "")
        self.names = reader_names(board.readers.n)
        self.testing = []          # readers in the card test
        self.card_ok = bytearray(board.readers.n)   # 1: the reader read its card
        self.target = 0            # what a wait predicate looks for
        self.calm = 0              # steps every button has been up

    # ----- output ------------------------------------------------------------------

    def say(self, item, text):
        self.report("%s: %s" % (item, text))

    def result(self, item, ok, detail, short):
        self.results.append((item, ok, detail))
        self.say(item, ("ok " if ok else "FAIL ") + detail)
        self.shown.append("%s %s" % (short, "ok" if ok else "FAIL"))
        self.draw("")

    def ask(self, item, text, row1, row2=""):
        """A prompt: to the report and on the display's rows 1 and 2."""
        self.prompt = (row1, row2)
        self.say(item, text)
        self.draw("")

    def draw(self, status):
        d = self.disp
        if d is None:
            return
        try:
            d.fill(0)
            d.text_line(0, "SELFTEST", True)
            d.text_line(1, self.prompt[0])
            d.text_line(2, self.prompt[1])
            d.text_line(3, status)
            rows = self.shown[-4:]
            for k in range(len(rows)):
                d.text_line(4 + k, rows[k])
            d.show()
        except OSError as e:
            self._lost_display(e)

    def _lost_display(self, e):
        self.disp = None
        if not self.disp_failed:
            self.disp_failed = True
            self.result("display", False, "no answer at I2C address 0x%02x (%s): check SDA, "
                        "SCL, VCC and GND of the display" % (self.board.display.addr, e),
                        "display")

    # ----- waiting -----------------------------------------------------------------

    def wait(self, ms, done):
        """Call ``done()`` every STEP_MS until it returns something other than None
        (returned) or ``ms`` have passed (None).  The display counts the seconds."""
        ticks = self.board.ticks_ms
        t0 = ticks()
        loops = 0
        shown = -1
        while True:
            r = done()
            if r is not None:
                return r
            waited = M.ticks_diff(ticks(), t0)
            if waited < loops * STEP_MS:   # a clock that stands still
                waited = loops * STEP_MS
            if waited >= ms:
                return None
            left = (ms - waited + 999) // 1000
            if left != shown and ms > 1000:
                shown = left
                self.draw("%d s" % left)
            self.sleep(STEP_MS)
            loops += 1

    def _never(self):
        return None

    def pause(self, ms):
        self.wait(ms, self._never)

    # ----- 1. display ----------------------------------------------------------------

    def display(self):
        d = self.board.display
        try:
            d.fill(1)                               # every pixel on
            d.show()
            self.pause(PATTERN_MS)
            d.fill(0)                               # 8x8 checkerboard
            for y in range(0, d.height, 8):
                for x in range(0, d.width, 8):
                    if (x + y) & 8:
                        d.fill_rect(x, y, 8, 8, 1)
            d.show()
            self.pause(PATTERN_MS)
            d.fill(0)                               # frame and diagonals
            d.rect(0, 0, d.width, d.height, 1)
            d.line(0, 0, d.width - 1, d.height - 1, 1)
            d.line(0, d.height - 1, d.width - 1, 0, 1)
            d.show()
            self.pause(PATTERN_MS)
        except OSError as e:
            self._lost_display(e)
            return
        self.result("display", True, "test pattern shown (all pixels, checkerboard, frame "
                    "with diagonals): look for dead rows or columns", "display")

    # ----- 2. reader versions --------------------------------------------------------

    def readers(self):
        """VersionReg of every reader; the indexes of those that answered."""
        rs = self.board.readers
        self.ask("readers", "resetting all readers", "readers...")
        rs.init()
        good = []
        for i in range(rs.n):
            name = self.names[i]
            rd = rs.readers[i]
            if not rs.down(i):
                self.result(name, True, "MFRC522 %s (VersionReg 0x%02x)"
                            % (VERSION_NAMES.get(rd.version, "?"), rd.version), name)
                good.append(i)
                continue
            if not rd.reset():
                detail = ("no answer: the chip never leaves reset (MISO reads high?): check "
                          "3V3R, GND, RST, its CS line and its MISO buffer gate")
            elif rd.init(False):
                detail = ("answered only at the second try: a loose wire or a weak "
                          "supply (3V3R at the reader?)")
            elif rd.version == 0x00 or rd.version == 0xFF:
                detail = ("no answer (VersionReg reads 0x%02x): check 3V3R and GND at the "
                          "reader, its CS line and MISO through its 74HC125 gate" % rd.version)
            else:
                detail = ("VersionReg 0x%02x: %s (the driver needs an NXP MFRC522, 0x91 or "
                          "0x92)" % (rd.version, CLONES.get(rd.version, "not an MFRC522")))
            self.result(name, False, detail, name)
        return good

    # ----- 3. LEDs -------------------------------------------------------------------

    def leds(self):
        leds = self.board.leds
        n = leds.nseats
        self.ask("leds", "each seat's LED red, green, blue in turn: look", "LEDs: look")
        for i in range(n):
            for state in (L.REFUSED, L.PLAYED, L.TURN):
                leds.set_all(L.OFF)
                leds.set(i, state)
                leds.show()
                self.pause(LED_MS)
        leds.set_all(L.OFF)
        leds.show()
        self.result("leds", True, "%d LEDs lit red, green, blue in turn, seat 1 first: each "
                    "should have shown all three" % n, "LEDs")

    # ----- 4. buzzer -----------------------------------------------------------------

    def _tone_done(self):
        return None if self.board.buzzer.update() else True

    def play(self, seq):
        self.board.buzzer.play(seq)
        self.wait(TONE_MS, self._tone_done)
        self.board.buzzer.stop()

    def buzzer(self):
        self.ask("buzzer", "four rising notes: listen", "buzzer: listen")
        self.play(SCALE)
        self.result("buzzer", True, "four rising notes played: you should have heard them",
                    "buzzer")

    # ----- 5. buttons ----------------------------------------------------------------

    def _keys(self):
        pad = self.board.buttons
        return (pad.prev, pad.next, pad.ok)

    def _released(self):
        """True once every button (but the stuck ones) has been up for CALM_STEPS
        polls: longer than the debounce, so a button held down is seen first."""
        self.board.buttons.poll()   # samples every button (events are not needed)
        keys = self._keys()
        for k in range(3):
            if keys[k].pressed and not self.target & (1 << k):
                self.calm = 0
                return None
        self.calm += 1
        return True if self.calm >= CALM_STEPS else None

    def _all_up(self, ms):
        self.calm = 0
        return self.wait(ms, self._released)

    def _pressed(self):
        self.board.buttons.poll()
        keys = self._keys()
        for k in range(3):
            if keys[k].pressed and not self.target & (1 << k):
                return k
        return None

    def buttons(self):
        self.target = 0            # bit k: button k is stuck (ignored from then on)
        self.ask("buttons", "release all buttons", "release buttons")
        if self._all_up(RELEASE_MS) is None:
            keys = self._keys()
            for k in range(3):
                if keys[k].pressed:
                    self.target |= 1 << k
        for k in range(3):
            item = "button " + KEYS[k]
            if self.target & (1 << k):
                self.result(item, False, "stuck: still pressed before it was asked for (a "
                            "short to GND, or no pull-up)", "btn " + KEYS[k])
                continue
            up = KEYS[k].upper()
            self.ask(item, "press %s" % up, "press " + up)
            got = self.wait(self.button_ms, self._pressed)
            if got is None:
                self.result(item, False, "no press in %d s: check its wire and GND"
                            % (self.button_ms // 1000), "btn " + KEYS[k])
            elif got != k:
                self.result(item, False, "%s came instead: are the wires of %s and %s "
                            "swapped?" % (KEYS[got].upper(), up, KEYS[got].upper()),
                            "btn " + KEYS[k])
            else:
                self.result(item, True, "pressed", "btn " + KEYS[k])
            self._all_up(RELEASE_MS)

    # ----- 6. cards ------------------------------------------------------------------

    def _clear(self):
        """One poll of every reader; True when no reader under test sees anything, now
        (its last scan) and debounced (its reported state)."""
        rs = self.board.readers
        rs.poll_all()
        for i in self.testing:
            if rs.raw[i] != M.ABSENT or rs.status[i] != M.ABSENT:
                return None
        return True

    def _card(self):
        """One poll of every reader; the first under test that reports a card."""
        rs = self.board.readers
        rs.poll_all()
        for i in self.testing:
            if rs.status[i] == M.PRESENT:
                return i
        return None

    def cards(self, good):
        rs = self.board.readers
        self.testing = good
        for i in good:
            name = self.names[i]
            if self.wait(STEP_MS, self._clear) is None:
                self.ask("cards", "remove every card from the readers", "remove cards")
                self.wait(RELEASE_MS, self._clear)
            self.ask(name, "place a card on this reader (%d s)" % (self.card_ms // 1000),
                     "card on", name)
            got = self.wait(self.card_ms, self._card)
            if got is None:
                self.result(name, False, "no card read in %d s: check the distance to the "
                            "antenna (table top), 3V3R at the reader and SCK/MOSI"
                            % (self.card_ms // 1000), name + " card")
            elif got != i:
                self.result(name, False, "the card was seen by the %s reader: are the "
                            "chip-selects of %s and %s swapped?"
                            % (self.names[got], name, self.names[got]), name + " card")
            else:
                self.card_ok[i] = 1
                self.result(name, True, "card %s read" % uid_hex(rs.uid(i)), name + " card")
            self.ask(name, "remove the card", "remove card")
            self.wait(RELEASE_MS, self._clear)

    # ----- the verdict ---------------------------------------------------------------

    def summary(self):
        failed = []
        for item, ok, _ in self.results:
            if not ok and item not in failed:
                failed.append(item)
        leds = self.board.leds
        for seat in range(leds.nseats):
            leds.set(seat, L.PLAYED if self.card_ok[seat] else L.REFUSED)
        leds.show()
        if failed:
            self.report("selftest: %d failed: %s" % (len(failed), ", ".join(failed)))
            self.prompt = ("%d FAILED" % len(failed), "")
        else:
            self.report("selftest: all ok")
            self.prompt = ("ALL OK", "")
        self.shown = failed[-4:] if failed else ["every part ok"]
        self.draw("")
        self.play(REJECT if failed else ACCEPT)

    def wait_ok(self):
        """Keep the verdict on the display until OK is pressed and let go (not when
        OK is stuck: then only the report has it)."""
        stuck = self.target
        if stuck & 4:
            return
        self.prompt = (self.prompt[0], "OK: continue")
        self.say("selftest", "press OK to continue")
        self.target = stuck | 3    # only OK counts
        got = self.wait(WAIT_OK_MS, self._pressed)
        self.target = stuck
        if got is not None:
            self._all_up(RELEASE_MS)
