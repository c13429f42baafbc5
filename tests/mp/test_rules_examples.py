"""docs/rules worked examples and mini-examples for wuerttemberg, tapp_classic, tapp_modern.

Each test is named after the example it checks and quotes it.  Seats as in
docs/rules section 4: 0 Anton, 1 Berta, 2 Charlotte, 3 Dieter.  Point-value
examples run the real auction/exchange through ``Session.apply`` and then end
the deal with chosen card points (``scenario.finish``); EX8, EX9, EX10 and the
EX18 ``suit_durch`` sentence are played card by card with hand-made deals.
"""
import pytest
from rules_driver import (
    ANTON,
    BERTA,
    CHARLOTTE,
    DIETER,
    bid,
    check_hands,
    check_result,
    deal,
    exchange_talon_back,
    feed,
    finish,
    finish_ramsch,
    new_session,
    ok,
    play,
    play_tricks,
    refused,
)

PASS = "pass"


# =====================================================================================
# 2.1 wuerttemberg
# =====================================================================================


def _wuerttemberg_frage(d, **options):
    """Dealer Charlotte -> F Anton bids Frage, the others pass, Anton exchanges."""
    s = new_session("wuerttemberg", first_dealer=CHARLOTTE, options=options)
    dealt = deal(s)
    feed(s, [bid(ANTON, "bid", "frage"), bid(BERTA, PASS), bid(CHARLOTTE, PASS)])
    exchange_talon_back(s, dealt)
    return finish(s, d)


def test_mini_2_1_frage_75():
    """docs/rules 2.1 Mini-example: "Frage, d = 75 -> x = 15, each defender pays 15 u"."""
    r = _wuerttemberg_frage(75)
    check_result(r, declarer=ANTON, contract="frage", trump="H", target=61,
                 points=[75, 45], won=True, payments=[30, -15, -15], pot=0,
                 balances=[30, -15, -15], pot_total=0, next_dealer=ANTON)


def test_mini_2_1_solo_lost_52():
    """docs/rules 2.1 Mini-example: "Solo lost with d = 52 -> x = 8, V = 16 to each defender"."""
    s = new_session("wuerttemberg", first_dealer=CHARLOTTE)
    deal(s)
    feed(s, [bid(ANTON, "bid", "solo"), bid(BERTA, PASS), bid(CHARLOTTE, PASS)])
    r = finish(s, 52)
    check_result(r, declarer=ANTON, contract="solo", trump="H", points=[52, 68],
                 won=False, payments=[-32, 16, 16], pot=0, balances=[-32, 16, 16])


# ----- EX6: one continuing session with the pot -----------------------------------------

EX6_OPTIONS = {"pot": True, "pot_ante": 2, "tout_factor": 3}


def _ex6_session():
    return new_session("wuerttemberg", first_dealer=CHARLOTTE, options=EX6_OPTIONS)


def _ex6_deal1(s):
    """Dealer Charlotte antes 2. Anton bid frage, Berta bid solo, Anton hold, Charlotte pass;
    Anton plays Solo with d = 52."""
    deal(s)
    feed(s, [bid(ANTON, "bid", "frage"), bid(BERTA, "bid", "solo"), bid(ANTON, "hold"),
             bid(CHARLOTTE, PASS)])
    return finish(s, 52)


def _ex6_deal2(s):
    """Dealer Anton antes 2. F Berta frage, others pass; d = 75."""
    dealt = deal(s)
    feed(s, [bid(BERTA, "bid", "frage"), bid(CHARLOTTE, PASS), bid(ANTON, PASS)])
    exchange_talon_back(s, dealt)
    return finish(s, 75)


def _ex6_deal3(s):
    """Dealer Berta antes 2. F Charlotte solo, others pass; tout; all 11 tricks."""
    deal(s)
    feed(s, [bid(CHARLOTTE, "bid", "solo"), bid(ANTON, PASS), bid(BERTA, PASS),
             {"ev": "announce", "seat": CHARLOTTE, "what": "tout"}])
    return finish(s, 120, declarer_tricks=11)


