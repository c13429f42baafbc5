"""The scenario runner's own commands (host_sim/scenario.py, host_sim/README.md
"Scenario files"): that ``expect same-as`` finds a difference, that a table
switched off takes only what a switched-off table can, and that ``flash=``
is checked.  The commands at work: tests/scenarios/power_*.scn, full_flash.scn
and flash_small_power_cut.scn (both runtimes, tests/test_scenarios.py)."""
import pytest

from host_sim.scenario import ScenarioError, run_file

REFERENCE = """table variant=tapp_classic players=3 mode=strict seed=5
deal
auction
play turn legal
play turn legal
"""


def _write(tmp_path, name, text):
    path = tmp_path / name
    path.write_text(text)
    return str(path)


@pytest.mark.parametrize("runtime", ("cpython", "micropython"))
def test_same_as_finds_a_different_journal_and_screen(tmp_path, runtime):
    _write(tmp_path, "ref.scn", REFERENCE)
    same = _write(tmp_path, "same.scn", REFERENCE.replace(
        "play turn legal\nplay turn legal\n",
        "play turn legal\npower-off\npower-on\nplay turn legal\n"
        "expect same-as ref.scn screen leds\n"))
    assert run_file(same, runtime=runtime) == []
    other = _write(tmp_path, "other.scn", REFERENCE.replace(
        "play turn legal\nplay turn legal\n", "play turn legal\n") +
        "expect same-as ref.scn screen\n")
    failures = run_file(other, runtime=runtime)
    assert [f[1] for f in failures] == ["expect same-as ref.scn screen"] * 2
    assert "line 11: " in failures[0][2]   # the journal's first difference: the 2nd card


def test_same_as_reports_a_reference_that_fails_itself(tmp_path):
    _write(tmp_path, "ref.scn", REFERENCE + "expect view trick_size 3\n")
    path = _write(tmp_path, "me.scn", REFERENCE + "expect same-as ref.scn\n")
    with pytest.raises(ScenarioError, match="reference ref.scn fails itself"):
        run_file(path)


def test_a_switched_off_table_takes_cards_and_time_only(tmp_path):
    for command in ("press ok", "expect view trick_size 1", "play turn legal", "autoplay"):
        path = _write(tmp_path, "off.scn", REFERENCE + "power-off\n%s\n" % command)
        with pytest.raises(ScenarioError, match="the table is off"):
            run_file(path)
    path = _write(tmp_path, "on.scn", REFERENCE + "power-on\n")
    with pytest.raises(ScenarioError, match="the table is on"):
        run_file(path)


def test_flash_size_is_whole_erase_blocks(tmp_path):
    path = _write(tmp_path, "f.scn", "table flash=10\n")
    with pytest.raises(ScenarioError, match="multiple of 4 KiB"):
        run_file(path)
