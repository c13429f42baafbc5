"""``tapptable sim`` without a terminal (tools/tapptable/sim_text.py).

With standard input not a terminal it plays one deal by itself at the virtual
table, prints the OLED's text after each notable step -- with one card refused
on purpose -- and the result, and exits 0.
"""

from __future__ import annotations

import argparse
import io
import os
import subprocess
import sys
from pathlib import Path

from tools.tapptable.sim_text import autoplay

ROOT = Path(__file__).resolve().parent.parent


def test_sim_with_stdin_not_a_terminal_plays_a_deal_and_exits_0():
    env = dict(os.environ, COLUMNS="80")
    out = subprocess.run([sys.executable, "-m", "tools.tapptable.cli", "sim"], cwd=ROOT,
                         stdin=subprocess.DEVNULL, capture_output=True, text=True,
                         timeout=60, env=env)
    assert out.returncode == 0, out.stderr
    text = out.stdout
    assert "The virtual table: Tapp neu (tapp_modern), 3 players, strict mode" in text
    assert "REFUSED:" in text and "refused" in text             # the caption, the LED
    assert any(msg in text for msg in ("Farbe bedienen!", "Trumpf!", "Übertrumpfen!"))
    assert "Abrechnung" in text and "OK: neues Spiel" in text   # the result screen
    assert "\nResult: " in text and "\nPayments: " in text
    assert "Trick 1:" in text
    boxes = text.count("┌────────────────┐")
    assert boxes >= 8                                       # dealt, calls, tricks, result
    assert max(len(line) for line in text.splitlines()) <= 80


def args(**kw):
    base = dict(variant="tapp_modern", players=3, mode="strict", seed=1, lang="de")
    base.update(kw)
    return argparse.Namespace(**base)


def test_four_players_in_english():
    out = io.StringIO()
    assert autoplay(args(variant="tarock_simple", players=4, seed=5, lang="en"), out) == 0
    text = out.getvalue()
    assert "Settlement" in text and "REFUSED:" in text
    assert "Dora" in text                                     # the fourth seat's LED line


def test_open_mode_refuses_a_card_out_of_turn():
    out = io.StringIO()
    assert autoplay(args(mode="open", seed=2), out) == 0
    text = out.getvalue()
    assert "open mode, seed 2" in text and "Dealt by Anna, face" in text
    assert "REFUSED:" in text and "Nicht am Zug" in text
    assert "\nResult: " in text


def test_the_same_deal_inside_micropython():
    """``--runtime micropython``: the firmware inside the unix port on the same
    chip models prints the very same deal as under CPython."""
    runs = []
    for runtime in ("cpython", "micropython"):
        out = subprocess.run([sys.executable, "-m", "tools.tapptable.cli", "sim", "--text",
                              "--variant", "wuerttemberg", "--runtime", runtime], cwd=ROOT,
                             stdin=subprocess.DEVNULL, capture_output=True, text=True,
                             timeout=120, env=dict(os.environ, COLUMNS="80"))
        assert out.returncode == 0, out.stderr
        runs.append(out.stdout)
    line = "The firmware runs inside the MicroPython unix port.\n"
    assert line not in runs[0] and line in runs[1]
    assert runs[1].replace(line, "") == runs[0]
    assert "\nResult: " in runs[0]


def test_the_interactive_tables_refuse_the_micropython_runtime():
    out = subprocess.run([sys.executable, "-m", "tools.tapptable.cli", "sim", "--web",
                          "--runtime", "micropython"], cwd=ROOT, stdin=subprocess.DEVNULL,
                         capture_output=True, text=True, timeout=60)
    assert out.returncode == 2 and "--runtime micropython runs scenario files" in out.stderr


def test_the_rufer_hand_over_and_an_undone_card_in_words():
    """Issue 27, 1 and 6: the words the terminal and the browser use for a
    Rufer's call (who gives what to whom, while it is due) and for what an
    undo takes back; the printout calls a card taken back so, not refused.
    The deal of tests/scenarios/rufer_called_card_shown.scn: Cora calls Bert's
    ♥8 and gives ♣8 for it."""
    from host_sim.scenario import Run
    from tools.tapptable.sim_text import (
        Screens,
        describe,
        journal_events,
        rufer_note,
        undo_target,
    )
    run = Run("rufer")
    bid = ["table variant=tapp_modern players=3 mode=strict seed=1", "deal", "call spiele",
           "call weg", "call weg", "call Herz-Rufer"]
    assert not run.run_lines(bid + ["call ♥8", "call ♣8→Bert"])
    t = run.table
    assert describe(t, journal_events(t)[-1]) == "Cora calls ♥8: Bert hands it over, gets ♣8"
    assert rufer_note(t) == "Cora called ♥8: Bert hands it to Cora and gets ♣8 face down"
    assert rufer_note(t, 1) == "Cora called ♥8: you hand it to Cora and get ♣8 face down"
    assert rufer_note(t, 2) == "You called ♥8: Bert hands it to you and gets ♣8 face down"
    assert undo_target(t) == "Cora's Rufer call"
    assert not run.run_lines(["place 2 C10", "hold ok"])
    assert rufer_note(t) == "" and undo_target(t) == "Cora's ♣10"
    assert not run.run_lines(["press ok"])
    out = io.StringIO()
    shots = Screens(t, out, per_row=1)
    shots.snap("undone")
    shots.flush()
    assert "Cora     taken back" in out.getvalue() and "refused" not in out.getvalue()
    assert rufer_note(t).startswith("Cora called ♥8")          # due again
    # the talon's card: nothing to hand over; open mode: the holder is unknown
    assert not run.run_lines(bid + ["call ♣A", "call Stock"])
    assert rufer_note(run.table) == "Cora called ♣A: it lies in the talon, nothing to hand over"
    assert describe(run.table, journal_events(run.table)[-1]) == "Cora calls ♣A (in the talon)"
    assert not run.run_lines([
        "table variant=tapp_modern players=4 mode=open seed=1 lang=en", "call play",
        "call pass", "call pass", "call pass", "call Rufer", "call Rufer ♦", "call ♣A",
        "call ♦7"])
    assert rufer_note(run.table) == \
        "Dora called ♣A: whoever holds it hands it to Dora and gets ♦7 face down"
    run.table.close()


def test_the_result_says_what_decided_it_and_the_points_as_played():
    """Issue 27, 8: the terminal's result line for a Durch lost in its first
    trick names that trick, the tricks and the points as played (not the
    engine's 109:11, which counts the cards never played for the declarer)."""
    from host_sim.scenario import Run
    from tools.tapptable.sim_text import summary
    run = Run("durch")
    run.run_lines(["table variant=tapp_modern players=3 mode=open seed=1", "call spiele",
                   "call weg", "call weg", "call Durch", "call Durch \u2663",
                   "place 2 D7", "place 1 DA", "place 0 D8"])
    try:
        table = run.table
        result = table.view.last_result()
        assert result["points"] == [109, 11] and result["tricks"] == [0, 1]
        line = summary(table, result, run.players).splitlines()[0]
        assert line == "Result: Durch by Cora, lost in trick 1 (tricks 0:1, points 0:11)."
    finally:
        run.table.close()