def _ex6_deal4(s, d):
    """Dealer Charlotte antes 2. F Anton frage, others pass."""
    dealt = deal(s)
    feed(s, [bid(ANTON, "bid", "frage"), bid(BERTA, PASS), bid(CHARLOTTE, PASS)])
    exchange_talon_back(s, dealt)
    return finish(s, d)


def test_ex6_wuerttemberg_pot_deal1_solo_lost():
    """EX6 Deal 1: "Anton plays Solo: d / e = 52 / 68 -> x = 8, V = 16 to each defender, and he
    doubles the pot by paying 2. Payments: Anton -34, Berta +16, Charlotte +14 (16 - 2 ante),
    pot +4 (now 4)"."""
    s = _ex6_session()
    r = _ex6_deal1(s)
    check_result(r, declarer=ANTON, contract="solo", trump="H", target=61, points=[52, 68],
                 won=False, payments=[-34, 16, 14], pot=4, balances=[-34, 16, 14],
                 pot_total=4, next_dealer=ANTON)


def test_ex6_wuerttemberg_pot_deal2_frage_won():
    """EX6 Deal 2: "dealer Anton antes 2 (pot 6). F Berta frage ... d = 75 -> x = 15 -> 15 from
    each. Payments: Berta +30, Charlotte -15, Anton -17, pot +2"."""
    s = _ex6_session()
    _ex6_deal1(s)
    r = _ex6_deal2(s)
    check_result(r, declarer=BERTA, contract="frage", points=[75, 45], won=True,
                 payments=[-17, 30, -15], pot=2, balances=[-51, 46, -1], pot_total=6,
                 next_dealer=BERTA)


def test_ex6_wuerttemberg_pot_deal3_solo_tout():
    """EX6 Deal 3: "she announces tout and wins all 11 tricks: VT = 60 x 2 x 3 = 360 from each
    defender, and she takes the pot (8). Payments: Charlotte +728, Anton -360, Berta -362,
    pot -6 (now 0)"."""
    s = _ex6_session()
    _ex6_deal1(s)
    _ex6_deal2(s)
    r = _ex6_deal3(s)
    check_result(r, declarer=CHARLOTTE, contract="solo", points=[120, 0], tricks=[11, 0],
                 won=True, payments=[-360, -362, 728], pot=-6, balances=[-411, -316, 727],
                 pot_total=0, next_dealer=CHARLOTTE)


def test_ex6_wuerttemberg_pot_deal4_frage_lost():
    """EX6 Deal 4: "F Anton frage, d = 55 -> x = 5 -> 5 to Berta, 5 to Charlotte, 5 to the pot.
    Payments: Anton -15, Berta +5, Charlotte +3, pot +7 (now 7)"."""
    s = _ex6_session()
    _ex6_deal1(s)
    _ex6_deal2(s)
    _ex6_deal3(s)
    r = _ex6_deal4(s, 55)
    check_result(r, declarer=ANTON, contract="frage", points=[55, 65], won=False,
                 payments=[-15, 5, 3], pot=7, balances=[-426, -311, 730], pot_total=7,
                 next_dealer=ANTON)


def test_ex6_wuerttemberg_pot_deal4_draw_60():
    """EX6 Deal 4: "Had d = 60: draw, only the ante moves" (2.1: no transfers at all, the
    dealer's ante stays in the pot)."""
    s = _ex6_session()
    _ex6_deal1(s)
    _ex6_deal2(s)
    _ex6_deal3(s)
    r = _ex6_deal4(s, 60)
    check_result(r, declarer=ANTON, contract="frage", points=[60, 60], won=None,
                 payments=[0, 0, -2], pot=2, balances=[-411, -316, 725], pot_total=2)


# =====================================================================================
# 2.2 tapp_classic
# =====================================================================================


