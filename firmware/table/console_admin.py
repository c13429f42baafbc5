"""Console commands that change the table's settings and decks, and the self-test.

Each is ``cmd(con, rid, req)`` (``con``: table/console.py's Console) and
returns the answer's body, or None when a task answers later; a refusal is a
``Failure`` with its stable code.
"""
from tapp.cards import CARD_CODES, CODE_INDEX
from tapp.record import OVERLONG, parse_line

from . import registry as R
from .console_link import Failure, is_int, said
from .presence import ticks_diff

try:
    from micropython import const
except ImportError:  # CPython
    const = lambda x: x  # noqa: E731

_SELFTEST_MAX_MS = const(60000)
_MEANWHILE_MS = const(100)       # during the self-test's waits the link is served this often


def unhex(s):
    """bytes of a hex UID of 8, 14 or 20 digits, or None."""
    if not isinstance(s, str) or len(s) not in (8, 14, 20):
        return None
    out = bytearray(len(s) // 2)
    digits = "0123456789abcdef"
    for i in range(len(out)):
        hi = digits.find(s[2 * i].lower())
        lo = digits.find(s[2 * i + 1].lower())
        if hi < 0 or lo < 0:
            return None
        out[i] = hi * 16 + lo
    return bytes(out)


# ----- settings ------------------------------------------------------------------------


def cmd_set(con, rid, req):
    """Show or change the settings for the next session (table/settings.py is
    their owner: the same checks and error codes as everywhere)."""
    settings = con.app.settings
    changes = req.get("values")
    if changes is None and "key" in req:
        key = req.get("key")
        if not isinstance(key, str):
            raise Failure("bad_args", said("a_setting_name"))
        changes = {key: req.get("value")}
    if changes is None:
        return {"values": settings.shown()}
    if not isinstance(changes, dict) or not changes:
        raise Failure("bad_args", said("a_settings"))
    con.authorise(req)
    problem = settings.update(changes)      # validated there, all or nothing
    if problem is not None:
        raise Failure(*problem)
    saved = settings.save()                 # None: a table that keeps them in RAM
    game_keys = [k for k in changes if k != "referee_pin"]
    note = said("a_next_session") if game_keys else None
    if "referee_pin" in changes:
        pin_note = said("a_pin_at_once")
        note = pin_note if note is None else note + "; " + pin_note
    return {"values": settings.shown(), "saved": saved, "note": note}


# ----- decks ---------------------------------------------------------------------------


def cmd_registry(con, rid, req):
    reg = con.app.registry
    op = req.get("op", "list")
    if op == "list":
        return {"decks": [{"deck": d, "kind": k, "cards": n, "complete": reg.complete(d)}
                          for d, k, n in reg.decks()], "in_play": con.app.view.deck()}
    deck = req.get("deck")
    if op == "download":
        if not is_int(deck):
            raise Failure("bad_args", said("a_deck_id"))
        con.authorise(req)
        lines = reg.export(deck)
        if lines is None:
            raise Failure("not_found", said("a_no_deck") % deck)
        return {"deck": deck, "lines": lines}
    if op == "upload":
        lines = req.get("lines")
        if not isinstance(lines, list) or not lines:
            raise Failure("bad_args", said("a_deck_lines"))
        for x in lines:
            if not isinstance(x, str):
                raise Failure("bad_args", said("a_lines_strings"))
        con.authorise(req)
        code, deck_id, why = reg.import_lines(lines)
        if code != R.OK:
            raise Failure(R.NAMES[code], why or R.message(code), {"deck": deck_id})
        return {"deck": deck_id, "cards": reg.count(deck_id),
                "complete": reg.complete(deck_id)}
    raise Failure("bad_args", said("a_registry_op"))


def cmd_enrol(con, rid, req):
    reg = con.app.registry
    deck = req.get("deck", con.app.view.deck())
    if not is_int(deck):
        raise Failure("bad_args", said("a_deck_id"))
    kind = req.get("kind")
    card = req.get("card")
    remove = req.get("remove")
    if kind is not None and not isinstance(kind, str):
        raise Failure("bad_args", said("a_deck_kind"))
    if card is not None and (not isinstance(card, str) or card not in CODE_INDEX
                             or unhex(req.get("uid")) is None):
        raise Failure("bad_args", said("a_card_or_uid"))
    if remove is not None and (not isinstance(remove, str) or remove not in CODE_INDEX):
        raise Failure("bad_args", said("a_remove_card"))
    con.authorise(req)
    if kind is not None and not reg.has_deck(deck):
        code = reg.create_deck(deck, kind)
        if code != R.OK:
            raise Failure(R.NAMES[code], R.message(code))
    if not reg.has_deck(deck):
        raise Failure("not_found", said("a_no_deck_kind") % deck)
    if card is not None:
        code = reg.add(deck, CODE_INDEX[card], unhex(req.get("uid")))
        if code != R.OK:
            raise Failure(R.NAMES[code], R.message(code, reg.conflict))
    if remove is not None:
        code = reg.remove_card(deck, CODE_INDEX[remove])
        if code != R.OK:
            raise Failure(R.NAMES[code], R.message(code))
    missing = reg.missing(deck)
    return {"deck": deck, "kind": reg.kind(deck), "cards": reg.count(deck),
            "complete": not missing, "missing": [CARD_CODES[c] for c in missing]}


# ----- the self-test -------------------------------------------------------------------


def cmd_selftest(con, rid, req):
    """The bring-up self-test (bringup/selftest.py).  Its waits for a card per reader
    and for each button are options (``card_ms``, ``button_ms``); each line it
    reports goes out at once as a part of the answer."""
    try:
        from bringup import selftest
    except ImportError:
        raise Failure("unavailable", said("a_no_selftest")) from None
    kw = {}
    for key in ("card_ms", "button_ms"):      # how long it waits for a card, a button
        v = req.get(key)
        if v is not None:
            if not is_int(v) or not 0 <= v <= _SELFTEST_MAX_MS:
                raise Failure("bad_args", said("a_up_to") % (key, _SELFTEST_MAX_MS))
            kw[key] = v
    con.authorise(req)
    lines = []
    wire = con.wire

    def report(item):
        line = item if isinstance(item, (str, dict, list)) else str(item)
        lines.append(line)
        wire.answer(rid, {"more": True, "progress": line})
        wire.flush()                   # the client sees each step as it happens
    app = con.app
    board = app.board
    sleep = getattr(board, "sleep_ms", None)   # the simulator's virtual clock
    if sleep is None:
        import time
        sleep = getattr(time, "sleep_ms", None) or (lambda ms: time.sleep(ms / 1000))
    last = [con.clock()]

    def sleep_ms(ms):
        """The self-test's waits: the link is answered meanwhile (``meanwhile``)."""
        sleep(ms)
        now = con.clock()
        if ticks_diff(now, last[0]) >= _MEANWHILE_MS:
            last[0] = now
            meanwhile(con, now)
    try:
        result = selftest.run_selftest(board, report, sleep_ms, **kw)
    except Exception as exc:
        raise Failure("failed", said("a_selftest_failed") % (type(exc).__name__, str(exc)[:80]),
                      {"report": lines[-20:]}) from None
    finally:           # it drew on the display itself
        app.redraw()
    return {"result": result if isinstance(result, (bool, int, str, dict, list))
            or result is None else str(result), "report": lines}


def meanwhile(con, now):
    """While the self-test holds the table: ``ping`` is answered, every other
    request is refused ``busy`` (it may be sent again afterwards)."""
    wire = con.wire
    wire.begin(now)
    wire.put_held()
    k = 0
    while k < 4 and wire.room() > 1:
        raw = wire.next_line()
        if raw is None:
            break
        k += 1
        req = None if raw is OVERLONG else parse_line(raw)
        rid = req.get("id") if req is not None else None
        if not (rid is None or is_int(rid) or (isinstance(rid, str) and len(rid) <= 64)):
            rid = None
        if req is not None and req.get("cmd") == "ping":
            wire.answer(rid, {"ok": True, "t": now, "selftest": True})
        else:
            wire.fail(rid, "busy", said("a_selftest_busy"))
    wire.flush()


COMMANDS = {"set": cmd_set, "registry": cmd_registry, "enrol": cmd_enrol,
            "selftest": cmd_selftest}
