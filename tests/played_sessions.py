"""Deals in sessions at a virtual table, as the journal's power-cut sweeps play
them (tests/test_journal.py under CPython, tests/test_journal_vm.py in the VM)."""
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