def _classic(contract, d, trump=None, tout=False, **finish_kw):
    """EX7 setting: dealer Charlotte -> F Anton declares ``contract``, the others pass."""
    s = new_session("tapp_classic", first_dealer=CHARLOTTE)
    dealt = deal(s)
    feed(s, [bid(ANTON, "bid", contract), bid(BERTA, PASS), bid(CHARLOTTE, PASS)])
    if contract == "frage":
        exchange_talon_back(s, dealt)
    if trump is not None:
        feed(s, [bid(ANTON, "declare", contract, trump)])
    if tout:
        feed(s, [{"ev": "announce", "seat": ANTON, "what": "tout"}])
    return finish(s, d, **finish_kw)


def test_mini_2_2_frage_73():
    """docs/rules 2.2 Mini-example: "Frage d = 73 -> x = 13 -> ceil(13/4) = 4 u from each
    defender"."""
    r = _classic("frage", 73)
    check_result(r, contract="frage", trump="H", points=[73, 47], won=True,
                 payments=[8, -4, -4])


def test_ex7a_frage_73():
    """EX7 (a): "frage, d = 73 -> x = 13, ceil(13/4) = 4 -> Anton +8, Berta -4, Charlotte -4"."""
    r = _classic("frage", 73)
    check_result(r, declarer=ANTON, contract="frage", won=True, payments=[8, -4, -4], pot=0,
                 balances=[8, -4, -4], pot_total=0, next_dealer=ANTON)


def test_ex7b_suit_solo_spades():
    """EX7 (b): "suit_solo in Spades, d = 81 -> x = 21, ceil(21/2) = 11 -> Anton +22"."""
    r = _classic("suit_solo", 81, trump="S")
    check_result(r, declarer=ANTON, contract="suit_solo", trump="S", points=[81, 39],
                 won=True, payments=[22, -11, -11])


def test_ex7c_heart_solo_lost_44():
    """EX7 (c): "heart_solo, d = 44 -> lost, x = 16 -> 16 to each -> Anton -32"."""
    r = _classic("heart_solo", 44)
    check_result(r, declarer=ANTON, contract="heart_solo", trump="H", points=[44, 76],
                 won=False, payments=[-32, 16, 16])


def test_ex7d_heart_solo_tout_won():
    """EX7 (d): "heart_solo + tout, all 11 tricks -> 2 x 60 = 120 from each -> Anton +240"."""
    r = _classic("heart_solo", 120, tout=True, declarer_tricks=11)
    check_result(r, contract="heart_solo", tricks=[11, 0], won=True,
                 payments=[240, -120, -120])


def test_ex7d_heart_solo_tout_missing_one_trick():
    """EX7 (d): "the same Tout missing one trick -> Anton -240" (the deal ends at that trick,
    D15)."""
    r = _classic("heart_solo", 110, tout=True, declarer_tricks=5, early_end=True)
    check_result(r, contract="heart_solo", tricks=[5, 1], won=False,
                 payments=[-240, 120, 120])


def test_ex7e_frage_60_draw():
    """EX7 (e): "frage, d = 60 -> draw, nothing"."""
    r = _classic("frage", 60)
    check_result(r, contract="frage", points=[60, 60], won=None, payments=[0, 0, 0], pot=0,
                 balances=[0, 0, 0])


# =====================================================================================
# 2.3 tapp_modern
# =====================================================================================


def test_mini_2_3_heart_rufer_won():
    """docs/rules 2.3 Mini-example: "heart_rufer won with 3 players -> declarer +60, each
    defender -30"."""
    s = new_session("tapp_modern", first_dealer=ANTON)
    hands, _talon = deal(s)
    assert "HA" in hands[ANTON] and "S6" in hands[BERTA]
    feed(s, [bid(CHARLOTTE, "weg"), bid(BERTA, "spiele"), bid(ANTON, "weg"),
             bid(BERTA, "bid", "heart_rufer"),
             {"ev": "rufer", "seat": BERTA, "card": "HA", "give": "S6"}])
    r = finish(s, 120, declarer_tricks=11)
    check_result(r, declarer=BERTA, contract="heart_rufer", trump="H", won=True,
                 payments=[-30, 60, -30])


# ----- EX8: Rufer, played card by card ---------------------------------------------------

