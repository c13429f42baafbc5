"""docs/rules worked examples and mini-examples for the Bavarian Tarock and Herzblatt families.

Variants: tarock_simple, tarock_bettel, haferltarock, berliner, scharfer_tarock, kontra_re
(the ``doubling`` option), herzblatt, herzblatt_muhr, braun_solo.  Each test is named after
the example it checks and quotes it.  Seats as in docs/rules section 4: 0 Anton, 1 Berta,
2 Charlotte, 3 Dieter.

Auction, declaration, exchange and announcements always go through ``Session.apply``.
Examples that only state card points end the deal with ``scenario.finish``; EX3 (Durch),
EX5 (d)/(e), EX18 and the Herzblatt over-trump duty are played card by card with hand-made
deals.  Also covered: record convention 10 (session-start antes), docs/rules 1.4 (the dealer
sits out with 4 at the table) and 1.7 (``shortfall`` cap_end / refill).
"""
import pytest
from rules_driver import (
    ANTON,
    BERTA,
    CHARLOTTE,
    DIETER,
    announce,
    bid,
    bid_value,
    check_hands,
    check_result,
    deal,
    exchange,
    exchange_talon_back,
    feed,
    finish,
    new_session,
    ok,
    play,
    play_tricks,
    refused,
)

PASS = "pass"
THROWN_IN = dict(declarer=None, contract=None, trump=None, target=None, points=None,
                 tricks=None, won=None)


def kontra(seat):
    return announce(seat, "kontra")


def re_(seat):
    return announce(seat, "re")


# =====================================================================================
# docs/record-format.md convention 10: session-start antes / start balance
# =====================================================================================


@pytest.mark.parametrize("variant, players, options, balance, pot_total", [
    ("tarock_simple", 3, {}, -100, 300),                              # bank_ante 100
    ("tarock_simple", 4, {}, -100, 400),                              # the dealer antes too
    ("tarock_simple", 3, {"bank_ante": 40}, -40, 120),
    ("tarock_simple", 3, {"payment": "fixed"}, 0, 0),                 # no bank
    ("tarock_bettel", 3, {}, 0, 0),                                   # default fixed
    ("tarock_bettel", 3, {"payment": "per_point"}, -100, 300),
    ("haferltarock", 3, {}, -50, 150),                                # pot_ante 50
    ("haferltarock", 4, {}, -50, 200),
    ("berliner", 3, {}, -50, 150),
    ("scharfer_tarock", 3, {}, 1000, 0),                              # start_balance
    ("scharfer_tarock", 3, {"start_balance": 500}, 500, 0),
    ("herzblatt", 4, {}, 0, 0),
])
def test_convention10_session_start_antes(variant, players, options, balance, pot_total):
    """Record format, convention 10: "Session-start antes (bank, Haferl) are booked before the first
    deal: balances start at minus the ante and pot_total at their sum; a deal's payments and pot
    never include them. start_balance (scharfer_tarock) is the balances' starting value."
    Seen through a thrown-in first deal (all pass, D02): nothing moves."""
    s = new_session(variant, players=players, first_dealer=players - 1, options=options)
    assert s.view.balances() == [balance] * players and s.view.pot() == pot_total
    deal(s)
    out = None
    for seat in s.view.active_seats():
        out = ok(s, bid(seat, PASS))
    r = out["result"]
    check_result(r, payments=[0] * players, pot=0, balances=[balance] * players,
                 pot_total=pot_total, multiplier=1, **THROWN_IN)


# =====================================================================================
# docs/rules 1.4: 4 at the table in the Bavarian family -> the dealer sits out
# =====================================================================================


@pytest.mark.parametrize("variant", ["tarock_simple", "tarock_bettel", "haferltarock",
                                     "berliner", "scharfer_tarock"])
def test_1_4_four_at_table_dealer_sits_out_seats(variant):
    """docs/rules 1.4: "Bavarian family, 4 at the table, dealer 3 -> dealer sits out, F 0, M 1,
    R 2"; docs/record-format.md: "sitting-out seat gets [] in the deal event"."""
    s = new_session(variant, players=4, first_dealer=DIETER)
    hands, talon = deal(s)
    assert hands[DIETER] == []
    assert s.view.active_seats() == [ANTON, BERTA, CHARLOTTE]
    assert s.view.turn() == ANTON
    # the dealer takes no part in the bidding
    refused(s, bid(DIETER, PASS), "not_your_turn")


def test_1_4_four_at_table_dealer_gets_no_cards():
    """Record deal event: "a new deal; sitting-out seat gets []" -- cards for the sitting-out
    dealer are refused."""
    s = new_session("tarock_simple", players=4, first_dealer=DIETER)
    hands = [["C6"], [], [], ["CA", "C10", "CK", "CQ", "CJ", "C9", "C8", "C7", "S6", "S7", "S8"]]
    refused(s, {"ev": "deal", "dealer": DIETER, "hands": hands, "talon": None}, "bad_event")


def test_1_4_four_at_table_per_point_dealer_pays_nothing():
    """docs/rules 1.4: the sitting-out dealer "takes no part in bidding, play or that deal's
    payments; still pays antes into a pot". tarock_simple per point, dealer Dieter: Anton
    spiele, Berta pass, Charlotte pass, Anton declares solo (Acorns), d = 75 -> x = 15 ->
    15 c from the bank."""
    s = new_session("tarock_simple", players=4, first_dealer=DIETER)
    deal(s)
    feed(s, [bid(ANTON, "spiele"), bid(BERTA, PASS), bid(CHARLOTTE, PASS),
             bid(ANTON, "declare", "solo", "C")])
    r = finish(s, 75)
    check_result(r, declarer=ANTON, contract="solo", trump="C", target=61, points=[75, 45],
                 won=True, payments=[15, 0, 0, 0], pot=-15, balances=[-85, -100, -100, -100],
                 pot_total=385, next_dealer=ANTON)
    # next deal: dealer Anton sits out, F Berta, M Charlotte, R Dieter
    deal(s)
    assert s.view.active_seats() == [BERTA, CHARLOTTE, DIETER]


def test_1_4_four_at_table_fixed_dealer_pays_nothing():
    """docs/rules 1.4 with tarock_bettel (fixed by default): dealer Dieter sits out; Anton
    bid solo (Acorns), Berta and Charlotte pass; d = 70 -> 50 c from each defender, Dieter 0."""
    s = new_session("tarock_bettel", players=4, first_dealer=DIETER)
    deal(s)
    feed(s, [bid(ANTON, "bid", "solo", "C"), bid(BERTA, PASS), bid(CHARLOTTE, PASS)])
    r = finish(s, 70)
    check_result(r, declarer=ANTON, contract="solo", trump="C", won=True,
                 payments=[100, -50, -50, 0], pot=0, balances=[100, -50, -50, 0], pot_total=0)


def test_2_7_berliner_four_at_table_privilege_to_rearhand():
    """docs/rules 2.7 (D29): "With 4 at the table (dealer sitting out) the privilege below goes
    to rearhand, the last active seat". Dealer Dieter -> F Anton, M Berta, R Charlotte:
    only Charlotte may bid Pick-up (spiele)."""
    s = new_session("berliner", players=4, first_dealer=DIETER)
    deal(s)
    refused(s, bid(ANTON, "spiele"), "illegal_call")
    feed(s, [bid(ANTON, PASS), bid(BERTA, PASS), bid(CHARLOTTE, "spiele")])
    assert s.view.declarer() == CHARLOTTE and s.view.contract() == "pickup"


# =====================================================================================
# 2.4 tarock_simple -- EX1 to EX4, mini-examples
# =====================================================================================


def _ex1(**options):
    """EX1 setting: dealer Charlotte -> F Anton. Anton spiele, Berta pass, Charlotte pass;
    Anton declares frage (Hearts), exchanges 3."""
    s = new_session("tarock_simple", first_dealer=CHARLOTTE, options=options)
    dealt = deal(s)
    assert s.view.active_seats() == [ANTON, BERTA, CHARLOTTE]
    feed(s, [bid(ANTON, "spiele"), bid(BERTA, PASS), bid(CHARLOTTE, PASS),
             bid(ANTON, "declare", "frage")])
    exchange_talon_back(s, dealt)
    return s


