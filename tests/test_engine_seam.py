"""One door, one view (docs/design.md "The application's shape"): outside the
engine, product code changes the game only through ``Session.apply``/``Session.play``
and reads it only through ``session.view``.

Checked on the source: no module outside ``firmware/tapp`` imports the engine's
internal modules (Deal and its parts), reads a session's deal, or reads its
resolved rules (``.rules``: the view answers what the table needs of them --
deck, hand and talon size, seats, mode, dealing order).  The tests are held to
the view as well, except the tests of the engine itself (``ENGINE_TESTS``),
which check the rules against the engine from inside.  One layer up, the
table's settings change only through their owner's methods (``Settings`` in
table/settings.py), and outside firmware/table the table is read through its
own view, ``app.view`` (table/table_view.py): no ``.game`` is read but for its
doors (``placed``, ``lifted``, ``button``, ``input``) and the engine's
``view``, and an App is used only through its doors (``APP_DOORS``: the jobs,
the inputs, the view, the parts with doors of their own) everywhere but in
the table's core (app.py, table_view.py, modes.py) -- but for a few tests
that reach past them on purpose, each named with its reason
(``GAME_BACK_DOORS``, ``APP_BACK_DOORS``).  Private names of other objects are
ruff's SLF001 (pyproject.toml).
"""
import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PRODUCT = [p for d in ("firmware", "tools", "host_sim") for p in (ROOT / d).rglob("*.py")
           if "tapp" not in p.relative_to(ROOT).parts[:2]]
INTERNAL = {"deal", "tricks", "revokes", "phases", "auction", "settle", "announce"}
DEAL_FIELDS = {"deal", "_deal"}
RULES_FIELDS = {"rules", "_rules"}
# Tests of the engine itself: they build Rules, deal with them and compare the
# engine's answers with the rules tables, so they may read ``session.rules``.
ENGINE_TESTS = {"tests/test_engine_properties.py", "tests/mp/mptest_door.py",
                "tests/mp/mptest_heap.py", "tests/mp/mptest_rules_cache.py",
                "tests/mp/rules_driver.py", "tests/mp/test_rules_examples_tarock_herzblatt.py"}
TESTS = [p for p in (ROOT / "tests").rglob("*.py")
         if p.relative_to(ROOT).as_posix() not in ENGINE_TESTS]


def _assert_none(paths, check, skip=()):
    """No line of ``paths`` (but the files named in ``skip``) is found by
    ``check(path)``; the failure lists every one as path:line: what."""
    found = ["%s:%d: %s" % (p.relative_to(ROOT), line, what) for p in paths
             if p.relative_to(ROOT).as_posix() not in skip for line, what in check(p)]
    assert not found, "\n".join(found)


def _rules_reads(path):
    """Lines of ``path`` that read an object's ``.rules`` (a method named rules() is fine)."""
    tree = ast.parse(path.read_text(), str(path))
    called = {id(n.func) for n in ast.walk(tree) if isinstance(n, ast.Call)}
    for node in ast.walk(tree):
        if isinstance(node, ast.Attribute) and node.attr in RULES_FIELDS \
                and id(node) not in called:
            yield node.lineno, "reads .%s" % node.attr


def _violations(path):
    tree = ast.parse(path.read_text(), str(path))
    called = {id(n.func) for n in ast.walk(tree) if isinstance(n, ast.Call)}
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.module:
            parts = node.module.split(".")
            if parts[0] == "tapp" and (set(parts[1:]) & INTERNAL):
                yield node.lineno, "imports tapp.%s" % ".".join(parts[1:])
            if parts == ["tapp"]:
                for alias in node.names:
                    if alias.name in INTERNAL:
                        yield node.lineno, "imports tapp.%s" % alias.name
        elif isinstance(node, ast.Import):
            for alias in node.names:
                parts = alias.name.split(".")
                if parts[0] == "tapp" and set(parts[1:]) & INTERNAL:
                    yield node.lineno, "imports %s" % alias.name
        elif isinstance(node, ast.Attribute) and node.attr in DEAL_FIELDS \
                and id(node) not in called \
                and not (isinstance(node.value, ast.Name) and node.value.id == "self"):
            # a session's deal read from outside (a method named deal() is fine)
            yield node.lineno, "reads .%s" % node.attr
    yield from _rules_reads(path)


def test_product_code_uses_only_the_door_and_the_view():
    assert len(PRODUCT) > 10, PRODUCT          # the scan sees the tree
    _assert_none(PRODUCT, _violations)


def test_the_check_catches_a_back_door(tmp_path):
    bad = tmp_path / "bad.py"
    bad.write_text("from tapp import deal as D\nx = session.deal.hands\n"
                   "import tapp.tricks\nhub.deal(1)\n")
    assert sorted(w for _, w in _violations(bad)) == [
        "imports tapp.deal", "imports tapp.tricks", "reads .deal"]


