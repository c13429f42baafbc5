"""The last session settings, remembered on flash in ``<root>/settings.json``.

``root`` is the file-system root: ``"/"`` on the device, a temporary folder in
the tests.  Nothing here touches hardware.

    s = Settings("/")
    problems = s.load()     # missing file -> defaults; corrupt file -> defaults + a problem
    s.set("players", 4)     # -> True, or False for a bad value (nothing changes)
    s.update({"variant": "haferltarock", "players": 4})   # the console's ``set``: None, or
                            # (code, message) and nothing changes
    s.choose_variant("berliner")    # the setup menu: also s.set_option, s.set_seat_name
    s.save()                # -> True, or False when the flash refused (nothing changes)
    s.header()              # the record header (docs/record-format.md) these settings start

``Settings`` is the one owner of the settings: the setup menu, the console's
``set`` and the host tools change them only through its methods, and every
session's header comes from ``header()``.  ``Settings(root, remember=False)``
(the virtual tables) or ``Settings(None)`` keeps them in RAM only: ``save()``
then writes nothing and answers None.

A bad value on load takes its default and is reported in ``problems`` (a list
of short English lines for the console); loading never raises.

The file is written with ``files.write_atomic`` (a power cut leaves the old
or the new file, never a mix).
"""
import json

from .files import join, read_limited, write_atomic

try:
    from micropython import const
except ImportError:  # CPython
    const = lambda x: x  # noqa: E731

FILE = "settings.json"
_MAX_BYTES = const(4096)          # a settings file is a few hundred bytes
MAX_NAME = 12             # seat-name characters kept (the screen shows 8)
_MAX_SEATS = const(6)
PIN_DIGITS = (4, 8)       # a referee PIN: 4 to 8 digits, or None

# Preset seat names for the setup menu.
SEAT_NAMES = (
    "Anna", "Bert", "Cora", "Dieter", "Eva", "Franz",
    "Gabi", "Hans", "Inge", "Jürgen", "Karl", "Lena",
    "Platz 1", "Platz 2", "Platz 3", "Platz 4", "Platz 5", "Platz 6",
)

MODES = ("strict", "open")
LANGUAGES = ("de", "en")

# (key, default) in file order; a list default is copied per Settings object.
FIELDS = (
    ("variant", "tapp_modern"),
    ("options", None),        # {} (a fresh dict each time)
    ("players", 3),
    ("seat_names", None),     # ["Platz 1", ..., "Platz 6"] (a fresh list)
    ("first_dealer", 0),
    ("mode", "strict"),
    ("language", "de"),
    ("deck", 1),
    ("referee_pin", None),
)
KEYS = tuple(k for k, _ in FIELDS)
# What the console's ``set`` may change: all but the deck in play (enrolment's).
SETTABLE = tuple(k for k in KEYS if k != "deck")


def default(key):
    """A fresh default value of ``key``."""
    if key == "options":
        return {}
    if key == "seat_names":
        return ["Platz %d" % (i + 1) for i in range(_MAX_SEATS)]
    for k, v in FIELDS:
        if k == key:
            return v
    raise KeyError(key)


# ------------------------------------------------------------ validation


def _is_int(v):
    return isinstance(v, int) and not isinstance(v, bool)


def _ok_name(v):
    return isinstance(v, str) and 0 < len(v) <= MAX_NAME and v.strip() == v


def _ok_option_value(v):
    if isinstance(v, bool) or isinstance(v, str):
        return True
    return _is_int(v) and -(1 << 29) <= v < (1 << 29)


