"""Deck registry, enrolment and remembered settings (firmware/table/registry.py,
enrol.py, settings.py) under CPython, with pytest's tmp_path as the flash root.

Registry: add/lookup (4-, 7- and 10-byte UIDs, bytes and memoryviews, the
real ReaderSet's uid_view), every refusal and its texts, the deck file format,
persistence and reload, atomic saves (a failure between write and rename
leaves the old file), corrupt files refused with a reason while the other
decks load, import/export round trips.  Enrolment: the fixed order per deck
kind, refusals, resuming after a power cut, undo.  Settings: defaults, corrupt
files, bad values, round trip, the record header.
"""

from __future__ import annotations

import json
import os
import random
from pathlib import Path

import pytest

from table import deck_file as F
from table import enrol as E
from table import registry as R
from table import settings as S
from tapp.cards import CARD_CODES, CODE_INDEX
from tapp.record import crc_hex


def uid7(deck: int, card: int) -> bytes:
    return bytes([0x04, deck, card, 0x10, 0x20, 0x30, 0x40])


def card(code: str) -> int:
    return CODE_INDEX[code]


def deck_file(root: Path, deck_id: int) -> Path:
    return root / "decks" / ("%d.txt" % deck_id)


def loaded(root: Path) -> R.Registry:
    reg = R.Registry(str(root))
    assert reg.load() == []
    return reg


def full_deck(reg: R.Registry, deck_id: int, kind: str) -> None:
    assert reg.create_deck(deck_id, kind) == R.OK
    for c in R.kind_cards(kind):
        assert reg.add(deck_id, c, uid7(deck_id, c)) == R.OK


class RenameFails:
    """os.rename replacement that fails (a power cut between write and rename)."""

    def __init__(self) -> None:
        self.calls = 0

    def __call__(self, src: str, dst: str) -> None:
        self.calls += 1
        raise OSError(5, "simulated failure before the rename")


# ---------------------------------------------------------------- add / lookup


def test_add_and_lookup_all_uid_lengths(tmp_path: Path) -> None:
    reg = R.Registry(str(tmp_path))
    assert reg.create_deck(3, "d36") == R.OK
    a = bytes.fromhex("deadbeef")
    b = bytes.fromhex("04a1b2c3d4e5f6")
    c = bytes.fromhex("04010203040506070809")
    assert reg.add(3, card("HA"), a) == R.OK
    assert reg.add(3, card("S10"), bytearray(b)) == R.OK
    assert reg.add(3, card("D6"), memoryview(c)) == R.OK
    assert reg.lookup(a) == 3 * 64 + card("HA")
    assert reg.lookup(memoryview(bytearray(b))) == 3 * 64 + card("S10")
    v = reg.lookup(bytearray(c))
    assert R.deck_of(v) == 3 and R.card_of(v) == card("D6")
    # the same bytes with another length are another tag
    assert reg.lookup(c[:7]) == -1
    assert reg.lookup(b[:4]) == -1
    assert reg.lookup(b"") == -1
    assert reg.lookup(bytes(11)) == -1
    # a memoryview slice of a bigger buffer, as the reader driver hands it out
    buf = bytearray(10)
    buf[:7] = b
    assert reg.lookup(memoryview(buf)[:7]) == 3 * 64 + card("S10")
    assert reg.count() == 3 and reg.count(3) == 3
    assert reg.uid_of(3, card("S10")) == b
    assert reg.uid_of(3, card("SA")) is None


def test_lookup_matches_a_dict_for_many_random_uids() -> None:
    rnd = random.Random(7)
    reg = R.Registry(None, capacity=360)
    truth: dict[bytes, int] = {}
    for deck_id in range(1, 11):
        assert reg.create_deck(deck_id, "d36") == R.OK
        for c in range(36):
            n = rnd.choice((4, 7, 10))
            uid = bytes(rnd.randrange(256) for _ in range(n))
            if uid in truth:
                continue
            assert reg.add(deck_id, c, uid) == R.OK
            truth[uid] = deck_id * 64 + c
    assert reg.count() == len(truth) > 350
    for uid, v in truth.items():
        assert reg.lookup(memoryview(uid)) == v
    for _ in range(2000):
        uid = bytes(rnd.randrange(256) for _ in range(rnd.choice((4, 7, 10))))
        assert reg.lookup(uid) == truth.get(uid, -1)


def test_lookup_with_the_real_reader_set_uid_view(tmp_path: Path) -> None:
    from host_sim.board import reader_rig
    from host_sim.mfrc522_model import Tag

    rig = reader_rig(1)
    reg = R.Registry(str(tmp_path))
    e = E.Enrolment(reg, 1, "d24")
    uids = [bytes.fromhex("04a1b2c3d4e5f6"), bytes.fromhex("deadbeef"),
            bytes.fromhex("04010203040506070809")]
    for uid in uids:
        tag = Tag(uid)
        rig.chips[0].place(tag)
        for _ in range(5):
            rig.rs.poll(0)
        view = rig.rs.uid_view(0)
        assert isinstance(view, memoryview) and len(view) == len(uid)
        assert e.offer(view) == E.ACCEPTED
        assert reg.lookup(rig.rs.uid_view(0)) == 64 + e.last_card
        rig.chips[0].remove(tag)
        for _ in range(5):
            rig.rs.poll(0)
    assert [R.card_of(reg.lookup(u)) for u in uids] == [card("CA"), card("C10"), card("CK")]