def test_ex1_tarock_simple_per_point_frage_up5():
    """EX1: "d / e = 71 / 49 -> won, x = 11, 11 x 1/2 c = 5 1/2 c, up5 -> 10 c. Payments: Anton
    +10, Berta 0, Charlotte 0, bank -10"."""
    s = _ex1()
    r = finish(s, 71)
    check_result(r, declarer=ANTON, contract="frage", trump="H", target=61, points=[71, 49],
                 won=True, multiplier=1, payments=[10, 0, 0], pot=-10,
                 balances=[-90, -100, -100], pot_total=290, next_dealer=ANTON)


def test_ex1_tarock_simple_per_point_frage_nearest5():
    """EX1: "With rounding = nearest5 the amount is 5 c"."""
    s = _ex1(rounding="nearest5")
    r = finish(s, 71)
    check_result(r, declarer=ANTON, contract="frage", won=True, payments=[5, 0, 0], pot=-5,
                 balances=[-95, -100, -100], pot_total=295)


def _heart_solo_anton(d, **options):
    """Anton declares heart_solo against Berta and Charlotte (dealer Charlotte -> F Anton)."""
    s = new_session("tarock_simple", first_dealer=CHARLOTTE, options=options)
    deal(s)
    feed(s, [bid(ANTON, "spiele"), bid(BERTA, PASS), bid(CHARLOTTE, PASS),
             bid(ANTON, "declare", "heart_solo")])
    return finish(s, d)


def test_ex2a_tarock_simple_per_point_heart_solo_lost_50():
    """EX2 (a): "d / e = 50 / 70 -> lost, x = 10, P = 10, each defender H = up5(5) = 5, top-up 0.
    Payments: Anton -10, Berta +5, Charlotte +5, bank 0"."""
    r = _heart_solo_anton(50)
    check_result(r, declarer=ANTON, contract="heart_solo", trump="H", points=[50, 70],
                 won=False, payments=[-10, 5, 5], pot=0, balances=[-110, -95, -95],
                 pot_total=300)


def test_ex2b_tarock_simple_per_point_heart_solo_lost_49():
    """EX2 (b): "d / e = 49 / 71 -> x = 11, P = up5(11) = 15, H = up5(7 1/2) = 10, bank tops up
    2x10 - 15 = 5. Payments: Anton -15, Berta +10, Charlotte +10, bank -5"."""
    r = _heart_solo_anton(49)
    check_result(r, declarer=ANTON, contract="heart_solo", points=[49, 71], won=False,
                 payments=[-15, 10, 10], pot=-5, balances=[-115, -90, -90], pot_total=295)


def test_mini_2_4_per_point_heart_solo_lost_49():
    """docs/rules 2.4 Mini-example: "per point, Heart Solo lost with d = 49: x = 11, P = up5(11)
    = 15, H = up5(7.5) = 10 each, bank adds 5"."""
    r = _heart_solo_anton(49)
    check_result(r, won=False, payments=[-15, 10, 10], pot=-5)


def test_mini_2_4_fixed_solo_won_95():
    """docs/rules 2.4 Mini-example: "Fixed, Solo won with 95: 60 c from each defender"."""
    s = new_session("tarock_simple", first_dealer=CHARLOTTE, options={"payment": "fixed"})
    deal(s)
    feed(s, [bid(ANTON, "spiele"), bid(BERTA, PASS), bid(CHARLOTTE, PASS),
             bid(ANTON, "declare", "solo", "D")])
    r = finish(s, 95)
    check_result(r, contract="solo", trump="D", won=True, schneider=True,
                 payments=[120, -60, -60], pot=0, balances=[120, -60, -60], pot_total=0)


# ----- EX3: Durch, played card by card ---------------------------------------------------

# Dealer Berta -> F Charlotte, M Anton, R Berta.  Charlotte holds all nine Leaves plus CA, DA.
EX3_HANDS = [
    ["HA", "H10", "HK", "HQ", "HJ", "C10", "CK", "CQ", "CJ", "C9", "C8"],     # Anton
    ["H9", "H8", "H7", "H6", "D10", "DK", "DQ", "DJ", "D9", "D8", "D7"],      # Berta
    ["SA", "S10", "SK", "SQ", "SJ", "S9", "S8", "S7", "S6", "CA", "DA"],      # Charlotte
]
EX3_TALON = ["C7", "C6", "D6"]
EX3_TRICKS = [
    ("C:S6 A:HA B:H9", CHARLOTTE, 11),
    ("C:S7 A:H10 B:H8", CHARLOTTE, 10),
    ("C:S8 A:HK B:H7", CHARLOTTE, 4),
    ("C:S9 A:HQ B:H6", CHARLOTTE, 3),
    ("C:SJ A:HJ B:D8", CHARLOTTE, 4),
    ("C:SQ A:C10 B:D9", CHARLOTTE, 13),
    ("C:SK A:CK B:DJ", CHARLOTTE, 10),
    ("C:S10 A:CQ B:DQ", CHARLOTTE, 16),
    ("C:SA A:CJ B:DK", CHARLOTTE, 17),
    ("C:CA A:C8 B:D10", CHARLOTTE, 21),
    ("C:DA A:C9 B:D7", CHARLOTTE, 11),
]


def test_ex3_tarock_simple_per_point_durch():
    """EX3: "Dealer Berta -> F Charlotte, M Anton, R Berta. Charlotte spiele, others pass; she
    declares solo in Leaves (S) and wins all 11 tricks; the Gschdaad counts for her: d / e =
    120 / 0, x = 60, 60 x 1 c x 2 (Durch) = 120 c. Payments: Charlotte +120, bank -120"."""
    check_hands(EX3_HANDS, EX3_TALON)
    s = new_session("tarock_simple", first_dealer=BERTA)
    deal(s, EX3_HANDS, EX3_TALON)
    assert s.view.active_seats() == [CHARLOTTE, ANTON, BERTA]
    feed(s, [bid(CHARLOTTE, "spiele"), bid(ANTON, PASS), bid(BERTA, PASS),
             bid(CHARLOTTE, "declare", "solo", "S")])
    out = play_tricks(s, EX3_TRICKS)
    check_result(out["result"], declarer=CHARLOTTE, contract="solo", trump="S", target=61,
                 points=[120, 0], tricks=[11, 0], won=True, schwarz=True, multiplier=1,
                 payments=[0, 0, 120], pot=-120, balances=[-100, -100, 20], pot_total=180,
                 next_dealer=CHARLOTTE)


# ----- EX4: fixed payments (Sirch) ----------------------------------------------------------

FIXED = {"payment": "fixed"}


def _ex4_session():
    """EX4: "Dealer Anton -> F Berta, M Charlotte, R Anton. Berta spiele; Charlotte besser;
    Berta hold; Anton pass. Berta holds level 2"."""
    s = new_session("tarock_simple", first_dealer=ANTON, options=FIXED)
    deal(s)
    assert s.view.active_seats() == [BERTA, CHARLOTTE, ANTON]
    feed(s, [bid(BERTA, "spiele"), bid(CHARLOTTE, "besser"), bid(BERTA, "hold"),
             bid(ANTON, PASS)])
    assert s.view.declarer() == BERTA
    return s


def test_ex4_level2_forbids_frage():
    """docs/rules 2.4 Auction: "at level 2 the declarer must declare Solo or Heart Solo"."""
    s = _ex4_session()
    refused(s, bid(BERTA, "declare", "frage"), "illegal_contract")
    refused(s, bid(BERTA, "declare", "solo", "H"), "illegal_contract")  # Solo: C, S or D


