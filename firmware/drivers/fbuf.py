"""Pure-Python stand-in for MicroPython's ``framebuf`` (host/CPython only).

Only what the firmware uses: ``FrameBuffer`` in ``MONO_VLSB`` format with
``fill``, ``pixel``, ``hline``, ``vline``, ``rect``, ``fill_rect``, ``line``,
``text`` (the same 8x8 font as MicroPython's built-in one, so text renders
byte-identically on the host and on the device) and ``scroll``.

On the device ``drivers.ssd1306`` imports the real ``framebuf`` (C code);
this module is the fallback when ``import framebuf`` fails.
"""

from drivers.font8x8 import FONT  # 8x8 glyphs for chr(32)..chr(127): framebuf's own font

MONO_VLSB = 0
MVLSB = MONO_VLSB


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