# ---------------------------------------------------------------- refusals and texts


def test_refusals_change_nothing_and_name_the_conflict(tmp_path: Path) -> None:
    reg = R.Registry(str(tmp_path))
    assert reg.create_deck(1, "d36") == R.OK
    assert reg.create_deck(2, "d32") == R.OK
    u = uid7(1, 0)
    assert reg.add(1, card("HA"), u) == R.OK
    before = deck_file(tmp_path, 1).read_bytes()

    assert reg.add(1, card("HK"), u) == R.UID_ENROLLED
    assert reg.conflict == 64 + card("HA")
    assert R.short_text(R.UID_ENROLLED, "de", reg.conflict) == "Ist schon \u2665A"
    assert R.short_text(R.UID_ENROLLED, "en", reg.conflict) == "Already \u2665A"

    assert reg.add(2, card("HK"), u) == R.UID_OTHER_DECK
    assert R.deck_of(reg.conflict) == 1
    assert R.short_text(R.UID_OTHER_DECK, "de", reg.conflict) == "Karte aus Deck 1"
    assert R.short_text(R.UID_OTHER_DECK, "en", reg.conflict) == "Card of deck 1"
    assert "deck 1, HA" in R.message(R.UID_OTHER_DECK, reg.conflict)

    assert reg.add(1, card("HA"), uid7(1, 99)) == R.CARD_ENROLLED
    assert reg.conflict == 64 + card("HA")
    assert R.short_text(R.CARD_ENROLLED, "de", reg.conflict) == "\u2665A schon da"

    assert reg.add(5, card("HA"), uid7(5, 0)) == R.UNKNOWN_DECK
    assert reg.conflict == -1
    assert reg.add(1, card("HK"), b"\x04\x05\x06") == R.BAD_UID
    assert reg.add(1, card("HK"), bytes(11)) == R.BAD_UID
    assert reg.add(2, card("H6"), uid7(2, 1)) == R.NOT_IN_SET   # no Sixes in d32
    assert reg.add(1, 36, uid7(1, 1)) == R.NOT_IN_SET
    assert reg.add(1, -1, uid7(1, 1)) == R.NOT_IN_SET

    assert reg.create_deck(0, "d36") == R.BAD_DECK_ID
    assert reg.create_deck(100, "d36") == R.BAD_DECK_ID
    assert reg.create_deck(True, "d36") == R.BAD_DECK_ID
    assert reg.create_deck(4, "d99") == R.BAD_KIND
    assert reg.create_deck(1, "d24") == R.DECK_EXISTS
    assert reg.kind(1) == "d36"

    assert reg.count() == 1
    assert deck_file(tmp_path, 1).read_bytes() == before
    assert not (tmp_path / "decks" / "4.txt").exists()


def test_full_registry_refuses() -> None:
    reg = R.Registry(None, capacity=3)
    assert reg.create_deck(1, "d36") == R.OK
    for c in range(3):
        assert reg.add(1, c, uid7(1, c)) == R.OK
    assert reg.add(1, 3, uid7(1, 3)) == R.FULL
    assert reg.count() == 3 and reg.lookup(uid7(1, 3)) == -1


def test_texts_are_complete_and_fit_the_display() -> None:
    n = len(R.NAMES)
    assert len(set(R.NAMES)) == n
    assert len(R.MESSAGES) == len(R.SHORT_DE) == len(R.SHORT_EN) == n
    assert R.NAMES[R.COMPLETE] == "complete" and R.NAMES[R.OK] == "ok"
    for lang in ("de", "en"):
        for code in range(n):
            assert 0 < len(R.short_text(code, lang)) <= R.DISPLAY_COLUMNS
            for packed in (64 + 1, 99 * 64 + 35, 10 * 64 + card("H10")):
                s = R.short_text(code, lang, packed)
                assert 0 < len(s) <= R.DISPLAY_COLUMNS, (code, lang, s)
    assert R.short_text(R.UID_OTHER_DECK, "de", 12 * 64) == "Aus Deck 12"
    assert R.short_text(R.FULL, "xx") == R.SHORT_DE[R.FULL]   # unknown language: German
    assert R.card_label(card("H10")) == "\u266510"
    assert R.card_label(card("CA")) == "\u2663A"
    assert R.card_label(card("SQ")) == "\u2660Q"
    assert R.card_label(card("D6")) == "\u26666"


# ---------------------------------------------------------------- decks


