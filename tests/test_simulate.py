"""The simulator's own chance and counting (tools/tapptable/simulate.py).

The simulator deals with a Fisher-Yates shuffle whose indices are drawn from
random bits with a redraw beyond the range, and picks calls and cards the
same way; these tests check that the draws are uniform (a biased shuffle or
pick would still give legal games, so nothing else would notice) and that its
step count is the record's event count.
"""
import random

from tools.tapptable.simulate import NTH_BIT, WIDTH, Simulator, _draws


def test_draws_cover_every_fisher_yates_step():
    for n in (2, 3, 20, 24, 25, 32, 36):
        steps = _draws(n)
        # two steps a draw: i and i - 1, down to step 1 (step 0 is no swap)
        assert [i for i, _, _, _, _ in steps] == list(range(n - 1, 0, -2))
        for i, h, m, lim, width in steps:
            assert h == i - 1 and m == i + 1 and lim == (i + 1) * i
            assert 2 ** width >= lim > 2 ** (width - 1)     # the fewest bits that reach lim - 1
    assert WIDTH[1] == 0 and WIDTH[2] == 1 and WIDTH[36] == 6 and WIDTH[37] == 6
    assert NTH_BIT[0b101100100][0] == 2 and NTH_BIT[0b101100100][3] == 8


def test_shuffle_is_uniform():
    """Every card is dealt at every position about equally often: the chi-square
    of the 36 x 36 (card, position) counts of 7,200 simulated deals is within
    6 standard deviations of its mean (a shuffle drawing i % (n + 1) from the
    bits instead of drawing again is far outside)."""
    sim = Simulator("wuerttemberg", 3, 11, "strict")
    n = 7200
    counts = [[0] * 36 for _ in range(36)]      # [card][position]
    for _ in range(n):
        sim.deck[:] = range(36)                  # each shuffle from the same order
        sim.deal_cards()                         # sim.deck: the cards as dealt
        for pos, card in enumerate(sim.deck):
            counts[card][pos] += 1
        sim.shadow.apply({"ev": "redeal"})
    expected = n / 36
    chi2 = sum((k - expected) ** 2 / expected for row in counts for k in row)
    df = 35 * 35
    assert abs(chi2 - df) < 6 * (2 * df) ** 0.5, chi2


def test_picks_are_uniform():
    sim = Simulator("tapp_modern", 3, 5, "strict")
    for items in ("CSD", "CSHD", tuple(range(9))):
        seen = {}
        for _ in range(9000):
            x = sim.pick(items)
            seen[x] = seen.get(x, 0) + 1
        assert sorted(seen) == sorted(items)
        mean = 9000 / len(items)
        assert all(abs(k - mean) < 5 * mean ** 0.5 for k in seen.values()), seen


def test_steps_are_the_record_events():
    for variant, players in (("wuerttemberg", 3), ("tapp_modern", 4), ("haferltarock", 4),
                             ("herzblatt", 5), ("braun_solo", 3)):
        lines = Simulator(variant, players, 9, "strict").record_lines(25)
        sim = Simulator(variant, players, 9, "strict")
        sim.run(25)
        assert sim.steps == len(lines) - 1, variant


def test_same_seed_same_deals_whether_recorded_or_not():
    a = Simulator("tapp_modern", 3, 77, "strict")
    b = Simulator("tapp_modern", 3, 77, "strict")
    list(b.stream(40, keep_results=True))
    assert a.run(40) == b.results
    rng = random.Random(3)
    seeds = [rng.randrange(10 ** 6) for _ in range(3)]
    for seed in seeds:
        x = Simulator("haferltarock", 4, seed, "strict").run(10)
        y = Simulator("haferltarock", 4, seed, "strict").run(10)
        assert x == y


def test_random_legal_card_draws_uniformly():
    """``view.random_legal_card`` (the simulator's card): at a turn with several
    legal cards, whether he leads with his whole hand or must follow, each is
    drawn about equally often (within 5 standard deviations over 9,000 draws)."""
    sim = Simulator("wuerttemberg", 3, 21, "strict")
    bits = random.Random(8).getrandbits
    seat_of = [-1]
    masks = [0, 0, 0, 0]
    checked = 0
    for _ in range(40):
        sim.deal_cards()
        view = sim.view
        while view.expects() in ("call", "declare", "discard"):
            seat = view.turn()
            if view.expects() == "discard":
                assert sim.shadow.apply({"ev": "exchange", "seat": seat,
                                         "discard": view.talon()})["ok"]
                continue
            calls = [b for b in view.legal_bids() if b[0] != "raise"]
            assert sim.shadow.bid(seat, *calls[-1]) == 0
        while view.expects() == "card" and checked < 6:
            n = view.legal_masks(masks)
            if n >= 3:
                seen = {}
                for _ in range(9000):
                    card = view.random_legal_card(bits, seat_of)
                    seen[card] = seen.get(card, 0) + 1
                assert seat_of[0] == view.turn() and len(seen) == n
                assert all(masks[c // 9] & (1 << (c % 9)) for c in seen)
                mean = 9000 / n
                assert all(abs(k - mean) < 5 * mean ** 0.5 for k in seen.values()), seen
                checked += 1
            assert sim.shadow.play(view.turn(), view.random_legal_card(bits, seat_of)) == 0
        if checked >= 6:
            break
        if view.in_deal():
            sim.shadow.apply({"ev": "redeal"})
    assert checked == 6


def test_next_session_sits_down_at_the_same_table():
    """Once the Haferl runs dry, ``next_session`` starts a new session with the
    same header (first dealer, antes) while the random stream goes on, and the
    results keep counting."""
    sim = Simulator("haferltarock", 4, 3, "strict")
    first = list(sim.run(500))     # run answers the growing results list itself
    assert sim.view.session_over() and 0 < len(first) < 500
    n = len(first)
    table = (sim.view.variant(), sim.view.seat_names(), sim.view.mode())
    start = sim.view.balances()
    sim.next_session()
    assert not sim.view.session_over() and sim.view.deals_played() == 0
    assert sim.view.dealer() == 0       # the same table:
    assert (sim.view.variant(), sim.view.seat_names(), sim.view.mode()) == table
    assert sim.view.balances() != start
    more = sim.run(5)
    assert len(more) == n + 5 and more[:n] == first
    fresh = Simulator("haferltarock", 4, 3, "strict")
    assert fresh.run(5) != more[n:]     # the stream went on: not the first deals again
