"""Property and robustness tests for the rules engine.

Checked against docs/record-format.md (record format, outcome lines,
conventions 1-12) and docs/rules 1.5 (trick play), 1.8 (auctions), 2.1-2.3
(wuerttemberg, tapp_classic, tapp_modern) and 3 (irregularities).

Random records come from the simulator (``tools/tapptable/simulate.py``),
which only makes moves the engine itself calls legal; the fuzz tests then
damage those records.  Hypothesis runs derandomized and without an example
database, so every run (and CI) sees the same examples.
"""
import json
import os

import pytest
from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st

from tapp.cards import CARD_CODES, DECKS, mask_cards
from tapp.catalog import variant_ids
from tapp.record import crc_hex, with_crc
from tapp.replay import Replayer, open_session
from tapp.variants import HeaderError
from tools.tapptable.simulate import Simulator

# ----------------------------------------------------------------------------- setup

# (variant, players, options): the variants of docs/rules 2.1-2.3, plus a few
# option sets that change settlement (pot) or the auction/play order.
CONFIGS = [
    ("wuerttemberg", 3, {}),
    ("wuerttemberg", 3, {"pot": True, "tout_factor": 2}),
    ("tapp_classic", 3, {}),
    ("tapp_classic", 3, {"pot": True, "pot_ante": 5}),
    ("tapp_modern", 3, {}),
    ("tapp_modern", 3, {"first_bidder": "middlehand", "bettel_order": "normal",
                        "ramsch_tie": "none_pay"}),
    ("tapp_modern", 4, {}),
    ("tapp_modern", 4, {"pack": 32}),
]
MODES = ("strict", "open")
DIRECTION = {"wuerttemberg": 1, "tapp_classic": 1, "tapp_modern": -1}

ERROR_CODES = {
    "unknown_card", "not_in_deck", "card_used", "not_in_hand", "not_your_turn",
    "wrong_phase", "must_follow", "must_trump", "must_overtrump", "illegal_call",
    "illegal_contract", "illegal_discard", "illegal_announce", "bad_event",
}
BAD_EVENT = {"ok": False, "error": "bad_event"}


# TAPP_FUZZ_SCALE=20 runs 20x the examples; TAPP_FUZZ_RANDOM=1 draws fresh random
# examples instead of the fixed derandomized ones (for local bug hunting, not CI).
_SCALE = float(os.environ.get("TAPP_FUZZ_SCALE", "1"))
_DERANDOMIZE = os.environ.get("TAPP_FUZZ_RANDOM", "") in ("", "0")


def _settings(n, **kw):
    return settings(max_examples=max(1, int(n * _SCALE)), derandomize=_DERANDOMIZE,
                    database=None, deadline=None,
                    print_blob=False,
                    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
                    **kw)


def dumps(obj):
    return json.dumps(obj, separators=(",", ":"))


def make_header(variant, players, mode="strict", options=None, first_dealer=0):
    return dumps({"record": 1, "variant": variant, "players": players,
                  "seats": ["P%d" % i for i in range(players)], "options": options or {},
                  "first_dealer": first_dealer, "mode": mode})


class SimRecord:
    """A simulated record: header line, event lines and the simulator's results."""

    def __init__(self, variant, players, options, mode, seed, deals, first_dealer):
        sim = Simulator(variant, players, seed, mode, options=dict(options),
                        first_dealer=first_dealer)
        lines = sim.record_lines(deals)
        self.variant = variant
        self.players = players
        self.options = options
        self.mode = mode
        self.seed = seed
        self.deals = deals
        self.first_dealer = first_dealer
        self.header = lines[0]
        self.lines = lines[1:]
        self.events = [json.loads(x) for x in self.lines]
        self.results = sim.results

    def __repr__(self):
        return "SimRecord(%r, %d, %r, %r, seed=%d, deals=%d, first_dealer=%d)" % (
            self.variant, self.players, self.options, self.mode, self.seed, self.deals,
            self.first_dealer)


@st.composite
def sim_records(draw, max_deals=4, configs=CONFIGS, modes=MODES):
    variant, players, options = draw(st.sampled_from(configs))
    mode = draw(st.sampled_from(modes))
    seed = draw(st.integers(0, 2**32 - 1))
    deals = draw(st.integers(1, max_deals))
    first = draw(st.integers(0, players - 1))
    return SimRecord(variant, players, options, mode, seed, deals, first)


def feed_checked(rep, line):
    """Feed one line; the outcome must be None (blank line) or one JSON object with ok."""
    out = rep.feed(line)
    if out is None:
        assert not line.strip(), "non-blank line %r gave no outcome" % (line,)
        return None
    assert isinstance(out, str) and "\n" not in out, (line, out)
    obj = json.loads(out)
    assert isinstance(obj, dict), (line, out)
    assert obj.get("ok") in (True, False), (line, out)
    if obj["ok"] is False:
        assert obj.get("error") in ERROR_CODES, (line, out)
    return out


def replay(header, lines):
    """Outcome lines (strings, None for blank lines) of a record."""
    rep = Replayer(header)
    return [feed_checked(rep, line) for line in lines]


def parsed(outs):
    return [None if o is None else json.loads(o) for o in outs]


def deal_segments(events, outs):
    """[(start, end)] index ranges of each deal: its deal event .. its result line."""
    segs = []
    start = None
    for i, (ev, out) in enumerate(zip(events, outs, strict=True)):
        if ev.get("ev") == "deal":
            assert start is None, "deal event %d while deal from %s is unfinished" % (i, start)
            start = i
        if "result" in out:
            assert start is not None, "result at %d without a deal" % i
            segs.append((start, i))
            start = None
    assert start is None, "the last deal (from event %d) never finished" % start
    return segs


def hand_size(players, options):
    if players == 4:
        return 7 if options.get("pack") == 32 else 8
    return 11


# ------------------------------------------------------------ 1. simulated records


@_settings(60)
@given(sim_records())
def test_simulated_records_replay_without_rejection(rec):
    outs = parsed(replay(rec.header, rec.lines))
    rejected = [(i, rec.lines[i], o) for i, o in enumerate(outs) if not o["ok"]]
    assert rejected == []
    results = [o["result"] for o in outs if "result" in o]
    assert results == rec.results
    # Every deal terminates: deal .. result segments, one per deal, of bounded length.
    segs = deal_segments(rec.events, outs)
    assert len(segs) == rec.deals == len(rec.results)
    n = rec.players
    bound = n * hand_size(n, rec.options) + 4 * n + 12
    for a, b in segs:
        assert b - a + 1 <= bound
    # Dealer rotation (docs/record-format.md convention 4, docs/rules D01).
    dealer = rec.first_dealer
    for (a, _b), res in zip(segs, results, strict=True):
        assert rec.events[a]["dealer"] == dealer
        assert res["next_dealer"] == (dealer + DIRECTION[rec.variant]) % n
        dealer = res["next_dealer"]


LEGALITY_CONFIGS = CONFIGS + [("herzblatt", 4, {}), ("herzblatt_muhr", 4, {}),
                              ("haferltarock", 4, {}), ("scharfer_tarock", 4, {})]


