r"""What the table says, in German (the default) and English.

Each text fits one 16-column display line unless it is a title; ``%s`` slots
take seat names (up to 8 characters on screen) or card codes.  The engine's
error texts are ``tapp.errors.short_text``.

The texts live in one bytes constant, ``DATA`` (UTF-8: per key the German
text, then the English one, each ended by a newline), found through ``KEYS``
(the keys in the same order, each followed by a space).  From a ROMFS image
both stay in flash: the module takes well under 1 KB of heap where a dict of
str pairs took 7 KB (64-bit unix port).  ``text()`` makes a str for a caller
to keep; the screens draw straight from ``DATA`` (``which``, ``OFF``) and
allocate nothing.  Letters beyond ASCII are written as their UTF-8 bytes
(ä \xc3\xa4, ö \xc3\xb6, ü \xc3\xbc, Ä \xc3\x84, Ö \xc3\x96, Ü \xc3\x9c,
ß \xc3\x9f); the comment then shows the text.
"""
from array import array

KEYS = (
    "setup variant players seat first_dealer mode strict open language start enrol_q yes "
    "no enrol place centre enrol_done deal_centre deal_count deal_to talon missing sweep "
    "turn calls discard discard_open rufer give announce play_on trick wins clear lift "
    "put_back one_card unknown other_deck reader_down not_now points result won lost "
    "draw thrown_in next_deal scores pot deals session_over undo_q undone nothing_undo "
    "deal_again discard_again hold_ok centre_down revoke in_trick called_card col_pay "
    "col_total deal_no points_now last_trick tricks missing_n ok_back ok_on "
    "flash_low flash_full flash_help "
)

