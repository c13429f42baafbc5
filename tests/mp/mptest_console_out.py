# The console's output buffer (firmware/table/console_out.py) on every runtime.
#
# A connected console writes its answers and live events into one bytearray
# instead of making each a str line: these tests hold it to the bytes
# tapp.jsonout.dumps gives (the clients and the replay compare lines), to
# allocating nothing but one small memoryview per str on the way (a dict of
# many keys is not sorted again for the same keys), and to its
# promises: a line that does not fit is kept (spilled, in order), a value
# that cannot be written leaves nothing behind, whole lines leave.
try:
    from micropython import mem_total
except ImportError:      # CPython, the wasm port
    mem_total = None

from random_deals import Lcg

from table.console_out import Outbox, line_of
from tapp.jsonout import KEY_ORDER, RawJson

WORDS = ("", "tag", "placed", 'a"b', "back\\slash", "\x01\x1f", "J\u00fcrgen", "\u2665 7",
         "\ud7ff\ue000\uffff", "Stra\u00dfe", "x" * 40)
KEYS = KEY_ORDER[:12] + ("event", "reader", "state", "zeta", "alpha", "a\"q", "J\u00fcrgen")


def _value(rng, depth):
    k = rng.below(9 if depth < 3 else 5)
    if k == 0:
        return None
    if k == 1:
        return rng.below(2) == 1
    if k == 2:
        return rng.below(1 << 29) - (1 << 28)
    if k == 3:
        return rng.below(10)
    if k == 4:
        return rng.choice(WORDS)
    if k == 5:
        return [_value(rng, depth + 1) for _ in range(rng.below(4))]
    if k == 6:
        return tuple(_value(rng, depth + 1) for _ in range(rng.below(3)))
    return _dict(rng, depth + 1)


def _dict(rng, depth):
    d = {}
    for _ in range(rng.below(6)):
        d[rng.choice(KEYS)] = _value(rng, depth)
    return d


def _out(box):
    """Everything the box has to write, as str; the box emptied."""
    parts = []
    chunk = box.chunk(1 << 16)
    while chunk is not None:
        parts.append(str(bytes(chunk), "utf-8"))
        box.sent(len(chunk))
        chunk = box.chunk(1 << 16)
    s = box.spilled()
    while s is not None:
        parts.append(s + "\n")
        box.spilled(True)
        s = box.spilled()
    return "".join(parts)


def test_every_line_is_the_bytes_dumps_gives():
    rng = Lcg(7)
    box = Outbox()
    for k in range(300):
        body = _dict(rng, 0)
        rid = (None, k, "r%d" % k, -3)[k % 4]
        box.put(body, rid)
        got = _out(box)
        assert got == line_of(body, rid) + "\n", (body, rid, got)
        assert box.lines() == 0


def test_a_journal_line_goes_in_as_it_is():
    box = Outbox()
    text = '{"seat":1,"card":"H7","ev":"play"}'
    box.put({"event": "accepted", "n": 12, "ev": RawJson(text)}, None)
    assert _out(box) == '{"n":12,"ev":%s,"event":"accepted"}\n' % text


def _native():
    """Does this port copy plain strs by machine code (tapp/jsonout_native.py)?"""
    from tapp import jsonout
    return getattr(jsonout, "jsonout_native", None) is not None


def test_an_event_allocates_only_the_view_of_the_line_taken_out():
    """A tag event: its strs are printable ASCII, copied by machine code
    where the port compiles viper (the unix port, the Pico): only the view of
    the line taken out is made (a memoryview is 32 bytes on the 64-bit unix
    port); before, a view of each str, and before that some 1.5 KB."""
    if mem_total is None:
        return
    assert _native()                          # the unix port compiles viper
    box = Outbox()
    body = {"event": "tag", "reader": 3, "state": "placed"}
    box.put(body, None)
    box.sent(len(box.chunk(4096)))
    m0 = mem_total()
    for _ in range(10):
        box.put(body, None)
        box.sent(len(box.chunk(4096)))
    grew = (mem_total() - m0) // 10
    print("  a tag event: %d bytes allocated" % grew)
    assert grew <= 32, grew


def test_a_status_answer_written_again_is_not_sorted_again():
    """A dict of many keys written again with the same keys: its keys are
    not sorted again (two lists a time); written as dumps writes it, without
    a view of any of its plain keys."""
    if mem_total is None:
        return
    box = Outbox()
    body = {}
    for k in KEYS:
        if k.isalpha() or "_" in k:          # (an escaped key is made anew each time)
            body[k] = 1
    box.put(body, 5)
    box.sent(len(box.chunk(4096)))
    m0 = mem_total()
    box.put(body, 5)
    got = box.chunk(4096)
    grew = mem_total() - m0
    assert str(bytes(got), "utf-8") == line_of(body, 5) + "\n"
    plain = [k for k in body if k.isascii()] if hasattr("", "isascii") else \
        [k for k in body if max(k) < "\x7f"]
    print("  %d keys, %d of them plain: %d bytes allocated" % (len(body), len(plain), grew))
    assert len(body) > 12 and grew <= (len(body) - len(plain) + 1) * 32, grew


