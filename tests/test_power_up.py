"""Power-up is wired once (table/power_up.py): every host -- the device's
main.py, the virtual table in CPython, the application inside MicroPython
(the unix port and the emulated Pico, through vm_serve.py), the monkey's quick
table -- builds the application with ``boot``, and the simulator's board is
built by the firmware's ``boards.common.build`` from the simulator's pin map.

Checked on the source (no product module but table/power_up.py constructs
``App``; each host calls ``boot``) and at run time (the virtual table's
drivers are built by ``build`` on the chip models; a wrong wiring is refused).
"""
import ast
from pathlib import Path

import pytest

from host_sim import sim_machine
from host_sim.board import SimBoard, SimChips
from host_sim.mfrc522_model import Tag
from host_sim.table import VirtualTable
from host_sim.vm.sim_pins import sim_pins
from table import power_up

ROOT = Path(__file__).resolve().parent.parent
PRODUCT = [p for d in ("firmware", "tools", "host_sim") for p in (ROOT / d).rglob("*.py")]
POWER_UP = "firmware/table/power_up.py"
HOSTS = ("firmware/main.py", "host_sim/table.py", "host_sim/vm/vm_serve.py",
         "host_sim/monkey.py")


def _called_name(call):
    f = call.func
    return f.id if isinstance(f, ast.Name) else f.attr if isinstance(f, ast.Attribute) else ""


def _app_constructions(path):
    """Lines of ``path`` that construct the application (``App(...)``, ``app.App(...)``)."""
    tree = ast.parse(path.read_text(), str(path))
    return [n.lineno for n in ast.walk(tree)
            if isinstance(n, ast.Call) and _called_name(n) == "App"]


def _boots(path):
    """Lines of ``path`` that call ``boot`` imported from table.power_up."""
    tree = ast.parse(path.read_text(), str(path))
    imported = any(isinstance(n, ast.ImportFrom) and n.module == "table.power_up"
                   and any(a.name == "boot" and a.asname is None for a in n.names)
                   for n in ast.walk(tree))
    return [n.lineno for n in ast.walk(tree)
            if imported and isinstance(n, ast.Call) and _called_name(n) == "boot"
            and isinstance(n.func, ast.Name)]


def test_only_the_power_up_constructs_the_application():
    assert len(PRODUCT) > 50, PRODUCT          # the scan sees the tree
    found = ["%s:%d" % (p.relative_to(ROOT), line) for p in PRODUCT
             if p.relative_to(ROOT).as_posix() != POWER_UP
             for line in _app_constructions(p)]
    assert not found, "App constructed outside %s: %s" % (POWER_UP, ", ".join(found))
    assert len(_app_constructions(ROOT / POWER_UP)) == 1


@pytest.mark.parametrize("host", HOSTS)
def test_each_host_powers_up_through_boot(host):
    assert len(_boots(ROOT / host)) == 1, host


def test_the_checks_catch_a_second_wiring(tmp_path):
    bad = tmp_path / "bad.py"
    bad.write_text("from table.app import App\nfrom table import app\n"
                   "a = App(board, settings, registry)\nb = app.App(board, s, r)\n"
                   "boot(board, '/')\n")
    assert _app_constructions(bad) == [3, 4]
    assert _boots(bad) == []            # a boot of its own, not table.power_up's
    good = tmp_path / "good.py"
    good.write_text("from table.power_up import boot\napp = boot(board, '/')\n")
    assert _app_constructions(good) == [] and _boots(good) == [2]


def _imported_modules(path):
    """The top-level names of the modules ``path`` imports (absolute imports)."""
    tree = ast.parse(path.read_text(), str(path))
    out = set()
    for n in ast.walk(tree):
        if isinstance(n, ast.Import):
            out.update(a.name.split(".")[0] for a in n.names)
        elif isinstance(n, ast.ImportFrom) and not n.level and n.module:
            out.add(n.module.split(".")[0])
    return out


def test_nothing_outside_tests_imports_tests():
    """Product code (firmware/, host_sim/, tools/) imports no module of tests/
    (the heap session is host_sim/vm/app_session.py's, the fake board
    host_sim/vm/fake_board.py's; the VMs the product starts have no tests/mp
    on their path: tools/mpvm.py ``tests=False``)."""
    test_modules = {p.stem for p in (ROOT / "tests").rglob("*.py")} | {"tests"}
    product = {p.stem for p in PRODUCT}
    found = ["%s: %s" % (p.relative_to(ROOT), name) for p in PRODUCT
             for name in sorted(_imported_modules(p) & (test_modules - product))]
    assert "mpflash" in test_modules and "mptest_app_heap" in test_modules
    assert not found, "product code imports tests/: " + ", ".join(found)
    from tools import mpvm
    assert str(ROOT / "tests") in mpvm.micropypath()
    assert str(ROOT / "tests") not in mpvm.micropypath(tests=False)


def test_the_virtual_table_boots_through_power_up(monkeypatch):
    """At run time too: VirtualTable's application is the one ``boot`` built,
    with the virtual table's settings over the loaded ones, kept in RAM."""
    built = []
    real = power_up.boot

    def spy(*args, **kw):
        built.append(real(*args, **kw))
        return built[-1]

    monkeypatch.setattr("host_sim.table.boot", spy)
    table = VirtualTable(variant="tapp_modern", players=4, lang="en")
    assert built == [table.app]
    settings = table.app.settings
    assert (settings.players, settings.language, settings.remember) == (4, "en", False)


def test_the_sim_board_is_built_on_the_chip_models_by_the_pin_map():
    board = SimBoard(seats=2)
    pins = sim_pins(2)
    assert [p.id for p in board.cs] == list(pins["reader_cs"])
    assert [p.id for p in board.button_pins] == list(pins["buttons"])
    assert board.readers.n == 3 and board.leds.nseats == 2
    board.chips[1].place(Tag(bytes.fromhex("04a1b2c3d4e580")))
    for _ in range(4):                        # the readers' driver reaches seat 1's model
        board.readers.poll(1)
    assert board.readers.uid(1).hex() == "04a1b2c3d4e580"
    board.button_pins[2].press()              # the pad reads the model's ok button
    for _ in range(3):                        # seen, then steady past the debounce
        board.buttons.poll()
        board.clock.advance_ms(50)
    assert board.buttons.ok.pressed


def test_a_wrong_wiring_is_refused():
    chips = SimChips(seats=2)
    pins = sim_pins(2)
    machine = sim_machine.SimMachine(chips, pins)
    neopixel = sim_machine.SimNeoPixel(chips, machine)
    with pytest.raises(ValueError, match="buzzer"):
        machine.PWM(machine.Pin("ws2812"))
    with pytest.raises(ValueError, match="strip"):
        neopixel.NeoPixel(machine.Pin("buzzer"), 2)
    with pytest.raises(ValueError, match="strip"):
        neopixel.NeoPixel(machine.Pin("ws2812"), 3)
    with pytest.raises(ValueError):           # a chip-select per reader, no more, no less
        sim_machine.SimMachine(chips, dict(pins, reader_cs=pins["reader_cs"][:2]))
    assert machine.Pin("cs1") is chips.cs[1] and machine.Pin("rst") is chips.rst
