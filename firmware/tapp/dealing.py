"""Who receives each card as the dealer deals (docs/rules 1.4: packets from forehand).

In strict mode the dealer may deal over the centre reader: the table then
learns every hand from the order the cards pass, by the variant's packet
pattern (``rules.deal_pattern``: a positive packet goes to every active seat
in turn, a negative one to the talon).  The simulator deals the same way.
"""

TALON = -1


def receivers(rules, dealer):
    """Seat receiving the k-th card dealt (``TALON`` for the talon), for every k."""
    active = rules.active_order(dealer)
    out = []
    for packet in rules.deal_pattern:
        if packet < 0:
            for _ in range(-packet):
                out.append(TALON)
        else:
            for seat in active:
                for _ in range(packet):
                    out.append(seat)
    return out


def deal_out(rules, dealer, cards):
    """``cards`` (in dealing order) as (hands: a list per seat, talon)."""
    hands = [[] for _ in range(rules.players)]
    talon = []
    k = 0
    for seat in receivers(rules, dealer):
        (talon if seat == TALON else hands[seat]).append(cards[k])
        k += 1
    return hands, talon