@_settings(20)
@given(sim_records(max_deals=1, modes=("strict",), configs=LEGALITY_CONFIGS))
def test_legal_masks_name_exactly_the_cards_play_accepts(rec):
    """The view's legal cards (what the robots draw from and the screens show)
    are the cards ``Session.play`` accepts, asked of a fresh session at every
    turn: the duties are stated once (``Tricks.legal_in``) and the play path's
    shortcut must agree with it (docs/rules 1.5 rules 1, 2 and 4)."""
    masks = [0, 0, 0, 0]
    for i, ev in enumerate(rec.events):
        if ev.get("ev") != "play":
            continue
        before = open_session(rec.header)
        for line in rec.lines[:i]:
            before.apply(json.loads(line))
        seat = before.view.turn()
        before.view.legal_masks(masks)
        named = set(mask_cards(masks))
        accepted = set()
        for card in [CARD_CODES.index(c) for c in before.view.hand(seat)]:
            trial = open_session(rec.header)
            for line in rec.lines[:i]:
                trial.apply(json.loads(line))
            if trial.play(seat, card) == 0:
                accepted.add(card)
        assert named == accepted, (i, seat, sorted(named), sorted(accepted))


# ----------------------------------------------------------------- 2. card points


@_settings(60)
@given(sim_records())
def test_card_points_add_up_to_120(rec):
    outs = parsed(replay(rec.header, rec.lines))
    n = rec.players
    for a, b in deal_segments(rec.events, outs):
        res = outs[b]["result"]
        tricks = [o["trick"] for o in outs[a:b + 1] if "trick" in o]
        # trick sequence: numbered 1.., each led by the previous winner, all cards distinct
        played = [c for t in tricks for c in t["cards"]]
        assert len(played) == len(set(played))
        for k, t in enumerate(tricks):
            assert t["n"] == k + 1
            assert len(t["cards"]) == n
            if k:
                assert t["leader"] == tricks[k - 1]["winner"]
        if tricks:
            assert tricks[0]["leader"] == (rec.events[a]["dealer"] + DIRECTION[rec.variant]) % n
        if res["contract"] is None:  # thrown in (docs/record-format.md convention 2)
            for key in ("declarer", "contract", "trump", "target", "points", "tricks", "won"):
                assert res[key] is None, key
            assert tricks == []
            continue
        if res["declarer"] is None:  # Ramsch: per seat, tapp to the last trick's winner
            pts = res["points"]
            assert len(pts) == n and sum(pts) == 120
            assert len(tricks) == hand_size(n, rec.options)
            own = [sum(t["points"] for t in tricks if t["winner"] == s) for s in range(n)]
            own[tricks[-1]["winner"]] += 120 - sum(own)
            assert pts == own
            assert res["tricks"] == [sum(1 for t in tricks if t["winner"] == s) for s in range(n)]
            assert res["won"] is None
            if "penalty" not in res:  # docs/rules 2.3 Ramsch, Jungfer, D13 ties
                top = max(pts)
                losers = [s for s in range(n) if pts[s] == top]
                if len(losers) == n or (len(losers) > 1
                                        and rec.options.get("ramsch_tie") == "none_pay"):
                    losers = []
                want = [0] * n
                for lo in losers:
                    for s in range(n):
                        if s not in losers:
                            amount = 10 if res["tricks"][s] == 0 else 5
                            want[lo] -= amount
                            want[s] += amount
                assert res["payments"] == want
            continue
        decl = res["declarer"]
        d, e = res["points"]
        assert d + e == 120
        assert e == sum(t["points"] for t in tricks if t["winner"] != decl)
        assert res["tricks"] == [sum(1 for t in tricks if t["winner"] == decl),
                                 sum(1 for t in tricks if t["winner"] != decl)]
        if "settled_points" in res:
            assert sum(res["settled_points"]) == 120
        if res["target"] == 61 and "penalty" not in res:
            if d == 60 and rec.variant != "tapp_modern":
                assert res["won"] is None  # 60-60 draw (2.1, 2.2); no draw in 2.3
            else:
                assert res["won"] is (d >= 61)


# ---------------------------------------------------------------- 3. zero sum


@_settings(60)
@given(sim_records(max_deals=6))
def test_payments_are_zero_sum_and_totals_run(rec):
    outs = parsed(replay(rec.header, rec.lines))
    balances = [0] * rec.players
    pot_total = 0
    for o in outs:
        if "result" not in o:
            continue
        res = o["result"]
        assert len(res["payments"]) == rec.players
        assert sum(res["payments"]) + res["pot"] == 0, res
        balances = [x + y for x, y in zip(balances, res["payments"], strict=True)]
        pot_total += res["pot"]
        assert res["balances"] == balances
        assert res["pot_total"] == pot_total
        assert pot_total >= 0


# --------------------------------------------- 4./5. fuzz: never raise; rejections are inert

ALL_CODES = list(CARD_CODES)
JUNK_CODES = ["X9", "H5", "h10", "HA ", "", "S1", "10H", "D11", "C", "SS", "AH", "\u2665A",
              "H\u0000", "H6 ", "CA\t"]
CARD_POOL = ALL_CODES + JUNK_CODES
CALL_POOL = ["pass", "bid", "hold", "declare", "spiele", "weg", "auch", "mehr", "vorn",
             "herz", "nicht_herz", "raise", "besser", "am_besten", "tout", "", "PASS", "Bid"]
CONTRACT_POOL = ["frage", "solo", "suit_solo", "heart_solo", "bettel", "suit_rufer",
                 "heart_rufer", "bettel_ouvert", "suit_durch", "heart_durch", "ramsch", "x", ""]
TRUMP_POOL = ["C", "S", "H", "D", "h", "X", "", "CS"]
EV_POOL = ["deal", "hand", "bid", "exchange", "rufer", "announce", "play", "redeal", "undo",
           "Play", "", "result", "record"]
FIELD_POOL = ["ev", "seat", "dealer", "hands", "talon", "cards", "call", "contract", "trump",
              "value", "discard", "take", "card", "give", "what", "reason"]
NON_OBJECT_LINES = ["[]", "1", "null", '"x"', "true", "[1,2]", '"{\\"ev\\":\\"undo\\"}"',
                    "{}", '{"ev":null}', '{"ev":1}', '{"ev":["play"]}', '{"ev":{}}', "{",
                    '{"ev":"play"', "}", "\ufeff{}", '{"ev":"undo"}x', "NaN", "-0", "1e999"]
RAW_VALUES = ["1" + "0" * 5000, "-1" + "0" * 5000, "1e999", "-1e999", "NaN", "Infinity",
              "[" * 40 + "]" * 40, "1.0", "-0", "0.5", '"\\ud800"', "[[[[[[]]]]]]",
              "{" + '"a":{' * 30 + "}" * 31]
HUGE_INTS = [2**31, 2**31 - 1, -2**31, 2**63, -2**63 - 1, 2**64, 10**100, -10**4000]
# Lines a reader should never see split; everything else is fair game.
LINE_CHARS = st.characters(blacklist_characters="\n\r\x0b\x0c\x1c\x1d\x1e\x85\u2028\u2029")

scalars = (st.none() | st.booleans() | st.integers(-10, 10) | st.sampled_from(HUGE_INTS)
           | st.floats(allow_nan=True, allow_infinity=True) | st.text(LINE_CHARS, max_size=4)
           | st.sampled_from(CARD_POOL))
json_values = st.recursive(   # short enough for a record line (4 KB)
    st.none() | st.booleans() | st.integers(-10, 10) | st.sampled_from(HUGE_INTS[:-1])
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(st.characters(blacklist_categories=("Cs",)), max_size=4),
    lambda inner: st.lists(inner, max_size=4)
    | st.dictionaries(st.sampled_from(FIELD_POOL), inner, max_size=3),
    max_leaves=12)
junk_values = st.recursive(
    scalars,
    lambda inner: st.lists(inner, max_size=4)
    | st.dictionaries(st.sampled_from(FIELD_POOL) | st.text(max_size=3), inner, max_size=3),
    max_leaves=12)


def _obj(line):
    try:
        obj = json.loads(line)
    except ValueError:
        return None
    return obj if isinstance(obj, dict) else None