def test_a_deck_is_complete_exactly_when_no_card_is_missing() -> None:
    """``complete`` reads the deck's masks; ``missing`` looks card by card:
    they agree for every kind, a card at a time up to the whole deck, and
    after a card is taken out again."""
    from tapp.cards import DECKS
    rng = random.Random(5)
    for deck_id, kind in enumerate(sorted(DECKS), start=1):
        reg = R.Registry(None)
        assert reg.create_deck(deck_id, kind, save=False) == R.OK
        cards = R.kind_cards(kind)
        rng.shuffle(cards)
        for k, c in enumerate(cards):
            assert reg.complete(deck_id) is False and reg.missing(deck_id), (kind, k)
            assert reg.add(deck_id, c, uid7(deck_id, c)) == R.OK
        assert reg.complete(deck_id) is True and reg.missing(deck_id) == [], kind
        assert reg.remove_card(deck_id, cards[0]) == R.OK
        assert reg.complete(deck_id) is False and reg.missing(deck_id) == [cards[0]], kind
    assert not R.Registry(None).complete(1)


def test_decks_complete_missing_and_remove(tmp_path: Path) -> None:
    reg = R.Registry(str(tmp_path))
    full_deck(reg, 1, "d24")
    assert reg.create_deck(2, "d32") == R.OK
    assert reg.add(2, card("CA"), uid7(2, 0)) == R.OK
    assert reg.decks() == [(1, "d24", 24), (2, "d32", 1)]
    assert reg.complete(1) and reg.missing(1) == []
    assert not reg.complete(2)
    missing = reg.missing(2)
    assert len(missing) == 31 and missing[0] == card("C10")
    assert [CARD_CODES[c] for c in missing[:8]] == ["C10", "CK", "CQ", "CJ", "C9", "C8", "C7",
                                                    "SA"]
    assert not reg.complete(9) and reg.missing(9) == []
    assert reg.remove_deck(1) == R.OK
    assert not deck_file(tmp_path, 1).exists()
    assert reg.lookup(uid7(1, 0)) == -1
    assert reg.lookup(uid7(2, 0)) == 2 * 64
    assert reg.decks() == [(2, "d32", 1)]
    assert reg.remove_deck(1) == R.UNKNOWN_DECK
    assert loaded(tmp_path).decks() == [(2, "d32", 1)]


def test_remove_card(tmp_path: Path) -> None:
    reg = R.Registry(str(tmp_path))
    full_deck(reg, 1, "d24")
    assert reg.remove_card(1, card("SK")) == R.OK
    assert reg.lookup(uid7(1, card("SK"))) == -1
    assert reg.missing(1) == [card("SK")]
    assert reg.remove_card(1, card("SK")) == R.NOTHING
    assert reg.remove_card(7, card("SK")) == R.UNKNOWN_DECK
    assert loaded(tmp_path).missing(1) == [card("SK")]


# ---------------------------------------------------------------- files


def test_deck_file_format(tmp_path: Path) -> None:
    reg = R.Registry(str(tmp_path))
    assert reg.create_deck(7, "d24") == R.OK
    assert reg.add(7, card("HK"), bytes.fromhex("04A1B2C3D4E5F6")) == R.OK
    assert reg.add(7, card("CA"), bytes.fromhex("deadbeef")) == R.OK
    text = deck_file(tmp_path, 7).read_text()
    lines = text.split("\n")
    assert lines[1:] == ["CA\tdeadbeef", "HK\t04a1b2c3d4e5f6", ""]
    head = lines[0].split("\t")
    assert head[:5] == ["tappdeck", "1", "7", "d24", "2"]
    body = "CA\tdeadbeef\nHK\t04a1b2c3d4e5f6\n"
    assert head[5] == crc_hex("tappdeck\t1\t7\td24\t2\n" + body)
    assert reg.export(7) == text.split("\n")[:-1]
    assert reg.export(8) is None
    # an empty deck is saved too: its kind survives a power cut
    assert reg.create_deck(8, "d32") == R.OK
    assert deck_file(tmp_path, 8).read_text().startswith("tappdeck\t1\t8\td32\t0\t")
    assert loaded(tmp_path).decks() == [(7, "d24", 2), (8, "d32", 0)]


def test_persistence_round_trip(tmp_path: Path) -> None:
    reg = R.Registry(str(tmp_path))
    full_deck(reg, 1, "d36")
    full_deck(reg, 2, "d32")
    assert reg.create_deck(3, "d24") == R.OK
    assert reg.add(3, card("DJ"), bytes.fromhex("01020304")) == R.OK
    again = loaded(tmp_path)
    assert again.decks() == reg.decks()
    for d in (1, 2):
        for c in R.kind_cards(again.kind(d)):
            assert again.lookup(uid7(d, c)) == d * 64 + c
    assert again.lookup(bytes.fromhex("01020304")) == 3 * 64 + card("DJ")
    for d in (1, 2, 3):
        assert again.export(d) == reg.export(d)
    # a root with a trailing slash is the same root
    assert R.Registry(str(tmp_path) + "/").load() == []


def test_load_without_decks_folder_and_ignores_other_files(tmp_path: Path) -> None:
    reg = R.Registry(str(tmp_path))
    assert reg.load() == [] and reg.decks() == []
    full_deck(reg, 4, "d24")
    for name in ("readme.md", "x.txt", "04.txt", "0.txt", "100.txt", "5"):
        (tmp_path / "decks" / name).write_text("junk\n")
    assert loaded(tmp_path).decks() == [(4, "d24", 24)]


def test_failed_rename_keeps_the_old_file(tmp_path: Path,
                                          monkeypatch: pytest.MonkeyPatch) -> None:
    reg = R.Registry(str(tmp_path))
    full_deck(reg, 1, "d24")
    assert reg.remove_card(1, card("DA")) == R.OK
    old = deck_file(tmp_path, 1).read_bytes()
    boom = RenameFails()
    monkeypatch.setattr(os, "rename", boom)
    assert reg.add(1, card("DA"), uid7(1, 99)) == R.STORAGE
    assert boom.calls == 1
    # memory unchanged, old file byte for byte, no .tmp left behind
    assert reg.lookup(uid7(1, 99)) == -1 and reg.missing(1) == [card("DA")]
    assert deck_file(tmp_path, 1).read_bytes() == old
    assert not (tmp_path / "decks" / "1.tmp").exists()
    assert reg.remove_card(1, card("CA")) == R.STORAGE
    assert reg.lookup(uid7(1, card("CA"))) == 64 + card("CA")
    assert reg.create_deck(2, "d36") == R.STORAGE and not reg.has_deck(2)
    monkeypatch.undo()
    again = loaded(tmp_path)
    assert again.missing(1) == [card("DA")] and again.export(1) == reg.export(1)


def test_power_cut_between_write_and_rename(tmp_path: Path) -> None:
    """A .tmp beside the .txt (the cut came before the rename): the old file
    stands and the .tmp is removed; a .tmp without .txt (a first save cut
    before its rename) is recovered if its CRC is right, else dropped."""
    reg = R.Registry(str(tmp_path))
    full_deck(reg, 1, "d24")
    full_deck(reg, 2, "d24")
    decks = tmp_path / "decks"
    old = deck_file(tmp_path, 1).read_bytes()
    new = R.Registry(None)
    full_deck(new, 1, "d24")
    assert new.remove_card(1, card("CA")) == R.OK
    (decks / "1.tmp").write_text("\n".join(new.export(1)) + "\n")
    assert loaded(tmp_path).complete(1)
    assert deck_file(tmp_path, 1).read_bytes() == old
    assert not (decks / "1.tmp").exists()
    # a half-written .tmp and no .txt: dropped, no problem reported (nothing was lost)
    (decks / "3.tmp").write_text("tappdeck\t1\t3\td24\t24\t00000000\nCA\t0403")
    assert loaded(tmp_path).decks() == [(1, "d24", 24), (2, "d24", 24)]
    assert not (decks / "3.tmp").exists()
    # a complete .tmp and no .txt: recovered
    other = R.Registry(None)
    assert other.create_deck(3, "d32") == R.OK
    assert other.add(3, card("H7"), bytes.fromhex("0a0b0c0d")) == R.OK
    (decks / "3.tmp").write_text("\n".join(other.export(3)) + "\n")
    reg3 = loaded(tmp_path)
    assert reg3.lookup(bytes.fromhex("0a0b0c0d")) == 3 * 64 + card("H7")
    assert deck_file(tmp_path, 3).exists() and not (decks / "3.tmp").exists()


CORRUPTIONS = {
    "flipped byte": lambda t: t.replace("CK\t", "CQ\t", 1),
    "truncated": lambda t: t[: len(t) // 2],
    "empty": lambda t: "",
    "no header": lambda t: t.split("\n", 1)[1],
    "bad crc": lambda t: t.split("\t", 5)[0] + "\t" + "\t".join(t.split("\t")[1:5])
    + "\t00000000\n" + t.split("\n", 1)[1],
}


@pytest.mark.parametrize("how", sorted(CORRUPTIONS))
def test_corrupt_file_is_refused_and_other_decks_load(tmp_path: Path, how: str) -> None:
    reg = R.Registry(str(tmp_path))
    full_deck(reg, 1, "d24")
    full_deck(reg, 2, "d24")
    full_deck(reg, 3, "d24")
    p = deck_file(tmp_path, 2)
    p.write_text(CORRUPTIONS[how](p.read_text()))
    again = R.Registry(str(tmp_path))
    problems = again.load()
    assert len(problems) == 1, problems
    name, code, reason = problems[0]
    assert name == "2.txt" and code == R.CORRUPT and reason
    assert again.problems == problems
    assert again.decks() == [(1, "d24", 24), (3, "d24", 24)]
    assert again.lookup(uid7(2, 0)) == -1 and again.lookup(uid7(3, 0)) == 3 * 64
    assert p.exists()   # kept for the console to download and repair


def test_file_checks_name_the_problem(tmp_path: Path) -> None:
    good = F.format_lines(5, "d24", [(card("CA"), bytes.fromhex("01020304"))])

    def reason(lines: list[str]) -> str:
        with pytest.raises(F.DeckFileError) as e:
            F.parse_lines(lines)
        return str(e.value)

    def resigned(head: str, body: list[str]) -> list[str]:
        text = head + "\n" + "".join(x + "\n" for x in body)
        return [head + "\t" + crc_hex(text)] + body

    assert F.parse_lines(good) == (5, "d24", [(card("CA"), bytes.fromhex("01020304"))])
    assert "CRC" in reason([good[0], "CA\t01020305"])
    assert "header" in reason(["hello"] + good[1:])
    assert "version" in reason(resigned("tappdeck\t2\t5\td24\t1", good[1:]))
    assert "deck id" in reason(resigned("tappdeck\t1\t05\td24\t1", good[1:]))
    assert "deck id" in reason(resigned("tappdeck\t1\t100\td24\t1", good[1:]))
    assert "kind" in reason(resigned("tappdeck\t1\t5\td99\t1", good[1:]))
    assert "count" in reason(resigned("tappdeck\t1\t5\td24\t2", good[1:]))
    assert "bad card" in reason(resigned("tappdeck\t1\t5\td24\t1", ["XA\t01020304"]))
    assert "not in d24" in reason(resigned("tappdeck\t1\t5\td24\t1", ["C8\t01020304"]))
    assert "twice" in reason(resigned("tappdeck\t1\t5\td24\t2",
                                      ["CA\t01020304", "CA\t01020305"]))
    assert "UID twice" in reason(resigned("tappdeck\t1\t5\td24\t2",
                                          ["CA\t01020304", "CK\t01020304"]))
    assert "bad UID" in reason(resigned("tappdeck\t1\t5\td24\t1", ["CA\t010203"]))
    assert "bad UID" in reason(resigned("tappdeck\t1\t5\td24\t1", ["CA\t0102030g"]))
    assert "empty" in reason([])
    assert "UTF-8" in reason([b"\xff\xfe"])
    # a file that holds another deck than its name says
    (tmp_path / "decks").mkdir()
    (tmp_path / "decks" / "6.txt").write_text("\n".join(good) + "\n")
    reg = R.Registry(str(tmp_path))
    assert reg.load() == [("6.txt", R.CORRUPT, "holds deck 5")]
    # an over-long file (erased flash reads as 0xff) is refused without reading it all
    (tmp_path / "decks" / "6.txt").write_bytes(b"\xff" * 100000)
    assert reg.load() == [("6.txt", R.CORRUPT, "too long or not UTF-8")]


def test_uid_in_two_deck_files_keeps_the_first(tmp_path: Path) -> None:
    reg = R.Registry(str(tmp_path))
    full_deck(reg, 1, "d24")
    clash = F.format_lines(2, "d24", [(card("SA"), uid7(1, card("HK")))])
    (tmp_path / "decks" / "2.txt").write_text("\n".join(clash) + "\n")
    again = R.Registry(str(tmp_path))
    problems = again.load()
    assert problems == [("2.txt", R.UID_OTHER_DECK, "SA: UID is HK of deck 1")]
    assert again.decks() == [(1, "d24", 24)]


def test_export_import_round_trip(tmp_path: Path) -> None:
    a = R.Registry(str(tmp_path / "a"))
    (tmp_path / "a").mkdir()
    full_deck(a, 4, "d32")
    lines = a.export(4)
    b_root = tmp_path / "b"
    b_root.mkdir()
    b = R.Registry(str(b_root))
    assert b.import_lines(lines) == (R.OK, 4, "")
    assert deck_file(b_root, 4).read_bytes() == deck_file(tmp_path / "a", 4).read_bytes()
    assert b.export(4) == lines
    assert loaded(b_root).export(4) == lines
    # as the serial console would hand them over: bytes with CRLF, a file's text
    c = R.Registry(None)
    assert c.import_lines([x.encode() + b"\r\n" for x in lines]) == (R.OK, 4, "")
    assert c.export(4) == lines
    d = R.Registry(None)
    assert d.import_lines(("\n".join(lines) + "\n").split("\n")) == (R.OK, 4, "")
    assert d.lookup(uid7(4, 0)) == 4 * 64
    # the whole file in one piece, as text or bytes
    for whole in (deck_file(tmp_path / "a", 4).read_text(),
                  deck_file(tmp_path / "a", 4).read_bytes()):
        e = R.Registry(None)
        assert e.import_lines(whole) == (R.OK, 4, "")
        assert e.export(4) == lines


def test_import_replaces_a_deck_or_refuses_without_change(tmp_path: Path) -> None:
    reg = R.Registry(str(tmp_path))
    full_deck(reg, 1, "d24")
    assert reg.create_deck(2, "d36") == R.OK
    assert reg.add(2, card("CA"), uid7(2, 0)) == R.OK
    before = deck_file(tmp_path, 2).read_bytes()
    # a new version of deck 2: replaces it (old UIDs gone)
    new2 = F.format_lines(2, "d32", [(card("HA"), bytes.fromhex("0a0b0c0d"))])
    assert reg.import_lines(new2) == (R.OK, 2, "")
    assert reg.lookup(uid7(2, 0)) == -1
    assert reg.lookup(bytes.fromhex("0a0b0c0d")) == 2 * 64 + card("HA")
    assert reg.kind(2) == "d32" and loaded(tmp_path).export(2) == new2
    before = deck_file(tmp_path, 2).read_bytes()
    # a UID of deck 1: refused, nothing changed
    clash = F.format_lines(2, "d24", [(card("SA"), uid7(1, card("HK")))])
    code, deck_id, why = reg.import_lines(clash)
    assert (code, deck_id) == (R.UID_OTHER_DECK, 2) and "deck 1" in why
    assert reg.export(2) == new2 and deck_file(tmp_path, 2).read_bytes() == before
    # corrupt upload
    code, deck_id, why = reg.import_lines(["tappdeck\t1\t2\td24\t0\tffffffff"])
    assert (code, deck_id, why) == (R.CORRUPT, 0, "CRC mismatch")
    # a UID moving inside one deck (re-enrolled card) is fine
    moved = F.format_lines(1, "d24", [(card("CA"), uid7(1, card("CK")))])
    assert reg.import_lines(moved) == (R.OK, 1, "")
    assert reg.lookup(uid7(1, card("CK"))) == 64 + card("CA")
    assert reg.lookup(uid7(1, card("CA"))) == -1


def test_import_with_failing_flash_restores_the_deck(tmp_path: Path,
                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    reg = R.Registry(str(tmp_path))
    full_deck(reg, 1, "d24")
    old = reg.export(1)
    monkeypatch.setattr(os, "rename", RenameFails())
    new1 = F.format_lines(1, "d24", [(card("HA"), bytes.fromhex("0a0b0c0d"))])
    assert reg.import_lines(new1)[0] == R.STORAGE
    assert reg.export(1) == old and reg.lookup(bytes.fromhex("0a0b0c0d")) == -1
    new3 = F.format_lines(3, "d24", [(card("HA"), bytes.fromhex("0a0b0c0d"))])
    assert reg.import_lines(new3)[0] == R.STORAGE
    assert not reg.has_deck(3) and reg.lookup(bytes.fromhex("0a0b0c0d")) == -1


def test_import_that_overfills_is_refused() -> None:
    reg = R.Registry(None, capacity=30)
    full_deck(reg, 1, "d24")
    big = F.format_lines(2, "d24", [(c, uid7(2, c)) for c in R.kind_cards("d24")])
    assert reg.import_lines(big)[0] == R.FULL
    assert not reg.has_deck(2) and reg.count() == 24


# ---------------------------------------------------------------- enrolment


@pytest.mark.parametrize("kind,first,last,n", [
    ("d36", ["CA", "C10", "CK", "CQ", "CJ", "C9", "C8", "C7", "C6", "SA"], "D6", 36),
    ("d32", ["CA", "C10", "CK", "CQ", "CJ", "C9", "C8", "C7", "SA", "S10"], "D7", 32),
    ("d24", ["CA", "C10", "CK", "CQ", "CJ", "C9", "SA", "S10", "SK", "SQ"], "D9", 24),
])
def test_enrolment_order(tmp_path: Path, kind: str, first: list[str], last: str, n: int) -> None:
    reg = R.Registry(str(tmp_path))
    e = E.Enrolment(reg, 1, kind)
    assert e.status == R.OK
    asked = []
    while e.expected() >= 0:
        c = e.expected()
        asked.append(CARD_CODES[c])
        assert e.prompt("de") == "Lege: " + R.card_label(c)
        assert e.prompt("en") == "Place: " + R.card_label(c)
        assert e.offer(uid7(1, c)) == E.ACCEPTED
        assert e.text(E.ACCEPTED, "de") == "Erfasst: " + R.card_label(c)
        assert len(e.prompt("de")) <= 16 and len(e.text(E.ACCEPTED, "en")) <= 16
    assert asked[:10] == first and asked[-1] == last and len(asked) == n
    assert e.done() and reg.complete(1) and e.progress() == (n, n)
    assert e.prompt("de") == "Deck komplett" and e.prompt("en") == "Deck complete"
    assert e.offer(uid7(1, 99)) == R.COMPLETE


def test_enrolment_refusals(tmp_path: Path) -> None:
    reg = R.Registry(str(tmp_path))
    full_deck(reg, 2, "d24")
    e = E.Enrolment(reg, 1, "d36")
    assert e.offer(b"\x01\x02\x03") == R.BAD_UID
    assert e.text(R.BAD_UID, "de") == "Kein Kartentag"
    assert e.offer(uid7(2, card("HK"))) == R.UID_OTHER_DECK
    assert e.text(R.UID_OTHER_DECK, "de") == "Karte aus Deck 2"
    assert e.text(R.UID_OTHER_DECK, "en") == "Card of deck 2"
    assert e.expected() == card("CA")
    assert e.offer(uid7(1, 0)) == E.ACCEPTED
    # the card just enrolled, seen again (still lying there after a power cut,
    # or laid again): no refusal, nothing changes
    assert e.offer(uid7(1, 0)) == E.ACCEPTED
    assert e.text(E.ACCEPTED, "de") == "Erfasst: \u2663A"
    assert e.expected() == card("C10") and e.progress() == (1, 36)
    assert e.offer(uid7(1, card("C10"))) == E.ACCEPTED
    assert e.offer(uid7(1, 0)) == R.UID_ENROLLED   # an earlier card seen again
    assert e.text(R.UID_ENROLLED, "de") == "Ist schon \u2663A"
    assert e.expected() == card("CK") and e.progress() == (2, 36)


def test_enrolment_on_a_deck_of_another_kind(tmp_path: Path) -> None:
    reg = R.Registry(str(tmp_path))
    assert reg.create_deck(1, "d24") == R.OK
    e = E.Enrolment(reg, 1, "d36")
    assert e.status == R.DECK_EXISTS
    assert e.expected() == -1 and not e.done()
    assert e.prompt("de") == "Deck existiert"
    assert e.offer(uid7(1, 0)) == R.DECK_EXISTS and e.undo_last() == -1
    assert E.Enrolment(reg, 0, "d36").status == R.BAD_DECK_ID
    assert E.Enrolment(reg, 2, "x").status == R.BAD_KIND
    assert E.Enrolment(reg, 1, "d24").status == R.OK


def test_enrolment_resumes_after_a_power_cut(tmp_path: Path,
                                             monkeypatch: pytest.MonkeyPatch) -> None:
    e = E.Enrolment(loaded(tmp_path), 3, "d32")
    for _ in range(10):
        assert e.offer(uid7(3, e.expected())) == E.ACCEPTED
    # the 11th card: the power fails before its file is renamed into place
    monkeypatch.setattr(os, "rename", RenameFails())
    eleventh = e.expected()
    assert e.offer(uid7(3, eleventh)) == R.STORAGE
    assert e.text(R.STORAGE, "de") == "Speicherfehler"
    monkeypatch.undo()
    # power back: a new registry and enrolment on the same flash
    e2 = E.Enrolment(loaded(tmp_path), 3, "d32")
    assert e2.expected() == eleventh == card("SK")
    assert e2.progress() == (10, 32)
    while e2.expected() >= 0:
        assert e2.offer(uid7(3, e2.expected())) == E.ACCEPTED
    assert loaded(tmp_path).complete(3)


def test_undo_last(tmp_path: Path) -> None:
    reg = R.Registry(str(tmp_path))
    e = E.Enrolment(reg, 1, "d24")
    assert e.undo_last() == -1
    for _ in range(3):
        assert e.offer(uid7(1, e.expected())) == E.ACCEPTED
    assert e.expected() == card("CQ")
    assert e.undo_last() == card("CK")
    assert e.expected() == card("CK") and reg.lookup(uid7(1, card("CK"))) == -1
    assert loaded(tmp_path).missing(1)[0] == card("CK")     # saved at once
    # the taken-back sticker can be placed again (or a new one)
    assert e.offer(uid7(1, 77)) == E.ACCEPTED and e.expected() == card("CQ")
    assert e.undo_last() == card("CK") and e.undo_last() == card("C10")
    # after a power cut there is no history: the last card in the order goes
    e2 = E.Enrolment(loaded(tmp_path), 1, "d24")
    assert e2.undo_last() == card("CA") and e2.undo_last() == -1
    assert e2.expected() == card("CA") and loaded(tmp_path).count(1) == 0
    assert e2.text(R.NOTHING, "de") == "Nichts zurück"


# ---------------------------------------------------------------- settings


def test_settings_defaults_without_a_file(tmp_path: Path) -> None:
    s = S.Settings(str(tmp_path))
    assert s.load() == [] and s.problems == []
    assert s.as_dict() == {
        "variant": "tapp_modern", "options": {}, "players": 3,
        "seat_names": ["Platz %d" % i for i in range(1, 7)], "first_dealer": 0,
        "mode": "strict", "language": "de", "deck": 1, "referee_pin": None,
    }
    for key in S.KEYS:
        assert s.get(key) == S.default(key)
    assert s.seats() == ["Platz 1", "Platz 2", "Platz 3"]
    assert not (tmp_path / "settings.json").exists()   # loading writes nothing


def test_settings_round_trip(tmp_path: Path) -> None:
    s = S.Settings(str(tmp_path))
    assert s.set("variant", "tapp_modern")
    assert s.set("options", {"pack": 32})
    assert s.set("players", 4)
    assert s.set("seat_names", ["Anna", "Jürgen", "Cora"])
    assert s.set("first_dealer", 3)
    assert s.set("mode", "open") and s.set("language", "en")
    assert s.set("deck", 12) and s.set("referee_pin", "0815")
    assert s.save()
    t = S.Settings(str(tmp_path))
    assert t.load() == []
    assert t.as_dict() == s.as_dict()
    assert t.seats() == ["Anna", "Jürgen", "Cora", "Platz 4"]
    assert not (tmp_path / "settings.tmp").exists()
    # the record header starts a session
    from tapp.session import Session
    h = t.header()
    assert h == {"record": 1, "variant": "tapp_modern", "players": 4,
                 "seats": ["Anna", "Jürgen", "Cora", "Platz 4"], "options": {"pack": 32},
                 "first_dealer": 3, "mode": "open"}
    Session(h)
    Session(S.Settings(str(tmp_path / "none")).header())


def test_settings_set_refuses_bad_values() -> None:
    s = S.Settings("/nonexistent")
    for key, bad in [("players", 7), ("players", 1), ("players", True), ("players", "3"),
                     ("variant", ""), ("variant", 3), ("options", []),
                     ("options", {"a": [1]}), ("options", {"a": 2 ** 40}),
                     ("seat_names", []), ("seat_names", ["A"] * 7), ("seat_names", [""]),
                     ("seat_names", ["x" * 13]), ("seat_names", [" Anna"]), ("seat_names", "Anna"),
                     ("first_dealer", 3), ("first_dealer", -1), ("mode", "loose"),
                     ("language", "fr"), ("deck", 0), ("deck", 100),
                     ("referee_pin", 12), ("referee_pin", True), ("referee_pin", "12"),
                     ("referee_pin", "12a4"),
                     ("nope", 1)]:
        assert not s.set(key, bad), (key, bad)
    assert s.as_dict() == S.Settings("/x").as_dict()
    # fewer players move a first dealer who no longer has a seat
    assert s.set("players", 5) and s.set("first_dealer", 4) and s.set("players", 3)
    assert s.first_dealer == 0


@pytest.mark.parametrize("content", [
    b"", b"{", b"not json", b"[1, 2]", b"null", b'"x"', b"\xff\xfe{}",
    b'{"players": 4' , b"{" + b" " * 5000 + b"}",
])
def test_settings_corrupt_file_gives_defaults(tmp_path: Path, content: bytes) -> None:
    (tmp_path / "settings.json").write_bytes(content)
    s = S.Settings(str(tmp_path))
    problems = s.load()
    assert problems == ["settings.json: corrupt, using the defaults"]
    assert s.as_dict() == S.Settings(str(tmp_path)).as_dict()


def test_settings_bad_values_take_their_defaults(tmp_path: Path) -> None:
    (tmp_path / "settings.json").write_text(json.dumps({
        "variant": "herzblatt", "players": 9, "mode": "open", "language": 5,
        "seat_names": ["Anna", 3], "first_dealer": 1, "deck": 4, "referee_pin": "12",
        "options": {"x": None}, "colour": "red",
    }))
    s = S.Settings(str(tmp_path))
    problems = s.load()
    assert s.variant == "herzblatt" and s.mode == "open" and s.deck == 4
    assert s.first_dealer == 1
    assert s.players == 3 and s.language == "de" and s.options == {}
    assert s.seat_names == S.default("seat_names") and s.referee_pin is None
    assert len(problems) == 6, problems
    assert any("players 9" in p for p in problems)
    assert any("unknown setting" in p and "colour" in p for p in problems)
    # a first dealer beyond the player count
    (tmp_path / "settings.json").write_text('{"players": 3, "first_dealer": 5}')
    assert s.load() == ["settings.json: first_dealer 5 is no seat of 3 players, using 0"]
    assert s.first_dealer == 0 and s.players == 3


def test_settings_failed_save_keeps_the_old_file(tmp_path: Path,
                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    s = S.Settings(str(tmp_path))
    assert s.save()
    old = (tmp_path / "settings.json").read_bytes()
    assert s.set("players", 5)
    monkeypatch.setattr(os, "rename", RenameFails())
    assert not s.save()
    assert (tmp_path / "settings.json").read_bytes() == old
    assert not (tmp_path / "settings.tmp").exists()
    monkeypatch.undo()
    t = S.Settings(str(tmp_path))
    assert t.load() == [] and t.players == 3
    assert not S.Settings(str(tmp_path / "missing_dir")).save()


def test_every_text_is_drawn_by_the_display_font(tmp_path: Path) -> None:
    from table import font

    def drawable(s: str) -> bool:
        return all(" " <= ch <= "~" or ch in font.CHARS for ch in s)

    texts = list(R.SHORT_DE + R.SHORT_EN + S.SEAT_NAMES)
    for lang in ("de", "en"):
        for code in (R.UID_ENROLLED, R.UID_OTHER_DECK, R.CARD_ENROLLED):
            texts += [R.short_text(code, lang, p) for p in (64 + c for c in range(36))]
        e = E.Enrolment(R.Registry(None), 1, "d36")
        for c in range(36):
            texts.append(e.prompt(lang))
            assert e.offer(uid7(1, c)) == E.ACCEPTED
            texts.append(e.text(E.ACCEPTED, lang))
        texts.append(e.prompt(lang))
    for t in texts:
        assert drawable(t) and font.width(t) <= 8 * R.DISPLAY_COLUMNS, t


def test_seat_name_presets() -> None:
    names = S.SEAT_NAMES
    assert len(names) == len(set(names)) >= 18
    assert names[-6:] == tuple("Platz %d" % i for i in range(1, 7))
    s = S.Settings("/x")
    for name in names:
        assert s.set("seat_names", [name]), name
        assert len(name) <= 8
