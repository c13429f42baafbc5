"""Stable error codes (docs/record-format.md "Outcomes") and the human messages for them.

Codes are small ints inside the engine so the hot paths never build strings;
``NAMES`` gives the stable lowercase word that goes into outcome lines and
``MESSAGES`` the text the display and console show.
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


# Display texts: one 16-column line of the 128x64 screen (8x8 font).  German is
# the table's default language; the font draws its umlauts.
SHORT_DE = (
    "OK", "Karte unbekannt", "Fremde Karte", "Schon gespielt", "Nicht auf Hand",
    "Nicht am Zug", "Jetzt nicht", "Farbe bedienen!", "Trumpf!", "Übertrumpfen!",
    "Gebot unzulässig", "Spiel unzulässig", "Falsch gedrückt", "Ansage verboten",
    "Eingabe ungültig",
)
SHORT_EN = (
    "OK", "Unknown card", "Not in this deck", "Already played", "Not in hand",
    "Not your turn", "Not now", "Follow suit!", "Play a trump!", "Beat the trump!",
    "Call not allowed", "Game not allowed", "Wrong discards", "Not announceable",
    "Invalid input",
)
SHORT = {"de": SHORT_DE, "en": SHORT_EN}
DISPLAY_COLUMNS = 16


def short_text(code, lang="de"):
    """The display line for error code ``code`` (an int) in ``lang`` ("de", "en")."""
    return SHORT.get(lang, SHORT_DE)[code]


def message_for(name):
    """The human message for a stable error word (as in outcome lines)."""
    return MESSAGES[NAMES.index(name)] if name in NAMES else name