def _card_slots(obj):
    """(container, key) places that hold a card code in an event object."""
    slots = []
    for key in ("card", "give"):
        if isinstance(obj.get(key), str):
            slots.append((obj, key))
    for key in ("cards", "discard", "take", "talon"):
        v = obj.get(key)
        if isinstance(v, list):
            slots.extend((v, i) for i in range(len(v)))
    hands = obj.get("hands")
    if isinstance(hands, list):
        for h in hands:
            if isinstance(h, list):
                slots.extend((h, i) for i in range(len(h)))
    return slots


def random_event(draw, players):
    """A plausible-looking event with random content."""
    kind = draw(st.sampled_from(["play", "bid", "announce", "exchange", "rufer", "hand",
                                 "deal", "undo", "redeal"]))
    seat = draw(st.integers(-1, players))
    cards = st.sampled_from(CARD_POOL)
    if kind == "play":
        return {"ev": "play", "seat": seat, "card": draw(cards)}
    if kind == "bid":
        ev = {"ev": "bid", "seat": seat, "call": draw(st.sampled_from(CALL_POOL))}
        if draw(st.booleans()):
            ev["contract"] = draw(st.sampled_from(CONTRACT_POOL))
        if draw(st.booleans()):
            ev["trump"] = draw(st.sampled_from(TRUMP_POOL))
        return ev
    if kind == "announce":
        return {"ev": "announce", "seat": seat,
                "what": draw(st.sampled_from(["tout", "kontra", "re", "66", "du", "x"]))}
    if kind == "exchange":
        return {"ev": "exchange", "seat": seat,
                "discard": draw(st.none() | st.lists(cards, max_size=5))}
    if kind == "rufer":
        return {"ev": "rufer", "seat": seat, "card": draw(cards),
                "give": draw(st.none() | cards)}
    if kind == "hand":
        return {"ev": "hand", "seat": seat, "cards": draw(st.lists(cards, max_size=12))}
    if kind == "deal":
        return {"ev": "deal", "dealer": draw(st.integers(0, players - 1)), "hands": None,
                "talon": draw(st.none() | st.lists(cards, max_size=5))}
    if kind == "undo":
        return {"ev": "undo"}
    return {"ev": "redeal", "reason": "misdeal"}


def mutate(data, lines, players):
    """One random damage to a list of record lines (returns a new list)."""
    draw = data.draw
    lines = list(lines)
    n = len(lines)
    op = draw(st.sampled_from([
        "drop", "dup", "swap", "move", "seat", "card", "call", "contract", "trump", "ev",
        "del_field", "set_field", "raw_field", "non_object", "garbage", "truncate",
        "crc_good", "crc_bad", "insert", "blank",
    ]), label="op")
    i = draw(st.integers(0, max(n - 1, 0)), label="at")
    if n == 0:
        op = "insert"
    if op == "drop":
        del lines[i]
    elif op == "dup":
        lines.insert(i, lines[i])
    elif op == "swap":
        j = draw(st.integers(0, n - 1))
        lines[i], lines[j] = lines[j], lines[i]
    elif op == "move":
        line = lines.pop(i)
        lines.insert(draw(st.integers(0, n - 1)), line)
    elif op == "non_object":
        lines[i] = draw(st.sampled_from(NON_OBJECT_LINES))
    elif op == "garbage":
        lines[i] = draw(st.text(LINE_CHARS, max_size=40)
                        | st.binary(max_size=40).map(lambda b: b.decode("latin-1")))
    elif op == "truncate":
        lines[i] = lines[i][:draw(st.integers(0, max(len(lines[i]) - 1, 0)))]
    elif op == "crc_good":
        lines[i] = with_crc(lines[i])
    elif op == "crc_bad":
        good = crc_hex(lines[i])
        bad = draw(st.sampled_from(["flip", "short", "long", "nonhex", "upper_flip"]))
        if bad == "flip":
            k = draw(st.integers(0, 7))
            digit = "0" if good[k] != "0" else "1"
            lines[i] = lines[i] + "\t" + good[:k] + digit + good[k + 1:]
        elif bad == "short":
            lines[i] = lines[i] + "\t" + good[:7]
        elif bad == "long":
            lines[i] = lines[i] + "\t" + good + "0"
        elif bad == "nonhex":
            lines[i] = lines[i] + "\tzzzzzzzz"
        else:
            lines[i] = lines[i] + "\t" + ("%08X" % (int(good, 16) ^ 1))
    elif op == "insert":
        if draw(st.booleans()):
            line = dumps(random_event(draw, players))
        else:
            line = draw(st.sampled_from(['{"ev":"undo"}', '{"ev":"redeal","reason":"x"}']))
        lines.insert(i, line)
    elif op == "blank":
        lines.insert(i, draw(st.sampled_from(["", " ", "\t", "  \t "])))
    else:
        obj = _obj(lines[i])
        if obj is None:
            lines[i] = lines[i][::-1]
            return lines
        if op == "seat":
            obj["seat"] = draw(st.integers(-2, players + 1) | st.sampled_from(HUGE_INTS))
        elif op == "card":
            slots = _card_slots(obj)
            if slots:
                box, key = draw(st.sampled_from(slots))
                box[key] = draw(st.sampled_from(CARD_POOL))
            else:
                obj["card"] = draw(st.sampled_from(CARD_POOL))
        elif op == "call":
            obj["call"] = draw(st.sampled_from(CALL_POOL))
        elif op == "contract":
            obj["contract"] = draw(st.sampled_from(CONTRACT_POOL))
        elif op == "trump":
            obj["trump"] = draw(st.sampled_from(TRUMP_POOL))
        elif op == "ev":
            obj["ev"] = draw(st.sampled_from(EV_POOL))
        elif op == "del_field":
            if obj:
                del obj[draw(st.sampled_from(sorted(obj)))]
        elif op == "set_field":
            key = draw(st.sampled_from(sorted(set(obj) | set(FIELD_POOL))))
            obj[key] = draw(junk_values)
        elif op == "raw_field":
            key = draw(st.sampled_from(sorted(set(obj) | set(FIELD_POOL))))
            obj[key] = "@@RAW@@"
            lines[i] = dumps(obj).replace('"@@RAW@@"', draw(st.sampled_from(RAW_VALUES)))
            return lines
        lines[i] = dumps(obj)
    return lines


def check_rejections_inert(header, lines, outs, data):
    """docs/record-format.md: a rejected event changes nothing -- the outcome stream of the other
    lines is the same with the rejected line(s) left out."""
    rejected = [i for i, o in enumerate(outs) if o is not None and not json.loads(o)["ok"]]
    if not rejected:
        return
    drop = data.draw(st.sampled_from(rejected), label="rejected line left out")
    keep = [i for i in range(len(lines)) if i != drop]
    assert replay(header, [lines[i] for i in keep]) == [outs[i] for i in keep]
    gone = set(rejected)
    keep = [i for i in range(len(lines)) if i not in gone]
    assert replay(header, [lines[i] for i in keep]) == [outs[i] for i in keep]


@_settings(250)
@given(rec=sim_records(max_deals=2), data=st.data())
def test_fuzzed_records_never_raise_and_rejections_change_nothing(rec, data):
    lines = rec.lines
    for _ in range(data.draw(st.integers(1, 6), label="mutations")):
        lines = mutate(data, lines, rec.players)
    outs = replay(rec.header, lines)  # feed_checked: never raises, one JSON object with ok
    assert len(outs) == len(lines)
    check_rejections_inert(rec.header, lines, outs, data)


