"""The MFRC522's bus access on the RP2040 in viper: a transfer (a register,
several registers, the FIFO) and a frame's sending and its end, each in one
native call, the chip-select and SPI0 driven through their registers, and
CRC_A computed on the core.

Why: through ``machine.Pin`` and ``machine.SPI`` a register write costs 76 us
and a read 129 us of bytecode and calls on the emulated Pico, and a frame
(WUPA, ANTICOLLISION, SELECT) some ten accesses and a dozen lines of Python
around them.  Here a frame is two calls (``start``: the driver's ``_send``;
``answer``: the wait and the ComIrqReg polls), and CRC_A (the chip's
CalcCRC: a command, a FIFO burst and polls) a loop on the core
(docs/benchmarks.md).  The driver (drivers/mfrc522.py, ``regs=``) calls
these where it would use the bus; each call leaves SPI0 as it found it
(receive FIFO drained, not busy, chip-select high), so machine.SPI, which
``boards.common.build`` set up, still works.

Only boards/pico.py imports this module, on the rp2 port: viper's raw
pointers are the RP2040's addresses (RP2040 datasheet 2.3.1.7 SIO
GPIO_OUT_SET / GPIO_OUT_CLR, 4.4.4 the PL022's SSPDR / SSPSR, 4.6.5 the
timer's TIMERAWL).  tests/test_rp2040_table.py reads cards through it and
through machine.SPI on the emulated Pico (the same UIDs; its CRC_A of HLTA
is ISO/IEC 14443-3's).
"""
# viper's ptr8/ptr32 are builtins of its emitter, and the stubs type micropython.viper
# for functions without arguments: the checks that cannot know better are off here
# pyright: reportUndefinedVariable=false, reportArgumentType=false, reportCallIssue=false
# pyright: reportIndexIssue=false, reportOptionalSubscript=false
import micropython
from micropython import const

_SPI0 = const(0x4003C000)    # SPI0 base; SSPDR word 2, SSPSR word 3
_SIO = const(0xD0000000)     # SIO base; GPIO_OUT_SET word 5, GPIO_OUT_CLR word 6
_TIMER = const(0x40054000)   # the 1 MHz timer; TIMERAWL word 10
_RNE = const(4)              # SSPSR: receive FIFO not empty
_BSY = const(16)             # SSPSR: a frame on the wire or the transmit FIFO not empty

# A frame's registers (``_start``): DS 9.2 addresses shifted as on the bus (DS 8.1.2.3)
_COMIRQ_RD = const(0x88)     # read ComIrqReg
_DONE_IRQS = const(0x33)     # RxIRq | IdleIRq | ErrIRq | TimerIRq
_POLL_US = const(100)        # between ComIrqReg reads after the wait
_POLL_MAX = const(40)        # 4 ms of polls: longer than the chip's timeout
# one register's transaction (the readers are polled one at a time: shared)
_TX2 = bytearray(2)
_RX2 = bytearray(2)


@micropython.viper
def _transfer(mask: int, tx: ptr8, rx: ptr8, n: int):
    """n bytes out of tx in one chip-select, each byte received into rx."""
    sio = ptr32(_SIO)
    ssp = ptr32(_SPI0)
    while ssp[3] & _RNE:
        ssp[2]
    sio[6] = mask
    i = 0
    while i < n:
        ssp[2] = tx[i]
        while (ssp[3] & _RNE) == 0:
            pass
        rx[i] = ssp[2]
        i += 1
    sio[5] = mask


