"""Compact, canonical JSON for outcome lines.

MicroPython's dicts do not keep insertion order, so outcome lines are written
by this encoder with a fixed key order; CPython and MicroPython then print
byte-identical lines (the issue's replay-equivalence test relies on it).
"""
KEY_ORDER = (
    "ok", "error", "seat", "card", "trick", "revoke", "result",
    "n", "leader", "cards", "winner",
    "declarer", "contract", "trump", "target", "points", "tricks", "won",
    "schneider", "schwarz", "multiplier", "payments", "pot", "balances",
    "pot_total", "next_dealer", "penalty", "settled_points", "session_over",
    "rule",
)
KEY_RANK = {k: i for i, k in enumerate(KEY_ORDER)}
# the keys a line names most besides KEY_ORDER's: written as they are, in three
# pieces ('"', the key, '":'), without the look at each character a key of a
# dict from elsewhere gets (``_put_str``).  Not as '"key":' literals: each would
# be a qstr of its own, and the Pico's qstr pool is near a 15 KB step
# (docs/benchmarks.md, "The qstr pool").
PLAIN_KEYS = ("ev", "dealer", "hands", "talon", "call", "discard", "give", "reason",
              "announce", "options", "variant", "players", "mode", "seats", "first_dealer",
              "record")


class RawJson:
    """A value that is JSON text already, written as it is (``text``): a
    journal line inside a console event, not parsed and written again."""

    def __init__(self, text):
        self.text = text


def _put_str(s, out):
    """``s`` quoted onto ``out``; escaped (``escaped``) where it holds a
    quote, a backslash, a control character or a byte that may begin a
    surrogate or a character beyond the BMP (UTF-8 0xED and up: a superset,
    ``escaped`` writes the rest as they are).  Looked at as bytes by C
    loops: a str's characters one by one cost a 1-character str each, about
    100 us apiece on the Pico."""
    b = s.encode("utf-8", "surrogatepass")   # (CPython: a lone surrogate too)
    if b'"' in b or b"\\" in b or (b and (min(b) < 0x20 or max(b) >= 0xED)):
        out.append(escaped(s))
        return
    out.append('"')               # nothing to escape (card codes, words): no new text
    out.append(s)
    out.append('"')


def escaped(s):
    """``s`` as a JSON string, quoted and escaped (``_put_str`` says which)."""
    out = ['"']
    for ch in s:
        o = ord(ch)
        if ch == '"':
            out.append('\\"')
        elif ch == "\\":
            out.append("\\\\")
        elif o < 0x20 or 0xD800 <= o <= 0xDFFF:
            # control characters, and surrogates: CPython cannot write a lone one
            # as UTF-8, MicroPython keeps a \u-escaped pair as two halves
            out.append("\\u%04x" % o)
        elif o > 0xFFFF:
            # as a \u pair, which is what MicroPython's two halves print as too
            o -= 0x10000
            out.append("\\u%04x\\u%04x" % (0xD800 + (o >> 10), 0xDC00 + (o & 0x3FF)))
        else:
            out.append(ch)
    out.append('"')
    return "".join(out)


def dumps(v):
    """Encode dicts, lists, str, int, bool and None; dict keys in KEY_ORDER.
    The pieces are gathered and joined once: on the Pico every new str costs
    a search of MicroPython's interned strings (about 50 us; a session's
    header, concatenated piece by piece, took 27 ms)."""
    out = []
    _put(v, out)
    return "".join(out)


def _put(v, out):
    """``v`` encoded onto the list ``out``.  Loops, not generator
    expressions: a generator resumed by join() costs a second interpreter
    frame on the C stack per level, and the deal's event (hands: lists in a
    list in a dict) is written deep in the game's calls -- on the Pico one
    more frame there was once too many."""
    if v is None:
        out.append("null")
    elif v is True:
        out.append("true")
    elif v is False:
        out.append("false")
    elif isinstance(v, int):
        out.append(str(v))
    elif isinstance(v, str):
        _put_str(v, out)
    elif isinstance(v, (list, tuple)):
        out.append("[")
        sep = False
        for x in v:
            if sep:
                out.append(",")
            sep = True
            _put(x, out)
        out.append("]")
    elif isinstance(v, dict):
        _put_dict(v, out)
    elif isinstance(v, RawJson):
        out.append(v.text)
    else:
        raise TypeError("cannot encode " + str(type(v)))


def _put_dict(v, out):
    """The keys of KEY_ORDER in its order, then the others by name (not
    sorted by a (rank, name) tuple per key: a status answer's keys made a few
    KB of garbage)."""
    out.append("{")
    sep = False
    known = sorted(KEY_RANK[k] for k in v if k in KEY_RANK)
    for r in known:
        sep = _put_item(KEY_ORDER[r], v, out, sep)
    if len(known) < len(v):
        for k in sorted(k for k in v if k not in KEY_RANK):
            sep = _put_item(k, v, out, sep)
    out.append("}")


def _put_item(k, v, out, sep):
    if sep:
        out.append(",")
    if k in KEY_RANK or k in PLAIN_KEYS:
        out.append('"')
        out.append(k)
        out.append('":')
    else:
        _put_str(k, out)
        out.append(":")
    _put(v[k], out)
    return True