@_settings(150)
@given(rec=sim_records(max_deals=1), data=st.data())
def test_garbage_lines_anywhere_are_bad_event_and_inert(rec, data):
    """Corrupt lines (convention 1) yield bad_event wherever they appear."""
    at = data.draw(st.integers(0, len(rec.lines)))
    junk = data.draw(st.sampled_from(NON_OBJECT_LINES[:13])
                     | st.text(LINE_CHARS, min_size=1, max_size=30).filter(
                         lambda s: s.strip() and _obj(s) is None))
    lines = rec.lines[:at] + [junk] + rec.lines[at:]
    outs = replay(rec.header, lines)
    assert json.loads(outs[at]) == BAD_EVENT
    assert outs[:at] + outs[at + 1:] == replay(rec.header, rec.lines)


@_settings(40)
@given(rec=sim_records(max_deals=2), data=st.data())
def test_unknown_keys_are_ignored(rec, data):
    """docs/record-format.md: unknown keys are ignored (forward compatible), in events and header.
    Their values are valid JSON (RFC 8259: no NaN/Infinity, no lone surrogates)."""
    extra = st.dictionaries(st.sampled_from(["note", "ts", "x", "v2", "EV", "Seat", "card_"]),
                            json_values, min_size=1, max_size=3)
    lines = []
    for ev in rec.events:
        if data.draw(st.booleans()):
            ev = dict(data.draw(extra), **ev)
        lines.append(dumps(ev))
    header = dict(json.loads(rec.header), comment="x", device={"fw": 1})
    assert replay(dumps(header), lines) == replay(rec.header, rec.lines)


# --------------------------- 4b. a "monkey": engine-guided play mixed with random events


def monkey_event(draw, session, players, mode, pending):
    """Mostly a move the engine allows now, sometimes a random (often illegal) one.

    ``pending`` keeps the strict-mode hands of the current deal that were left out of
    the deal event and arrive by ``hand`` events (docs/record-format.md convention 5).
    """
    if draw(st.integers(0, 9)) == 0:
        return random_event(draw, players)
    if not session.in_progress():
        hands = None
        talon = None
        pending.clear()
        if mode == "strict":
            cards = mask_cards(DECKS[session.rules.deck])
            order = draw(st.permutations(range(len(cards))))
            cards = [CARD_CODES[cards[k]] for k in order]
            hs = session.rules.hand_size
            hands = [cards[k * hs:(k + 1) * hs] for k in range(players)]
            talon = cards[players * hs:]
            how = draw(st.sampled_from(["all", "all", "some_null", "none"]))
            if how != "all":
                for seat in range(players):
                    if how == "none" or draw(st.booleans()):
                        pending[seat] = hands[seat]
                        hands[seat] = None
                if how == "none":
                    hands = None
                if draw(st.booleans()):
                    talon = None
        return {"ev": "deal", "dealer": session.view.dealer(), "hands": hands, "talon": talon}
    view = session.view
    phase = view.phase()
    seat = view.turn()
    if phase == "hands":
        unknown = [s for s in sorted(pending) if not view.hand_known(s)]
        if unknown:
            s = draw(st.sampled_from(unknown))
            return {"ev": "hand", "seat": s, "cards": pending[s]}
    if phase in ("auction", "declare"):
        calls = view.legal_calls()
        if calls:
            return draw(st.sampled_from(calls))
    if phase == "exchange":
        if mode == "open":
            return {"ev": "exchange", "seat": seat, "discard": draw(st.sampled_from([None, []]))}
        pool = view.hand(seat) + view.talon()
        pick = draw(st.permutations(pool))[:session.rules.talon_size]
        ev = {"ev": "exchange", "seat": seat, "discard": pick}
        if draw(st.booleans()):
            ev["take"] = view.talon()
        return ev
    if phase == "rufer":
        return {"ev": "rufer", "seat": seat, "card": draw(st.sampled_from(ALL_CODES)),
                "give": draw(st.none() | st.sampled_from(ALL_CODES))}
    if phase == "play":
        if draw(st.integers(0, 19)) == 0:
            return {"ev": "undo"}
        if view.trick_number() == 1 and not view.trick_size() and draw(st.integers(0, 9)) == 0:
            return {"ev": "announce", "seat": view.declarer(), "what": "tout"}
        if mode == "strict":
            cards = view.legal_cards()
            card = draw(st.sampled_from(cards)) if cards else "X9"
        else:
            card = draw(st.sampled_from(ALL_CODES))
        return {"ev": "play", "seat": seat, "card": card}
    return random_event(draw, players)


@_settings(120)
@given(config=st.sampled_from(CONFIGS), mode=st.sampled_from(MODES), data=st.data())
def test_monkey_streams_never_raise_and_rejections_change_nothing(config, mode, data):
    variant, players, options = config
    header = make_header(variant, players, mode, options)
    rep = Replayer(header)
    lines = []
    outs = []
    pending = {}
    for _ in range(data.draw(st.integers(20, 200), label="events")):
        ev = monkey_event(data.draw, rep.session, players, mode, pending)
        line = dumps(ev)
        lines.append(line)
        outs.append(feed_checked(rep, line))
    results = [o["result"] for o in parsed(outs) if "result" in o]
    for res in results:
        assert sum(res["payments"]) + res["pot"] == 0
        if res["points"] is not None:
            assert sum(res["points"]) == 120
        if "settled_points" in res:
            assert sum(res["settled_points"]) == 120
    event("deals finished: %d" % min(len(results), 3))   # --hypothesis-show-statistics
    if any("penalty" in res for res in results):
        event("a revoke decided a deal")
    check_rejections_inert(header, lines, outs, data)
    # Event sourcing: an accepted event inside a deal followed by undo is the same as
    # that event never having been there (docs/record-format.md convention 11).
    inside = [i for i, (line, o) in enumerate(zip(lines, parsed(outs), strict=True))
              if o["ok"] and "result" not in o
              and json.loads(line)["ev"] not in ("undo", "redeal")]
    if inside:
        k = data.draw(st.sampled_from(inside), label="undone event")
        with_undo = replay(header, lines[:k + 1] + ['{"ev":"undo"}'] + lines[k + 1:])
        assert json.loads(with_undo[k + 1]) == {"ok": True}
        without = replay(header, lines[:k] + lines[k + 1:])
        assert with_undo[k + 2:] == without[k:]


# --------------------------------------------------------------------------- 6. undo


@_settings(100)
@given(rec=sim_records(max_deals=3), data=st.data())
def test_undo_then_refeed_gives_the_same_outcomes(rec, data):
    outs = replay(rec.header, rec.lines)
    objs = parsed(outs)
    starts = {}
    start = None
    for i, ev in enumerate(rec.events):
        if ev["ev"] == "deal":
            start = i
        starts[i] = start
    # cut points inside a deal: the event did not finish the deal
    cuts = [i for i, o in enumerate(objs) if "result" not in o]
    k = data.draw(st.sampled_from(cuts), label="cut after event")
    depth = data.draw(st.integers(1, k - starts[k] + 1), label="undos")
    rep = Replayer(rec.header)
    for line in rec.lines[:k + 1]:
        rep.feed(line)
    for _ in range(depth):
        assert json.loads(rep.feed('{"ev":"undo"}')) == {"ok": True}
    if depth == k - starts[k] + 1:  # the deal event itself was taken back
        assert json.loads(rep.feed('{"ev":"undo"}')) == {"ok": False, "error": "wrong_phase"}
    again = [rep.feed(line) for line in rec.lines[k + 1 - depth:]]
    assert again == outs[k + 1 - depth:]


