"""Card names in the two patterns (table/names.py, docs/rules 1.1), and the
texts' and names' lookup by key (table/texts.py, table/names.py).

The engine knows only codes (``CQ``); the table names a German-suited deck's
cards Eichel/Grün/Herz/Schellen with Ober and Unter, drawn with the font's
own glyphs, and reads them back off the display as it drew them.
"""
import pytest

from table import font, names, texts
from table.names import contract_name, suit_name
from table.texts import text
from tapp.cards import CODE_INDEX
from tests.test_font import drawn


@pytest.mark.parametrize(("code", "french", "german"), [
    ("CQ", "\u2663Q", "\ue000O"),        # Eichel-Ober
    ("DJ", "\u2666J", "\ue003U"),        # Schellen-Unter
    ("S10", "\u266010", "\ue00110"),     # Grün-Zehner
    ("HA", "\u2665A", "\ue002A"),        # Herz-Sau
])
def test_card_text_in_either_pattern(code, french, german):
    card = CODE_INDEX[code]
    assert names.card_text(card) == french
    assert names.card_text(card, german=True) == german


def test_the_german_pattern_has_its_own_glyphs_and_words():
    for s in range(4):
        assert font.glyph_index(chr(names.suit_code(s, german=True))) not in (
            -1, font.PLACEHOLDER, font.glyph_index(chr(names.suit_code(s))))
    assert [names.suit_word(s, "de", german=True) for s in range(4)] == [
        "Eichel", "Grün", "Herz", "Schellen"]
    assert [names.suit_word(s, "en", german=True) for s in range(4)] == [
        "Acorns", "Leaves", "Hearts", "Bells"]
    assert names.suit_word(0) == "Kreuz" and names.suit_word(3, "en") == "Diamonds"
    assert [names.rank_token(r, german=True) for r in (3, 4)] == ["O", "U"]


@pytest.mark.parametrize(("variant", "german"), [
    ("wuerttemberg", True), ("haferltarock", True), ("scharfer_tarock", True),
    ("berliner", True), ("tarock_simple", True), ("tarock_bettel", True),
    ("tapp_classic", False), ("tapp_modern", False), ("herzblatt", False),
    ("herzblatt_muhr", False), ("braun_solo", False)])
def test_which_variants_are_german_suited(variant, german):
    assert names.german_suited(variant) is german


def test_german_cards_read_back_off_the_display_as_drawn():
    text = " ".join(names.card_text(CODE_INDEX[c], german=True)
                    for c in ("CQ", "SJ", "H10", "DA"))
    model, cells = drawn(text)
    assert model.text_rows()[0].rstrip() == text


def test_texts_are_found_by_whole_keys_only():
    assert texts.text("open") == "offen" and texts.text("open", "en") == "open"
    assert texts.text("discard_open") == "Gedrückt? OK"
    assert texts.text("undo_q") == "Rückgängig? OK"
    for bad in ("pen", "discard_", "", "nothing_undo "):
        with pytest.raises(KeyError):
            texts.text(bad)
    keys = texts.KEYS.split()
    assert len(texts.OFF) == 2 * len(keys) + 1
    for k in keys:
        for lang in ("de", "en"):
            j = texts.which(k, lang)
            assert texts.DATA[texts.OFF[j]:texts.OFF[j + 1] - 1].decode() == text(k, lang)



def test_names_are_found_by_their_prefix_and_whole_word():
    """Contracts (c_), calls (k_) and games (g_) are keys of the one store:
    found by the id behind the prefix, never by a key that only ends in it
    ("last_trick" is a table text, "v_last_trick" an option's value)."""
    assert texts.number("c_", "last_trick") == texts.which("c_last_trick")
    assert texts.text_of(texts.number("c_", "last_trick", "en")) == "Last trick"
    assert texts.text_of(texts.number("c_", "frage")) == "Frage"
    assert texts.number("c_", "rage") == texts.number("c_", "heart") == -1
    assert texts.number("k_", "frage") == texts.number("", "frage") == -1
    assert texts.number("c_", 3) == texts.number("c_", "") == -1
    assert names.call_number("pass", "en") == texts.which("k_pass", "en")
    assert names.variant_name("wuerttemberg") == "Württ. Tarock"
    assert names.variant_name("nosuch") == "nosuch"
    assert names.variant_name("tapp_modern", "en") == "Tapp neu"


def test_keys_remembered_answer_as_the_scan_does():
    """``number`` remembers the keys it found (the scan of KEYS takes
    milliseconds on the Pico): every key, asked again and again with and
    without its prefix split off, gives the scan's number; a word that is
    no key stays unknown however often it is asked."""
    keys = texts.KEYS.split()
    for _ in range(3):
        for k in keys:
            assert texts.number("", k) == 2 * texts.index(texts.KEYS, k), k
            head, _sep, tail = k.partition("_")
            if tail:
                assert texts.number(head + "_", tail, "en") == 2 * texts.index(texts.KEYS, k) + 1
        assert texts.number("c_", "rage") == texts.number("", "frage") == -1


def test_keys_found_by_halving_their_starts_as_by_counting_spaces():
    """``key_index`` (the keys' starts, ``STARTS``, halved: as ``number``
    asks) finds every key, with its prefix split off or not, where counting the
    spaces before it does; parts of keys, keys' neighbours run together and
    words that are no key are found by neither."""
    keys = texts.KEYS.split()
    starts = texts.STARTS
    assert len(starts) == len(keys) + 1 and starts[-1] == len(texts.KEYS)
    words = list(keys) + ["rage", "fra", "e_o", "ok e", keys[0] + keys[1], "", "zzz"]
    words += [k[1:] for k in keys[:40]] + [k[:-1] for k in keys[:40]]
    for w in words:
        assert texts.key_index(w) == texts.index(texts.KEYS, w), w
        head, _sep, tail = w.partition("_")
        if tail:
            assert texts.key_index(tail, head + "_") == texts.index(texts.KEYS, tail, head + "_"), w
    assert texts.key_index(keys[-1]) == len(keys) - 1


def test_names_and_the_suits_they_name():
    assert names.contract_name("heart_solo") == "Herz-Solo"
    assert names.contract_name("heart_solo", "en") == "Heart Solo"
    assert names.contract_name("nosuch") == "nosuch"
    assert names.call_label({"call": "re"}) == "Re"
    assert names.call_label({"call": "bid", "contract": "solo", "trump": "H", "value": 3},
                            "en") == "Solo ♥ 3"
    assert names.CARD_TEXT[9 * 2] == "♥A" and names.card_text(35) == "♦6"
    contracts = [k[2:] for k in texts.KEYS.split() if k.startswith("c_")]
    assert contracts[:2] == ["frage", "heart_frage"]
    assert len(contracts) == len(names.SUITS_NAMED) // 2
    for cid in contracts:
        for lang in ("de", "en"):
            j = names.contract_number(cid, lang)
            for s, letter in enumerate("CSHD"):
                word = suit_name(letter, lang)   # "Heart Solo" names the Hearts
                named = (word[:-1] if word.endswith("s") else word) in contract_name(cid, lang)
                assert bool(names.suits_named(j) >> s & 1) == named, (cid, lang, letter)


def test_a_trump_is_named_in_the_deck_s_pattern():
    """The menu's calls (table/menus.py) name a German-suited game's trump by
    its German glyph, as the seat rows show the call once it is made."""
    ev = {"call": "declare", "contract": "pickup", "trump": "C"}
    assert names.call_label(ev) == "Aufnehmen \u2663"
    assert names.call_label(ev, "de", True) == "Aufnehmen \ue000"