DATA = (
    b"Einstellen\nSettings\n"                    # setup
    b"Spiel\nGame\n"                             # variant
    b"Spieler\nPlayers\n"                        # players
    b"Platz %s\nSeat %s\n"                       # seat
    b"Erster Geber\nFirst dealer\n"              # first_dealer
    b"Modus\nMode\n"                             # mode
    b"streng\nstrict\n"                          # strict
    b"offen\nopen\n"                             # open
    b"Sprache\nLanguage\n"                       # language
    b"Los geht's!\nStart!\n"                     # start
    b"Deck erfassen?\nEnrol a deck?\n"           # enrol_q
    b"ja\nyes\n"                                 # yes
    b"nein\nno\n"                                # no
    b"Deck %s erfassen\nEnrol deck %s\n"         # enrol
    b"Lege %s auf\nPlace %s on\n"                # place
    b"die Mitte\nthe centre\n"                   # centre
    b"Deck komplett\nDeck complete\n"            # enrol_done
    b"%s gibt\n%s deals\n"                       # deal_centre
    b"Karte %s\nCard %s\n"                       # deal_count
    b"an %s\nto %s\n"                            # deal_to
    b"Stock\nTalon\n"                            # talon
    b"fehlt: %s\nmissing: %s\n"                  # missing
    b"Hand scannen\nScan hands\n"                # sweep
    b"%s ist dran\n%s to play\n"                 # turn
    b"%s sagt:\n%s says:\n"                      # calls
    b"%s dr\xc3\xbcckt %s\n%s discards %s\n"     # discard: "%s drückt %s"
    b"Gedr\xc3\xbcckt? OK\nDiscarded? OK\n"      # discard_open: "Gedrückt? OK"
    b"%s ruft:\n%s calls:\n"                     # rufer
    b"gibt daf\xc3\xbcr:\ngives for it:\n"       # give: "gibt dafür:"
    b"Ansagen?\nAnnounce?\n"                     # announce
    b"weiter\nplay on\n"                         # play_on
    b"Stich %s\nTrick %s\n"                      # trick
    b"%s sticht\n%s wins\n"                      # wins
    b"Tisch abr\xc3\xa4umen\nClear the table\n"  # clear: "Tisch abräumen"
    b"Karte abheben\nLift the card\n"            # lift
    b"Karte zur\xc3\xbcck!\nPut card back!\n"    # put_back: "Karte zurück!"
    b"Nur 1 Karte!\nOne card only!\n"            # one_card
    b"Karte unbekannt\nUnknown card\n"           # unknown
    b"Fremdes Deck\nOther deck\n"                # other_deck
    b"Leser %s aus\nReader %s down\n"            # reader_down
    b"Jetzt nicht\nNot now\n"                    # not_now
    b"%s Augen\n%s points\n"                     # points
    b"Abrechnung\nSettlement\n"                  # result
    b"gewonnen\nwon\n"                           # won
    b"verloren\nlost\n"                          # lost
    b"unentschieden\ndraw\n"                     # draw
    b"eingeworfen\nthrown in\n"                  # thrown_in
    b"OK: neues Spiel\nOK: next deal\n"          # next_deal
    b"Spielstand\nScore sheet\n"                 # scores
    b"Kasse\nPot\n"                              # pot
    b"Spiele: %s\nDeals: %s\n"                   # deals
    b"Sitzung zu Ende\nSession over\n"           # session_over
    b"R\xc3\xbcckg\xc3\xa4ngig? OK\nUndo? OK\n"  # undo_q: "Rückgängig? OK"
    b"Zur\xc3\xbcckgenommen\nUndone\n"           # undone: "Zurückgenommen"
    b"Nichts zur\xc3\xbcck\nNothing to undo\n"   # nothing_undo: "Nichts zurück"
    b"Von vorn geben\nDeal from start\n"       # deal_again (after a power cut)
    b"Neu dr\xc3\xbccken %s\nDiscard anew %s\n"  # discard_again: "Neu drücken %s" (1/3)
    b"OK lang dr\xc3\xbccken\nHold OK down\n"      # hold_ok: "OK lang drücken"
    b"Kein Mittelleser\nNo centre reader\n"      # centre_down
    b"Versto\xc3\x9f!\nRevoke!\n"                 # revoke: "Verstoß!"
    b"in Stich %s\nin trick %s\n"                # in_trick
    b"Gerufene Karte!\nThe called card!\n"       # called_card (the Rufer card's duty)
    b"+/-\n+/-\n"                                # col_pay: a payment column's head
    b"Stand\nTotal\n"                            # col_total: a balance column's head
    b"Spiel %s\nDeal %s\n"                       # deal_no
    b"Augen bisher\nPoints so far\n"             # points_now
    b"Letzter Stich %s\nLast trick %s\n"         # last_trick
    b"Stiche %s\nTricks %s\n"                    # tricks
    b"fehlt: %s Spieler\nmissing: %s seats\n"    # missing_n
    b"OK: zur\xc3\xbcck\nOK: back\n"              # ok_back: "OK: zurück"
    b"OK: weiter\nOK: play on\n"                 # ok_on
    b"Speicher: %s Sp.\nFlash: %s deals\n"       # flash_low: deals that still fit
    b"Speicher voll!\nFlash full!\n"             # flash_full
    b"Sichern+Neustart\nSave+new session\n"      # flash_help
)


def index(words, word):
    """Position of ``word`` among ``words`` (each followed by one space), or -1;
    allocates nothing."""
    n = len(word)
    i = words.find(word) if n and " " not in word else -1
    while i >= 0:
        if (i == 0 or words[i - 1] == " ") and words[i + n] == " ":
            return words.count(" ", 0, i)
        i = words.find(word, i + 1)
    return -1


def offsets(data):
    """Where each newline-ended text of ``data`` starts, and one past the last."""
    starts = [0]
    i = data.find(b"\n")
    while i >= 0:
        starts.append(i + 1)
        i = data.find(b"\n", i + 1)
    return array("H", starts)


OFF = offsets(DATA)     # text j is DATA[OFF[j]:OFF[j + 1] - 1]


def which(key, lang="de"):
    """The number ``j`` of the text ``key`` in ``lang`` ("de" or "en"): the
    text is ``DATA[OFF[j]:OFF[j + 1] - 1]``.  KeyError for an unknown key."""
    k = index(KEYS, key)
    if k < 0:
        raise KeyError(key)
    return 2 * k + 1 if lang == "en" else 2 * k


def text(key, lang="de"):
    """The text ``key`` in ``lang`` ("de" or "en"), as a new str."""
    j = which(key, lang)
    return DATA[OFF[j]:OFF[j + 1] - 1].decode()