@_settings(40)
@given(rec=sim_records(max_deals=3), data=st.data())
def test_undo_without_deal_in_progress_is_wrong_phase(rec, data):
    outs = replay(rec.header, rec.lines)
    ends = [i for i, o in enumerate(parsed(outs)) if "result" in o]
    cut = data.draw(st.sampled_from([-1] + ends), label="after result")  # -1: before any deal
    lines = rec.lines[:cut + 1] + ['{"ev":"undo"}', '{"ev":"undo"}'] + rec.lines[cut + 1:]
    got = replay(rec.header, lines)
    wrong = dumps({"ok": False, "error": "wrong_phase"})
    assert got[cut + 1] == got[cut + 2] == wrong
    assert got[:cut + 1] + got[cut + 3:] == outs


def test_undo_after_redeal_and_after_undoing_the_deal_is_wrong_phase():
    rec = SimRecord("tapp_modern", 3, {}, "strict", 7, 1, 0)
    rep = Replayer(rec.header)
    assert json.loads(rep.feed(rec.lines[0]))["ok"]
    assert json.loads(rep.feed(rec.lines[1]))["ok"]
    assert json.loads(rep.feed('{"ev":"redeal","reason":"x"}')) == {"ok": True}
    assert json.loads(rep.feed('{"ev":"undo"}')) == {"ok": False, "error": "wrong_phase"}
    assert json.loads(rep.feed(rec.lines[0])) == {"ok": True}  # same dealer deals again
    assert json.loads(rep.feed('{"ev":"undo"}')) == {"ok": True}
    assert json.loads(rep.feed('{"ev":"undo"}')) == {"ok": False, "error": "wrong_phase"}
    assert replay_rest(rep, rec.lines) == replay(rec.header, rec.lines)


def replay_rest(rep, lines):
    return [rep.feed(line) for line in lines]


# ---------------------------------------------------------------------------- 7. CRC


@_settings(60)
@given(rec=sim_records(max_deals=2), data=st.data())
def test_crc_suffix_accepted_like_bare_line_and_bad_crc_is_bad_event(rec, data):
    outs = replay(rec.header, rec.lines)
    flags = data.draw(st.lists(st.booleans(), min_size=len(rec.lines),
                               max_size=len(rec.lines)), label="with crc")
    crc_lines = [with_crc(x) if f else x for x, f in zip(rec.lines, flags, strict=True)]
    assert replay(with_crc(rec.header), crc_lines) == outs
    # a wrong CRC is a corrupt line: bad_event, nothing changes
    k = data.draw(st.integers(0, len(rec.lines) - 1), label="corrupted line")
    good = crc_hex(rec.lines[k])
    pos = data.draw(st.integers(0, 7))
    bad = good[:pos] + ("0" if good[pos] != "0" else "f") + good[pos + 1:]
    lines = rec.lines[:k] + [rec.lines[k] + "\t" + bad] + rec.lines[k:]
    got = replay(rec.header, lines)
    assert json.loads(got[k]) == BAD_EVENT
    assert got[:k] + got[k + 1:] == outs


def test_crc_known_value_and_torn_line():
    line = '{"ev":"undo"}'
    assert crc_hex(line) == "%08x" % (__import__("zlib").crc32(line.encode()) & 0xFFFFFFFF)
    rep = Replayer(make_header("wuerttemberg", 3))
    assert json.loads(rep.feed(with_crc(line))) == {"ok": False, "error": "wrong_phase"}
    assert json.loads(rep.feed(with_crc(line)[:-3])) == BAD_EVENT  # torn: CRC cut short
    assert json.loads(rep.feed(line + "\t" + crc_hex(line + " "))) == BAD_EVENT


# ---------------------------------------------------- 8. stable error codes, plain tests

W_HANDS = [
    ["HJ", "H9", "H8", "H7", "H6", "DA", "D10", "DK", "DQ", "DJ", "D9"],   # seat 0 (dealer)
    ["CA", "C10", "CK", "CQ", "CJ", "C9", "C8", "C7", "C6", "SA", "S10"],  # seat 1 forehand
    ["SK", "SQ", "SJ", "S9", "S8", "S7", "S6", "HA", "H10", "HK", "HQ"],   # seat 2
]
W_TALON = ["D8", "D7", "D6"]


def W_DEAL(hands=None, talon=None, dealer=0):
    return {"ev": "deal", "dealer": dealer, "hands": hands or W_HANDS,
            "talon": W_TALON if talon is None else talon}


def bid(seat, call, **kw):
    return dict({"ev": "bid", "seat": seat, "call": call}, **kw)


def play(seat, card):
    return {"ev": "play", "seat": seat, "card": card}


def run_script(header, steps):
    """Feed (event, expected) steps.  ``expected`` is "ok", an error code, or a full
    outcome dict.  Then check the errors changed nothing: the same script without the
    refused lines gives the same outcomes for the accepted ones."""
    rep = Replayer(header)
    outs = []
    for ev, want in steps:
        line = ev if isinstance(ev, str) else dumps(ev)
        out = json.loads(feed_checked(rep, line))
        outs.append(out)
        if isinstance(want, dict):
            assert out == want, (line, out)
        elif want == "ok":
            assert out["ok"] is True, (line, out)
        else:
            assert out["ok"] is False and out["error"] == want, (line, out)
    good = [(ev, o) for (ev, want), o in zip(steps, outs, strict=True) if o["ok"]]
    rep2 = Replayer(header)
    for ev, o in good:
        line = ev if isinstance(ev, str) else dumps(ev)
        assert json.loads(rep2.feed(line)) == o, line
    return rep, outs


