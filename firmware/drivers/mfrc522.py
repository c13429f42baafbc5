"""NXP MFRC522 NFC reader driver: ISO/IEC 14443A UIDs (4, 7, 10 bytes), debounced polling.

The SPI bus, each reader's chip-select pin and the optional shared reset pin
are injected (``machine.SPI`` / ``machine.Pin`` on the device, ``host_sim``'s
emulated bus on the host); the driver never constructs them. Several readers
share one bus, one chip-select each; only the reader being polled has its RF
field on, unless the board keeps every field on (``scan(keep_field=True)``:
faster polls, more supply current — the board file's ``fields_on``).

References: NXP MFRC522 product data sheet rev. 3.9 ("DS"), ISO/IEC 14443-3
("14443-3").

One poll of one reader (``MFRC522.scan``):

1. field on (TxControlReg Tx1RFEn|Tx2RFEn, DS 9.3.2.5), wait the guard time;
2. WUPA (7-bit short frame, 14443-3 "REQA and WUPA"): wakes IDLE *and* HALT tags, so a
   card that someone left halted is not taken for removed;
3. per cascade level: ANTICOLLISION (SEL, NVB 0x20) -> 4 UID bytes + BCC
   (checked); SELECT (SEL, NVB 0x70, UID, BCC, CRC_A) -> SAK + CRC_A (checked);
   SAK bit 2 (cascade bit) set means the UID goes on at the next level and the
   first byte was the cascade tag 0x88 (14443-3 "select sequence");
4. field off: every tag drops to POWER-OFF and comes back IDLE next time.

CRC_A is computed by the chip's CRC coprocessor (CalcCRC command, DS 10.3.1.4,
preset 0x6363 from ModeReg). A reader remembers the last SELECT frame and SAK
it checked per cascade level, so a card that stays on the reader costs no
CalcCRC at all after the first poll.

Results: a clean timeout on WUPA (TimerIRq, nothing received) is the only
"absent". A collision (ErrorReg.CollErr, two tags answering) is COLLISION; any
other error after a tag answered (parity, CRC, protocol, BCC, bad length,
timeout in the middle of the anticollision) is ERROR -- a card is there.

Several readers on one bus, debounced and recovered when a chip resets or
stops answering, are drivers/reader_set.py's ``ReaderSet``: the table's
policy over this chip driver.

Everything a poll touches is allocated at import (scratch buffers shared by
all readers, which are polled one at a time) or in the constructors (about
1.3 KB per reader on the 64-bit unix port): ``poll()`` and ``poll_all()``
allocate nothing (proved with ``micropython.heap_lock()`` by
tests/mp/mptest_mfrc522.py). UIDs are bytes/bytearrays, never ints.
"""

try:
    from micropython import const
except ImportError:  # CPython
    const = lambda x: x  # noqa: E731  (a def would clash with the stub's signature in pyright)

import time

from drivers.nocopy import cp as _cp
from drivers.nocopy import eq as _eq


def _cpython_sleep_us(us):
    time.sleep(us / 1000000)


# time.sleep_us on MicroPython; the drivers take a sleep_us callable (the
# emulator passes its virtual clock's), this is only the default
default_sleep_us = getattr(time, "sleep_us", _cpython_sleep_us)


# ---------------------------------------------------------------- public status codes
ABSENT = const(0)
PRESENT = const(1)
COLLISION = const(2)
ERROR = const(3)
OTHER = const(4)  # reselect()/end_look(): a card answered, not the one looked for

# ---------------------------------------------------------------- registers (DS 9.2)
_COMMAND = const(0x01)
_COMIRQ = const(0x04)
_DIVIRQ = const(0x05)
_ERROR = const(0x06)
_FIFODATA = const(0x09)
_FIFOLEVEL = const(0x0A)
_CONTROL = const(0x0C)
_BITFRAMING = const(0x0D)
_COLL = const(0x0E)
_MODE = const(0x11)
_TXCONTROL = const(0x14)
_TXASK = const(0x15)
_CRCRESULT_MSB = const(0x21)
_CRCRESULT_LSB = const(0x22)
_RFCFG = const(0x26)
_TMODE = const(0x2A)
_TPRESCALER = const(0x2B)
_TRELOAD_HI = const(0x2C)
_TRELOAD_LO = const(0x2D)
_VERSION = const(0x37)

