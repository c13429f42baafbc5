"""Bring-up self-test: every part of the table is asked to show that it works.

    from bringup.selftest import run_selftest
    results = run_selftest(board, print)   # -> [(item, ok, detail), ...]

    from bringup.selftest import run_at_boot # main.py, after the board is made:
    run_at_boot(board)                     # the self-test if OK is held at power-up

``board`` is what firmware/boards/ builds (common.Board): ``readers`` (a
ReaderSet), ``display``, ``buttons``, ``leds``, ``buzzer``, ``ticks_ms``.
``report(line)`` gets one line per prompt and per result, ``"<item>: <text>"``
(the items: ``display``, ``spi bus``, ``3V3R``, ``seat 1`` .. ``seat N`` and
``centre`` for the readers, ``button prev|next|ok``, ``leds``, ``buzzer``),
results as ``"<item>: ok ..."`` / ``"<item>: FAIL ..."`` and the last line
``"selftest: all ok"`` or ``"selftest: N failed: ..."``.  The display shows the
same, shorter; without a display (none answers at 0x3C or 0x3D) the test runs
all the same on the report (the console), the LEDs and the buzzer.  The
steps, in order (hardware/README.md, "Bring-up"):

1. display: every pixel on, a checkerboard, a frame with diagonals (a display
   that does not acknowledge on I2C fails, and the test goes on without it);
2. SPI bus: with every chip-select high MISO must read 0x00 (every 74HC125
   gate off, the pull-down): anything else is a gate wired around, an /OE
   tied low or a missing pull-down;
3. readers: all re-initialised (shared reset), then each one's VersionReg:
   0x91/0x92 is an NXP MFRC522, 0x88, 0xB2, 0x12, 0x90 a clone that works
   (noted); 0x00 is a reader not connected (seat cable unplugged, no 3V3R);
   a value that changes from read to read a floating MISO (no pull-down at
   its 74HC125 input); one bit off a known value (0x82) a marginal wire; a
   chip that never leaves reset MISO stuck high.  No reader answering at all
   is the table supply (3V3R) being off;
4. buttons: all released first (OK may still be held from power-up; one still
   pressed after RELEASE_MS is stuck), then PREV, NEXT, OK asked for in turn;
   another button coming instead means swapped wires;
5. LEDs: each seat's LED red, green, blue in turn, then the person answers
   with a button: OK = all seen, NEXT = not, PREV = show again;
6. buzzer: four rising notes, answered the same way;
7. cards: a card asked for on each reader that answered; every reader is
   polled meanwhile and every reader that reads the card is named: the one
   asked for alone is right, others as well is a cross-read (readers too
   close), others only is swapped chip-selects; no card within ``card_ms``
   fails (range, supply, SPI);
8. range (``lift_mm``, 10 by default; 0 leaves it out): the card held that
   far above the play area (on a spacer) must still read, and lifted away it
   must be gone within RELEASE_MS.

At the end the seat LEDs show each seat reader's result (green/red) and the
buzzer the verdict.  Waiting uses ``sleep_ms`` (``time.sleep_ms`` on the
device; the simulator passes its virtual clock's) and the board's clock; a
clock that stands still still ends every wait (loops are counted too).
This runs once at bring-up, not in the game loop: it may allocate.  Its
sentences and display rows are the text store's (table/messages.py, ``t_`` and
``ts_``); the items, "ok"/"FAIL" and the short names are the report's words.
"""
import time

from drivers import leds as L
from drivers import mfrc522 as M
from drivers.buzzer import ACCEPT, REJECT
from drivers.ticks import ticks_diff
from table.messages import message as said

from .selftest_readers import RELEASE_MS, STEP_MS, CardCheck, chip_name, forms, version_fault

try:
    from micropython import const
except ImportError:  # CPython
    const = lambda x: x  # noqa: E731

_CARD_MS = const(20000)      # per reader, to put a card on it
_BUTTON_MS = const(10000)    # per button, and for an answer
_LED_MS = const(250)         # each colour of each LED
_PATTERN_MS = const(700)     # each display pattern
_TONE_MS = const(3000)       # longest a tone sequence may take
_CALM_STEPS = const(10)      # buttons count as released after this many steps (100 ms) up
WAIT_OK_MS = 120000  # wait_ok: the verdict stays this long at most
_LIFT_MM = const(10)         # the range check: a card this far above the play area reads
_REPLAYS = const(3)          # how often PREV may show the LEDs / play the notes again

SCALE = (523, 150, 659, 150, 784, 150, 1047, 300)   # C5 E5 G5 C6
KEYS = ("prev", "next", "ok")


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


