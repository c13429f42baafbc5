#!/usr/bin/env python3
"""Make the documentation's pictures of the virtual table; rerun after a change.

    .venv/bin/python tools/screenshots.py [--out docs/images] [--keep-svg]

* ``sim-terminal.png``: the terminal view (``tapptable sim``, Textual) in the
  middle of the first trick, 180x50 cells. Textual saves the screen as SVG
  (``App.save_screenshot``); the SVG is turned into PNG by ``rsvg-convert``
  (Debian/Ubuntu: ``apt-get install librsvg2-bin``; macOS: ``brew install
  librsvg``). Before that, the OLED's half-block characters are redrawn as
  rectangles, so the picture shows the display pixel for pixel (a font's block
  glyphs leave gaps between text lines), and the font is pinned to DejaVu Sans
  Mono (Textual's SVG asks for Fira Code, usually not installed).
* ``oled-play.png``: the same moment straight from the SSD1306 model
  (``board.oled.save_png``), 4x scaled.

Both come from a fixed seed with the wall clock off, so a rerun gives the same
pictures unless the firmware's screens or the view changed.
"""
from __future__ import annotations

import argparse
import asyncio
import html
import re
import shutil
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
for _p in (ROOT, ROOT / "firmware"):
    if str(_p) not in sys.path:
        sys.path.insert(0, str(_p))

SIZE = (180, 50)
SEED = 1
SEATS = ("Anna", "Bert", "Cora")
BLOCKS = set(" ▀▄█")
FONT = "DejaVu Sans Mono"

TEXT_RE = re.compile(r'<text class="([^"]+)" x="([\d.]+)" y="([\d.]+)" textLength="([\d.]+)"'
                     r'[^>]*>([^<]*)</text>')


async def _stage(out: Path):
    """Drive the view to the picture's moment; returns (svg text, app)."""
    from tools.tapptable.sim_tui import SimApp

    app = SimApp(seed=SEED, realtime=False, auto=False, seats=SEATS)
    async with app.run_test(size=SIZE) as pilot:
        s = app.seating
        await pilot.press("d")                                  # the dealer deals
        for _ in range(40):                                     # auction, up to trick 1
            if s.mode() == "play" and s.view.expects() == "card" \
                    and not s.table_view.menu_size() and s.view.trick_size() >= 1 \
                    and s.actor() == s.you:
                break
            s.follow()
            if s.table_view.menu_size() and s.you in s.people.menu_seats():
                await pilot.press("o")                          # your question: the entry shown
            else:
                await pilot.press("a")
        hand = s.your_hand()
        legal = [c for c in s.view.legal_cards() if c in hand]
        if legal:                                               # the cursor on a card
            for _ in range(hand.index(legal[-1])):
                await pilot.press("right")
        await pilot.pause()
        svg = app.export_screenshot(title="tapptable sim")
        s.table.board.oled.save_png(out / "oled-play.png")
    return svg


def blocks_to_rects(svg: str) -> str:
    """Redraw text runs made only of half blocks as rectangles (exact pixels)."""
    fills = dict(re.findall(r"\.([\w-]+) \{ fill: (#[0-9a-fA-F]{6})", svg))
    line_h = float(re.search(r"line-height: ([\d.]+)px", svg).group(1))
    baseline = float(re.search(r'y="([\d.]+)" textLength', svg).group(1))
    top_off = baseline - (baseline // line_h) * line_h - 1.5  # baseline below row top

    def repl(m):
        cls, x, y, length, body = m.groups()
        text = html.unescape(body).replace("\xa0", " ")
        if not text or set(text) - BLOCKS or not set(text) - {" "}:
            return m.group(0)
        fill = fills.get(cls, "#ffffff")
        cell = float(length) / len(text)
        top = float(y) - top_off
        half = line_h / 2
        rects = []
        for part, on in ((0, "▀█"), (1, "▄█")):
            k = 0
            while k < len(text):
                if text[k] in on:
                    j = k
                    while j < len(text) and text[j] in on:
                        j += 1
                    rects.append('<rect fill="%s" x="%.2f" y="%.2f" width="%.2f" height="%.2f" '
                                 'shape-rendering="crispEdges"/>' % (
                                     fill, float(x) + k * cell, top + part * half,
                                     (j - k) * cell, half))
                    k = j
                else:
                    k += 1
        return "".join(rects)
    svg = TEXT_RE.sub(repl, svg)
    return svg.replace("font-family: Fira Code, monospace;", "font-family: %s, monospace;"
                       % FONT)


def to_png(svg_path: Path, png_path: Path) -> None:
    tool = shutil.which("rsvg-convert")
    if tool is None:
        sys.exit("screenshots: rsvg-convert not found (apt-get install librsvg2-bin, "
                 "or brew install librsvg)")
    subprocess.run([tool, "--format", "png", "--output", str(png_path), str(svg_path)],
                   check=True)


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--out", default=str(ROOT / "docs" / "images"), help="folder for the PNGs")
    p.add_argument("--keep-svg", action="store_true", help="also keep sim-terminal.svg")
    args = p.parse_args(argv)
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    svg = blocks_to_rects(asyncio.run(_stage(out)))
    svg_path = out / "sim-terminal.svg"
    svg_path.write_text(svg, encoding="utf-8")
    to_png(svg_path, out / "sim-terminal.png")
    if not args.keep_svg:
        svg_path.unlink()
    for name in ("sim-terminal.png", "oled-play.png"):
        print("wrote %s (%d bytes)" % (out / name, (out / name).stat().st_size))
    return 0


if __name__ == "__main__":
    sys.exit(main())