def test_ex4a_fixed_solo_won_schneider():
    """EX4 (a): "Berta ... declares solo in Acorns (C). d / e = 95 / 25 -> won schneider
    (>= 91) -> 60 c from each defender. Payments: Berta +120, Charlotte -60, Anton -60"."""
    s = _ex4_session()
    feed(s, [bid(BERTA, "declare", "solo", "C")])
    r = finish(s, 95)
    check_result(r, declarer=BERTA, contract="solo", trump="C", target=61, points=[95, 25],
                 won=True, schneider=True, payments=[-60, 120, -60], pot=0,
                 balances=[-60, 120, -60], pot_total=0, next_dealer=BERTA)


def test_ex4b_fixed_frage_lost_45_another_deal():
    """EX4 (b): "Another deal: Anton plays frage, d = 45 -> lost, not schneider -> Anton pays 25
    to each: Anton -50, Berta +25, Charlotte +25" (played as the session's second deal:
    dealer Berta -> F Charlotte, M Anton, R Berta)."""
    s = _ex4_session()
    feed(s, [bid(BERTA, "declare", "solo", "C")])
    finish(s, 95)
    dealt = deal(s)
    assert s.view.active_seats() == [CHARLOTTE, ANTON, BERTA]
    feed(s, [bid(CHARLOTTE, PASS), bid(ANTON, "spiele"), bid(BERTA, PASS),
             bid(ANTON, "declare", "frage")])
    exchange_talon_back(s, dealt)
    r = finish(s, 45)
    check_result(r, declarer=ANTON, contract="frage", trump="H", points=[45, 75], won=False,
                 schneider=False, payments=[-50, 25, 25], pot=0,
                 balances=[-110, 145, -35], pot_total=0, next_dealer=CHARLOTTE)


def test_ex4c_fixed_heart_solo_lost_schneider():
    """EX4 (c): "heart_solo lost with d = 28 (<= 30) -> 60 to each defender: declarer -120"."""
    s = _ex4_session()
    feed(s, [bid(BERTA, "declare", "heart_solo")])
    r = finish(s, 28)
    check_result(r, declarer=BERTA, contract="heart_solo", trump="H", points=[28, 92],
                 won=False, schneider=True, payments=[60, -120, 60], pot=0)


@pytest.mark.parametrize("contract, trump", [("frage", None), ("solo", "S"),
                                             ("heart_solo", None)])
def test_ex4d_fixed_draw_60(contract, trump):
    """EX4 (d): "Any contract with d = 60 -> draw, no payments" (2.4: the draw also applies to
    the fixed system)."""
    s = new_session("tarock_simple", first_dealer=CHARLOTTE, options=FIXED)
    dealt = deal(s)
    feed(s, [bid(ANTON, "spiele"), bid(BERTA, PASS), bid(CHARLOTTE, PASS),
             bid(ANTON, "declare", contract, trump)])
    if contract == "frage":
        exchange_talon_back(s, dealt)
    r = finish(s, 60)
    check_result(r, declarer=ANTON, contract=contract, points=[60, 60], won=None,
                 schneider=False, payments=[0, 0, 0], pot=0, balances=[0, 0, 0])


def test_2_4_per_point_draw_60_bank_untouched():
    """docs/rules 2.4: "d = 60 draw (no transfers, bank untouched)"."""
    r = _heart_solo_anton(60)
    check_result(r, won=None, payments=[0, 0, 0], pot=0, balances=[-100, -100, -100],
                 pot_total=300)


# =====================================================================================
# 2.6 haferltarock -- EX11, EX12, mini-examples; 2.7 berliner -- EX13
# =====================================================================================


def _ex11_deal1(s, d):
    """EX11 Deal 1: "dealer Charlotte -> F Anton. Anton spiele, Berta pass, Charlotte pass. Anton
    picks up the Stock, discards 3, names Bells (D)"."""
    dealt = deal(s)
    assert s.view.active_seats() == [ANTON, BERTA, CHARLOTTE]
    feed(s, [bid(ANTON, "spiele"), bid(BERTA, PASS), bid(CHARLOTTE, PASS)])
    exchange_talon_back(s, dealt)
    feed(s, [bid(ANTON, "declare", "pickup", "D")])
    return finish(s, d)


def test_ex11_haferl_deal1_pickup_won_78():
    """EX11: "3 players each antes 50 -> Haferl 150. Deal 1: ... d = 78 -> won, W = max(5, 18)
    = 18 from the Haferl. Payments: Anton +18, Haferl -18 (132)"."""
    s = new_session("haferltarock", first_dealer=CHARLOTTE)
    assert s.view.pot() == 150
    r = _ex11_deal1(s, 78)
    check_result(r, declarer=ANTON, contract="pickup", trump="D", target=61, points=[78, 42],
                 won=True, multiplier=1, payments=[18, 0, 0], pot=-18,
                 balances=[-32, -50, -50], pot_total=132, next_dealer=ANTON)


def test_ex11_haferl_deal2_pickup_lost_52():
    """EX11 Deal 2: "dealer Anton -> F Berta, M Charlotte, R Anton. Berta spiele, others pass;
    Pick-up in Hearts; d / e = 52 / 68 -> lost, L = max(5, 61 - 52) = 9. Berta pays 9 to
    Charlotte (next after her); the Haferl pays 9 to Anton. Payments: Berta -9, Charlotte +9,
    Anton +9, Haferl -9 (123)"."""
    s = new_session("haferltarock", first_dealer=CHARLOTTE)
    _ex11_deal1(s, 78)
    dealt = deal(s)
    assert s.view.active_seats() == [BERTA, CHARLOTTE, ANTON]
    feed(s, [bid(BERTA, "spiele"), bid(CHARLOTTE, PASS), bid(ANTON, PASS)])
    exchange_talon_back(s, dealt)
    feed(s, [bid(BERTA, "declare", "pickup", "H")])
    r = finish(s, 52)
    check_result(r, declarer=BERTA, contract="pickup", trump="H", target=61, points=[52, 68],
                 won=False, payments=[9, -9, 9], pot=-9, balances=[-23, -59, -41],
                 pot_total=123, next_dealer=BERTA)


@pytest.mark.parametrize("d, won, payments, pot", [
    (63, True, [5, 0, 0], -5),      # W = 5
    (66, True, [6, 0, 0], -6),      # W = 6
    (60, False, [-5, 5, 5], -5),    # lost (no draw), L = 5: Berta (next after Anton) + Haferl
    (55, False, [-6, 6, 6], -6),    # L = 6
])
def test_ex11_haferl_boundaries(d, won, payments, pot):
    """EX11: "Boundaries: d = 63 -> W = 5; d = 66 -> 6; d = 60 -> lost, L = 5; d = 55 -> L = 6"."""
    s = new_session("haferltarock", first_dealer=CHARLOTTE)
    r = _ex11_deal1(s, d)
    check_result(r, declarer=ANTON, won=won, payments=payments, pot=pot, pot_total=150 + pot)


def test_mini_2_6_pickup_won_78():
    """docs/rules 2.6 Mini-example: "Pick-up won with 78 -> 18 c from the Haferl"."""
    r = _ex11_deal1(new_session("haferltarock", first_dealer=CHARLOTTE), 78)
    check_result(r, payments=[18, 0, 0], pot=-18)


def _ex12(**options):
    """EX12: "Dealer Charlotte -> F Anton, M Berta, R Charlotte. Auction: Anton spiele (Pick-up
    61); Berta auch (Hand 61); Anton vorn; Berta mehr 66; Anton vorn; Berta mehr 71; Anton pass;
    Charlotte pass (she could have bid mehr 76). Berta is declarer: Hand, T = 71, names Leaves
    (S), Stock unseen"."""
    s = new_session("haferltarock", first_dealer=CHARLOTTE, options=options)
    deal(s)
    feed(s, [bid(ANTON, "spiele"), bid(BERTA, "auch"), bid(ANTON, "vorn"),
             bid_value(BERTA, "mehr", 66), bid(ANTON, "vorn"), bid_value(BERTA, "mehr", 71),
             bid(ANTON, PASS)])
    assert bid_value(CHARLOTTE, "mehr", 76) in s.view.legal_calls()
    refused(s, bid_value(CHARLOTTE, "mehr", 81), "illegal_call")  # every bid is the next step
    feed(s, [bid(CHARLOTTE, PASS)])
    assert s.view.declarer() == BERTA and s.view.contract() == "hand"
    feed(s, [bid(BERTA, "declare", "hand", "S")])
    return s


