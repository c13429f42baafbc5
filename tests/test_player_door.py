"""``Session.player()``: the current deal's card door (the simulator's loop).

It is ``Session.play`` bound to one deal: the same answers card by card, the
same settlement and dealer rotation at the deal's end, and once that deal is
over, undone or replaced it refuses every card.
"""
import random

from tapp import errors as E
from tapp.cards import CARD_BIT, CARD_SUIT
from tapp.session import Session
from tools.tapptable.simulate import Simulator

VARIANTS = [("tapp_modern", 3), ("wuerttemberg", 3), ("haferltarock", 4)]


def _twins(variant, players, seed):
    """Two sessions dealt the same cards up to the card play (a simulator's record)."""
    sim = Simulator(variant, players, seed, "strict")
    sim.sink = []
    sim.play_deal()
    head = []
    for ev in sim.sink:
        if ev["ev"] == "play":
            break
        head.append(ev)
    hdr = dict(sim.header)
    a, b = Session(hdr), Session(hdr)
    for ev in head:
        assert a.apply(ev)["ok"] and b.apply(ev)["ok"]
    return a, b


def test_player_answers_and_settles_like_play():
    for variant, players in VARIANTS:
        for seed in range(1, 9):
            a, b = _twins(variant, players, seed)
            if a.view.expects() != "card":
                continue
            rng = random.Random(seed)
            f = b.player()
            masks = [0, 0, 0, 0]
            while a.view.legal_masks(masks):
                turn = a.view.turn()
                # some wrong cards first: the same refusals, nothing changes
                for _ in range(3):
                    seat, card = rng.randrange(players), rng.randrange(36)
                    if seat == turn and masks[CARD_SUIT[card]] & CARD_BIT[card]:
                        continue            # a legal card: not a wrong one
                    assert a.play(seat, card) == f(seat, card)
                s = next(i for i in range(4) if masks[i])
                card = s * 9 + (masks[s] & -masks[s]).bit_length() - 1
                assert a.play(turn, card) == f(turn, card) == 0
            assert a.last_result() == b.last_result() is not None
            assert a.dealer() == b.dealer()
            assert [a.balance(s) for s in range(players)] == \
                [b.balance(s) for s in range(players)]
            assert a.pot() == b.pot() and a.deals_played() == b.deals_played() == 1
            # the deal is over: the old player refuses, and so does play
            assert f(turn, 0) == E.WRONG_PHASE


def test_a_player_left_behind_refuses():
    a, _ = _twins("wuerttemberg", 3, 4)
    assert a.view.expects() == "card"
    f = a.player()
    masks = [0, 0, 0, 0]
    a.view.legal_masks(masks)
    turn = a.view.turn()
    s = next(i for i in range(4) if masks[i])
    card = s * 9 + (masks[s] & -masks[s]).bit_length() - 1
    assert f(turn, card) == 0
    assert a.apply({"ev": "undo"})["ok"]      # the deal is replayed: a new deal object
    assert f(turn, card) == E.WRONG_PHASE
    assert a.player()(turn, card) == 0
    assert a.deals_played() == 0
