"""SSD1306 128x64 monochrome OLED over I2C or SPI, with page-wise dirty updates.

The bus is injected (``machine.I2C`` or ``machine.SPI`` and its pins on the
device, the host_sim models on the host); the driver never constructs it.
``SSD1306`` drives a panel on I2C, ``SSD1306Spi`` one in the 4-wire SPI mode
(datasheet 8.1.3: D/C# on a pin of its own, chip-select, reset): the same
picture, a page in 0.26 ms at the readers' 4 MHz instead of 2.9 ms at I2C's
400 kHz (docs/benchmarks.md: a new screen's 23 ms of I2C was half a press's
answer). Drawing goes through a
``framebuf.FrameBuffer`` (MONO_VLSB: one byte = 8 vertical pixels, bit 0 on top,
so display page p is ``buffer[128 * p : 128 * (p + 1)]``). On CPython, where
``framebuf`` does not exist, the pure-Python ``drivers.fbuf`` stands in.

``show()`` compares each page with a shadow copy of what the panel already
holds and sends only the changed pages: per run of adjacent changed pages one
command transaction (column and page window) and one data transaction.  Where
the drawing said which columns of a page it changed (``mark``: the screen's
rows, table/rows.py, mark the characters that changed), only those columns
go (rounded out to 8-column cells; a card's three characters: 24 bytes, not
128, 0.6 ms of the bus at 400 kHz instead of 2.9); the shadow then holds them,
so anything drawn outside the mark still differs and goes whole at the next
``show()``.  All buffers, memoryviews and vectors are made once in the
constructor, so ``show()`` allocates nothing (proved by tests/mp/mptest_display.py).

A display that does not answer never stops the table.  The constructor looks
for the panel at 0x3C, then 0x3D (the two addresses an SSD1306 module can be
strapped to, datasheet 8.1.5.1: SA0) and, finding none, does not raise: the
object is made all the same (``present`` is False, ``addr`` the first address),
drawing goes into the buffer as usual, and ``show()`` raises ``OSError`` as it
does for a display that stopped answering -- the application's answer to that
(tried again every second with ``init_display``, which looks at both addresses
again) covers a display connected late, one at 0x3D, one with SDA and SCL
swapped (no address answers) or none at all.  ``found()`` names what answered.
A panel on SPI cannot answer (the bus has no acknowledge): it counts as there.

Command references are to the Solomon Systech SSD1306 datasheet rev 1.1,
section 10 ("Command Descriptions") and table 9-1 ("Command Table").
"""

try:
    from micropython import const
except ImportError:  # CPython
    const = lambda x: x  # noqa: E731


try:
    import framebuf
except ImportError:  # CPython: the pure-Python subset
    from . import fbuf as framebuf  # type: ignore[no-redef]

_WIDTH = const(128)
_HEIGHT = const(64)
_PAGES = const(8)
_BUF_SIZE = const(1024)  # _WIDTH * _PAGES
_DEFAULT_ADDR = const(0x3C)
_CELLS = const(16)  # 8-column cells of a page: what a marked span is rounded to
_SPAN_MAX = const(11)  # cells: a wider mark sends the whole page (one transaction less)
ADDRESSES = (0x3C, 0x3D)  # SA0 low / high: every SSD1306 module is at one of these

# Control byte (datasheet 8.1.5.2): Co (bit 7) = another control byte follows
# after one data byte; D/C# (bit 6) = 1 for GDDRAM data, 0 for commands.
_CTRL_CMD = const(0x00)  # Co=0, D/C#=0: the rest of the transaction is commands
_CTRL_DATA = const(0x40)  # Co=0, D/C#=1: the rest of the transaction is data

# Fundamental commands (10.1)
_SET_CONTRAST = const(0x81)  # 10.1.7, + 1 byte 0..255
_DISPLAY_RAM = const(0xA4)  # 10.1.8, follow RAM (0xA5 = all pixels on)
_SET_NORMAL = const(0xA6)  # 10.1.9, 0xA7 = inverse
_SET_INVERT = const(0xA7)
_DISPLAY_OFF = const(0xAE)  # 10.1.12, sleep mode (RAM kept)
_DISPLAY_ON = const(0xAF)
# Addressing (10.1.3 - 10.1.5)
_SET_MEM_MODE = const(0x20)  # + 0 horizontal, 1 vertical, 2 page
_SET_COL_ADDR = const(0x21)  # + start, end column
_SET_PAGE_ADDR = const(0x22)  # + start, end page
# Hardware configuration (10.1.6, 10.1.14 - 10.1.19)
_SET_START_LINE = const(0x40)  # 10.1.6, | line 0..63
_SET_SEG_REMAP = const(0xA0)  # 10.1.12, | 1: column 127 mapped to SEG0
_SET_MUX_RATIO = const(0xA8)  # 10.1.11, + mux - 1
_SET_COM_SCAN_DEC = const(0xC8)  # 10.1.14, scan COM[N-1] -> COM0
_SET_DISP_OFFSET = const(0xD3)  # 10.1.15, + offset
_SET_COM_PINS = const(0xDA)  # 10.1.18, + 0x12 alternative COM config (64 rows)
# Timing and driving (10.1.16, 10.1.17, 10.1.19)
_SET_CLK_DIV = const(0xD5)  # + (osc freq << 4) | (divide - 1)
_SET_PRECHARGE = const(0xD9)  # + (phase2 << 4) | phase1
_SET_VCOM_DESEL = const(0xDB)  # + level (0x30 ~ 0.83 Vcc)
# Charge pump (application note, "Charge Pump Command Table")
_SET_CHARGE_PUMP = const(0x8D)  # + 0x14 enable (internal Vcc), 0x10 disable
_DEACTIVATE_SCROLL = const(0x2E)  # 10.2.3