def test_ex12a_haferl_hand71_won_78():
    """EX12 (a): "d / e = 78 / 42 (Stock worth 7 included) -> won, W = 18, Hand -> 36 from each
    defender: Berta +72, Anton -36, Charlotte -36, Haferl 0"."""
    r = finish(_ex12(), 78)
    check_result(r, declarer=BERTA, contract="hand", trump="S", target=71, points=[78, 42],
                 won=True, multiplier=1, payments=[-36, 72, -36], pot=0,
                 balances=[-86, 22, -86], pot_total=150, next_dealer=ANTON)


def test_mini_2_6_hand71_won_78():
    """docs/rules 2.6 Mini-example: "Hand 71 won with 78 -> 36 c from each defender"."""
    r = finish(_ex12(), 78)
    check_result(r, target=71, payments=[-36, 72, -36], pot=0)


@pytest.mark.parametrize("raise_payment", ["target", "base61"])
def test_ex12b_haferl_hand71_lost_68(raise_payment):
    """EX12 (b): "d = 68 -> lost (below 71): L = max(5, 3) = 5 -> 10 to each: Berta -20,
    Anton +10, Charlotte +10 (same under raise_payment = base61)"."""
    r = finish(_ex12(raise_payment=raise_payment), 68)
    check_result(r, declarer=BERTA, target=71, points=[68, 52], won=False,
                 payments=[10, -20, 10], pot=0, pot_total=150)


@pytest.mark.parametrize("raise_payment, each", [("target", 42), ("base61", 22)])
def test_ex12c_haferl_hand71_lost_50(raise_payment, each):
    """EX12 (c): "d = 50 -> L = 21 -> 42 to each: Berta -84; under base61, L = 11 -> 22 each:
    Berta -44"."""
    r = finish(_ex12(raise_payment=raise_payment), 50)
    check_result(r, declarer=BERTA, target=71, points=[50, 70], won=False,
                 payments=[each, -2 * each, each], pot=0)


def test_ex12d_haferl_hand71_kontra_re():
    """EX12 (d): "As (a) with doubling = kontra_re, Anton kontra, Berta re (c = 4): 144 from
    each defender: Berta +288"."""
    s = _ex12(doubling="kontra_re")
    feed(s, [kontra(ANTON), re_(BERTA)])
    r = finish(s, 78)
    check_result(r, declarer=BERTA, target=71, won=True, multiplier=4,
                 payments=[-144, 288, -144], pot=0, pot_total=150)


def test_2_6_self_raise_hand_game():
    """docs/rules 2.6 Self-raise (D28): "if the declarer won the auction without any other player
    having made a positive bid, he may, immediately after the auction ... raise to any higher
    step; the contract is then a Hand game at that target". Anton spiele, others pass, Anton
    raise 76; d = 78 -> W = 18 -> 36 from each defender."""
    s = new_session("haferltarock", first_dealer=CHARLOTTE, options={"self_raise": True})
    deal(s)
    feed(s, [bid(ANTON, "spiele"), bid(BERTA, PASS), bid(CHARLOTTE, PASS)])
    refused(s, bid_value(ANTON, "raise", 73), "illegal_call")   # not a step
    feed(s, [bid_value(ANTON, "raise", 76), bid(ANTON, "declare", "hand", "C")])
    r = finish(s, 78)
    check_result(r, declarer=ANTON, contract="hand", trump="C", target=76, won=True,
                 payments=[72, -36, -36], pot=0)


def _ex12_auction_only(**options):
    """EX12-like auction: Anton spiele, Berta auch, Anton pass, Charlotte pass."""
    s = new_session("haferltarock", first_dealer=CHARLOTTE, options=options)
    deal(s)
    feed(s, [bid(ANTON, "spiele"), bid(BERTA, "auch"), bid(ANTON, PASS), bid(CHARLOTTE, PASS)])
    return s


def test_2_6_self_raise_not_after_a_challenge():
    """docs/rules 2.6 (D28): no self-raise when another player made a positive bid (EX12
    auction with self_raise = true)."""
    s = _ex12_auction_only(self_raise=True)
    refused(s, bid_value(BERTA, "raise", 76), "illegal_call")


def test_ex13_berliner_dealer_pickup_hearts_forced():
    """EX13: "berliner (berliner_hearts = true). Dealer Charlotte -> F Anton, M Berta,
    R Charlotte. Anton pass, Berta pass, Charlotte (dealer) spiele: Pick-up, Hearts forced.
    d = 66 -> W = 6 from the Haferl: Charlotte +6, Haferl -6"."""
    s = new_session("berliner", first_dealer=CHARLOTTE, options={"berliner_hearts": True})
    dealt = deal(s)
    feed(s, [bid(ANTON, PASS), bid(BERTA, PASS), bid(CHARLOTTE, "spiele")])
    exchange_talon_back(s, dealt)
    refused(s, bid(CHARLOTTE, "declare", "pickup", "S"), "illegal_contract")
    feed(s, [bid(CHARLOTTE, "declare", "pickup", "H")])
    r = finish(s, 66)
    check_result(r, declarer=CHARLOTTE, contract="pickup", trump="H", target=61,
                 points=[66, 54], won=True, payments=[0, 0, 6], pot=-6,
                 balances=[-50, -50, -44], pot_total=144)


def test_ex13_berliner_had_anton_opened():
    """EX13: "Had Anton opened, his lowest bid would have been auch (Hand 61), and Charlotte
    could then only bid mehr 66 (Hand)"."""
    s = new_session("berliner", first_dealer=CHARLOTTE, options={"berliner_hearts": True})
    deal(s)
    refused(s, bid(ANTON, "spiele"), "illegal_call")
    feed(s, [bid(ANTON, "auch"), bid(BERTA, PASS)])
    assert s.view.legal_calls() == [bid(CHARLOTTE, PASS), bid_value(CHARLOTTE, "mehr", 66)]
    refused(s, bid(CHARLOTTE, "spiele"), "illegal_call")
    refused(s, bid(CHARLOTTE, "auch"), "illegal_call")
    feed(s, [bid_value(CHARLOTTE, "mehr", 66), bid(ANTON, PASS)])
    assert s.view.declarer() == CHARLOTTE and s.view.contract() == "hand"
    assert s.view.target() == 66


# =====================================================================================
# docs/rules 1.7: the bank / Haferl running dry (option shortfall)
# =====================================================================================


def test_1_7_haferl_cap_end_pays_what_it_holds():
    """docs/rules 1.7 / D21 cap_end (default): "it pays what it holds, the payee gets only that,
    and the session ends after this deal"; record format convention 9: "session_over: true ... after
    that every deal is wrong_phase". pot_ante 5 -> Haferl 15; EX11 Deal 1 (W = 18)."""
    s = new_session("haferltarock", first_dealer=CHARLOTTE, options={"pot_ante": 5})
    r = _ex11_deal1(s, 78)
    check_result(r, won=True, payments=[15, 0, 0], pot=-15, balances=[10, -5, -5],
                 pot_total=0, session_over=True)
    refused(s, {"ev": "deal", "dealer": ANTON, "hands": None, "talon": None}, "wrong_phase")


def test_1_7_haferl_exactly_empty_ends_session():
    """docs/rules 1.7: "A session also ends when a Haferl or bank is exactly 0 after a
    settlement (under cap_end)". pot_ante 6 -> Haferl 18, W = 18."""
    s = new_session("haferltarock", first_dealer=CHARLOTTE, options={"pot_ante": 6})
    r = _ex11_deal1(s, 78)
    check_result(r, payments=[18, 0, 0], pot=-18, pot_total=0, session_over=True)
    refused(s, {"ev": "deal", "dealer": ANTON, "hands": None, "talon": None}, "wrong_phase")


