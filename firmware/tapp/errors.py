"""Stable error codes (docs/record-format.md "Outcomes") and their words.

Codes are small ints inside the engine so the hot paths never build strings;
``NAMES`` gives the stable lowercase word that goes into outcome lines.  The
engine holds no human text: the display's lines (German, English) and the
console's sentence for each word live in the table's one text store,
table/texts.py (``e_`` + the word: ``text`` and ``message``), where a
translator finds every text the table says.  The engine is shared with the
host and must not import the table, so whoever shows or says an error (the
table, the host's tools) looks its text up there by the word.
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