# SPI address byte (DS 8.1.2.3): bit 7 = read, address in bits 6..1, bit 0 = 0
_RD_FIFO = const(0x92)  # 0x80 | (_FIFODATA << 1)
_WR_FIFO = const(0x12)  # _FIFODATA << 1

# commands (DS 10.3, table 149)
_CMD_IDLE = const(0x00)
_CMD_CALC_CRC = const(0x03)
_CMD_TRANSCEIVE = const(0x0C)
_CMD_SOFT_RESET = const(0x0F)
_POWER_DOWN = const(0x10)  # CommandReg bit 4, reads 1 while the chip wakes up

# ComIrqReg (DS 9.3.1.5); writing bit 7 (Set1) = 0 clears the written 1-bits
_RX_IRQ = const(0x20)
_IDLE_IRQ = const(0x10)
_ERR_IRQ = const(0x02)
_TIMER_IRQ = const(0x01)
_DONE_IRQS = const(0x33)  # RxIRq | IdleIRq | ErrIRq | TimerIRq
_CRC_IRQ = const(0x04)  # DivIrqReg (DS 9.3.1.6)
# ErrorReg (DS 9.3.1.7)
_COLL_ERR = const(0x08)
_BAD_FRAME_ERRS = const(0x17)  # BufferOvfl | CRCErr | ParityErr | ProtocolErr

# Timer (DS 8.5, 9.3.3.10 TModeReg/TPrescalerReg, 9.3.3.11 TReloadReg):
# f_timer = 13.56 MHz / (2 * TPrescaler + 1); TPrescaler = 0x0A9 = 169 gives
# 339 / 13.56 MHz = 25 us per tick. Timeout = (TReload + 1) ticks = 24 * 25 us
# = 0.6 ms. TAuto (TModeReg bit 7) starts the timer at the end of every
# transmission and the first received bits stop it, so the timeout only has to
# cover the tag's frame delay time (~91 us, 14443-3 "frame delay time": fixed
# for the only commands sent here, WUPA, ANTICOLLISION, SELECT and HLTA),
# never the answer itself; six and a half times that.  Every empty reader
# costs one timeout a scan (1.5 ms before: docs/benchmarks.md).
_TMODE_VAL = const(0x80)  # TAuto = 1, TPrescaler_Hi = 0
_TPRESCALER_VAL = const(0xA9)  # TPrescaler_Lo
_TRELOAD_VAL = const(23)  # TReloadReg = 0x0017
_TXASK_VAL = const(0x40)  # Force100ASK: ISO 14443A modulation (DS 9.3.2.6)
_MODE_VAL = const(0x3D)  # TxWaitRF, PolMFin, CRCPreset = 01 -> 0x6363 (DS 9.3.2.2)

# waits (us) from StartSend to the first ComIrqReg read: transmit + frame
# delay time + answer at 106 kbit/s (9.44 us per bit, 9 bits per byte)
_WAIT_REQ = const(400)  # WUPA: 7 bits out, ATQA (2 bytes) back
_WAIT_ANTICOLL = const(750)  # 2 bytes out, 5 bytes back
_WAIT_SELECT = const(1200)  # 9 bytes out, SAK + CRC back
_WAIT_HLTA = const(1100)  # 4 bytes out, nothing back: the whole timeout
_POLL_US = const(250)  # between ComIrqReg reads
_POLL_MAX = const(16)  # reads before giving up: 16 * 250 us = 4 ms > a frame
_CRC_POLL_MAX = const(8)

# ISO/IEC 14443-3 commands
_WUPA = const(0x52)
_HLTA = const(0x50)
_CASCADE_TAG = const(0x88)
_SAK_CASCADE = const(0x04)

# internal frame results
_OK = const(0)
_TIMEOUT = const(1)
_COLLIDED = const(2)
_BAD = const(3)
_NEXT_LEVEL = const(4)
_NOT_IT = const(5)  # a SELECT of a known UID unanswered: another card is there
# the public result of an internal one (_OK .. _NOT_IT)
_RESULT = b"\x01\x00\x02\x03\x03\x04"

_FRAME_MAX = const(9)  # longest frame sent: SELECT
_RX_MAX = const(16)
UID_MAX = const(10)

