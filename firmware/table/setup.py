"""Session setup with the three buttons: one question per screen.

prev/next change the answer, OK takes it and goes on, a long prev goes back.
The questions: game (variant), number of players, each house-rule option that
has a list of choices (the variant table's ``choices``), each seat's name from
a preset list, the first dealer, strict or open mode, the language, then start.
The answers start from the last settings (remembered on flash by the app).
"""
from tapp.cards import CODE_INDEX
from tapp.catalog import PRESETS, VARIANTS, variant_ids
from tapp.variants import COMMON_CHOICES

from .names import VARIANTS as VARIANT_NAMES
from .names import card_text, short_name
from .settings import SEAT_NAMES
from .texts import KEYS, index, text

SEAT_PRESETS = SEAT_NAMES


def _table(variant):
    base = PRESETS[variant][0] if variant in PRESETS else variant
    return VARIANTS[base]


class Setup:
    """The setup questions as a small state machine; ``done`` once started."""

    def __init__(self, values):
        # values: the settings (table/settings.py keys): variant, players, options,
        # seat_names, first_dealer, mode, language
        self.values = values
        self.step = 0
        self.pos = 0
        self.done = False
        self.dirty = True
        self._enter()

    # ----- the questions --------------------------------------------------------------

    def questions(self):
        """(key, label, choices) of every question, for the current answers."""
        v = self.values
        table = _table(v["variant"])
        out = [("variant", text("variant", v["language"]), variant_ids()),
               ("players", text("players", v["language"]), list(table["players"]))]
        choices = dict(COMMON_CHOICES)
        choices.update(table["choices"])
        for key in sorted(choices):
            out.append(("option:" + key, _said("o_" + key, key, v["language"]),
                        list(choices[key])))
        for seat in range(v["players"]):
            out.append(("seat:%d" % seat, text("seat", v["language"]) % (seat + 1),
                        list(SEAT_PRESETS)))
        out.append(("first_dealer", text("first_dealer", v["language"]),
                    list(range(v["players"]))))
        out.append(("mode", text("mode", v["language"]), ["strict", "open"]))
        out.append(("language", text("language", v["language"]), ["de", "en"]))
        out.append(("start", text("start", v["language"]), ["start"]))
        return out

    def current(self):
        return self.questions()[self.step]

    def _answer(self, key):
        v = self.values
        if key.startswith("option:"):
            name = key[7:]
            if name in v["options"]:
                return v["options"][name]
            table = _table(v["variant"])
            preset = PRESETS[v["variant"]][1] if v["variant"] in PRESETS else {}
            return preset.get(name, table["options"].get(name, "forfeit"))
        if key.startswith("seat:"):
            seat = int(key[5:])
            return v["seat_names"][seat] if seat < len(v["seat_names"]) else SEAT_PRESETS[seat]
        return v.get(key, "start")

    def _enter(self):
        key, _label, choices = self.current()
        ans = self._answer(key)
        self.pos = choices.index(ans) if ans in choices else 0
        self.dirty = True

    def _take(self):
        key, _label, choices = self.current()
        ans = choices[self.pos]
        v = self.values
        if key == "variant" and ans != v["variant"]:
            v["variant"] = ans
            v["options"] = {}
            players = _table(ans)["players"]
            if v["players"] not in players:
                v["players"] = players[0]
        elif key.startswith("option:"):
            v["options"][key[7:]] = ans
        elif key.startswith("seat:"):
            seat = int(key[5:])
            while len(v["seat_names"]) <= seat:
                v["seat_names"].append(SEAT_PRESETS[len(v["seat_names"])])
            v["seat_names"][seat] = ans
        elif key == "players":
            v["players"] = ans
            v["seat_names"] = (v["seat_names"] + list(SEAT_PRESETS))[:ans]
            if v["first_dealer"] >= ans:
                v["first_dealer"] = 0
        elif key != "start":
            v[key] = ans

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
            if self.current()[0] == "start":
                self.done = True
                return
            self.step += 1
            self._enter()

    # ----- results ------------------------------------------------------------------------

    def header(self):
        """The docs/record-format.md header of the session these answers describe."""
        v = self.values
        seats = (list(v["seat_names"]) + list(SEAT_PRESETS))[:v["players"]]
        return {"record": 1, "variant": v["variant"], "players": v["players"],
                "seats": seats, "options": dict(v["options"]),
                "first_dealer": v["first_dealer"], "mode": v["mode"]}

    def rows(self):
        """The screen: the question, the answer to choose (prev/next), the step."""
        key, label, choices = self.current()
        lang = self.values["language"]
        ans = choices[self.pos]
        if key == "variant":
            shown = VARIANT_NAMES.get(ans, ans)
        elif key == "first_dealer":
            shown = (list(self.values["seat_names"]) + list(SEAT_PRESETS))[ans]
        elif key in ("mode", "start"):
            shown = text(ans, lang)
        else:
            shown = _answer_text(ans, lang)
        total = len(self.questions())
        return [(text("setup", lang) + " %d/%d" % (self.step + 1, total), True),
                ("", False), (label, False), ("", False),
                ("<" + short_name(shown, 14) + ">", True), ("", False),
                (VARIANT_NAMES.get(self.values["variant"], ""), False), ("", False)]


def _said(key, fallback, lang):
    """The text ``key`` if the table has one, else ``fallback``."""
    return text(key, lang) if index(KEYS, key) >= 0 else fallback


def _answer_text(ans, lang):
    """An answer in words: yes/no, a house rule's value (table/texts.py
    ``v_...``), cards ("♥7,♦7"), a number or a name as it is."""
    if isinstance(ans, bool):
        return text("yes" if ans else "no", lang)
    if isinstance(ans, str) and "," in ans and all(c in CODE_INDEX for c in ans.split(",")):
        return ",".join(card_text(CODE_INDEX[c]) for c in ans.split(","))
    return _said("v_" + ans, ans, lang) if isinstance(ans, str) else str(ans)
