"""The SSD1306 driver under real MicroPython (the C ``framebuf``), on a fake I2C.

Proves design principle 4 (docs/design.md) for the display path: ``show()`` with nothing
changed and with one dirty page allocates nothing (``micropython.heap_lock()``
around zero-argument closures), and counts the I2C bytes of a full and of a
one-page update. The polled input/output drivers (buttons, seat LEDs, buzzer)
are checked the same way. Runs unchanged under CPython (nothing is locked there).
"""
from drivers import buttons, buzzer, leds, ssd1306

try:
    import micropython
except ImportError:  # CPython
    micropython = None


class CountingI2C:
    """machine.I2C's writeto/writevto: counts transactions and bytes, keeps the
    last command window and the first data byte count; allocates nothing."""

    def __init__(self):
        self.transactions = 0
        self.bytes = 0
        self.last = None

    def writeto(self, addr, buf, stop=True):
        self.transactions += 1
        self.bytes += len(buf)
        self.last = buf
        return len(buf) + 1

    def writevto(self, addr, vector, stop=True):
        self.transactions += 1
        i = 0  # (no for loop, few locals: keeps this frame off the heap)
        while i < len(vector):
            self.bytes += len(vector[i])
            i += 1
        return 1

    def reset(self):
        self.transactions = 0
        self.bytes = 0


def _mem_total():
    f = getattr(micropython, "mem_total", None) if micropython is not None else None
    return f() if f is not None else None


def _locked(fn):
    """Run a zero-argument closure with the heap locked (MicroPython) and check
    that it allocated nothing.

    The lock alone can lie: a call whose frame is too big for the C stack slot
    goes on the heap normally but onto the C stack while the heap is locked. The
    unix port's mem_total() still counts that attempt, so its delta is checked too
    (the wasm port has no mem_total).
    """
    before = _mem_total()
    if micropython is not None:
        micropython.heap_lock()
    try:
        res = fn()
    finally:
        if micropython is not None:
            micropython.heap_unlock()
    after = _mem_total()
    if before is not None:
        assert after == before, "allocated %d bytes" % (after - before)
    return res


def _new():
    i2c = CountingI2C()
    oled = ssd1306.SSD1306(i2c)
    return i2c, oled


def test_init_and_full_update_bytes():
    i2c, oled = _new()
    assert i2c.transactions == 3, i2c.transactions
    i2c.reset()
    oled.fill(1)
    assert oled.show(full=True) == 8
    assert i2c.transactions == 2 and i2c.bytes == 7 + 1025, (i2c.transactions, i2c.bytes)
    print("  full update: %d transactions, %d bytes" % (i2c.transactions, i2c.bytes))


def test_show_without_change_allocates_nothing():
    i2c, oled = _new()
    oled.text_line(0, "Tapp")
    oled.show()
    i2c.reset()
    res = [0]

    def go():
        res[0] = oled.show()

    _locked(go)
    assert res[0] == 0 and i2c.transactions == 0


def test_show_one_dirty_page_allocates_nothing():
    i2c, oled = _new()
    oled.text_line(0, "Tapp  Runde 3")
    oled.show()
    oled.text_line(3, "Farbe bedienen!")  # drawing is done before locking
    i2c.reset()
    res = [0]

    def go():
        res[0] = oled.show()

    _locked(go)
    assert res[0] == 1, res[0]
    assert i2c.transactions == 2 and i2c.bytes == 7 + 129, (i2c.transactions, i2c.bytes)
    assert i2c.last[4:7] == b"\x22\x03\x03"
    print("  one dirty page: %d transactions, %d bytes" % (i2c.transactions, i2c.bytes))


def test_a_marked_span_shows_without_allocating():
    # a row's changed characters (table/rows.py marks them): only their cells go
    i2c, oled = _new()
    oled.text_line(2, "Cora           -")
    oled.show()
    oled.text_line(2, "Cora         H10")
    i2c.reset()
    res = [0]

    def go():
        oled.mark(2, 104, 127)
        res[0] = oled.show()

    _locked(go)
    assert res[0] == 1, res[0]
    assert i2c.transactions == 2 and i2c.bytes == 7 + 25, (i2c.transactions, i2c.bytes)
    assert oled.dirty_pages() == 0
    print("  one marked span: %d transactions, %d bytes" % (i2c.transactions, i2c.bytes))


