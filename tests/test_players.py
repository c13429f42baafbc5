"""The one player model of every virtual table (host_sim/players.py).

The simulated players never answer a question that belongs to a seat a person
holds; in open mode they follow what was actually played when the person
revokes, and finish the deal; the browser's hub seats the same players (no
players of its own) and its robots play by the engine's duties.
"""
import inspect

from host_sim.players import (
    AutoPlayers,
    hand_legal_cards,
    menu_entries,
    question_seats,
    rufer_entry_ok,
)
from host_sim.table import VirtualTable
from tapp.cards import CARD_CODES
from tools.tapptable.sim_text import journal_events
from tools.tapptable.sim_tui import Seating
from tools.tapptable.sim_web import hub as hub_module
from tools.tapptable.sim_web.hub import TableHub

SEATS = ("Anna", "Bert", "Cora")


def person_bids(seating):
    """The person (``seating.you``) answers his menu: a bid if there is one (so
    he becomes the declarer), "play on" in the announcement menu."""
    tv = seating.table_view
    menu = menu_entries(tv)
    if seating.view.expects() == "card":
        k = 0                                         # weiter / play on
    else:
        k = next((i for i, (_label, ev) in enumerate(menu)
                  if ev and ev.get("call") not in ("pass", "weg")), 0)
    for _ in range((k - tv.menu_pos()) % len(menu)):
        seating.press("next")
    seating.press("ok", long=False)


def person_plays(seating, revoke=False):
    """The person puts a card on his reader: a legal one, or (``revoke``, open
    mode) one against the duties if he has one.  Returns the card."""
    you = seating.you
    hand = seating.your_hand()
    legal = seating.people.legal_cards(you)
    wrong = [c for c in hand if c not in legal]
    card = wrong[0] if revoke and wrong else legal[0]
    seating.selected = hand.index(card)
    seating.put()
    return card if card in wrong else None


def play_as_person(seating, revoke_once=False, on_menu=None, limit=600):
    """A whole deal with the person at ``seating.you``; the simulated people move
    whenever the table is not waiting for him.  Returns the revoked card or None."""
    tv = seating.table_view
    view = seating.view
    revoked = None
    for _ in range(limit):
        seating.follow()
        if tv.mode() != "play":
            return revoked
        if tv.menu_size() and seating.you in seating.people.menu_seats():
            if on_menu:
                on_menu(seating)
            person_bids(seating)
            continue
        if tv.clearing():
            seating.clear()
            continue
        if view.expects() == "discard" and view.declarer() == seating.you:
            seating.selected = 0
            seating.put(centre=True)
            if not view.strict() and len(seating.people.discards) >= \
                    view.talon_size():
                seating.press("ok")
            continue
        if view.expects() == "card" and view.turn() == seating.you and not tv.menu_size():
            want = revoke_once and revoked is None and view.trick_size() > 0
            revoked = person_plays(seating, revoke=want) or revoked
            if revoked:
                seating.follow()
                assert seating.people.behind      # the strict shadow cannot follow
            continue
        if not seating.auto_step():
            seating.table.wait(100)
    raise AssertionError("the deal did not end: %s" % seating.hint())


def test_question_seats_and_the_rufer_check():
    menu = [("weiter", None), ("Anna: Tout", {"ev": "announce", "seat": 0, "what": "tout"})]
    assert question_seats(menu, declarer=0, turn=1) == {0}
    assert question_seats([("weiter", None)], declarer=0, turn=1) == {1}
    assert question_seats([("♣A", {"pick": "CA"})], declarer=2, turn=2) == {2}
    assert rufer_entry_ok({"pick": "CA"}, ["CK"], []) and \
        not rufer_entry_ok({"pick": "CK"}, ["CK"], [])
    ev = {"ev": "rufer", "seat": 0, "card": "CA", "give": None}
    assert rufer_entry_ok(ev, ["CK"], ["CA"]) and not rufer_entry_ok(ev, ["CK"], [])


def test_hand_legal_cards_in_open_mode_follow_every_duty():
    """What the simulated players ask after a revoke: an open-mode session (it
    knows no hand) names, for the hand a player keeps, exactly the cards a
    strict twin of the same deal allows -- herzblatt's over-trump duty too."""
    import random

    from tapp.session import Session
    header = {"record": 1, "variant": "herzblatt", "players": 3, "options": {},
              "seats": ["Anna", "Bert", "Cora"], "first_dealer": 0}
    rng = random.Random(7)
    turns = 0
    for _deal in range(3):
        strict = Session(dict(header, mode="strict"))
        open_ = Session(dict(header, mode="open"))
        cards = list(strict.view.deck_cards())
        rng.shuffle(cards)
        hands, talon = strict.view.deal_out(0, [CARD_CODES[c] for c in cards])
        ev = {"ev": "deal", "dealer": 0, "hands": hands, "talon": talon}
        twin = {"ev": "deal", "dealer": 0, "hands": None, "talon": None}
        sv = strict.view
        while True:
            assert strict.apply(ev)["ok"] and open_.apply(twin)["ok"], ev
            if not sv.in_deal():
                break
            if sv.expects() == "card":
                hand = sv.hand(sv.turn())
                assert open_.view.legal_cards() == []          # it knows no hand
                legal = hand_legal_cards(open_.view, hand)
                assert legal == sv.legal_cards() and legal, (hand, sv.trick())
                turns += 1
                ev = {"ev": "play", "seat": sv.turn(), "card": rng.choice(legal)}
            elif sv.expects() == "discard":
                ev = {"ev": "exchange", "seat": sv.declarer(), "discard": sv.talon()}
            else:
                ev = [c for c in sv.legal_calls() if c["call"] != "raise"][0]
            twin = ev if ev["ev"] != "exchange" else dict(ev, discard=None)
    assert turns > 20


