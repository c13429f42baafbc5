"""The menu row: what the engine's view allows now, as entries to choose.

``menu_for(view, lang, rufer_card)`` builds the menu of a session's current
step for table/game.py -- the auction's calls (starting on the call that bids
nothing), the open-mode discard's confirmation and the self-raises, the Rufer
call (first the called card, then the give), the announcements before the
first card (starting on "play on") -- as ``(label, event or None)`` entries
(an auction call's and a Rufer card's label None: ``entry_label`` makes it
when the entry is shown -- on the Pico labelling a menu of nine calls at
once held the game's step 20 ms, and the menu row shows one at a time),
the entry to start on and whether an entry is chosen only with a second OK:
an auction menu with no entry that bids nothing (Tapp neu's second round,
the Tarock declaration: every entry commits) asks "Sicher? OK" first, so one
stray OK takes nothing (OK held stays the undo question there).
``needs_hold(ev)``: an entry that raises the stakes is chosen only with OK
held.  Menus are built once per change of step, never in a card play's
steady path.
"""
from tapp.cards import CARD_CODES, CODE_INDEX

from .names import call_label, card_text, german_suited, short_name
from .texts import text

QUIET_CALLS = ("pass", "weg")    # the auction menu's default entry: no stakes
NO_CARD = -1


def needs_hold(ev):
    """Does this menu entry change the stakes (an announcement: Tout, Kontra,
    66 ...; a Haferl self-raise)?  Then OK must be held to choose it: a short
    OK only says so, and one stray press changes nothing."""
    return ev is not None and (ev.get("ev") == "announce" or ev.get("call") == "raise")


def menu_for(view, lang, rufer_card=NO_CARD):
    """The menu while ``view`` (the engine's) expects what it does: (entries,
    the entry to start on, whether an entry needs a second OK); ``rufer_card``:
    the card the declarer picked to call (Rufer), or NO_CARD."""
    expects = view.expects()
    german = german_suited(view.variant())       # a trump in the deck's pattern
    if expects in ("call", "declare"):
        menu = [(None, ev) for ev in view.legal_calls()]
        for k, (_label, ev) in enumerate(menu):
            if ev["call"] in QUIET_CALLS:
                return menu, k, False    # the default: a stray OK bids nothing
        return menu, 0, True             # every entry commits: OK twice
    if expects == "discard":
        menu = []
        if not view.strict():
            menu = [(text("discard_open", lang), {
                "ev": "exchange", "seat": view.declarer(), "discard": None})]
        raises = [ev for ev in view.legal_calls() if ev["call"] == "raise"]
        return menu + [(call_label(ev, lang, german), ev) for ev in raises], 0, False
    if expects == "rufer":
        return _rufer_menu(view, lang, rufer_card), 0, False
    if expects == "card" and view.trick_number() == 1 and view.trick_size() == 0:
        offers = view.legal_announcements()
        if offers:
            return [(text("play_on", lang), None)] + [
                (short_name(view.seat_name(ev["seat"]), 6) + ": " + call_label(ev, lang, german),
                 ev)
                for ev in offers], 0, False
    return [], 0, False


def entry_label(view, lang, ev):
    """The label of a menu entry ``ev`` made when shown (its label None): an
    auction call, a card the Rufer's declarer may call ("♣10"), a card he
    may give its holder ("♣10→Bert")."""
    german = german_suited(view.variant())
    if "pick" in ev:
        return card_text(CODE_INDEX[ev["pick"]], german)
    if ev.get("ev") != "rufer":
        return call_label(ev, lang, german)
    label = card_text(CODE_INDEX[ev["give"]], german)
    for seat in view.active_seats():
        if ev["card"] in (view.hand(seat) or ()):
            return label + "\u2192" + short_name(view.seat_name(seat), 13 - len(label))
    return label


def _rufer_menu(view, lang, rufer_card):
    """tapp_modern Rufer (D12): the declarer calls a card he lacks, then gives
    one to its holder ("♣10→Bert"; open mode: the talon first, the table does
    not know where the card lies).  Cards in the deck's pattern, labelled
    when shown (``entry_label``: two dozen made at once held the Pico's game
    step 7-8 ms)."""
    decl = view.declarer()
    own = view.hand(decl) or []
    talon = view.talon() or []
    deck = [CARD_CODES[c] for c in view.deck_cards()]
    if rufer_card == NO_CARD:
        return [(None, {"pick": c}) for c in deck if c not in own]
    called = CARD_CODES[rufer_card]
    ev = {"ev": "rufer", "seat": decl, "card": called, "give": None}
    menu = []  # type: list
    if not view.strict() or called in talon:
        menu.append((text("talon", lang), ev))
    if view.strict() and called in talon:
        return menu
    gives = own if own else [c for c in deck if c != called]
    for c in gives:
        menu.append((None, dict(ev, give=c)))
    return menu