def test_drawing_a_text_line_and_showing_allocates_nothing():
    # the C framebuf draws without allocating too; a string constant is not allocated
    i2c, oled = _new()

    def go():
        oled.text_line(5, "Stich: Sitz 2")
        return oled.show()

    assert _locked(go) == 1


def test_contrast_invert_power_allocate_nothing():
    i2c, oled = _new()

    def go():
        oled.contrast(200)
        oled.invert(True)
        oled.invert(False)
        oled.power_save(True)
        oled.power_save(False)

    i2c.reset()
    _locked(go)
    assert i2c.transactions == 5 and i2c.bytes == 3 + 4 * 2


class CountingSPI:
    """machine.SPI's write: counts writes and bytes; allocates nothing."""

    def __init__(self):
        self.writes = 0
        self.bytes = 0

    def write(self, buf):
        self.writes += 1
        self.bytes += len(buf)


class OutPin:
    """machine.Pin as an output: ``pin(v)`` sets it; counts the falls (chip-selects)."""

    def __init__(self):
        self.level = 1
        self.falls = 0

    def __call__(self, v):
        if self.level and not v:
            self.falls += 1
        self.level = v


def _new_spi():
    spi, cs, dc, res = CountingSPI(), OutPin(), OutPin(), OutPin()
    oled = ssd1306.SSD1306Spi(spi, (cs, dc, res), lambda us: None)
    assert res.falls == 1 and cs.level == 1
    return spi, cs, oled


def test_the_panel_on_spi_shows_without_allocating():
    # on SPI a marked page goes whole too (cheaper than copying its span); no control bytes
    spi, cs, oled = _new_spi()
    oled.text_line(2, "Cora           -")
    oled.text_line(4, "Tapp  Runde 3")
    oled.show()
    oled.text_line(2, "Cora         H10")
    oled.text_line(5, "Stich: Sitz 2")
    spi.writes = spi.bytes = cs.falls = 0
    res = [0]

    def go():
        oled.mark(2, 104, 127)
        res[0] = oled.show()

    _locked(go)
    assert res[0] == 2, res[0]
    # pages 2 and 5 (not adjacent): a window (6 bytes) and 128 bytes each
    assert cs.falls == 4 and spi.bytes == 2 * (6 + 128), (cs.falls, spi.bytes)
    assert oled.dirty_pages() == 0 and cs.level == 1
    print("  on SPI: %d chip-selects, %d bytes" % (cs.falls, spi.bytes))


class FakePin:
    def __init__(self):
        self.level = 1

    def value(self):
        return self.level


class Clock:
    def __init__(self):
        self.now = 0

    def __call__(self):
        return self.now


def test_button_poll_allocates_nothing():
    clk = Clock()
    p, n, o = FakePin(), FakePin(), FakePin()
    pad = buttons.ButtonPad(p, n, o, clk)
    got = [0, 0, 0]

    def go():
        k = 0
        while k < 100:  # press OK at 10 ms, release at 160 ms
            clk.now += 2
            if clk.now == 10:
                o.level = 0
            elif clk.now == 160:
                o.level = 1
            ev = pad.poll()
            if ev:
                got[0] += 1
                got[1] = ev
            k += 1

    _locked(go)
    assert got[0] == 1 and got[1] == buttons.OK_SHORT, got


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


def test_seat_leds_allocate_nothing():
    np = FakeNeoPixel(4)
    sl = leds.SeatLeds(np, 4, brightness=255)

    def go():
        sl.set_all(leds.IDLE)
        sl.set(1, leds.TURN)
        sl.set(2, leds.REFUSED)
        sl.show()
        sl.show()  # unchanged: no write

    _locked(go)
    assert np.writes == 1
    assert np.buf[3:6] == bytes((0, 0, 255)) and np.buf[6:9] == bytes((0, 255, 0))


class FakePWM:
    def __init__(self):
        self.f = 0
        self.d = 0
        self.changes = 0

    def freq(self, f):
        self.f = f
        self.changes += 1

    def duty_u16(self, d):
        self.d = d
        self.changes += 1


def test_buzzer_allocates_nothing():
    clk = Clock()
    pwm = FakePWM()
    bz = buzzer.Buzzer(pwm, clk)
    res = [0]

    def go():
        bz.play(buzzer.TRICK_WON)
        k = 0
        while bz.update() and k < 1000:
            clk.now += 10
            k += 1
        res[0] = clk.now

    _locked(go)
    assert pwm.d == 0 and res[0] == 260, res[0]
