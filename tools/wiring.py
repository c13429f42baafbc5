#!/usr/bin/env python3
"""The table's wiring, drawn from the pin maps in hardware/pins/ (stdlib only).

    python3 tools/wiring.py            # check both pin maps, write the diagrams and tables
    python3 tools/wiring.py --check    # only check: exit 1 on a problem or a stale file

``hardware/pins/<board>.json`` is the source of truth: what each pin of the
board can do (input only, strapping, flash, the RP2040's SPI0/I2C0 function
pins, ...) and which pin does which job (``assign``).  This tool

* checks a pin map (``problems``): a pin used twice, a pin that does not exist
  or is not on the header, a pin the board cannot use for its job (an
  input-only pin as an output, a strapping/flash/console/PSRAM pin on the
  ESP32, an SPI/I2C pin that is not a function pin of that bus), and that the
  firmware's board file (firmware/boards/<board>.py: ``PINS``, ``SETTINGS``,
  the bus ids passed to ``build``) says the same (``disagreements``);
* draws the wiring diagram ``hardware/wiring-<board>.svg`` (hand-made SVG:
  board, six readers with their chip-selects on the shared SPI bus, the
  74HC125 MISO buffers, display, buttons, LEDs with their level shifter,
  buzzer, supply), recording which net each wire and junction dot belongs
  to, and checks the drawing (``geometry_problems``): no junction dot on
  another net's wire, no wire running along another net's wire;
* writes the pin tables between the ``<!-- pins:<board> -->`` markers of
  hardware/README.md.

tests/test_hardware.py runs the checks and fails when a committed diagram or
table differs from what this tool makes now.
"""
from __future__ import annotations

import ast
import json
import re
import sys
from pathlib import Path
from xml.sax.saxutils import escape

ROOT = Path(__file__).resolve().parent.parent
HW = ROOT / "hardware"
BOARDS = ("pico", "esp32")
REGEN = "python3 tools/wiring.py"

# ------------------------------------------------------------------ the jobs

# assign key -> (what the pin must do, (bus kind, bus signal) or None)
ROLES = {
    "spi_sck": ("out", ("spi", "sck")),
    "spi_mosi": ("out", ("spi", "mosi")),
    "spi_miso": ("in", ("spi", "miso")),
    "reader_cs": ("out", None),
    "reader_rst": ("out", None),
    "display_spi": ("out", None),     # the SSD1306 on the readers' SPI bus: CS, D/C, RES
    "i2c_sda": ("io", ("i2c", "sda")),
    "i2c_scl": ("io", ("i2c", "scl")),
    "buttons": ("in", None),
    "ws2812": ("out", None),
    "buzzer": ("pwm", None),
}
# a board may have the display on the readers' SPI bus
OPTIONAL = ("display_spi",)
NEEDS = {"in": ("in",), "out": ("out",), "io": ("in", "out"), "pwm": ("out", "pwm")}
FLAGS = ("buttons_pull_up",)
BUTTONS = ("PREV", "NEXT", "OK")
MAX_READERS = 6          # five seats and the centre
MAX_SPI_BAUD = 10000000  # MFRC522 SPI up to 10 Mbit/s (data sheet 8.1.2)


def load(board: str) -> dict:
    return json.loads((HW / "pins" / ("%s.json" % board)).read_text(encoding="utf-8"))


def seat_names(n: int) -> list[str]:
    """Reader names: the seats first, the centre last (as the firmware orders them)."""
    return ["seat %d" % (i + 1) for i in range(n - 1)] + ["centre"]


def jobs(assign: dict) -> list[tuple[str, int]]:
    """(job, pin) for every pin the map uses, in a fixed order."""
    out = []
    for key in ROLES:
        v = assign.get(key)
        if isinstance(v, (list, tuple)):
            names = (seat_names(len(v)) if key == "reader_cs"
                     else ["button " + b for b in BUTTONS] if key == "buttons"
                     else [d[0] for d in DISPLAY_SPI] if key == "display_spi"
                     else [])
            # (a list of the wrong length is named by ``problems``: its extra pins by index)
            names = names[:len(v)] + ["%s[%d]" % (key, i) for i in range(len(names), len(v))]
            out.extend(("%s (%s)" % (key, nm), p) for nm, p in zip(names, v, strict=True))
        elif v is not None:
            out.append((key, v))
    return out


def label(hw: dict, pin) -> str:
    return hw["pin_label"] % pin if isinstance(pin, int) else str(pin)


