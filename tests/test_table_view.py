"""The table's read-only view (firmware/table/table_view.py, ``app.view``): what
the table is doing, asked through one door, through a strict deal -- dealing,
the menu, a card on its reader, a refused card, a card taken back by an undo,
clearing, the settlement -- and after a power cut.  (The monkey,
tests/test_table_monkey.py, reads the table only through it, in both
runtimes.)"""
from host_sim.board import OLED_ADDR
from host_sim.monkey import QuickTable
from host_sim.vm.vm_deck import DECK_ID, card_uid
from tapp.cards import CODE_INDEX
from tapp.dealing import TALON


def _lay(t, reader, code, lift=False):
    t.place_tag(reader, card_uid(DECK_ID, CODE_INDEX[code]))
    if lift:
        t.lift(reader)


def test_the_view_follows_a_strict_deal():
    t = QuickTable("wuerttemberg", 3, "strict")
    tv = t.app.view
    assert tv.mode() == "dealing" and tv.engine() is t.view
    assert tv.readers() == 4 and tv.centre() == 3
    deck = list(tv.deck_cards())
    assert len(deck) == 36
    talon = 0
    while tv.next_receiver() == TALON:      # Württemberg: the talon's packet first
        t.place_tag(3, card_uid(DECK_ID, deck.pop()))
        t.lift(3)
        talon += 1
    assert talon == 3 and sum(tv.dealt(s) for s in range(3)) == 0
    seat = tv.next_receiver()
    assert seat in (0, 1, 2) and tv.dealt(seat) == 0 and tv.deal_short(seat) == 11
    first = CODE_INDEX["CA"]
    deck.remove(first)
    _lay(t, 3, "CA", lift=True)
    assert tv.deal_seen(first) and tv.dealt(seat) == 1 and tv.deal_short(seat) == 10
    _lay(t, 3, "CA")                         # the same card again: refused, nothing counted
    assert tv.dealt(seat) == 1 and tv.refused(3) and tv.message()
    t.lift(3)
    assert not tv.refused(3) and not tv.message()
    order = []
    for card in deck:
        order.append(tv.next_receiver())
        t.place_tag(3, card_uid(DECK_ID, card))
        t.lift(3)
    assert sorted(set(order)) == [0, 1, 2] and len(order) == 32
    assert tv.mode() == "play" and t.view.expects() == "call"
    assert tv.deal_short(seat) == 0 and not tv.deal_seen(first)   # no deal being scanned
    assert tv.menu_size() >= 2 and tv.menu_pos() == 0
    labels = [tv.menu_label(k) for k in range(tv.menu_size())]
    assert "passe" in labels
    assert tv.menu_event(labels.index("passe"))["call"] == "pass"
    assert tv.overlay() == ""
    t.press("ok", long=True)
    assert tv.overlay() == "undo"
    t.press("prev")
    assert tv.overlay() == ""