# Dealer Anton (0) -> F Charlotte (2), M Berta (1), R Anton (0) (anticlockwise).
# Berta holds every Heart but the Ace; Anton holds HA and no Clubs.
EX8_HANDS = [
    ["HA", "SA", "S10", "SK", "SQ", "SJ", "S9", "S8", "S7", "DA", "D10"],       # Anton
    ["H10", "HK", "HQ", "HJ", "H9", "H8", "H7", "H6", "CA", "C6", "S6"],        # Berta
    ["CK", "C10", "CQ", "CJ", "C9", "C8", "C7", "DK", "DQ", "DJ", "D9"],        # Charlotte
]
EX8_TALON = ["D8", "D7", "D6"]
# Tricks 1-6 of the game Berta wins (Anton's S7 on the Club lead is legal only because HA
# went to Berta: he has no trump left).
EX8_WIN_T1_T6 = [
    ("C:CK B:CA A:S7", BERTA, 15),
    ("B:HA A:SA C:C10", BERTA, 32),
    ("B:H10 A:S10 C:CQ", BERTA, 23),
    ("B:HK A:SK C:CJ", BERTA, 10),
    ("B:HQ A:SQ C:C9", BERTA, 6),
    ("B:HJ A:SJ C:C8", BERTA, 4),
]


def _ex8_three_players():
    """EX8 3 players up to the first lead: auction, call HA, give S6."""
    check_hands(EX8_HANDS, EX8_TALON)
    s = new_session("tapp_modern", first_dealer=ANTON)
    deal(s, EX8_HANDS, EX8_TALON)
    feed(s, [
        bid(CHARLOTTE, "weg"), bid(BERTA, "spiele"), bid(ANTON, "weg"),   # round 1
        bid(BERTA, "bid", "heart_rufer"),                                 # round 2
        {"ev": "rufer", "seat": BERTA, "card": "HA", "give": "S6"},
    ])
    return s


def test_ex8_heart_rufer_three_players_all_tricks():
    """EX8: "Berta calls HA; Anton has it and hands it over; Berta gives Anton S6 face down.
    Charlotte leads. Berta wins all 11 tricks -> won. Payments: Berta +60, Anton -30,
    Charlotte -30"."""
    s = _ex8_three_players()
    out = play_tricks(s, EX8_WIN_T1_T6 + [
        ("B:H9 A:S9 C:C7", BERTA, 0),
        ("B:H8 A:S8 C:DK", BERTA, 4),
        ("B:H7 A:S6 C:DQ", BERTA, 3),
        ("B:H6 A:DA C:DJ", BERTA, 13),
        ("B:C6 A:D10 C:D9", BERTA, 10),
    ])
    assert out["result"] == {
        "declarer": BERTA, "contract": "heart_rufer", "trump": "H", "target": None,
        "points": [120, 0], "tricks": [11, 0], "won": True, "schneider": False,
        "schwarz": True, "multiplier": 1, "payments": [-30, 60, -30], "pot": 0,
        "balances": [-30, 60, -30], "pot_total": 0, "next_dealer": CHARLOTTE,
    }


EX8_LOSSES = {
    # Berta under-plays C6 on Charlotte's lead: she loses trick 1.
    "trick1": ([("C:CK B:C6 A:S7", CHARLOTTE, 4)], [116, 4], [0, 1]),
    # Berta leads C6 at trick 2 and Charlotte's C10 wins.
    "trick2": ([("C:CK B:CA A:S7", BERTA, 15), ("B:C6 A:S8 C:C10", CHARLOTTE, 10)],
               [110, 10], [1, 1]),
    # Charlotte keeps C7 to the end and beats Berta's C6 at the last trick.
    "trick11": (EX8_WIN_T1_T6 + [
        ("B:H9 A:S9 C:D9", BERTA, 0),
        ("B:H8 A:S8 C:DK", BERTA, 4),
        ("B:H7 A:S6 C:DQ", BERTA, 3),
        ("B:H6 A:DA C:DJ", BERTA, 13),
        ("B:C6 A:D10 C:C7", CHARLOTTE, 10),
    ], [110, 10], [10, 1]),
}


