# The whole table application (firmware/table/app.py) inside real MicroPython,
# on the fake board (host_sim/vm/fake_board.py), against a hard heap limit.
# mp-heapsize: 896k
#
# One session at the table, played through the readers and buttons
# (host_sim/vm/app_session.py: boot as firmware/main.py boots, setup by the
# buttons, a strict deal over the centre reader, the auction, every card laid
# on a seat reader, a power cut mid-deal, the result, the next deal), measured
# by host_sim/vm/app_heap.py (``tapptable bench`` runs the same session for its
# figures, tools/tapptable/bench_app_vm.py).
#
# Tests (mprunner): the whole session of the largest table (herzblatt with 5
# players) runs within this module's heap -- 640k: the firmware is compiled
# from source in the VM, the session's runner too, and the emulated flash is a
# 64 KB bytearray in the heap; the session needs about 520k so (the screens are
# imported first: compiling their 1,000 lines needs a 4.7 KB block, which a
# heap cut up by the other modules' compiles lacked at 640k-680k but not at
# 620k or 700k, and a 2.5 KB one lacked at 768k-832k once the readers' driver
# grew, not at 896k -- a test artefact, the device loads compiled code); the app's
# own budget against the 256k goal is what tools/tapptable/bench_app_vm.py
# bisects -- ; mem_total() per card play through the whole app, by job:
# nothing allocates (not applicable where the port has no mem_total(): the
# wasm port, CPython); heap_lock() over the steady loop, the readers' poll path
# and the display path, and the redraw of an unchanged screen.
from mpcheck import not_applicable

try:                     # inside MicroPython: host_sim/vm/ is on the path
    from app_heap import run_session
except ImportError:  # CPython: the package's module
    from host_sim.vm.app_heap import run_session

_STATE = {}


def _session():
    """The largest table's session (herzblatt, 5 players), run once for the tests."""
    if "numbers" not in _STATE:
        numbers = {}

        def report(key, value):
            numbers[key] = str(value)
            print("  %s %s" % (key, value))

        script = run_session("herzblatt", 5, report)
        _STATE["numbers"] = numbers
        _STATE["first_line"] = script.dev.app.view.journal().line(0)
        script.flash.close()
    return _STATE["numbers"]


def test_a_whole_session_of_herzblatt_5_runs():
    numbers = _session()
    assert int(numbers["plays"]) > 10 and numbers["power_cuts"] == "1", numbers
    from tapp.record import parse_line
    header = parse_line(_STATE["first_line"])
    assert header["variant"] == "herzblatt" and header["players"] == 5, header


def test_card_play_allocates_nothing():
    numbers = _session()
    if "play_alloc_avg" not in numbers:
        not_applicable("no micropython.mem_total() on this port")
    # not the journal (the line formatted into its page buffer: table/journal.py),
    # not the game (its event dict is made once), not the redraw of the screen
    # (written into preallocated rows), not the polls; the deal's last play
    # (the engine settles the deal) is counted apart
    assert numbers["journal_append_avg"] == "0", numbers
    assert numbers["play_alloc_max"] == "0" and numbers["play_extra_max"] == "0", numbers
    for job in ("readers", "buttons", "game", "signals", "display", "console", "idle"):
        assert numbers["play_alloc_job_" + job] == "0", (job, numbers)


def _ok(numbers, key):
    value = numbers[key]
    assert value.endswith(" ok") and value.split()[0] in ("0", "-1"), (key, value)


def test_steady_loop_allocates_nothing():
    _ok(_session(), "lock_steady_loop")


def test_poll_path_allocates_nothing():
    _ok(_session(), "lock_poll_path")


def test_display_of_an_unchanged_screen_allocates_nothing():
    numbers = _session()
    _ok(numbers, "lock_display_job")
    _ok(numbers, "lock_draw_same_rows")
    assert numbers["lock_redraw_unchanged"] == "ok", numbers      # composed again
    assert numbers["redraw_unchanged_bytes"] in ("0", "-1"), numbers


def test_the_play_line_is_the_canonical_json():
    """table.journal.line_of formats a card play directly: the very text
    tapp.jsonout.dumps and the CRC give, for every seat and card."""
    from table.journal import line_of
    from tapp.cards import CARD_CODES
    from tapp.jsonout import dumps
    from tapp.record import with_crc
    for seat in range(6):
        for code in CARD_CODES:
            ev = {"ev": "play", "seat": seat, "card": code}
            assert line_of(ev) == with_crc(dumps(ev)), ev
    for ev in ({"ev": "play", "seat": True, "card": "HA"}, {"ev": "play", "seat": 1},
               {"ev": "play", "seat": 1, "card": "X1"}, {"ev": "bid", "seat": 1, "call": "pass"},
               {"ev": "play", "seat": 1, "card": "HA", "x": 1}):
        assert line_of(ev) == with_crc(dumps(ev)), ev
