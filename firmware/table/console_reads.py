"""The console's commands that read the table, besides ``status``: the
views of the game and the table, the score sheet, the journal, the readers'
diagnostics, the log level, help (docs/console.md).  Loaded on the first
use of one of them (table/console.py ``LATER``): most clients ask only
``status``, and a smaller console.py imports sooner at an idle moment after
power-up (each name of a module is looked up among the Pico's interned
strings as it is imported)."""
from tapp.cards import CARD_CODES, NCARDS

from .console_events import DEBUG, INFO, LEVELS, STATUS_NAMES
from .console_link import PROTOCOL, Failure, said
from .deck_file import uid_hex


def cmd_help(con, rid, req):
    return {"commands": con.command_names(), "protocol": PROTOCOL,
            "locked": ["set", "registry download/upload", "enrol", "undo",
                       "reset-session", "place", "lift", "press", "selftest", "repl",
                       "view/readers details", "journal of a strict deal in progress",
                       "log debug"]}


def cmd_view(con, rid, req):
    """The engine's view and the table's (``app.view``), as everyone may see them;
    with ``details`` (the PIN) the hidden cards and the menu too."""
    con.playing()
    details = bool(req.get("details"))
    if details:
        con.authorise(req)
    tv = con.app.view
    view = tv.engine()
    n = view.players()
    readers = [r for r in range(tv.readers()) if r != tv.centre()]
    on_reader = []
    for r in readers:
        c = tv.card_on(r)
        on_reader.append(CARD_CODES[c] if 0 <= c < NCARDS else None)
    out = {"variant": view.variant(), "mode": view.mode(), "players": n,
           "seats": con.seats(), "phase": view.phase(), "expects": view.expects(),
           "turn": view.turn(), "dealer": view.dealer(), "declarer": view.declarer(),
           "contract": view.contract(), "trump": view.trump(), "target": view.target(),
           "multiplier": view.multiplier(), "announcements": view.announcements(),
           "trick_number": view.trick_number(), "trick": view.trick(),
           "last_trick": view.last_trick(),
           "points": [view.points(s) for s in range(n)],
           "tricks_won": [view.tricks_won(s) for s in range(n)],
           "balances": view.balances(), "pot": view.pot(),
           "deals": view.deals_played(), "session_over": view.session_over(),
           "revokes": view.revokes(), "legal_calls": view.legal_calls(),
           "table": {"mode": tv.mode(), "on_reader": on_reader,
                     "clearing": tv.clearing(),
                     "refused": [r for r in range(tv.readers())
                                 if tv.refused(r) and not tv.taken_back(r)],
                     "taken_back": [r for r in range(tv.readers()) if tv.taken_back(r)],
                     "jammed": [r for r in range(tv.readers()) if tv.jammed(r)],
                     "message": tv.message()},
           "screen": tv.rows()}
    if details:
        out["hands"] = [view.hand(s) for s in range(n)]
        out["talon"] = view.talon()
        out["legal_cards"] = view.legal_cards()
        out["menu"] = [[tv.menu_label(k), tv.menu_event(k)] for k in range(tv.menu_size())]
        out["menu_pos"] = tv.menu_pos()
        if tv.mode() == "dealing":
            out["dealt"] = [tv.dealt(s) for s in range(n)]
        out["discards"] = tv.discards_taken()
    return out

def cmd_score(con, rid, req):
    """The score sheet, its history folded from the journal (parts, one per deal)."""
    con.playing()
    from .console_tasks import JournalSource, ScoreTask
    con.start(ScoreTask(rid, JournalSource(con.app.view.journal().read_lines()),
                         con.seats()))
    return None

def cmd_readers(con, rid, req):
    details = bool(req.get("details"))
    if details:
        con.authorise(req)
    tv = con.app.view
    buf = con.live.uidbuf
    out = []
    for i in range(tv.readers()):
        r = {"reader": i, "name": "centre" if i == tv.centre() else "seat %d" % (i + 1),
             "status": STATUS_NAMES[tv.reader_status(i) & 3],
             "raw": STATUS_NAMES[tv.reader_raw(i) & 3],
             "down": bool(tv.reader_down(i)), "faults": tv.reader_faults(i),
             "recoveries": tv.reader_recoveries(i), "errors": tv.reader_errors(i),
             "placed": tv.placed(i), "collision": tv.collision(i),
             "fault": tv.fault(i), "injected": tv.injected(i)}
        if details:
            r["uid"] = uid_hex(tv.reader_uid(i)) if tv.reader_status(i) == 1 else None
            n = tv.placed_uid(i, buf)
            r["placed_uid"] = uid_hex(memoryview(buf)[0:n]) if n else None
            r["card"] = con.live.card_on(i)
        out.append(r)
    return {"readers": out, "overflows": tv.card_events_lost(), "polls": tv.polls(),
            "hot": tv.hot(), "keys_overflows": tv.keys_overflows()}

def cmd_journal(con, rid, req):
    """The sessions on flash (``list``), or one of them streamed line by
    line: the one in play (``current``) or a finished one by its name
    (table/journal.py: whichever store the table has).  Only the session
    in play can hold hidden cards (a strict deal under way): it alone
    needs the referee PIN then; a finished one is anybody's to download
    (a watcher keeps the club's history from them, docs/watch.md)."""
    from .console_tasks import JournalSource, JournalTask
    journal = con.app.view.journal()
    if req.get("list"):
        sessions = []
        if journal is not None:
            sessions.append({"name": "current", "lines": len(journal)})
        for name, size in con.app.journals.sessions():
            sessions.append({"name": name, "bytes": size})
        return {"sessions": sessions}
    name = req.get("session", "current")
    if not isinstance(name, str):
        raise Failure("bad_args", said("a_session_name"))
    if name == "current":
        if journal is None:
            raise Failure("not_ready", said("a_no_session"))
        if con.hidden():
            con.authorise(req)
        con.start(JournalTask(rid, JournalSource(journal.read_lines())))
        return None
    ok = 0 < len(name) <= 32 and name.endswith(".jsonl") and ".." not in name
    for c in name:
        if not (c.isalpha() or c.isdigit() or c in "._-"):
            ok = False
    if not ok:
        raise Failure("bad_args", said("a_session_name"))
    if journal is not None and name == journal.name() and con.hidden():
        con.authorise(req)    # the session in play holds a strict deal's hands
    lines = con.app.journals.lines(name)
    if lines is None:
        raise Failure("not_found", said("a_no_such_session") % name)
    con.start(JournalTask(rid, JournalSource(lines)))
    return None

def cmd_log(con, rid, req):
    """This connection's log level (it ends with the connection)."""
    level = req.get("level")
    live = con.live
    if level is None:
        return {"level": LEVELS[live.level], "levels": list(LEVELS)}
    if not isinstance(level, str) or level not in LEVELS:
        raise Failure("bad_args", said("a_level") % ", ".join(LEVELS))
    k = LEVELS.index(level)
    if k == DEBUG:
        con.authorise(req)
    live.level = k
    return {"level": level, "until": "this connection ends"
            if k != INFO else "always"}


COMMANDS = {"help": cmd_help, "view": cmd_view, "score": cmd_score, "journal": cmd_journal,
            "readers": cmd_readers, "log": cmd_log}
