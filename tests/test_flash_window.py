"""boards/flash_window.py: the journal's area as a window on a bigger flash.

On the Pico the journal lives in the last sectors of the ROMFS partition
(boards/pico.py); the window must pass the journal's operations through at
the right sectors and refuse any outside it, so the ROMFS image below is
never touched.
"""
import pytest

from boards.flash_window import FlashWindow
from host_sim.vm.nor_flash import NorFlash
from table.journal_flash import FlashJournals


def test_operations_land_in_the_window_and_nowhere_else():
    dev = NorFlash(8)
    before = bytearray(8 * 4096)
    dev.readblocks(0, before)
    win = FlashWindow(dev, 5, 3)
    assert win.ioctl(4, 0) == 3 and win.ioctl(5, 0) == 4096
    win.ioctl(6, 1)
    win.writeblocks(1, b"\x00" * 256, 512)
    after = bytearray(8 * 4096)
    dev.readblocks(0, after)
    changed = {i // 4096 for i in range(len(after)) if after[i] != before[i]}
    assert changed == {6}
    page = bytearray(256)
    win.readblocks(1, page, 512)
    assert page == bytes(256)


@pytest.mark.parametrize("block", [-1, 3, 7])
def test_a_block_outside_the_window_is_refused_and_nothing_changes(block):
    dev = NorFlash(8)
    win = FlashWindow(dev, 5, 3)
    ops = dev.ops
    for call in (lambda: win.ioctl(6, block), lambda: win.writeblocks(block, b"\0" * 256, 0),
                 lambda: win.readblocks(block, bytearray(16), 0)):
        with pytest.raises(ValueError):
            call()
    assert dev.ops == ops


def test_a_window_beyond_the_device_is_refused():
    with pytest.raises(ValueError):
        FlashWindow(NorFlash(8), 6, 3)


def test_sessions_on_a_window_survive_a_power_up_and_leave_the_rest_alone():
    """The journal's store on the window, as the Pico's: appended lines come
    back after a power-up (a new store reading the same sectors); the
    sectors below the window (the ROMFS image's) are as they were."""
    dev = NorFlash(8)
    image = bytes(range(256)) * 16 * 4
    for b in range(4):
        dev.ioctl(6, b)
        for p in range(16):
            dev.writeblocks(b, image[b * 4096 + p * 256:b * 4096 + (p + 1) * 256], p * 256)
    header = {"format": "tapp-record", "version": 1, "variant": "tapp_modern", "players": 3}
    journal = FlashJournals(FlashWindow(dev, 4, 4)).create(header)
    for seat in range(3):
        journal.append({"ev": "play", "seat": seat, "card": "HA"})
    assert not journal.failed
    again = FlashJournals(FlashWindow(dev, 4, 4)).last()
    assert list(again.read_lines()) == list(journal.read_lines())
    assert len(list(again.read_lines())) == 4
    below = bytearray(4 * 4096)
    dev.readblocks(0, below)
    assert bytes(below) == image


def test_the_virtual_tables_journal_area_is_the_picos():
    from boards import pico
    from host_sim import flash
    assert flash.PICO_JOURNAL_KB * 1024 == pico.JOURNAL_SECTORS * 4096
