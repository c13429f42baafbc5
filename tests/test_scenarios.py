"""Firmware in the loop: every scenario file in tests/scenarios/ runs the
unchanged table application on the chip models and must meet all its
expectations (format: host_sim/README.md, "Scenario files"), in both runtimes:
under CPython in this process, and inside the MicroPython unix port bridged to
the same models (host_sim/vm_table.py), with the same expectations.

The whole-session files (``session_<variant>_<players>_<mode>``) take up to
half a minute each inside the VM, where every bus transfer crosses the bridge;
strict ones cost two to three times the open ones (every card is dealt over the
centre reader).  There each table (variant and player count) plays one of its
two modes: strict for one table of each family (``STRICT_IN_VM``; strict
mode's dealing and discarding are the same code for every variant, and the
other strict files run in both runtimes), open for the others; the other mode
of each runs under CPython only.
``TAPP_VM_ALL=1`` runs every file in both runtimes."""
import os
from pathlib import Path

import pytest

from host_sim.runtimes import RUNTIMES
from host_sim.scenario import format_failures, run_file
from tapp.catalog import variant_ids

SCENARIOS = sorted((Path(__file__).parent / "scenarios").glob("*.scn"))
VM_ALL = os.environ.get("TAPP_VM_ALL") == "1"


# one strict session per family (Tapp with its talon exchange, Bavarian Tarock with
# four seats, Herzblatt)
STRICT_IN_VM = ("session_tapp_classic_3_strict", "session_haferltarock_4_strict",
                "session_herzblatt_muhr_3_strict")


def _vm_sessions():
    """The session files that run in the VM: one per table (variant and player
    count), strict for the STRICT_IN_VM tables, open for the others."""
    return {p.stem for p in SCENARIOS if p.stem.startswith("session_")
            and (p.stem in STRICT_IN_VM if p.stem.endswith("_strict")
                 else p.stem[:-len("_open")] + "_strict" not in STRICT_IN_VM)}


VM_SESSIONS = _vm_sessions()


def _cases():
    out = []
    for path in SCENARIOS:
        for runtime in RUNTIMES:
            if runtime != "cpython" and path.stem.startswith("session_") \
                    and path.stem not in VM_SESSIONS and not VM_ALL:
                continue
            out.append(pytest.param(path, runtime, id="%s-%s" % (path.stem, runtime)))
    return out


def test_there_are_scenarios_for_every_variant_and_mode():
    names = {p.stem for p in SCENARIOS}
    for variant in variant_ids():
        for mode in ("strict", "open"):
            assert any(n.startswith("session_" + variant) and n.endswith(mode)
                       for n in names), (variant, mode)
    assert len([n for n in names if n.startswith("bad_")]) >= 9


def test_the_vm_plays_every_variant_and_both_modes_of_every_family():
    played = {(n.rsplit("_", 1)[1], n) for n in VM_SESSIONS}
    assert {mode for mode, _n in played} == {"strict", "open"}
    for variant in variant_ids():
        assert any(n.startswith("session_" + variant + "_") for n in VM_SESSIONS), variant
    for family in (("tapp", "wuerttemberg", "braun"), ("tarock", "haferl", "berliner"),
                   ("herzblatt",)):
        modes = {mode for mode, n in played if n[len("session_"):].startswith(family)}
        assert modes == {"strict", "open"}, (family, modes)


@pytest.mark.parametrize(("path", "runtime"), _cases())
def test_scenario(path, runtime):
    failures = run_file(str(path), runtime=runtime)
    assert not failures, "\n" + format_failures(str(path.relative_to(Path.cwd())
                                                    if path.is_relative_to(Path.cwd())
                                                    else path), failures)


@pytest.mark.parametrize("runtime", RUNTIMES)
def test_a_failing_expectation_is_reported_with_the_screen(tmp_path, runtime):
    bad = tmp_path / "bad.scn"
    bad.write_text("table variant=wuerttemberg players=3\nexpect screen Nirgends\n")
    failures = run_file(str(bad), runtime=runtime)
    assert len(failures) == 1
    text = format_failures("bad.scn", failures)
    assert "bad.scn:2: expect screen Nirgends" in text and "gibt" in text
