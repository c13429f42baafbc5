"""One door, one view (DESIGN.md "The application's shape"): outside the engine,
product code changes the game only through ``Session.apply``/``Session.play``
and reads it only through ``session.view``.

Checked on the source: no module outside ``firmware/tapp`` imports the engine's
internal modules (Deal and its parts) or reads a session's deal.  Private names
of other objects are ruff's SLF001 (pyproject.toml).
"""
import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PRODUCT = [p for d in ("firmware", "tools", "host_sim") for p in (ROOT / d).rglob("*.py")
           if "tapp" not in p.relative_to(ROOT).parts[:2]]
INTERNAL = {"deal", "tricks", "revokes", "phases", "auction", "settle", "announce"}
DEAL_FIELDS = {"deal", "_deal"}


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


def test_product_code_uses_only_the_door_and_the_view():
    assert len(PRODUCT) > 10, PRODUCT          # the scan sees the tree
    found = ["%s:%d: %s" % (p.relative_to(ROOT), line, what)
             for p in PRODUCT for line, what in _violations(p)]
    assert not found, "\n".join(found)


def test_the_check_catches_a_back_door(tmp_path):
    bad = tmp_path / "bad.py"
    bad.write_text("from tapp import deal as D\nx = session.deal.hands\n"
                   "import tapp.tricks\nhub.deal(1)\n")
    assert sorted(w for _, w in _violations(bad)) == [
        "imports tapp.deal", "imports tapp.tricks", "reads .deal"]