@pytest.mark.parametrize("case", sorted(EX8_LOSSES))
def test_ex8_heart_rufer_three_players_loses_trick(case):
    """EX8: "If Berta loses any trick (the deal ends at that trick, D15): Berta -60,
    Anton +30, Charlotte +30"; D15: "a later play is wrong_phase"."""
    tricks, points, trick_counts = EX8_LOSSES[case]
    s = _ex8_three_players()
    out = play_tricks(s, tricks)
    assert out["result"] == {
        "declarer": BERTA, "contract": "heart_rufer", "trump": "H", "target": None,
        "points": points, "tricks": trick_counts, "won": False, "schneider": False,
        "schwarz": False, "multiplier": 1, "payments": [30, -60, 30], "pot": 0,
        "balances": [30, -60, 30], "pot_total": 0, "next_dealer": CHARLOTTE,
    }
    assert set(out) == {"ok", "trick", "result"}
    refused(s, play(CHARLOTTE, "CQ"), "wrong_phase")
    refused(s, play(BERTA, "HA"), "wrong_phase")


# 4 players, pack 36, dealer Dieter (3) -> F Charlotte (2), M Berta (1), 3rd Anton (0).
# Berta holds the eight Spades below the Ace; SA lies in the tapp.
EX8_HANDS_4 = [
    ["C6", "HA", "H10", "HK", "HQ", "HJ", "H9", "H8"],          # Anton
    ["S10", "SK", "SQ", "SJ", "S9", "S8", "S7", "S6"],          # Berta
    ["CA", "C10", "CK", "CQ", "CJ", "C9", "C8", "C7"],          # Charlotte
    ["H7", "H6", "DA", "D10", "DK", "DQ", "DJ", "D9"],          # Dieter
]
EX8_TALON_4 = ["SA", "D8", "D7", "D6"]


def test_ex8_suit_rufer_four_players_called_card_in_tapp():
    """EX8 4 players: "Charlotte spiele, Berta spiele, Anton weg, Dieter weg. Round 2: Charlotte
    bid suit_solo (Clubs), Berta bid suit_rufer (Spades; rank 5 > 2). Berta calls SA; nobody
    holds it (it is in the tapp) -> no exchange. She wins all 8 tricks: Berta +45, Anton -15,
    Charlotte -15, Dieter -15"."""
    check_hands(EX8_HANDS_4, EX8_TALON_4)
    s = new_session("tapp_modern", players=4, first_dealer=DIETER, options={"pack": 36})
    deal(s, EX8_HANDS_4, EX8_TALON_4)
    feed(s, [
        bid(CHARLOTTE, "spiele"), bid(BERTA, "spiele"), bid(ANTON, "weg"), bid(DIETER, "weg"),
        bid(CHARLOTTE, "bid", "suit_solo", "C"), bid(BERTA, "bid", "suit_rufer", "S"),
        {"ev": "rufer", "seat": BERTA, "card": "SA", "give": None},
    ])
    out = play_tricks(s, [
        ("C:CA B:S6 A:C6 D:H7", BERTA, 11),
        ("B:S7 A:HA D:DA C:C10", BERTA, 32),
        ("B:S8 A:H10 D:D10 C:CK", BERTA, 24),
        ("B:S9 A:HK D:DK C:CQ", BERTA, 11),
        ("B:SJ A:HQ D:DQ C:CJ", BERTA, 10),
        ("B:SQ A:HJ D:DJ C:C9", BERTA, 7),
        ("B:SK A:H9 D:D9 C:C8", BERTA, 4),
        ("B:S10 A:H8 D:H6 C:C7", BERTA, 10),
    ])
    assert out["result"] == {
        "declarer": BERTA, "contract": "suit_rufer", "trump": "S", "target": None,
        "points": [120, 0], "tricks": [8, 0], "won": True, "schneider": False,
        "schwarz": True, "multiplier": 1, "payments": [-15, 45, -15, -15], "pot": 0,
        "balances": [-15, 45, -15, -15], "pot_total": 0, "next_dealer": CHARLOTTE,
    }


# ----- EX9: Ramsch -----------------------------------------------------------------------