# VersionReg (DS 9.3.4.8).  NXP's own chips read 0x91 (v1.0) and 0x92 (v2.0).
# Most "RFID-RC522" modules sold carry a clone that answers the same registers
# the same way for what this driver uses (WUPA, anticollision, SELECT, CalcCRC,
# the timer): 0x88 (Fudan FM17522), 0xB2 (FM17522 as on newer modules), 0x12
# (a chip marked NXP, "counterfeit" in the Arduino library) and 0x90 ("v0.0").
# They are accepted; the self-test names them (hardware/README.md).
GENUINE = (0x91, 0x92)
CLONES = (0x88, 0xB2, 0x12, 0x90)
VERSIONS = GENUINE + CLONES

# what a VersionReg value says (``version_kind``)
V_GENUINE = const(0)
V_CLONE = const(1)
V_NO_ANSWER = const(2)   # 0x00 / 0xFF: MISO held low / high, nothing drives it
V_MISREAD = const(3)     # one bit away from a known value: a marginal wire (0x82)
V_UNKNOWN = const(4)


def version_kind(v):
    """Classify a VersionReg read: V_GENUINE, V_CLONE, V_NO_ANSWER, V_MISREAD (a
    known value with one bit flipped, e.g. 0x82 for 0x92: SCK or MISO ringing or
    a loose wire) or V_UNKNOWN (not an MFRC522 or a floating MISO)."""
    if v in GENUINE:
        return V_GENUINE
    if v in CLONES:
        return V_CLONE
    if v == 0x00 or v == 0xFF:
        return V_NO_ANSWER
    for k in VERSIONS:
        d = k ^ v
        if d & (d - 1) == 0:
            return V_MISREAD
    return V_UNKNOWN


# MicroPython puts a call's frame on the heap when locals + stack exceed 11
# words (py/objfun.c, VM_MAX_STATE_ON_STACK), and on the C stack when the heap
# is locked -- so heap_lock() alone would not notice. The poll path is therefore
# split into small functions (checked with micropython.mem_total() in
# tests/mp/mptest_mfrc522.py).


def _scratch():
    """SPI and FIFO buffers. The readers on a bus are polled one at a time, so
    they all share one set (made at import, the class attributes of MFRC522
    below), with every prefix view made once: slicing a buffer in the poll path
    would allocate.  A tuple, not an object with attributes: each attribute
    name is a qstr, and the Pico's qstr pool is near a 15 KB step
    (docs/benchmarks.md, "The qstr pool")."""
    fw = bytearray(1 + _FRAME_MAX)      # FIFO write bursts: address byte + frame
    fw[0] = _WR_FIFO
    mv = memoryview(fw)
    cw = bytearray(4)                   # CRC check of an answer (<= 3 bytes)
    cw[0] = _WR_FIFO
    # FIFO read: n address bytes + 0x00 out, the data back after the first byte
    ft = bytearray(_RX_MAX + 1)
    for i in range(_RX_MAX + 1):
        ft[i] = _RD_FIFO
    fr = bytearray(_RX_MAX + 1)
    mt = memoryview(ft)
    mr = memoryview(fr)
    return (bytearray(2), bytearray(2),          # one register: address + data
            fw, [mv[: n + 1] for n in range(_FRAME_MAX + 1)],
            mv[3:], mv[4:],                      # SELECT: CLn (4), BCC, CRC_A (2)
            cw, memoryview(cw),
            ft, fr, [mt[:n] for n in range(_RX_MAX + 2)], [mr[:n] for n in range(_RX_MAX + 2)],
            [mr[1: 1 + n] for n in range(_RX_MAX + 1)],
            mt[:1],                              # the FIFO read address alone
            bytearray(1),                        # one register address alone
            mr[1:],
            # registers in one transaction: FIFOLevelReg + ControlReg + TModeReg
            # (which init() set: reads its reset value 0 after a supply dip),
            # CRCResultReg L/H
            bytearray((0x80 | (_FIFOLEVEL << 1), 0x80 | (_CONTROL << 1),
                       0x80 | (_TMODE << 1), 0)),
            bytearray((0x80 | (_CRCRESULT_LSB << 1), 0x80 | (_CRCRESULT_MSB << 1), 0)),
            bytearray((0x80 | (_TMODE << 1), 0x80 | (_TRELOAD_LO << 1), 0)),
            bytearray(3), bytearray(4))


class MFRC522:
    """One MFRC522 on a shared SPI bus with its own chip-select pin."""

    # the shared scratch buffers (``_scratch``), as class attributes: no
    # per-reader copies; ``frame``: the last answer on the bus, valid right
    # after a frame
    (_w2, _r2, _fw, _fwv, _fw3, _fw4, _cw, _cwv3, _ft, _fr, _ftv, _frv, _frv1, _one, _a1,
     frame, _q_level, _q_crc, _q_cfg, _q_r, _q_r4) = _scratch()

    def __init__(self, spi, cs, rst=None, sleep_us=None, gain=None, regs=None):
        self._spi = spi
        self._cs = cs
        self._rst = rst
        self._sleep = sleep_us if sleep_us is not None else default_sleep_us
        self._gain = gain
        self._wr_rd = hasattr(spi, "write_readinto")
        # a board's faster bus access (boards/rp2_regs.py): registers, bursts,
        # whole frames and CRC_A in native code; None: machine.SPI and the chip
        self._regs = regs
        if regs is not None:
            self._write = regs.write_reg
            self._read = regs.read_reg
        cs.value(1)
        self.version = 0
        self.ok = False
        self.errors = 0  # ErrorReg of the last failed frame
        self.sak = 0
        self.uid = bytearray(UID_MAX)
        self.uid_len = 0
        mv = memoryview(self.uid)
        self._uid_at = [mv[3 * k:] for k in range(3)]  # where cascade level k's bytes go
        self.rx_len = 0
        self.rx_bits = 0  # valid bits in the last byte, 0 = all 8
        self._txctl = 0x80  # TxControlReg reset value: field off
        self._woke = _TIMEOUT  # what ``wake``'s WUPA got, for ``read_uid``
        # per cascade level: the last SELECT tail (CLn, BCC, CRC_A) and the last
        # SAK + CRC_A that CalcCRC checked, with a valid flag each
        self._sel_ok = bytearray(3)
        self._sak_good = bytearray(3)
        self._sel_cache = bytearray(3 * 7)
        self._sak_cache = bytearray(3 * 3)
        mv = memoryview(self._sel_cache)
        self._selv = [mv[7 * k: 7 * k + 7] for k in range(3)]
        mv = memoryview(self._sak_cache)
        self._sakv = [mv[3 * k: 3 * k + 3] for k in range(3)]
        self._hlta_crc = -1

    # ---------------------------------------------------------------- register access
    def _write(self, reg, value):
        b = self._w2
        b[0] = reg << 1
        b[1] = value
        self._cs.value(0)
        self._spi.write(b)
        self._cs.value(1)

    def _read(self, reg):
        b = self._w2
        b[0] = 0x80 | (reg << 1)
        b[1] = 0
        self._cs.value(0)
        if self._wr_rd:
            self._spi.write_readinto(b, self._r2)
            v = self._r2[1]
        else:
            self._a1[0] = b[0]
            self._spi.write(self._a1)
            self._spi.readinto(self._frv[1], 0)
            v = self._fr[0]
        self._cs.value(1)
        return v

    def _read_pair(self, q):
        """Two registers in one read transaction; values in self._q_r[1], [2]."""
        self._read_regs(q, self._q_r)

    def _read_regs(self, q, r):
        """len(q) - 1 registers (addresses q[:-1]) in one read transaction; r[1:] the values."""
        if self._regs is not None:
            self._regs.transfer(q, r, len(q))
        elif self._wr_rd:
            self._cs.value(0)
            self._spi.write_readinto(q, r)
            self._cs.value(1)
        else:
            k = 1
            n = len(q)
            while k < n:
                r[k] = self._read((q[k - 1] >> 1) & 0x3F)
                k += 1

    def _write_fifo(self, mv):
        self._cs.value(0)
        self._spi.write(mv)
        self._cs.value(1)

    def _read_fifo(self, n):
        """n bytes from the FIFO in one transaction; they land in self.frame."""
        if self._regs is not None:
            self._ft[n] = 0
            self._regs.transfer(self._ft, self._fr, n + 1)
            self._ft[n] = _RD_FIFO
            return
        self._cs.value(0)
        if self._wr_rd:
            self._ft[n] = 0
            self._spi.write_readinto(self._ftv[n + 1], self._frv[n + 1])
            self._ft[n] = _RD_FIFO
        else:  # readinto clocks the FIFO address byte out for every byte
            self._spi.write(self._one)
            self._spi.readinto(self._frv1[n], _RD_FIFO)
        self._cs.value(1)

    # ---------------------------------------------------------------- setup
    def reset(self):
        """SoftReset (DS 10.3.1.10): registers to reset values, field off; True when awake."""
        self._write(_COMMAND, _CMD_SOFT_RESET)
        self._txctl = 0x80
        n = 20
        while n:
            self._sleep(50)
            if not self._read(_COMMAND) & _POWER_DOWN:
                return True
            n -= 1
        return False

    def init(self, hard_reset=True):
        """Reset, check VersionReg, set timer and modulation, field off. True if usable."""
        self.ok = False
        if hard_reset and self._rst is not None:
            hard_reset_pin(self._rst, self._sleep)
        if not self.reset():
            return False
        self.version = self._read(_VERSION)
        if self.version not in VERSIONS:
            return False
        self._write(_TMODE, _TMODE_VAL)
        self._write(_TPRESCALER, _TPRESCALER_VAL)
        self._write(_TRELOAD_HI, _TRELOAD_VAL >> 8)
        self._write(_TRELOAD_LO, _TRELOAD_VAL & 0xFF)
        self._write(_TXASK, _TXASK_VAL)
        self._write(_MODE, _MODE_VAL)
        if self._gain is not None:  # RxGain, RFCfgReg bits 6..4 (DS 9.3.3.6)
            self._write(_RFCFG, (self._gain & 0x07) << 4)
        self.antenna(False)
        self.forget()
        self.ok = True
        return True

    def forget(self):
        """Drop everything read before a reset: the last UID and SAK and the cached
        SELECT and SAK checks (a reset chip's next answers owe nothing to them)."""
        for k in range(3):
            self._sel_ok[k] = 0
            self._sak_good[k] = 0
        self.uid_len = 0
        self.sak = 0
        self.rx_len = 0

    def forget_read(self):
        """The last read no longer stands (a look found no card there):
        ``uid_len`` 0, as after a scan that read none."""
        self.uid_len = 0

    def read_version(self):
        """VersionReg as read now: one of VERSIONS from a working chip, 0x00 or 0xFF
        from a dead one or a loose wire (diagnostics; ``version`` is init's read)."""
        return self._read(_VERSION)

    def idle_miso(self):
        """Clock two bytes with this reader's chip-select high (the caller keeps
        every other one high too): what the shared MISO line reads while no reader
        is selected.  0x00 on a sound board (every 74HC125 gate off, the pull-down);
        anything else means something drives or floats the line (diagnostics)."""
        b = self._w2
        b[0] = 0
        b[1] = 0
        if self._wr_rd:
            self._spi.write_readinto(b, self._r2)
        else:
            self._spi.readinto(self._r2, 0)
        return self._r2[0] | self._r2[1]

    def check(self):
        """Does the chip still hold what init() wrote? One read transaction
        (TModeReg, TReloadReg low byte). False (and ``ok`` cleared) after a supply
        dip reset the registers, or when the chip does not answer at all (MISO
        reads 0x00 or 0xFF)."""
        self._read_pair(self._q_cfg)
        r = self._q_r
        if r[1] == _TMODE_VAL and r[2] == _TRELOAD_VAL & 0xFF:
            return True
        self.ok = False
        return False

    def antenna(self, on):
        """RF field on/off: TxControlReg Tx1RFEn | Tx2RFEn (DS 9.3.2.5)."""
        v = (self._txctl | 0x03) if on else (self._txctl & 0xFC)
        self._write(_TXCONTROL, v)
        self._txctl = v

    # ---------------------------------------------------------------- frames
    def _transceive(self, n, tx_last_bits, wait_us):
        """Send self._fw[1:1+n] (last byte: tx_last_bits bits, 0 = 8), wait for the answer.

        Returns _OK (answer in self.frame[:self.rx_len]), _TIMEOUT (clean: the
        timer ran out and nothing was received), _COLLIDED or _BAD.
        """
        self._begin(n, tx_last_bits)
        return self._end(wait_us)

    def _send(self, n, tx_last_bits):
        self._write(_COMMAND, _CMD_IDLE)  # stop whatever runs (DS 10.3.1.1)
        self._write(_COMIRQ, 0x7F)  # Set1 = 0: clear every interrupt flag
        self._write(_FIFOLEVEL, 0x80)  # FlushBuffer
        self._write_fifo(self._fwv[n])
        self._write(_BITFRAMING, tx_last_bits)  # RxAlign 0, StartSend 0 (DS 9.3.1.14)
        self._write(_COMMAND, _CMD_TRANSCEIVE)
        self._write(_BITFRAMING, 0x80 | tx_last_bits)  # StartSend

    def _wait_irq(self):
        """Bounded poll of ComIrqReg for RxIRq|IdleIRq|ErrIRq|TimerIRq; 0 if none came."""
        left = _POLL_MAX
        while left:
            irq = self._read(_COMIRQ)
            if irq & _DONE_IRQS:
                return irq
            left -= 1
            self._sleep(_POLL_US)
        return 0

    def _outcome(self, irq):
        if not irq:
            self.errors = 0
            return _BAD  # the chip never finished: not a clean timeout
        if irq & _ERR_IRQ:
            err = self._read(_ERROR)
            self.errors = err
            if err & _COLL_ERR:
                return _COLLIDED
            if err & _BAD_FRAME_ERRS:
                return _BAD
        if irq & _RX_IRQ:
            return self._fetch()
        if irq & _TIMER_IRQ:
            return _TIMEOUT
        return _BAD

    def _fetch(self):
        r = self._q_r4
        self._read_regs(self._q_level, r)
        n = r[1] & 0x7F
        self.rx_bits = r[2] & 0x07
        if r[3] != _TMODE_VAL:  # the chip lost what init() wrote: a supply dip
            self.rx_len = 0
            return _BAD
        if n == 0 or n > _RX_MAX:
            self.rx_len = 0
            return _BAD
        self._read_fifo(n)
        self.rx_len = n
        return _OK

    def _calc_crc(self, mv):
        """CRC_A of mv[1:] (mv[0] is the FIFO write address) by the chip (DS 10.3.1.4).

        Returns the 16-bit CRC (low byte is sent first) or -1 if the chip never finished.
        A board with native bus access computes it on the core (the same CRC,
        no command, no polls).
        """
        if self._regs is not None:
            return self._regs.crc_a(mv, len(mv))
        self._write(_COMMAND, _CMD_IDLE)
        self._write(_DIVIRQ, _CRC_IRQ)  # Set2 = 0: clear CRCIRq
        self._write(_FIFOLEVEL, 0x80)
        self._write_fifo(mv)
        self._write(_COMMAND, _CMD_CALC_CRC)
        left = _CRC_POLL_MAX
        while not self._read(_DIVIRQ) & _CRC_IRQ:
            left -= 1
            if not left:
                return -1
            self._sleep(10)
        self._read_pair(self._q_crc)
        # CalcCRC stays active until another command: every frame starts with Idle
        return self._q_r[1] | (self._q_r[2] << 8)

    def _select_crc(self, level):
        """CRC_A bytes for the SELECT frame in self._fw[1:8], from cache or CalcCRC."""
        f = self._fw
        c = self._selv[level]
        if self._sel_ok[level] and _eq(c, self._fw3, 5):
            f[8] = c[5]
            f[9] = c[6]
            return True
        crc = self._calc_crc(self._fwv[7])
        if crc < 0:
            return False
        f[8] = crc & 0xFF
        f[9] = crc >> 8
        _cp(c, self._fw3, 7)
        self._sel_ok[level] = 1
        return True

    def _sak_ok(self, level):
        """SAK + CRC_A in self.frame[:3] valid? (CRC over data + CRC is 0; cached)."""
        c = self._sakv[level]
        if self._sak_good[level] and _eq(c, self.frame, 3):
            return True
        self._copy_sak()
        if self._calc_crc(self._cwv3) != 0:
            return False
        _cp(c, self.frame, 3)
        self._sak_good[level] = 1
        return True

    def _copy_sak(self):
        cw = self._cw
        f = self.frame
        cw[1] = f[0]
        cw[2] = f[1]
        cw[3] = f[2]

    def _wupa(self):
        self._fw[1] = _WUPA
        return self._atqa(self._transceive(1, 7, _WAIT_REQ))  # short frame: 7 bits

    def _atqa(self, r):
        if r == _OK and (self.rx_len != 2 or self.rx_bits):
            return _BAD  # ATQA is 2 whole bytes
        return r

    def _select_uid(self):
        """Anticollision + SELECT for every cascade level; UID into self.uid."""
        for level in range(3):
            r = self._cascade(level)
            if r != _NEXT_LEVEL:
                return r
        return _BAD

    def _cascade(self, level):
        """One cascade level (14443-3 "select sequence"): _OK when the UID is complete."""
        f = self._fw
        f[1] = 0x93 + 2 * level  # SEL: 0x93, 0x95, 0x97
        f[2] = 0x20  # NVB: 2 bytes, no UID bits known
        r = self._transceive(2, 0, _WAIT_ANTICOLL)
        if r != _OK:
            return _BAD if r == _TIMEOUT else r
        if not self._uid_part_ok():
            return _BAD
        f[2] = 0x70  # NVB: 7 bytes, SELECT
        _cp(self._fw3, self.frame, 5)
        if not self._select_crc(level):
            return _BAD
        r = self._transceive(9, 0, _WAIT_SELECT)
        if r != _OK:
            return _BAD if r == _TIMEOUT else r
        if self.rx_len != 3 or self.rx_bits or not self._sak_ok(level):
            return _BAD
        return self._take_uid(level)

    def _uid_part_ok(self):
        """5 whole bytes: 4 UID bytes and their BCC (XOR)."""
        if self.rx_len != 5 or self.rx_bits:
            return False
        f = self.frame
        return f[0] ^ f[1] ^ f[2] ^ f[3] == f[4]

    def _take_uid(self, level):
        sak = self.frame[0]
        if sak & _SAK_CASCADE:  # UID not complete: CLn was 0x88 + 3 UID bytes
            if self._fw[3] != _CASCADE_TAG:
                return _BAD
            _cp(self._uid_at[level], self._fw4, 3)
            return _NEXT_LEVEL
        _cp(self._uid_at[level], self._fw3, 4)
        self.uid_len = 3 * level + 4
        self.sak = sak
        return _OK

    # ---------------------------------------------------------------- public
    def scan(self, settle_us=5000, keep_field=False):
        """Read the UID of the card on this reader once (not debounced).

        Returns ABSENT, PRESENT (UID in self.uid[:self.uid_len]), COLLISION or
        ERROR. The field is switched on for the scan and off after it unless
        keep_field (then a second WUPA after a timeout catches a card that was
        left ACTIVE, which drops to IDLE on the first one).
        """
        self.wake(settle_us, keep_field)
        return self.read_uid(keep_field)

    def wake(self, settle_us=5000, keep_field=False):
        """``scan``'s first frame: the field up and settled, WUPA (twice with
        the field kept on).  True when a card answered: ``read_uid`` then
        reads it -- between the two a caller may switch other readers'
        fields on, to settle while this card is read."""
        self.uid_len = 0
        if not self.ok:
            return False
        self._field_up(settle_us)
        r = self._wupa()
        if r == _TIMEOUT and keep_field:
            r = self._wupa()
        self._woke = r
        return r == _OK

    def read_uid(self, keep_field=False):
        """``scan``'s rest after ``wake``: the UID of the card that answered
        read; the field off unless ``keep_field`` (then the card stays
        selected: a WUPA wakes it at the second try)."""
        if not self.ok:
            return ERROR
        r = self._woke
        if r == _OK:
            r = self._select_uid()
        if not keep_field:
            self.antenna(False)
        if r == _OK:
            return PRESENT
        if r == _TIMEOUT:
            return ABSENT
        if r == _COLLIDED:
            return COLLISION
        return ERROR

    def reselect(self, settle_us=5000, keep_field=False):
        """Is the card this reader read last still there?  WUPA, then SELECT
        at each of its cascade levels with the frames checked when it was
        read: no anticollision, no CalcCRC (3 frames for a 7-byte UID where
        ``scan`` sends 5).  PRESENT: it answered every level (``uid`` stays);
        ABSENT: no card answered; OTHER: a card answered, not that one (or
        none was read); ERROR or COLLISION: garbled answers.  Blind to a
        second card beside it (no anticollision runs): it confirms a read,
        it is no scan.  ``uid_len`` is 0 unless PRESENT; the field stays on
        unless PRESENT or ABSENT (a scan may follow at once)."""
        n = self.uid_len
        self.uid_len = 0
        if not self.ok or not n:
            return ERROR if not self.ok else OTHER
        self._field_up(settle_us)
        r = self._look(-1)
        if r == ABSENT and keep_field:         # a card left selected wakes at the second
            r = self._look(-1)
        k = 0
        while r == PRESENT and k < n // 3:
            r = self._look(k)
            k += 1
        if (r == PRESENT or r == ABSENT) and not keep_field:
            self.antenna(False)
        if r == PRESENT:
            self.uid_len = n
        return r

    def _look(self, k):
        """One frame of a look for this reader's own card (``begin_look``),
        sent and answered."""
        if not self.begin_look(self, k):
            return OTHER
        return self.end_look(self, k)

    def _known_select(self, src, k):
        """The SELECT frame ``src`` checked at level k into the FIFO buffer;
        False when it has none."""
        tail = src.checked_select(k)
        if tail is None or src.checked_sak(k) is None:
            return False
        f = self._fw
        f[1] = 0x93 + 2 * k
        f[2] = 0x70
        _cp(self._fw3, tail, 7)
        return True

    def _sak_of(self, src, k, r):
        """A SELECT's result ``r``: _OK when the answer is the SAK and CRC_A
        ``src`` checked, _NOT_IT when none came."""
        if r == _TIMEOUT:
            return _NOT_IT
        if r != _OK:
            return r
        if self.rx_len != 3 or self.rx_bits or not _eq(src.checked_sak(k), self.frame, 3):
            return _BAD
        return _OK

    # ---------------------------------------------------------------- frames side by side
    def begin_look(self, src, k):
        """Send one frame of a look for the card ``src`` read last (the
        frames ``reselect`` sends for its own card), and return without waiting for the
        answer: k -1 the WUPA, k >= 0 the SELECT at cascade level k.  Each
        chip runs its frame on its own, so several readers' frames are on air
        at once (a sweep: ReaderSet.wake, select); ``end_look`` takes the answer.
        False when nothing was sent: the chip is not usable, its field is off
        (``antenna``), or ``src`` has no checked frame at that level."""
        if not self.ok or not self._txctl & 0x03:
            return False
        if k < 0:
            self._fw[1] = _WUPA
            self._begin(1, 7)
            return True
        if not self._known_select(src, k):
            return False
        self._begin(9, 0)
        return True

    def end_look(self, src, k, first=True):
        """The answer to ``begin_look(src, k)``: PRESENT (a card answered
        the WUPA; the card answered the SELECT with the SAK ``src`` checked),
        ABSENT (nothing answered the WUPA), OTHER (nothing answered the
        SELECT: not that card), COLLISION or ERROR.  ``first``: the frame's
        time on air is waited before the chip is asked (not for the frames
        that went out beside it: that time has passed meanwhile)."""
        r = self._end((_WAIT_REQ if k < 0 else _WAIT_SELECT) if first else 0)
        return _RESULT[self._atqa(r) if k < 0 else self._sak_of(src, k, r)]

    def _begin(self, n, tx_last_bits):
        """Send the frame (the board's native call where it has one)."""
        if self._regs is not None:
            self._regs.start(self._fw, n | tx_last_bits << 4)
        else:
            self._send(n, tx_last_bits)

    def _end(self, wait_us):
        """Wait ``wait_us``, then poll until the frame ended: its outcome."""
        if self._regs is not None:
            return self._outcome(self._regs.answer(wait_us))
        self._sleep(wait_us)
        return self._outcome(self._wait_irq())

    def checked_select(self, k):
        """The tail of the SELECT frame (CLn, BCC, CRC_A: 7 bytes) this reader
        sent at cascade level k for the card it read last, or None (a view:
        read it, never write it)."""
        return self._selv[k] if self._sel_ok[k] else None

    def checked_sak(self, k):
        """The SAK and CRC_A (3 bytes) that card answered there, or None (a view)."""
        return self._sakv[k] if self._sak_good[k] else None

    def _field_up(self, settle_us):
        if not self._txctl & 0x03:
            self.antenna(True)
            # guard time: tags need the field a few ms before the first command
            self._sleep(settle_us)

    def halt(self):
        """HLTA to the selected card: True when it did not answer, i.e. it is halted.

        14443-3 "HLTA command": a PICC never answers HLTA; any answer is a failure.
        Only meaningful with the field still on, after ``scan(keep_field=True)``.
        """
        if not self._txctl & 0x03:
            return False
        if self._hlta_crc < 0:
            f = self._fw
            f[1] = _HLTA
            f[2] = 0
            self._hlta_crc = self._calc_crc(self._fwv[2])
            if self._hlta_crc < 0:
                return False
        f = self._fw
        f[1] = _HLTA
        f[2] = 0
        f[3] = self._hlta_crc & 0xFF
        f[4] = self._hlta_crc >> 8
        return self._transceive(4, 0, _WAIT_HLTA) == _TIMEOUT


def hard_reset_pin(rst, sleep_us):
    """Pulse NRSTPD low (hard power-down, DS 8.6.1) and wait for the oscillator (DS 8.8)."""
    rst.value(0)
    sleep_us(100)
    rst.value(1)
    sleep_us(50000)
