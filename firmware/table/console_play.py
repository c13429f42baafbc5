"""Console commands that are inputs to the table: undo, a new session, cards
placed and lifted, buttons pressed, and the hand-over to the REPL.

Every one goes through the table's own doors: button events, ``UNDO`` and
``NEW_SESSION`` are queued with ``App.input`` and handled by the game job
like a press of a button; a tag on a reader is ``App.inject`` (the reader
reports it from its next poll on).  The answer comes once the table has acted
(``WaitTask``).  Each is ``cmd(con, rid, req)``, as in table/console_admin.py.
"""
from drivers.buttons import KEY_NEXT, KEY_OK, KEY_PREV, LONG, SHORT, event
from tapp.cards import CODE_INDEX

from .app import NEW_SESSION, UNDO
from .console_admin import unhex
from .console_link import Failure, is_int, said
from .console_tasks import WaitTask

KEY_NAMES = {"prev": KEY_PREV, "next": KEY_NEXT, "ok": KEY_OK}
PRESS_MS = 200           # a press: how long to wait for the game job


def queue_input(con, ev):
    if not con.app.input(ev):
        raise Failure("busy")


def outcome(con, reader, before):
    """What the table did after an input: for the answer."""
    tv = con.app.view
    out = {"screen": tv.rows()}
    if tv.engine() is not None:
        out["refused"] = tv.refused(reader) if reader >= 0 else False
        out["message"] = tv.message()
        journal = tv.journal()
        if journal is not None:
            out["accepted"] = len(journal) - before if before >= 0 else 0
    return out


def cmd_undo(con, rid, req):
    app = con.app
    tv = app.view
    con.authorise(req)
    if tv.engine() is None and tv.stage() != "enrol":
        raise Failure("not_ready")
    before = con.journal_len()
    journal = tv.journal()
    queue_input(con, UNDO)

    def answer(settled):
        if tv.stage() == "enrol":
            return {"queued": True}
        after = con.journal_len()
        if tv.journal() is not journal or after < 0 or after == before:
            raise Failure("nothing_to_undo")
        return {"journal": after}
    con.start(WaitTask(con.now, rid, lambda: app.inputs_pending() == 0, answer))
    return None


def cmd_reset_session(con, rid, req):
    app = con.app
    tv = app.view
    con.authorise(req)
    if not app.registry.complete(tv.deck()):
        raise Failure("not_ready", said("a_not_enrolled") % tv.deck())
    old = tv.engine()
    queue_input(con, NEW_SESSION)

    def answer(settled):
        view = tv.engine()
        if view is None or view is old:
            raise Failure("failed", said("a_no_new_session"))
        return {"variant": view.variant(), "players": view.players(), "seats": con.seats(),
                "mode": view.mode()}
    con.start(WaitTask(con.now, rid, lambda: tv.engine() is not old, answer))
    return None


def reader_arg(con, req):
    r = req.get("reader")
    tv = con.app.view
    n = tv.readers()
    if not is_int(r) or not 0 <= r < n:
        raise Failure("bad_args", said("a_reader") % (n - 1, tv.centre()))
    return r


def settled_answer(con, reader, before):
    def answer(settled):
        out = outcome(con, reader, before)
        out["settled"] = settled
        return out
    return answer


def cmd_place(con, rid, req):
    app = con.app
    r = reader_arg(con, req)
    if "uid" in req:
        uid = unhex(req.get("uid"))
        if uid is None:
            raise Failure("bad_args", said("a_uid"))
    else:
        card = req.get("card")
        deck = req.get("deck", app.view.deck())
        if not isinstance(card, str) or card not in CODE_INDEX or not is_int(deck):
            raise Failure("bad_args", said("a_card"))
        uid = app.registry.uid_of(deck, CODE_INDEX[card])
        if uid is None:
            raise Failure("not_found", said("a_card_not_enrolled") % (card, deck))
    con.authorise(req)
    before = con.journal_len()
    uid = bytes(uid)
    app.inject(r, uid)
    tv = app.view
    con.start(WaitTask(con.now, rid, lambda: tv.where(uid) == r,
                       settled_answer(con, r, before)))
    return None


def cmd_lift(con, rid, req):
    app = con.app
    r = reader_arg(con, req)
    con.authorise(req)
    before = con.journal_len()
    app.inject(r, None)
    tv = app.view
    con.start(WaitTask(con.now, rid, lambda: not tv.placed(r),
                       settled_answer(con, r, before)))
    return None


def cmd_press(con, rid, req):
    key = req.get("key")
    if not isinstance(key, str) or key not in KEY_NAMES:
        raise Failure("bad_args", said("a_button"))
    long_press = req.get("long", False)
    if not isinstance(long_press, bool):
        raise Failure("bad_args", said("a_long"))
    con.authorise(req)
    app = con.app
    before = con.journal_len()
    queue_input(con, event(KEY_NAMES[key], LONG if long_press else SHORT))
    con.start(WaitTask(con.now, rid, lambda: app.inputs_pending() == 0,
                       lambda settled: outcome(con, -1, before), PRESS_MS))
    return None


def cmd_repl(con, rid, req):
    """Stop the table and leave the board at the MicroPython REPL (for mpremote,
    ``tapptable deploy``): after this answer the journal is closed and Ctrl-C
    works again; Ctrl-D (soft reset) starts the table anew."""
    con.authorise(req)
    con.hand_over()
    return {"repl": True, "message": said("a_repl")}


COMMANDS = {"undo": cmd_undo, "reset-session": cmd_reset_session, "place": cmd_place,
            "lift": cmd_lift, "press": cmd_press, "repl": cmd_repl}