def test_the_simulated_players_never_answer_the_persons_question():
    """Württemberg, the person (Anna) declares: the table offers "weiter / Anna:
    Tout" while the forehand, a simulated player, is to lead.  Nobody but Anna
    answers it, nor leads and so closes it, however often they are asked."""
    asked = []

    def on_menu(seating):
        tv = seating.table_view
        if seating.view.expects() != "card":
            return
        labels = [label for label, _ev in menu_entries(tv)]
        asked.append((labels, seating.view.turn()))
        journal = len(seating.table.journal_lines())
        for _ in range(5):
            assert seating.auto_step() == ""
            seating.table.wait(500)
        assert len(seating.table.journal_lines()) == journal and tv.menu_size()
        assert seating.your_move()
        assert "You (Anna) choose" in seating.hint()

    for seed in (2, 5):
        seating = Seating("wuerttemberg", 3, seed=seed, seats=SEATS, you=0)
        seating.deal()
        play_as_person(seating, on_menu=on_menu)
        assert seating.view.last_result() is not None
    assert any("Anna: Tout" in labels and turn != 0 for labels, turn in asked), asked


def test_open_mode_the_players_follow_the_persons_revoke():
    """Open mode: the person plays a card against the duties (the table cannot
    know); the simulated players keep the hands from what was played, never
    play one of the person's cards, and the deal ends and settles."""
    done = 0
    for seed in range(1, 9):
        seating = Seating("tapp_modern", 3, "open", seed=seed, seats=SEATS, you=0)
        dealt = {s: list(h) for s, h in seating.people.hands.items()}
        revoked = play_as_person(seating, revoke_once=True)
        if revoked is None:
            continue
        done += 1
        result = seating.view.last_result()
        assert result is not None and sum(result["payments"]) + result["pot"] == 0
        plays = [ev for ev in journal_events(seating.table) if ev.get("ev") == "play"]
        hands = dealt if dealt else seating.people.hands
        for ev in plays:
            if ev["seat"] != 0:
                assert ev["card"] not in hands[0], ev        # never the person's card
        if done >= 2:
            break
    assert done >= 2, "no seed gave the person a chance to revoke"


def test_the_browser_hub_seats_the_same_players():
    """The hub has no players of its own: its robots are AutoPlayers (the engine's
    legal cards, the talon and Rufer through the journal), and a person's seat
    is not played while he is there."""
    source = inspect.getsource(hub_module)
    for own in ("def _rufer", "card_suit", "receivers("):
        assert own not in source, own
    hub = TableHub("tapp_modern", 3, "open", seed=4, robots=True, autoplay=True)
    assert isinstance(hub.players_model, AutoPlayers)
    for _ in range(600):
        hub.advance(500)
        assert not hub.players_model.behind      # every robot card passed the duties
        if hub.view.deals_played() >= 2:
            break
    assert hub.view.deals_played() >= 2
    # a person sits at seat 0: the robots neither play his cards nor answer for him
    hub = TableHub("wuerttemberg", 3, "strict", seed=2, robots=True)
    hub.claim("person", 0)
    hub.deal("person")
    waited = 0
    for _ in range(400):
        hub.advance(200)
        if hub.tv.mode() == "play" and (hub.players_model.waits_for_person()):
            journal = len(hub.table.journal_lines())
            hub.advance(5000)
            assert len(hub.table.journal_lines()) == journal
            waited += 1
            break
    assert waited == 1


def test_a_robot_dealer_deals_when_a_person_has_sat_down():
    hub = TableHub("tapp_modern", 3, "strict", seed=1, robots=True)
    assert hub.view.dealer() == 0
    hub.claim("person", 1)                       # the dealer (seat 0) is a robot
    for _ in range(200):
        hub.advance(250)
        if hub.tv.mode() == "play":
            break
    assert hub.tv.mode() == "play"
    assert len(hub.hand(1)) == 11                   # tapp_modern, three players


def test_acting_players_play_a_deal_in_every_mode():
    for mode in ("strict", "open"):
        table = VirtualTable("tapp_modern", 3, mode, seats=SEATS)
        players = AutoPlayers(table, seed=3, illegal_once=False)
        result = players.play_deal()
        assert result is not None and not players.behind


