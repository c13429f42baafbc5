"""The longest tests start first, so that the workers finish together
(pytest-xdist hands out tests in collection order: a minute-long test
collected last runs alone at the end while the other cores idle; with
``--dist worksteal``, tools/dev.py, each worker starts on a contiguous share
of the list and an idle one takes over the end of another's: there the long
tests are dealt round the shares, ``shares``).

``LONGEST_FIRST`` names them (node id prefixes, longest first, measured on
two cores); every other test keeps its place after them.  The order changes
only when tests run, never what they check.  A name that no longer matches a
collected test of its file is reported as a warning, so the list does not go
stale unnoticed."""
import os
import warnings

import pytest

LONGEST_FIRST = (
    "tests/test_fsimage.py::test_the_uf2_of_build_boots_from_blank_flash_and_plays_a_deal",
    "tests/test_rp2040_cuts.py::",
    "tests/test_rp2040_table.py::test_scenario_on_the_emulated_pico[power_cut_same_deal_open]",
    "tests/test_bench.py::test_bench_quick_prints_every_table",
    "tests/test_journal_vm.py::test_power_cuts_in_the_vm",
    "tests/test_console.py::test_tapptable_console_against_the_sim",
    "tests/test_deploy.py::test_deploy_copies_only_what_changed_and_the_tree_imports",
    "tests/test_scenarios.py::test_scenario[full_flash-micropython]",
    "tests/test_deploy.py::test_the_board_is_trusted_for_nothing_but_its_file_list",
    "tests/test_scenarios.py::test_scenario[session_haferltarock_4_strict-micropython]",
    "tests/test_scenario_commands.py::test_same_as_finds_a_different_journal_and_screen",
    "tests/test_micropython.py::test_mp_unix_port[mptest_journal_lfs]",
    "tests/test_sim_web.py::test_a_person_among_robots",
    "tests/test_watch_live.py::test_a_power_cut_mid_deal_and_a_pulled_cable",
    "tests/test_watch_mqtt.py::test_two_watchers_one_club_through_a_broker_restart",
    "tests/test_watch_live.py::test_the_page_follows_the_display_within_a_second",
    "tests/test_sim_tui.py::test_two_deals_by_keys_in_a_small_terminal",
    "tests/test_sim_web.py::test_the_page_gets_names_not_ids",
    "tests/test_sim_web.py::test_robots_never_stall_through_power_cuts",
    "tests/test_rp2040_table.py::test_the_table_resumes_after_a_cut_inside_a_journal_write",
    "tests/test_sim_web.py::test_full_deal_by_drags",
    "tests/test_journal_vm.py::test_a_long_session_in_the_vm",
    "tests/test_rp2040_table.py::test_main_starts_with_whatever_is_attached",
    "tests/test_table_monkey.py::test_a_slice_inside_the_micropython_vm",
    "tests/test_scenarios.py::test_scenario[session_",
    "tests/test_engine_properties.py::test_monkey_streams_never_raise",
    "tests/test_sim_web_firefox.py::",
    "tests/test_console_rp2040.py::",
    "tests/test_sim_web.py::",
    "tests/test_sim_tui.py::",
    "tests/test_rp2040_table.py::",
    "tests/test_texts_fit.py::",
    "tests/test_table_monkey.py::",
    "tests/test_scenarios.py::test_scenario[",
)


def _rank(nodeid):
    for i, prefix in enumerate(LONGEST_FIRST):
        if nodeid.startswith(prefix):
            return i
    return len(LONGEST_FIRST)


@pytest.hookimpl(tryfirst=True)
def pytest_collection_modifyitems(session, config, items):
    """Warn about a stale name (only when whole files were collected), then
    order: the sort runs last, after deselection (``_order``)."""
    if not any("::" in a for a in config.args) and not config.option.keyword \
            and not config.option.markexpr:
        ids = [item.nodeid for item in items]
        files = {i.split("::", 1)[0] for i in ids}
        for prefix in LONGEST_FIRST:
            if prefix.split("::", 1)[0] in files and not any(i.startswith(prefix) for i in ids):
                warnings.warn("tests/conftest.py LONGEST_FIRST names no collected test: %s"
                              % prefix, stacklevel=1)


def pytest_addoption(parser):
    parser.addoption("--slow", action="store_true",
                     help="the long sweeps whole: every power cut of tests/test_journal_vm.py, "
                          "tests/test_rp2040_cuts.py and tests/mp/mptest_journal_lfs.py (by "
                          "default a spread part of them; TAPP_SLOW=1 too)")


@pytest.fixture
def slow(request):
    """``--slow`` was given (or ``TAPP_SLOW=1``, as ``dev.py test --slow``
    sets it): a sweep runs every one of its cases."""
    return request.config.getoption("--slow") or os.environ.get("TAPP_SLOW") == "1"


@pytest.fixture(scope="session", autouse=True)
def _temporary_files_in_pytests_own_folder(tmp_path_factory):
    """The tables, consoles and builds the tests make without naming a
    folder (``tempfile``: host_sim's tables, the monkey, the serial bridge)
    go under pytest's own temporary folder, which pytest prunes (the last
    three runs kept), not into the system's /tmp one run after another."""
    import tempfile
    folder = str(tmp_path_factory.mktemp("tempfile"))
    saved = tempfile.tempdir, os.environ.get("TMPDIR")
    tempfile.tempdir = folder
    os.environ["TMPDIR"] = folder          # (the tools the tests start, as well)
    yield
    tempfile.tempdir = saved[0]
    if saved[1] is None:
        os.environ.pop("TMPDIR", None)
    else:
        os.environ["TMPDIR"] = saved[1]


def pytest_configure(config):
    config.pluginmanager.register(_Order(config), "tapp-longest-first")


class _Order:
    def __init__(self, config):
        self.config = config

    @pytest.hookimpl(trylast=True)
    def pytest_collection_modifyitems(self, items):
        items.sort(key=lambda item: _rank(item.nodeid))   # stable: the rest keep their order
        worker = getattr(self.config, "workerinput", {})     # a pytest-xdist worker
        argv = worker.get("mainargv", ())      # (its own options say --dist no)
        if worker.get("workercount", 1) > 1 and ("--dist=worksteal" in argv
                                                 or "--dist worksteal" in " ".join(argv)):
            items[:] = shares(items, worker["workercount"])


def shares(items, workers):
    """``items`` (the longest first) laid out for ``--dist worksteal``, which
    gives each worker one contiguous share (as many tests each, the first
    shares rounded down) and lets an idle worker take over the end of
    another's: the longest tests dealt round the shares, each share starting
    with its long ones, the others filling them up in their order."""
    sizes = []
    left = len(items)
    for i in range(workers):
        sizes.append(left // (workers - i))
        left -= sizes[-1]
    long = [item for item in items if _rank(item.nodeid) < len(LONGEST_FIRST)]
    rest = iter(items[len(long):])
    parts = [[] for _ in sizes]
    turn = 0
    for item in long:
        while len(parts[turn % workers]) >= sizes[turn % workers]:
            turn += 1
        parts[turn % workers].append(item)
        turn += 1
    for part, size in zip(parts, sizes, strict=True):
        part.extend(next(rest) for _ in range(size - len(part)))
    return [item for part in parts for item in part]
