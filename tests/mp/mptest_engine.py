"""Engine tests that run under CPython and the real MicroPython VMs.

Run by tests/mp/mprunner.py inside the unix port (strict heap) and the 32-bit
WebAssembly port, and by pytest through tests/test_micropython.py.
"""
from random_deals import Lcg, feed, finish, new_session, random_deal_events

from tapp import errors as E
from tapp.cards import (
    BETTEL_ORDER,
    CARD_CODES,
    DECKS,
    NORMAL_ORDER,
    card_index,
    mask_count,
    mask_points,
)
from tapp.jsonout import KEY_ORDER, PLAIN_KEYS, dumps
from tapp.record import _crc32_soft, crc_hex, parse_line, with_crc

# A fixed 3-player deal for wuerttemberg, dealer 2 -> F 0, M 1, R 2 (docs/rules 1.4).
HANDS_W = [
    ["HA", "H10", "HK", "HQ", "HJ", "H9", "CA", "C10", "SA", "S10", "DA"],
    ["H8", "H7", "CK", "CQ", "CJ", "C9", "SK", "SQ", "DK", "DQ", "DJ"],
    ["H6", "C8", "C7", "C6", "SJ", "S9", "S8", "S7", "D10", "D9", "D8"],
]
TALON_W = ["S6", "D7", "D6"]


def _w_session(mode="strict"):
    s = new_session("wuerttemberg", first_dealer=2, mode=mode)
    hands = HANDS_W if mode == "strict" else None
    talon = TALON_W if mode == "strict" else None
    feed(s, [{"ev": "deal", "dealer": 2, "hands": hands, "talon": talon}])
    return s


def test_every_deck_totals_120_points():
    for deck in DECKS:
        assert mask_points(DECKS[deck]) == 120, deck
    assert mask_count(DECKS["d36"]) == 36
    assert mask_count(DECKS["d32"]) == 32
    assert mask_count(DECKS["d24"]) == 24


def test_card_codes_round_trip_and_unknown_codes():
    for i in range(36):
        assert card_index(CARD_CODES[i]) == i
    for bad in ("X9", "H5", "", "h10", "HA ", 7, None):
        assert card_index(bad) == -1


def test_bettel_order_puts_the_ten_below_the_jack():
    ten, jack, nine, king = 1, 4, 5, 2
    assert NORMAL_ORDER[ten] > NORMAL_ORDER[king]
    assert BETTEL_ORDER[jack] > BETTEL_ORDER[ten] > BETTEL_ORDER[nine]
    assert BETTEL_ORDER[king] > BETTEL_ORDER[jack]


def test_protocol_a_hold_gives_the_holder_the_higher_contract():
    """EX6 deal 1: F bids frage, M bids solo, F holds, R passes -> F plays Solo."""
    s = _w_session()
    feed(s, [{"ev": "bid", "seat": 0, "call": "bid", "contract": "frage"},
             {"ev": "bid", "seat": 1, "call": "bid", "contract": "solo"}])
    assert s.view.turn() == 0
    feed(s, [{"ev": "bid", "seat": 0, "call": "hold"},
             {"ev": "bid", "seat": 2, "call": "pass"}])
    assert s.view.declarer() == 0 and s.view.contract() == "solo"


def test_strict_mode_refuses_revokes_and_keeps_state():
    s = _w_session()
    feed(s, [{"ev": "bid", "seat": 0, "call": "bid", "contract": "solo"},
             {"ev": "bid", "seat": 1, "call": "pass"},
             {"ev": "bid", "seat": 2, "call": "pass"},
             {"ev": "play", "seat": 0, "card": "CA"}])
    out = s.apply({"ev": "play", "seat": 1, "card": "SK"})
    assert out == {"ok": False, "error": "must_follow", "seat": 1, "card": "SK"}
    feed(s, [{"ev": "play", "seat": 1, "card": "C9"}])
    out = s.apply({"ev": "play", "seat": 2, "card": "H6"})
    assert out["error"] == "must_follow"
    out = s.apply({"ev": "play", "seat": 2, "card": "C6"})
    assert out["trick"] == {"n": 1, "leader": 0, "cards": ["CA", "C9", "C6"],
                            "winner": 0, "points": 11}


