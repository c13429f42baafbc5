"""The fake board: the table's hardware without chip models, in CPython and
inside MicroPython (the unix and wasm ports: host_sim/vm/ is on their path).

Where host_sim/board.py has register-level chip models behind the real
drivers (CPython only; the VM bridges to them), this board is small fakes
under the same real drivers, for whoever needs the whole application quickly
or inside the VM's heap: the monkey's quick table (host_sim/monkey.py, with
the display, strip and buzzer models put in so it can read them), the
application's heap session (host_sim/vm/app_session.py: tests/mp/mptest_app_heap.py
and ``tapptable bench``) and the console's tests (tests/mp/console_fakes.py).

* ``Pad``: what lies on one reader (tags: anything with a ``uid``), unplugged
  or not -- the calls of host_sim's MFRC522 model a front door uses
  (``place``, ``remove``, ``disconnect``, ``reconnect``);
* ``FakeReaders``: what drivers/reader_set.py's ``ReaderSet`` gives the
  application, read straight from the pads at each poll: one tag PRESENT,
  two or more COLLISION, unplugged ERROR; allocates nothing;
* ``FakeI2C`` (swallows and counts the bytes), ``FakePin`` (a button to
  ground), ``FakeNeoPixel``, ``FakePWM``, ``Clock`` (ticks the caller moves);
* ``fake_board(...)``: the board (firmware/boards/common.py ``Board``) with
  the real SSD1306, ButtonPad, SeatLeds and Buzzer drivers on those fakes, or
  on whatever parts are given instead.
"""
# reader states, as drivers/reader_set.py reports them (table/presence.py)
ABSENT = 0
PRESENT = 1
COLLISION = 2
ERROR = 3
OTHER = 4             # a look (ReaderSet.wake): a card answered, not the one looked for
NO_UID = b""


class Sticker:
    """An NFC sticker: its ``uid`` (bytes)."""

    def __init__(self, uid):
        self.uid = uid


class Pad:
    """One reader's physical state: the tags lying on it, unplugged or not."""

    def __init__(self):
        self.tags = []
        self.down = False

    def place(self, *tags):
        for tag in tags:
            self.tags.append(tag)

    def remove(self, *tags):
        for tag in tags:
            if tag in self.tags:
                self.tags.remove(tag)

    def clear(self):
        self.tags = []

    def disconnect(self, **_kw):
        self.down = True

    def reconnect(self):
        self.down = False

    def uid(self):
        """The UID of the tag laid last, or None."""
        return self.tags[-1].uid if self.tags else None


class FakeReaders:
    """``n``, ``status``/``raw`` (one state per reader), ``uid_view(i)``/
    ``raw_uid_view(i)``, ``arm(i)``, ``poll(i)``, ``sweep(j, mask)`` and the diagnostics
    (``down``, ``faults``, ...): what the application and presence.feed use
    of a ReaderSet, over ``pads``."""

    def __init__(self, pads):
        self.pads = pads
        self.n = len(pads)
        self.raw = bytearray(self.n)
        self.status = bytearray(self.n)
        self.uids = [NO_UID] * self.n
        self.looks = bytearray(self.n)
        self.settle_us = 0                 # no field to settle
        self.keep_field = False
        self.ahead = 0                     # (ReaderSet.ahead: the fake's scan arms nothing)
        self.ahead_armed = 0
        self.ahead_at = 0

    def init(self):
        pass

    def arm(self, i):
        pass

    def poll(self, i):
        pad = self.pads[i]
        uid = NO_UID
        if pad.down:
            st = ERROR
        elif not pad.tags:
            st = ABSENT
        elif len(pad.tags) > 1:
            st = COLLISION
        else:
            st = PRESENT
            uid = pad.tags[0].uid
        self.raw[i] = st
        self.status[i] = st
        self.uids[i] = uid

    def wake(self, j, mask):
        """``looks[i]`` for the pads in ``mask``: is the card reader j read
        last there (ReaderSet.wake and select: PRESENT, ABSENT no card, OTHER
        another)?  The fake's looks are whole at once; the pads where a card
        answered."""
        i = 0
        while i < self.n:
            if mask >> i & 1:
                self.looks[i] = self._look(self.pads[i], self.uids[j])
            i += 1
        return self._answered(mask)

    def _answered(self, mask):
        """(Its own frame: MicroPython puts a frame of over 11 words on the heap.)"""
        live = 0
        i = 0
        while i < self.n:
            if mask >> i & 1 and (self.looks[i] == PRESENT or self.looks[i] == OTHER):
                live |= 1 << i
            i += 1
        return live

    def select(self, live):
        """(ReaderSet.select: nothing left to ask.)"""

    def _look(self, pad, uid):
        if pad.down:
            return ERROR
        if not pad.tags:
            return ABSENT
        return PRESENT if _lies_on(pad, uid) else OTHER

    def record(self, i, raw):
        """A look's result taken as pad i's scan (ReaderSet.record)."""
        self.raw[i] = raw
        self.status[i] = raw
        if raw != PRESENT:
            self.uids[i] = NO_UID

    def quiet(self, i):
        """(ReaderSet.quiet: the fake has no debounce.)"""
        return self.raw[i] == ABSENT and self.status[i] == ABSENT

    def confirming(self, i):
        """(ReaderSet.confirming: the fake reports a card at its first read.)"""
        return self.raw[i] == PRESENT

    def rest(self, i):
        pass

    def uid_view(self, i):
        return self.uids[i]

    def raw_uid_view(self, i):
        return self.uids[i]

    def down(self, i):
        return self.pads[i].down

    def faults(self, i):
        return 0

    def recoveries(self, i):
        return 0

    def errors(self, i):
        return 0