def test_1_7_haferl_refill():
    """docs/rules 1.7 refill: "before paying, every person at the table pays the variant's ante
    into it again (repeat until it suffices)". Haferl 15 < W = 18 -> everyone antes 5 (30),
    then 18 is paid; the session goes on."""
    s = new_session("haferltarock", first_dealer=CHARLOTTE,
                    options={"pot_ante": 5, "shortfall": "refill"})
    r = _ex11_deal1(s, 78)
    check_result(r, payments=[13, -5, -5], pot=-3, balances=[8, -10, -10], pot_total=12)
    assert "session_over" not in r
    deal(s)


def _bank_solo_won(d, **options):
    s = new_session("tarock_simple", first_dealer=CHARLOTTE, options=options)
    deal(s)
    feed(s, [bid(ANTON, "spiele"), bid(BERTA, PASS), bid(CHARLOTTE, PASS),
             bid(ANTON, "declare", "solo", "C")])
    return s, finish(s, d)


def test_1_7_bank_cap_end():
    """docs/rules 2.4 "Bank running dry: option shortfall (1.7, default cap_end)". bank_ante 10
    -> bank 30; Solo won with d = 100 -> 40 c due, the bank pays its 30 and the session ends."""
    s, r = _bank_solo_won(100, bank_ante=10)
    check_result(r, won=True, payments=[30, 0, 0], pot=-30, balances=[20, -10, -10],
                 pot_total=0, session_over=True)
    refused(s, {"ev": "deal", "dealer": ANTON, "hands": None, "talon": None}, "wrong_phase")


def test_1_7_bank_refill():
    """docs/rules 1.7 refill with the bank: 30 < 40 -> every person antes 10 again (60), then
    40 c is paid."""
    s, r = _bank_solo_won(100, bank_ante=10, shortfall="refill")
    check_result(r, won=True, payments=[30, -10, -10], pot=-10, balances=[20, -20, -20],
                 pot_total=20)
    assert "session_over" not in r


def test_1_7_bank_refill_sitting_out_dealer_antes_too():
    """docs/rules 1.4 (the sitting-out dealer "still pays antes into a pot") with 1.7 refill
    ("every person at the table pays the variant's ante"): 4 at the table, bank_ante 10 ->
    bank 40; dealer Dieter sits out; Anton's Solo won with d = 110 -> 50 c due -> all four
    ante 10 again (80), then 50 is paid."""
    s = new_session("tarock_simple", players=4, first_dealer=DIETER,
                    options={"bank_ante": 10, "shortfall": "refill"})
    deal(s)
    feed(s, [bid(ANTON, "spiele"), bid(BERTA, PASS), bid(CHARLOTTE, PASS),
             bid(ANTON, "declare", "solo", "S")])
    r = finish(s, 110)
    check_result(r, won=True, payments=[40, -10, -10, -10], pot=-10,
                 balances=[30, -20, -20, -20], pot_total=30)


# =====================================================================================
# 2.8 scharfer_tarock -- EX5, mini-example
# =====================================================================================


def _ex5_sole_bidder(contract, trump=None, options=None):
    """EX5: "Dealer Charlotte -> F Anton. Anton spiele, Berta pass, Charlotte pass: Anton is the
    sole bidder" and chooses ``contract``."""
    s = new_session("scharfer_tarock", first_dealer=CHARLOTTE, options=options)
    dealt = deal(s)
    feed(s, [bid(ANTON, "spiele"), bid(BERTA, PASS), bid(CHARLOTTE, PASS),
             bid(ANTON, "declare", contract, trump)])
    if contract == "frage":
        exchange_talon_back(s, dealt)
    return s


def test_ex5a_scharf_heart_solo_won_91():
    """EX5 (a): "heart_solo, d = 91 -> S = 10 + 10 = 20 -> Anton +40, Berta -20,
    Charlotte -20"."""
    r = finish(_ex5_sole_bidder("heart_solo"), 91)
    check_result(r, declarer=ANTON, contract="heart_solo", trump="H", target=61,
                 points=[91, 29], won=True, schneider=True, payments=[40, -20, -20], pot=0,
                 balances=[1040, 980, 980], pot_total=0, next_dealer=ANTON)


def test_ex5b_scharf_frage_won_91():
    """EX5 (b): "Same cards as frage (Hearts, Stock exchanged): d = 91 -> S/2 = 10 from each ->
    Anton +20, Berta -10, Charlotte -10"."""
    r = finish(_ex5_sole_bidder("frage"), 91)
    check_result(r, declarer=ANTON, contract="frage", trump="H", points=[91, 29], won=True,
                 schneider=True, payments=[20, -10, -10], balances=[1020, 990, 990])


@pytest.mark.parametrize("contract", ["heart_solo", "frage"])
def test_ex5c_scharf_lost_29(contract):
    """EX5 (c): "Lost by the same margin, d = 29 (e = 91): heart_solo -> 20 to each; frage ->
    also the full 20 to each. Anton -40 in both cases"."""
    r = finish(_ex5_sole_bidder(contract), 29)
    check_result(r, declarer=ANTON, contract=contract, points=[29, 91], won=False,
                 schneider=True, payments=[-40, 20, 20], balances=[960, 1020, 1020])


@pytest.mark.parametrize("contract, d, payments", [
    ("heart_solo", 91, [40, -20, -20]), ("frage", 91, [20, -10, -10]),
    ("heart_solo", 29, [-40, 20, 20]), ("frage", 29, [-40, 20, 20]),
])
def test_mini_2_8_source_example(contract, d, payments):
    """docs/rules 2.8: "Source example, recomputed: Herzsolo won with 91 -> 10 + 10 = 20 c from
    each defender; as Frage -> 5 + 5 = 10 c from each; lost with the same margin (declarer 29)
    -> 20 c to each defender in both cases"."""
    r = finish(_ex5_sole_bidder(contract), d)
    check_result(r, payments=payments, pot=0)


def test_2_8_scharf_60_is_a_loss():
    """docs/rules 2.8: "Won if d >= 61 (60 is a loss)"."""
    r = finish(_ex5_sole_bidder("solo", "C"), 60)
    check_result(r, contract="solo", trump="C", won=False, payments=[-20, 10, 10])


# EX5 (d): Berta holds all six Hearts and CA; Stock DQ DJ D9 (5 points) counts for her.
EX5D_HANDS = [
    ["C10", "CK", "CQ", "CJ", "C9", "SA", "S10"],     # Anton
    ["HA", "H10", "HK", "HQ", "HJ", "H9", "CA"],      # Berta
    ["SK", "SQ", "SJ", "S9", "DA", "D10", "DK"],      # Charlotte
]
EX5D_TALON = ["DQ", "DJ", "D9"]


def test_ex5d_scharf_herz_priority_all_tricks():
    """EX5 (d): "Anton and Berta both say spiele; in step 2 Anton nicht_herz, Berta herz ->
    Berta heart_solo. She takes all 7 tricks: S = 10 + 10 + 10 = 30 -> Berta +60, Anton -30,
    Charlotte -30"."""
    check_hands(EX5D_HANDS, EX5D_TALON, deck_size=24)
    s = new_session("scharfer_tarock", first_dealer=CHARLOTTE)
    deal(s, EX5D_HANDS, EX5D_TALON)
    feed(s, [bid(ANTON, "spiele"), bid(BERTA, "spiele"), bid(CHARLOTTE, PASS),
             bid(ANTON, "nicht_herz"), bid(BERTA, "herz")])
    assert s.view.declarer() == BERTA
    # 2.8: "Only a declarer who was the sole bidder may choose Frage"
    refused(s, bid(BERTA, "declare", "frage"), "illegal_contract")
    out = play_tricks(s, [
        ("A:C10 B:CA C:SK", BERTA, 25),
        ("B:H9 C:DA A:SA", BERTA, 22),
        ("B:HJ C:D10 A:S10", BERTA, 22),
        ("B:HQ C:DK A:CK", BERTA, 11),
        ("B:HK C:SQ A:CQ", BERTA, 10),
        ("B:H10 C:SJ A:CJ", BERTA, 14),
        ("B:HA C:S9 A:C9", BERTA, 11),
    ])
    assert out["result"] == {
        "declarer": BERTA, "contract": "heart_solo", "trump": "H", "target": 61,
        "points": [120, 0], "tricks": [7, 0], "won": True, "schneider": True,
        "schwarz": True, "multiplier": 1, "payments": [-30, 60, -30], "pot": 0,
        "balances": [970, 1060, 970], "pot_total": 0, "next_dealer": ANTON,
    }


