"""An SSD1306 128x64 OLED controller model behind the emulated I2C or SPI bus.

It decodes what a driver writes, byte for byte, as the chip does:

* on I2C (``i2c_write``), a transaction's control bytes; on the 4-wire SPI
  (``spi_write``, or ``SpiPanel`` on an ``SpiBus``), the D/C# pin's level
  (datasheet 8.1.3: low commands, high data); RES# low (``reset``) puts the
  registers back to their power-on values (GDDRAM is kept);

* the control byte (datasheet 8.1.5.2): Co (bit 7) = 1 means one data byte
  follows and then another control byte; Co = 0 means the rest of the
  transaction is data. D/C# (bit 6) selects GDDRAM data (1) or commands (0);
* the command stream, whose multi-byte commands may span transactions (as in
  drivers that send each command byte with its own 0x80 control byte):
  memory addressing mode 0x20 (horizontal, vertical, page), column/page
  windows 0x21/0x22, page-mode start 0xB0-0xB7 and column nibbles 0x00-0x1F,
  display on/off 0xAE/0xAF, contrast 0x81, normal/inverse 0xA6/0xA7, entire
  display on 0xA4/0xA5, charge pump 0x8D, start line 0x40-0x7F, segment remap
  0xA0/0xA1, COM scan 0xC0/0xC8 and the timing/hardware commands (accepted
  and kept);
* GDDRAM writes with the address pointer stepping per addressing mode.

The module is taken as mounted the usual way: upright for segment re-map on
(0xA1) and COM scan descending (0xC8). ``ram`` is the 1024-byte GDDRAM in
page-major order, byte ``128 * page + x`` holding screen column ``x`` (segment
driver SEG(127 - x)), bit 0 = top row of the page. The segment re-map acts when
data is written (datasheet 10.1.8: it "only affects subsequent data input; data
already stored in GDDRAM will have no changes"): with 0xA1 column address ``c``
is stored at ``x = c``, with 0xA0 at ``x = 127 - c``, and switching it moves
nothing already in RAM. So after the usual 0xA1 init ``ram`` has the layout of
a MONO_VLSB framebuffer and tests compare it byte for byte with the driver's
buffer. The COM scan direction, start line and display offset act on the
picture at once (10.1.14), so ``visible(x, y)`` applies them, with display
on/off, entire-on and inversion: it is what a person would see. Renderers:
``to_png()`` (a minimal PNG encoder using zlib and struct) and ``to_text()``
(two pixel rows per character, ▀▄█). ``text_rows()`` reads text back in the
framebuf font and the extra glyphs of ``firmware/table/font.py``.
"""

from __future__ import annotations

import struct
import zlib
from pathlib import Path

WIDTH = 128
HEIGHT = 64
PAGES = 8

# number of argument bytes that follow a command byte
_ARGS = {
    0x20: 1, 0x21: 2, 0x22: 2,  # addressing
    0x81: 1,  # contrast
    0x8D: 1,  # charge pump
    0xA8: 1, 0xD3: 1, 0xD5: 1, 0xD9: 1, 0xDA: 1, 0xDB: 1,  # hardware / timing
    0xA3: 2,  # vertical scroll area
    0x26: 6, 0x27: 6,  # horizontal scroll setup
    0x29: 5, 0x2A: 5,  # vertical and horizontal scroll setup
}