@micropython.viper
def _start(mask: int, fw: ptr8, shape: int):
    """The driver's frame sent (drivers/mfrc522.py ``_send``): CommandReg
    Idle, ComIrqReg cleared, FIFOLevelReg flushed, the FIFO burst fw[0:n+1],
    BitFramingReg, CommandReg Transceive, StartSend.  ``shape``: n, and the
    last byte's bits (0 = 8) times 16."""
    sio = ptr32(_SIO)
    ssp = ptr32(_SPI0)
    n = shape & 15
    bits = shape >> 4
    while ssp[3] & _RNE:
        ssp[2]
    k = 0
    while k < 6:                         # (address, value) pairs, one transaction each
        if k == 3:                       # the FIFO burst between them
            sio[6] = mask
            i = 0
            while i <= n:
                ssp[2] = fw[i]
                while (ssp[3] & _RNE) == 0:
                    pass
                ssp[2]
                i += 1
            sio[5] = mask
        if k == 0:
            addr = 0x02                  # CommandReg: Idle
            value = 0x00
        elif k == 1:
            addr = 0x08                  # ComIrqReg: Set1 = 0, every flag cleared
            value = 0x7F
        elif k == 2:
            addr = 0x14                  # FIFOLevelReg: FlushBuffer
            value = 0x80
        elif k == 4:
            addr = 0x02                  # CommandReg: Transceive
            value = 0x0C
        else:
            addr = 0x1A                  # BitFramingReg: TxLastBits (k 3), StartSend (k 5)
            value = bits | (0x80 if k == 5 else 0)
        sio[6] = mask
        ssp[2] = addr
        ssp[2] = value
        while ssp[3] & _BSY:
            pass
        while ssp[3] & _RNE:
            ssp[2]
        sio[5] = mask
        k += 1


@micropython.viper
def _answer(mask: int, wait_us: int) -> int:
    """wait_us, then ComIrqReg polled every _POLL_US until the frame ended
    (drivers/mfrc522.py ``_wait_irq``): its value, 0 if the chip never finished."""
    sio = ptr32(_SIO)
    ssp = ptr32(_SPI0)
    timer = ptr32(_TIMER)
    t0 = timer[10]
    while timer[10] - t0 < wait_us:
        pass
    left = _POLL_MAX
    while left:
        sio[6] = mask
        ssp[2] = _COMIRQ_RD
        ssp[2] = 0
        while ssp[3] & _BSY:
            pass
        ssp[2]
        irq = ssp[2] & 0xFF
        sio[5] = mask
        if irq & _DONE_IRQS:
            return irq
        left -= 1
        t0 = timer[10]
        while timer[10] - t0 < _POLL_US:
            pass
    return 0


@micropython.viper
def _crc_a(buf: ptr8, n: int) -> int:
    """CRC_A (ISO/IEC 14443-3 annex B: preset 0x6363, reflected 0x8408, no
    final XOR) of buf[1:n] -- buf[0] is the FIFO address the chip's CalcCRC
    would have been given the bytes with (drivers/mfrc522.py ``_calc_crc``)."""
    crc = 0x6363
    i = 1
    while i < n:
        b = (buf[i] ^ crc) & 0xFF
        b = (b ^ (b << 4)) & 0xFF
        crc = ((crc >> 8) ^ (b << 8) ^ (b << 3) ^ (b >> 4)) & 0xFFFF
        i += 1
    return crc


class Rp2Regs:
    """One reader's bus access on SPI0, its chip-select on GPIO ``cs``."""

    def __init__(self, cs):
        self.mask = 1 << cs

    def write_reg(self, reg, value):
        """Register ``reg`` (DS 9.2) set to ``value`` (address byte: DS 8.1.2.3)."""
        _TX2[0] = reg << 1
        _TX2[1] = value
        _transfer(self.mask, _TX2, _RX2, 2)

    def read_reg(self, reg):
        """Register ``reg``'s value."""
        _TX2[0] = 0x80 | (reg << 1)
        _TX2[1] = 0
        _transfer(self.mask, _TX2, _RX2, 2)
        return _RX2[1]

    def transfer(self, tx, rx, n):
        """``n`` bytes of ``tx`` out in one transaction, the answer in ``rx``
        (machine.SPI's write_readinto of the first n bytes)."""
        _transfer(self.mask, tx, rx, n)

    def start(self, fw, shape):
        """Send the frame ``fw[1:n+1]`` (``fw[0]`` the FIFO write address;
        ``shape``: n, and the last byte's bits (0 = 8) times 16) by
        Transceive, and return: ``answer`` takes its end."""
        _start(self.mask, fw, shape)

    def answer(self, wait_us):
        """The end of the frame ``start`` sent, after ``wait_us``: ComIrqReg,
        or 0 when the chip never finished."""
        return _answer(self.mask, wait_us)

    def crc_a(self, buf, n):
        """CRC_A of ``buf[1:n]`` (``buf[0]``: the FIFO address, not counted)."""
        return _crc_a(buf, n)
