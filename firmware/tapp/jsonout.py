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
_RANK = {k: i for i, k in enumerate(KEY_ORDER)}
# the keys a line names most, as written there ('"key":': a call per key saved;
# on the Pico a call costs tens of microseconds, and a bid's line took 5 ms).
# Written out, not made from the keys at import: the texts then stay in the
# ROMFS image (1.6 KB less heap on the device; tests/mp/mptest_engine.py
# checks each against its key).
KEY_JSON = {
    "ok": '"ok":', "error": '"error":', "seat": '"seat":', "card": '"card":',
    "trick": '"trick":', "revoke": '"revoke":', "result": '"result":', "n": '"n":',
    "leader": '"leader":', "cards": '"cards":', "winner": '"winner":',
    "declarer": '"declarer":', "contract": '"contract":', "trump": '"trump":',
    "target": '"target":', "points": '"points":', "tricks": '"tricks":', "won": '"won":',
    "schneider": '"schneider":', "schwarz": '"schwarz":', "multiplier": '"multiplier":',
    "payments": '"payments":', "pot": '"pot":', "balances": '"balances":',
    "pot_total": '"pot_total":', "next_dealer": '"next_dealer":', "penalty": '"penalty":',
    "settled_points": '"settled_points":', "session_over": '"session_over":',
    "rule": '"rule":', "ev": '"ev":', "dealer": '"dealer":', "hands": '"hands":',
    "talon": '"talon":', "call": '"call":', "discard": '"discard":', "give": '"give":',
    "reason": '"reason":', "announce": '"announce":', "options": '"options":',
    "variant": '"variant":', "players": '"players":', "mode": '"mode":',
    "seats": '"seats":', "first_dealer": '"first_dealer":', "record": '"record":',
}


def _key(k):
    return (_RANK.get(k, len(KEY_ORDER)), k)


def _str(s):
    for ch in s:
        if ch < " " or ch == '"' or ch == "\\" or ch >= "\ud800":
            return _escaped(s)
    return '"' + s + '"'        # nothing to escape (card codes, words): one concatenation


def _escaped(s):
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
    """Encode dicts, lists, str, int, bool and None; dict keys in KEY_ORDER."""
    if v is None:
        return "null"
    if v is True:
        return "true"
    if v is False:
        return "false"
    if isinstance(v, int):
        return str(v)
    if isinstance(v, str):
        return _str(v)
    # loops, not generator expressions: a generator resumed by join() costs a
    # second interpreter frame on the C stack per level, and the deal's event
    # (hands: lists in a list in a dict) is written deep in the game's calls --
    # on the Pico one more frame there was once too many
    parts = []
    if isinstance(v, (list, tuple)):
        for x in v:     # strings (card codes) straight to _str: half the calls
            parts.append(_str(x) if isinstance(x, str) else dumps(x))
        return "[" + ",".join(parts) + "]"
    if isinstance(v, dict):
        for k in sorted(v.keys(), key=_key):
            parts.append((KEY_JSON.get(k) or _str(k) + ":") + dumps(v[k]))
        return "{" + ",".join(parts) + "}"
    raise TypeError("cannot encode " + str(type(v)))

