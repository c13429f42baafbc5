"""A guard that holds the table to its doors at run time (tests/test_table_seam.py).

Installed on the classes of table/app.py (``App``) and table/game.py (``Game``),
it watches what a whole session does, however the code outside reaches in (an
alias, ``getattr``, a path string over a bridge):

* an App's or a Game's attribute set while no door of the App is running
  (``__setattr__``) is a breach at once;
* the state behind the App (every object of firmware/ it holds, to the
  engine's session and the journal's lines, contents included) is
  fingerprinted when a door returns and again when the next one is entered:
  a difference is a change made outside the doors (a list filled in place, a
  reader polled, a line appended by hand);
* a question of the view (``app.view``, table/table_view.py) changes nothing:
  the fingerprint before and after it is the same.

The doors are the App's public methods (its inputs and jobs: what
docs/design.md "The application's shape" names); everything else is private.
"""
import types

FIRMWARE_PACKAGES = ("table", "tapp", "drivers")
ATOMS = (int, float, str, bytes, bool, type(None))
# Views keep nothing of the table's (what they cache for a reader is theirs):
# the table's own (table/table_view.py) and the engine's (tapp/view.py).
VIEWS = {("table.table_view", "TableView"), ("tapp.view", "View")}


class SeamBreach(AssertionError):
    """The table's state changed past its doors."""


def _firmware(obj):
    cls = type(obj)
    return cls.__module__.split(".")[0] in FIRMWARE_PACKAGES \
        and (cls.__module__, cls.__name__) not in VIEWS


def fingerprint(root):
    """The state reachable from ``root`` through firmware objects and plain
    containers, as nested tuples (objects of the hosts, functions and files
    count by identity: the host drives its own models)."""
    seen = {}

    def walk(obj):
        if isinstance(obj, ATOMS):
            return obj
        key = id(obj)
        if key in seen:
            return ("@", seen[key])
        seen[key] = len(seen)
        if isinstance(obj, (bytearray, memoryview)):
            return bytes(obj)
        if isinstance(obj, (list, tuple)):
            return tuple(walk(x) for x in obj)
        if isinstance(obj, dict):
            return tuple((walk(k), walk(v)) for k, v in obj.items())
        if isinstance(obj, (set, frozenset)):
            return tuple(sorted(repr(x) for x in obj))
        if isinstance(obj, (types.FunctionType, types.MethodType, type)) or not _firmware(obj):
            return (type(obj).__name__, key)
        fields = getattr(obj, "__dict__", None)
        if fields is None:
            return (type(obj).__name__, key)
        return (type(obj).__name__,) + tuple((name, walk(v)) for name, v in fields.items())
    return walk(root)


class Guard:
    """Held on ``App`` and ``Game`` while installed (``install``/``remove``)."""

    def __init__(self, app_class, game_class, view_class):
        self.classes = (app_class, game_class, view_class)
        self.depth = 0               # doors of the App running (nested calls count)
        self.apps = []               # every App made while installed
        self.after = {}              # id(app) -> its fingerprint when its last door returned
        self.doors = 0               # door calls seen
        self.saved = []

    # ----- what the guard wraps ---------------------------------------------------------

    def install(self):
        app_class, game_class, view_class = self.classes
        self._wrap(app_class, "__init__", self._door)
        for name in _public_methods(app_class):
            self._wrap(app_class, name, self._door)
        for name in _public_methods(view_class):
            self._wrap(view_class, name, self._question)
        for cls in (app_class, game_class):
            self._wrap_setattr(cls)
        return self

    def remove(self):
        for cls, name, old in reversed(self.saved):
            if old is None:
                delattr(cls, name)
            else:
                setattr(cls, name, old)
        self.saved = []

    def _wrap(self, cls, name, how):
        old = cls.__dict__.get(name)
        self.saved.append((cls, name, old))
        setattr(cls, name, how(getattr(cls, name), name))

    def _wrap_setattr(self, cls):
        guard = self
        self.saved.append((cls, "__setattr__", cls.__dict__.get("__setattr__")))

        def __setattr__(obj, name, value):
            if guard.depth == 0:
                raise SeamBreach("%s.%s set outside the App's doors" % (
                    type(obj).__name__, name))
            object.__setattr__(obj, name, value)
        cls.__setattr__ = __setattr__

    def _door(self, method, name):
        guard = self

        def door(app, *args, **kw):
            if guard.depth == 0:
                guard._entering(app, name)
            guard.depth += 1
            try:
                return method(app, *args, **kw)
            finally:
                guard.depth -= 1
                if guard.depth == 0:
                    guard._left(app)
        door.__name__ = name
        return door

    def _question(self, method, name):
        guard = self

        def question(view, *args, **kw):
            if guard.depth:                 # asked by the table itself (its screens)
                return method(view, *args, **kw)
            app = view._app                 # noqa: SLF001 -- the guard watches the view's App
            before = fingerprint(app)
            out = method(view, *args, **kw)
            if fingerprint(app) != before:
                raise SeamBreach("the view's %s() changed the table" % name)
            return out
        question.__name__ = name
        return question

    # ----- the fingerprints ---------------------------------------------------------------

    def _entering(self, app, name):
        self.doors += 1
        before = self.after.get(id(app))
        if before is not None and fingerprint(app) != before:
            raise SeamBreach("the table changed outside its doors before %s()" % name)

    def _left(self, app):
        if id(app) not in self.after:
            self.apps.append(app)
        self.after[id(app)] = fingerprint(app)

    def check(self):
        """Every App's state is still as its last door left it."""
        for app in self.apps:
            if fingerprint(app) != self.after[id(app)]:
                raise SeamBreach("the table changed outside its doors")


def _public_methods(cls):
    return [name for name in dir(cls) if not name.startswith("_")
            and callable(getattr(cls, name)) and not isinstance(getattr(cls, name), type)]