def test_tests_read_the_rules_only_through_the_view():
    """Outside the engine's own tests, a test sees the variant as the table does."""
    assert all((ROOT / name).is_file() for name in ENGINE_TESTS), ENGINE_TESTS
    assert len(TESTS) > 20, TESTS
    _assert_none(TESTS, _rules_reads)


def test_the_check_catches_a_rules_read(tmp_path):
    bad = tmp_path / "bad.py"
    bad.write_text("n = game.rules.hand_size\nself.rules = s.rules\nx = v.rules()\n"
                   "from tapp.rules import Rules\n")
    assert sorted(_violations(bad)) == [
        (1, "reads .rules"), (2, "reads .rules"), (2, "reads .rules")]


SETTINGS_FIELDS = {"variant", "options", "players", "seat_names", "first_dealer", "mode",
                   "language", "deck", "referee_pin"}


def _settings_writes(path):
    """Lines of ``path`` that change a field of a Settings (``settings.players = 4``,
    ``x.settings.options[k] = v``) instead of calling its methods."""
    tree = ast.parse(path.read_text(), str(path))
    for node in ast.walk(tree):
        targets = node.targets if isinstance(node, ast.Assign) else \
            [node.target] if isinstance(node, (ast.AugAssign, ast.AnnAssign)) else []
        for t in targets:
            while isinstance(t, ast.Subscript):
                t = t.value
            if isinstance(t, ast.Attribute) and t.attr in SETTINGS_FIELDS:
                owner = t.value
                name = owner.attr if isinstance(owner, ast.Attribute) else \
                    owner.id if isinstance(owner, ast.Name) else ""
                if name in ("settings", "s") or name.endswith("_settings"):
                    yield node.lineno, "writes settings.%s" % t.attr


def test_the_settings_change_only_through_their_owner():
    """table/settings.py ``Settings`` is the one owner: the setup menu, the
    console's ``set`` and the hosts call its methods (validated there)."""
    from table.settings import KEYS
    assert SETTINGS_FIELDS == set(KEYS)
    owner = ROOT / "firmware" / "table" / "settings.py"
    _assert_none(PRODUCT, _settings_writes, {owner.relative_to(ROOT).as_posix()})


def test_the_check_catches_a_settings_write(tmp_path):
    bad = tmp_path / "bad.py"
    bad.write_text("app.settings.players = 4\nself.settings.options['x'] = 1\n"
                   "settings.seat_names[0] = 'A'\nsettings.set('mode', 'open')\n"
                   "self.players = 3\n")
    assert sorted(_settings_writes(bad)) == [
        (1, "writes settings.players"), (2, "writes settings.options"),
        (3, "writes settings.seat_names")]


# ----------------------------------------------------------------- the table's view

GAME_DOORS = {"placed", "lifted", "button", "input", "view"}
OUTSIDE_TABLE = [p for d in ("firmware", "tools", "host_sim", "tests")
                 for p in (ROOT / d).rglob("*.py")
                 if p.relative_to(ROOT).parts[:2] not in (("firmware", "table"),
                                                          ("firmware", "tapp"))]
# A test that reaches past the doors on purpose: the monkey's invariant check
# must catch a play the journal got without a card on the reader.  (Each must
# still read one: a file that no longer does leaves the list.)
GAME_BACK_DOORS = {"tests/test_table_monkey.py"}


def _game_reads(path):
    """Lines of ``path`` that read a Game past its doors: ``x.game`` not followed
    by a door or ``.view``, or ``game.<field>``."""
    tree = ast.parse(path.read_text(), str(path))
    door = {id(n.value) for n in ast.walk(tree)
            if isinstance(n, ast.Attribute) and n.attr in GAME_DOORS}
    for node in ast.walk(tree):
        if not isinstance(node, ast.Attribute) or id(node) in door \
                or not isinstance(node.ctx, ast.Load):
            continue
        if node.attr == "game":
            yield node.lineno, "reads .game"
        elif isinstance(node.value, ast.Name) and node.value.id == "game":
            yield node.lineno, "reads game.%s" % node.attr


def test_outside_the_table_its_game_is_read_through_app_view():
    assert len(OUTSIDE_TABLE) > 50, OUTSIDE_TABLE
    assert all((ROOT / name).is_file() for name in GAME_BACK_DOORS), GAME_BACK_DOORS
    _assert_none(OUTSIDE_TABLE, _game_reads, GAME_BACK_DOORS)
    moved = [name for name in sorted(GAME_BACK_DOORS) if not list(_game_reads(ROOT / name))]
    assert not moved, "no longer reads Game's fields, take it off the list: %s" % moved