def _check(key, v):
    """True if ``v`` is a valid value of ``key`` on its own (first_dealer is
    checked against players separately)."""
    if key == "variant":
        return isinstance(v, str) and 0 < len(v) <= 32
    if key == "options":
        if not isinstance(v, dict):
            return False
        for k in v:
            if not isinstance(k, str) or not _ok_option_value(v[k]):
                return False
        return True
    if key == "players":
        return _is_int(v) and 2 <= v <= _MAX_SEATS
    if key == "seat_names":
        if not isinstance(v, list) or not 0 < len(v) <= _MAX_SEATS:
            return False
        for name in v:
            if not _ok_name(name):
                return False
        return True
    if key == "first_dealer":
        return _is_int(v) and 0 <= v < _MAX_SEATS
    if key == "mode":
        return v in MODES
    if key == "language":
        return v in LANGUAGES
    if key == "deck":
        return _is_int(v) and 1 <= v <= 99
    if key == "referee_pin":
        if v is None:
            return True
        if not isinstance(v, str) or not PIN_DIGITS[0] <= len(v) <= PIN_DIGITS[1]:
            return False
        for c in v:
            if c not in "0123456789":
                return False
        return True
    return False


def _shown(v):
    """A short printable form of a bad value for a problem line."""
    try:
        s = json.dumps(v)
    except Exception:
        s = "?"
    return s if len(s) <= 40 else s[:37] + "..."


def _copy(v):
    if isinstance(v, dict):
        return dict(v)
    if isinstance(v, list):
        return list(v)
    return v


