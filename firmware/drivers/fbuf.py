"""Pure-Python stand-in for MicroPython's ``framebuf`` (host/CPython only).

Only what the firmware uses: ``FrameBuffer`` in ``MONO_VLSB`` format with
``fill``, ``pixel``, ``hline``, ``vline``, ``rect``, ``fill_rect``, ``line``,
``text`` (the same 8x8 font as MicroPython's built-in one, so text renders
byte-identically on the host and on the device) and ``scroll``.

On the device ``drivers.ssd1306`` imports the real ``framebuf`` (C code);
this module is the fallback when ``import framebuf`` fails.
"""

MONO_VLSB = 0
MVLSB = MONO_VLSB

# 8x8 glyphs for chr(32)..chr(127), 8 column bytes each, bit 0 = top row.
# Dumped from MicroPython's framebuf.text() (font_petme128_8x8, MIT licence).
FONT = bytes.fromhex(
    "00000000000000000000004f4f0000000007070000070700147f7f14147f7f1400242e6b6b3a1200006333180c666300"
    "00327f4d4d777250000000040603010000001c3e63410000000041633e1c0000082a3e1c1c3e2a080008083e3e080800"
    "000080e0600000000008080808080800000000606000000000406030180c0602003e7f49457f3e000040447f7f404000"
    "00627351494f460000226349497f360000181814167f7f1000276745457d3900003e7f49497b3200000303797d070300"
    "00367f49497f360000266f49497f3e000000002424000000000080e46400000000081c36634141000014141414141400"
    "00414163361c080000020351590f0600003e7f414d4f2e00007c7e0b0b7e7c00007f7f49497f3600003e7f4141632200"
    "007f7f41633e1c00007f7f4949414100007f7f0909010100003e7f41497b3a00007f7f08087f7f000000417f7f410000"
    "002060417f3f0100007f7f1c36634100007f7f4040404000007f7f060c067f7f007f7f0e1c7f7f00003e7f41417f3e00"
    "007f7f09090f0600001e3f21617f5e00007f7f19396f460000266f49497b32000001017f7f010100003f7f40407f3f00"
    "001f3f60603f1f00007f7f3018307f7f0063771c1c77630000070f78780f0700006171594d47430000007f7f41410000"
    "0002060c18306040000041417f7f000000080c06060c0800c0c0c0c0c0c0c0c0000001030604000000207454547c7800"
    "007f7f44447c380000387c44446c280000387c44447f7f0000387c54545c580000087e7f090302000098bca4a4fc7c00"
    "007f7f04047c78000000007d7d0000000040c08080fd7d00007f7f30386c44000000417f7f400000007c7c1830187c7c"
    "007c7c04047c780000387c44447c380000fcfc24243c180000183c2424fcfc00007c7c04040c080000485c5454742000"
    "04043f7f44642000003c7c40407c3c00001c3c60603c1c00001c7c3018307c1c00446c38386c4400009cbca0a0fc7c00"
    "004464745c4c44000008083e77414100000000ffff000000004141773e0808000002030103020301aa55aa55aa55aa55"
)


class FrameBuffer:
    """A 1-bit frame buffer over a caller-owned buffer, vertical bytes (MONO_VLSB)."""

    def __init__(self, buf, width, height, fmt=MONO_VLSB, stride=None):
        if fmt != MONO_VLSB:
            raise ValueError("fbuf supports MONO_VLSB only")
        self.buf = buf
        self.width = width
        self.height = height
        self.stride = width if stride is None else stride
        if len(buf) < ((height + 7) // 8) * self.stride:
            raise ValueError("buffer too small")

    def pixel(self, x, y, c=None):
        if not (0 <= x < self.width and 0 <= y < self.height):
            return None
        i = (y >> 3) * self.stride + x
        bit = 1 << (y & 7)
        if c is None:
            return 1 if self.buf[i] & bit else 0
        if c:
            self.buf[i] |= bit
        else:
            self.buf[i] &= ~bit & 0xFF
        return None

    def fill_rect(self, x, y, w, h, c):
        x0 = max(x, 0)
        y0 = max(y, 0)
        x1 = min(x + w, self.width)
        y1 = min(y + h, self.height)
        for yy in range(y0, y1):
            i = (yy >> 3) * self.stride
            bit = 1 << (yy & 7)
            if c:
                for xx in range(x0, x1):
                    self.buf[i + xx] |= bit
            else:
                nb = ~bit & 0xFF
                for xx in range(x0, x1):
                    self.buf[i + xx] &= nb

    def fill(self, c):
        v = 0xFF if c else 0
        n = ((self.height + 7) // 8) * self.stride
        for i in range(n):
            self.buf[i] = v

    def hline(self, x, y, w, c):
        self.fill_rect(x, y, w, 1, c)

    def vline(self, x, y, h, c):
        self.fill_rect(x, y, 1, h, c)

    def rect(self, x, y, w, h, c, f=False):
        if f:
            self.fill_rect(x, y, w, h, c)
            return
        self.fill_rect(x, y, w, 1, c)
        self.fill_rect(x, y + h - 1, w, 1, c)
        self.fill_rect(x, y, 1, h, c)
        self.fill_rect(x + w - 1, y, 1, h, c)

    def line(self, x1, y1, x2, y2, c):
        # Bresenham, both end points drawn
        dx = abs(x2 - x1)
        dy = -abs(y2 - y1)
        sx = 1 if x1 < x2 else -1
        sy = 1 if y1 < y2 else -1
        err = dx + dy
        while True:
            self.pixel(x1, y1, c)
            if x1 == x2 and y1 == y2:
                return
            e2 = 2 * err
            if e2 >= dy:
                err += dy
                x1 += sx
            if e2 <= dx:
                err += dx
                y1 += sy

    def text(self, s, x, y, c=1):
        # like the C framebuf: one glyph per UTF-8 byte, non-ASCII bytes as chr(127)
        for code in s.encode("utf-8") if isinstance(s, str) else s:
            if code < 32 or code > 127:
                code = 127
            base = (code - 32) * 8
            for j in range(8):
                col = FONT[base + j]
                xx = x + j
                if 0 <= xx < self.width:
                    for bit in range(8):
                        if col & (1 << bit):
                            self.pixel(xx, y + bit, c)
            x += 8

    def scroll(self, xstep, ystep):
        w = self.width
        h = self.height
        old = [[self.pixel(xx, yy) for xx in range(w)] for yy in range(h)]
        for yy in range(h):
            for xx in range(w):
                sx = xx - xstep
                sy = yy - ystep
                if 0 <= sx < w and 0 <= sy < h:
                    self.pixel(xx, yy, old[sy][sx])
