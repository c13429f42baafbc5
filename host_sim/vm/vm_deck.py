"""The virtual deck: NFC stickers with stable UIDs, enrolled through the
registry's front door.  Shared by the simulator in CPython (host_sim/table.py)
and the application inside the MicroPython VM (vm_main.py, when the table's
flash lives in the VM) and the fake board (fake_board.py: the stickers'
UIDs; the registry is imported only to enrol)."""
DECK_ID = 1


def card_uid(deck_id, card):
    """The 7-byte UID of a virtual NTAG sticker (stable per deck and card)."""
    return bytes((0x04, 0x54, deck_id, card, 0xA1, 0xB2, 0x80 | (deck_id ^ card)))


def enrol_virtual_deck(registry, deck_id=DECK_ID, kind="d36"):
    """Enrol every card of a virtual deck through the registry's front door."""
    from table import registry as R
    if registry.kind(deck_id) is None:
        registry.create_deck(deck_id, kind)
    for card in R.kind_cards(kind):
        if not registry.has_card(deck_id, card):
            code = registry.add(deck_id, card, card_uid(deck_id, card))
            if code != R.OK:
                raise RuntimeError("virtual deck: %s" % R.message(code))


def enrol_virtual_decks(registry, count):
    """Decks 1 to ``count`` enrolled (a virtual table's first boot: deck 1 is in play)."""
    for deck_id in range(1, count + 1):
        enrol_virtual_deck(registry, deck_id)