# EX5 (e): Anton (solo in Bells) holds nothing that can win a trick.
EX5E_HANDS = [
    ["CJ", "CQ", "SJ", "SQ", "HJ", "HQ", "D9"],       # Anton
    ["CA", "C10", "CK", "SA", "S10", "SK", "DA"],     # Berta
    ["HA", "H10", "HK", "D10", "DK", "DQ", "DJ"],     # Charlotte
]
EX5E_TRICKS = [
    ("A:D9 B:DA C:DJ", BERTA, 13),
    ("B:CA C:DQ A:CJ", CHARLOTTE, 16),
    ("C:HA A:HQ B:CK", CHARLOTTE, 18),
    ("C:HK A:HJ B:C10", CHARLOTTE, 16),
    ("C:H10 A:CQ B:S10", CHARLOTTE, 23),
    ("C:D10 A:SJ B:SK", CHARLOTTE, 16),
    ("C:DK A:SQ B:SA", CHARLOTTE, 18),
]


def _ex5e(hands, talon, tricks):
    check_hands(hands, talon, deck_size=24)
    s = new_session("scharfer_tarock", first_dealer=CHARLOTTE)
    deal(s, hands, talon)
    feed(s, [bid(ANTON, "spiele"), bid(BERTA, PASS), bid(CHARLOTTE, PASS),
             bid(ANTON, "declare", "solo", "D")])
    return play_tricks(s, tricks)["result"]


def test_ex5e_scharf_defenders_schwarz():
    """EX5 (e): "Anton solo in Bells (D), Stock = C9 S9 H9 (0 points), the defenders take all
    7 tricks: e = 120 -> Schwarz -> S = 30 to each -> Anton -60"."""
    r = _ex5e(EX5E_HANDS, ["C9", "S9", "H9"], EX5E_TRICKS)
    assert r == {
        "declarer": ANTON, "contract": "solo", "trump": "D", "target": 61,
        "points": [0, 120], "tricks": [0, 7], "won": False, "schneider": True,
        "schwarz": True, "multiplier": 1, "payments": [-60, 30, 30], "pot": 0,
        "balances": [940, 1030, 1030], "pot_total": 0, "next_dealer": ANTON,
    }


def test_ex5e_scharf_stock_with_counting_card():
    """EX5 (e): "Had the Stock held a counting card, e < 120 and he would pay 20 each" (D32).
    Stock C9 S9 HJ (2 points), Anton holds H9 instead of HJ: e = 118."""
    hands = [list(h) for h in EX5E_HANDS]
    hands[ANTON][hands[ANTON].index("HJ")] = "H9"
    tricks = list(EX5E_TRICKS)
    tricks[3] = ("C:HK A:H9 B:C10", CHARLOTTE, 14)
    r = _ex5e(hands, ["C9", "S9", "HJ"], tricks)
    check_result(r, declarer=ANTON, points=[2, 118], tricks=[0, 7], won=False,
                 schneider=True, payments=[-40, 20, 20], balances=[960, 1020, 1020])


# =====================================================================================
# 2.9 kontra_re -- EX16
# =====================================================================================


def _ex16(d, **options):
    """EX16: "Dealer Anton -> F Berta. Berta spiele, Charlotte pass, Anton pass; Berta declares
    solo (Acorns). Charlotte kontra, Berta re (c = 4)"."""
    opts = {"payment": "fixed", "doubling": "kontra_re"}
    opts.update(options)
    s = new_session("tarock_simple", first_dealer=ANTON, options=opts)
    deal(s)
    feed(s, [bid(BERTA, "spiele"), bid(CHARLOTTE, PASS), bid(ANTON, PASS),
             bid(BERTA, "declare", "solo", "C"), kontra(CHARLOTTE), re_(BERTA)])
    return finish(s, d)


def test_ex16_kontra_re_fixed_won_70():
    """EX16: "d = 70 -> simple win 50 x 4 = 200 from each: Berta +400, Charlotte -200,
    Anton -200"."""
    check_result(_ex16(70), declarer=BERTA, contract="solo", trump="C", points=[70, 50],
                 won=True, schneider=False, multiplier=4, payments=[-200, 400, -200], pot=0,
                 balances=[-200, 400, -200], pot_total=0)


def test_ex16_kontra_re_fixed_lost_50():
    """EX16: "With d = 50: Berta pays 200 to each (-400)"."""
    check_result(_ex16(50), won=False, multiplier=4, payments=[200, -400, 200], pot=0)


def test_ex16_kontra_per_point_ex1():
    """EX16: "Per-point system, EX1 with Kontra only: 10 x 2 = 20 from the bank"."""
    s = _ex1(doubling="kontra_re")
    feed(s, [kontra(BERTA)])
    r = finish(s, 71)
    check_result(r, declarer=ANTON, contract="frage", won=True, multiplier=2,
                 payments=[20, 0, 0], pot=-20, balances=[-80, -100, -100], pot_total=280)


def test_2_9_kontra_per_point_loss_with_top_up():
    """docs/rules 2.9: "Every transfer of the deal -- including bank/Haferl payments and the
    bank's top-up -- is computed as without doubling (with its rounding) and then multiplied
    by c". EX2 (b) with Kontra: P = 15 x 2 = 30, H = 10 x 2 = 20 each, top-up 5 x 2 = 10."""
    s = new_session("tarock_simple", first_dealer=CHARLOTTE, options={"doubling": "kontra_re"})
    deal(s)
    feed(s, [bid(ANTON, "spiele"), bid(BERTA, PASS), bid(CHARLOTTE, PASS),
             bid(ANTON, "declare", "heart_solo"), kontra(CHARLOTTE)])
    r = finish(s, 49)
    check_result(r, won=False, multiplier=2, payments=[-30, 20, 20], pot=-10, pot_total=290)


def test_2_9_kontra_re_calls():
    """docs/rules 2.9: "Either active defender may say kontra (at most one Kontra per deal) ...
    After a Kontra the declarer may say re"; doubling off -> no Kontra at all."""
    s = new_session("tarock_simple", first_dealer=ANTON, options={"doubling": "kontra_re"})
    deal(s)
    feed(s, [bid(BERTA, "spiele"), bid(CHARLOTTE, PASS), bid(ANTON, PASS),
             bid(BERTA, "declare", "solo", "C")])
    refused(s, re_(BERTA), "illegal_announce")        # no re before a kontra
    refused(s, kontra(BERTA), "illegal_announce")     # the declarer does not kontra
    feed(s, [kontra(ANTON)])
    refused(s, kontra(CHARLOTTE), "illegal_announce")  # at most one Kontra
    refused(s, re_(ANTON), "illegal_announce")          # only the declarer says re
    refused(s, announce(CHARLOTTE, "supp"), "illegal_announce")  # not without extended
    s2 = new_session("tarock_simple", first_dealer=ANTON)
    deal(s2)
    feed(s2, [bid(BERTA, "spiele"), bid(CHARLOTTE, PASS), bid(ANTON, PASS),
              bid(BERTA, "declare", "solo", "C")])
    refused(s2, kontra(ANTON), "illegal_announce")


# =====================================================================================
# 2.10 herzblatt -- EX14; 2.11 herzblatt_muhr -- EX15; 2.12 braun_solo -- EX17
# =====================================================================================


def _ex14():
    """EX14: "herzblatt, 4 players (hb4: no H8, D8), stake 10 c, loss_multiplier = 2. Dealer
    Dieter -> F Anton. Anton is asked: pass; Berta: spiele (Charlotte and Dieter are not
    asked). Berta takes the skat, discards 2"."""
    s = new_session("herzblatt", players=4, first_dealer=DIETER,
                    options={"stake": 10, "loss_multiplier": 2})
    dealt = deal(s)
    assert s.rules.deck == "hb4" and len(dealt[1]) == 2
    feed(s, [bid(ANTON, PASS), bid(BERTA, "spiele")])
    refused(s, bid(CHARLOTTE, PASS), "wrong_phase")   # the auction is over
    exchange_talon_back(s, dealt)
    return s