def test_the_view_follows_the_cards_on_the_readers():
    t = QuickTable("wuerttemberg", 3, "open")
    tv = t.app.view
    view = t.view
    while view.expects() != "card" or tv.menu_size():
        k = next((k for k in range(tv.menu_size()) if tv.menu_event(k) is None
                  or tv.menu_event(k).get("call") != "pass"), 0)
        while tv.menu_pos() != k:
            t.press("next")
        t.press("ok", long=bool(tv.menu_event(k)) and tv.menu_event(k).get("ev") == "announce")
    seat = view.turn()
    other = (seat + 1) % 3
    _lay(t, other, "C6")                      # out of turn: refused, to be lifted
    assert tv.refused(other) and not tv.taken_back(other)
    assert tv.card_on(other) == -1 and tv.message()
    t.lift(other)
    assert not tv.refused(other)
    _lay(t, seat, "C6")
    assert tv.card_on(seat) == CODE_INDEX["C6"] and view.trick_size() == 1
    t.press("ok", long=True)                  # undo: the card is taken back, not refused
    t.press("ok")
    assert view.trick_size() == 0 and tv.refused(seat) and tv.taken_back(seat)
    t.lift(seat)
    assert not tv.refused(seat) and not tv.taken_back(seat)
    _lay(t, seat, "C6")
    for code in ("C7", "C8"):
        _lay(t, view.turn(), code)
    assert tv.clearing() and view.trick_size() == 0
    assert tv.journal_length() == len(t.journal_lines()) > 3     # the header, the calls, 3 plays
    t = t.power_cut()                          # the cards stay: still to be cleared
    tv = t.app.view
    assert tv.clearing() and tv.card_on(seat) == CODE_INDEX["C6"]
    for r in range(3):
        t.lift(r)
    assert not tv.clearing() and tv.card_on(seat) == -1
    assert not tv.jammed(0) and not tv.display_down()
    t.board.i2c.nack(OLED_ADDR)               # the display's wire comes loose
    t.chips[0].disconnect()
    t.wait(100)
    assert tv.jammed(0) and "1" in tv.message() and tv.display_down()
    t.board.i2c.nack(OLED_ADDR, False)
    t.wait(1100)                              # tried again (app.DISPLAY_RETRY_MS)
    assert not tv.display_down()
    assert len(tv.rows()) == 8


def test_the_view_follows_the_enrolment():
    t = QuickTable("wuerttemberg", 3, "strict", enrolled=False)
    tv = t.app.view
    assert tv.mode() == "enrol" and tv.engine() is None and tv.menu_size() == 0
    assert tv.journal() is None and tv.journal_length() == 0
    first = tv.enrol_expected()
    assert first == CODE_INDEX["CA"]
    _lay(t, 3, "CA", lift=True)
    assert tv.enrol_expected() not in (-1, first)
    t = t.power_cut()                        # the registry is on flash: it goes on
    assert t.app.view.mode() == "enrol" and t.app.view.enrol_expected() != first


def test_the_rufer_menus_label_only_the_entry_shown(monkeypatch):
    """The Rufer's declarer picks a card to call from two dozen, then one of
    his to give: each entry's label ("♣10", "♣10→Bert") is made when it is
    shown, not all at the step that builds the menu (on the Pico labelling
    them all held the game's step 7-8 ms) -- and reads as before."""
    from table import menus
    from table.names import card_text
    made = []

    def counted(card, german=False):
        made.append(card)
        return card_text(card, german)
    monkeypatch.setattr(menus, "card_text", counted)
    t = QuickTable("tapp_modern", 4, "open")
    tv = t.app.view

    def choose(label):
        labels = [tv.menu_label(k) for k in range(tv.menu_size())]
        assert label in labels, (label, labels)
        while tv.menu_label(tv.menu_pos()) != label:
            t.press("next")
        t.press("ok")
        if tv.menu_asks_sure():
            t.press("ok")
    bid = False
    for _ in range(12):                 # one bids "spiele", the others pass: his Rufer
        labels = [tv.menu_label(k) for k in range(tv.menu_size())]
        rufer = [label for label in labels if label == "Herz-Rufer"]
        if rufer:
            del made[:]
            choose(rufer[0])
            break
        choose("spiele" if "spiele" in labels and not bid else "weg")
        bid = True
    assert t.view.expects() == "rufer" and tv.menu_size() > 20
    assert len(made) <= 2, made                     # the entry shown, not every one
    picks = [tv.menu_label(k) for k in range(tv.menu_size())]
    assert picks[0] == card_text(CODE_INDEX[tv.menu_event(0)["pick"]])
    choose(picks[0])
    del made[:]
    t.press("next")
    assert len(made) <= 2, made
    gives = [tv.menu_label(k) for k in range(tv.menu_size())]
    assert tv.menu_event(0)["give"] is None and gives[0] == "Stock"   # open mode: the talon first
    assert gives[1:] == [card_text(CODE_INDEX[tv.menu_event(k)["give"]])   # (hands unknown)
                         for k in range(1, tv.menu_size())]