def test_the_check_catches_a_game_read(tmp_path):
    bad = tmp_path / "bad.py"
    bad.write_text("a = t.game.step\nb = t.app.game.menu[0]\ng = t.game\nn = game.clearing\n"
                   "t.game.placed(1, 2)\nv = t.game.view.turn()\nt.app.view.mode()\n"
                   "self.game = None\n")
    assert sorted(_game_reads(bad)) == [
        (1, "reads .game"), (2, "reads .game"), (3, "reads .game"), (4, "reads game.clearing")]


# ----------------------------------------------------------------- the App's doors

# What code may use of an App (table/app.py) outside the table's core -- app.py,
# its view (table_view.py) and its modes (modes.py): the jobs, the inputs, the
# view, the console's hook and the stop for the REPL, and the parts it holds
# that have their own doors (the settings' one owner, the deck registry, the
# board's hardware).  Everything else it keeps is read through ``app.view``.
APP_DOORS = {"view", "input", "inject", "inputs_pending", "redraw", "set_console", "stop",
             "run", "poll_readers", "poll_buttons", "run_game", "refresh", "run_signals",
             "poll_console", "prepare_flash", "settings", "registry", "journals", "board"}
TABLE_CORE = {"firmware/table/app.py", "firmware/table/table_view.py",
              "firmware/table/modes.py"}
# The rule has no exception in product code, on the device or the hosts.  Tests
# that reach past an App's doors on purpose, each with why (each must still
# do so: a file that no longer does leaves the list):
APP_BACK_DOORS = {
    "tests/test_table_monkey.py": "writes the journal and plays behind the table's back, "
                                  "for the monkey's invariant checks to catch",
    "tests/test_texts_fit.py": "wraps app.screens' drawing and composes every page "
                               "with other views, to measure each row drawn",
    "tests/mp/mptest_app_heap.py": "measures app.screens' redraw and row drawing "
                                   "alone under heap_lock",
}
# Files whose ``app`` is another framework's application (Textual, aiohttp).
OTHER_APPS = {"tools/tapptable/sim_tui.py", "tools/screenshots.py", "tests/test_sim_tui.py",
              "tools/tapptable/sim_web/server.py"}
EVERYWHERE = [p for d in ("firmware", "tools", "host_sim", "tests")
              for p in (ROOT / d).rglob("*.py")
              if p.relative_to(ROOT).as_posix() not in TABLE_CORE | OTHER_APPS]


def _app_reads(path):
    """Lines of ``path`` that use an App past its doors: ``app.<x>`` or
    ``<y>.app.<x>`` where x is not in APP_DOORS."""
    tree = ast.parse(path.read_text(), str(path))
    for node in ast.walk(tree):
        if not isinstance(node, ast.Attribute) or node.attr in APP_DOORS \
                or not isinstance(node.ctx, ast.Load):
            continue
        owner = node.value
        if isinstance(owner, ast.Name) and owner.id == "app" \
                or isinstance(owner, ast.Attribute) and owner.attr == "app":
            yield node.lineno, "reads app.%s" % node.attr


def test_an_app_is_used_only_through_its_doors_and_its_view():
    assert len(EVERYWHERE) > 100, EVERYWHERE
    assert all((ROOT / name).is_file() for name in set(APP_BACK_DOORS) | OTHER_APPS)
    assert all(name.startswith("tests/") for name in APP_BACK_DOORS), APP_BACK_DOORS
    _assert_none(EVERYWHERE, _app_reads, APP_BACK_DOORS)
    moved = [name for name in sorted(APP_BACK_DOORS) if not list(_app_reads(ROOT / name))]
    assert not moved, "no longer reads App's parts, take it off the list: %s" % moved


def test_on_the_device_the_game_is_read_only_by_the_table_core():
    """The console and the screens read the game through ``app.view`` too."""
    firmware_table = [p for p in (ROOT / "firmware" / "table").glob("*.py")
                      if p.relative_to(ROOT).as_posix() not in TABLE_CORE
                      and p.name != "game.py"]
    assert len(firmware_table) > 10, firmware_table
    _assert_none(firmware_table, _game_reads)


def test_the_check_catches_an_app_read(tmp_path):
    bad = tmp_path / "bad.py"
    bad.write_text("a = app.game\nb = con.app.journal\nc = self.app.presence.where(u)\n"
                   "app.input(3)\nt = self.app.view.mode()\nm = app.settings.language\n"
                   "app.current = None\nd = self.app.mode\n")
    assert sorted(_app_reads(bad)) == [
        (1, "reads app.game"), (2, "reads app.journal"), (3, "reads app.presence"),
        (8, "reads app.mode")]