_INIT = (
    _DISPLAY_OFF,
    _SET_MEM_MODE, 0x00,  # horizontal addressing: the window wraps page to page
    _SET_START_LINE | 0,
    _SET_SEG_REMAP | 1,
    _SET_MUX_RATIO, _HEIGHT - 1,
    _SET_COM_SCAN_DEC,
    _SET_DISP_OFFSET, 0x00,
    _SET_COM_PINS, 0x12,
    _SET_CLK_DIV, 0x80,
    _SET_PRECHARGE, 0xF1,  # internal Vcc
    _SET_VCOM_DESEL, 0x30,
    _SET_CONTRAST, 0x7F,
    _DISPLAY_RAM,
    _SET_NORMAL,
    _SET_CHARGE_PUMP, 0x14,
    _DEACTIVATE_SCROLL,
    _DISPLAY_ON,
)


class SSD1306:
    """128x64 SSD1306 on an injected I2C bus (``writeto``/``writevto``).

    ``addr``: where to look first (the other address of ADDRESSES is tried
    too); ``present`` tells whether the panel answered the last
    ``init_display``."""

    def __init__(self, i2c, addr=_DEFAULT_ADDR, external_vcc=False):
        self.i2c = i2c
        self.addr = addr
        self.addrs = (addr,) + tuple(a for a in ADDRESSES if a != addr)
        self.present = False
        self.width = _WIDTH
        self.height = _HEIGHT
        self.external_vcc = external_vcc
        self.buffer = bytearray(_BUF_SIZE)
        self.fb = framebuf.FrameBuffer(self.buffer, _WIDTH, _HEIGHT, framebuf.MONO_VLSB)
        self._shadow = bytearray(_BUF_SIZE)  # what the panel's GDDRAM holds
        mv = memoryview(self.buffer)
        sv = memoryview(self._shadow)
        self._pages = [mv[p * _WIDTH:(p + 1) * _WIDTH] for p in range(_PAGES)]
        self._spages = [sv[p * _WIDTH:(p + 1) * _WIDTH] for p in range(_PAGES)]
        # one vector per run length n: [data control byte, page, page + 1, ...]
        self._ctrl_data = bytes((_CTRL_DATA,))
        self._vecs = [[self._ctrl_data] * (n + 1) for n in range(_PAGES + 1)]
        # [control, 0x21, 0, 127, 0x22, first page, last page]
        self._win = bytearray((_CTRL_CMD, _SET_COL_ADDR, 0, _WIDTH - 1, _SET_PAGE_ADDR, 0, 0))
        # a marked span's data: [data control byte, its columns], sent by length in cells
        self._tx = bytearray(1 + _WIDTH)
        self._tx[0] = _CTRL_DATA
        mt = memoryview(self._tx)
        self._txv = [mt[:1 + 8 * n] for n in range(_CELLS + 1)]
        self._marks = bytearray(2 * _PAGES)  # per page: first and last column marked
        self._marked = 0  # pages with a mark (bits)
        self._cmd1 = bytearray(2)  # [control, command]
        self._cmd2 = bytearray(3)  # [control, command, argument]
        # each command buffer bare too (no control byte), what a panel on SPI
        # takes: the one-byte command's, the argument's, the window's
        self._bare = (memoryview(self._cmd1)[1:], memoryview(self._cmd2)[1:],
                      memoryview(self._win)[1:])
        self._force = 0xFF  # pages the panel must get (its RAM is unknown: all)
        self.powered = False
        self.inverted = False
        self.contrast_level = 0x7F
        try:
            self.init_display()
        except OSError:     # no panel answers: the table runs without it (module doc)
            pass

    def found(self):
        """What the last ``init_display`` found: "0x3c" / "0x3d", or "" for none."""
        return "0x%02x" % self.addr if self.present else ""

    # ------------------------------------------------------------ commands

    def write_cmd(self, cmd):
        b = self._cmd1
        b[0] = _CTRL_CMD
        b[1] = cmd
        self.write(b, self._bare[0])

    def write_cmd_arg(self, cmd, arg):
        b = self._cmd2
        b[0] = _CTRL_CMD
        b[1] = cmd
        b[2] = arg
        self.write(b, self._bare[1])

    # ------------------------------------------------------------ the wire
    # Each buffer comes twice: ``buf``, its I2C control byte first (datasheet
    # 8.1.5.2: 0x00 commands, 0x40 data), and ``data``, a view of the same
    # bytes without it (on SPI the D/C# pin says what they are).  Made once:
    # nothing here allocates.

    def write(self, buf, data):
        """One transaction: commands or data, as ``buf``'s control byte says."""
        self.i2c.writeto(self.addr, buf)

    def writevto(self, v, n):
        """n whole pages: ``v`` is [the data control byte, page, page, ...]."""
        self.i2c.writevto(self.addr, v)

    def init_display(self, clear=True):
        """Send the power-up sequence (one transaction) and clear the panel
        (``clear=False``: send it the picture in the buffer instead, e.g. after a
        loose wire, when the panel may have lost power and its memory)."""
        seq = bytearray(len(_INIT) + 1)
        seq[0] = _CTRL_CMD
        for i, c in enumerate(_INIT):
            seq[i + 1] = c
        if self.external_vcc:
            seq[_INIT.index(_SET_PRECHARGE) + 2] = 0x22
            seq[_INIT.index(_SET_CHARGE_PUMP) + 2] = 0x10
        bare = memoryview(seq)[1:]
        self.present = False
        err = None
        for a in self.addrs:        # the given address first, then the other
            self.addr = a
            try:
                self.write(seq, bare)
            except OSError as e:
                err = e
                continue
            self.present = True
            break
        if not self.present:
            self.addr = self.addrs[0]
            raise err if err is not None else OSError(19)
        self.powered = True
        self.inverted = False
        self.contrast_level = 0x7F
        if clear:
            self.fb.fill(0)
        self._force = 0xFF
        self.show()

    def poweroff(self):
        """Display off (sleep; GDDRAM is kept, about 10 uA)."""
        self.write_cmd(_DISPLAY_OFF)
        self.powered = False

    def poweron(self):
        self.write_cmd(_DISPLAY_ON)
        self.powered = True

    def power_save(self, on):
        if on:
            self.poweroff()
        else:
            self.poweron()

    def contrast(self, level):
        level = 0 if level < 0 else (255 if level > 255 else level)
        self.write_cmd_arg(_SET_CONTRAST, level)
        self.contrast_level = level

    def invert(self, on):
        self.write_cmd(_SET_INVERT if on else _SET_NORMAL)
        self.inverted = bool(on)

    # ------------------------------------------------------------ updates

    def mark(self, page, x0, x1):
        """Columns x0..x1 of ``page`` were drawn anew: ``show()`` sends only
        those columns of it (an ``or`` of the marks since the last show)."""
        m = self._marks
        k = page << 1
        if self._marked >> page & 1:
            if x0 < m[k]:
                m[k] = x0
            if x1 > m[k + 1]:
                m[k + 1] = x1
        else:
            m[k] = x0
            m[k + 1] = x1
            self._marked |= 1 << page

    def dirty_pages(self):
        """Bit mask of the pages that differ from the panel (bit p = page p)."""
        mask = self._force
        pages = self._pages
        spages = self._spages
        p = 0
        while p < _PAGES:
            if pages[p] != spages[p]:
                mask |= 1 << p
            p += 1
        return mask

    def show(self, full=False, limit=_PAGES):
        """Send the changed pages, at most ``limit`` of them (the rest stay dirty
        for the next call: the application sends two pages a step, so no step
        holds the loop for a whole frame); return how many were sent.

        Few locals on purpose: MicroPython puts a call's frame on the heap when
        it holds more than about 11 words, and show() must not allocate.
        """
        if full:
            self._force = 0xFF
        sent = 0
        p = 0
        while p < _PAGES and sent < limit:
            if not self._dirty(p):
                p += 1
            elif self._narrow(p):
                self._send_span(p)
                sent += 1
                p += 1
            else:
                q = p + 1  # extend the run over adjacent changed pages
                while q < _PAGES and q - p + sent < limit and self._dirty(q) \
                        and not self._narrow(q):
                    q += 1
                self._send(p, q)
                sent += q - p
                p = q
        return sent

    def _narrow(self, p):
        """Page p has a mark narrower than the page (and the panel's RAM is known)."""
        if not self._marked >> p & 1 or self._force >> p & 1:
            return False
        k = p << 1
        return (self._marks[k + 1] >> 3) - (self._marks[k] >> 3) < _SPAN_MAX

    def _send_span(self, p):
        """The marked cells of page p: their window, then their columns."""
        n = self._span_window(p) << 3
        self.write(self._win, self._bare[2])
        x = self._win[2]
        self._span_out(p, x, n)
        self.write(self._txv[n >> 3], None)     # (never on SPI: SSD1306Spi._narrow)
        self._span_kept(p, x, n)  # the panel holds them now (not before: see _send)
        self._marked &= ~(1 << p)

    def _span_window(self, p):
        """The window of page p's marked cells set in the command; how many cells."""
        k = p << 1
        x = self._marks[k] & 0xF8
        n = (self._marks[k + 1] >> 3) - (x >> 3) + 1
        v = self._win
        v[2] = x
        v[3] = x + (n << 3) - 1
        v[5] = p
        v[6] = p
        return n

    def _span_out(self, p, x, n):
        src = self._pages[p]
        tx = self._tx
        i = 0
        while i < n:
            tx[i + 1] = src[x + i]
            i += 1

    def _span_kept(self, p, x, n):
        dst = self._spages[p]
        tx = self._tx
        i = 0
        while i < n:
            dst[x + i] = tx[i + 1]
            i += 1

    def _dirty(self, p):
        return self._force >> p & 1 or self._pages[p] != self._spages[p]

    def _send(self, first, end):
        """Pages first..end-1: the window command, then the data in one transaction."""
        v = self._win
        v[2] = 0
        v[3] = _WIDTH - 1
        v[5] = first
        v[6] = end - 1
        self.write(v, self._bare[2])
        v = self._vecs[end - first]
        i = first
        while i < end:
            v[i - first + 1] = self._pages[i]
            i += 1
        self.writevto(v, end - first)
        i = first  # the panel holds these pages now (not before: a bus error keeps them dirty)
        while i < end:
            self._spages[i][:] = self._pages[i]
            self._force &= ~(1 << i)
            self._marked &= ~(1 << i)
            i += 1

    # ------------------------------------------------------------ drawing

    def fill(self, c):
        self.fb.fill(c)

    def pixel(self, x, y, c=None):
        if c is None:
            return self.fb.pixel(x, y)
        self.fb.pixel(x, y, c)
        return None

    def text(self, s, x, y, c=1):
        self.fb.text(s, x, y, c)

    def fill_rect(self, x, y, w, h, c):
        self.fb.fill_rect(x, y, w, h, c)

    def rect(self, x, y, w, h, c):
        self.fb.rect(x, y, w, h, c)

    def hline(self, x, y, w, c):
        self.fb.hline(x, y, w, c)

    def vline(self, x, y, h, c):
        self.fb.vline(x, y, h, c)

    def line(self, x1, y1, x2, y2, c):
        self.fb.line(x1, y1, x2, y2, c)

    def text_line(self, row, s, invert=False):
        """Clear text row ``row`` (0..7, one display page) and write ``s`` on it."""
        # (no extra locals: a larger frame would be heap-allocated on MicroPython)
        self.fb.fill_rect(0, row << 3, _WIDTH, 8, 1 if invert else 0)
        self.fb.text(s, 0, row << 3, 0 if invert else 1)


