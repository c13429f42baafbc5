r"""The table's one text store, its display part: every line the display shows.

A translator or a newcomer changes a text here and nowhere else.  The store
is two modules in one format (a str of keys, each followed by one space, and
a bytes constant of newline-ended UTF-8 texts in the keys' order):

* ``KEYS`` / ``DATA`` here -- what the display shows, per key the German
  text (the default) and then the English one.  Each fits one 16-column
  line with its ``%s`` filled (a seat's name, shortened by the screens to
  the room there is, a number or a card); tests/test_texts_fit.py checks
  every one and renders them where they are shown.  Keys by prefix: none --
  the table's own lines; ``o_``/``v_`` the setup's house rules and their
  values; ``e_`` + a stable word of tapp.errors the engine's refusals;
  ``r_``/``rf_`` + a word of table/registry.py the deck registry's outcomes
  (``rf_``: the forms naming the card or deck it collided with, split by
  "|", the first that fits used); ``c_`` + a contract's id, ``k_`` + a
  call's word, ``g_`` + a variant's id: the contracts', calls' and games'
  names (table/names.py).
* ``MESSAGE_KEYS`` / ``MESSAGES`` in table/messages.py -- what the serial
  console answers and the bring-up self-test reports, English only (the
  console's protocol and the report are English, docs/console.md): per key
  one text, ``messages.message(key)``; its docstring lists its prefixes.

The engine (firmware/tapp) keeps only its error codes and their stable
words (tapp/errors.py): it is shared with the host and imports nothing of
the table, and the words are protocol (outcome lines, the journal), not
text.  Whoever shows or says an error finds its text in the store by its word.

The texts stay in flash when the module runs from a ROMFS image: the only
heap they take is ``OFF``, two bytes per display text, so the screens can
draw a text straight from ``DATA`` (``which``, ``number``, ``OFF``) and
allocate nothing; ``text()`` makes a str for a caller to keep.  Letters
beyond ASCII are written as their UTF-8 bytes (ä \xc3\xa4, ö \xc3\xb6, ü
\xc3\xbc, Ä \xc3\x84, Ö \xc3\x96, Ü \xc3\x9c, ß \xc3\x9f); the comment then
shows the text.  A new text: its key in the keys' str and its line(s) at the
same place in the bytes (tests/test_texts_fit.py, tests/test_names.py check
that every key has them).
"""
from array import array

try:
    from micropython import const
