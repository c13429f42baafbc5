"""Stable error codes (docs/record-format.md "Outcomes") and the human messages for them.

Codes are small ints inside the engine so the hot paths never build strings;
``NAMES`` gives the stable lowercase word that goes into outcome lines and
``MESSAGES`` the console's sentence.  The display's short lines, German and
English, are the table's (table/texts.py ``e_`` + the word).
"""
OK = 0
UNKNOWN_CARD = 1
NOT_IN_DECK = 2
CARD_USED = 3
NOT_IN_HAND = 4
NOT_YOUR_TURN = 5
WRONG_PHASE = 6
MUST_FOLLOW = 7
MUST_TRUMP = 8
MUST_OVERTRUMP = 9
ILLEGAL_CALL = 10
ILLEGAL_CONTRACT = 11
ILLEGAL_DISCARD = 12
ILLEGAL_ANNOUNCE = 13
BAD_EVENT = 14

NAMES = (
    "ok", "unknown_card", "not_in_deck", "card_used", "not_in_hand",
    "not_your_turn", "wrong_phase", "must_follow", "must_trump",
    "must_overtrump", "illegal_call", "illegal_contract", "illegal_discard",
    "illegal_announce", "bad_event",
)

MESSAGES = (
    "OK",
    "Unknown card: not a known card code",
    "This card is not part of the session's deck",
    "This card has already been played in this deal",
    "That card is not in this player's hand",
    "It is not this seat's turn",
    "Not possible at this point of the deal",
    "Farbe bedienen! Follow the suit that was led",
    "Trumpf! No card of the led suit: a trump must be played",
    "Übertrumpfen! A higher trump must be played",
    "That call is not allowed now",
    "That contract is not allowed here",
    "Wrong discards: count or cards",
    "That announcement is not allowed now",
    "Unreadable or incomplete event",
)


def message_for(name):
    """The human message for a stable error word (as in outcome lines)."""
    return MESSAGES[NAMES.index(name)] if name in NAMES else name