@pytest.mark.parametrize("case, d, schneider, each", [
    ("a", 70, False, 10),     # won -> 10 from each
    ("b", 88, True, 30),      # won schneider (e <= 33) -> 30 from each
    ("c", 60, False, -20),    # lost -> 20 to each
    ("d", 30, True, -40),     # lost schneider -> 40 to each
])
def test_ex14_herzblatt(case, d, schneider, each):
    """EX14: "(a) d / e = 70 / 50 -> won -> 10 from each: Berta +30, others -10. (b) d / e =
    88 / 32 -> won schneider (e <= 33) -> 30 from each: Berta +90. (c) d = 60 -> lost -> 20 to
    each: Berta -60. (d) d = 30 -> lost schneider -> 40 to each: Berta -120"."""
    r = finish(_ex14(), d)
    payments = [-each, 3 * each, -each, -each]
    check_result(r, declarer=BERTA, contract="soloist", trump="H", target=66,
                 points=[d, 120 - d], won=each > 0, schneider=schneider, multiplier=1,
                 payments=payments, pot=0, balances=payments, pot_total=0, next_dealer=ANTON)


@pytest.mark.parametrize("d, each", [(87, 30), (86, 10), (66, 10), (65, -20), (34, -20),
                                     (33, -40)])
def test_ex14_herzblatt_boundaries(d, each):
    """EX14: "Boundaries: d = 87 -> triple; d = 86 -> single; d = 34 -> 20 each; d = 33 -> 40
    each" (2.10: d >= 66 wins)."""
    r = finish(_ex14(), d)
    check_result(r, won=each > 0, payments=[-each, 3 * each, -each, -each], pot=0)


def _ex15(announcement=None, contra=True):
    """EX15: "herzblatt_muhr, 3 players (hb3), stake 5 c. Dealer Charlotte -> F Anton. Anton pass;
    Berta spiele -> soloist. Charlotte was never asked, so only she may contra; Anton may not.
    Berta discards 2, announces 66; Charlotte kontra; Berta re"."""
    s = new_session("herzblatt_muhr", players=3, first_dealer=CHARLOTTE, options={"stake": 5})
    dealt = deal(s)
    assert s.rules.deck == "hb3"
    feed(s, [bid(ANTON, PASS), bid(BERTA, "spiele")])
    exchange_talon_back(s, dealt)
    if announcement:
        feed(s, [announce(BERTA, announcement)])
    if contra:
        refused(s, kontra(ANTON), "illegal_announce")   # Anton was asked: no contra
        feed(s, [kontra(CHARLOTTE), re_(BERTA)])
    return s


def test_ex15_muhr_contra_eligibility():
    """EX15: "Charlotte was never asked, so only she may contra; Anton may not" ->
    illegal_announce for Anton (and for the soloist); Charlotte's kontra is accepted."""
    s = _ex15("66", contra=False)
    refused(s, kontra(ANTON), "illegal_announce")
    refused(s, kontra(BERTA), "illegal_announce")
    feed(s, [kontra(CHARLOTTE)])


def test_2_11_muhr_soloist_asked_last_nobody_may_contra():
    """docs/rules 2.11: "If the soloist was the last player asked, nobody may contra"."""
    s = new_session("herzblatt_muhr", players=3, first_dealer=CHARLOTTE)
    dealt = deal(s)
    feed(s, [bid(ANTON, PASS), bid(BERTA, PASS), bid(CHARLOTTE, "spiele")])
    exchange_talon_back(s, dealt)
    refused(s, kontra(ANTON), "illegal_announce")
    refused(s, kontra(BERTA), "illegal_announce")


def test_ex15a_muhr_66_kontra_re_won_schneider():
    """EX15 (a): "d / e = 90 / 30 -> won, schneider -> V = 5 x 2 x 2 x 4 = 80 from each:
    Berta +160, Anton -80, Charlotte -80"."""
    r = finish(_ex15("66"), 90)
    check_result(r, declarer=BERTA, contract="soloist", trump="H", target=66,
                 points=[90, 30], won=True, schneider=True, multiplier=4,
                 payments=[-80, 160, -80], pot=0, balances=[-80, 160, -80], pot_total=0)


def test_ex15b_muhr_66_kontra_re_lost_64():
    """EX15 (b): "d = 64 -> lost (66 not reached), no schneider -> V = 5 x 2 x 1 x 4 = 40 to
    each: Berta -80"."""
    r = finish(_ex15("66"), 64)
    check_result(r, target=66, points=[64, 56], won=False, schneider=False, multiplier=4,
                 payments=[40, -80, 40], pot=0)


@pytest.mark.parametrize("d, won, each", [(60, False, -5), (61, True, 5)])
def test_ex15c_muhr_no_announcement(d, won, each):
    """EX15 (c): "No announcement, no contra: d = 60 -> lost, 5 to each (Berta -10); d = 61 ->
    won, Berta +10"."""
    r = finish(_ex15(None, contra=False), d)
    check_result(r, target=61, won=won, schneider=False, multiplier=1,
                 payments=[-each, 2 * each, -each], pot=0)


def test_ex15d_muhr_du_all_tricks():
    """EX15 (d): "du announced, no contra, all tricks won -> 5 x 3 = 15 from each: Berta +30"
    (D39: a won du never gets the schneider factor)."""
    r = finish(_ex15("du", contra=False), 120, declarer_tricks=8)
    check_result(r, declarer=BERTA, points=[120, 0], tricks=[8, 0], won=True,
                 schneider=False, multiplier=1, payments=[-15, 30, -15], pot=0)


def test_ex17_braun_solo_club_solo():
    """EX17: "braun_solo, 4 players, stake 10 c. Dealer Dieter -> F Anton. Anton bid
    diamond_solo, Berta bid heart_solo, Charlotte pass, Dieter bid club_solo, Anton pass, Berta
    pass -> Dieter declarer, Clubs trumps; he takes the skat and discards 2. d = 70 -> won ->
    10 from each: Dieter +30, others -10"."""
    s = new_session("braun_solo", players=4, first_dealer=DIETER, options={"stake": 10})
    dealt = deal(s)
    feed(s, [bid(ANTON, "bid", "diamond_solo"), bid(BERTA, "bid", "heart_solo"),
             bid(CHARLOTTE, PASS)])
    refused(s, bid(DIETER, "bid", "heart_solo"), "illegal_contract")  # must outrank
    feed(s, [bid(DIETER, "bid", "club_solo"), bid(ANTON, PASS), bid(BERTA, PASS)])
    assert s.view.declarer() == DIETER
    exchange_talon_back(s, dealt)
    r = finish(s, 70)
    check_result(r, declarer=DIETER, contract="club_solo", trump="C", target=66,
                 points=[70, 50], won=True, payments=[-10, -10, -10, 30], pot=0,
                 balances=[-10, -10, -10, 30], pot_total=0, next_dealer=ANTON)


# ----- Herzblatt over-trump duty (docs/rules 1.5 rule 4, 3.1, 3.3 rule 3) ----------------------

# herzblatt, 3 players (hb3), dealer Charlotte -> F Anton; Anton passes, Berta is soloist.
# The skat is C8 S8 and Berta lays the same two cards away.
HB_HANDS = [
    ["HQ", "HJ", "CQ", "C9", "SQ", "S9", "DA", "D10"],     # Anton
    ["HA", "H9", "CA", "C10", "CK", "SA", "S10", "SK"],    # Berta
    ["HK", "H10", "CJ", "SJ", "DK", "DQ", "DJ", "D9"],     # Charlotte
]
HB_SKAT = ["C8", "S8"]