def problems(hw: dict) -> list[str]:
    """Everything wrong with a pin map on its own board (empty when it is fine)."""
    a = hw["assign"]
    out = []
    for key in ROLES:
        if key not in a and key not in OPTIONAL:
            out.append("%s: missing" % key)
    if "display_spi" in a and len(a["display_spi"]) != len(DISPLAY_SPI):
        out.append("display_spi: %d pins; a display on SPI has three (CS, D/C, RES)"
                   % len(a["display_spi"]))
    for key in a:
        if key not in ROLES and key not in FLAGS:
            out.append("%s: not a job this tool knows" % key)
    cs = a.get("reader_cs", ())
    if not 2 <= len(cs) <= MAX_READERS:
        out.append("reader_cs: %d readers; the table has 2..%d (seats, then the centre)"
                   % (len(cs), MAX_READERS))
    if len(a.get("buttons", ())) != len(BUTTONS):
        out.append("buttons: %d pins; the table has three (prev, next, OK)"
                   % len(a.get("buttons", ())))
    baud = hw.get("spi_baud", 0)
    if not 0 < baud <= MAX_SPI_BAUD:
        out.append("spi_baud %s: the MFRC522 takes at most 10 MHz" % baud)
    seen: dict[int, str] = {}
    for job, pin in jobs(a):
        name = label(hw, pin)
        if not isinstance(pin, int) or str(pin) not in hw["pins"]:
            out.append("%s: %s does not exist on the %s" % (job, name, hw["mcu"]))
            continue
        if pin in seen:
            out.append("%s used twice: %s and %s" % (name, seen[pin], job))
        seen[pin] = job
        info = hw["pins"][str(pin)]
        for flag in info.get("flags", ()):
            if flag in hw["avoid"]:
                out.append("%s: %s is a %s pin (%s)" % (job, name, flag.replace("_", " "),
                                                       hw["avoid"][flag]))
        base = job.split(" ")[0]
        need, bus = ROLES[base]
        for cap in NEEDS[need]:
            if cap not in info["caps"]:
                what = {"out": "drive an output", "in": "read an input",
                        "pwm": "make PWM"}[cap]
                extra = " (input only)" if info["caps"] == ["in"] else ""
                out.append("%s: %s cannot %s%s" % (job, name, what, extra))
        if base == "buttons" and a.get("buttons_pull_up", True) \
                and "pull_up" not in info["caps"]:
            out.append("%s: %s has no internal pull-up; set buttons_pull_up false and fit "
                       "external pull-ups" % (job, name))
        if bus is not None:
            out.extend(_bus_problem(hw, job, pin, *bus))
    return out


def _bus_problem(hw: dict, job: str, pin: int, kind: str, signal: str) -> list[str]:
    bus_id = str(hw["%s_id" % kind])
    bus = hw["buses"][kind].get(bus_id)
    if bus is None:
        return ["%s: the %s has no %s%s" % (job, hw["mcu"], kind.upper(), bus_id)]
    if bus.get("gpio_matrix"):
        return []  # any pin that can do the direction (checked above)
    ok = bus[signal]
    if pin in ok:
        return []
    return ["%s: %s is not a %s pin of %s%s (those are %s)"
            % (job, label(hw, pin), signal.upper(), kind.upper(), bus_id,
               ", ".join(label(hw, p) for p in ok))]


# ------------------------------------------------------------------ the board files

def board_file(hw: dict) -> dict:
    """PINS, SETTINGS and the bus ids of the firmware's board file, read without importing it."""
    tree = ast.parse((ROOT / hw["board_file"]).read_text(encoding="utf-8"))
    found: dict = {}
    for node in ast.walk(tree):
        if isinstance(node, ast.Assign) and len(node.targets) == 1 \
                and isinstance(node.targets[0], ast.Name) \
                and node.targets[0].id in ("PINS", "SETTINGS"):
            found[node.targets[0].id] = ast.literal_eval(node.value)
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) \
                and node.func.id == "build":
            # build(machine, neopixel, pins, settings, spi_id, i2c_id, root)
            found["spi_id"] = ast.literal_eval(node.args[4])
            found["i2c_id"] = ast.literal_eval(node.args[5])
    return found


def plain(v):
    return list(v) if isinstance(v, tuple) else v


def disagreements(hw: dict, bf: dict) -> list[str]:
    """Where the board file and the pin map differ (empty when they agree)."""
    out = []
    pins = {k: plain(v) for k, v in bf.get("PINS", {}).items()}
    where = "%s vs hardware/pins" % hw["board_file"]
    for key in sorted(set(pins) | set(hw["assign"])):
        if pins.get(key) != hw["assign"].get(key):
            out.append("%s: %r in %s, %r in the pin map (%s)"
                       % (key, pins.get(key), hw["board_file"], hw["assign"].get(key), where))
    for key in ("spi_id", "i2c_id"):
        if bf.get(key) != hw[key]:
            out.append("%s: %r passed to build() in %s, %r in the pin map"
                       % (key, bf.get(key), hw["board_file"], hw[key]))
    baud = bf.get("SETTINGS", {}).get("spi_baud")
    if baud != hw["spi_baud"]:
        out.append("spi_baud: %r in %s, %r in the pin map" % (baud, hw["board_file"],
                                                             hw["spi_baud"]))
    return out


# ------------------------------------------------------------------ what connects where

GATE_PINS = (("A", 1, 2, 3), ("B", 4, 5, 6), ("C", 10, 9, 8), ("D", 13, 12, 11))  # /OE, A, Y