def test_error_codes_wuerttemberg_strict():
    h = make_header("wuerttemberg", 3)
    dup = [list(x) for x in W_HANDS]
    dup[0][0] = "CA"                         # CA twice (seat 0 and seat 1)
    unknown = [list(x) for x in W_HANDS]
    unknown[0][0] = "X9"
    five = [list(x) for x in W_HANDS]
    five[0][1] = "H5"
    steps = [
        ('{"ev":"deal","dealer":0,', "bad_event"),                # malformed JSON
        ("[1,2,3]", "bad_event"),                                # not an object
        ('{"ev":"shuffle"}', "bad_event"),                       # unknown ev
        ({"ev": "undo"}, "wrong_phase"),                         # nothing to take back
        (play(1, "CA"), "wrong_phase"),
        ({"ev": "redeal", "reason": "x"}, "wrong_phase"),
        (W_DEAL(dealer=1), "bad_event"),                         # wrong dealer (conv. 4)
        (W_DEAL(hands=dup), "card_used"),                        # duplicate card
        (W_DEAL(hands=unknown), "unknown_card"),
        (W_DEAL(hands=five), "unknown_card"),
        (W_DEAL(talon=["D8", "D7", "D7"]), "card_used"),
        (W_DEAL(), "ok"),
        (W_DEAL(), "wrong_phase"),                               # deal in progress
        (W_DEAL(dealer=1), "wrong_phase"),
        (play(1, "CA"), "wrong_phase"),                          # play during the auction
        (play(1, "X9"), "wrong_phase"),                          # phase is checked first
        ({"ev": "bid", "call": "bid", "contract": "frage"}, "bad_event"),  # no seat
        (bid("1", "pass"), "bad_event"),
        (bid(2, "bid", contract="frage"), "not_your_turn"),      # forehand is seat 1
        (bid(1, "hold"), "illegal_call"),                        # nobody to hold against
        (bid(1, "spiele"), "illegal_call"),                      # not a protocol A word
        (bid(1, "bid", contract="heart_solo"), "illegal_contract"),  # not in this variant
        (bid(1, "bid", contract="frage"), "ok"),
        (bid(2, "bid", contract="frage"), "illegal_contract"),   # does not outrank
        (bid(1, "hold"), "not_your_turn"),                       # no challenge pending
        (bid(2, "pass"), "ok"),
        (bid(0, "pass"), {"ok": True}),                          # seat 1 plays Frage
        (play(1, "CA"), "wrong_phase"),                          # exchange first
        ({"ev": "exchange", "seat": 2, "discard": W_TALON}, "not_your_turn"),
        ({"ev": "exchange", "seat": 1, "discard": ["D8", "D7"]}, "illegal_discard"),
        ({"ev": "exchange", "seat": 1, "discard": ["D8", "D7", "D6", "CA"]},
         "illegal_discard"),
        ({"ev": "exchange", "seat": 1, "discard": ["D8", "D7", "HA"]}, "illegal_discard"),
        ({"ev": "exchange", "seat": 1, "discard": []}, "illegal_discard"),
        ({"ev": "exchange", "seat": 1, "discard": ["D8", "D7", "D6"]}, "ok"),
        ({"ev": "announce", "seat": 2, "what": "tout"}, "illegal_announce"),  # a defender
        ({"ev": "announce", "seat": 1, "what": "kontra"}, "illegal_announce"),
        ({"ev": "bid", "seat": 1, "call": "declare", "contract": "frage", "trump": "S"},
         "illegal_contract"),
        ({"ev": "bid", "seat": 1, "call": "declare", "contract": "frage", "trump": "H"},
         {"ok": True}),                                      # redundant declare (conv. 6)
        (play(2, "SK"), "not_your_turn"),
        (play(2, "X9"), "unknown_card"),                         # code before turn (conv. 12)
        (play(1, "X9"), "unknown_card"),
        (play(1, "H5"), "unknown_card"),
        (play(1, "D8"), "not_in_hand"),                          # lies in the discards
        (play(1, "HA"), "not_in_hand"),                          # seat 2 holds it
        (play(1, "CA"), "ok"),
        (play(2, "SK"), "must_trump"),                           # void in clubs, has hearts
        (play(2, "CA"), "card_used"),
        (play(2, "HQ"), "ok"),
        (play(0, "D9"), "must_trump"),
        (play(0, "H6"), {"ok": True, "trick": {"n": 1, "leader": 1, "cards": ["CA", "HQ", "H6"],
                                               "winner": 2, "points": 14}}),
        ({"ev": "redeal", "reason": "late"}, "wrong_phase"),     # first trick complete
        (play(2, "SK"), "ok"),
        (play(0, "D9"), "must_trump"),
        (play(0, "HJ"), "ok"),
        (play(1, "C10"), "must_follow"),                         # holds SA, S10
        (play(1, "CA"), "card_used"),                            # played in trick 1
        (play(0, "H9"), "not_your_turn"),
        (play(0, "CA"), "not_your_turn"),                        # turn before card_used
        (play(2, "D8"), "not_your_turn"),                        # turn before not_in_hand
        (play(0, "X9"), "unknown_card"),
        (play(1, "SA"), {"ok": True, "trick": {"n": 2, "leader": 2, "cards": ["SK", "HJ", "SA"],
                                               "winner": 0, "points": 17}}),
        (play(0, "DA"), "ok"),
        (play(1, "C10"), "ok"),                                  # no diamonds, no trumps
        (play(2, "S9"), "must_trump"),
        (play(2, "HK"), "ok"),
        ({"ev": "undo"}, "ok"),                                  # takes back HK ...
        (play(2, "HK"), {"ok": True, "trick": {"n": 3, "leader": 0,
                                               "cards": ["DA", "C10", "HK"],
                                               "winner": 2, "points": 25}}),
    ]
    run_script(h, steps)


def test_error_echoes_seat_and_card():
    rep = Replayer(make_header("wuerttemberg", 3))
    rep.feed(dumps(W_DEAL()))
    assert json.loads(rep.feed(dumps(play(1, "CA")))) == {
        "ok": False, "error": "wrong_phase", "seat": 1, "card": "CA"}


def test_error_codes_tapp_modern_auction_strict():
    rec = SimRecord("tapp_modern", 3, {}, "strict", 11, 1, 0)
    deal = rec.lines[0]
    # anticlockwise, dealer 0: forehand 2, middlehand 1, rearhand 0
    steps = [
        (deal, "ok"),
        (bid(1, "spiele"), "not_your_turn"),
        (bid(2, "bid", contract="frage"), "illegal_call"),       # round 1 words only
        (bid(2, "hold"), "illegal_call"),
        (bid(2, "spiele"), "ok"),
        (bid(1, "pass"), "ok"),                                  # pass = weg (conv. 6)
        (bid(0, "spiele"), "ok"),
        (bid(2, "weg"), "illegal_call"),                         # first must name a contract
        (bid(2, "bid", contract="solo"), "illegal_contract"),    # not a tapp_modern id
        (bid(2, "bid", contract="suit_solo", trump="H"), "illegal_contract"),
        (bid(2, "bid", contract="heart_solo", trump="X"), "illegal_contract"),
        (bid(2, "bid", contract="heart_solo"), "ok"),
        (bid(0, "bid", contract="suit_solo"), "illegal_contract"),   # lower
        (bid(0, "bid", contract="heart_solo"), "illegal_contract"),  # equal
        (bid(0, "weg"), "ok"),                                   # seat 2: heart_solo
        (bid(2, "spiele"), "wrong_phase"),
        ({"ev": "announce", "seat": 2, "what": "tout"}, "illegal_announce"),  # none in 2.3
        (bid(2, "declare", contract="heart_solo"), "ok"),
        (bid(1, "declare", contract="heart_solo"), "not_your_turn"),
        (bid(2, "declare", contract="heart_solo", trump="S"), "illegal_contract"),
        (bid(2, "declare", contract="bettel"), "illegal_contract"),
        ({"ev": "exchange", "seat": 2, "discard": []}, "wrong_phase"),
        ({"ev": "rufer", "seat": 2, "card": "HA", "give": None}, "wrong_phase"),
    ]
    rep, _ = run_script(make_header("tapp_modern", 3), steps)
    # the deal plays out normally afterwards
    seat = rep.session.view.turn()
    card = rep.session.view.legal_cards()[0]
    assert json.loads(rep.feed(dumps(play(seat, card))))["ok"] is True


def test_not_in_deck_with_pack_32():
    rec = SimRecord("tapp_modern", 4, {"pack": 32}, "strict", 5, 1, 0)
    h = rec.header
    deal = rec.events[0]
    bad = json.loads(dumps(deal))
    bad["hands"][1][0] = "H6"
    first_play = next(i for i, ev in enumerate(rec.events) if ev["ev"] == "play")
    seat = rec.events[first_play]["seat"]
    other = (seat + 1) % 4
    steps = [(bad, "not_in_deck"), (deal, "ok")]
    steps += [(line, "ok") for line in rec.lines[1:first_play]]
    steps += [(play(seat, "H6"), "not_in_deck"), (play(seat, "C6"), "not_in_deck"),
              (play(other, "H6"), "not_in_deck"),                # deck before turn (conv. 12)
              (play(seat, "H5"), "unknown_card"),
              (rec.lines[first_play], "ok")]
    run_script(h, steps)
    # open mode too
    o = SimRecord("tapp_modern", 4, {"pack": 32}, "open", 5, 1, 0)
    first_play = next(i for i, ev in enumerate(o.events) if ev["ev"] == "play")
    seat = o.events[first_play]["seat"]
    steps = [(line, "ok") for line in o.lines[:first_play]]
    steps += [(play(seat, "D6"), "not_in_deck"),
              ({"ev": "deal", "dealer": 0, "hands": None, "talon": None}, "wrong_phase"),
              (o.lines[first_play], "ok")]
    run_script(o.header, steps)
    hd = make_header("tapp_modern", 4, "open", {"pack": 32})
    run_script(hd, [({"ev": "deal", "dealer": 0, "hands": None,
                      "talon": ["HA", "H6", "SA", "SK"]}, "not_in_deck"),
                     ({"ev": "deal", "dealer": 0, "hands": None,
                       "talon": ["HA", "H7", "SA", "SK"]}, "ok")])