def _lies_on(pad, uid):
    """Does a tag with ``uid`` lie on ``pad``?  (No for-loop: its iterator's
    words would put the frame on the heap.)"""
    k = len(pad.tags)
    while k and len(uid):
        k -= 1
        if pad.tags[k].uid == uid:
            return True
    return False


class Clock:
    """ticks_ms(): the caller moves it (small ints, no allocation)."""

    def __init__(self):
        self.now = 0

    def __call__(self):
        return self.now


class FakeI2C:
    """machine.I2C's writeto/writevto: swallows and counts the bytes."""

    def __init__(self):
        self.bytes = 0
        self.transactions = 0

    def writeto(self, addr, buf, stop=True):
        self.transactions += 1
        self.bytes += len(buf)
        return len(buf) + 1

    def writevto(self, addr, vector, stop=True):
        self.transactions += 1
        i = 0
        while i < len(vector):
            self.bytes += len(vector[i])
            i += 1
        return 1


class FakePin:
    """A button to ground with a pull-up: 1 released, 0 pressed."""

    def __init__(self):
        self.level = 1

    def value(self):
        return self.level


class FakeNeoPixel:
    def __init__(self, n):
        self.buf = bytearray(3 * n)
        self.writes = 0

    def __setitem__(self, i, v):
        self.buf[3 * i] = v[1]
        self.buf[3 * i + 1] = v[0]
        self.buf[3 * i + 2] = v[2]

    def write(self):
        self.writes += 1


class FakePWM:
    def __init__(self):
        self.f = 0
        self.d = 0
        self.notes = 0

    def freq(self, f):
        self.f = f
        self.notes += 1

    def duty_u16(self, d):
        self.d = d


def fake_board(readers, ticks_ms, root, journal_flash=None, i2c=None, pins=None, strip=None,
               pwm=None, ticks_us=None):
    """The board on ``readers`` (a ``FakeReaders``) with the real drivers on
    ``i2c`` (the display's bus), the three button ``pins`` (prev, next, OK),
    the LED ``strip`` and the buzzer's ``pwm`` -- the fakes above where not
    given -- the clock ``ticks_ms``, the table's folder ``root`` and, where
    given, a µs clock for the display's pace (table/screens.py)."""
    from boards.common import Board
    from drivers import ssd1306
    from drivers.buttons import ButtonPad
    from drivers.buzzer import Buzzer
    from drivers.leds import SeatLeds
    seats = readers.n - 1
    pins = pins or (FakePin(), FakePin(), FakePin())
    return Board(readers, ssd1306.SSD1306(i2c or FakeI2C(), 0x3C),
                 ButtonPad(pins[0], pins[1], pins[2], ticks_ms),
                 SeatLeds(strip or FakeNeoPixel(seats), seats),
                 Buzzer(pwm or FakePWM(), ticks_ms), ticks_ms, root, journal_flash=journal_flash,
                 ticks_us=ticks_us)
