r"""The one text store's English part: what the serial console answers and
the bring-up self-test reports.

The store is two modules in one keyed format (a str of keys, each followed
by one space, and a bytes constant of newline-ended UTF-8 texts in the
keys' order): table/texts.py holds what the display shows, in German and
English; this module what is said in English only (the console's protocol
and the self-test's report are English, docs/console.md), per key one
text.  A translator or a newcomer changes a text in one of the two and
nowhere else.  Keys by prefix: ``e_``/``r_`` + a stable word of tapp.errors
or table/registry.py the engine's and the deck registry's outcomes (the
console's ``message``); bare: the console's own error words
(docs/console.md); ``a_`` the console's answers in detail (what an argument
must be, a note; ``%s``/``%d`` filled by the caller: ``message(key) %
(...)``); ``t_`` the self-test's report lines, ``ts_`` its display rows
(16 columns, checked by tests/test_texts_fit.py too).

Loaded by whoever says something (the console, the self-test, a refused
deck file), not at power-up; the constants stay in flash in a ROMFS image,
and a message is found by walking its lines (the console and the self-test
may allocate: no table of offsets sits in the heap for them).
"""
from .texts import index

# per key one newline-ended text, in MESSAGE_KEYS' order
MESSAGE_KEYS = (
    "e_ok e_unknown_card e_not_in_deck e_card_used e_not_in_hand e_not_your_turn "
    "e_wrong_phase e_must_follow e_must_trump e_must_overtrump e_illegal_call "
    "e_illegal_contract e_illegal_discard e_illegal_announce e_bad_event "
    "r_ok r_uid_enrolled r_uid_other_deck r_card_enrolled r_unknown_deck r_bad_uid "
    "r_not_in_set r_bad_deck_id r_bad_kind r_deck_exists r_full r_corrupt r_storage "
    "r_nothing r_complete "
    "bad_line too_long bad_request unknown_command bad_args locked bad_pin rate_limited "
    "no_pin not_ready nothing_to_undo busy unavailable not_found failed "
    "a_unknown_command a_session_name a_no_session a_no_such_session a_level "
    "a_setting_name a_settings a_next_session a_pin_at_once a_deck_id a_no_deck "
    "a_deck_lines a_lines_strings a_registry_op a_deck_kind a_card_or_uid a_remove_card "
    "a_no_deck_kind a_no_selftest a_up_to a_selftest_failed a_selftest_busy a_pin_wait "
    "a_pin_wrong a_not_enrolled a_no_new_session a_reader a_uid a_card a_card_not_enrolled "
    "a_button a_long a_repl a_repl_stopped a_bad_header a_unknown_setting a_variant "
    "a_bad_value a_not_played_by "
    "ts_title ts_seconds t_display_lost t_display_ok t_display_spi t_bus_ok t_bus_fail t_reset "
    "t_no_supply t_genuine t_clone t_release t_stuck ts_press t_no_press t_swapped "
    "t_pressed t_confirm ts_yes_no t_need_ok_next t_no_answer t_leds t_leds_q t_leds_ok "
    "t_leds_fail t_buzzer t_buzzer_q t_buzzer_ok t_buzzer_fail t_failed t_all_ok "
    "ts_every_ok t_continue t_no_reset t_second_try t_floating t_silent t_misread "
    "t_unknown_chip t_remove_all t_place t_no_card t_remove t_still_read t_card_ok "
    "t_cross t_other_reader t_spacer t_no_range_ok t_range_fail t_range_ok "
)

