"""Deals in sessions at a virtual table, as the journal's power-cut sweeps play
them (tests/test_journal.py under CPython, tests/test_journal_vm.py in the VM,
tests/test_rp2040_cuts.py on the emulated Pico), and what a table powered up
after a cut must have resumed with (``check_resumed``)."""
from host_sim.table import AutoPlayers
from table.app import NEW_SESSION


def play_sessions(table, deals, per_session, seed, before_deal=None, session_done=None):
    """``deals`` deals by the simulated players, a new session every
    ``per_session`` (OK on the console's ``new``: ``NEW_SESSION``);
    ``before_deal(k)`` before deal k, ``session_done()`` when a session ends
    and after the last deal."""
    people = AutoPlayers(table, seed=seed, illegal_once=False)
    for k in range(deals):
        if before_deal is not None:
            before_deal(k)
        if k and k % per_session == 0:
            if session_done is not None:
                session_done()
            assert table.app.input(NEW_SESSION)
            table.wait(200)
            people = AutoPlayers(table, seed=seed + k, illegal_once=False)
        elif k:
            people.next_deal()
        people.play_deal()
    if session_done is not None:
        session_done()


def check_resumed(lines, before, after, now, got, seen, where):
    """A table powered up after a cut inside a step of its jobs resumed
    session ``now`` with the lines ``got``: they were written (``lines``: each
    session's lines as written; nothing invented); if ``now`` is the session
    it had shown before the step (``before``: (session, lines shown)), every
    line shown is kept, else the step was starting the next session
    (``after``: what it showed after the step).  Counts "kept", "more" or
    "started" in ``seen``; ``where`` names the cut in a failure."""
    (name, shown), (then, most) = before, after
    assert got == lines[now][:len(got)], (where, now)
    if now == name:
        assert len(got) >= shown, (where, name, shown, len(got))
        seen["more" if len(got) > shown else "kept"] += 1
    else:
        assert now == then > name and len(got) <= most, (where, name, now)
        seen["started"] += 1
