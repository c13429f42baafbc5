"""The flash journal and power-cut recovery (firmware/table/journal.py).

A session is played by the simulated players; then, for every event of it,
the flash is cut back to "the journal up to this event" (plus a torn start of
the next line, or erased flash), the table is powered up on it, and it must
take up exactly that state: the engine's view equals a replay of those events,
the screen shows that trick, and play goes on to a clean record.
(These run under CPython on the host file system; littlefs inside the
MicroPython VM is not covered yet.)
"""
import json
import shutil

import pytest

from host_sim.table import AutoPlayers, VirtualTable
from table.journal import MemoryJournal, create_journal, last_journal
from table.names import card_text, german_suited
from tapp.cards import CODE_INDEX
from tapp.record import Replayer, with_crc

CASES = [("wuerttemberg", 3, "strict"), ("tapp_modern", 3, "open"),
         ("haferltarock", 4, "strict"), ("herzblatt", 4, "open")]


def _state(view):
    return {"phase": view.phase(), "turn": view.turn(), "trick": view.trick(),
            "last": view.last_trick(), "balances": view.balances(), "pot": view.pot(),
            "deals": view.deals_played(), "contract": view.contract()}


def _played(variant, players, mode, deals=2):
    table = VirtualTable(variant, players, mode)
    people = AutoPlayers(table, seed=5, illegal_once=False)
    for k in range(deals):
        if k:
            people.next_deal()
        people.play_deal()
        if table.view.session_over():
            break
    return table


def _cut_root(tmp_path, template, lines, tail=b""):
    """A flash image: the decks of ``template`` and a journal of ``lines``."""
    root = tmp_path / ("cut%d" % len(lines))
    shutil.copytree(template + "/decks", root / "decks")
    (root / "journal").mkdir()
    with open(root / "journal" / "s0001.jsonl", "wb") as f:
        for line in lines:
            f.write(line.encode() + b"\n")
        f.write(tail)
    return str(root)


@pytest.mark.parametrize("variant,players,mode", CASES)
def test_power_cut_after_every_event(tmp_path, variant, players, mode):
    table = _played(variant, players, mode)
    lines = table.journal_lines()
    header = json.loads(lines[0].split("\t")[0])
    assert len(lines) > 20
    step = 1 if variant == "wuerttemberg" else 3       # every event in one variant
    for k in range(1, len(lines), step):
        kept = lines[:k + 1]
        nxt = lines[k + 1].encode() if k + 1 < len(lines) else b'{"ev":"undo"}\t0'
        tail = nxt[:len(nxt) // 2] if k % 2 else b"\xff" * 300   # torn, or erased flash
        root = _cut_root(tmp_path, table.root, kept, tail)
        rep = Replayer(kept[0])
        for line in kept[1:]:
            rep.feed(line)
        resumed = VirtualTable(variant, players, mode, root=root, enrolled=False,
                               resume=True)
        resumed.wait(800)
        assert _state(resumed.view) == _state(rep.session.view), (k, kept[-1])
        assert resumed.journal_lines() == kept, "the torn tail is dropped, nothing else"
        screen = "\n".join(resumed.screen())
        for _seat, code in resumed.view.trick():       # the trick's cards are shown,
            card = card_text(CODE_INDEX[code], german_suited(variant))   # in the deck's pattern
            assert card in screen, (k, card, screen)
        shutil.rmtree(root)
    assert header["variant"] in (variant, "berliner")


def test_play_goes_on_after_a_power_cut_mid_trick():
    table = VirtualTable("wuerttemberg", 3)
    people = AutoPlayers(table, seed=3, illegal_once=False)

    class Cut(Exception):
        pass

    def cut_in_trick_two(t):
        if t.view.in_deal() and t.view.trick_number() == 2 and t.view.trick_size() == 1:
            raise Cut

    with pytest.raises(Cut):
        for _ in range(6):
            people.play_deal(on_step=cut_in_trick_two)
            people.next_deal()
    before = _state(table.view)
    after = table.power_cut()
    after.wait(800)
    assert _state(after.view) == before
    result = AutoPlayers(after, seed=4, illegal_once=False).play_deal()
    rep = Replayer(after.journal_lines()[0])
    outs = [rep.feed(line) for line in after.journal_lines()[1:]]
    assert not [o for o in outs if '"ok":false' in o]
    assert rep.session.view.balances() == result["balances"] == after.view.balances()


def test_cards_lifted_while_the_power_was_off_are_not_waited_for(tmp_path):
    table = VirtualTable("wuerttemberg", 3)
    people = AutoPlayers(table, seed=3, illegal_once=False)

    class Cut(Exception):
        pass

    def before_last_card(t):
        if t.view.in_deal() and t.view.trick_number() == 1 and t.view.trick_size() == 2:
            raise Cut

    with pytest.raises(Cut):
        for _ in range(6):
            people.play_deal(on_step=before_last_card)
            people.next_deal()
    people.sync()
    table.place(table.view.turn(), people.shadow.view.legal_cards()[0])
    assert table.app.view.clearing()            # the trick lies there, complete
    for reader in range(3):
        table.lift(reader, wait=False)      # taken off while the table was off
    after = table.power_cut()
    after.wait(1000)
    assert not after.app.view.clearing()
    assert after.view.expects() in ("card", "deal")    # play on (or the deal was decided)
    assert "abräumen" not in "\n".join(after.screen())


def test_a_corrupt_line_in_the_middle_is_dropped_and_counted(tmp_path):
    j = create_journal(str(tmp_path), {"record": 1, "variant": "wuerttemberg",
                                            "players": 3, "first_dealer": 0})
    j.append({"ev": "deal", "dealer": 0, "hands": None, "talon": None})
    j.close()
    path = tmp_path / "journal" / "s0001.jsonl"
    good = path.read_bytes()
    bad = with_crc('{"ev":"undo"}')[:-1] + "0"          # a CRC that does not match
    path.write_bytes(good + bad.encode() + b"\n" + b'{"ev":"redeal"}\n')  # no CRC: not whole
    again = last_journal(str(tmp_path))
    assert again.dropped == 2 and len(again) == 2
    assert path.read_bytes() == good                     # rewritten without them
    again.append({"ev": "undo"})
    assert len(last_journal(str(tmp_path))) == 3


def test_sessions_are_numbered_and_the_newest_is_resumed(tmp_path):
    root = str(tmp_path)
    assert last_journal(root) is None
    for n in range(3):
        create_journal(root, {"record": 1, "n": n}).close()
    last = last_journal(root)
    assert last.header()["n"] == 2 and last.path.endswith("s0003.jsonl")
    memory = MemoryJournal({"record": 1})
    memory.append({"ev": "undo"})
    assert len(memory) == 2 and memory.tail(1)[0].startswith('{"ev":"undo"}')


def test_a_long_session_keeps_only_a_tail_in_ram(tmp_path):
    from table.journal import TAIL
    j = create_journal(str(tmp_path), {"record": 1})
    for _ in range(3 * TAIL):
        j.append({"ev": "undo"})
    assert len(j) == 3 * TAIL + 1 and len(j.tail(1000)) == TAIL
    assert j.line(0).startswith('{"record":1}') and j.line(5).startswith('{"ev":"undo"}')
    assert len(list(j.read_lines())) == len(j) == len(last_journal(str(tmp_path)))
