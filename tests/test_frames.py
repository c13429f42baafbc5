"""MicroPython puts a call's frame on the heap when its state -- locals, value
stack and exception handlers -- needs more than 11 machine words
(``VM_MAX_STATE_ON_STACK``, py/objfun.c).  The paths that must allocate
nothing (a card play, the redraw of the screen, the polls) are split into
small functions for that reason; this test reads every function's state size
from the unix port's compiler (``micropython -v -v`` prints N_STATE and
N_EXC_STACK) and keeps the list of larger ones from growing unnoticed.
"""
from __future__ import annotations

import re
import subprocess

import pytest

from tools import mpvm

ROOT = mpvm.repo_root()
LIMIT = 11      # words

# Functions allowed over the limit: each allocates anyway or runs rarely
# (setup, power-up, dealing, menus), never on the steady paths.
ALLOWED = {
    # screens: the rows written once per change outside card play (the auction's
    # calls, the money rows, this deal's rows, a revoke's); a card play's redraw
    # stays under the limit (tests/mp/mptest_app_heap.py proves it allocates
    # nothing); the rows as strs are for the console and tests
    "firmware/table/screens.py": {"<listcomp>"},
    "firmware/table/rows.py": {"text_rows", "<listcomp>",
                               "code_points"},   # a session's names, once: an array each
    "firmware/table/pages/play.py": set(),
    "firmware/table/pages/contract.py": {"call"},
    "firmware/table/pages/parts.py": set(),
    "firmware/table/pages/dealing.py": set(),
    "firmware/table/pages/info.py": {"_seat_row", "_parties"},
    "firmware/table/pages/money.py": {"measure", "amount", "seat_row"},
    "firmware/table/pages/notice.py": {"row"},
    "firmware/table/pages/result.py": {"_penalty"},
    "firmware/table/pages/scores.py": {"_total_row"},
    "firmware/table/table_view.py": set(),      # what the screens ask, at every redraw
    # the modes: every card and redraw goes through one; the enrolment's rows
    # are made as strings (once per card enrolled)
    "firmware/table/modes.py": {"rows"},
    "firmware/table/app.py": {"__init__", "_start_game", "<listcomp>"},   # power-up, a new session
    "firmware/table/font.py": set(),
    "firmware/table/texts.py": set(),
    "firmware/table/names.py": {"_suits_named", "call_label"},
    "firmware/table/game.py": {"__init__", "_resume", "_journal_hands"},   # once a deal
    "firmware/table/game_state.py": {"__init__", "_resync_readers"},   # a session, an undo
    "firmware/table/menus.py": {"menu_for", "_rufer_menu", "<listcomp>",   # once per step
                                "entry_label"},    # a label shown: a new str anyway
    "firmware/table/presence.py": {"<listcomp>"},
    "firmware/table/reader_round.py": set(),
    "firmware/table/ring.py": set(),
    "firmware/drivers/ssd1306.py": {"__init__", "init_display", "fill_rect", "rect", "line",
                                    "<listcomp>",
                                    "_open"},    # the power-up sequence: init_display's
    "firmware/drivers/buttons.py": {"__init__"},
    "firmware/drivers/buzzer.py": set(),
    "firmware/drivers/leds.py": {"set_brightness"},
    "firmware/drivers/nocopy.py": set(),
    "firmware/drivers/mfrc522.py": {"__init__", "<listcomp>",
                                    "_scratch", "MFRC522"},    # the buffers, at import
    # a connected console's step: watching the table and the line allocates
    # nothing (tests/mp/mptest_door.py); the answers and events do
    "firmware/table/console_events.py": {"trick_done", "refused"},
    "firmware/table/console_link.py": {"__init__", "fail", "authorise"},
    # an answer, an event or a journal line rendered into a fixed buffer
    # (JsonBytes): no frame on the heap, but for a dict of many keys (a status
    # answer), whose sorted keys are lists; ``dumps`` makes its line anyway
    "firmware/tapp/jsonout.py": {"<listcomp>", "_put_dict", "escaped"},
    "firmware/table/console_out.py": set(),
    # a line read, checked, parsed, a session opened: each makes its line or
    # objects anyway; LineReader's readline (polled at every console step) not
    "firmware/tapp/record.py": {"_crc32_soft", "_utf8", "check_json", "parse_line",
                                "one_line", "open_session"},
    "firmware/drivers/reader_set.py": {"__init__", "<listcomp>"},
}


def frames(path: str) -> list[tuple[str, int]]:
    """(function name, state words) of every code block of a firmware file."""
    code = "compile(open(%r).read(), %r, 'exec')" % (path, path)
    try:
        r = subprocess.run([str(mpvm.unix_binary()), "-v", "-v", "-c", code],
                           capture_output=True, text=True, timeout=120, cwd=ROOT)
    except mpvm.MPVMError as e:
        pytest.fail(str(e), pytrace=False)
    out = []
    name = None
    n_state = 0
    for line in (r.stdout + r.stderr).splitlines():
        m = re.match(r"File (\S+), code block '([^']*)'", line)
        if m:
            name = m.group(2) if m.group(1) == path else None
            continue
        m = re.match(r"\(N_STATE (\d+)\)", line)
        if m:
            n_state = int(m.group(1))
            continue
        m = re.match(r"\(N_EXC_STACK (\d+)\)", line)
        if m and name is not None:
            out.append((name, n_state + 2 * int(m.group(1))))   # a handler is 2 words
            name = None
    return out


@pytest.mark.parametrize("path", sorted(ALLOWED))
def test_frames_stay_off_the_heap(path: str) -> None:
    got = frames(path)
    assert len(got) > 1, "no code blocks read from micropython -v -v for %s" % path
    big = sorted({name for name, words in got if words > LIMIT} - ALLOWED[path])
    assert not big, "%s: frames over %d words (heap-allocated at every call): %s" % (
        path, LIMIT, [(n, w) for n, w in got if n in big])