except ImportError:  # CPython
    const = lambda x: x  # noqa: E731

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
    "c_frage c_heart_frage c_solo c_suit_solo c_heart_solo c_bettel c_bettel_ouvert "
    "c_suit_rufer c_heart_rufer c_suit_durch c_heart_durch c_ramsch c_pickup c_hand "
    "c_soloist c_diamond_solo c_spade_solo c_club_solo c_last_trick "
    "k_pass k_hold k_spiele k_weg k_besser k_am_besten k_vorn k_mehr k_herz k_nicht_herz "
    "k_raise k_declare k_bid k_tout k_kontra k_re k_supp k_resupp k_hirsch k_66 k_du k_auch "
    "g_wuerttemberg g_tapp_classic g_tapp_modern g_tarock_simple g_tarock_bettel "
    "g_haferltarock g_berliner g_scharfer_tarock g_herzblatt g_herzblatt_muhr g_braun_solo "
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
    b"Stock\nTalon\n"                                               # talon
    b"fehlt: %s\nmissing: %s\n"                  # missing
    b"%s ist dran\n%s to play\n"                                    # turn
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
    b"eingeworfen\nthrown in\n"                                     # thrown_in
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
    b"Auf die Mitte!\nOn the centre!\n"                             # to_centre
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
    b"Stiche %s\nTricks %s\n"                                       # tricks
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
    # the contracts' names (c_ + the contract's id) and the calls' (k_ + the call's
    # word; the bid and the declaration are named by their contract)
    b"Frage\nFrage\n"                            # c_frage
    b"Herz-Frage\nHeart Frage\n"                 # c_heart_frage
    b"Solo\nSolo\n"                              # c_solo
    b"Farb-Solo\nSuit Solo\n"                    # c_suit_solo
    b"Herz-Solo\nHeart Solo\n"                   # c_heart_solo
    b"Bettel\nBettel\n"                          # c_bettel
    b"Bettel ouvert\nBettel ouvert\n"            # c_bettel_ouvert
    b"Rufer\nRufer\n"                            # c_suit_rufer
    b"Herz-Rufer\nHeart Rufer\n"                 # c_heart_rufer
    b"Durch\nDurch\n"                            # c_suit_durch
    b"Herz-Durch\nHeart Durch\n"                 # c_heart_durch
    b"Ramsch\nRamsch\n"                          # c_ramsch
    b"Aufnehmen\nPick-up\n"                      # c_pickup
    b"Hand\nHand\n"                              # c_hand
    b"Solo\nSolo\n"                              # c_soloist
    b"Karo-Solo\nDiamond Solo\n"                 # c_diamond_solo
    b"Pik-Solo\nSpade Solo\n"                    # c_spade_solo
    b"Kreuz-Solo\nClub Solo\n"                   # c_club_solo
    b"Letzter Stich\nLast trick\n"               # c_last_trick
    b"passe\npass\n"                             # k_pass
    b"halte\nhold\n"                             # k_hold
    b"spiele\nplay\n"                            # k_spiele
    b"weg\npass\n"                               # k_weg
    b"besser\nbetter\n"                          # k_besser
    b"am besten\nbest\n"                         # k_am_besten
    b"vorn\nfirst\n"                             # k_vorn
    b"mehr\nmore\n"                              # k_mehr
    b"Herz\nHearts\n"                            # k_herz
    b"nicht Herz\nnot Hearts\n"                  # k_nicht_herz
    b"Hand\nHand\n"                              # k_raise
    b"\n\n"                                      # k_declare
    b"\n\n"                                      # k_bid
    b"Tout\nTout\n"                              # k_tout
    b"Kontra\nKontra\n"                          # k_kontra
    b"Re\nRe\n"                                  # k_re
    b"Supp\nSupp\n"                              # k_supp
    b"Resupp\nResupp\n"                          # k_resupp
    b"Hirsch\nHirsch\n"                          # k_hirsch
    b"66\n66\n"                                  # k_66
    b"Du\nDu\n"                                  # k_du
    b"auch\nme too\n"                            # k_auch (the ladder's second step)
    # the games' names (g_ + the variant's id), in the header
    b"W\xc3\xbcrtt. Tarock\nW\xc3\xbcrtt. Tarock\n"  # g_wuerttemberg: "Württ. Tarock"
    b"Tapp\nTapp\n"                            # g_tapp_classic
    b"Tapp neu\nTapp neu\n"                    # g_tapp_modern
    b"Tarock\nTarock\n"                        # g_tarock_simple
    b"Tarock Bettel\nTarock Bettel\n"          # g_tarock_bettel
    b"Haferltarock\nHaferltarock\n"            # g_haferltarock
    b"Berliner\nBerliner\n"                    # g_berliner
    b"Scharfer T.\nScharfer T.\n"              # g_scharfer_tarock
    b"Herzblatt\nHerzblatt\n"                  # g_herzblatt
    b"Herzblatt Muhr\nHerzblatt Muhr\n"        # g_herzblatt_muhr
    b"Brauns Solo\nBrauns Solo\n"              # g_braun_solo
)

def index(words, word, prefix=""):
    """Position of ``prefix + word`` among ``words`` (each followed by one
    space), or -1; allocates nothing."""
    i = words.find(word) if word and " " not in word else -1
    while i >= 0:
        k = _key(words, i, len(word), prefix)
        if k >= 0:
            return k
        i = words.find(word, i + 1)
    return -1


def _key(words, i, n, prefix):
    """The position of the key of ``words`` that is ``prefix`` and the ``n``
    characters at ``i``, or -1 if they are not a whole key."""
    a = i - len(prefix)
    if words[i + n] != " " or a < 0 or (a > 0 and words[a - 1] != " "):
        return -1
    return words.count(" ", 0, a) if words.startswith(prefix, a) else -1


