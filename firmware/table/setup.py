"""Session setup with the three buttons: one question per screen.

prev/next change the answer, OK takes it and goes on, a long prev goes back.
The questions: game (variant), number of players, each house-rule option that
has a list of choices (the variant table's ``choices``), each seat's name from
a preset list, the first dealer, strict or open mode, the language, then start.
The answers start from the last settings and go straight into them
(table/settings.py ``Settings``, their one owner; the app keeps them on flash).
"""
from tapp.cards import CODE_INDEX
from tapp.catalog import VARIANTS, base_variant, variant_ids
from tapp.variants import COMMON_CHOICES

from .names import card_text, short_name, variant_name
from .settings import SEAT_NAMES
from .texts import number, text, text_of

SEAT_PRESETS = SEAT_NAMES


def _table(variant):
    return VARIANTS[base_variant(variant)[0]]


class Setup:
    """The setup questions as a small state machine; ``done`` once started."""

    def __init__(self, settings):
        self.settings = settings        # table/settings.py Settings: the answers
        self.step = 0
        self.pos = 0
        self.done = False
        self.dirty = True
        self.answers = 0                # answers taken so far (``App``: the session made ahead)
        self._asked = None              # the questions' keys for the current answers, made once
        self.shown = None               # the current question (key, label, choices), made once
        self._enter()

    # ----- the questions --------------------------------------------------------------

    def keys(self):
        """Every question's key, for the current answers (made again only
        after an answer they depend on was taken: the game, the players, the
        language).  A question's label and choices are made when it is shown
        (``current``): all of them made at once held the Pico's game step
        some 10 ms at those answers."""
        if self._asked is None:
            self._asked = self._ask()
        return self._asked

    def _ask(self):
        v = self.settings
        choices = dict(COMMON_CHOICES)
        choices.update(_table(v.variant)["choices"])
        out = ["variant", "players"]
        for key in sorted(choices):
            out.append("option:" + key)
        for seat in range(v.players):
            out.append("seat:%d" % seat)
        out.extend(("first_dealer", "mode", "language", "start"))
        return out

    def question(self, key) -> tuple:
        """(key, label, choices) of the question ``key``, for the current answers."""
        v = self.settings
        lang = v.language
        if key == "variant":
            return key, text(key, lang), variant_ids()
        if key == "players":
            return key, text(key, lang), list(_table(v.variant)["players"])
        if key.startswith("option:"):
            name = key[7:]
            table = _table(v.variant)["choices"]
            return key, _said("o_" + name, name, lang), list(
                table[name] if name in table else COMMON_CHOICES[name])
        if key.startswith("seat:"):
            return key, text("seat", lang) % (int(key[5:]) + 1), list(SEAT_PRESETS)
        if key == "first_dealer":
            return key, text(key, lang), list(range(v.players))
        if key == "mode":
            return key, text(key, lang), ["strict", "open"]
        return key, text(key, lang), ["de", "en"] if key == "language" else ["start"]

    def current(self):
        """The question shown: (key, label, choices)."""
        key = self.keys()[self.step]
        shown = self.shown
        if shown is None or shown[0] != key:
            shown = self.shown = self.question(key)
        return shown

    def at_start(self):
        """The last screen: OK starts the session."""
        return self.keys()[self.step] == "start"

    def _answer(self, key):
        v = self.settings
        if key.startswith("option:"):
            name = key[7:]
            if name in v.options:
                return v.options[name]
            base, preset = base_variant(v.variant)
            return preset.get(name, VARIANTS[base]["options"].get(name, "forfeit"))
        if key.startswith("seat:"):
            return v.seat_name(int(key[5:]))
        return "start" if key == "start" else v.get(key)

    def _enter(self):
        key, _label, choices = self.current()
        ans = self._answer(key)
        self.pos = choices.index(ans) if ans in choices else 0
        self.dirty = True

    def _take(self):
        key, _label, choices = self.current()
        ans = choices[self.pos]
        v = self.settings
        self.answers += 1
        self.shown = None              # its label and choices may depend on this answer
        if key in ("variant", "players", "language"):
            self._asked = None           # the questions depend on these answers
        if key == "variant":
            v.choose_variant(ans)
        elif key.startswith("option:"):
            v.set_option(key[7:], ans)
        elif key.startswith("seat:"):
            v.set_seat_name(int(key[5:]), ans)
        elif key != "start":
            v.set(key, ans)                 # players, first dealer, mode, language

    def button(self, key, long_press):
        """key: 0 prev, 1 next, 2 OK."""
        self.dirty = True
        _k, _label, choices = self.current()
        if long_press:
            if key == 0 and self.step > 0:
                self.step -= 1
                self._enter()
            return
        if key == 0:
            self.pos = (self.pos - 1) % len(choices)
        elif key == 1:
            self.pos = (self.pos + 1) % len(choices)
        else:
            self._take()
            if self.keys()[self.step] == "start":
                self.done = True
                return
            self.step += 1
            self._enter()

    # ----- results ------------------------------------------------------------------------

    def rows(self):
        """The screen: the question, the answer to choose (prev/next), the step."""
        key, label, choices = self.current()
        lang = self.settings.language
        ans = choices[self.pos]
        if key == "variant":
            shown = variant_name(ans, lang)
        elif key == "first_dealer":
            shown = self.settings.seat_name(ans)
        elif key in ("mode", "start"):
            shown = text(ans, lang)
        else:
            shown = _answer_text(ans, lang)
        total = len(self.keys())
        return [(text("setup", lang) + " %d/%d" % (self.step + 1, total), True),
                ("", False), (label, False), ("", False),
                ("<" + short_name(shown, 14) + ">", True), ("", False),
                (variant_name(self.settings.variant, lang), False), ("", False)]


def _said(key, fallback, lang):
    """The text ``key`` if the table has one, else ``fallback``."""
    j = number("", key, lang)
    return text_of(j) if j >= 0 else fallback


def _answer_text(ans, lang):
    """An answer in words: yes/no, a house rule's value (table/texts.py
    ``v_...``), cards ("♥7,♦7"), a number or a name as it is."""
    if isinstance(ans, bool):
        return text("yes" if ans else "no", lang)
    if isinstance(ans, str) and "," in ans and all(c in CODE_INDEX for c in ans.split(",")):
        return ",".join(card_text(CODE_INDEX[c]) for c in ans.split(","))
    return _said("v_" + ans, ans, lang) if isinstance(ans, str) else str(ans)
