"""The table never needs its display, nor every reader, to run.

A display that stops answering (a loose wire, a dead module) must not stop
the table: play goes on, the display is tried again every second, and when it
answers again it gets the power-up sequence and the current picture.  A
display that never answered at power-up (none fitted yet, SDA and SCL
swapped) is the same case from the start, and one strapped to 0x3D is found
there.  Readers that do not answer at power-up (unplugged, MISO reading 0x00
or 0xFF) only leave their seat without a reader.  In both runtimes (the app
under CPython, and inside the MicroPython unix port, where the board is made
by firmware/boards/common.py's ``build`` as on the device)."""
import pytest

import host_sim.board as HB
from host_sim.i2c_bus import I2CBus
from host_sim.mfrc522_model import MFRC522Model
from host_sim.runtimes import RUNTIMES, table_class
from host_sim.table import AutoPlayers

OLED_ADDR = 0x3C


@pytest.mark.parametrize("runtime", RUNTIMES)
def test_play_goes_on_without_the_display_and_it_comes_back(runtime):
    table = table_class(runtime)("tapp_modern", 3)
    try:
        before = table.screen()
        assert "Karte 0/33" in before
        table.board.i2c.nack(OLED_ADDR)
        players = AutoPlayers(table, seed=3, illegal_once=False)
        players.deal_cards(5)                 # the table goes on counting the cards
        table.wait(2500)
        assert table.screen() == before       # nothing reached the panel
        table.board.i2c.nack(OLED_ADDR, False)
        table.board.oled.ram[:] = bytes(len(table.board.oled.ram))  # it lost power
        table.wait(1500)
        assert any("Karte 5/33" in row for row in table.screen())
        players.deal_cards()
        assert table.view.expects() != "deal"
    finally:
        table.close()


def _display_at(monkeypatch, addr):
    """The simulator's display model at I2C address ``addr`` (None: not connected)."""
    class Bus(I2CBus):
        moved = False

        def attach(self, a, device):
            """The board's own attach goes to ``addr``; later ones (the test's) as asked."""
            if self.moved:
                return I2CBus.attach(self, a, device)
            self.moved = True
            if addr is not None:
                I2CBus.attach(self, addr, device)
            return device
    monkeypatch.setattr(HB, "I2CBus", Bus)


@pytest.mark.parametrize("runtime", RUNTIMES)
def test_no_display_at_power_up_and_one_connected_later(runtime, monkeypatch):
    _display_at(monkeypatch, None)            # none fitted, or SDA and SCL swapped
    table = table_class(runtime)("tapp_modern", 3)
    try:
        assert table.board.i2c.scan() == []
        assert not any(table.screen())         # nothing was ever drawn on the panel
        players = AutoPlayers(table, seed=3, illegal_once=False)
        players.deal_cards(4)                  # the table plays without it
        table.board.i2c.attach(OLED_ADDR, table.board.oled)   # connected now
        table.wait(1500)
        assert any("Karte 4/33" in row for row in table.screen())
        players.deal_cards()
        assert table.view.expects() != "deal"
    finally:
        table.close()


def test_without_a_display_the_idle_work_and_the_console_still_get_their_moments(monkeypatch):
    """The pages a missing display never takes do not count as waiting: the
    journal's erase ahead, the idle collections and a console's steps (which
    wait for the table to be idle) go on without one."""
    _display_at(monkeypatch, None)
    table = table_class("cpython")("tapp_modern", 3)
    try:
        table.wait(2000)
        assert table.board.display.dirty_pages()      # drawn, never sent
        assert table.app.nothing_waits()
    finally:
        table.close()


@pytest.mark.parametrize("runtime", RUNTIMES)
def test_display_strapped_to_0x3d_is_found(runtime, monkeypatch):
    _display_at(monkeypatch, 0x3D)
    table = table_class(runtime)("tapp_modern", 3)
    try:
        assert table.board.i2c.scan() == [0x3D]
        table.wait(200)
        assert "Karte 0/33" in table.screen()
    finally:
        table.close()


@pytest.mark.parametrize("miso", [0x00, 0xFF, None], ids=["low", "high", "floating"])
@pytest.mark.parametrize("runtime", RUNTIMES)
def test_table_starts_with_readers_that_do_not_answer(runtime, miso, monkeypatch):
    """Seat 2's reader unplugged at power-up (MISO low, high or floating): the
    table starts, deals on the centre reader and plays on the seats that answer;
    plugged in again, seat 2's reader joins (the driver retries it)."""
    class Chip(MFRC522Model):
        def __init__(self, bus, cs, **kw):
            MFRC522Model.__init__(self, bus, cs, **kw)
            if self.name == "seat1":
                self.disconnect(miso=miso)
    monkeypatch.setattr(HB, "MFRC522Model", Chip)
    table = table_class(runtime)("tapp_modern", 3)
    try:
        assert "Karte 0/33" in table.screen()
        players = AutoPlayers(table, seed=3, illegal_once=False)
        players.deal_cards(3)
        assert any("Karte 3/33" in row for row in table.screen())
        table.board.chips[1].reconnect()
        players.deal_cards()
        assert table.view.expects() != "deal"
    finally:
        table.close()
