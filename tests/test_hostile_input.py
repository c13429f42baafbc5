"""Hostile record input: the same outcome on every runtime, bounded, no tracebacks.

Every sample below is a record file (mostly a good header and deal, then one
hostile line between two reference lines).  It is replayed by the engine's own
replay script (tools/tapptable/mpreplay.VM_SCRIPT) under CPython, inside the
MicroPython unix port (hard 512 KB heap) and inside the 32-bit WebAssembly port;
the three outputs must be identical line for line, and match the expectation.
Then: a seeded fuzz over random bytes and mutated golden records, the line
reader on random byte streams on all three runtimes, and the command line
(replay FILE vs replay -, the micropython runtime, simulate/demo arguments).
"""
import io
import os
import random
import subprocess
import sys

import pytest

from tapp.record import MAX_LINE, MAX_VALUES, LineReader, with_crc
from tapp.replay import Replayer, replay_stream
from tools import mpvm
from tools.tapptable import cli, mpreplay
from tools.tapptable.atomic import WriteError, write_lines
from tools.tapptable.mpreplay import VM_SCRIPT, run_replay, split_batch

ROOT = mpvm.repo_root()
GOLDEN = ROOT / "tests" / "golden"
W_LINES = (GOLDEN / "wuerttemberg_3_strict_pot.jsonl").read_bytes().split(b"\n")
HEADER, DEAL = W_LINES[0], W_LINES[1]      # wuerttemberg, 3 players, a deal in its auction
REF = b'{"ev":"play","seat":1,"card":"HA"}'  # refused (wrong_phase) and inert: a marker
BAD = '{"ok":false,"error":"bad_event"}'
OK = '{"ok":true}'


def _ref_outcome():
    rep = Replayer(HEADER)
    rep.feed(DEAL)
    return rep.feed(REF)


REF_OUT = _ref_outcome()
SAME = object()     # expectation: the outcome of REF (a valid line, read like REF)
BLANK = object()    # expectation: no outcome


def _pad(n, start=b'{"ev":"play","seat":1,"card":"HA","x":"', end=b'"}'):
    """REF with an unknown key padded so that the line is exactly n bytes."""
    return start + b"a" * (n - len(start) - len(end)) + end


def _deep(depth):
    return b'{"ev":"play","seat":1,"card":"HA","x":' + b"[" * depth + b"]" * depth + b"}"


def _values(n):
    """A valid-looking line with n values and keys in all."""
    head = b'{"ev":"play","seat":1,"card":"HA","x":['   # 9 values and keys before the zeros
    return head + b",".join([b"0"] * (n - 9)) + b"]}"


# (id, the hostile line, expectation: BAD, SAME, BLANK or a predicate on the outcome)
LINES = [
    ("trailing_comma", b'{"ev":"bid","seat":2,"call":"spiele",}', BAD),
    ("trailing_nul", REF + b"\x00", BAD),
    ("unknown_escape", b'{"ev":"und\\o"}', BAD),
    ("missing_colon", b'{"ev" "play","seat":1,"card":"HA"}', BAD),
    ("missing_comma", b'{"ev":"play" "seat":1,"card":"HA"}', BAD),
    ("leading_zero", b'{"ev":"play","seat":01,"card":"HA"}', BAD),
    ("int_key", b'{1:2}', BAD),
    ("single_quotes", b"{'ev':'undo'}", BAD),
    ("nan", b'{"ev":"play","seat":1,"card":"HA","x":NaN}', BAD),
    ("infinity", b'{"ev":"play","seat":1,"card":"HA","x":-Infinity}', BAD),
    ("list_trailing_comma", b'{"ev":"play","seat":1,"card":"HA","x":[1,]}', BAD),
    ("plus_number", b'{"ev":"play","seat":+1,"card":"HA"}', BAD),
    ("bare_fraction", b'{"ev":"play","seat":1,"card":"HA","x":.5}', BAD),
    ("exponent_without_digits", b'{"ev":"play","seat":1,"card":"HA","x":1e}', BAD),
    ("literal_typo", b'{"ev":"play","seat":1,"card":"HA","x":tru}', BAD),
    ("two_objects", REF + REF, BAD),
    ("not_an_object", b"[1,2]", BAD),
    ("empty_object", b"{}", BAD),
    ("control_char_in_string", b'{"ev":"play","seat":1,"card":"H\x01A"}', BAD),
    ("raw_tab_in_string", b'{"ev":"play","seat":1,"card":"H\tA"}', BAD),
    ("vertical_tab_after", REF + b"\x0b", BAD),
    ("nbsp_line", "\u00a0".encode(), BAD),
    ("form_feed_line", b"\x0c", BAD),
    ("bom_inside_record", b"\xef\xbb\xbf" + REF, BAD),
    ("cr_only_line_ends", REF + b"\r" + REF, BAD),
    ("crlf_line_end", REF + b"\r", SAME),
    ("whitespace_around", b" \t" + REF + b"  ", SAME),
    ("blank_spaces", b"  \t ", BLANK),
    ("blank_cr", b"\r", BLANK),
    ("lone_high_surrogate_card", b'{"ev":"play","seat":1,"card":"\\ud800"}', BAD),
    ("lone_low_surrogate_card", b'{"ev":"play","seat":1,"card":"\\udcff"}', BAD),
    ("reversed_surrogate_pair", b'{"ev":"play","seat":1,"card":"HA","x":"\\udc00\\ud800"}',
     BAD),
    ("surrogate_pair", b'{"ev":"play","seat":1,"card":"HA","x":"\\ud83d\\ude00"}', SAME),
    ("surrogate_pair_as_card", b'{"ev":"play","seat":1,"card":"\\ud83d\\ude00"}',
     lambda out: '"card"' not in out and out.startswith('{"ok":false')),
    ("utf8_encoded_surrogate", b'{"ev":"play","seat":1,"card":"\xed\xa0\x80"}', BAD),
    ("utf8_overlong_slash", b'{"ev":"play","seat":1,"card":"HA","x":"\xc0\xaf"}', BAD),
    ("utf8_invalid_ff", b'{"ev":"play","seat":1,"card":"\xff"}', BAD),
    ("utf8_truncated", b'{"ev":"play","seat":1,"card":"HA","x":"\xe2\x82"}', BAD),
    ("utf8_above_10ffff", b'{"ev":"play","seat":1,"card":"HA","x":"\xf4\x90\x80\x80"}', BAD),
    ("utf8_valid_text", '{"ev":"play","seat":1,"card":"HA","x":"Württemberg ♥ 😀"}'.encode(),
     SAME),
    ("escaped_nul", b'{"ev":"play","seat":1,"card":"HA","x":"\\u0000"}', SAME),
    ("escaped_key", b'{"\\u0065v":"play","seat":1,"card":"HA"}', SAME),
    ("duplicate_key_last_wins", b'{"ev":"redeal","ev":"play","seat":1,"card":"HA"}', SAME),
    ("erased_flash_line", b"\xff" * 64, BAD),
    ("depth_8", _deep(7), SAME),
    ("depth_9", _deep(8), BAD),
    ("deep_5000_open", b"[" * 5000, BAD),
    ("deep_5000_balanced", _deep(5000), BAD),
    ("values_at_limit", _values(MAX_VALUES), SAME),
    ("values_over_limit", _values(MAX_VALUES + 1), BAD),
    ("length_at_limit", _pad(MAX_LINE), SAME),
    ("length_at_limit_crlf", _pad(MAX_LINE - 1) + b"\r", SAME),
    ("length_over_limit", _pad(MAX_LINE + 1), BAD),
    ("line_200k", _pad(200 * 1024), BAD),
    ("float_seat", b'{"ev":"play","seat":1.0,"card":"HA"}',
     lambda out: '"seat"' not in out and out.startswith('{"ok":false')),
    ("bool_seat", b'{"ev":"play","seat":true,"card":"HA"}',
     lambda out: '"seat"' not in out and out.startswith('{"ok":false')),
    ("huge_seat", b'{"ev":"bid","seat":1' + b"0" * 400 + b',"call":"pass"}', BAD),
    ("seat_out_of_range", b'{"ev":"bid","seat":7,"call":"pass"}', BAD),
    ("negative_seat", b'{"ev":"bid","seat":-1,"call":"pass"}', BAD),
    ("long_card", b'{"ev":"play","seat":1,"card":"' + b"H" * 3000 + b'"}',
     lambda out: '"card"' not in out and len(out) < 80),
    ("control_card", b'{"ev":"play","seat":1,"card":"H\\nA"}',
     lambda out: '"card"' not in out and "\\" not in out),
    ("huge_int_unknown_key", b'{"ev":"play","seat":1,"card":"HA","x":' + b"9" * 4000 + b"}",
     SAME),
    ("huge_float_unknown_key", b'{"ev":"play","seat":1,"card":"HA","x":1e400}', SAME),
    ("tiny_float_unknown_key", b'{"ev":"play","seat":1,"card":"HA","x":-4.9e-324}', SAME),
    ("minus_zero", b'{"ev":"play","seat":-0,"card":"HA"}', lambda out: out.startswith(
        '{"ok":false,"error":"wrong_phase","seat":0')),
    ("crc_ok", with_crc(REF.decode()).encode(), SAME),
    ("crc_upper_case", REF + b"\t" + with_crc(REF.decode())[-8:].upper().encode(), SAME),
    ("crc_crlf", with_crc(REF.decode()).encode() + b"\r", SAME),
    ("crc_wrong", REF + b"\t00000000", BAD),
    ("crc_torn", with_crc(REF.decode()).encode()[:-3], BAD),
    ("crc_space_after", with_crc(REF.decode()).encode() + b" ", BAD),
    ("crc_seven_digits", REF + b"\t" + with_crc(REF.decode())[-7:].encode(), BAD),
    ("crc_over_lax_json", with_crc('{"ev":"undo",}').encode(), BAD),
]

_VALID_HEADER = (b'{"record":1,"variant":"wuerttemberg","players":3,"first_dealer":0,'
                 b'"options":%s}')


def _header_error(*words):
    def check(text):
        lines = text.splitlines()
        assert len(lines) == 1 and lines[0].startswith("!!! bad header: "), text
        msg = lines[0]
        assert all(0x20 <= ord(c) < 0x7F for c in msg), msg
        for w in words:
            assert w in msg, (w, msg)
        return True
    return check


def _opts(text):
    return _VALID_HEADER % text.encode()


# (id, the whole record, expectation: the output lines, or a predicate on the text)
RECORDS = [
    ("bom_at_start", b"\xef\xbb\xbf" + HEADER + b"\n" + DEAL + b"\n" + REF + b"\n",
     [OK, REF_OUT]),
    ("bom_then_blank_line", b"\xef\xbb\xbf\n" + HEADER + b"\n" + DEAL + b"\n", [OK]),
    ("crlf_file", HEADER + b"\r\n" + DEAL + b"\r\n" + REF + b"\r\n", [OK, REF_OUT]),
    ("no_final_newline", HEADER + b"\n" + DEAL, [OK]),
    ("torn_tail_ff", HEADER + b"\n" + DEAL + b"\n" + b"\xff" * 3000, [OK, BAD]),
    ("torn_tail_ff_long", HEADER + b"\n" + DEAL + b"\n" + b"\xff" * 10000, [OK, BAD]),
    ("torn_tail_cut", HEADER + b"\n" + DEAL + b"\n" + REF[:11], [OK, BAD]),
    ("torn_tail_crc", HEADER + b"\n" + DEAL + b"\n" + with_crc(REF.decode()).encode()[:-2],
     [OK, BAD]),
    ("invalid_utf8_mid_file", HEADER + b"\n" + b"\xfe\xff\n" + DEAL + b"\n", [BAD, OK]),
    ("cr_only_file", HEADER + b"\r" + DEAL + b"\r", _header_error("CR")),
    ("empty_file", b"", _header_error("empty record")),
    ("blank_lines_only", b"\n \n\t\r\n", _header_error("empty record")),
    ("header_crc_ok", with_crc(HEADER.decode()).encode() + b"\n" + DEAL + b"\n", [OK]),
    ("header_crc_bad", HEADER + b"\t12345678\n" + DEAL + b"\n", _header_error("not a JSON")),
    ("header_invalid_utf8", HEADER[:-1] + b',"x":"\xff"}\n', _header_error("not a JSON")),
    ("header_lax_json", HEADER[:-1] + b",}\n", _header_error("not a JSON")),
    ("header_nan", HEADER[:-1] + b',"x":NaN}\n', _header_error("not a JSON")),
    ("header_overlong", HEADER[:-1] + b',"x":"' + b"a" * 5000 + b'"}\n',
     _header_error("longer than 4096")),
    ("header_deep", HEADER[:-1] + b',"x":' + b"[" * 100 + b"]" * 100 + b"}\n",
     _header_error("not a JSON")),
    ("header_record_float", b'{"record":1.0,"variant":"wuerttemberg","players":3,'
     b'"first_dealer":0}\n', _header_error("version 1")),
    ("header_record_true", b'{"record":true,"variant":"wuerttemberg","players":3,'
     b'"first_dealer":0}\n', _header_error("version 1")),
    ("header_players_float", b'{"record":1,"variant":"wuerttemberg","players":3.0,'
     b'"first_dealer":0}\n', _header_error("players")),
    ("header_dealer_bool", b'{"record":1,"variant":"wuerttemberg","players":3,'
     b'"first_dealer":false}\n', _header_error("first_dealer")),
    ("header_variant_newline", b'{"record":1,"variant":"foo\\nbar\\u0000","players":3,'
     b'"first_dealer":0}\n', _header_error("unknown variant", "\\x0a", "\\x00")),
    ("header_variant_list", b'{"record":1,"variant":["wuerttemberg"],"players":3,'
     b'"first_dealer":0}\n', _header_error("unknown variant: a list")),
    ("header_variant_emoji", b'{"record":1,"variant":"\\ud83d\\ude00","players":3,'
     b'"first_dealer":0}\n', _header_error("\\ud83d\\ude00")),
    ("header_variant_long", b'{"record":1,"variant":"' + b"v" * 3000 + b'","players":3,'
     b'"first_dealer":0}\n', lambda t: _header_error("unknown variant")(t) and len(t) < 260),
    ("header_seat_names_ints", b'{"record":1,"variant":"wuerttemberg","players":3,'
     b'"first_dealer":0,"seats":[1,2,3]}\n', _header_error("seat names")),
    ("option_tout_factor_float", _opts('{"tout_factor":3.0}'), _header_error("tout_factor")),
    ("option_pot_true_as_int", _opts('{"pot_ante":true}'), _header_error("pot_ante")),
    ("option_pot_ante_huge", _opts('{"pot_ante":9' + "0" * 3000 + "}"),
     _header_error("pot_ante", "0..100000")),
    ("option_pot_ante_negative", _opts('{"pot_ante":-1}'), _header_error("pot_ante")),
    ("option_pot_ante_max_ok", _opts('{"pot_ante":100000}') + b"\n" + DEAL + b"\n", [OK]),
    ("option_pot_int_for_bool", _opts('{"pot":1}'), _header_error("pot")),
    ("option_unknown_long", _opts('{"' + "z" * 2000 + '":1}'),
     lambda t: _header_error("unknown option")(t) and len(t) < 260),
    ("options_not_object", _opts("[1]"), _header_error("options")),
    ("options_two_bad_ones", _opts('{"tout_factor":3.5,"pot_ante":-4,"pot":"x"}'),
     _header_error("bad value for option pot:")),
    ("option_pack_float", b'{"record":1,"variant":"tapp_modern","players":4,"first_dealer":0,'
     b'"options":{"pack":32.0}}\n', _header_error("pack")),
    ("option_rate_huge", b'{"record":1,"variant":"tarock_simple","players":3,'
     b'"first_dealer":0,"options":{"rate_frage":"1/' + b"9" * 40 + b'"}}\n',
     _header_error("rate_frage")),
    ("option_fixed_pair_float", b'{"record":1,"variant":"tarock_simple","players":3,'
     b'"first_dealer":0,"options":{"fixed_solo":[50,60.0]}}\n', _header_error("fixed_solo")),
    ("option_stake_huge", b'{"record":1,"variant":"herzblatt","players":3,"first_dealer":0,'
     b'"options":{"stake":1' + b"0" * 30 + b"}}\n", _header_error("stake")),
    ("option_schneider_limit", b'{"record":1,"variant":"herzblatt_muhr","players":3,'
     b'"first_dealer":0,"options":{"schneider_limit":121}}\n', _header_error("0..120")),
]


def _line_record(line):
    return HEADER + b"\n" + DEAL + b"\n" + REF + b"\n" + line + b"\n" + REF + b"\n"


SAMPLES = ([(name, _line_record(line), exp) for name, line, exp in LINES]
           + [(name, data, exp if isinstance(exp, list) else ("record", exp))
              for name, data, exp in RECORDS])
assert len(SAMPLES) >= 40 and len({s[0] for s in SAMPLES}) == len(SAMPLES)


def _expected_lines(exp):
    if exp is SAME:
        return [OK, REF_OUT, REF_OUT, REF_OUT]
    if exp is BLANK:
        return [OK, REF_OUT, REF_OUT]
    if isinstance(exp, str):
        return [OK, REF_OUT, exp, REF_OUT]
    return None


# ----------------------------------------------------------------- three runtimes


def _cpython(paths):
    """(status, [output text per path]) of the replay script under CPython."""
    env = dict(os.environ, PYTHONPATH=str(ROOT / "firmware"))
    proc = subprocess.run([sys.executable, "-c", VM_SCRIPT] + [str(p) for p in paths],
                          capture_output=True, text=True, env=env, timeout=300)
    assert not proc.stderr, proc.stderr[-3000:]
    return proc.returncode, list(split_batch(proc.stdout).values())


def _micropython(paths, vm):
    try:
        proc = run_replay(paths, vm)
    except mpvm.MPVMError as exc:
        pytest.fail(str(exc), pytrace=False)
    assert "Traceback" not in proc.stdout + proc.stderr, (proc.stdout + proc.stderr)[-3000:]
    got = split_batch(proc.stdout)
    if vm == "wasm":   # /records/<i>.jsonl
        got = dict(sorted(got.items(), key=lambda kv: int(kv[0].split("/")[-1].split(".")[0])))
    return proc.returncode, list(got.values())


def _all_runtimes(paths):
    return {"cpython": _cpython(paths), "unix": _micropython(paths, "unix"),
            "wasm": _micropython(paths, "wasm")}


@pytest.fixture(scope="module")
def sample_outputs(tmp_path_factory):
    folder = tmp_path_factory.mktemp("hostile")
    paths = []
    for i, (name, data, _) in enumerate(SAMPLES):
        p = folder / ("%03d_%s.jsonl" % (i, name))
        p.write_bytes(data)
        paths.append(p)
    return _all_runtimes(paths)


def test_every_runtime_answers_every_sample(sample_outputs):
    for runtime, (status, texts) in sample_outputs.items():
        assert len(texts) == len(SAMPLES), runtime
        assert status == 2, runtime      # some samples are bad headers


@pytest.mark.parametrize("index", range(len(SAMPLES)), ids=[s[0] for s in SAMPLES])
def test_sample_same_outcome_everywhere(sample_outputs, index):
    name, data, exp = SAMPLES[index]
    cp = sample_outputs["cpython"][1][index]
    for vm in ("unix", "wasm"):
        assert sample_outputs[vm][1][index] == cp, "%s differs in %s" % (name, vm)
    if isinstance(exp, tuple):               # a predicate on a whole record's output
        assert exp[1](cp), (name, cp)
    elif isinstance(exp, list):
        assert cp.splitlines() == exp, name
    else:
        want = _expected_lines(exp)
        if want is None:                     # a predicate on the hostile line's outcome
            got = cp.splitlines()
            assert got[:2] == [OK, REF_OUT] and got[3:] == [REF_OUT] and exp(got[2]), (
                name, cp)
        else:
            assert cp.splitlines() == want, name
    # in process, through the CPython API too
    buf = io.StringIO()
    try:
        replay_stream(LineReader(io.BytesIO(data)), buf.write)
    except Exception as exc:   # only a bad header may stop a replay
        assert type(exc).__name__ == "HeaderError", exc
        buf.write("!!! bad header: " + str(exc) + "\n")
    assert buf.getvalue() == cp


# ----------------------------------------------------------------- fuzz

FUZZ_SEED = 2026
TOKENS = [b"{", b"}", b"[", b"]", b",", b":", b'"', b"\\", b'"ev"', b'"play"', b'"undo"',
          b'"seat"', b'"card"', b'"HA"', b"0", b"1", b"-", b"01", b"1.5", b"1e999", b"NaN",
          b"true", b"nul", b"null", b" ", b"\t", b"\r", b"\x00", b"\xff", b"\xc3", b"\xa9",
          b"\xed\xa0\x80", b"\\u", b"\\ud800", b"d83d", b"\\ude00", b"\xef\xbb\xbf"]


def _mutate(rng, line):
    b = bytearray(line)
    for _ in range(rng.randint(1, 3)):
        op = rng.randrange(7)
        pos = rng.randrange(len(b) + 1)
        if op == 0 and b:
            b[min(pos, len(b) - 1)] = rng.randrange(256)
        elif op == 1:
            b[pos:pos] = rng.choice(TOKENS)
        elif op == 2 and b:
            del b[pos:pos + rng.randint(1, 8)]
        elif op == 3:
            b[pos:pos] = b[pos:pos + rng.randint(1, 20)]
        elif op == 4:
            del b[pos:]
        elif op == 5:
            k = rng.choice((1, 7, 9, 400))
            b = bytearray(b'{"x":' + b"[" * k) + b + bytearray(b"]" * k + b"}")
        else:
            b = bytearray(with_crc(bytes(b).decode("utf-8", "replace")).encode())
    return bytes(b)


def _fuzz_records(folder):
    rng = random.Random(FUZZ_SEED)
    golden = sorted(GOLDEN.glob("*.jsonl"))
    paths = []
    for k in range(2 * len(golden)):
        lines = golden[k % len(golden)].read_bytes().split(b"\n")[:70]
        out = [lines[0] if rng.random() < 0.9 else _mutate(rng, lines[0])]
        for line in lines[1:]:
            r = rng.random()
            if r < 0.25:
                line = _mutate(rng, line)
            elif r < 0.30:
                out.append(bytes(rng.randrange(256) for _ in range(rng.randint(1, 40))))
            elif r < 0.35:
                out.append(b"".join(rng.choice(TOKENS) for _ in range(rng.randint(1, 12))))
            out.append(line)
        data = b"\n".join(out)
        if k % 5 == 0:
            data += b"\xff" * rng.randint(1, 6000)
        p = folder / ("fuzz_%02d.jsonl" % k)
        p.write_bytes(data)
        paths.append(p)
    return paths


def test_fuzzed_records_same_everywhere(tmp_path):
    paths = _fuzz_records(tmp_path)
    got = _all_runtimes(paths)
    cp = got["cpython"]
    assert len(cp[1]) == len(paths)
    bad = sum(t.count(BAD) for t in cp[1])
    ok = sum(t.count('"ok":true') for t in cp[1])
    assert bad > 50 and ok > 100, (bad, ok)   # the fuzz reaches both sides
    for vm in ("unix", "wasm"):
        assert got[vm][0] == cp[0], vm
        for p, a, b in zip(paths, cp[1], got[vm][1], strict=True):
            assert a == b, "%s differs in %s" % (p.name, vm)


READER_SCRIPT = """
import sys
from binascii import hexlify
from tapp.record import OVERLONG, LineReader
for path in sys.argv[1:]:
    for chunk in (1, 3, 64):
        for limit in (5, 40, 4096):
            f = open(path, "rb")
            rd = LineReader(f, limit, chunk)
            out = []
            while True:
                line = rd.readline()
                if line is None:
                    break
                out.append("L" if line is OVERLONG else hexlify(line).decode())
            f.close()
            print("%d %d %d %s" % (chunk, limit, rd.lineno, " ".join(out)))
"""


def _reader_reference(data, limit):
    parts = data.split(b"\n")
    if parts[-1] == b"":
        parts.pop()
    return ["L" if len(p) > limit else p.hex() for p in parts]


def test_line_reader_on_random_bytes_same_everywhere(tmp_path):
    rng = random.Random(FUZZ_SEED + 1)
    paths = []
    for k in range(6):
        alphabet = bytes(rng.randrange(256) for _ in range(6)) + b"\n\n\r"
        data = bytes(rng.choice(alphabet) for _ in range(rng.randint(0, 3000)))
        if k == 0:
            data = b""
        p = tmp_path / ("bytes_%d.bin" % k)
        p.write_bytes(data)
        paths.append(p)
    ref = []
    for p in paths:
        data = p.read_bytes()
        for chunk in (1, 3, 64):
            for limit in (5, 40, 4096):
                lines = _reader_reference(data, limit)
                ref.append("%d %d %d %s" % (chunk, limit, len(lines), " ".join(lines)))
    env = dict(os.environ, PYTHONPATH=str(ROOT / "firmware"))
    cp = subprocess.run([sys.executable, "-c", READER_SCRIPT] + [str(p) for p in paths],
                        capture_output=True, text=True, env=env, timeout=120)
    assert cp.stdout.splitlines() == ref, cp.stderr
    unix = mpvm.run_unix(READER_SCRIPT, [str(p) for p in paths], heapsize="1m")
    assert unix.stdout.splitlines() == ref, unix.stdout[-2000:] + unix.stderr[-2000:]
    names = ["/data/%d.bin" % i for i in range(len(paths))]
    wasm = mpvm.run_wasm(READER_SCRIPT, names, files=dict(zip(names, paths, strict=True)))
    assert wasm.stdout.splitlines() == ref, wasm.stdout[-2000:] + wasm.stderr[-2000:]


# ----------------------------------------------------------------- the command line


def _tapptable(*args, stdin=None, cwd=None):
    return subprocess.run([sys.executable, "-m", "tools.tapptable.cli"] + list(args),
                          input=stdin, capture_output=True, timeout=300, cwd=cwd or ROOT)


def test_replay_file_and_stdin_agree_on_bad_bytes(tmp_path):
    data = (b"\xef\xbb\xbf" + HEADER + b"\r\n" + DEAL + b"\n\xfe\xff\n"
            + b'{"ev":"play","seat":1,"card":"\\ud800"}\n' + REF + b"\n" + b"\xff" * 5000)
    p = tmp_path / "bad.jsonl"
    p.write_bytes(data)
    by_file = _tapptable("replay", str(p))
    by_stdin = _tapptable("replay", "-", stdin=data)
    by_vm = _tapptable("replay", "--runtime", "micropython", str(p))
    by_vm_stdin = _tapptable("replay", "--runtime", "micropython", "-", stdin=data)
    want = "\n".join([OK, BAD, BAD, REF_OUT, BAD]) + "\n"
    for r in (by_file, by_stdin, by_vm, by_vm_stdin):
        assert r.returncode == 0 and r.stderr == b"", r.stderr
        assert r.stdout.decode() == want


def test_replay_bad_header_is_one_line_on_both_runtimes(tmp_path):
    p = tmp_path / "h.jsonl"
    p.write_bytes(b'{"record":1,"variant":"foo\\nbar\\u2028","players":3,"first_dealer":0}\n')
    msgs = []
    for runtime in ("cpython", "micropython"):
        r = _tapptable("replay", "--runtime", runtime, str(p))
        assert r.returncode == 2 and r.stdout == b""
        msgs.append(r.stderr.decode())
    assert msgs[0] == msgs[1]
    assert msgs[0] == ("tapptable replay: %s: bad header: unknown variant: "
                       '"foo\\x0abar\\u2028"\n' % p)


def test_micropython_failure_names_line_and_keeps_earlier_outcomes(tmp_path, monkeypatch,
                                                                   capsys):
    p = tmp_path / "r.jsonl"
    p.write_bytes(HEADER + b"\n" + DEAL + b"\n" + REF + b"\n\n" + b'{"ev":"boom"}\n' + REF + b"\n")
    failing = ("import tapp.replay as R\n_feed = R.Replayer.feed\n"
               "def feed(self, line):\n    if b'boom' in line:\n        raise MemoryError()\n"
               "    return _feed(self, line)\nR.Replayer.feed = feed\n")
    monkeypatch.setattr(mpreplay, "VM_SCRIPT", failing + VM_SCRIPT)
    got = []
    assert mpreplay.replay_in_micropython(str(p), got.append) == 2
    assert "".join(got) == OK + "\n" + REF_OUT + "\n"
    err = capsys.readouterr().err
    assert err == "tapptable replay: %s: line 5: MemoryError\n" % p


def test_micropython_runtime_streams_lines(tmp_path):
    p = tmp_path / "g.jsonl"
    p.write_bytes(b"\n".join(W_LINES))
    calls = []
    assert mpreplay.replay_in_micropython(str(p), calls.append) == 0
    want = (GOLDEN / "wuerttemberg_3_strict_pot.out").read_text()
    assert "".join(calls) == want
    assert len(calls) == want.count("\n")     # one write per outcome line, as they come


def _run_cli(capsys, *args):
    try:
        status = cli.main(list(args))
    except SystemExit as exc:     # argparse
        status = exc.code
    out, err = capsys.readouterr()
    return status, out, err


@pytest.mark.parametrize("args,words", [
    (["--deals", "0"], "at least 1"),
    (["--deals", "-3"], "at least 1"),
    (["--deals", "x"], "not a whole number"),
    (["--seed", "-5"], "at least 0"),
    (["--players", "9"], "played by 3 players, not 9"),
    (["--players", "1"], "at least 2"),
], ids=["deals_0", "deals_negative", "deals_text", "seed_negative", "players_9", "players_1"])
def test_simulate_argument_errors_write_nothing(tmp_path, capsys, args, words):
    out = tmp_path / "rec.jsonl"
    status, stdout, err = _run_cli(capsys, "simulate", "--variant", "wuerttemberg",
                                   "--out", str(out), *args)
    assert status == 2 and stdout == ""
    assert err.count("\n") == 1 and words in err and "Traceback" not in err, err
    assert list(tmp_path.iterdir()) == []


def test_simulate_out_problems(tmp_path, capsys):
    base = ["simulate", "--variant", "tapp_modern", "--players", "3", "--deals", "2"]
    status, _, err = _run_cli(capsys, *base, "--out", str(tmp_path))
    assert status == 2 and "is a folder" in err and err.count("\n") == 1
    status, _, err = _run_cli(capsys, *base, "--out", str(tmp_path / "no" / "x.jsonl"))
    assert status == 2 and "does not exist" in err and err.count("\n") == 1
    assert list(tmp_path.iterdir()) == []
    target = tmp_path / "x.jsonl"
    target.write_text("keep me\n")
    status, _, err = _run_cli(capsys, *base, "--out", str(target))
    assert status == 2 and "--force" in err and target.read_text() == "keep me\n"
    status, out, err = _run_cli(capsys, *base, "--out", str(target), "--force")
    assert status == 0 and err == "" and out.startswith("wrote 2 deals")
    lines = target.read_text().splitlines()
    assert lines[0].startswith('{"record":1') and len(lines) > 10
    assert sorted(p.name for p in tmp_path.iterdir()) == ["x.jsonl"]   # no temporary left


def test_same_seed_same_record_and_stdout_matches_file(tmp_path, capsys):
    base = ["simulate", "--variant", "berliner", "--players", "3", "--deals", "2", "--seed", "5"]
    status, text, _ = _run_cli(capsys, *base)
    assert status == 0
    _run_cli(capsys, *base, "--out", str(tmp_path / "a.jsonl"))
    assert (tmp_path / "a.jsonl").read_text() == text


def test_a_failing_write_leaves_no_file(tmp_path, monkeypatch, capsys):
    target = tmp_path / "x.jsonl"

    def full_disk(fd):
        raise OSError(28, "No space left on device")
    monkeypatch.setattr(os, "fsync", full_disk)
    status, _, err = _run_cli(capsys, "simulate", "--variant", "herzblatt", "--players", "4",
                              "--out", str(target))
    assert status == 2 and err == "tapptable simulate: cannot write %s: No space left on " \
        "device\n" % target
    assert list(tmp_path.iterdir()) == []


def test_a_line_source_that_fails_midway_leaves_the_old_file(tmp_path):
    target = tmp_path / "x.jsonl"
    target.write_text("old\n")

    def lines():
        yield "one"
        raise OSError(5, "Input/output error")
    with pytest.raises(WriteError, match="Input/output error"):
        write_lines(str(target), lines(), force=True)
    assert target.read_text() == "old\n"
    assert [p.name for p in tmp_path.iterdir()] == ["x.jsonl"]


@pytest.mark.parametrize("args,words", [
    (["--players", "9"], "tapp_modern is played by 3 or 4 players, not 9"),
    (["--variant", "herzblatt", "--players", "6"], "2, 3, 4 or 5 players"),
    (["--seed", "-1"], "at least 0"),
    (["--deals", "0"], "at least 1"),
], ids=["players_9", "herzblatt_6", "seed_negative", "deals_0"])
def test_demo_argument_errors(capsys, args, words):
    status, out, err = _run_cli(capsys, "demo", *args)
    assert status == 2 and out == "" and err.count("\n") == 1 and words in err, err


def test_cli_argument_error_has_no_traceback_as_a_process(tmp_path):
    r = _tapptable("demo", "--players", "9")
    assert r.returncode == 2 and r.stdout == b"" and r.stderr.count(b"\n") == 1, r.stderr
    r = _tapptable("simulate", "--variant", "wuerttemberg", "--deals", "0", "--out",
                   str(tmp_path / "x.jsonl"))
    assert r.returncode == 2 and r.stderr.count(b"\n") == 1 and not list(tmp_path.iterdir())


def test_replay_unreadable_is_one_line(tmp_path, capsys):
    for runtime in ("cpython", "micropython"):
        status, out, err = _run_cli(capsys, "replay", "--runtime", runtime, str(tmp_path))
        assert status == 2 and out == "" and err.count("\n") == 1, err
        status, out, err = _run_cli(capsys, "replay", "--runtime", runtime,
                                    str(tmp_path / "missing.jsonl"))
        assert status == 2 and out == "" and err.count("\n") == 1, err

