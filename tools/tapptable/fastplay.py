"""Random legal deals at engine speed, for ``tapptable bench``.

Drives the Deal API directly (no event dicts, no JSON) with the same legal
answers the Session gives, so the number measures the engine itself.
"""
import random

from tapp import deal as D
from tapp.cards import DECKS, mask_cards
from tapp.settle import settle
from tapp.variants import NO_CONTRACT


def random_deal(rules, dealer, rng, deck_cards, pot=0):
    """Play one deal with uniformly random legal choices; return the result dict."""
    deal = D.Deal(rules, dealer)
    rng.shuffle(deck_cards)
    k = rules.hand_size
    for i, seat in enumerate(deal.active):
        deal.set_hand(seat, deck_cards[i * k:(i + 1) * k])
    deal.start_auction()
    a = deal.auction
    choice = rng.choice
    while not a.done:
        word, row = choice(a.legal())
        a.call(a.turn(), word, row, -1)
    deal.end_auction()
    while deal.phase != D.DONE:
        ph = deal.phase
        if ph == D.PLAY:
            seat = deal.turn
            deal.play(seat, choice(deal.legal_cards(seat)))
        elif ph == D.EXCHANGE:
            decl = deal.declarer
            pool = mask_cards(deal.hands, decl * 4) + mask_cards(deal.talon)
            deal.exchange(rng.sample(pool, rules.talon_size))
        elif ph == D.DECLARE:
            if deal.contract is NO_CONTRACT:
                deal.set_contract(choice(a.declarable()), -1)
            else:
                deal.declare_trump(choice(deal.trump_choices()))
        elif ph == D.RUFER:
            decl = deal.declarer
            own = mask_cards(deal.hands, decl * 4)
            called = choice([c for c in deck_cards if c not in own])
            talon = mask_cards(deal.talon)
            deal.call_rufer(called, -1 if called in talon else choice(own))
    return settle(rules, deal, pot)[0]


def deals_per_second(rules, count, seed=1):
    """Wall-clock rate of ``count`` random deals (caller times it)."""
    rng = random.Random(seed)
    cards = mask_cards(DECKS[rules.deck])
    dealer = rules.first_dealer
    for _ in range(count):
        random_deal(rules, dealer, rng, cards)
        dealer = rules.next_of(dealer)
