"""The application inside the MicroPython unix port, bridged to the chip models
(host_sim/vm_table.py): the same timeline as under CPython, errors that cross
the bridge, only the allow-listed questions and inputs crossing it
(host_sim/vm/vm_serve.py ``ALLOWED``), the VM really being MicroPython with a
bounded heap.

The scenario suite (tests/test_scenarios.py) runs every scenario in both
runtimes; these tests check the bridge itself.
"""
import pytest

from host_sim import vm_table
from host_sim.bridge import Remote, RemoteApp
from host_sim.flash import PICO_JOURNAL_KB
from host_sim.table import AutoPlayers, VirtualTable
from host_sim.vm_table import VmError, VmTable, journal_heapsize

OLED_ADDR = 0x3C


def play_one_deal(cls, variant, mode, seed):
    table = cls(variant, 3, mode)
    try:
        players = AutoPlayers(table, seed=seed)
        result = players.play_deal()
        return {
            "journal": table.journal_lines(),
            "screen": table.screen(),
            "framebuffer": bytes(table.board.oled.ram),
            "leds": table.leds(),
            "tones": table.tones(),
            "strip_writes": table.board.strip.writes,
            "clock_us": table.board.clock.now_us,
            "steps": table.scheduler.steps,
            "result": result,
            "refused": players.refused,
        }
    finally:
        table.close()


@pytest.mark.parametrize("variant,mode,seed", [("wuerttemberg", "strict", 4),
                                               ("tapp_modern", "open", 3)])
def test_both_runtimes_live_the_same_deal(variant, mode, seed):
    """Byte for byte: the journal (with CRCs), the OLED's memory, the LEDs, the
    buzzer's notes, the virtual clock and the number of job steps."""
    cpython = play_one_deal(VirtualTable, variant, mode, seed)
    vm = play_one_deal(VmTable, variant, mode, seed)
    assert len(cpython["journal"]) > 30 and cpython["refused"]
    for key in cpython:
        assert vm[key] == cpython[key], key


def test_the_vm_is_micropython_with_a_bounded_heap():
    table = VmTable("wuerttemberg", 3)
    try:
        args = table.link.proc.args
        # the app's megabyte, the journal's flash area (the Pico's) and room for its log
        assert "micropython" in args[0] and \
            "heapsize=%s" % journal_heapsize(PICO_JOURNAL_KB) in args
        assert journal_heapsize(64) == "1152k"
        assert table.view.expects() == "deal"
        assert isinstance(table.app, RemoteApp) and isinstance(table.app.view.rows(), list)
    finally:
        table.close()
    assert table.link.proc.returncode is not None          # closed: the VM is gone


def test_errors_cross_the_bridge():
    table = VmTable("tapp_modern", 3)
    try:
        with pytest.raises(AttributeError):
            assert table.app.view.no_such_question is None
        with pytest.raises(VmError) as err:       # raised in the VM, with its traceback
            table.app.inject(99, b"\x04\x01")
        assert "IndexError" in str(err.value) and "app.py" in str(err.value)
        # the host's I2C model stops answering: the VM's display driver gets the
        # OSError (errno 19, ENODEV) as on the Pico's bus, and the app keeps going
        table.board.i2c.nack(OLED_ADDR)
        table.place(table.centre, "HA")
        assert table.app.view.display_down()
    finally:
        table.close()


# paths past the view's questions and the App's inputs: the App's fields, the
# game behind it, private names, the board's drivers, a module, the issue's
# back door (``app.game.view``), a path of three names
REFUSED = ("app.current", "app.game", "app.journal", "app.keys", "app.start_game",
           "app.poll_readers", "app.view", "view._app", "view.__class__", "engine._session",
           "board.readers", "gc.collect", "leds.set", "host.app", "app.game.view",
           "view.journal.name", "nothing", "")


def test_the_bridge_lets_only_the_allowed_names_across():
    """A value or a call outside vm_serve.py's allow-list is refused, with one
    stable error, whatever path the host sends; an alias or ``getattr`` on the
    host's side reaches nothing more (the App's inputs and its view are all
    ``table.app`` has)."""
    table = VmTable("tapp_modern", 3)
    try:
        link = table.link
        for path in REFUSED:
            for ask in (lambda p: link.get(p), lambda p: link.call(p, ())):
                with pytest.raises(AttributeError) as err:
                    ask(path)
                assert str(err.value) == "refused: " + path, path
        with pytest.raises(AttributeError):
            getattr(table.app, "ga" + "me")
        with pytest.raises(AttributeError, match="refused: app.current"):
            assert Remote(link, "app").current is None
        assert table.app.view.mode() == "dealing" and table.view.expects() == "deal"
        assert table.journal_flash.ops >= 0          # the emulated flash's counter
        assert table.app.input(99) is True and table.app.view.mode() == "dealing"
    finally:
        table.close()


def test_a_power_cut_starts_a_new_vm_on_the_same_flash():
    table = VmTable("wuerttemberg", 3)
    players = AutoPlayers(table, seed=3, illegal_once=False)
    players.deal_cards()
    lines = table.journal_lines()
    old = table.link.proc
    table = table.power_cut()
    try:
        assert old.returncode is not None and table.link.proc is not old
        assert table.journal_lines() == lines
        assert table.view.expects() != "deal"
    finally:
        table.close()


def test_a_hung_vm_is_killed_and_reported(monkeypatch):
    """A command the VM never answers (here: the host waits for an answer to
    a command it never sent, as if the line were lost) ends in an error, not a
    hang; a line the VM does not understand is answered with an error."""
    monkeypatch.setattr(vm_table, "COMMAND_LIMIT_S", 1.0)
    table = VmTable("wuerttemberg", 3)
    try:
        table.link.proc.stdin.write(table.link.frame(b"#not a command\n"))
        table.link.proc.stdin.flush()
        with pytest.raises(VmError, match="unknown command 35"):
            table.link.serve()
        with pytest.raises(VmError, match="no answer for 1 s"):
            table.link.serve()
    finally:
        table.close()