def test_open_mode_revoke_is_reported_and_decides_the_deal():
    h = make_header("wuerttemberg", 3, "open")
    steps = [
        ({"ev": "deal", "dealer": 0, "hands": W_HANDS, "talon": None}, "bad_event"),
        ({"ev": "deal", "dealer": 0, "hands": None, "talon": None}, "ok"),
        (bid(1, "bid", contract="frage"), "ok"),
        (bid(2, "pass"), "ok"),
        (bid(0, "pass"), "ok"),
        ({"ev": "exchange", "seat": 1, "discard": None}, "ok"),
        (play(1, "CA"), "ok"),
        (play(2, "SK"), {"ok": True}),             # asserts void in clubs and in hearts
        (play(0, "H6"), "ok"),                     # asserts void in clubs
        (play(0, "CA"), "card_used"),
        (play(1, "HJ"), "not_your_turn"),
        (play(0, "HJ"), "ok"),
        (play(1, "C6"), "ok"),                     # asserts void in hearts
        (play(2, "C9"), {"ok": True,
                         "trick": {"n": 2, "leader": 0, "cards": ["HJ", "C6", "C9"],
                                   "winner": 0, "points": 2},
                         "revoke": {"seat": 2, "trick": 1, "rule": "must_follow"}}),
        (play(0, "DK"), "ok"),
        (play(1, "H7"), {"ok": True,               # proves the trick-2 void in hearts
                         "revoke": {"seat": 1, "trick": 2, "rule": "must_follow"}}),
        (play(2, "HA"), {"ok": True,               # proves the trick-1 void in trumps
                         "trick": {"n": 3, "leader": 0, "cards": ["DK", "H7", "HA"],
                                   "winner": 2, "points": 15},
                         "revoke": {"seat": 2, "trick": 1, "rule": "must_trump"}}),
    ]
    rep, _ = run_script(h, steps)
    # Play the rest of the deal with any unused cards: the earliest revoke (seat 2, a
    # defender, trick 1) decides, so the declarer wins (docs/rules 3.4).
    used = {"CA", "SK", "H6", "HJ", "C6", "C9", "DK", "H7", "HA"}
    pool = [c for c in ALL_CODES if c not in used]
    res = None
    while res is None:
        seat = rep.session.view.turn()
        for c in pool:
            out = json.loads(rep.feed(dumps(play(seat, c))))
            if out["ok"]:
                pool.remove(c)
                res = out.get("result")
                break
        else:
            raise AssertionError("no card accepted")
    assert res["declarer"] == 1 and res["contract"] == "frage"
    assert sum(res["points"]) == 120
    assert res["penalty"] == {"seat": 2, "trick": 1, "rule": "must_follow"}
    assert res["won"] is True


def test_open_mode_bettel_ouvert_exposed_hand_is_enforced():
    h = make_header("tapp_modern", 3, "open")
    decl = ["D6", "C6", "C7", "H6", "H7", "H8", "H9", "S6", "S7", "S8", "S9"]
    steps = [
        ({"ev": "deal", "dealer": 0, "hands": None, "talon": None}, "ok"),
        (bid(2, "spiele"), "ok"),
        (bid(1, "weg"), "ok"),
        (bid(0, "weg"), "ok"),
        (bid(2, "bid", contract="bettel_ouvert"), "ok"),
        ({"ev": "hand", "seat": 1, "cards": decl}, "wrong_phase"),   # only the declarer
        ({"ev": "hand", "seat": 2, "cards": decl[:10]}, "bad_event"),
        ({"ev": "hand", "seat": 2, "cards": decl}, "ok"),
        ({"ev": "hand", "seat": 2, "cards": decl}, "wrong_phase"),
        (play(2, "DA"), "not_in_hand"),                               # not in his hand
        (play(2, "D6"), "ok"),
        (play(1, "H7"), "not_in_hand"),                               # declarer holds it
        (play(1, "DA"), "ok"),
        (play(0, "D7"), "ok"),
        (play(1, "CA"), "ok"),
        (play(0, "CK"), "ok"),
        (play(2, "S6"), "must_follow"),                               # he holds C6, C7
        (play(2, "CK"), "card_used"),
        (play(2, "C6"), "ok"),
    ]
    run_script(h, steps)


def play_out(rep):
    """Strict mode: play the deal to its end, always the first legal card; the result."""
    while True:
        seat = rep.session.view.turn()
        card = rep.session.view.legal_cards()[0]
        out = json.loads(rep.feed(dumps(play(seat, card))))
        assert out["ok"] is True, out
        if "result" in out:
            return out["result"]


def test_error_codes_tapp_classic_hold_declare_and_tout():
    # clockwise, dealer 0: forehand 1, middlehand 2, rearhand 0
    steps = [
        (W_DEAL(), "ok"),
        (bid(1, "bid", contract="frage"), "ok"),
        (bid(2, "bid", contract="suit_solo", trump="H"), "illegal_contract"),  # C, S or D
        (bid(2, "bid", contract="suit_solo", trump="S"), "ok"),
        (bid(0, "pass"), "not_your_turn"),                    # the holder answers first
        (bid(1, "bid", contract="heart_solo"), "illegal_call"),  # only hold or pass now
        (bid(1, "hold"), "ok"),                               # seat 1 keeps suit_solo
        (bid(0, "pass"), "ok"),
        (play(1, "CA"), "wrong_phase"),                       # the trump is not named yet
        ({"ev": "exchange", "seat": 1, "discard": W_TALON}, "wrong_phase"),
        ({"ev": "announce", "seat": 1, "what": "tout"}, "illegal_announce"),
        (bid(2, "declare", contract="suit_solo", trump="C"), "not_your_turn"),
        (bid(1, "declare", contract="suit_solo", trump="H"), "illegal_contract"),
        (bid(1, "declare", contract="suit_solo"), "illegal_contract"),  # no trump named
        (bid(1, "declare", contract="frage", trump="C"), "illegal_contract"),
        (bid(1, "declare", contract="suit_solo", trump="C"), "ok"),
        (bid(1, "declare", contract="suit_solo", trump="D"), "illegal_contract"),
        ({"ev": "announce", "seat": 2, "what": "tout"}, "illegal_announce"),
        ({"ev": "announce", "seat": 1, "what": "tout"}, "ok"),
        ({"ev": "announce", "seat": 1, "what": "tout"}, "illegal_announce"),  # once
        (play(1, "D8"), "not_in_hand"),                       # the untouched tapp
        (play(1, "CA"), "ok"),
        ({"ev": "announce", "seat": 1, "what": "tout"}, "illegal_announce"),  # too late
    ]
    rep, _ = run_script(make_header("tapp_classic", 3), steps)
    res = play_out(rep)   # seat 1 holds every trump and the two top spades
    assert res == {
        "declarer": 1, "contract": "suit_solo", "trump": "C", "target": None,
        "points": [120, 0], "tricks": [11, 0], "won": True, "schneider": False,
        "schwarz": True, "multiplier": 1, "payments": [-60, 120, -60], "pot": 0,
        "balances": [-60, 120, -60], "pot_total": 0, "next_dealer": 1,
    }


