"""Firmware in the loop: every scenario file in tests/scenarios/ runs the
unchanged table application on the chip models and must meet all its
expectations (format: host_sim/README.md, "Scenario files"), in both runtimes:
under CPython in this process, and inside the MicroPython unix port bridged to
the same models (host_sim/vm_table.py), with the same expectations."""
from pathlib import Path

import pytest

from host_sim.scenario import RUNTIMES, format_failures, run_file
from tapp.catalog import variant_ids

SCENARIOS = sorted((Path(__file__).parent / "scenarios").glob("*.scn"))


def test_there_are_scenarios_for_every_variant_and_mode():
    names = {p.stem for p in SCENARIOS}
    for variant in variant_ids():
        for mode in ("strict", "open"):
            assert any(n.startswith("session_" + variant) and n.endswith(mode)
                       for n in names), (variant, mode)
    assert len([n for n in names if n.startswith("bad_")]) >= 9


@pytest.mark.parametrize("runtime", RUNTIMES)
@pytest.mark.parametrize("path", SCENARIOS, ids=[p.stem for p in SCENARIOS])
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