def key_index(word, prefix=""):
    """``index(KEYS, word, prefix)``, the key found by halving ``STARTS``,
    not by counting the spaces before it (on the Pico 0.5-1 ms a key, not
    1-4).  (Small frames: one over 11 words would go on the heap.)"""
    i = KEYS.find(word) if word and " " not in word else -1
    while i >= 0:
        k = _key_at(i - len(prefix), i + len(word))
        if k >= 0 and (not prefix or KEYS.startswith(prefix, i - len(prefix))):
            return k
        i = KEYS.find(word, i + 1)
    return -1


def _key_at(a, end):
    """The position of the key of KEYS that starts at ``a`` and ends at
    ``end`` (its space), or -1."""
    if a < 0:
        return -1
    lo = 0
    hi = len(STARTS) - 1
    while lo < hi:                   # the last key starting at or before a
        mid = (lo + hi + 1) >> 1
        if STARTS[mid] <= a:
            lo = mid
        else:
            hi = mid - 1
    return lo if STARTS[lo] == a and STARTS[lo + 1] == end + 1 else -1


def offsets(data, end=b"\n"):
    """Where each ``end``-ended text of ``data`` starts, and one past the
    last (also where the space-ended keys of ``KEYS`` start: ``end`` b" ")."""
    starts = [0]
    i = data.find(end)
    while i >= 0:
        starts.append(i + 1)
        i = data.find(end, i + 1)
    return array("H", starts)


OFF = offsets(DATA)     # text j is DATA[OFF[j]:OFF[j + 1] - 1]
# key k is KEYS[STARTS[k]:STARTS[k + 1] - 1] (KEYS is ASCII: its bytes have the same positions)
STARTS = offsets(KEYS.encode(), b" ")


# The keys found so far: ``key_index`` scans ``KEYS`` (find, then halve
# ``STARTS``), 0.5-1 ms on the Pico for one key, and a card laid
# looks up some ten.  A table made at import remembers them (open
# addressing by the words' hashes, which MicroPython keeps in each str):
# a lookup allocates nothing, the first one of a key either.
_SLOTS = const(128)                 # a session's screens ask for some 60 keys
_PROBES = const(8)
_word = [None] * _SLOTS
_prefix = [None] * _SLOTS
_k = array("h", [-1] * _SLOTS)


def number(prefix, word, lang="de"):
    """The number ``j`` of the text ``prefix + word`` in ``lang`` ("de" or
    "en"; the text is ``DATA[OFF[j]:OFF[j + 1] - 1]``), or -1 if there is
    none (a word that is not a str, too); allocates nothing."""
    k = _remembered(prefix, word) if isinstance(word, str) else -1
    if k < 0:
        return -1
    return 2 * k + 1 if lang == "en" else 2 * k


def _remembered(prefix, word):
    """``index(KEYS, word, prefix)``, from the table when asked before."""
    i = (hash(word) + hash(prefix)) % _SLOTS
    n = _PROBES
    while n and _word[i] is not None:
        if _word[i] == word and _prefix[i] == prefix:
            return _k[i]
        i = (i + 1) % _SLOTS
        n -= 1
    k = key_index(word, prefix)
    if n:                        # a free slot (not: a full run of probes); a key
        # without a text is remembered too (an option's name, asked at every screen)
        _word[i] = word
        _prefix[i] = prefix
        _k[i] = k
    return k


def which(key, lang="de"):
    """``number`` of the text ``key``; KeyError for an unknown key."""
    j = number("", key, lang)
    if j < 0:
        raise KeyError(key)
    return j


def text_of(j):
    """The text number ``j``, as a new str."""
    return DATA[OFF[j]:OFF[j + 1] - 1].decode()


def text(key, lang="de"):
    """The text ``key`` in ``lang`` ("de" or "en"), as a new str."""
    return text_of(which(key, lang))


_E0 = key_index("e_ok")       # the engine's errors, in tapp.errors' code order


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
        t = _errors[j] = text_of(j)
    return t