# Dealer Berta (1) -> F Anton (0), M Charlotte (2), R Berta (1).  Tapp HK HQ D6 (7 points).
EX9_HANDS = [
    ["CA", "C10", "CK", "SA", "S10", "SK", "H6", "H8", "D10", "DK", "DQ"],     # Anton
    ["C9", "CQ", "CJ", "S9", "SQ", "SJ", "HA", "H10", "HJ", "DA", "D7"],       # Berta
    ["C6", "C7", "C8", "S6", "S7", "S8", "H7", "H9", "DJ", "D8", "D9"],        # Charlotte
]
EX9_TALON = ["HK", "HQ", "D6"]


def test_ex9_ramsch_jungfer():
    """EX9: "All say weg -> Ramsch, no trumps, Anton leads. Anton wins the last trick and adds
    the tapp (HK HQ D6 = 7). Final points: Anton 70, Berta 50, Charlotte 0 with no trick
    (Jungfer). Anton pays Berta 5 and Charlotte 10. Payments: Anton -15, Berta +5,
    Charlotte +10"."""
    check_hands(EX9_HANDS, EX9_TALON)
    s = new_session("tapp_modern", first_dealer=BERTA)
    deal(s, EX9_HANDS, EX9_TALON)
    feed(s, [bid(ANTON, "weg"), bid(CHARLOTTE, "weg"), bid(BERTA, "weg")])
    out = play_tricks(s, [
        ("A:CA C:C8 B:C9", ANTON, 11),
        ("A:C10 C:C7 B:CJ", ANTON, 12),
        ("A:CK C:C6 B:CQ", ANTON, 7),
        ("A:SA C:S8 B:S9", ANTON, 11),
        ("A:S10 C:S7 B:SJ", ANTON, 12),
        ("A:SK C:S6 B:SQ", ANTON, 7),
        ("A:H6 C:H7 B:HA", BERTA, 11),
        ("B:H10 A:H8 C:H9", BERTA, 10),
        ("B:HJ A:D10 C:DJ", BERTA, 14),
        ("B:DA A:DK C:D8", BERTA, 15),
        ("B:D7 A:DQ C:D9", ANTON, 3),
    ])
    assert out["result"] == {
        "declarer": None, "contract": "ramsch", "trump": None, "target": None,
        "points": [70, 50, 0], "tricks": [7, 4, 0], "won": None, "schneider": False,
        "schwarz": False, "multiplier": 1, "payments": [-15, 5, 10], "pot": 0,
        "balances": [-15, 5, 10], "pot_total": 0, "next_dealer": ANTON,
    }


def _ramsch(players, points, tricks, last_winner, **options):
    """All pass in tapp_modern (dealer Anton) -> Ramsch ended with final per-seat points."""
    s = new_session("tapp_modern", players=players, first_dealer=ANTON, options=options)
    deal(s)
    feed(s, [bid(seat, "weg") for seat in s.view.active_seats()])
    return finish_ramsch(s, points, tricks, last_winner)


def test_ex9_ramsch_ties_four_players():
    """EX9: "Ties, 4 players: Anton 40, Berta 40, Charlotte 25, Dieter 15, all with tricks ->
    Anton and Berta each pay Charlotte 5 and Dieter 5: Anton -10, Berta -10, Charlotte +10,
    Dieter +10"."""
    r = _ramsch(4, [40, 40, 25, 15], [2, 2, 2, 2], ANTON)
    check_result(r, declarer=None, contract="ramsch", won=None, points=[40, 40, 25, 15],
                 payments=[-10, -10, 10, 10], pot=0)


def test_ex9_ramsch_ties_four_players_jungfer():
    """EX9: "If instead Anton 45, Berta 45, Charlotte 30, Dieter no trick: Anton -15,
    Berta -15, Charlotte +10, Dieter +20"."""
    r = _ramsch(4, [45, 45, 30, 0], [3, 3, 2, 0], BERTA)
    check_result(r, points=[45, 45, 30, 0], payments=[-15, -15, 10, 20], pot=0)


