"""Pictures of ``tapptable sim --web`` for the docs (desktop and 320 px wide).

    .venv/bin/python -m tools.tapptable.sim_web.screenshot [--out docs/images]

Starts the page's server in this process; robots play a few deals by
themselves (the clock running fast), then a tab sits down at seat 1 when it is
that seat's turn in the middle of a deal, and headless Chromium (Debian's
/usr/bin/chromium, as in tests/test_sim_web.py) takes the pictures:
``sim-web.png`` and ``sim-web-narrow.png``.
"""
import argparse
import os
import shutil
import sys
import tempfile
import time
from pathlib import Path

from .server import ServerThread

CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic",
                 "--no-first-run", "--disable-background-networking",
                 "--disable-component-update", "--disable-sync"]
ROOT = Path(__file__).resolve().parents[3]


def wait_for(srv, check, what, limit_s=120.0):
    end = time.monotonic() + limit_s
    while time.monotonic() < end:
        if srv.call(check):
            return
        time.sleep(0.05)
    raise RuntimeError("timed out waiting for " + what)


def seat_one_to_play(hub):
    view = hub.view
    return (view.deals_played() >= 3 and hub.tv.mode() == "play" and view.expects() == "card"
            and view.turn() == 0 and view.trick_number() >= 4 and view.trick_size() >= 1
            and not hub.tv.clearing())


def take(out_dir, seed=4):
    chromium = CHROMIUM if os.path.exists(CHROMIUM) else shutil.which("chromium")
    if not chromium:
        raise SystemExit("Chromium is missing: apt-get update && apt-get install -y chromium")
    from playwright.sync_api import sync_playwright
    out_dir.mkdir(parents=True, exist_ok=True)
    profile = tempfile.mkdtemp(prefix="tapptable-shot-")
    with ServerThread(variant="tapp_modern", players=3, mode="strict", seed=seed,
                      robots=True, autoplay=True, speed=12.0) as srv, sync_playwright() as p:
        wait_for(srv, seat_one_to_play, "seat 1's turn in deal 4")
        srv.call(lambda hub: setattr(hub, "robots_on", False))   # hold the table still
        ctx = p.chromium.launch_persistent_context(
            profile, executable_path=chromium, headless=True, args=CHROMIUM_ARGS,
            viewport={"width": 1366, "height": 900})
        page = ctx.new_page()
        page.goto(srv.url)
        page.wait_for_function("window.tappSim && tappSim.states > 0 && tappSim.frames > 0")
        page.click("[data-claim='0']")
        page.wait_for_selector("[data-release='0']")
        srv.call(lambda hub: setattr(hub, "robots_on", True))
        page.locator(".seat[data-seat='0'] .hand .card").first.focus()
        time.sleep(0.5)
        wide = out_dir / "sim-web.png"
        page.screenshot(path=str(wide), full_page=True)
        page.set_viewport_size({"width": 320, "height": 720})
        time.sleep(0.5)
        narrow = out_dir / "sim-web-narrow.png"
        page.screenshot(path=str(narrow), full_page=True)
        ctx.close()
    shutil.rmtree(profile, ignore_errors=True)
    return wide, narrow


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", default=str(ROOT / "docs" / "images"))
    ap.add_argument("--seed", type=int, default=4)
    args = ap.parse_args(argv)
    for path in take(Path(args.out), args.seed):
        print(path)
    return 0


if __name__ == "__main__":
    sys.exit(main())