class SSD1306Spi(SSD1306):
    """The panel in its 4-wire SPI mode (datasheet 8.1.3; a module's BS pins or
    jumpers set it): ``bus`` a ``machine.SPI`` in mode 0 (it may be the
    readers' bus: the panel listens only while its chip-select is low and never
    drives MISO), ``pins`` its (CS, D/C#, RES#) output pins; ``sleep_us`` times
    the reset pulse.  The panel is reset and set up here; ``found()`` says
    "SPI" (the bus cannot tell whether a panel listens: ``present`` is True)."""

    def __init__(self, bus, pins, sleep_us, external_vcc=False):
        self.bus = bus
        self.pins = pins
        pins[0](1)
        res = pins[2]
        res(1)
        sleep_us(10)
        res(0)              # RES# low at least 3 us (datasheet 8.9), then the init
        sleep_us(10)
        res(1)
        sleep_us(10)
        super().__init__(None, external_vcc=external_vcc)

    def found(self):
        return "SPI" if self.present else ""

    def _narrow(self, p):
        """Every changed page goes whole: on SPI a page is 0.26 ms at 4 MHz,
        less than a marked span's bytes copied in and out in bytecode (a new
        screen's spans held the display's step 6 ms on the Pico)."""
        return False

    def write(self, buf, data):
        pins = self.pins
        pins[1](buf[0])     # D/C#: the control byte's D/C# bit (0x40) -- high for data
        pins[0](0)
        self.bus.write(data)
        pins[0](1)

    def writevto(self, v, n):
        pins = self.pins
        pins[1](1)
        pins[0](0)
        i = 1
        while i <= n:
            self.bus.write(v[i])
            i += 1
        pins[0](1)
