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
table/settings.py).  One more layer up, the table itself changes only through
the App's doors: that is checked at run time, where names cannot fool it
(tests/test_table_seam.py); private names of other objects are ruff's SLF001
(pyproject.toml).
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