class SSD1306Model:
    """The controller's state and GDDRAM; attach it to an ``I2CBus``."""

    def __init__(self, width: int = WIDTH, height: int = HEIGHT) -> None:
        self.width = width
        self.height = height
        self.pages = height // 8
        self.ram = bytearray(width * self.pages)
        self.resets = 0
        self.reset()
        self.resets = 0
        # counters
        self.transactions = 0
        self.bytes = 0
        self.data_bytes = 0
        self.command_bytes = 0
        self.commands: list[tuple[int, ...]] = []  # every complete command, in order

    def reset(self) -> None:
        """RES# pulled low: the registers' power-on values (datasheet 8.9);
        GDDRAM keeps what it held."""
        self.resets += 1
        # power-on reset state (datasheet table 9-1 / section 10)
        self.display_on = False
        self.contrast = 0x7F
        self.inverted = False
        self.entire_on = False
        self.charge_pump = False
        self.mem_mode = 2  # page addressing after reset
        self.col_start, self.col_end = 0, self.width - 1
        self.page_start, self.page_end = 0, self.pages - 1
        self.col = 0
        self.page = 0
        self.start_line = 0
        self.seg_remap = False
        self.com_scan_dec = False
        self.mux = 63
        self.display_offset = 0
        self.com_pins = 0x12
        self.clock_div = 0x80
        self.precharge = 0x22
        self.vcom_desel = 0x20
        self.scrolling = False
        self.settings: dict[int, tuple[int, ...]] = {}  # last args per command
        self.unknown: list[int] = []  # command bytes the model does not know
        self._cmd: list[int] = []  # command being assembled (may span transactions)

    # ------------------------------------------------------------ I2C side

    def i2c_write(self, data: bytes) -> None:
        self.transactions += 1
        self.bytes += len(data)
        i = 0
        n = len(data)
        while i < n:
            ctrl = data[i]
            i += 1
            is_data = bool(ctrl & 0x40)
            if ctrl & 0x80:  # Co = 1: one byte, then another control byte
                if i < n:
                    self._byte(data[i], is_data)
                    i += 1
            else:  # Co = 0: the rest is all data or all commands
                while i < n:
                    self._byte(data[i], is_data)
                    i += 1

    # ------------------------------------------------------------ SPI side

    def spi_write(self, data: bytes, is_data: bool) -> None:
        """Bytes clocked in while chip-selected, D/C# at ``is_data``."""
        self.transactions += 1
        self.bytes += len(data)
        for b in data:
            self._byte(b, is_data)

    def i2c_read(self, n: int) -> bytes:
        # status register (datasheet 8.1.5.2): bit 6 = display off
        return bytes([0x40 if not self.display_on else 0x00] * n)

    def reset_counts(self) -> None:
        self.transactions = self.bytes = self.data_bytes = self.command_bytes = 0
        self.commands.clear()

    def _byte(self, b: int, is_data: bool) -> None:
        if is_data:
            self.data_bytes += 1
            self._write_ram(b)
        else:
            self.command_bytes += 1
            self._command_byte(b)

    # ------------------------------------------------------------ GDDRAM

    def _write_ram(self, b: int) -> None:
        # the segment re-map applies on the way in (datasheet 10.1.8)
        x = self.col if self.seg_remap else self.width - 1 - self.col
        self.ram[self.page * self.width + x] = b
        if self.mem_mode == 0:  # horizontal
            self.col += 1
            if self.col > self.col_end:
                self.col = self.col_start
                self.page += 1
                if self.page > self.page_end:
                    self.page = self.page_start
        elif self.mem_mode == 1:  # vertical
            self.page += 1
            if self.page > self.page_end:
                self.page = self.page_start
                self.col += 1
                if self.col > self.col_end:
                    self.col = self.col_start
        else:  # page addressing: the column wraps within the page
            self.col += 1
            if self.col >= self.width:
                self.col = self.col_start

    # ------------------------------------------------------------ commands

    def _command_byte(self, b: int) -> None:
        cmd = self._cmd
        cmd.append(b)
        if len(cmd) - 1 < _ARGS.get(cmd[0], 0):
            return  # wait for the arguments
        self._cmd = []
        self.commands.append(tuple(cmd))
        self._execute(cmd[0], cmd[1:])

    def _execute(self, c: int, a: list[int]) -> None:
        if a:
            self.settings[c] = tuple(a)
        if c == 0x20:
            self.mem_mode = a[0] & 3 if a[0] & 3 != 3 else 2
        elif c == 0x21:
            self.col_start, self.col_end = a[0] & 0x7F, a[1] & 0x7F
            self.col = self.col_start
        elif c == 0x22:
            self.page_start, self.page_end = a[0] & 7, a[1] & 7
            self.page = self.page_start
        elif 0xB0 <= c <= 0xB7:
            self.page = c & 7
        elif c <= 0x0F:
            self.col = (self.col & 0xF0) | c
            self.col_start = self.col
        elif c <= 0x1F:
            self.col = ((c & 0x0F) << 4) | (self.col & 0x0F)
            self.col_start = self.col
        elif c in (0xAE, 0xAF):
            self.display_on = c == 0xAF
        elif c == 0x81:
            self.contrast = a[0]
        elif c in (0xA6, 0xA7):
            self.inverted = c == 0xA7
        elif c in (0xA4, 0xA5):
            self.entire_on = c == 0xA5
        elif c == 0x8D:
            self.charge_pump = bool(a[0] & 0x04)
        elif 0x40 <= c <= 0x7F:
            self.start_line = c & 0x3F
        elif c in (0xA0, 0xA1):
            self.seg_remap = c == 0xA1
        elif c in (0xC0, 0xC8):
            self.com_scan_dec = c == 0xC8
        elif c == 0xA8:
            self.mux = a[0] & 0x3F
        elif c == 0xD3:
            self.display_offset = a[0] & 0x3F
        elif c == 0xDA:
            self.com_pins = a[0]
        elif c == 0xD5:
            self.clock_div = a[0]
        elif c == 0xD9:
            self.precharge = a[0]
        elif c == 0xDB:
            self.vcom_desel = a[0]
        elif c == 0x2E:
            self.scrolling = False
        elif c == 0x2F:
            self.scrolling = True
        elif c in _ARGS or c == 0xE3:  # scroll set-up, NOP
            pass
        else:
            self.unknown.append(c)

    # ------------------------------------------------------------ pixels

    def pixel(self, x: int, y: int) -> int:
        """GDDRAM bit of screen column x (segment 127 - x), RAM row y (before COM
        scan, start line, offset and inversion)."""
        return (self.ram[(y >> 3) * self.width + x] >> (y & 7)) & 1

    def visible(self, x: int, y: int) -> int:
        """1 when the pixel at screen position (x, y) is lit.

        The screen is taken as upright for COM scan descending (0xC8), the usual
        module mounting; 0xC0 flips it vertically at once. (The segment re-map
        was applied when the data was written.)
        """
        if not self.display_on:
            return 0
        if self.entire_on:
            return 1
        row = y if self.com_scan_dec else self.height - 1 - y
        row = (row + self.start_line + self.display_offset) % self.height
        return self.pixel(x, row) ^ (1 if self.inverted else 0)

    def rows(self) -> list[list[int]]:
        return [[self.visible(x, y) for x in range(self.width)] for y in range(self.height)]

    def lit_count(self) -> int:
        return sum(map(sum, self.rows()))

    # ------------------------------------------------------------ text recognition

    def text_rows(self) -> list[str]:
        """Read the screen as 8 rows of 16 characters (8x8 font on an 8-pixel grid).

        Cells that match no glyph read as '?'. The glyphs are framebuf's ASCII
        font and those of ``firmware/table/font.py`` (umlauts, ß, card suits,
        arrow, middle dot; its placeholder box reads as PLACEHOLDER_CHAR, U+FFFD).
        Inverted text (dark on lit) is recognised too. Only text drawn at x % 8 == 0
        on a page boundary is readable this way, which is how the firmware's
        screens lay text out.
        """
        glyphs = _glyph_table()
        out = []
        for page in range(self.pages):
            chars = []
            for cell in range(self.width // 8):
                base = page * self.width + cell * 8
                key = bytes(self.ram[base:base + 8])
                ch = glyphs.get(key)
                if ch is None:
                    ch = glyphs.get(bytes(b ^ 0xFF for b in key), "?")
                chars.append(ch)
            out.append("".join(chars).rstrip())
        return out

    # ------------------------------------------------------------ renderers

    def to_text(self, ascii_only: bool = False) -> str:
        """Two pixel rows per character: ▀ ▄ █ and space (or '"', ',', '#' in ASCII)."""
        chars = ' ",#' if ascii_only else " ▀▄█"
        lines = []
        for y in range(0, self.height, 2):
            lines.append("".join(
                chars[self.visible(x, y) | (self.visible(x, y + 1) << 1)]
                for x in range(self.width)).rstrip())
        return "\n".join(lines)

    def to_png(self, scale: int = 4, border: int = 2) -> bytes:
        """An 8-bit greyscale PNG of the visible screen; lit pixel brightness follows
        the contrast setting."""
        lit = 64 + self.contrast * 191 // 255
        w = (self.width + 2 * border) * scale
        h = (self.height + 2 * border) * scale
        raw = bytearray()
        blank = bytes(w)
        for y in range(-border, self.height + border):
            if 0 <= y < self.height:
                row = bytearray()
                row += bytes(border * scale)
                for x in range(self.width):
                    row += bytes([lit if self.visible(x, y) else 0]) * scale
                row += bytes(border * scale)
                line = bytes(row)
            else:
                line = blank
            for _ in range(scale):
                raw.append(0)  # filter type: none
                raw += line
        return encode_png_grey(w, h, bytes(raw))

    def save_png(self, path: str | Path, scale: int = 4) -> Path:
        path = Path(path)
        path.write_bytes(self.to_png(scale))
        return path


class SpiPanel:
    """The model on an ``SpiBus`` (host_sim/spi_bus.py) in the 4-wire mode:
    attach it with its chip-select pin; ``dc`` and ``res`` are the
    ``host_sim.pins.Pin`` objects the driver drives.  The bytes of one
    chip-select at one D/C# level reach the model as one ``spi_write``.  The
    panel never drives MISO (a byte clocked in reads 0x00, the bus's pull-down)."""

    def __init__(self, model: SSD1306Model, dc, res) -> None:
        self.model = model
        self._dc = dc
        self._held = bytearray()
        self._held_dc = False
        res.listen(lambda level: model.reset() if level == 0 else None)

    def select(self) -> None:
        self._held = bytearray()

    def exchange(self, b: int) -> int:
        dc = bool(self._dc.value())
        if self._held and dc != self._held_dc:
            self.deselect()
        self._held_dc = dc
        self._held.append(b)
        return 0x00

    def deselect(self) -> None:
        if self._held:
            self.model.spi_write(bytes(self._held), self._held_dc)
            self._held = bytearray()


def _chunk(kind: bytes, data: bytes) -> bytes:
    return (struct.pack(">I", len(data)) + kind + data
            + struct.pack(">I", zlib.crc32(kind + data) & 0xFFFFFFFF))


def encode_png_grey(width: int, height: int, filtered: bytes) -> bytes:
    """PNG bytes for 8-bit greyscale rows already prefixed with filter bytes."""
    ihdr = struct.pack(">IIBBBBB", width, height, 8, 0, 0, 0, 0)
    return (b"\x89PNG\r\n\x1a\n" + _chunk(b"IHDR", ihdr)
            + _chunk(b"IDAT", zlib.compress(filtered, 9)) + _chunk(b"IEND", b""))


PLACEHOLDER_CHAR = "\ufffd"  # what text_rows() reads for font.py's placeholder box

_GLYPHS: dict[bytes, str] | None = None


def _glyph_table() -> dict[bytes, str]:
    global _GLYPHS
    if _GLYPHS is None:
        font = _load_firmware_module("drivers/fbuf.py").FONT
        table: dict[bytes, str] = {}
        for code in range(126, 31, -1):  # lowest code wins for identical glyphs
            off = (code - 32) * 8
            table[bytes(font[off:off + 8])] = chr(code)
        # firmware/table/font.py's own glyphs: one source of truth for both sides
        extra = _load_firmware_module("table/font.py")
        chars = [(i, ch) for i, ch in enumerate(extra.CHARS)]
        for i, ch in chars + [(extra.PLACEHOLDER, PLACEHOLDER_CHAR)]:
            glyph = bytes(extra.GLYPHS[8 * i:8 * i + 8])
            assert glyph not in table, "font.py glyph %r looks like %r" % (ch, table[glyph])
            table[glyph] = ch
        _GLYPHS = table
    return _GLYPHS


def _load_firmware_module(rel: str):
    """A module of firmware/ (loaded by path: firmware/ is not a host package)."""
    import importlib.util

    path = Path(__file__).resolve().parent.parent / "firmware" / rel
    name = "_tapp_fw_" + rel.replace("/", "_").removesuffix(".py")
    spec = importlib.util.spec_from_file_location(name, path)
    assert spec is not None and spec.loader is not None
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod
