# Hostile record input inside MicroPython: the bounded line reader and the
# strict line check (firmware/tapp/record.py).  Runs under the unix port with a
# hard heap -- the replay's 512 KB, of which the engine takes about 190 KB on
# this 64-bit port: a 10 MB line or 5000 open brackets would not fit if they
# were kept --, the 32-bit WebAssembly port, and CPython (mprunner.py).
# mp-heapsize: 512k
# The byte-for-byte comparison of outcome lines across the three runtimes is
# tests/test_hostile_input.py; this module checks the pieces from inside.
import gc
import io
import sys

from tapp.record import (
    MAX_DEPTH,
    MAX_LINE,
    MAX_VALUES,
    OVERLONG,
    LineReader,
    check_json,
    parse_line,
    with_crc,
)
from tapp.replay import Replayer, replay_stream

HEADER = '{"record":1,"variant":"wuerttemberg","players":3,"first_dealer":0}'
BAD = '{"ok":false,"error":"bad_event"}'
WP = '{"ok":false,"error":"wrong_phase"}'


class Lcg:
    """A tiny deterministic generator (the same numbers on every runtime)."""

    def __init__(self, seed):
        self.x = seed

    def next(self, n):
        self.x = (self.x * 1103515245 + 12345) & 0x3FFFFFFF
        return (self.x >> 8) % n


class Gen:
    """A byte stream of ``count`` copies of ``fill`` after ``head`` and before
    ``tail``, made chunk by chunk: a huge line that never exists in memory."""

    def __init__(self, head, fill, count, tail):
        self.parts = [head]
        self.fill = fill
        self.left = count
        self.tail = tail

    def read(self, n):
        if self.parts:
            return self.parts.pop()
        if self.left > 0:
            k = min(self.left, n)
            self.left -= k
            return self.fill * k
        t = self.tail
        self.tail = b""
        return t


class GenInto(Gen):
    """Gen with readinto: the fill bytes are written into the reader's buffer."""

    def readinto(self, buf):
        if self.parts or self.left < len(buf):
            data = self.read(len(buf))
            buf[0:len(data)] = data
            return len(data)
        self.left -= len(buf)
        for i in range(len(buf)):
            buf[i] = self.fill[0]
        return len(buf)


class Trickle:
    """A non-blocking stream: every other read has no data (None)."""

    def __init__(self, data):
        self.data = data
        self.pos = 0
        self.tick = 0

    def read(self, n):
        self.tick += 1
        if self.tick % 2:
            return None
        if self.pos >= len(self.data):
            return b""
        n = 3 if n > 3 else n
        out = self.data[self.pos:self.pos + n]
        self.pos += n
        return out


def _mem():
    """Heap bytes in use; 0 where that is no measure (CPython; the wasm port,
    whose heap grows and whose gc.collect() keeps what the JS stack may hold)."""
    if sys.platform == "webassembly" or not hasattr(gc, "mem_alloc"):
        return 0
    return gc.mem_alloc()


def _lines(data, chunk, limit=MAX_LINE):
    return list(LineReader(io.BytesIO(data), limit, chunk))


def test_reader_splits_like_bytes_split_in_any_chunk_size():
    data = b"a\nbc\r\n\n" + b"x" * 20 + b"\nlast"
    want = [b"a", b"bc\r", b"", OVERLONG, b"last"]
    for chunk in (1, 2, 3, 5, 7, 16, 256):
        got = _lines(data, chunk, limit=19)
        assert got == want, (chunk, got)


def test_reader_limit_is_inclusive():
    for chunk in (1, 4, 256):
        assert _lines(b"x" * 10 + b"\n" + b"y" * 11 + b"\n", chunk, 10) == [b"x" * 10, OVERLONG]


def _random_stream(rng, alphabet, longest, least, limits):
    """(bytes of up to ``longest`` from ``alphabet``, a limit from ``least`` on, a chunk size)."""
    n = rng.next(longest)
    data = bytes(alphabet[rng.next(len(alphabet))] for _ in range(n))
    limit = least + rng.next(limits)
    return data, limit, 1 + rng.next(9)


def test_reader_random_streams_match_reference():
    rng = Lcg(7)
    for _ in range(60):
        data, limit, chunk = _random_stream(rng, b"ab\n\n\r\xff{", 80, 1, 12)
        parts = data.split(b"\n")
        if parts and parts[-1] == b"":
            parts.pop()
        want = [p if len(p) <= limit else OVERLONG for p in parts]
        got = _lines(data, chunk, limit)
        assert got == want, (data, limit, chunk, got)


def test_a_small_line_buffer_takes_longer_lines_up_to_the_limit():
    """A console's reader: a few bytes of its own for the usual short lines, a
    buffer of the limit's size only while a longer line is read."""
    rng = Lcg(11)
    for _ in range(40):
        data, limit, chunk = _random_stream(rng, b"ab\n{", 120, 5, 30)
        small = bytearray(4)
        rd = LineReader(io.BytesIO(data), limit, chunk, line=small)
        got = list(rd)
        assert got == _lines(data, chunk, limit), (data, limit, chunk, got)
    small = bytearray(4)
    rd = LineReader(io.BytesIO(b"ab\n" + b"x" * 50 + b"\nyz\n"), 60, 7, line=small)
    assert [rd.readline(), rd.readline(), rd.readline()] == [b"ab", b"x" * 50, b"yz"]
    assert small[0:2] == b"yz"            # after the long line, its own buffer again


