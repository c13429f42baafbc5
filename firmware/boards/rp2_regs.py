"""The MFRC522's register access on the RP2040 in viper: one register read or
written in one native call, its chip-select and SPI0 driven through their
registers.

Why: a register access through ``machine.Pin`` and ``machine.SPI`` costs
76 us (write) and 129 us (read) of bytecode and calls on the emulated Pico, a
scan that reads a card some fifty of them; through this port 29 and 31 us
(docs/benchmarks.md).  The driver (drivers/mfrc522.py, ``regs=``) uses it
for single registers only; FIFO and multi-register transfers stay on
``machine.SPI``, which the SPI0 set up by ``boards.common.build`` also serves:
each call here leaves the peripheral as it found it (receive FIFO drained,
not busy, chip-select high).

Only boards/pico.py imports this module, on the rp2 port: viper's raw
pointers are the RP2040's addresses (RP2040 datasheet 2.3.1.7 SIO
GPIO_OUT_SET / GPIO_OUT_CLR, 4.4.4 the PL022's SSPDR / SSPSR).
"""
# viper's ptr32 is a builtin of its emitter, and the stubs type micropython.viper
# for functions without arguments: the checks that cannot know better are off here
# pyright: reportUndefinedVariable=false, reportArgumentType=false, reportCallIssue=false
import micropython
from micropython import const

_SPI0 = const(0x4003C000)    # SPI0 base; SSPDR word 2, SSPSR word 3
_SIO = const(0xD0000000)     # SIO base; GPIO_OUT_SET word 5, GPIO_OUT_CLR word 6
_RNE = const(4)              # SSPSR: receive FIFO not empty
_BSY = const(16)             # SSPSR: a frame on the wire or the transmit FIFO not empty


@micropython.viper
def _write(mask: int, addr: int, value: int):
    sio = ptr32(_SIO)
    ssp = ptr32(_SPI0)
    sio[6] = mask
    ssp[2] = addr
    ssp[2] = value
    while ssp[3] & _BSY:
        pass
    while ssp[3] & _RNE:
        ssp[2]
    sio[5] = mask


@micropython.viper
def _read(mask: int, addr: int) -> int:
    sio = ptr32(_SIO)
    ssp = ptr32(_SPI0)
    while ssp[3] & _RNE:
        ssp[2]
    sio[6] = mask
    ssp[2] = addr
    ssp[2] = 0
    while ssp[3] & _BSY:
        pass
    ssp[2]
    value = ssp[2] & 0xFF
    sio[5] = mask
    return value


class Rp2Regs:
    """One reader's registers on SPI0, its chip-select on GPIO ``cs``."""

    def __init__(self, cs):
        self.mask = 1 << cs

    def write_reg(self, reg, value):
        """Register ``reg`` (DS 9.2) set to ``value`` (address byte: DS 8.1.2.3)."""
        _write(self.mask, reg << 1, value)

    def read_reg(self, reg):
        """Register ``reg``'s value."""
        return _read(self.mask, 0x80 | (reg << 1))