# tapp_modern, dealer 0 (anticlockwise): forehand 2, middlehand 1, rearhand 0
M_HANDS = [W_HANDS[0], W_HANDS[2], W_HANDS[1]]


def test_error_codes_tapp_modern_rufer_strict():
    deal = {"ev": "deal", "dealer": 0, "hands": M_HANDS, "talon": W_TALON}
    steps = [
        (deal, "ok"),
        (bid(2, "spiele"), "ok"),
        (bid(1, "weg"), "ok"),
        (bid(0, "weg"), "ok"),
        (bid(2, "bid", contract="suit_rufer", trump="C"), "ok"),
        (play(2, "CA"), "wrong_phase"),                       # call the card first
        ({"ev": "rufer", "seat": 1, "card": "HA", "give": "S10"}, "not_your_turn"),
        ({"ev": "rufer", "seat": 2, "card": "CA", "give": "SA"}, "illegal_call"),  # his own
        ({"ev": "rufer", "seat": 2, "card": "HA", "give": None}, "illegal_call"),  # not tapp
        ({"ev": "rufer", "seat": 2, "card": "D8", "give": "SA"}, "illegal_call"),  # in tapp
        ({"ev": "rufer", "seat": 2, "card": "HA", "give": "HK"}, "not_in_hand"),
        ({"ev": "rufer", "seat": 2, "card": "HA", "give": "X9"}, "unknown_card"),
        ({"ev": "rufer", "seat": 2, "card": "H5", "give": "S10"}, "unknown_card"),
        ({"ev": "rufer", "seat": 2, "card": "HA"}, "illegal_call"),   # give missing = tapp
        ({"ev": "rufer", "seat": 2, "card": "HA", "give": "S10"}, "ok"),
        ({"ev": "rufer", "seat": 2, "card": "HA", "give": "S10"}, "wrong_phase"),
        (play(2, "S10"), "not_in_hand"),                      # given away
        (play(2, "HA"), "ok"),                                # called, now his
        (play(1, "S10"), "must_follow"),                      # seat 1 still has hearts
        (play(1, "H10"), "ok"),
        (play(0, "D9"), "must_follow"),
        (play(0, "HJ"), {"ok": True, "trick": {"n": 1, "leader": 2,
                                               "cards": ["HA", "H10", "HJ"],
                                               "winner": 2, "points": 23}}),
    ]
    run_script(make_header("tapp_modern", 3), steps)


def test_open_mode_rufer_card_played_by_a_defender():
    h = make_header("tapp_modern", 3, "open")
    steps = [
        ({"ev": "deal", "dealer": 0, "hands": None, "talon": None}, "ok"),
        (bid(2, "spiele"), "ok"),
        (bid(1, "weg"), "ok"),
        (bid(0, "weg"), "ok"),
        (bid(2, "bid", contract="suit_rufer", trump="C"), "ok"),
        ({"ev": "rufer", "seat": 2, "card": "HA", "give": "S10"}, "ok"),
        (play(2, "H7"), "ok"),
        (play(1, "HA"), {"ok": True, "revoke": {"seat": 1, "trick": 1, "rule": "rufer_card"}}),
        (play(0, "H6"), {
            "ok": True,
            "trick": {"n": 1, "leader": 2, "cards": ["H7", "HA", "H6"], "winner": 1,
                      "points": 11},
            "result": {  # D15: the lost trick ends the Rufer; 3.4: a defender offended
                "declarer": 2, "contract": "suit_rufer", "trump": "C", "target": None,
                "points": [109, 11], "tricks": [0, 1], "won": True, "schneider": False,
                "schwarz": False, "multiplier": 1, "payments": [-15, -15, 30], "pot": 0,
                "balances": [-15, -15, 30], "pot_total": 0, "next_dealer": 2,
                "penalty": {"seat": 1, "trick": 1, "rule": "rufer_card"}}}),
        (play(2, "H8"), "wrong_phase"),                       # the deal is over
        ({"ev": "undo"}, "wrong_phase"),
        ({"ev": "deal", "dealer": 0, "hands": None, "talon": None}, "bad_event"),
        ({"ev": "deal", "dealer": 2, "hands": None, "talon": None}, "ok"),
    ]
    run_script(h, steps)


# ------------------------------------------- robustness: deep nesting and bad headers


@pytest.mark.parametrize("line", [
    "[" * 100000,                                            # a torn line of brackets
    "[" * 5000 + "]" * 5000,
    '{"ev":"play","seat":0,"card":' + "[" * 5000 + "]" * 5000 + "}",
    '{"ev":"deal","dealer":0,"hands":' + '{"a":' * 5000 + "1" + "}" * 5000 + "}",
], ids=["open_brackets", "nested_list", "nested_card", "nested_hands"])
def test_deeply_nested_json_line_is_bad_event(line):
    """docs/record-format.md convention 1: a line that is not valid JSON (or that the reader cannot
    take) is a corrupt line -> bad_event; feed must not raise."""
    rep = Replayer(make_header("wuerttemberg", 3))
    assert json.loads(rep.feed(line)) == BAD_EVENT
    assert json.loads(rep.feed(dumps(W_DEAL()))) == {"ok": True}


def test_deeply_nested_header_is_a_header_error():
    with pytest.raises(HeaderError):
        open_session('{"record":1,"variant":"wuerttemberg","players":3,"first_dealer":0,'
                     '"options":' + "[" * 5000 + "]" * 5000 + "}")


HEADER_VARIANTS = [*variant_ids(), "x", ""]
OPTION_NAMES = ["pot", "pot_ante", "tout_factor", "pack", "first_bidder", "frage_value",
                "bettel_order", "ramsch_tie", "revoke_penalty", "rate_frage", "rate_solo",
                "fixed_frage", "fixed_solo", "fixed_heart_solo", "payment", "bank_ante",
                "doubling", "start_balance", "shortfall", "rounding", "stake", "players"]
OPTION_VALUES = st.sampled_from([True, False, 0, 2, 3, 32, 36, -1, 1.5, None, "1/2", "1/0",
                                 "a/b", "/", "2/", "\u00b2/1", "1/\u00b9", "25/30", [1, 2],
                                 [1, 0], [25, 30], "forehand", "middlehand", "none", "off",
                                 "kontra_re", "per_point", "fixed", "refill", "up5"])


@_settings(150)
@given(st.dictionaries(
    st.sampled_from(["record", "variant", "players", "seats", "options", "first_dealer",
                     "mode", "x"]),
    junk_values | st.sampled_from([1, 3, 4, "open", ["a", "b", "c"]])
    | st.sampled_from(HEADER_VARIANTS)
    | st.dictionaries(st.sampled_from(OPTION_NAMES), OPTION_VALUES | junk_values, max_size=3),
    max_size=8))
def test_bad_headers_raise_only_header_error(header):
    """A header the engine cannot play by is a HeaderError (what ``tapptable replay``
    reports as "bad header"), never another exception."""
    base = {"record": 1, "variant": "tapp_modern", "players": 4, "first_dealer": 0}
    base.update(header)
    try:
        rep = Replayer(dumps(base))
    except HeaderError:
        return
    out = feed_checked(rep, '{"ev":"undo"}')
    assert json.loads(out) == {"ok": False, "error": "wrong_phase"}


@pytest.mark.parametrize("value", ["\u00b2/1", "1/\u00b2"],
                         ids=["superscript_numerator", "superscript_denominator"])
def test_rate_option_with_unicode_digit_is_a_header_error(value):
    """str.isdigit() accepts superscript digits that int() refuses."""
    header = {"record": 1, "variant": "tarock_simple", "players": 3, "first_dealer": 0,
              "options": {"rate_frage": value}}
    with pytest.raises(HeaderError):
        open_session(dumps(header))
