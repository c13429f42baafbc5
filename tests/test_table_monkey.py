"""The table monkey (host_sim/monkey.py): random physical actions at the table --
any card or a foreign tag laid, lifted or slid, short and long presses, readers
unplugged, power cuts (cards lifted while off) -- interleaved with a sensible
person who recovers.  After every step: no exception, the journal replays to
the state the table shows, nothing journalled that no one did, no screen row
cut; from every state the person takes over he finishes the deal in a bounded
number of actions.

Under CPython on ``QuickTable`` (the unchanged application without the chip
models): at least 20,000 steps across the variant families, split into one
test per family so pytest-xdist spreads them; a slice inside the MicroPython
VM on the virtual table with its chip models.  The numbers each run reached are
printed (``pytest -s``)."""
import pytest

from host_sim.monkey import Monkey, MonkeyError, QuickTable
from host_sim.vm import fake_board
from host_sim.vm.fake_board import FakeReaders, Pad, Sticker
from table import presence as P

# (variant, players, mode, seed, steps) per family: 20,000+ steps in all
FAMILIES = {
    "tarock_3": [("wuerttemberg", 3, "strict", 11, 1100), ("wuerttemberg", 3, "open", 12, 1000),
                 ("berliner", 3, "open", 13, 900)],
    "tarock_3b": [("tarock_simple", 3, "strict", 21, 1200), ("tarock_simple", 3, "open", 22, 1000),
                  ("scharfer_tarock", 3, "strict", 23, 1200)],
    "tapp": [("tapp_modern", 3, "strict", 31, 1100), ("tapp_modern", 3, "open", 32, 1000),
             ("tapp_classic", 3, "strict", 33, 900)],
    "tarock_4": [("haferltarock", 4, "strict", 41, 1100), ("haferltarock", 4, "open", 42, 1000),
                 ("tarock_bettel", 4, "strict", 43, 900)],
    "tapp_4": [("tapp_modern", 4, "strict", 51, 1100), ("tapp_modern", 4, "open", 52, 1000),
               ("tarock_bettel", 4, "open", 53, 900)],
    "herzblatt": [("herzblatt", 4, "strict", 61, 1100), ("herzblatt", 5, "open", 62, 1000),
                  ("herzblatt_muhr", 3, "strict", 63, 900)],
    "five": [("braun_solo", 5, "strict", 71, 1100), ("braun_solo", 5, "open", 72, 1000),
             ("herzblatt_muhr", 3, "open", 73, 900)],
}


def test_the_fake_readers_report_what_lies_on_their_pads():
    """The quick table's readers (host_sim/vm/fake_board.py, also the heap
    session's in the VM): the presence arbiter's states, read at each poll."""
    assert (fake_board.ABSENT, fake_board.PRESENT, fake_board.COLLISION, fake_board.ERROR) == (
        P.ABSENT, P.PRESENT, P.COLLISION, P.ERROR)
    pads = [Pad(), Pad()]
    rs = FakeReaders(pads)
    a, b = Sticker(b"\x04\x01\x02\x03"), Sticker(b"\x04\x05\x06\x07")
    seen = []
    for act in (lambda: pads[0].place(a), lambda: pads[0].place(b), lambda: pads[0].remove(a),
                pads[0].disconnect, pads[0].reconnect, pads[0].clear):
        act()
        rs.poll(0)
        seen.append((rs.status[0], rs.raw[0], bytes(rs.uid_view(0)), rs.down(0)))
    assert seen == [(P.PRESENT, P.PRESENT, a.uid, False), (P.COLLISION, P.COLLISION, b"", False),
                    (P.PRESENT, P.PRESENT, b.uid, False), (P.ERROR, P.ERROR, b"", True),
                    (P.PRESENT, P.PRESENT, b.uid, False), (P.ABSENT, P.ABSENT, b"", False)]
    rs.poll(1)
    assert rs.status[1] == P.ABSENT and pads[1].uid() is None and pads[0].uid() is None


def test_the_families_take_20000_steps_and_every_variant():
    runs = [run for family in FAMILIES.values() for run in family]
    assert sum(steps for *_x, steps in runs) >= 20000
    from tapp.catalog import variant_ids
    assert {v for v, *_x in runs} == set(variant_ids())
    for mode in ("strict", "open"):
        assert any(m == mode for _v, _n, m, _s, _k in runs)


@pytest.mark.parametrize("family", sorted(FAMILIES))
def test_the_monkey_cannot_wedge_the_table(family):
    for variant, players, mode, seed, steps in FAMILIES[family]:
        monkey = Monkey(QuickTable.factory(variant, players, mode), seed=seed)
        counts = monkey.run(steps)
        print(variant, players, mode, counts)
        assert counts["steps"] >= steps
        # it did what it is there for: random actions of every kind, deals finished
        assert counts["random"] * 6 >= steps and counts.get("deals", 0) >= 3, counts
        for kind in ("power cut", "unplug", "hold", "tag", "wait"):
            assert counts.get(kind, 0) >= 2, (kind, counts)


# ----- the checks can fail -------------------------------------------------------------


def test_an_event_no_one_made_is_found():
    monkey = Monkey(QuickTable.factory("wuerttemberg", 3, "strict"), seed=5)
    monkey.run(200)
    t = monkey.table
    view = t.view
    t.app.journal.append({"ev": "redeal", "reason": "nobody"})   # written behind its back
    with pytest.raises(MonkeyError, match="never makes"):
        monkey.lift(t.centre)
    assert view.deals_played() >= 0


def test_a_card_play_must_lie_on_its_reader():
    monkey = Monkey(QuickTable.factory("wuerttemberg", 3, "open"), seed=6)
    t = monkey.table
    while t.view.expects() != "card" or t.app.view.menu_size():
        monkey.person.act()
    seat = t.view.turn()
    # a play the journal gets, no card laid: behind the table's back, for the checks to catch
    t.app.game._session.play(seat, 0)  # noqa: SLF001 -- the back door the check must catch
    t.app.journal.append({"ev": "play", "seat": seat, "card": "CA"})
    with pytest.raises(MonkeyError, match="does not lie on reader"):
        monkey.press("prev")


def test_a_wedged_table_is_found(monkeypatch):
    """A table that forgets lifted cards (the early-lift bug) never clears."""
    from table.game import Game
    monkeypatch.setattr(Game, "lifted", lambda self, reader: None)
    monkey = Monkey(QuickTable.factory("wuerttemberg", 3, "strict"), seed=7,
                    recovery_limit=300)
    with pytest.raises(MonkeyError, match="wedged"):
        monkey.recover(to_end=True)


# ----- inside MicroPython ----------------------------------------------------------------


@pytest.mark.parametrize("variant, players, mode, seed", [
    ("wuerttemberg", 3, "strict", 12), ("herzblatt", 5, "open", 9)])
def test_a_slice_inside_the_micropython_vm(variant, players, mode, seed):
    from host_sim.vm_table import VmTable

    def make():
        return VmTable(variant=variant, players=players, mode=mode)

    monkey = Monkey(make, seed=seed)
    try:
        counts = monkey.run(200)
    finally:
        monkey.table.close()
    print("micropython", variant, players, mode, counts)
    assert counts["steps"] >= 200 and counts["random"] >= 50, counts
    assert counts.get("power cut", 0) >= 2, counts
    for kind in ("unplug", "hold", "tag"):
        assert counts.get(kind, 0) >= 1, (kind, counts)


# ----- the front-ends' own controls -------------------------------------------------------


class HubFront:
    """The browser's hub (tools/tapptable/sim_web/hub.py) for the monkey: one tab
    holds every seat (no robot moves), and uses the page's own controls."""

    def __init__(self, variant, players, mode):
        from host_sim.table import VirtualTable
        from tools.tapptable.sim_web.hub import TableHub
        self.hub = TableHub(variant, players, mode, seed=3, robots=False,
                            table=VirtualTable(variant, players, mode))
        for seat in range(players):
            self.hub.claim("monkey", seat)

    @property
    def table(self):
        return self.hub.table

    def _run(self, busy, limit_ms=20_000):
        """Move the page's clock on while ``busy()`` (its timed actions run)."""
        waited = 0
        while busy() and waited < limit_ms:
            self.hub.advance(100)
            waited += 100
        self.hub.advance(100)

    def deal_all(self):
        from tools.tapptable.sim_web.hub import Refused
        try:
            self.hub.deal("monkey")
        except Refused:            # nothing to deal now: the page's button is hidden
            return
        self._run(lambda: self.hub.shared_state()["dealing"])

    def power_cut(self):
        self.hub.power_cut("monkey")

    def undo(self):
        from tools.tapptable.sim_web.hub import Refused
        for long in (True, False):
            try:
                self.hub.press("monkey", "ok", long)
            except Refused:        # the page says why (e.g. the discards first)
                return
            self._run(lambda: self.hub.shared_state()["held"])


class TerminalFront:
    """The terminal's seating (tools/tapptable/sim_tui.py) for the monkey: its
    d (deal), P (power cut) and O then o (undo)."""

    def __init__(self, variant, players, mode):
        from tools.tapptable.sim_tui import Seating
        self.seating = Seating(variant, players, mode, seed=3)

    @property
    def table(self):
        return self.seating.table

    def deal_all(self):
        self.seating.deal()

    def power_cut(self):
        self.seating.power_cut()

    def undo(self):
        self.seating.press("ok", long=True)
        self.seating.press("ok")


@pytest.mark.parametrize("front", [HubFront, TerminalFront], ids=["browser", "terminal"])
@pytest.mark.parametrize("variant, players, mode, seed", [
    ("tapp_modern", 3, "strict", 83), ("wuerttemberg", 3, "open", 82)])
def test_the_monkey_uses_the_front_ends_own_controls(front, variant, players, mode, seed):
    """The monkey at the browser's and the terminal's table: its random actions
    include their own controls (deal all, power cut, undo), each checked as any
    other step; the person still finishes every deal."""
    monkey = Monkey(seed=seed, make_front=lambda: front(variant, players, mode))
    counts = monkey.run(400)
    print(front.__name__, variant, mode, counts)
    assert counts["steps"] >= 400 and counts.get("deals", 0) >= 2, counts
    for kind in ("front deal all", "front power cut", "front undo"):
        assert counts.get(kind, 0) >= 2, (kind, counts)
