"""The self-test's readers (bringup/selftest.py): why one failed, and 7, 8 with a card.

3. (the words) a reader that failed its initialisation: no answer from reset,
   a floating MISO, nothing connected, one bit misread, an unknown chip;
7. cards: a card asked for on each reader that answered; every reader is
   polled meanwhile and every reader that reads the card is named: the one
   asked for alone is right, others as well is a cross-read (readers too
   close), others only is swapped chip-selects; no card within the run's
   ``card_ms`` fails (range, supply, SPI);
8. range (``lift_mm``; 0 leaves it out): the card held that far above the
   play area (on a spacer) must still read, and lifted away it must be gone
   within RELEASE_MS.

The sentences and the display's rows are the text store's (table/messages.py,
``t_`` and ``ts_``).
"""
from drivers import mfrc522 as M
from table.deck_file import uid_hex
from table.messages import message as said

try:
    from micropython import const
except ImportError:  # CPython
    const = lambda x: x  # noqa: E731

CHIPS = {0x91: "NXP MFRC522 v1.0", 0x92: "NXP MFRC522 v2.0", 0x88: "FM17522 clone",
         0xB2: "FM17522 clone", 0x12: "clone marked NXP", 0x90: "clone (v0.0)"}
_VERSION_READS = const(4)    # VersionReg reads of a reader that failed: floating MISO?
_CROSS_MS = const(600)       # after the first reader reads the card: who else reads it
_RANGE_MS = const(500)       # the range check: a card on the spacer reads within this time
RELEASE_MS = 3000    # buttons up, a card lifted away: within this time
STEP_MS = 10         # the wait loops' step


def forms(key):
    """The self-test's text ``key`` (table/messages.py): its report line, then
    the rows the display shows for it."""
    return said(key).split("|")


def chip_name(version):
    """A VersionReg value in words (the known chips, else the hex value)."""
    return CHIPS.get(version, "VersionReg 0x%02x" % version)


def version_fault(rd):
    """Why a reader failed its initialisation, in words, and whether it is
    not connected at all (True: nothing answers on its MISO)."""
    if not rd.reset():
        return said("t_no_reset"), False
    if rd.init(False):
        return said("t_second_try"), False
    reads = [rd.read_version() for _ in range(_VERSION_READS)]
    if any(r != reads[0] for r in reads):
        return said("t_floating") % ", ".join("0x%02x" % r for r in reads), True
    v = reads[0]
    kind = M.version_kind(v)
    if kind == M.V_NO_ANSWER:
        return said("t_silent") % v, True
    if kind == M.V_MISREAD:
        near = 0
        for k in M.VERSIONS:
            d = k ^ v
            if d & (d - 1) == 0:
                near = k
                break
        return said("t_misread") % (v, near, chip_name(near)), False
    return said("t_unknown_chip") % v, False


class CardCheck:
    """Steps 7 and 8 of the self-test ``run`` (its prompts, waits and results)."""

    def __init__(self, run):
        self.run = run
        self.testing = []          # readers in the card test
        self.seen = 0              # bit j: reader j read the card being asked for
        self.uid = b""             # that card's UID
        self.reader = 0            # the reader the range check looks at

    def _clear(self):
        """One poll of every reader; True when no reader under test sees anything, now
        (its last scan) and debounced (its reported state)."""
        rs = self.run.board.readers
        rs.poll_all()
        for i in self.testing:
            if rs.raw[i] != M.ABSENT or rs.status[i] != M.ABSENT:
                return None
        return True

    def _card(self):
        """One poll of every reader; once one under test reports a card: that UID."""
        rs = self.run.board.readers
        rs.poll_all()
        for i in self.testing:
            if rs.status[i] == M.PRESENT:
                self.uid = rs.uid(i)
                return i
        return None

    def _who(self):
        """One poll of every reader; every reader that reports the card joins ``seen``."""
        rs = self.run.board.readers
        rs.poll_all()
        for j in range(rs.n):
            if rs.status[j] == M.PRESENT and rs.uid(j) == self.uid:
                self.seen |= 1 << j
        return None

    def _here(self):
        """One poll of every reader: True when this scan of the reader ``reader``
        read a card (its own read now, not the debounced report, which would
        still hold a card that just left)."""
        rs = self.run.board.readers
        rs.poll_all()
        return True if rs.raw[self.reader] == M.PRESENT else None

    def _readers(self, mask):
        return " and ".join(self.run.names[j] for j in range(self.run.board.readers.n)
                            if mask & (1 << j))

    def cards(self, good, lift_mm):
        self.testing = good
        for i in good:
            name = self.run.names[i]
            if self.run.wait(STEP_MS, self._clear) is None:
                self.run.ask("cards", *forms("t_remove_all"))
                self.run.wait(RELEASE_MS, self._clear)
            line, row = forms("t_place")
            self.run.ask(name, line % (self.run.card_ms // 1000), row, name)
            self.seen = 0
            if self.run.wait(self.run.card_ms, self._card) is None:
                self.run.result(name, False, said("t_no_card") % (self.run.card_ms // 1000),
                                name + " card")
            else:
                self.run.wait(_CROSS_MS, self._who)      # whoever else reads it meanwhile
                self._card_result(i, name, lift_mm)
            self.run.ask(name, *forms("t_remove"))
            if self.run.wait(RELEASE_MS, self._clear) is None and self.run.card_ok[i]:
                self.run.card_ok[i] = 0
                self.run.result(name, False, said("t_still_read") % (RELEASE_MS // 1000),
                                name + " lift")

    def _card_result(self, i, name, lift_mm):
        me = 1 << i
        others = self.seen & ~me
        if self.seen == me:
            self.run.card_ok[i] = 1
            self.run.result(name, True, said("t_card_ok") % uid_hex(self.uid),
                            name + " card")
            if lift_mm:
                self._range(i, name, lift_mm)
        elif self.seen & me:
            self.run.result(name, False, said("t_cross") % (
                uid_hex(self.uid), self._readers(others)), name + " card")
        else:
            self.run.result(name, False, said("t_other_reader") % (
                self._readers(others), name, self._readers(others)), name + " card")

    def _range(self, i, name, mm):
        """The card on a spacer ``mm`` above the play area must still read: the
        person says when it lies there (OK), then the reader has _RANGE_MS."""
        line, row, row2 = forms("t_spacer")
        self.run.ask(name, line % (mm, mm * 3), row % mm, row2)
        if self.run.working & 4:
            pressed = self.run.wait_for_ok(self.run.button_ms)
            self.run.all_up(RELEASE_MS)
            if pressed is None:
                self.run.result(name, False, said("t_no_range_ok") % (self.run.button_ms // 1000),
                                name + " range")
                return
        else:                                  # no OK button: time to lay it there
            self.run.pause(RELEASE_MS)
        self.reader = i
        if self.run.wait(_RANGE_MS, self._here) is None:
            self.run.card_ok[i] = 0
            self.run.result(name, False, said("t_range_fail") % mm, name + " range")
        else:
            self.run.result(name, True, said("t_range_ok") % mm, name + " range")