class Settings:
    """The remembered settings; each field is an attribute of the same name
    (read them freely; change them only through the methods)."""

    def __init__(self, root, remember=True):
        self.root = root
        self.path = join(root, FILE) if root is not None else None
        self.remember = remember and root is not None   # save() writes the file
        self.problems = []
        self.reset()

    def reset(self):
        """All fields to their defaults (the file is not touched)."""
        # (spelled out, as in FIELDS, so each attribute has one type)
        self.variant = "tapp_modern"
        self.options = {}
        self.players = 3
        self.seat_names = ["Platz %d" % (i + 1) for i in range(_MAX_SEATS)]
        self.first_dealer = 0
        self.mode = "strict"
        self.language = "de"
        self.deck = 1
        self.referee_pin = None

    def as_dict(self):
        """The settings as a JSON-ready dict (copies)."""
        out = {}
        for key in KEYS:
            out[key] = _copy(getattr(self, key))
        return out

    def get(self, key):
        return getattr(self, key) if key in KEYS else None

    def shown(self):
        """What the console shows of the settings: all it may set but the referee PIN."""
        return {k: _copy(getattr(self, k)) for k in SETTABLE if k != "referee_pin"}

    def copy_from(self, other):
        """Take every field of ``other`` (a Settings: its values are valid)."""
        for key in KEYS:
            setattr(self, key, _copy(getattr(other, key)))

    def set(self, key, value):
        """Set one field; False (and nothing changes) for an unknown key or a bad value.
        A referee PIN may come as a number (``set referee_pin=4711``)."""
        if key == "referee_pin" and _is_int(value) and 0 <= value < 10 ** PIN_DIGITS[1]:
            return self.set(key, str(value))
        if key not in KEYS or not _check(key, value):
            return False
        if key == "first_dealer" and value >= self.players:
            return False
        setattr(self, key, _copy(value))
        if key == "players" and self.first_dealer >= value:
            self.first_dealer = 0
        return True

    def update(self, changes):
        """Several settings at once (the console's ``set``), all or none: None,
        or (error code, message) and nothing changes.  The variant must be
        played by that many players and the options must make a session."""
        from tapp.catalog import players_of, variant_ids
        from tapp.jsonout import dumps

        from .messages import message as said
        for key in changes:
            if key not in SETTABLE:
                return "bad_args", said("a_unknown_setting") % dumps(str(key)[:32])
        new = Settings(None)
        new.copy_from(self)
        for key in SETTABLE:
            if key not in changes:
                continue
            v = changes[key]
            if key == "variant" and (not isinstance(v, str) or v not in variant_ids()):
                return "bad_args", said("a_variant") % ", ".join(variant_ids())
            if not new.set(key, v):
                return "bad_args", said("a_bad_value") % key
        if new.players not in players_of(new.variant):
            return "bad_args", said("a_not_played_by") % (new.variant, new.players)
        problem = new.session_problem()
        if problem is not None:
            return "bad_args", problem
        self.copy_from(new)
        return None

    def override(self, values):
        """``update`` for a host powering a virtual table up with ``values``
        over the loaded settings: ValueError for what ``set`` would refuse."""
        problem = self.update(values)
        if problem is not None:
            raise ValueError("%s: %s" % problem)

    def session_problem(self):
        """Why these settings cannot start a session (the engine's word), or None."""
        from tapp.rules import rules_for
        from tapp.variants import HeaderError
        try:
            rules_for(self.header())
        except HeaderError as exc:
            return str(exc)[:120]
        return None

    # ----- the setup menu's answers -------------------------------------------------

    def choose_variant(self, vid):
        """A new game: its options start from the preset's (none set), and the
        players from the first count it is played by if it is not played by as
        many as now.  False (nothing changes) for an unknown id."""
        from tapp.catalog import players_of
        allowed = players_of(vid)
        if not allowed:
            return False
        if vid != self.variant:
            self.variant = vid
            self.options = {}
            if self.players not in allowed:
                self.set("players", allowed[0])
        return True

    def set_option(self, name, value):
        """One house-rule option (a name of the variant table's ``choices``)."""
        if not isinstance(name, str) or not _ok_option_value(value):
            return False
        self.options[name] = value
        return True

    def set_seat_name(self, seat, name):
        """The name of one seat; the seats before it keep theirs (a missing one
        gets its default)."""
        if not _is_int(seat) or not 0 <= seat < _MAX_SEATS or not _ok_name(name):
            return False
        while len(self.seat_names) <= seat:
            self.seat_names.append(self.seat_name(len(self.seat_names)))
        self.seat_names[seat] = name
        return True

    def load(self):
        """Read the file: missing -> defaults; unreadable or corrupt ->
        defaults and one problem; each bad field -> its default and a problem.
        Returns (and keeps in ``self.problems``) the list of problem lines."""
        self.reset()
        problems = []
        self.problems = problems
        if self.path is None:
            return problems  # kept in RAM only
        try:
            text = read_limited(self.path, _MAX_BYTES)
        except OSError:
            return problems  # no file yet: the defaults, nothing to report
        data = None
        if text is not None:
            try:
                data = json.loads(text)
            except Exception:  # ValueError (CPython, MicroPython), others on odd input
                data = None
        if not isinstance(data, dict):
            problems.append("%s: corrupt, using the defaults" % FILE)
            return problems
        for key in data:
            if key not in KEYS:
                problems.append("%s: unknown setting %s ignored" % (FILE, _shown(key)))
        for key in KEYS:
            if key not in data:
                continue
            v = data[key]
            if _check(key, v):
                setattr(self, key, _copy(v))
            else:
                problems.append("%s: bad %s %s, using %s"
                                % (FILE, key, _shown(v), _shown(default(key))))
        if self.first_dealer >= self.players:
            problems.append("%s: first_dealer %d is no seat of %d players, using 0"
                            % (FILE, self.first_dealer, self.players))
            self.first_dealer = 0
        return problems

    def save(self):
        """Write the file atomically; True on success, False if the flash refused
        (then the old file is still there), None when they are kept in RAM only."""
        if not self.remember:
            return None
        try:
            write_atomic(self.path, json.dumps(self.as_dict()) + "\n")
        except OSError:
            return False
        return True

    def seat_name(self, seat):
        """Seat ``seat``'s name: the stored one, else "Platz n"."""
        if seat < len(self.seat_names):
            return self.seat_names[seat]
        return "Platz %d" % (seat + 1)

    def seats(self):
        """The names of the seats in play: ``players`` of ``seat_name``."""
        return [self.seat_name(i) for i in range(self.players)]

    def header(self):
        """The record header (docs/record-format.md line 1) for a session with these settings."""
        return {
            "record": 1,
            "variant": self.variant,
            "players": self.players,
            "seats": self.seats(),
            "options": dict(self.options),
            "first_dealer": self.first_dealer,
            "mode": self.mode,
        }
