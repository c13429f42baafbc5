"""What the table says, in German (the default) and English.

Each text fits one 16-column display line unless it is a title; ``%s`` slots
take seat names (up to 8 characters on screen) or card codes.  The engine's
error texts are ``tapp.errors.short_text``.
"""

TEXTS = {
    # setup
    "setup": ("Einstellen", "Settings"),
    "variant": ("Spiel", "Game"),
    "players": ("Spieler", "Players"),
    "seat": ("Platz %s", "Seat %s"),
    "first_dealer": ("Erster Geber", "First dealer"),
    "mode": ("Modus", "Mode"),
    "strict": ("streng", "strict"),
    "open": ("offen", "open"),
    "language": ("Sprache", "Language"),
    "start": ("Los geht's!", "Start!"),
    "enrol_q": ("Deck erfassen?", "Enrol a deck?"),
    "yes": ("ja", "yes"),
    "no": ("nein", "no"),
    # enrolment
    "enrol": ("Deck %s erfassen", "Enrol deck %s"),
    "place": ("Lege %s auf", "Place %s on"),
    "centre": ("die Mitte", "the centre"),
    "enrol_done": ("Deck komplett", "Deck complete"),
    # dealing
    "deal_centre": ("%s gibt", "%s deals"),
    "deal_count": ("Karte %s", "Card %s"),
    "deal_to": ("an %s", "to %s"),
    "talon": ("Stock", "Talon"),
    "missing": ("fehlt: %s", "missing: %s"),
    "sweep": ("Hand scannen", "Scan hands"),
    # game
    "turn": ("%s ist dran", "%s to play"),
    "calls": ("%s sagt:", "%s says:"),
    "discard": ("%s drückt %s", "%s discards %s"),
    "discard_open": ("Gedrückt? OK", "Discarded? OK"),
    "rufer": ("%s ruft:", "%s calls:"),
    "give": ("gibt dafür:", "gives for it:"),
    "announce": ("Ansagen?", "Announce?"),
    "play_on": ("weiter", "play on"),
    "trick": ("Stich %s", "Trick %s"),
    "wins": ("%s sticht", "%s wins"),
    "clear": ("Tisch abräumen", "Clear the table"),
    "lift": ("Karte abheben", "Lift the card"),
    "put_back": ("Karte zurück!", "Put card back!"),
    "one_card": ("Nur 1 Karte!", "One card only!"),
    "unknown": ("Karte unbekannt", "Unknown card"),
    "other_deck": ("Fremdes Deck", "Other deck"),
    "reader_down": ("Leser %s aus", "Reader %s down"),
    "not_now": ("Jetzt nicht", "Not now"),
    "points": ("%s Augen", "%s points"),
    # end of deal
    "result": ("Abrechnung", "Settlement"),
    "won": ("gewonnen", "won"),
    "lost": ("verloren", "lost"),
    "draw": ("unentschieden", "draw"),
    "thrown_in": ("eingeworfen", "thrown in"),
    "next_deal": ("OK: neues Spiel", "OK: next deal"),
    "scores": ("Spielstand", "Score sheet"),
    "pot": ("Kasse", "Pot"),
    "deals": ("Spiele: %s", "Deals: %s"),
    "session_over": ("Sitzung zu Ende", "Session over"),
    "undo_q": ("Rückgängig? OK", "Undo? OK"),
    "undone": ("Zurückgenommen", "Undone"),
    "nothing_undo": ("Nichts zurück", "Nothing to undo"),
}

LANGS = ("de", "en")


def text(key, lang="de"):
    """The text ``key`` in ``lang`` ("de" or "en")."""
    pair = TEXTS[key]
    return pair[1] if lang == "en" else pair[0]