def test_must_trump_when_void_in_the_led_suit():
    """docs/rules 1.5 rule 2 (Trumpfzwang), refused in strict mode."""
    hands = [["C6", "C7", "C8", "S7", "S8", "S9", "D8", "D9", "D10", "H6", "SJ"],
             ["HA", "H10", "HK", "HQ", "HJ", "H9", "CA", "C10", "SA", "S10", "DJ"],
             ["H8", "H7", "CK", "CQ", "CJ", "C9", "SK", "SQ", "DK", "DQ", "DA"]]
    s = new_session("wuerttemberg", first_dealer=2)
    feed(s, [{"ev": "deal", "dealer": 2, "hands": hands, "talon": TALON_W},
             {"ev": "bid", "seat": 0, "call": "bid", "contract": "solo"},
             {"ev": "bid", "seat": 1, "call": "pass"},
             {"ev": "bid", "seat": 2, "call": "pass"},
             {"ev": "play", "seat": 0, "card": "D8"}])
    assert s.apply({"ev": "play", "seat": 1, "card": "HA"})["error"] == "must_follow"
    out = feed(s, [{"ev": "play", "seat": 1, "card": "DJ"},
                   {"ev": "play", "seat": 2, "card": "DA"}])
    assert out["trick"]["winner"] == 2
    feed(s, [{"ev": "play", "seat": 2, "card": "DK"},
             {"ev": "play", "seat": 0, "card": "D9"}])
    assert s.view.legal_cards() == ["HA", "H10", "HK", "HQ", "HJ", "H9"]
    out = s.apply({"ev": "play", "seat": 1, "card": "CA"})
    assert out == {"ok": False, "error": "must_trump", "seat": 1, "card": "CA"}
    out = feed(s, [{"ev": "play", "seat": 1, "card": "H9"}])
    assert out["trick"] == {"n": 2, "leader": 2, "cards": ["DK", "D9", "H9"],
                            "winner": 1, "points": 4}


def test_open_mode_proves_a_revoke_later():
    """docs/rules 3.3: void asserted at one trick, contradicted at a later one."""
    s = _w_session("open")
    feed(s, [{"ev": "bid", "seat": 0, "call": "bid", "contract": "solo"},
             {"ev": "bid", "seat": 1, "call": "pass"},
             {"ev": "bid", "seat": 2, "call": "pass"},
             {"ev": "play", "seat": 0, "card": "SA"},
             {"ev": "play", "seat": 1, "card": "D7"},   # void in S and in H asserted
             {"ev": "play", "seat": 2, "card": "S9"},
             {"ev": "play", "seat": 0, "card": "CA"}])
    out = s.apply({"ev": "play", "seat": 1, "card": "H10"})
    assert out["ok"] and out["revoke"] == {"seat": 1, "trick": 1, "rule": "must_trump"}


def test_error_codes_are_stable_words():
    assert E.NAMES[E.MUST_FOLLOW] == "must_follow"
    assert E.NAMES[E.BAD_EVENT] == "bad_event"
    assert len(E.NAMES) == len(set(E.NAMES)) == E.BAD_EVENT + 1


def test_ex7_values_through_the_fold():
    """docs/rules EX7 a-c: tapp_classic values ceil(x/4), ceil(x/2), x."""
    for contract, trump, d, want in (("frage", None, 73, 4), ("suit_solo", "S", 81, 11),
                                     ("heart_solo", None, 44, -16)):
        s = new_session("tapp_classic", first_dealer=2)
        feed(s, [{"ev": "deal", "dealer": 2, "hands": HANDS_W, "talon": TALON_W},
                 {"ev": "bid", "seat": 0, "call": "bid", "contract": contract},
                 {"ev": "bid", "seat": 1, "call": "pass"},
                 {"ev": "bid", "seat": 2, "call": "pass"}])
        if trump:
            feed(s, [{"ev": "bid", "seat": 0, "call": "declare", "contract": contract,
                      "trump": trump}])
        if contract == "frage":
            feed(s, [{"ev": "exchange", "seat": 0, "discard": ["S6", "D7", "D6"]}])
        r = finish(s, d)
        assert r["payments"] == [2 * want, -want, -want], (contract, r)