def test_ex9_ramsch_all_tied_three_players():
    """EX9: "3 players at 40-40-40: nobody pays"."""
    r = _ramsch(3, [40, 40, 40], [4, 4, 3], CHARLOTTE)
    check_result(r, points=[40, 40, 40], payments=[0, 0, 0], pot=0)


def test_ex9_ramsch_tie_none_pay():
    """D13 / 2.3 option: "ramsch_tie = none_pay makes any tie void" -- the EX9 4-player ties
    cost nothing; a single loser still pays."""
    r = _ramsch(4, [40, 40, 25, 15], [2, 2, 2, 2], ANTON, ramsch_tie="none_pay")
    check_result(r, payments=[0, 0, 0, 0], pot=0)
    r = _ramsch(4, [45, 45, 30, 0], [3, 3, 2, 0], BERTA, ramsch_tie="none_pay")
    check_result(r, payments=[0, 0, 0, 0], pot=0)
    r = _ramsch(3, [70, 50, 0], [7, 4, 0], ANTON, ramsch_tie="none_pay")
    check_result(r, payments=[-15, 5, 10], pot=0)


# ----- EX10: Bettel and Frage -----------------------------------------------------------

# 4 players, dealer Anton (0) -> F Dieter (3), M Charlotte (2), 3rd Berta (1), 4th Anton.
EX10_HANDS = [
    ["C9", "S9", "D9", "H9", "C10", "S10", "D10", "H10"],       # Anton
    ["C8", "S8", "D8", "H8", "CJ", "SQ", "DQ", "HQ"],           # Berta
    ["C7", "S7", "D7", "H7", "CQ", "SK", "DK", "HK"],           # Charlotte
    ["C6", "S6", "D6", "H6", "CA", "CK", "SA", "DA"],           # Dieter
]
EX10_TALON = ["HA", "SJ", "DJ", "HJ"]


def test_ex10_bettel_declarer_takes_trick5():
    """EX10: "Round 1: Dieter spiele, the rest weg; Dieter names bettel. He wins trick 5 ->
    lost (the deal ends at that trick, D15): Dieter -45, Anton +15, Berta +15,
    Charlotte +15"."""
    check_hands(EX10_HANDS, EX10_TALON)
    s = new_session("tapp_modern", players=4, first_dealer=ANTON)
    deal(s, EX10_HANDS, EX10_TALON)
    feed(s, [bid(DIETER, "spiele"), bid(CHARLOTTE, "weg"), bid(BERTA, "weg"),
             bid(ANTON, "weg"), bid(DIETER, "bid", "bettel")])
    play_tricks(s, [
        ("D:C6 C:C7 B:C8 A:C9", ANTON, 0),
        ("A:S9 D:S6 C:S7 B:S8", ANTON, 0),
        ("A:D9 D:D6 C:D7 B:D8", ANTON, 0),
        ("A:H9 D:H6 C:H7 B:H8", ANTON, 0),
    ])
    for seat, card in [(ANTON, "C10"), (DIETER, "CA"), (CHARLOTTE, "CQ")]:
        feed(s, [play(seat, card)])
    out = ok(s, play(BERTA, "CJ"))
    assert out == {
        "ok": True,
        "trick": {"n": 5, "leader": ANTON, "cards": ["C10", "CA", "CQ", "CJ"],
                  "winner": DIETER, "points": 26},
        "result": {
            "declarer": DIETER, "contract": "bettel", "trump": None, "target": None,
            "points": [120, 0], "tricks": [1, 4], "won": False, "schneider": False,
            "schwarz": False, "multiplier": 1, "payments": [15, 15, 15, -45], "pot": 0,
            "balances": [15, 15, 15, -45], "pot_total": 0, "next_dealer": DIETER,
        },
    }
    refused(s, play(DIETER, "CK"), "wrong_phase")


def _modern_frage_berta(d):
    """EX10 3 players: Berta plays frage (dealer Charlotte -> F Berta), takes the 3-card tapp,
    discards 3."""
    s = new_session("tapp_modern", first_dealer=CHARLOTTE)
    dealt = deal(s)
    assert s.view.active_seats() == [BERTA, ANTON, CHARLOTTE]
    feed(s, [bid(BERTA, "spiele"), bid(ANTON, "weg"), bid(CHARLOTTE, "weg"),
             bid(BERTA, "bid", "frage")])
    exchange_talon_back(s, dealt)
    return finish(s, d)


