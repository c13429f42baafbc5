"""A display that stops answering (a loose wire, a dead module) must not stop
the table: play goes on, the display is tried again every second, and when it
answers again it gets the power-up sequence and the current picture.  In both
runtimes (the app under CPython, and inside the MicroPython unix port)."""
import pytest

from host_sim.scenario import RUNTIMES, table_class
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