def miso_gate(i: int) -> tuple[str, int, int, int]:
    """The 74HC125 gate that buffers reader i's MISO: (name, /OE pin, A pin, Y pin)."""
    g, oe, a, y = GATE_PINS[i % 4]
    return "U%d%s" % (i // 4 + 1, g), oe, a, y


def connections(hw: dict) -> list[tuple[str, str, str, str]]:
    """(signal, pin, header position, what it goes to) for every used pin and the supply."""
    a = hw["assign"]
    n = len(a["reader_cs"])
    pull = "internal pull-up" if a["buttons_pull_up"] else "10 kΩ pull-up to 3V3"
    rows = [
        ("SPI SCK", a["spi_sck"], "SCK of every reader (33 Ω in series at the board)"),
        ("SPI MOSI", a["spi_mosi"], "MOSI of every reader (33 Ω in series at the board)"),
        ("SPI MISO", a["spi_miso"], "the Y outputs of the %d 74HC125 gates; 4.7 kΩ to GND" % n),
    ]
    for i, (name, pin) in enumerate(zip(seat_names(n), a["reader_cs"], strict=True)):
        gate, oe, _, _ = miso_gate(i)
        rows.append(("CS %s" % name, pin, "SDA (NSS) of the %s reader, /OE of %s (pin %d); "
                     "4.7 kΩ to 3V3R" % (name, gate, oe)))
    rows.append(("reader reset", a["reader_rst"], "RST of every reader"))
    spi_display = "display_spi" in a
    if spi_display:
        cs, dc, res = a["display_spi"]
        rows += [
            ("display CS", cs, "CS of the display on SPI (7-pin module; its D0 "
             "to SPI SCK, D1 to SPI MOSI)"),
            ("display D/C", dc, "DC of the display on SPI"),
            ("display RES", res, "RES of the display on SPI"),
        ]
    other = "or, instead, " if spi_display else ""
    rows += [
        ("I2C SDA", a["i2c_sda"], "%sSDA of a display on I2C (4-pin module)" % other),
        ("I2C SCL", a["i2c_scl"], "%sSCL of a display on I2C" % other),
    ]
    for b, pin in zip(BUTTONS, a["buttons"], strict=False):
        rows.append(("button %s" % b, pin, "%s button to GND (%s)" % (b, pull)))
    rows += [
        ("WS2812 data", a["ws2812"], "U%dA 74AHCT125 (pin 2) → 330 Ω → DIN of LED 1"
         % ((n + 3) // 4 + 1)),
        ("buzzer", a["buzzer"], "100 Ω → piezo → GND"),
    ]
    out = [(sig, label(hw, pin), str(hw["pins"][str(pin)]["header"]), to)
           for sig, pin, to in rows]
    pw = hw["power"]
    out.append(("5 V in", pw["supply_in"]["name"], str(pw["supply_in"]["header"]),
                "5 V supply through D1 (Schottky)"))
    out.append(("ground", pw["gnd"]["name"], str(pw["gnd"]["header"]),
                "common ground (star point at the supply)"))
    return out


def pin_table(hw: dict) -> str:
    head = "| signal | %s pin | header | goes to |\n|---|---|---|---|\n" % hw["board"]
    return head + "".join("| %s | %s | %s | %s |\n" % r for r in connections(hw))


# ------------------------------------------------------------------ SVG

COL = {"sck": "#1f77b4", "mosi": "#2ca02c", "miso": "#d62728", "rst": "#8c564b",
       "sda": "#e6550d", "scl": "#b8860b", "btn": "#555555", "ws": "#31a354",
       "buz": "#756bb1", "pwr": "#cc0000", "gnd": "#000000", "v5": "#ff7f0e",
       "dcs": "#393b79", "ddc": "#637939", "dres": "#843c39"}
# the display on SPI, its pins in display_spi's order: (the board's label,
# colour, the module's pin)
DISPLAY_SPI = (("display CS", "dcs", "CS"), ("display D/C", "ddc", "DC"),
               ("display RES", "dres", "RES"))
CS_COL = ("#9467bd", "#e377c2", "#17becf", "#7f7f00", "#ff7f0e", "#1b5e20")


class Svg:
    def __init__(self) -> None:
        self.items: list[str] = []
        self.wires: list[tuple[str, tuple, tuple]] = []   # (net, end, end) per segment
        self.dots: list[tuple[str, float, float]] = []    # junctions: (net, x, y)
        self.size = (0, 0)

    def add(self, s: str) -> None:
        self.items.append(s)

    def line(self, pts, col="#000", w=1.6, net=None) -> None:
        """A wire (or a symbol's stroke); ``net`` names the signal it carries, for
        the drawing check (``geometry_problems``)."""
        d = " ".join("%g,%g" % p for p in pts)
        self.add('<polyline points="%s" fill="none" stroke="%s" stroke-width="%g"/>'
                 % (d, col, w))
        if net is not None:
            for a, b in zip(pts, pts[1:], strict=False):
                self.wires.append((net, a, b))

    def rect(self, x, y, w, h, fill="#fff", stroke="#333", rx=4, sw=1.2) -> None:
        self.add('<rect x="%g" y="%g" width="%g" height="%g" rx="%g" fill="%s" stroke="%s" '
                 'stroke-width="%g"/>' % (x, y, w, h, rx, fill, stroke, sw))

    def text(self, x, y, s, size=11, anchor="start", weight="normal", col="#000") -> None:
        self.add('<text x="%g" y="%g" font-size="%g" text-anchor="%s" font-weight="%s" '
                 'fill="%s">%s</text>' % (x, y, size, anchor, weight, col, escape(s)))

    def dot(self, x, y, col="#000", net=None) -> None:
        self.add('<circle cx="%g" cy="%g" r="2.8" fill="%s"/>' % (x, y, col))
        if net is not None:
            self.dots.append((net, x, y))

    def pin(self, x, y) -> None:
        self.add('<circle cx="%g" cy="%g" r="2.4" fill="#fff" stroke="#333"/>' % (x, y))

    def resistor_v(self, x, y0, y1, col, name, net=None) -> None:
        """A resistor from (x, y0) to (x, y1) (vertical), its value to the right."""
        m = (y0 + y1) / 2
        lo, hi = min(y0, y1), max(y0, y1)
        self.line([(x, lo), (x, m - 7)], col, net=net)
        self.line([(x, m + 7), (x, hi)], col, net=net)
        self.rect(x - 3.5, m - 7, 7, 14, fill="#fff", stroke=col, rx=0)
        self.text(x + 6, m + 4, name, 9)

    def resistor_h(self, x0, x1, y, col, name, net=None) -> None:
        m = (x0 + x1) / 2
        self.line([(x0, y), (m - 8, y)], col, net=net)
        self.line([(m + 8, y), (x1, y)], col, net=net)
        self.rect(m - 8, y - 3.5, 16, 7, fill="#fff", stroke=col, rx=0)
        self.text(m, y - 6, name, 9, "middle")

    def ground(self, x, y) -> None:
        self.line([(x, y), (x, y + 5)], "#000")
        for k, half in enumerate((7, 4.5, 2)):
            yy = y + 5 + 3 * k
            self.line([(x - half, yy), (x + half, yy)], "#000", 1.4)

    def rail(self, x, y, name, col=COL["pwr"], anchor="end") -> None:
        self.text(x, y + 4, name, 10, anchor, "bold", col)

    def buffer(self, xa, y, xb, col="#333") -> None:
        """A buffer triangle pointing left: apex (output) at xa, base (input) at xb."""
        h = 9
        self.add('<polygon points="%g,%g %g,%g %g,%g" fill="#fff" stroke="%s" '
                 'stroke-width="1.3"/>' % (xb, y - h, xb, y + h, xa, y, col))

    def buffer_r(self, xa, y, xb, col="#333") -> None:
        """A buffer triangle pointing right: input (base) at xa, output (apex) at xb."""
        h = 9
        self.add('<polygon points="%g,%g %g,%g %g,%g" fill="#fff" stroke="%s" '
                 'stroke-width="1.3"/>' % (xa, y - h, xa, y + h, xb, y, col))

    def render(self, w, h) -> str:
        head = ('<?xml version="1.0" encoding="UTF-8"?>\n'
                '<svg xmlns="http://www.w3.org/2000/svg" width="%d" height="%d" '
                'viewBox="0 0 %d %d" font-family="DejaVu Sans, Arial, sans-serif">\n'
                '<rect width="%d" height="%d" fill="#ffffff"/>\n' % (w, h, w, h, w, h))
        return head + "\n".join(self.items) + "\n</svg>\n"


def _on_segment(x, y, a, b, tol) -> bool:
    (x0, y0), (x1, y1) = a, b
    if x0 == x1:
        return abs(x - x0) <= tol and min(y0, y1) - tol <= y <= max(y0, y1) + tol
    if y0 == y1:
        return abs(y - y0) <= tol and min(x0, x1) - tol <= x <= max(x0, x1) + tol
    return False        # the drawing has only horizontal and vertical wires


def _along(a, b, c, d, gap) -> bool:
    """Do segments a-b and c-d run side by side (parallel, closer than ``gap``,
    overlapping by more than ``gap``)?"""
    if a[1] == b[1] and c[1] == d[1]:               # both horizontal
        lo = max(min(a[0], b[0]), min(c[0], d[0]))
        hi = min(max(a[0], b[0]), max(c[0], d[0]))
        return abs(a[1] - c[1]) < gap and hi - lo > gap
    if a[0] == b[0] and c[0] == d[0]:               # both vertical
        lo = max(min(a[1], b[1]), min(c[1], d[1]))
        hi = min(max(a[1], b[1]), max(c[1], d[1]))
        return abs(a[0] - c[0]) < gap and hi - lo > gap
    return False


DOT_TOL = 3.5   # a junction dot (radius 2.8) touches a wire this close
GAP = 6         # parallel wires of two nets at least this far apart


def geometry_problems(svg: Svg) -> list[str]:
    """What the drawing gets wrong about its nets: a junction dot that touches
    another net's wire (it reads as a connection), a dot on no wire of its own
    net, a wire of one net running along another's closer than GAP px (they
    read as one).  Crossings at a right angle are fine."""
    out = []
    for net, x, y in svg.dots:
        if not any(n == net and _on_segment(x, y, a, b, 0.5) for n, a, b in svg.wires):
            out.append("dot of %s at (%g, %g) is on no %s wire" % (net, x, y, net))
        for n, a, b in svg.wires:
            if n != net and _on_segment(x, y, a, b, DOT_TOL):
                out.append("dot of %s at (%g, %g) touches a %s wire %s-%s"
                           % (net, x, y, n, a, b))
    w = svg.wires
    for i in range(len(w)):
        for j in range(i + 1, len(w)):
            if w[i][0] != w[j][0] and _along(w[i][1], w[i][2], w[j][1], w[j][2], GAP):
                out.append("%s wire %s-%s runs along %s wire %s-%s"
                           % (w[i][0], w[i][1], w[i][2], w[j][0], w[j][1], w[j][2]))
    return out


READER_PINS = ("SDA", "SCK", "MOSI", "MISO", "IRQ", "GND", "RST", "3.3V")  # the module's header
PITCH = 20
MCU_X, MCU_W, ROW = 30, 300, 24
TRUNK = {"sck": 900, "mosi": 920, "miso": 940, "rst": 960}
CS_X0 = 760      # chip-select channels: CS_X0 + 20 * i
BUF_A, BUF_B = 1040, 1072
R_PULL_X = 1130
READER_X, READER_W = 1180, 230
READER_Y0, READER_H, READER_GAP = 110, 8 * PITCH + 34, 44


def _reader_pin_y(i: int, k: int) -> float:
    return READER_Y0 + i * (READER_H + READER_GAP) + 30 + k * PITCH


# the shared SPI lines leave the MCU, go up a column each (JOG) to a rail
# above the readers (RAIL) and along it to their trunk: so no MCU row runs
# beside a reader pin's branch, whatever the two pitches
JOG = {"sck": 740, "mosi": 730, "miso": 720, "rst": 710}
RAIL = {"sck": 122, "mosi": 114, "miso": 106, "rst": 98}
R_IN_X = 1104    # the 10 kOhm pull-down at each 74HC125 input A


def render(hw: dict, board: str) -> str:
    svg = draw(hw, board)
    return svg.render(*svg.size)


def draw(hw: dict, board: str) -> Svg:
    """The wiring diagram of ``board`` (the SVG text: ``render``)."""
    a = hw["assign"]
    n = len(a["reader_cs"])
    names = seat_names(n)
    esp = not a["buttons_pull_up"]
    s = Svg()
    s.text(30, 34, "Tapp table: wiring of the %s (%s)" % (hw["board"], hw["mcu"]), 20,
           weight="bold")
    s.text(30, 56, "Drawn by tools/wiring.py from hardware/pins/%s.json; do not edit (run %s). "
           "SPI%s mode 0 at %g MHz, I2C%s at 400 kHz." % (board, REGEN, hw["spi_id"],
                                                         hw["spi_baud"] / 1e6, hw["i2c_id"]),
           11, col="#444")

    # ---- MCU rows
    rows = [("spi_sck", "SPI SCK", COL["sck"]), ("spi_mosi", "SPI MOSI", COL["mosi"]),
            ("spi_miso", "SPI MISO", COL["miso"])]
    rows += [(("reader_cs", i), "CS " + nm, CS_COL[i]) for i, nm in enumerate(names)]
    rows += [("reader_rst", "reader RST", COL["rst"]), None]
    spi_display = "display_spi" in a
    if spi_display:
        rows += [(("display_spi", i), what, COL[c]) for i, (what, c, _) in enumerate(DISPLAY_SPI)]
    rows += [("i2c_sda", "I2C SDA", COL["sda"]), ("i2c_scl", "I2C SCL", COL["scl"]), None]
    rows += [(("buttons", i), "button " + b, COL["btn"]) for i, b in enumerate(BUTTONS)]
    rows += [("ws2812", "WS2812 data", COL["ws"]), ("buzzer", "buzzer PWM", COL["buz"]), None,
             ("supply_in", "5 V in", COL["v5"]), ("gnd", "ground", COL["gnd"])]
    y = 130
    pos: dict = {}
    for r in rows:
        if r is None:
            y += 10
            continue
        pos[r[0]] = y
        y += ROW
    mcu_top, mcu_bot = 94, y
    s.rect(MCU_X, mcu_top, MCU_W, mcu_bot - mcu_top, fill="#eef3fb")
    s.text(MCU_X + MCU_W / 2, mcu_top + 20, hw["board"], 13, "middle", "bold")
    rx = MCU_X + MCU_W
    for r in rows:
        if r is None:
            continue
        key, what, col = r
        yy = pos[key]
        if key in ("supply_in", "gnd"):
            p = hw["power"][key]
            left = "%s · pin %s" % (p["name"], p["header"])
        else:
            pin = a[key[0]][key[1]] if isinstance(key, tuple) else a[key]
            left = "%s · pin %s" % (label(hw, pin), hw["pins"][str(pin)]["header"])
        s.text(MCU_X + 10, yy + 4, left, 11, weight="bold")
        s.text(rx - 10, yy + 4, what, 11, "end", col=col)
        s.pin(rx, yy)

    # ---- readers, buffers, shared SPI
    bottoms = {}
    for i, nm in enumerate(names):
        top = READER_Y0 + i * (READER_H + READER_GAP)
        s.rect(READER_X, top, READER_W, READER_H, fill="#f3f9ef")
        s.text(READER_X + READER_W - 8, top + 16, "%s reader" % nm, 12, "end", "bold")
        s.text(READER_X + READER_W - 8, top + 30, "MFRC522 module (RC522)", 10, "end",
               col="#555")
        s.text(READER_X + READER_W - 8, top + 44, "10 µF + 100 nF at 3.3V/GND", 9, "end",
               col="#555")
        for k, p in enumerate(READER_PINS):
            yy = _reader_pin_y(i, k)
            s.pin(READER_X, yy)
            s.text(READER_X + 8, yy + 4, p, 10)
        bottoms[i] = top + READER_H
        # power and unused pins of the module
        y_irq, y_gnd, y_v = (_reader_pin_y(i, k) for k in (4, 5, 7))
        s.text(READER_X - 6, y_irq + 4, "n.c.", 9, "end", col="#777")
        # the pull-down at the gate's input A: an unplugged seat reads 0x00
        y_in = _reader_pin_y(i, 3)
        s.dot(R_IN_X, y_in, COL["miso"], net="miso %d" % i)
        s.resistor_v(R_IN_X, y_in, y_in + 30, COL["miso"], "10k", net="miso %d" % i)
        s.ground(R_IN_X, y_in + 30)
        s.line([(READER_X, y_gnd), (READER_X - 14, y_gnd)], net="gnd")
        s.ground(READER_X - 14, y_gnd)
        s.line([(READER_X, y_v), (READER_X - 16, y_v)], COL["pwr"], net="3v3r")
        s.rail(READER_X - 18, y_v, "3V3R")
    # trunks: SCK, MOSI, RST to every reader; MISO from every buffer
    def feed(key, net):
        """MCU pin -> its column -> the rail above the readers -> the trunk's top."""
        y_mcu, jx, ry, x = pos[key], JOG[net], RAIL[net], TRUNK[net]
        if net in ("sck", "mosi"):  # source termination for the long, branched lines
            s.line([(rx, y_mcu), (580, y_mcu)], COL[net], net=net)
            s.resistor_h(580, 620, y_mcu, COL[net], "33", net=net)
            s.line([(620, y_mcu), (jx, y_mcu), (jx, ry), (x, ry)], COL[net], net=net)
        else:
            s.line([(rx, y_mcu), (jx, y_mcu), (jx, ry), (x, ry)], COL[net], net=net)

    for key, k, net in (("spi_sck", 1, "sck"), ("spi_mosi", 2, "mosi"),
                        ("reader_rst", 6, "rst")):
        x = TRUNK[net]
        ys = [_reader_pin_y(i, k) for i in range(n)]
        feed(key, net)
        s.line([(x, RAIL[net]), (x, max(ys))], COL[net], net=net)
        for yy in ys:
            s.line([(x, yy), (READER_X, yy)], COL[net], net=net)
            if yy != max(ys):
                s.dot(x, yy, COL[net], net=net)
    x = TRUNK["miso"]
    ys = [_reader_pin_y(i, 3) for i in range(n)]
    feed("spi_miso", "miso")
    y_pd = bottoms[n - 1] + 14
    s.line([(x, RAIL["miso"]), (x, y_pd)], COL["miso"], net="miso")
    s.resistor_v(x, y_pd, y_pd + 34, COL["miso"], "4.7k", net="miso")
    s.ground(x, y_pd + 34)
    s.text(x - 6, y_pd + 22, "MISO pull-down", 9, "end", col=COL["miso"])
    for i in range(n):
        yy = ys[i]
        gate, oe, pa, py = miso_gate(i)
        s.line([(x, yy), (BUF_A, yy)], COL["miso"], net="miso")
        s.dot(x, yy, COL["miso"], net="miso")
        s.buffer(BUF_A, yy, BUF_B)
        s.line([(BUF_B, yy), (READER_X, yy)], COL["miso"], net="miso %d" % i)
        s.text(BUF_A - 6, yy + 20, "%s  A%d Y%d /OE%d" % (gate, pa, py, oe), 8, col="#333")
    # chip-selects: MCU -> channel -> reader SDA; a drop to the buffer's /OE; pull-up
    for i in range(n):
        col = CS_COL[i]
        cx = CS_X0 + 20 * i
        y_mcu = pos[("reader_cs", i)]
        y_sda = _reader_pin_y(i, 0)
        y_buf = _reader_pin_y(i, 3)
        xm = (BUF_A + BUF_B) / 2
        net = "cs %d" % i
        s.line([(rx, y_mcu), (cx, y_mcu), (cx, y_sda), (READER_X, y_sda)], col, net=net)
        s.line([(xm, y_sda), (xm, y_buf - 9)], col, net=net)
        s.add('<circle cx="%g" cy="%g" r="2.2" fill="#fff" stroke="#333"/>'
              % (xm, y_buf - 6.5))  # the inverting enable
        s.dot(xm, y_sda, col, net=net)
        s.line([(R_PULL_X, y_sda), (R_PULL_X, y_sda - 6)], col, net=net)
        s.resistor_v(R_PULL_X, y_sda - 6, y_sda - 36, col, "4.7k", net=net)
        s.rail(R_PULL_X + 4, y_sda - 40, "3V3R", anchor="middle")
        s.dot(R_PULL_X, y_sda, col, net=net)
    s.text(30, 74, "MISO buffers U1, U2: 74HC125 (VCC pin 14 → 3V3R, GND pin 7; unused gates: "
           "/OE → 3V3R, A → GND). Each gate passes one reader's MISO while that reader's CS "
           "is low; 10k from each input A to GND.", 11, col="#444")

    # ---- peripherals below the MCU: channels (top row rightmost), devices to the right
    per = [(("display_spi", i), COL[c]) for i, (_, c, _) in enumerate(DISPLAY_SPI)
           if spi_display]
    per += [("i2c_sda", COL["sda"]), ("i2c_scl", COL["scl"])]
    per += [(("buttons", i), COL["btn"]) for i in range(3)]
    per += [("ws2812", COL["ws"]), ("buzzer", COL["buz"])]
    chan = {key: 520 - 18 * k for k, (key, _) in enumerate(per)}
    dev_x = 560
    y = mcu_bot + 40
    ends: dict = {}
    # display: on the readers' SPI bus (where the board has its pins), or on I2C
    if spi_display:
        y = _spi_display(s, dev_x, y, ends)
    s.rect(dev_x, y, 200, 84, fill="#fdf6ec")
    s.text(dev_x + 100, y + 18, ("or: " if spi_display else "") + "display SSD1306 128x64",
           11, "middle", "bold")
    s.text(dev_x + 100, y + 32, "I2C (4-pin module), address 0x3C", 9, "middle", col="#555")
    ends["i2c_sda"] = (dev_x, y + 48, "SDA")
    ends["i2c_scl"] = (dev_x, y + 68, "SCL")
    _display_supply(s, dev_x + 200, y + 48)
    y += 104
    # buttons
    bh = 40 if esp else 30
    s.rect(dev_x, y, 200, 24 + 3 * bh, fill="#f4f4f4")
    s.text(dev_x + 100, y + 17, "buttons (momentary, to GND)", 11, "middle", "bold")
    for i, b in enumerate(BUTTONS):
        yy = y + 24 + i * bh + bh / 2 + (6 if esp else 0)
        ends[("buttons", i)] = (dev_x, yy, b)
        s.line([(dev_x, yy), (dev_x + 60, yy)], COL["btn"])
        s.line([(dev_x + 60, yy), (dev_x + 84, yy - 8)], COL["btn"])
        s.line([(dev_x + 86, yy), (dev_x + 120, yy)], COL["btn"])
        s.ground(dev_x + 120, yy)
        if esp:
            s.dot(dev_x + 44, yy)
            s.resistor_v(dev_x + 44, yy, yy - 26, COL["btn"], "10k")
            s.rail(dev_x + 58, yy - 28, "3V3", anchor="start")
    s.text(dev_x + 196, y + 24 + 3 * bh + 12,
           "external 10 kΩ pull-ups (no internal)" if esp else "internal pull-ups", 9,
           "end", col="#555")
    y += 24 + 3 * bh + 30
    # WS2812 chain with its level shifter
    u3 = "U%d" % ((n + 3) // 4 + 1)
    nseats = n - 1
    s.rect(dev_x, y, 200, 60, fill="#eefaf0")
    s.text(dev_x + 100, y + 15, "%sA 74AHCT125 (3.3 V → 5 V)" % u3, 10, "middle", "bold")
    yy = y + 34
    ends["ws2812"] = (dev_x, yy, "A2")
    s.line([(dev_x, yy), (dev_x + 40, yy)], COL["ws"])
    s.buffer_r(dev_x + 40, yy, dev_x + 70, COL["ws"])
    s.text(dev_x + 100, yy + 20, "VCC 14 → +5V, /OE 1 → GND", 8, "middle", col="#333")
    xo = dev_x + 170
    s.line([(dev_x + 70, yy), (xo, yy), (xo, y + 60)], COL["ws"], net="ws2812 5v")
    s.text(dev_x + 74, yy - 4, "Y3", 8)
    ly = y + 104
    s.resistor_v(xo, y + 60, ly, COL["ws"], "330", net="ws2812 5v")
    for k in range(nseats):
        by = ly + k * 48
        s.rect(dev_x + 40, by, 160, 30, fill="#fff")
        s.text(dev_x + 48, by + 13, "LED %d (seat %d)" % (k + 1, k + 1), 10, weight="bold")
        s.text(dev_x + 48, by + 25, "WS2812B, +5V, 100 nF", 8, col="#555")
        s.text(xo - 4, by - 4, "DIN", 8, "end")
        if k < nseats - 1:
            s.line([(xo, by + 30), (xo, by + 48)], COL["ws"], net="ws2812 dout %d" % k)
            s.text(xo + 4, by + 40, "DOUT", 8)
    y = ly + nseats * 48
    s.text(dev_x + 40, y + 4, "1000 µF across the LEDs' +5V", 9, col="#555")
    y += 24
    # buzzer
    s.rect(dev_x, y, 200, 44, fill="#f5f0fb")
    s.text(dev_x + 100, y + 15, "passive piezo (no oscillator)", 10, "middle", "bold")
    yy = y + 30
    ends["buzzer"] = (dev_x, yy, "")
    s.resistor_h(dev_x, dev_x + 70, yy, COL["buz"], "100")
    s.rect(dev_x + 80, yy - 8, 30, 16, fill="#fff", stroke=COL["buz"], rx=8)
    s.line([(dev_x + 70, yy), (dev_x + 80, yy)], COL["buz"])
    s.line([(dev_x + 110, yy), (dev_x + 130, yy)])
    s.ground(dev_x + 130, yy)
    dev_bot = y + 60
    for key, col in per:
        cx = chan[key]
        y_mcu = pos[key]
        ex, ey, nm = ends[key]
        s.line([(rx, y_mcu), (cx, y_mcu), (cx, ey), (ex, ey)], col, net=str(key))
        if nm:
            s.text(ex + 4, ey - 4, nm, 9)

    # ---- supply block, below the MCU on the left
    pw = hw["power"]
    y = mcu_bot + 40
    x0 = MCU_X
    s.rect(x0, y, 170, 50, fill="#fff4e5")
    s.text(x0 + 85, y + 20, "5 V supply", 12, "middle", "bold")
    s.text(x0 + 85, y + 37, "≥ 2.5 A (USB-C or barrel)", 10, "middle")
    vx = x0 + 200
    s.line([(x0 + 170, y + 25), (vx, y + 25)], COL["v5"], 2.4, net="+5v")
    s.rail(vx + 4, y + 25, "+5V", COL["v5"], "start")
    # the board's supply pin
    ys = pos["supply_in"]
    s.line([(rx, ys), (rx + 44, ys)], COL["v5"], 2, net="+5v")
    s.buffer(rx + 14, ys, rx + 26, COL["v5"])  # D1 (Schottky), pointing into the board
    s.line([(rx + 14, ys - 7), (rx + 14, ys + 7)], COL["v5"], 2)
    s.text(rx + 20, ys - 10, "D1", 9, "middle", col=COL["v5"])
    s.rail(rx + 46, ys, "+5V", COL["v5"], "start")
    s.line([(rx, pos["gnd"]), (rx + 20, pos["gnd"])], net="gnd")
    s.ground(rx + 20, pos["gnd"])
    yb = y + 80
    s.rect(x0, yb, 170, 62, fill="#fff4e5")
    s.text(x0 + 85, yb + 18, "U4: 3.3 V buck ≥ 1 A", 11, "middle", "bold")
    s.text(x0 + 85, yb + 34, "IN ← +5V, OUT → 3V3R", 10, "middle")
    s.text(x0 + 85, yb + 50, "100 µF on 3V3R", 9, "middle", col="#555")
    s.line([(x0 + 170, yb + 31), (vx, yb + 31)], COL["pwr"], 2.4, net="3v3r")
    s.rail(vx + 4, yb + 31, "3V3R", anchor="start")
    lines = [
        "3V3R feeds the readers, the 74HC125s and the display",
        "(not %s %s: %s)." % (hw["board"], pw["logic_3v3"]["name"],
                               "limit 300 mA" if board == "pico" else "shared with the ESP32"),
        "+5V feeds %s, %s and the LEDs (1000 µF)." % (pw["supply_in"]["name"], u3),
        "One ground: star point at the supply;",
        "every cable to a reader carries its own GND.",
        "Seat cables (≤ 1 m, 8 cores, stranded Cat5e):",
        "SCK+GND, CS+GND, MISO+3V3R, MOSI+RST",
        "as twisted pairs.",
    ]
    for k, t in enumerate(lines):
        s.text(x0, yb + 86 + 16 * k, t, 10, col="#333")
    height = max(dev_bot, bottoms[n - 1] + 80, yb + 86 + 16 * len(lines)) + 20
    s.size = (1440, int(height))
    return s


def _spi_display(s: Svg, dev_x: int, y: int, ends: dict) -> int:
    """The SSD1306 on the readers' SPI bus (a 7-pin module): its CS, DC and
    RES from the board (``ends``), D0/D1 to the bus's SCK/MOSI by name, its
    supply; returns the y below it."""
    s.rect(dev_x, y, 200, 124, fill="#fdf6ec")
    s.text(dev_x + 100, y + 18, "display SSD1306 128x64", 11, "middle", "bold")
    s.text(dev_x + 100, y + 32, "SPI (7-pin module), mode 0, 4 MHz", 9, "middle", col="#555")
    for k, (_, _, name) in enumerate(DISPLAY_SPI):
        ends[("display_spi", k)] = (dev_x, y + 48 + 20 * k, name)
    for yy, name, net in ((y + 48, "D0 ← SPI SCK", COL["sck"]), (y + 68, "D1 ← SPI MOSI",
                                                                  COL["mosi"])):
        s.pin(dev_x + 200, yy)
        s.text(dev_x + 192, yy + 4, name.split(" ")[0], 10, "end")
        s.rail(dev_x + 220, yy, name.split("← ")[1], net, anchor="start")
        s.line([(dev_x + 200, yy), (dev_x + 218, yy)], net, net=name)
    _display_supply(s, dev_x + 200, y + 88)
    return y + 144


def _display_supply(s: Svg, x: float, y: float) -> None:
    """A display module's VCC (at ``y``, to 3V3R) and GND (20 below) on its right edge ``x``."""
    for yy, p in ((y, "VCC"), (y + 20, "GND")):
        s.pin(x, yy)
        s.text(x - 8, yy + 4, p, 10, "end")
    s.line([(x, y), (x + 18, y)], COL["pwr"], net="3v3r")
    s.rail(x + 20, y, "3V3R", anchor="start")
    s.line([(x, y + 20), (x + 12, y + 20)], net="gnd")
    s.ground(x + 12, y + 20)


# ------------------------------------------------------------------ the parts list

def bom_rows() -> list[dict]:
    import csv
    with (HW / "bom.csv").open(newline="", encoding="utf-8") as f:
        return list(csv.DictReader(f))


def bom_totals(board: str) -> dict[str, float]:
    """EUR for ``board``'s build: ``parts`` (without the table top and the tools),
    ``with_top``, ``tools`` (refs TL*: a crimp tool, not part of the table)."""
    rows = [r for r in bom_rows() if r["boards"] in ("both", board)]

    def cost(keep):
        return round(sum(int(r["qty"]) * float(r["price_eur"]) for r in rows if keep(r)), 2)
    parts = cost(lambda r: not r["ref"].startswith(("TL", "TOP")))
    return {"parts": parts, "with_top": round(parts + cost(lambda r: r["ref"].startswith("TOP")),
                                              2),
            "tools": cost(lambda r: r["ref"].startswith("TL"))}


# ------------------------------------------------------------------ files

README = HW / "README.md"
MARK = re.compile(r"(<!-- pins:(\w+) -->\n)(.*?)(<!-- /pins:\2 -->)", re.S)


def readme_with_tables(text: str) -> str:
    def sub(m):
        return m.group(1) + pin_table(load(m.group(2))) + m.group(4)
    return MARK.sub(sub, text)


def outputs() -> dict[Path, str]:
    """Every file this tool writes, with the text it should hold now."""
    out = {HW / ("wiring-%s.svg" % b): render(load(b), b) for b in BOARDS}
    if README.exists():
        out[README] = readme_with_tables(README.read_text(encoding="utf-8"))
    return out


def check_all() -> list[str]:
    errs = []
    for b in BOARDS:
        hw = load(b)
        errs += ["%s: %s" % (b, e) for e in problems(hw)]
        errs += ["%s: %s" % (b, e) for e in disagreements(hw, board_file(hw))]
    return errs


def main(argv=None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    errs = check_all()
    for e in errs:
        print(e, file=sys.stderr)
    if errs:
        return 1
    stale = [p for p, text in outputs().items()
             if not p.exists() or p.read_text(encoding="utf-8") != text]
    if "--check" in argv:
        for p in stale:
            print("%s is out of date: run %s" % (p.relative_to(ROOT), REGEN), file=sys.stderr)
        return 1 if stale else 0
    for p in stale:
        p.write_text(outputs()[p], encoding="utf-8")
        print("wrote", p.relative_to(ROOT))
    return 0


if __name__ == "__main__":
    sys.exit(main())