def _hb_soloist_berta(mode="strict"):
    check_hands(HB_HANDS, HB_SKAT, deck_size=26)
    s = new_session("herzblatt", players=3, first_dealer=CHARLOTTE, mode=mode)
    deal(s, HB_HANDS, HB_SKAT)
    feed(s, [bid(ANTON, PASS), bid(BERTA, "spiele"), exchange(BERTA, list(HB_SKAT))])
    return s


def test_1_5_rule4_herzblatt_must_overtrump_strict():
    """docs/rules 1.5 rule 4 / 3.2: "if the led card is a trump and he holds a trump that beats
    the highest trump already in the trick, he must play such a card" -- Anton leads HQ; Berta
    holds HA and H9: H9 is refused with must_overtrump, HA is accepted."""
    s = _hb_soloist_berta()
    feed(s, [play(ANTON, "HQ")])
    out = refused(s, play(BERTA, "H9"), "must_overtrump")
    assert out == {"ok": False, "error": "must_overtrump", "seat": BERTA, "card": "H9"}
    assert s.view.legal_cards() == ["HA"]
    feed(s, [play(BERTA, "HA")])


def test_1_5_rule4_herzblatt_no_higher_trump_any_trump():
    """docs/rules 1.5 rule 4: "if he holds trumps but none that beats it, any trump" --
    after HQ, HA Charlotte holds H10 and HK, neither beats HA: she may play HK (below her
    H10), but not a plain card."""
    s = _hb_soloist_berta()
    feed(s, [play(ANTON, "HQ"), play(BERTA, "HA")])
    assert sorted(s.view.legal_cards()) == ["H10", "HK"]
    refused(s, play(CHARLOTTE, "DK"), "must_follow")
    out = ok(s, play(CHARLOTTE, "HK"))
    assert out["trick"] == {"n": 1, "leader": ANTON, "cards": ["HQ", "HA", "HK"],
                            "winner": BERTA, "points": 18}


def test_1_5_rule4_herzblatt_overtrump_open_mode_revoke():
    """docs/rules 3.3 rule 3: "herzblatt family, L = T, suit(c) = T and c does not beat b = the
    highest trump in the trick before c -> he asserts no trump above b"; a later "trump that
    beats a b he asserted nothing above (rule 3 -> must_overtrump)" proves the revoke, which is
    attributed to the trick of the assertion. Berta (soloist) under-trumps HQ with H9 at trick
    1 and plays HA at trick 2. 3.4: the declarer offended and would otherwise win (d = 113), so
    d* = 66 - 1 = 65 -> lost, not schneider -> 2 stakes (20 c) to each defender."""
    s = _hb_soloist_berta(mode="open")
    play_tricks(s, [("A:HQ B:H9 C:HK", CHARLOTTE, 7)])
    feed(s, [play(CHARLOTTE, "H10"), play(ANTON, "HJ")])
    out = ok(s, play(BERTA, "HA"))
    assert out == {
        "ok": True,
        "trick": {"n": 2, "leader": CHARLOTTE, "cards": ["H10", "HJ", "HA"],
                  "winner": BERTA, "points": 23},
        "revoke": {"seat": BERTA, "trick": 1, "rule": "must_overtrump"},
    }
    out = play_tricks(s, [
        ("B:CA C:CJ A:CQ", BERTA, 16),
        ("B:C10 C:D9 A:C9", BERTA, 10),
        ("B:CK C:DJ A:D10", BERTA, 16),
        ("B:SA C:SJ A:S9", BERTA, 13),
        ("B:S10 C:DQ A:SQ", BERTA, 16),
        ("B:SK C:DK A:DA", BERTA, 19),
    ], first_n=3)
    assert out["result"] == {
        "declarer": BERTA, "contract": "soloist", "trump": "H", "target": 66,
        "points": [113, 7], "tricks": [7, 1], "won": False, "schneider": False,
        "schwarz": False, "multiplier": 1, "payments": [20, -40, 20], "pot": 0,
        "balances": [20, -40, 20], "pot_total": 0, "next_dealer": ANTON,
        "penalty": {"seat": BERTA, "trick": 1, "rule": "must_overtrump"},
        "settled_points": [65, 55],
    }


# =====================================================================================
# EX18: revoke proven in open mode (tarock_simple)
# =====================================================================================

# Dealer Charlotte -> F Anton, M Berta, R Charlotte.  Real hands (never sent in open mode):
EX18_HANDS = [
    ["HA", "HK", "HQ", "HJ", "H9", "SA", "S6", "C7", "C6", "D8", "D6"],     # Anton
    ["H10", "H8", "H7", "CA", "C10", "CK", "DA", "DK", "DQ", "D10", "D7"],  # Berta: no Spades
    ["H6", "S10", "SK", "SJ", "S9", "S8", "CQ", "C9", "C8", "DJ", "D9"],    # Charlotte
]
EX18_TALON = ["S7", "CJ", "SQ"]    # untouched in the Heart Solo, 5 points for Anton
EX18_T1_T7 = [
    ("A:HK B:H7 C:H6", ANTON, 4),
    ("A:HQ B:H8 C:SJ", ANTON, 5),
    ("A:SA B:D7 C:S9", ANTON, 11),   # Berta holds H10 but discards D7: must_trump revoke
    ("A:D6 B:DA C:D9", BERTA, 11),
    ("B:CA C:C9 A:C6", BERTA, 11),
    ("B:C10 C:C8 A:C7", BERTA, 10),
    ("B:DK C:DJ A:D8", BERTA, 6),
]
EX18_T9_T11 = [
    ("B:CK C:CQ A:HJ", ANTON, 9),
    ("A:S6 B:D10 C:S10", CHARLOTTE, 20),
    ("C:SK A:HA B:DQ", ANTON, 18),
]


def _ex18(**options):
    """EX18: "Anton declares heart_solo. Trick 3: Anton leads SA, Berta plays D7 (asserts void
    in Spades and in Hearts), Charlotte S9. Trick 8: Berta plays H10 -> must_trump proven at
    trick 3. Final d / e = 52 / 68"."""
    check_hands(EX18_HANDS, EX18_TALON)
    s = new_session("tarock_simple", first_dealer=CHARLOTTE, options=options, mode="open")
    deal(s)
    feed(s, [bid(ANTON, "spiele"), bid(BERTA, PASS), bid(CHARLOTTE, PASS),
             bid(ANTON, "declare", "heart_solo")])
    play_tricks(s, EX18_T1_T7)
    out = ok(s, play(BERTA, "H10"))
    assert out == {"ok": True, "revoke": {"seat": BERTA, "trick": 3, "rule": "must_trump"}}
    feed(s, [play(CHARLOTTE, "S8")])
    out = ok(s, play(ANTON, "H9"))
    assert out == {"ok": True, "trick": {"n": 8, "leader": BERTA, "cards": ["H10", "S8", "H9"],
                                         "winner": BERTA, "points": 10}}
    return play_tricks(s, EX18_T9_T11, first_n=9)["result"]


def test_ex18_open_mode_revoke_fixed():
    """EX18: "A defender offended and the declarer would have lost, so d* = 61 -> simple win:
    Berta and Charlotte pay 50 each; Anton +100"."""
    r = _ex18(payment="fixed")
    assert r == {
        "declarer": ANTON, "contract": "heart_solo", "trump": "H", "target": 61,
        "points": [52, 68], "tricks": [5, 6], "won": True, "schneider": False,
        "schwarz": False, "multiplier": 1, "payments": [100, -50, -50], "pot": 0,
        "balances": [100, -50, -50], "pot_total": 0, "next_dealer": ANTON,
        "penalty": {"seat": BERTA, "trick": 3, "rule": "must_trump"},
        "settled_points": [61, 59],
    }


def test_ex18_open_mode_revoke_per_point():
    """EX18: "(Per-point system: x* = 1 -> up5(1) = 5 c from the bank.)"."""
    r = _ex18()
    check_result(r, declarer=ANTON, points=[52, 68], won=True, settled_points=[61, 59],
                 penalty={"seat": BERTA, "trick": 3, "rule": "must_trump"},
                 payments=[5, 0, 0], pot=-5, balances=[-95, -100, -100], pot_total=295)
