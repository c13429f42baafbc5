r"""What the table says, in German (the default) and English.

Every text the table shows, in one keyed format: the table's own, the
engine's errors (``e_`` + the stable word of tapp.errors, ``error_text``),
the deck registry's outcomes (``r_``/``rf_``), the enrolment's lines and the
setup's house rules (``o_``/``v_``).  Each fits one 16-column display line
with its ``%s`` slot filled (a seat's name, shortened by the screens to the
room there is, a number or a card); tests/test_texts_fit.py checks that and
renders every text where it is shown.

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
    "setup variant players seat first_dealer mode strict open language start yes no "
    "enrol deal_centre deal_count deal_to talon missing turn calls discard_open play_on "
    "wins clear put_back one_card unknown other_deck reader_down not_now result won lost "
    "draw thrown_in next_deal scores pot deals session_over undo_q undone nothing_undo "
    "deal_again discard_again to_centre hold_ok centre_down revoke in_trick called_card "
    "rufer gives in_talon lays_away "
    "col_pay col_total deal_no points_now last_trick tricks missing_n ok_back ok_on sure_q "
    "o_all_pass o_berliner o_berliner_hearts o_bettel_order o_doubling o_end_when_broke "
    "o_first_bidder o_four_player_removed o_frage_trump o_herz_neischaugn "
    "o_loss_multiplier o_pack o_payment o_pot o_raise_payment o_ramsch_tie "
    "o_revoke_penalty o_rounding o_self_raise o_shortfall o_tout_factor v_last_trick "
    "v_redeal v_bettel v_normal v_extended v_kontra_re v_off v_forehand v_middlehand "
    "v_any v_hearts v_fixed v_per_point v_base61 v_target v_all_tied_pay v_none_pay "
    "v_forfeit v_none v_cent v_nearest5 v_up5 v_cap_end v_refill v_de v_en flash_low "
    "flash_full flash_help renew_q renew_keeps renew_drops renew_drops2 renew_ok "
    "e_ok e_unknown_card e_not_in_deck e_card_used e_not_in_hand e_not_your_turn "
    "e_wrong_phase e_must_follow e_must_trump e_must_overtrump e_illegal_call "
    "e_illegal_contract e_illegal_discard e_illegal_announce e_bad_event r_ok "
    "r_uid_enrolled rf_uid_enrolled r_uid_other_deck rf_uid_other_deck r_card_enrolled "
    "rf_card_enrolled r_unknown_deck r_bad_uid r_not_in_set r_bad_deck_id r_bad_kind "
    "r_deck_exists r_full r_corrupt r_storage r_complete enrol_next enrol_got "
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
    b"ja\nyes\n"                                 # yes
    b"nein\nno\n"                                # no
    b"Deck %s erfassen\nEnrol deck %s\n"         # enrol
    b"%s gibt\n%s deals\n"                       # deal_centre
    b"Karte %s\nCard %s\n"                       # deal_count
    b"an %s\nto %s\n"                            # deal_to
    b"Stock\nTalon\n"                            # talon
    b"fehlt: %s\nmissing: %s\n"                  # missing
    b"%s ist dran\n%s to play\n"                 # turn
    b"%s sagt:\n%s says:\n"                      # calls
    b"Gedr\xc3\xbcckt? OK\nDiscarded? OK\n"      # discard_open: "Gedrückt? OK"
    b"weiter\nplay on\n"                         # play_on
    b"%s sticht\n%s wins\n"                      # wins
    b"Tisch abr\xc3\xa4umen\nClear the table\n"  # clear: "Tisch abräumen"
    b"%s: zur\xc3\xbcck!\n%s: put back!\n"      # put_back: "Bert: zurück!" (his card)
    b"Nur 1 Karte!\nOne card only!\n"            # one_card
    b"Karte unbekannt\nUnknown card\n"           # unknown
    b"Fremdes Deck\nOther deck\n"                # other_deck
    b"Leser %s aus\nReader %s down\n"            # reader_down
    b"Jetzt nicht\nNot now\n"                    # not_now
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
    b"Auf die Mitte!\nOn the centre!\n"         # to_centre
    b"OK lang dr\xc3\xbccken\nHold OK down\n"      # hold_ok: "OK lang drücken"
    b"Kein Mittelleser\nNo centre reader\n"      # centre_down
    b"Versto\xc3\x9f!\nRevoke!\n"                 # revoke: "Verstoß!"
    b"in Stich %s\nin trick %s\n"                # in_trick
    b"Gerufene Karte!\nThe called card!\n"       # called_card (the Rufer card's duty)
    b"%s ruft\n%s calls\n"                      # rufer: "Cora ruft ♥8" (the card after it)
    b"gibt %s\ngives %s\n"                      # gives: the Rufer's give (open mode)
    b"%s im Stock\n%s in talon\n"               # in_talon: the called card lies there
    b"%s dr\xc3\xbcckt\n%s buries\n"            # lays_away: "Bert drückt 1/3"
    b"+/-\n+/-\n"                                # col_pay: a payment column's head
    b"Stand\nTotal\n"                            # col_total: a balance column's head
    b"Spiel %s\nDeal %s\n"                       # deal_no
    b"Augen bisher\nPoints so far\n"             # points_now
    b"Letzter Stich %s\nLast trick %s\n"         # last_trick
    b"Stiche %s\nTricks %s\n"                    # tricks
    b"fehlt: %s Spieler\nmissing: %s seats\n"    # missing_n
    b"OK: zur\xc3\xbcck\nOK: back\n"              # ok_back: "OK: zurück"
    b"OK: weiter\nOK: play on\n"                 # ok_on
    b"Sicher? OK\nSure? OK\n"                    # sure_q: a menu whose every entry commits
    # the setup's house-rule options (o_ + the option's key) and answers (v_ + value)
    b"Alle passen\nAll pass\n"                  # o_all_pass
    b"Berliner\nBerliner\n"                     # o_berliner
    b"Berliner Herz\nBerliner hearts\n"         # o_berliner_hearts
    b"Bettel-Rang\nBettel rank\n"               # o_bettel_order
    b"Kontra und Re\nDoubling\n"                # o_doubling
    b"Ende bei pleite\nEnd when broke\n"        # o_end_when_broke
    b"Erster Bieter\nFirst bidder\n"            # o_first_bidder
    b"Zu viert ohne\nFour: take out\n"          # o_four_player_removed
    b"Frage-Trumpf\nFrage trump\n"              # o_frage_trump
    b"Herz neischaugn\nHerz neischaugn\n"       # o_herz_neischaugn
    b"Verlust mal\nLoss times\n"                # o_loss_multiplier
    b"Karten\nCards\n"                          # o_pack
    b"Zahlung\nPayment\n"                       # o_payment
    b"Kasse\nPot\n"                             # o_pot
    b"Erh\xc3\xb6hung zahlt\nRaise pays\n"      # o_raise_payment: "Erhöhung zahlt"
    b"Ramsch gleich\nRamsch tie\n"              # o_ramsch_tie
    b"Versto\xc3\x9f kostet\nRevoke costs\n"    # o_revoke_penalty: "Verstoß kostet"
    b"Runden\nRounding\n"                       # o_rounding
    b"Selbst erh\xc3\xb6hen\nSelf-raise\n"      # o_self_raise: "Selbst erhöhen"
    b"Kasse leer\nPot runs dry\n"               # o_shortfall
    b"Tout mal\nTout times\n"                   # o_tout_factor
    b"Letzter Stich\nLast trick\n"              # v_last_trick
    b"neu geben\ndeal again\n"                  # v_redeal
    b"Bettel\nBettel\n"                         # v_bettel
    b"normal\nnormal\n"                         # v_normal
    b"erweitert\nextended\n"                    # v_extended
    b"Kontra, Re\nKontra, Re\n"                 # v_kontra_re
    b"aus\noff\n"                               # v_off
    b"Vorhand\nforehand\n"                      # v_forehand
    b"Mittelhand\nmiddlehand\n"                 # v_middlehand
    b"beliebig\nany\n"                          # v_any
    b"Herz\nHearts\n"                           # v_hearts
    b"fest\nfixed\n"                            # v_fixed
    b"je Auge\nper point\n"                     # v_per_point
    b"ab 61\nfrom 61\n"                         # v_base61
    b"ab Ziel\nfrom target\n"                   # v_target
    b"alle zahlen\nall tied pay\n"              # v_all_tied_pay
    b"keiner zahlt\nnobody pays\n"              # v_none_pay
    b"Spiel verloren\nthe game\n"               # v_forfeit
    b"nichts\nnothing\n"                        # v_none
    b"auf Cent\nto the cent\n"                  # v_cent
    b"auf 5 gerundet\nto nearest 5\n"           # v_nearest5
    b"auf 5 auf\nup to 5\n"                     # v_up5
    b"Schluss\nthe end\n"                       # v_cap_end
    b"nachf\xc3\xbcllen\nrefill\n"              # v_refill: "nachfüllen"
    b"Deutsch\nDeutsch\n"                       # v_de
    b"English\nEnglish\n"                       # v_en
    b"Speicher: %s Sp.\nFlash: %s deals\n"       # flash_low: deals that still fit
    b"Speicher voll!\nFlash full!\n"             # flash_full
    b"OK halten: neu\nHold OK: restart\n"        # flash_help: a new session (app.py)
    b"Neue Sitzung?\nNew session?\n"            # renew_q
    b"Diese endet;\nThis one ends;\n"          # renew_keeps
    b"\xc3\x84lteste beendete\noldest finished\n"  # renew_drops: "Älteste beendete"
    b"werden gel\xc3\xb6scht\nones are deleted\n"  # renew_drops2: "werden gelöscht"
    b"OK: ja, <>: nein\nOK: yes, <>: no\n"      # renew_ok
    # the engine's errors (e_ + tapp.errors.NAMES), the deck registry's outcomes
    # (r_ + registry.NAMES; rf_: naming the card or deck it collided with, forms
    # split by "|", the first that fits used), the enrolment's lines
    b"OK\nOK\n"                                 # e_ok
    b"Karte unbekannt\nUnknown card\n"          # e_unknown_card
    b"Fremde Karte\nNot in this deck\n"         # e_not_in_deck
    b"Schon gespielt\nAlready played\n"         # e_card_used
    b"Nicht auf Hand\nNot in hand\n"            # e_not_in_hand
    b"Nicht am Zug\nNot your turn\n"            # e_not_your_turn
    b"Jetzt nicht\nNot now\n"                   # e_wrong_phase
    b"Farbe bedienen!\nFollow suit!\n"          # e_must_follow
    b"Trumpf!\nPlay a trump!\n"                 # e_must_trump
    b"\xc3\x9cbertrumpfen!\nBeat the trump!\n"  # e_must_overtrump: "Übertrumpfen!"
    b"Gebot unzul\xc3\xa4ssig\nCall not allowed\n"  # e_illegal_call: "Gebot unzulässig"
    b"Spiel unzul\xc3\xa4ssig\nGame not allowed\n"  # e_illegal_contract: "Spiel unzulässig"
    b"Falsch gedr\xc3\xbcckt\nWrong discards\n" # e_illegal_discard: "Falsch gedrückt"
    b"Ansage verboten\nNot announceable\n"      # e_illegal_announce
    b"Eingabe ung\xc3\xbcltig\nInvalid input\n" # e_bad_event: "Eingabe ungültig"
    b"OK\nOK\n"                                 # r_ok
    b"Schon erfasst\nAlready enrolled\n"        # r_uid_enrolled
    b"Ist schon %s\nAlready %s\n"               # rf_uid_enrolled
    b"Aus anderem Deck\nFrom other deck\n"      # r_uid_other_deck
    b"Karte aus Deck %d|Aus Deck %d\nCard of deck %d\n"  # rf_uid_other_deck
    b"Karte schon da\nCard already in\n"        # r_card_enrolled
    b"%s schon da\n%s already in\n"             # rf_card_enrolled
    b"Deck unbekannt\nUnknown deck\n"           # r_unknown_deck
    b"Kein Kartentag\nNot a card tag\n"         # r_bad_uid
    b"Nicht im Satz\nNot in this set\n"         # r_not_in_set
    b"Decknr. 1-99\nDeck no. 1-99\n"            # r_bad_deck_id
    b"Satz unbekannt\nUnknown set\n"            # r_bad_kind
    b"Deck existiert\nDeck exists\n"            # r_deck_exists
    b"Speicher voll\nRegistry full\n"           # r_full
    b"Datei defekt\nFile corrupt\n"             # r_corrupt
    b"Speicherfehler\nStorage error\n"          # r_storage
    b"Deck komplett\nDeck complete\n"           # r_complete
    b"Lege: %s\nPlace: %s\n"                    # enrol_next
    b"Erfasst: %s\nGot: %s\n"                   # enrol_got
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


_E0 = index(KEYS, "e_ok")       # the engine's errors, in tapp.errors' code order


def error_number(code, lang="de"):
    """The number ``j`` of the display line of engine error ``code`` (an int
    of tapp.errors) in ``lang``; allocates nothing."""
    return 2 * (_E0 + code) + (1 if lang == "en" else 0)


_errors = {}     # error_text's strs, made once each: a refused card allocates nothing


def error_text(code, lang="de"):
    """The display line of engine error ``code`` ("Farbe bedienen!"): one str
    per line, made the first time it is asked for."""
    j = error_number(code, lang)
    t = _errors.get(j)
    if t is None:
        t = _errors[j] = DATA[OFF[j]:OFF[j + 1] - 1].decode()
    return t