def test_random_deals_keep_120_points_and_zero_sum():
    """Random legal deals in every Tapp variant, in the VM's own arithmetic."""
    rng = Lcg(7)
    for variant, players, opts in (("wuerttemberg", 3, {"pot": True}),
                                   ("tapp_classic", 3, {}), ("tapp_modern", 3, {}),
                                   ("tapp_modern", 4, {"pack": 32})):
        s = new_session(variant, players, options=opts)
        total = 0
        for _ in range(6):
            r = random_deal_events(s, rng)
            if r["points"] is not None and r["declarer"] is not None:
                assert r["points"][0] + r["points"][1] == 120, r
            elif r["points"] is not None:
                assert sum(r["points"]) == 120, r
            assert sum(r["payments"]) + r["pot"] == 0, r
            total += r["pot"]
            assert r["pot_total"] == total


def test_random_deals_every_variant_and_player_count():
    """Issue 3 variants: every player count, 120 points, zero-sum, running ledger."""
    rng = Lcg(11)
    for variant, counts, opts in (
            ("tarock_simple", (3, 4), {"doubling": "extended"}),
            ("tarock_bettel", (3, 4), {"payment": "per_point"}),
            ("haferltarock", (3, 4), {"doubling": "kontra_re", "pot_ante": 500}),
            ("berliner", (3,), {"berliner_hearts": True}),
            ("scharfer_tarock", (3, 4), {}),
            ("herzblatt", (2, 3, 4, 5), {}),
            ("herzblatt_muhr", (2, 3, 4, 5), {}),
            ("braun_solo", (3, 5), {"all_pass": "last_trick"})):
        for players in counts:
            s = new_session(variant, players, options=opts)
            pot = s.view.pot()
            for _ in range(3):
                if s.view.session_over():
                    break
                r = random_deal_events(s, rng)
                if r["points"] is not None:
                    assert sum(r["points"]) == 120, (variant, r)
                assert sum(r["payments"]) + r["pot"] == 0, (variant, r)
                pot += r["pot"]
                assert r["pot_total"] == pot


def test_canonical_json_and_crc_lines():
    assert dumps({"card": "S7", "ok": False, "error": "x"}) == \
        '{"ok":false,"error":"x","card":"S7"}'
    assert dumps([None, True, -5, "a\"b"]) == '[null,true,-5,"a\\"b"]'
    # every kind of character, the same text on every runtime: escaped where
    # JSON needs it (a surrogate pair beyond the BMP), as they are elsewhere
    # -- also past the bytes 0xED.. that send a text the escaping way
    assert dumps(["", "a\\b", "\x01\x1f ", "Jürgen", "\ud7ff\ue000\uffff",
                  "\U0001f600", "Zoë \"Z\""]) == (
        '["","a\\\\b","\\u0001\\u001f ","Jürgen","\ud7ff\ue000\uffff",'
        '"\\ud83d\\ude00","Zoë \\"Z\\""]')
    for key in KEY_ORDER + PLAIN_KEYS:     # the keys written as they are
        assert dumps({key: 1}) == '{"%s":1}' % key
        assert not set(key) - set("abcdefghijklmnopqrstuvwxyz_"), key   # nothing to escape
    assert _crc32_soft(b"abc") == "352441c2"
    assert crc_hex("abc") == "352441c2"
    line = with_crc('{"ev":"undo"}')
    assert parse_line(line) == {"ev": "undo"}
    assert parse_line(line[:-1] + ("0" if line[-1] != "0" else "1")) is None
    assert parse_line("{not json") is None
    assert parse_line("[1,2]") is None


def test_undo_takes_back_the_last_event():
    s = _w_session()
    feed(s, [{"ev": "bid", "seat": 0, "call": "bid", "contract": "frage"}])
    feed(s, [{"ev": "undo"}])
    assert s.view.turn() == 0
    feed(s, [{"ev": "undo"}])  # takes back the deal itself
    assert not s.view.in_deal()
    assert s.apply({"ev": "undo"})["error"] == "wrong_phase"