def test_ex10_frage_three_players_64():
    """EX10: "3 players: Berta plays frage (takes the 3-card tapp, discards 3): d = 64 ->
    Berta +10, each defender -5"."""
    r = _modern_frage_berta(64)
    check_result(r, declarer=BERTA, contract="frage", trump="H", points=[64, 56], won=True,
                 payments=[-5, 10, -5], pot=0, next_dealer=BERTA)


def test_ex10_frage_three_players_60_lost():
    """EX10: "d = 60 -> lost, Berta -10" (2.3: 60-60 is a loss, no draw)."""
    r = _modern_frage_berta(60)
    check_result(r, declarer=BERTA, contract="frage", points=[60, 60], won=False,
                 payments=[5, -10, 5], pot=0)


# ----- EX18 (last sentence): suit_durch with a proven declarer revoke, open mode ----------

# Real hands (the open-mode engine never sees them): Berta holds all nine Clubs plus DA D10.
# Anton: D9 D8 D7 S6 HA H10 HK HQ HJ H9 H8; Charlotte: DK DQ DJ SA S10 SK SQ SJ S9 S8 S7;
# tapp H7 H6 D6.


def test_ex18_modern_suit_durch_declarer_revoke():
    """EX18: "If the declarer in a tapp_modern suit_durch is proven to have revoked, he loses
    (pays 30 to each defender) even though he took every trick." Berta ruffs the Diamond lead
    at trick 1 (asserting void in Diamonds) and leads DA at trick 10: must_follow at trick 1."""
    s = new_session("tapp_modern", first_dealer=ANTON, mode="open")
    deal(s)
    feed(s, [bid(CHARLOTTE, "weg"), bid(BERTA, "spiele"), bid(ANTON, "weg"),
             bid(BERTA, "bid", "suit_durch", "C")])
    play_tricks(s, [
        ("C:DK B:C6 A:D9", BERTA, 4),   # Berta holds DA D10 but trumps: a revoke
        ("B:CA A:S6 C:SA", BERTA, 22),
        ("B:C10 A:HA C:S10", BERTA, 31),
        ("B:CK A:H10 C:SK", BERTA, 18),
        ("B:CQ A:HK C:SQ", BERTA, 10),
        ("B:CJ A:HQ C:SJ", BERTA, 7),
        ("B:C9 A:HJ C:S9", BERTA, 2),
        ("B:C8 A:H9 C:S8", BERTA, 0),
        ("B:C7 A:H8 C:S7", BERTA, 0),
    ])
    out = ok(s, play(BERTA, "DA"))
    assert out == {"ok": True, "revoke": {"seat": BERTA, "trick": 1, "rule": "must_follow"}}
    feed(s, [play(ANTON, "D8")])
    out = ok(s, play(CHARLOTTE, "DQ"))
    assert out == {"ok": True, "trick": {"n": 10, "leader": BERTA, "cards": ["DA", "D8", "DQ"],
                                         "winner": BERTA, "points": 14}}
    feed(s, [play(BERTA, "D10"), play(ANTON, "D7")])
    out = ok(s, play(CHARLOTTE, "DJ"))
    assert out == {
        "ok": True,
        "trick": {"n": 11, "leader": BERTA, "cards": ["D10", "D7", "DJ"],
                  "winner": BERTA, "points": 12},
        "result": {
            "declarer": BERTA, "contract": "suit_durch", "trump": "C", "target": None,
            "points": [120, 0], "tricks": [11, 0], "won": False, "schneider": False,
            "schwarz": True, "multiplier": 1, "payments": [30, -60, 30], "pot": 0,
            "balances": [30, -60, 30], "pot_total": 0, "next_dealer": CHARLOTTE,
            "penalty": {"seat": BERTA, "trick": 1, "rule": "must_follow"},
        },
    }