MESSAGES = (
    # the engine's errors (e_ + tapp.errors.NAMES), the console's "message"
    b"OK\n"                                                         # e_ok
    b"Unknown card: not a known card code\n"                        # e_unknown_card
    b"This card is not part of the session's deck\n"                # e_not_in_deck
    b"This card has already been played in this deal\n"            # e_card_used
    b"That card is not in this player's hand\n"                     # e_not_in_hand
    b"It is not this seat's turn\n"                                 # e_not_your_turn
    b"Not possible at this point of the deal\n"                     # e_wrong_phase
    b"Farbe bedienen! Follow the suit that was led\n"               # e_must_follow
    b"Trumpf! No card of the led suit: a trump must be played\n"    # e_must_trump
    b"\xc3\x9cbertrumpfen! A higher trump must be played\n"         # e_must_overtrump
    b"That call is not allowed now\n"                               # e_illegal_call
    b"That contract is not allowed here\n"                          # e_illegal_contract
    b"Wrong discards: count or cards\n"                             # e_illegal_discard
    b"That announcement is not allowed now\n"                       # e_illegal_announce
    b"Unreadable or incomplete event\n"                             # e_bad_event
    # the deck registry's outcomes (r_ + registry.NAMES)
    b"OK\n"                                                         # r_ok
    b"This tag is already a card of this deck\n"                    # r_uid_enrolled
    b"This tag is a card of another deck\n"                         # r_uid_other_deck
    b"This card of the deck already has a tag\n"                    # r_card_enrolled
    b"There is no deck with this id\n"                              # r_unknown_deck
    b"Not a card sticker (UID of 4, 7 or 10 bytes)\n"               # r_bad_uid
    b"This card is not part of the deck's card set\n"              # r_not_in_set
    b"Deck ids are 1 to 99\n"                                       # r_bad_deck_id
    b"Unknown deck kind\n"                                          # r_bad_kind
    b"A deck with this id exists\n"                                 # r_deck_exists
    b"The registry is full\n"                                       # r_full
    b"Deck file corrupt\n"                                          # r_corrupt
    b"Could not write to the flash; nothing changed\n"             # r_storage
    b"Nothing to take back\n"                                       # r_nothing
    b"Every card of the deck is enrolled\n"                         # r_complete
    # the console's own refusals (its stable error words, docs/console.md)
    b"not one JSON object per line (RFC 8259, UTF-8)\n"             # bad_line
    b"line longer than 4096 bytes\n"                                # too_long
    b"a request is an object with \"cmd\" (a string) and an optional "
    b"\"id\" (a number or a short string)\n"                        # bad_request
    b"unknown command (try help)\n"                                 # unknown_command
    b"bad arguments\n"                                              # bad_args
    b"this needs the referee PIN (\"pin\")\n"                       # locked
    b"wrong PIN\n"                                                  # bad_pin
    b"too many wrong PINs: wait retry_ms\n"                         # rate_limited
    b"no referee PIN is set on this table (settings referee_pin)\n"  # no_pin
    b"the table is not playing a session\n"                         # not_ready
    b"nothing to take back\n"                                       # nothing_to_undo
    b"the table's input queue is full: try again\n"                 # busy
    b"not available on this firmware\n"                             # unavailable
    b"no such thing\n"                                              # not_found
    b"the command failed\n"                                         # failed
    # the console's answers in detail (a_: the words after its error word, or a
    # note; "%s"/"%d" filled where they are said)
    b"unknown command %s (try help)\n"                              # a_unknown_command
    b"session: a name from journal list\n"                          # a_session_name
    b"no session in play\n"                                         # a_no_session
    b"no session %s\n"                                              # a_no_such_session
    b"level: one of %s\n"                                           # a_level
    b"key: a setting's name\n"                                      # a_setting_name
    b"values: an object of settings\n"                              # a_settings
    b"for the next session (reset-session starts it)\n"             # a_next_session
    b"the referee PIN applies at once\n"                            # a_pin_at_once
    b"deck: a deck id\n"                                            # a_deck_id
    b"no deck %d\n"                                                 # a_no_deck
    b"lines: the deck file's lines\n"                               # a_deck_lines
    b"lines: strings\n"                                             # a_lines_strings
    b"op: list, download or upload\n"                               # a_registry_op
    b"kind: a deck kind such as d36\n"                              # a_deck_kind
    b"card: a card code, uid: 8, 14 or 20 hex digits\n"             # a_card_or_uid
    b"remove: a card code\n"                                        # a_remove_card
    b"no deck %d (give kind to create it)\n"                        # a_no_deck_kind
    b"no self-test in this firmware\n"                              # a_no_selftest
    b"%s: 0 to %d\n"                                                # a_up_to
    b"self-test: %s: %s\n"                                          # a_selftest_failed
    # a_selftest_busy
    b"the self-test is running: only ping is answered meanwhile\n"
    b"too many wrong PINs: wait %d ms\n"                            # a_pin_wait
    b"wrong PIN: the next try in %d ms\n"                           # a_pin_wrong
    b"deck %d is not completely enrolled\n"                         # a_not_enrolled
    b"the table did not start a new session\n"                      # a_no_new_session
    b"reader: 0 to %d (the centre is %d)\n"                         # a_reader
    b"uid: 8, 14 or 20 hex digits\n"                                # a_uid
    b"card: a card code (or uid)\n"                                 # a_card
    b"%s of deck %d is not enrolled\n"                              # a_card_not_enrolled
    b"key: prev, next or ok\n"                                      # a_button
    b"long: true or false\n"                                        # a_long
    b"the table stops; at the REPL Ctrl-D starts it again\n"        # a_repl
    # a_repl_stopped
    b"tapptable: the table stopped for the REPL (journal closed); Ctrl-D starts it again\n"
    b"the journal's header makes no session\n"                      # a_bad_header
    b"unknown setting %s\n"                                         # a_unknown_setting
    b"variant: one of %s\n"                                         # a_variant
    b"bad value for %s\n"                                           # a_bad_value
    b"%s is not played by %d players\n"                             # a_not_played_by
    # the bring-up self-test (bringup/selftest.py): t_ its report's lines (after
    # "<item>: ok " or "FAIL "), each followed by the rows its display shows
    # for it, if any ("|" before each); ts_ a display row alone (16 columns)
    b"SELFTEST\n"                                                   # ts_title
    b"%d s\n"                                                       # ts_seconds
    # t_display_lost
    b"no answer at I2C address 0x3c or 0x3d (%s): check SDA and SCL (swapped?), VCC "
    b"and GND of the display; the test goes on here, on the LEDs and the buzzer\n"
    b"at I2C address %s: test pattern shown (all pixels, checkerboard, frame with "
    b"diagonals): look for dead rows or columns\n"                  # t_display_ok
    # t_display_spi
    b"no panel at I2C address 0x3c or 0x3d, so the one on SPI (its own chip-select, "
    b"D/C and RES) is driven: a test pattern (all pixels, checkerboard, frame with "
    b"diagonals) is on it now -- nothing there: check its CS, D/C, RES, CLK, MOSI, "
    b"VCC and GND (hardware/README.md)\n"
    # t_bus_ok
    b"MISO reads 0x00 with no reader selected (every 74HC125 gate off, the pull-down)\n"
    b"MISO reads 0x%02x with no reader selected: something drives it -- a reader's "
    b"MISO wired around its 74HC125 gate, a gate's /OE tied low -- or the 4.7 kOhm "
    b"pull-down is missing and the line floats\n"                   # t_bus_fail
    b"resetting all readers (the table supply must be on)|readers...\n"        # t_reset
    b"no reader answers at all: is the table supply on? Over USB alone the readers, "
    b"the 74HC125s and the display have no 3V3R -- switch the table supply on (and "
    b"check U4's output: 3.25 to 3.4 V), then run the self-test again\n"  # t_no_supply
    b"%s (VersionReg 0x%02x)\n"                                     # t_genuine
    b"%s (VersionReg 0x%02x): a clone, which this driver reads like the NXP chip; if "
    b"its range falls short in the card test, an NXP module is the cure\n"  # t_clone
    b"release all buttons|release buttons\n"                        # t_release
    # t_stuck
    b"stuck: still pressed before it was asked for (a short to GND, or no pull-up)\n"
    b"press %s\n"                                                   # ts_press
    b"no press in %d s: check its wire and GND\n"                   # t_no_press
    b"%s came instead: are the wires of %s and %s swapped?\n"       # t_swapped
    b"pressed\n"                                                    # t_pressed
    b"%s? press OK = yes, NEXT = no, PREV = again\n"                # t_confirm
    b"OK yes NEXT no\n"                                             # ts_yes_no
    # t_need_ok_next
    b"not confirmed: OK and NEXT are needed to answer (fix the buttons first)\n"
    b"no answer in %d s\n"                                          # t_no_answer
    # t_leds
    b"each seat's LED red, green, blue in turn, seat 1 first: look|LEDs: look\n"
    b"did all %d LEDs show red, green and blue|all LEDs\n"          # t_leds_q
    b"all %d LEDs showed red, green and blue\n"                     # t_leds_ok
    b"an LED missed a colour or stayed dark: check +5V and GND at the LEDs, U3 "
    b"(74AHCT125) and the 330 Ohm, DOUT to the next DIN\n"          # t_leds_fail
    b"four rising notes: listen|buzzer: listen\n"                   # t_buzzer
    b"did you hear four rising notes|4 notes\n"                     # t_buzzer_q
    b"four rising notes heard\n"                                    # t_buzzer_ok
    b"not heard: a passive piezo (not a magnetic buzzer), its 100 Ohm and GND, the "
    b"buzzer pin\n"                                                 # t_buzzer_fail
    b"%d failed: %s|%d FAILED\n"                                    # t_failed
    b"all ok|ALL OK\n"                                              # t_all_ok
    b"every part ok\n"                                              # ts_every_ok
    b"press OK to continue|OK: continue\n"                          # t_continue
    b"no answer: the chip never leaves reset (MISO reads high?): check 3V3R, GND, "
    b"RST, its CS line and its MISO buffer gate\n"                  # t_no_reset
    b"answered only at the second try: a loose wire or a weak supply (3V3R at the "
    b"reader?)\n"                                                   # t_second_try
    # t_floating
    b"not connected: MISO floats (VersionReg reads %s): the seat cable is unplugged "
    b"and its 74HC125 input A has no pull-down (R15-R20), or a MISO wire is broken\n"
    b"not connected (VersionReg reads 0x%02x): the seat cable is unplugged, or the "
    b"reader has no 3V3R or GND, or its CS or MISO wire (through its 74HC125 gate) "
    b"is broken\n"                                                  # t_silent
    b"VersionReg 0x%02x is 0x%02x (%s) with one bit misread: a marginal wire -- check "
    b"SCK, MISO and GND in the seat cable and the 33 Ohm resistors; long cables: a "
    b"lower spi_baud (hardware/README.md)\n"                        # t_misread
    b"VersionReg 0x%02x: not an MFRC522 nor a known clone (the driver takes 0x91, "
    b"0x92, 0x88, 0xB2, 0x12, 0x90)\n"                              # t_unknown_chip
    b"remove every card from the readers|remove cards\n"            # t_remove_all
    b"place a card on this reader (%d s)|card on\n"                 # t_place
    b"no card read in %d s: check the distance to the antenna (table top), 3V3R at "
    b"the reader and SCK/MOSI\n"                                    # t_no_card
    b"remove the card|remove card\n"                                # t_remove
    # t_still_read
    b"the card is still read %d s after it was to be lifted away: a reader that reads "
    b"that far counts a lifted card as played (antenna under a thin top is enough)\n"
    b"card %s read, by this reader only\n"                          # t_card_ok
    # t_cross
    b"card %s read here and also by the %s reader: a cross-read -- the readers are "
    b"too close (antenna centres at least 15 cm apart) or the card lay between them\n"
    b"the card was read by the %s reader, not by this one: are the chip-selects of "
    b"%s and %s swapped?\n"                                         # t_other_reader
    # t_spacer
    b"lay the card on a %d mm spacer (about %d cards) on this reader, then press OK"
    b"|card %d mm up|then OK\n"
    b"range not measured: no OK in %d s\n"                          # t_no_range_ok
    # t_range_fail
    b"not read %d mm above the play area: little margin for a warped or sleeved card "
    b"-- a thinner top (4-6 mm), no metal within 30 mm, 3V3R at the reader\n"
    b"card read %d mm above the play area\n"                        # t_range_ok
)


def message(key, default=None):
    """What the console or the self-test says for ``key`` (English), a new
    str; ``default`` for an unknown key (KeyError if it is None)."""
    k = index(MESSAGE_KEYS, key)
    if k < 0:
        if default is None:
            raise KeyError(key)
        return default
    i = 0
    while k:
        i = MESSAGES.find(b"\n", i) + 1
        k -= 1
    return MESSAGES[i:MESSAGES.find(b"\n", i)].decode()
