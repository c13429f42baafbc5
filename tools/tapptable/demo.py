"""``tapptable demo``: one simulated deal, shown event by event with its outcome.

What the README's first command runs until the virtual table exists: random
legal players, the record they produce, and the engine's answer to each line.
"""
import json
import random

from tapp.replay import Replayer
from tools.tapptable.simulate import Simulator

NAMES = ["Anna", "Bert", "Cora", "Dora", "Emil"]


def describe(ev, seats):
    kind = ev["ev"]
    who = seats[ev["seat"]] if "seat" in ev else ""
    if kind == "deal":
        return "%s deals" % seats[ev["dealer"]]
    if kind == "bid":
        extra = " ".join(str(ev[k]) for k in ("contract", "trump", "value") if k in ev)
        return ("%s: %s %s" % (who, ev["call"], extra)).rstrip()
    if kind == "exchange":
        return "%s exchanges, discards %s" % (who, ev["discard"] or "(unseen)")
    if kind == "rufer":
        return "%s calls %s, gives %s" % (who, ev["card"], ev["give"])
    if kind == "announce":
        return "%s announces %s" % (who, ev["what"])
    if kind == "play":
        return "%s plays %s" % (who, ev["card"])
    return kind


def run_demo(args):
    seed = args.seed if args.seed is not None else random.randrange(1, 10 ** 6)
    seats = NAMES[:args.players]
    # show a deal played to its last trick: skip seeds whose deal ends early
    for _ in range(100):
        sim = Simulator(args.variant, args.players, seed, seats=seats)
        lines = sim.record_lines(args.deals)
        if all(r["points"] is not None and not _ended_early(r, sim) for r in sim.results):
            break
        seed += 1
    print("Simulated %s, %d players, seed %d (repeat with --seed %d)" % (
        args.variant, args.players, seed, seed))
    print()
    rep = Replayer(lines[0])
    for line in lines[1:]:
        ev = json.loads(line)
        out = json.loads(rep.feed(line))
        text = describe(ev, seats)
        if ev["ev"] == "deal":
            print("--- %s ---" % text)
            for seat, hand in enumerate(ev["hands"]):
                if hand:
                    print("  %-5s %s" % (seats[seat], " ".join(hand)))
            print("  talon %s" % " ".join(ev["talon"] or []))
            continue
        mark = "" if out["ok"] else "  REJECTED: %s" % out["error"]
        print("  %s%s" % (text, mark))
        if "trick" in out:
            t = out["trick"]
            print("    trick %d: %s -> %s wins %d points" % (
                t["n"], " ".join(t["cards"]), seats[t["winner"]], t["points"]))
        if "result" in out:
            show_result(out["result"], seats)
    print()
    print("Record (docs/record-format.md) and the engine's outcome lines:")
    rep = Replayer(lines[0])
    print("  " + lines[0])
    for line in lines[1:]:
        print("  %-60s => %s" % (line, rep.feed(line)))
    return 0


def _ended_early(result, sim):
    return sum(result["tricks"]) < sim.view.hand_size()


def show_result(r, seats):
    print()
    if r["declarer"] is None and r["contract"] is None:
        print("  All passed: cards thrown in.")
    elif r["declarer"] is None:
        print("  %s: points %s" % (r["contract"], r["points"]))
    else:
        state = {True: "won", False: "lost", None: "draw"}[r["won"]]
        print("  %s plays %s%s: %d to %d card points, %s" % (
            seats[r["declarer"]], r["contract"],
            " (%s trumps)" % r["trump"] if r["trump"] else "",
            r["points"][0], r["points"][1], state))
    print("  payments: " + ", ".join("%s %+d" % (seats[i], p) for i, p in enumerate(r["payments"])))
    print("  balances: " + ", ".join("%s %+d" % (seats[i], p) for i, p in enumerate(r["balances"])))
    print("  next dealer: %s" % seats[r["next_dealer"]])
    print()