class _Rebooting:
    """A table that stays one object across a power cut, its application a
    new one after it -- as the bench's Pico and its twin are
    (tools/tapptable/bench_rp2040.py ``MirroredTable``)."""

    def __init__(self, table):
        self.table = table

    def __getattr__(self, name):
        return getattr(self.table, name)

    def power_cut(self):
        self.table = self.table.power_cut()


def test_a_deal_cut_short_by_a_power_cut_is_played_to_its_end():
    """A power cut from ``play_deal``'s ``on_step`` (the bench's cut): the
    players go on at the powered-up table and the deal, then the next one,
    end -- the deal's loop asks the table's view anew after each step."""
    table = _Rebooting(VirtualTable("tapp_modern", 4, "strict", seats=SEATS + ("Dora",)))
    players = AutoPlayers(table, seed=5, illegal_once=False)
    cards = [0]

    def on_step(t):
        if t.app.view.mode() != "play" or t.view.expects() != "card" or t.app.view.menu_size():
            return
        if cards[0] == 2:
            t.power_cut()
            players.rejoin(t)
        cards[0] += 1

    before = table.app
    assert players.play_deal(on_step=on_step) is not None
    assert table.app is not before and cards[0] > 2, cards
    players.next_deal()
    assert players.play_deal(on_step=on_step) is not None
    assert table.view.deals_played() == 2


def test_the_browser_hub_follows_a_persons_revoke_in_open_mode():
    """The person in the browser (seat 0, open mode) plays against the duties
    once; the robots go on with the cards they really hold and the deal ends."""
    for seed in range(1, 12):
        hub = TableHub("tapp_modern", 3, "open", seed=seed, robots=True)
        hub.claim("person", 0)
        revoked = False
        for _ in range(1500):
            hub.advance(200)
            tv, view = hub.tv, hub.view
            if hub.view.deals_played() >= 1:
                break
            model = hub.players_model
            if hub.on_reader[0] and (tv.clearing() or tv.mode() != "play"):
                hub.lift("person", 0)
            elif tv.mode() == "play" and tv.menu_size() and 0 in model.menu_seats():
                hub.press("person", "ok")
                hub.advance(300)
            elif tv.mode() == "play" and view.expects() == "discard" and view.declarer() == 0:
                for card in hub.hand(0)[:hub.view.talon_size()]:
                    hub.set_aside("person", card)
                hub.press("person", "ok")
                hub.advance(300)
            elif tv.mode() == "play" and view.expects() == "card" and view.turn() == 0 \
                    and not hub.on_reader[0] and not tv.clearing() and not tv.menu_size():
                legal = model.legal_cards(0)
                wrong = [c for c in hub.hand(0) if c not in legal]
                card = wrong[0] if wrong and not revoked and view.trick_size() else legal[0]
                revoked = revoked or card in wrong
                hub.place("person", card, 0)
        if not revoked:
            continue
        assert hub.view.deals_played() == 1 and hub.view.last_result() is not None
        plays = [ev for ev in journal_events(hub.table) if ev.get("ev") == "play"]
        dealt = hub.players_model.dealt_at[min(hub.players_model.dealt_at)]
        assert all(ev["card"] in dealt[ev["seat"]] for ev in plays)   # each from own hand
        return
    raise AssertionError("no seed let the person revoke")


# the table's messages in play that the players' guide must explain (table/texts.py keys)
GUIDE_KEYS = (
    "deal_centre deal_count deal_to missing missing_n deal_again calls talon discard_open "
    "discard_again play_on hold_ok sure_q turn wins clear put_back one_card unknown other_deck "
    "reader_down centre_down not_now revoke in_trick called_card undo_q undone "
    "nothing_undo result won lost draw thrown_in tricks col_pay col_total next_deal "
    "scores deal_no pot points_now last_trick ok_back ok_on session_over flash_low "
    "flash_full flash_help renew_q renew_keeps renew_drops renew_drops2 renew_ok to_centre "
    "enrol_next e_not_in_deck e_card_used e_not_in_hand "
    "e_not_your_turn e_wrong_phase e_must_follow e_must_trump e_must_overtrump "
    "e_illegal_call e_illegal_contract e_illegal_discard e_illegal_announce").split()


def test_the_players_guide_explains_every_message_in_both_languages():
    """docs/players-guide.de.md and .en.md name each message the table shows in
    play, in German and in English (the words around a name or number): a text
    changed or added in table/texts.py fails here until the guides say it."""
    from pathlib import Path

    from table.texts import text
    docs = Path(__file__).resolve().parent.parent / "docs"
    guides = {lang: (docs / ("players-guide.%s.md" % lang)).read_text(encoding="utf-8")
              for lang in ("de", "en")}
    missing = []
    for key in GUIDE_KEYS:
        for lang in ("de", "en"):           # both guides quote German / English
            for part in text(key, lang).replace("%d", "%s").split("%s"):
                part = part.strip()
                missing += [(key, lang, guide, part) for guide in guides
                            if part and part not in guides[guide]]
    assert missing == [], missing
