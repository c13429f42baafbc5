# The settings' one owner (firmware/table/settings.py): the console's ``set``
# (``update``), the setup menu (``Setup`` over a ``Settings``) and the hosts
# change them only through its methods, with the same answers under CPython
# and both MicroPython VMs; one header builder; the catalogue's base variant.
# mp-heapsize: 512k
from table.settings import SETTABLE, Settings
from table.setup import Setup
from tapp.catalog import base_variant, players_of, variant_ids
from tapp.rules import rules_for

OK = 2          # Setup.button keys: 0 prev, 1 next, 2 OK


def test_update_answers_a_code_and_changes_nothing_when_refused():
    s = Settings(None)
    before = s.as_dict()
    for changes, message in (
            ({"nope": 1}, 'unknown setting "nope"'),
            ({"deck": 2}, 'unknown setting "deck"'),          # enrolment's, not set's
            ({"players": 9}, "bad value for players"),
            ({"variant": "skat"}, "variant: one of " + ", ".join(variant_ids())),
            ({"variant": "tapp_classic", "players": 4}, "tapp_classic is not played by 4 players"),
            ({"players": 4, "options": {"zzz": 1}}, 'unknown option: "zzz"'),
            ({"mode": "open", "first_dealer": 5}, "bad value for first_dealer")):
        assert s.update(changes) == ("bad_args", message), changes
        assert s.as_dict() == before, changes            # all or nothing


def test_update_changes_every_key_given():
    s = Settings(None)
    assert s.update({"variant": "berliner", "players": 4, "first_dealer": 3,
                     "seat_names": ["Ada", "Bo", "Cy", "Di"], "referee_pin": 4711}) is None
    assert (s.variant, s.players, s.first_dealer, s.referee_pin) == ("berliner", 4, 3, "4711")
    assert s.shown() == {"variant": "berliner", "options": {}, "players": 4,
                         "seat_names": ["Ada", "Bo", "Cy", "Di"], "first_dealer": 3,
                         "mode": "strict", "language": "de"}
    assert sorted(s.shown()) == sorted(k for k in SETTABLE if k != "referee_pin")
    assert s.update({"players": 3}) is None and s.first_dealer == 0   # no seat 3 now


def test_override_raises_what_update_refuses():
    s = Settings(None)
    s.override({"variant": "haferltarock", "players": 4})
    assert s.players == 4
    try:
        s.override({"players": 5})
    except ValueError as exc:
        assert str(exc) == "bad_args: haferltarock is not played by 5 players"
    else:
        raise AssertionError("override took 5 players")


def test_the_header_is_built_in_one_place_and_makes_a_session():
    s = Settings(None)
    assert s.set_seat_name(1, "Bert") and not s.set_seat_name(6, "Zoe")
    assert not s.set_seat_name(0, " Anna") and not s.set_seat_name(0, "x" * 13)
    assert s.update({"seat_names": ["Ann"], "players": 4}) is None
    h = s.header()
    assert h == {"record": 1, "variant": "tapp_modern", "players": 4,
                 "seats": ["Ann", "Platz 2", "Platz 3", "Platz 4"], "options": {},
                 "first_dealer": 0, "mode": "strict"}
    assert rules_for(h).players == 4
    assert s.session_problem() is None


def test_choose_variant_fits_the_players_and_drops_the_options():
    s = Settings(None)
    assert s.update({"variant": "herzblatt", "players": 5, "first_dealer": 4}) is None
    assert s.set_option("doubling", "off")
    assert s.choose_variant("tapp_classic")
    assert (s.variant, s.players, s.first_dealer, s.options) == ("tapp_classic", 3, 0, {})
    assert not s.choose_variant("skat") and s.variant == "tapp_classic"
    assert not s.set_option("x", 2.5) and not s.set_option(3, "a")


def test_the_setup_menu_answers_into_the_settings():
    s = Settings(None)
    setup = Setup(s)
    assert setup.settings is s
    # variant: next until haferltarock, OK
    while setup.current()[0] == "variant" and setup.current()[2][setup.pos] != "haferltarock":
        setup.button(1, False)
    setup.button(OK, False)
    assert s.variant == "haferltarock"
    assert setup.current()[0] == "players"
    setup.button(1, False)              # 3 -> 4
    setup.button(OK, False)
    assert s.players == 4
    while setup.current()[0] != "seat:3":
        setup.button(OK, False)         # the options as they are, seats 1-3 too
    setup.button(1, False)              # seat 4: the next preset name
    setup.button(OK, False)
    assert s.seat_names[3] != "Platz 4" and s.header()["seats"][3] == s.seat_names[3]
    while not setup.done:
        setup.button(OK, False)
    assert rules_for(s.header()).players == 4


def test_an_answer_makes_only_the_next_questions_label_and_choices():
    """The game, the players, the language change which questions there are:
    their keys are made again, but a label and its choices only for the
    question shown (all of them held the Pico's step some 10 ms); the
    questions read the same as before."""
    s = Settings(None)
    setup = Setup(s)

    def questions():
        return [setup.question(key) for key in setup.keys()]
    before = questions()
    made = []
    question = setup.question

    def counted(key):
        made.append(key)
        return question(key)
    setup.question = counted
    setup.button(1, False)              # another game
    setup.button(OK, False)
    assert made == ["players"], made
    assert setup.current()[0] == "players" and made == ["players"]   # made once
    assert [q[0] for q in questions()][:2] == ["variant", "players"]
    assert before[-3:] == questions()[-3:] and len(setup.keys()) == len(questions())
    assert setup.rows()[0][0].endswith("2/%d" % len(setup.keys()))


def test_save_writes_nothing_when_kept_in_ram():
    s = Settings("/no-such-folder-here", remember=False)
    assert s.load() == [] and s.save() is None
    assert Settings(None).save() is None


def test_a_preset_names_its_base_once():
    base, options = base_variant("berliner")
    assert base == "haferltarock" and options == {"berliner": True}
    options["berliner"] = False                     # a fresh dict: the preset keeps its own
    assert base_variant("berliner")[1] == {"berliner": True}
    assert base_variant("tapp_modern") == ("tapp_modern", {})
    assert players_of("berliner") == players_of("haferltarock") == (3, 4)
    assert players_of("skat") == ()