def test_plain_and_other_strs_are_written_as_dumps_writes_them():
    """Every byte a str's UTF-8 can hold at each place of a str, and the
    characters that must be escaped: the machine-code copy (printable ASCII)
    and the other way give dumps' bytes, also where the copy stops half-way."""
    from tapp.jsonout import dumps
    box = Outbox()
    odd = ("\"", "\\", "\x00", "\x1f", "\x7f", "\x80", "\u00e4", "\u2665", "\ud800", "\ue000",
           "\uffff", " ", "~")
    for c in odd:
        for s in (c, "ab" + c, c + "cd", "ab" + c + "cd" * 20):
            box.put({"w": s}, None)
            got = str(bytes(box.chunk(4096)), "utf-8")
            box.sent(len(got.encode("utf-8")))
            assert got == dumps({"w": s}) + "\n", (s, got)
    print("  %d strs written as dumps writes them (machine code: %s)" % (
        len(odd) * 4, _native()))


def test_dicts_of_many_keys_are_written_in_order_whatever_came_before():
    """The kept order of a dict's keys is the order of those keys only: a
    dict with other keys, as many of them, one more or one fewer, a key
    taken out and another put in -- each line is dumps' line."""
    rng = Lcg(11)
    box = Outbox()
    body = {}
    for k in KEYS[:8]:
        body[k] = 1
    for _ in range(120):
        if rng.below(2) and len(body) > 5:
            del body[rng.choice(list(body))]
        else:
            body[rng.choice(KEYS)] = rng.below(9)
        other = {}
        for k in KEYS:
            if k not in body and len(other) < len(body):
                other[k] = 2
        for d in (body, other, body):
            box.put(d, None)
            got = _out(box)
            assert got == line_of(d) + "\n", (d, got)


def test_a_line_that_does_not_fit_is_spilled_and_the_order_kept():
    box = Outbox()
    small = {"event": "tag", "reader": 1, "state": "placed"}
    big = {"more": True, "line": "x" * 1100}
    want = []
    for k in range(20):                       # some 900 bytes of the buffer's 1 KB
        small["reader"] = k
        box.put(small, None)
        want.append(line_of(small))
    box.put(big, 9)                           # does not fit: spilled
    want.append(line_of(big, 9))
    small["reader"] = 99
    box.put(small, None)                      # after the spilled one, so spilled too
    want.append(line_of(small))
    assert box.lines() == 22
    assert _out(box).split("\n") == want + [""]
    assert box.lines() == 0


def test_whole_lines_leave_and_the_buffer_is_used_again():
    box = Outbox()
    body = {"event": "tag", "reader": 2, "state": "lifted"}
    line = line_of(body) + "\n"
    for _ in range(3):
        box.put(body, None)
    chunk = box.chunk(len(line) * 2 + 5)      # two lines and a bit: the two lines
    assert str(bytes(chunk), "utf-8") == line * 2
    box.sent(len(chunk))
    assert box.chunk(len(line) - 1) is None   # not even one line: nothing
    for _ in range(22):                       # the rest: the last spilled (no room at the end)
        box.put(body, None)
    assert _out(box) == line * 23 and box.lines() == 0


def test_a_value_that_cannot_be_written_leaves_nothing():
    box = Outbox()
    box.put({"event": "tag", "reader": 1, "state": "placed"}, None)
    before = box.lines()
    try:
        box.put({"event": "x", "bad": 1.5}, 3)
        raised = False
    except TypeError:
        raised = True
    assert raised
    assert box.lines() == before
    assert _out(box) == line_of({"event": "tag", "reader": 1, "state": "placed"}) + "\n"


class _SlowHost:
    """The output end of a link whose host reads only when told (``room``)."""

    def __init__(self):
        self.free = 0
        self.got = []

    def room(self):
        return self.free

    def write(self, data):
        text = data if isinstance(data, str) else str(bytes(data), "utf-8")
        self.free -= len(text)
        self.got.append(text)
        return len(text)


class _NoInput:
    def readinto(self, buf):
        return None


def test_a_host_that_does_not_read_loses_events_past_the_queue_and_is_told():
    from table.console_link import Wire

    host = _SlowHost()
    wire = Wire(_NoInput(), host)
    for k in range(60):
        wire.event({"event": "tag", "reader": k, "state": "placed"})
    wire.answer(1, {"ok": True})                  # an answer is never dropped
    wire.flush()
    assert host.got == [] and wire.dropped_total == 12
    host.free = 1 << 20                           # the host reads again
    for _ in range(5):
        wire.flush()
    lines = "".join(host.got).split("\n")
    assert lines[-1] == ""
    want = [line_of({"event": "tag", "reader": k, "state": "placed"}) for k in range(48)]
    assert lines[:48] == want
    assert lines[48:-1] == [line_of({"ok": True}, 1), line_of({"event": "dropped", "count": 12})]
    assert wire.empty()
