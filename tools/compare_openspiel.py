"""Random legal deals per second: our engine side by side with OpenSpiel's ``skat``.

A benchmark, not a test: it prints numbers and exits 0. OpenSpiel is NOT a
dependency of this project; run the script from a throwaway virtual
environment outside the repository::

    python3 -m venv /tmp/osenv
    /tmp/osenv/bin/pip install open_spiel
    /tmp/osenv/bin/python tools/compare_openspiel.py            # table
    /tmp/osenv/bin/python tools/compare_openspiel.py --deals 1000 --json

The script puts the repository's ``firmware/`` and root on ``sys.path`` itself,
so ``import tapp`` and ``tools.tapptable.simulate`` work without installing the
project into that environment (only the standard library and ``pyspiel`` are
needed).

What it measures, in one process, each measurement ``--repeats`` times
(default 9: a shared machine's slow moments move single runs by several per
cent) in alternation, reporting the median:

- OpenSpiel: ``pyspiel.load_game("skat")``; random playouts from Python --
  chance nodes resolved by sampling ``state.chance_outcomes()``, player nodes by
  ``random.choice(state.legal_actions())`` -- until ``state.is_terminal()``.
- ours: ``Simulator(variant, players, seed, "strict").run(N)`` from
  ``tools/tapptable/simulate.py`` (what ``tapptable simulate`` runs, without
  writing JSON), for tapp_modern/3, wuerttemberg/3 and haferltarock/4. When a
  session ends early (the bank or Haferl runs dry), the simulator starts the
  next one at the same table (``Simulator.next_session``: a new session, the
  random stream going on) until N deals were played; all of it is timed.
  haferltarock/4 with ``shortfall=refill`` is shown as well (no session ends).

Each side gets a warm-up of N/10 deals (at least 50) before the timed runs.
The ratio column is ours / OpenSpiel in deals per second; the team's target
is 1.5.

Exit status: 0 after measuring; 2 when ``pyspiel`` cannot be imported.
"""
import argparse
import gc
import json
import os
import platform
import random
import statistics
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
INSTALL_HINT = ("python3 -m venv /tmp/osenv && /tmp/osenv/bin/pip install open_spiel && "
                "/tmp/osenv/bin/python tools/compare_openspiel.py")
TARGET = 1.5
# (label, variant, players, options)
OURS = (
    ("ours tapp_modern/3", "tapp_modern", 3, None),
    ("ours wuerttemberg/3", "wuerttemberg", 3, None),
    ("ours haferltarock/4", "haferltarock", 4, None),
    ("ours haferltarock/4 refill", "haferltarock", 4, {"shortfall": "refill"}),
)


def _setup_path():
    for p in (ROOT, os.path.join(ROOT, "firmware")):
        if p in sys.path:
            sys.path.remove(p)
        sys.path.insert(0, p)


def openspiel_run(pyspiel_game, deals, seed):
    """Play ``deals`` random skat games; return (seconds, steps applied)."""
    rng = random.Random(seed)
    rand = rng.random
    choice = rng.choice
    steps = 0
    t0 = time.perf_counter()
    for _ in range(deals):
        state = pyspiel_game.new_initial_state()
        while not state.is_terminal():
            if state.is_chance_node():
                r = rand()
                acc = 0.0
                outcomes = state.chance_outcomes()
                action = outcomes[-1][0]
                for a, p in outcomes:
                    acc += p
                    if r < acc:
                        action = a
                        break
            else:
                action = choice(state.legal_actions())
            state.apply_action(action)
            steps += 1
    return time.perf_counter() - t0, steps


def ours_run(simulator_cls, variant, players, options, deals, seed):
    """Play ``deals`` deals through Simulator.run; return (seconds, events, sessions)."""
    t0 = time.perf_counter()
    sim = simulator_cls(variant, players, seed, "strict", options=options)
    played = len(sim.run(deals))
    sessions = 1
    while played < deals:           # the bank or Haferl ran dry: the next session
        sim.next_session()
        played = len(sim.run(deals - played))
        sessions += 1
    return time.perf_counter() - t0, sim.steps, sessions


def measure(deals, repeats, seed):
    import pyspiel

    from tools.tapptable.simulate import Simulator

    game = pyspiel.load_game("skat")
    jobs = [("openspiel skat/3", lambda n, s: openspiel_run(game, n, s))]
    for label, variant, players, options in OURS:
        jobs.append((label, lambda n, s, v=variant, p=players, o=options:
                     ours_run(Simulator, v, p, o, n, s)))

    warm = max(50, deals // 10)
    for _, fn in jobs:
        fn(warm, seed + 999)

    runs = {label: [] for label, _ in jobs}
    extra = {label: {} for label, _ in jobs}
    for rep in range(repeats):
        order = jobs if rep % 2 == 0 else jobs[::-1]   # alternate the order too
        for label, fn in order:
            gc.collect()
            out = fn(deals, seed + rep * 1000)
            dt = out[0]
            runs[label].append(deals / dt)
            extra[label]["steps_per_deal"] = out[1] / deals
            if len(out) > 2:
                extra[label]["sessions"] = out[2]

    base = statistics.median(runs["openspiel skat/3"])
    rows = []
    for label, _ in jobs:
        med = statistics.median(runs[label])
        rows.append({
            "name": label,
            "runs_deals_per_s": [round(x, 1) for x in runs[label]],
            "median_deals_per_s": round(med, 1),
            "ratio_vs_openspiel": round(med / base, 3),
            "steps_per_deal": round(extra[label]["steps_per_deal"], 1),
            "sessions": extra[label].get("sessions"),
        })
    return rows


def _version(dist):
    try:
        from importlib.metadata import version
        return version(dist)
    except Exception:
        return "unknown"


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--deals", type=int, default=3000, help="deals per timed run (3000)")
    ap.add_argument("--repeats", type=int, default=9, help="timed runs per side (9)")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--json", action="store_true", help="machine-readable output")
    args = ap.parse_args(argv)
    if args.deals < 1 or args.repeats < 1:
        ap.error("--deals and --repeats must be at least 1")

    try:
        import pyspiel  # noqa: F401
    except ImportError:
        print("pyspiel not importable; run from a throwaway env: %s" % INSTALL_HINT)
        return 2
    _setup_path()

    rows = measure(args.deals, args.repeats, args.seed)
    meta = {
        "deals": args.deals, "repeats": args.repeats, "seed": args.seed,
        "target_ratio": TARGET, "python": platform.python_version(),
        "implementation": platform.python_implementation(),
        "open_spiel": _version("open_spiel"), "machine": platform.machine(),
    }
    if args.json:
        print(json.dumps({"meta": meta, "results": rows}, indent=1))
        return 0
    print("Random legal deals/s, %d deals x %d runs (median), %s %s, open_spiel %s" % (
        args.deals, args.repeats, meta["implementation"], meta["python"], meta["open_spiel"]))
    print("%-28s %10s %8s %11s  %s" % ("", "deals/s", "ratio", "steps/deal", "runs"))
    for r in rows:
        note = "" if not r["sessions"] or r["sessions"] == 1 else \
            "  (%d sessions)" % r["sessions"]
        print("%-28s %10.0f %7.2fx %11.1f  %s%s" % (
            r["name"], r["median_deals_per_s"], r["ratio_vs_openspiel"], r["steps_per_deal"],
            " ".join("%.0f" % x for x in r["runs_deals_per_s"]), note))
    print("ratio = ours / OpenSpiel (target %.1fx); steps = OpenSpiel actions incl. chance, "
          "ours = record events" % TARGET)
    return 0


if __name__ == "__main__":
    sys.exit(main())