def run_selftest(board, report, sleep_ms=None, card_ms=_CARD_MS, button_ms=_BUTTON_MS,
                 wait_ok=False, lift_mm=_LIFT_MM, readers=None):
    """Test every part of ``board``; results (item, ok, detail) in order.  Lines go
    to ``report`` and the display as the test goes.  With ``wait_ok`` the verdict
    stays on the display until OK is pressed (at most WAIT_OK_MS), as at boot.
    ``lift_mm``: the range check's height (0: no range check).  ``readers``: the
    indexes of the readers to test (None: all), for bring-up one at a time."""
    run = _Run(board, report, sleep_ms if sleep_ms is not None else _sleep_ms)
    if readers is not None:
        run.only = [i for i in readers if 0 <= i < board.readers.n]
    run.card_ms = card_ms
    run.button_ms = button_ms
    run.display()
    run.bus()
    good = run.readers()
    run.buttons()
    run.leds()
    run.buzzer()
    CardCheck(run).cards(good, lift_mm)
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
        self.card_ms = _CARD_MS
        self.button_ms = _BUTTON_MS
        self.results = []
        self.shown = []            # short result lines for the display
        self.disp = board.display  # None once it stopped answering
        self.disp_failed = False
        self.prompt = ("", "")
        self.names = reader_names(board.readers.n)
        self.card_ok = bytearray(board.readers.n)   # 1: the reader read its card
        self.target = 0            # buttons a wait ignores (bit k: button k)
        self.calm = 0              # steps every button has been up
        self.working = 0           # bit k: button k answered its press
        self.only = list(range(board.readers.n))   # the readers under test

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
            d.text_line(0, said("ts_title"), True)
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
            self.result("display", False, said("t_display_lost") % e, "display")

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
            waited = ticks_diff(ticks(), t0)
            if waited < loops * STEP_MS:   # a clock that stands still
                waited = loops * STEP_MS
            if waited >= ms:
                return None
            left = (ms - waited + 999) // 1000
            if left != shown and ms > 1000:
                shown = left
                self.draw(said("ts_seconds") % left)
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
            if not d.present:               # none answered at power-up: look again
                d.init_display()
            d.fill(1)                               # every pixel on
            d.show()
            self.pause(_PATTERN_MS)
            d.fill(0)                               # 8x8 checkerboard
            for y in range(0, d.height, 8):
                for x in range(0, d.width, 8):
                    if (x + y) & 8:
                        d.fill_rect(x, y, 8, 8, 1)
            d.show()
            self.pause(_PATTERN_MS)
            d.fill(0)                               # frame and diagonals
            d.rect(0, 0, d.width, d.height, 1)
            d.line(0, 0, d.width - 1, d.height - 1, 1)
            d.line(0, d.height - 1, d.width - 1, 0, 1)
            d.show()
            self.pause(_PATTERN_MS)
        except OSError as e:
            self._lost_display(e)
            return
        if d.found() == "SPI":
            self.result("display", True, said("t_display_spi"), "display")
        else:
            self.result("display", True, said("t_display_ok") % d.found(), "display")

    # ----- 2. the idle SPI bus -------------------------------------------------------

    def bus(self):
        """Every chip-select high: the shared MISO line must read 0x00."""
        rs = self.board.readers
        if not rs.n:
            return
        v = 0
        for _ in range(4):
            v |= rs.readers[0].idle_miso()
        if v == 0:
            self.result("spi bus", True, said("t_bus_ok"), "bus")
        else:
            self.result("spi bus", False, said("t_bus_fail") % v, "bus")

    # ----- 3. reader versions --------------------------------------------------------

    def readers(self):
        """VersionReg of every reader; the indexes of those that answered."""
        rs = self.board.readers
        self.ask("readers", *forms("t_reset"))
        rs.init()
        good = []
        silent = 0
        for i in self.only:
            name = self.names[i]
            rd = rs.readers[i]
            if not rs.down(i):
                self._version_ok(name, rd.version)
                good.append(i)
                continue
            detail, unplugged = version_fault(rd)
            silent += unplugged
            self.result(name, False, detail, name)
        if silent and silent == len(self.only):
            self.result("3V3R", False, said("t_no_supply"), "3V3R")
        return good

    def _version_ok(self, name, v):
        if M.version_kind(v) == M.V_GENUINE:
            self.result(name, True, said("t_genuine") % (chip_name(v), v), name)
        else:
            self.result(name, True, said("t_clone") % (chip_name(v), v), name)

    # ----- 4. buttons ----------------------------------------------------------------

    def _keys(self):
        pad = self.board.buttons
        return (pad.prev, pad.next, pad.ok)

    def _released(self):
        """True once every button (but the stuck ones) has been up for _CALM_STEPS
        polls: longer than the debounce, so a button held down is seen first."""
        self.board.buttons.poll()   # samples every button (events are not needed)
        keys = self._keys()
        for k in range(3):
            if keys[k].pressed and not self.target & (1 << k):
                self.calm = 0
                return None
        self.calm += 1
        return True if self.calm >= _CALM_STEPS else None

    def all_up(self, ms):
        self.calm = 0
        return self.wait(ms, self._released)

    def wait_for_ok(self, ms):
        """Wait up to ``ms`` for OK alone (the other buttons do not count); the
        button pressed (2) or None."""
        stuck = self.target
        self.target = stuck | 3            # only OK counts
        got = self.wait(ms, self._pressed)
        self.target = stuck
        return got

    def _pressed(self):
        self.board.buttons.poll()
        keys = self._keys()
        for k in range(3):
            if keys[k].pressed and not self.target & (1 << k):
                return k
        return None

    def buttons(self):
        self.target = 0            # bit k: button k is stuck (ignored from then on)
        self.ask("buttons", *forms("t_release"))
        if self.all_up(RELEASE_MS) is None:
            keys = self._keys()
            for k in range(3):
                if keys[k].pressed:
                    self.target |= 1 << k
        for k in range(3):
            item = "button " + KEYS[k]
            if self.target & (1 << k):
                self.result(item, False, said("t_stuck"), "btn " + KEYS[k])
                continue
            up = KEYS[k].upper()
            press = said("ts_press") % up
            self.ask(item, press, press)
            got = self.wait(self.button_ms, self._pressed)
            if got is None:
                self.result(item, False, said("t_no_press") % (self.button_ms // 1000),
                            "btn " + KEYS[k])
            elif got != k:
                self.result(item, False, said("t_swapped") % (
                    KEYS[got].upper(), up, KEYS[got].upper()), "btn " + KEYS[k])
            else:
                self.working |= 1 << k
                self.result(item, True, said("t_pressed"), "btn " + KEYS[k])
            self.all_up(RELEASE_MS)

    def confirm(self, item, question, short):
        """Ask the person: OK = yes, NEXT = no, PREV = once more.  "yes", "no",
        "again", or None (no answer; or no working OK and NEXT to answer with)."""
        if self.working & 6 != 6:     # OK and NEXT must have worked
            return None
        self.ask(item, said("t_confirm") % question, short + "?", said("ts_yes_no"))
        stuck = self.target
        got = self.wait(self.button_ms, self._pressed)
        self.target = stuck
        self.all_up(RELEASE_MS)
        return (None, "again", "no", "yes")[got + 1 if got is not None else 0]

    def judged(self, item, answer, yes, no, short):
        if answer == "yes":
            self.result(item, True, yes, short)
        elif answer == "no":
            self.result(item, False, no, short)
        elif self.working & 6 != 6:
            self.result(item, False, said("t_need_ok_next"), short)
        else:
            self.result(item, False, said("t_no_answer") % (self.button_ms // 1000), short)

    # ----- 5. LEDs -------------------------------------------------------------------

    def leds(self):
        leds = self.board.leds
        n = leds.nseats
        answer = "again"
        shows = 0
        while answer == "again" and shows < _REPLAYS:
            shows += 1
            self.ask("leds", *forms("t_leds"))
            for i in range(n):
                for state in (L.REFUSED, L.PLAYED, L.TURN):
                    leds.set_all(L.OFF)
                    leds.set(i, state)
                    leds.show()
                    self.pause(_LED_MS)
            leds.set_all(L.OFF)
            leds.show()
            question, short = forms("t_leds_q")
            answer = self.confirm("leds", question % n, short)
        self.judged("leds", answer, said("t_leds_ok") % n, said("t_leds_fail"), "LEDs")

    # ----- 6. buzzer -----------------------------------------------------------------

    def _tone_done(self):
        return None if self.board.buzzer.update() else True

    def play(self, seq):
        self.board.buzzer.play(seq)
        self.wait(_TONE_MS, self._tone_done)
        self.board.buzzer.stop()

    def buzzer(self):
        answer = "again"
        plays = 0
        while answer == "again" and plays < _REPLAYS:
            plays += 1
            self.ask("buzzer", *forms("t_buzzer"))
            self.play(SCALE)
            answer = self.confirm("buzzer", *forms("t_buzzer_q"))
        self.judged("buzzer", answer, said("t_buzzer_ok"), said("t_buzzer_fail"), "buzzer")

    # ----- the verdict ---------------------------------------------------------------

    def summary(self):
        failed = []
        for item, ok, _ in self.results:
            if not ok and item not in failed:
                failed.append(item)
        leds = self.board.leds
        for seat in range(leds.nseats):
            leds.set(seat, L.OFF if seat not in self.only
                     else L.PLAYED if self.card_ok[seat] else L.REFUSED)
        leds.show()
        if failed:
            line, row = forms("t_failed")
            self.say("selftest", line % (len(failed), ", ".join(failed)))
            self.prompt = (row % len(failed), "")
        else:
            line, row = forms("t_all_ok")
            self.say("selftest", line)
            self.prompt = (row, "")
        self.shown = failed[-4:] if failed else [said("ts_every_ok")]
        self.draw("")
        self.play(REJECT if failed else ACCEPT)

    def wait_ok(self):
        """Keep the verdict on the display until OK is pressed and let go (not when
        OK is stuck: then only the report has it)."""
        stuck = self.target
        if stuck & 4:
            return
        line, row = forms("t_continue")
        self.prompt = (self.prompt[0], row)
        self.say("selftest", line)
        if self.wait_for_ok(WAIT_OK_MS) is not None:
            self.all_up(RELEASE_MS)
