"""Card names in the two patterns (table/names.py, docs/rules 1.1).

The engine knows only codes (``CQ``); the table names a German-suited deck's
cards Eichel/Grün/Herz/Schellen with Ober and Unter, drawn with the font's
own glyphs, and reads them back off the display as it drew them.
"""
import pytest

from table import font, names
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