def test_reader_counts_lines_and_ends():
    rd = LineReader(io.BytesIO(b"a\nb"))
    assert rd.readline() == b"a" and rd.lineno == 1 and not rd.eof
    assert rd.readline() == b"b" and rd.lineno == 2
    assert rd.readline() is None and rd.eof
    assert rd.readline() is None


def test_reader_keeps_a_partial_line_when_no_data_is_there_yet():
    rd = LineReader(Trickle(b"hello\nworld\n"), chunk=8)
    got = []
    for _ in range(200):
        line = rd.readline()
        if line is not None:
            got.append(line)
        elif rd.eof:
            break
    assert got == [b"hello", b"world"], got


def test_a_10_mb_line_is_skipped_in_bounded_memory():
    # The unix port runs this in a 512 KB heap: keeping the line would fail.
    for gen in (Gen(b'{"ev":"undo","x":"', b"a", 10 * 1024 * 1024, b'"}\n{"ev":"undo"}\n'),
                GenInto(b"[", b"[", 200 * 1024, b'\n{"ev":"undo"}\n')):
        rd = LineReader(gen)
        gc.collect()
        before = _mem()
        assert rd.readline() is OVERLONG
        gc.collect()
        kept = _mem() - before
        assert kept < 1024, kept     # nothing of the line is kept
        assert rd.readline() == b'{"ev":"undo"}'
        assert rd.readline() is None


def test_a_deep_line_is_bad_event_without_recursion():
    rep = Replayer(HEADER)
    assert rep.feed(b"[" * 3000) == BAD
    assert rep.feed(b'{"a":' + b"[" * 1500 + b"]" * 1500 + b"}") == BAD
    assert rep.feed(b'{"a":' * 600 + b"1" + b"}" * 600) == BAD
    assert rep.feed('{"ev":"undo"}') == WP


def test_depth_and_value_limits():
    ok = b'{"x":' + b"[" * (MAX_DEPTH - 1) + b"1" + b"]" * (MAX_DEPTH - 1) + b"}"
    assert check_json(ok)
    assert not check_json(b'{"x":' + b"[" * MAX_DEPTH + b"1" + b"]" * MAX_DEPTH + b"}")
    # the object, its key and the list count too
    values = b'{"x":[' + b",".join([b"0"] * (MAX_VALUES - 3)) + b"]}"
    assert check_json(values)
    assert not check_json(b'{"x":[' + b",".join([b"0"] * (MAX_VALUES - 2)) + b"]}")


def test_longest_line_parses_within_the_heap():
    pad = MAX_LINE - len('{"ev":"undo","x":""}')
    line = b'{"ev":"undo","x":"' + b"a" * pad + b'"}'
    assert len(line) == MAX_LINE
    assert parse_line(line) is not None
    assert parse_line(line + b"\n") is not None
    assert parse_line(line + b"\r\n") is None        # the CR makes it one byte too long
    assert parse_line(line[:-1] + b'a"}') is None


def test_lax_json_is_refused_here_too():
    for text in (b'{"ev":"bid","seat":2,"call":"spiele",}', b'{"ev":"undo"}\x00',
                 b'{"ev":"und\\o"}', b'{"a" 1}', b'{"a":1 "b":2}', b'{"a":01}', b"{1:2}",
                 b'{"a":NaN}', b'{"a":Infinity}', b'{"a":"\\ud800"}', b'{"a":"\xed\xa0\x80"}',
                 b'{"a":"\xff"}', b'{"a":"x\x01"}', b'\xef\xbb\xbf{"ev":"undo"}',
                 b'{"ev":"undo"}\r{"ev":"undo"}'):
        assert parse_line(text) is None, text


def test_crc_suffix_any_case():
    line = with_crc('{"ev":"undo"}')
    assert parse_line(line) == {"ev": "undo"}
    assert parse_line(line.upper().replace('{"EV":"UNDO"}', '{"ev":"undo"}')) == {"ev": "undo"}
    assert parse_line(line[:-1] + ("0" if line[-1] != "0" else "1")) is None
    assert parse_line(line[:-3]) is None


def test_replay_stream_torn_tail_and_bom():
    out = []
    data = (b"\xef\xbb\xbf" + HEADER.encode() + b"\n" + b'{"ev":"undo"}\n'
            + b"\xff" * 5000)
    replay_stream(LineReader(io.BytesIO(data), chunk=64), out.append)
    assert out == [WP + "\n", BAD + "\n"], out
    out = []
    replay_stream(LineReader(io.BytesIO(HEADER.encode() + b'\n{"ev":"undo"}\n{"ev":"pl')),
                  out.append)
    assert out == [WP + "\n", BAD + "\n"], out


def test_echoes_are_bounded():
    rep = Replayer(HEADER)
    huge = rep.feed('{"ev":"play","seat":1' + "0" * 400 + ',"card":"HA"}')
    assert '"seat"' not in huge and len(huge) < 80, huge
    long_card = rep.feed('{"ev":"play","seat":1,"card":"' + "H" * 3000 + '"}')
    assert len(long_card) < 80, long_card
