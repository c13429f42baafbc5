"""Register-level model of the NXP MFRC522 and of ISO/IEC 14443 Type A tags.

What is modelled (NXP MFRC522 product data sheet rev. 3.9, "DS" below; ISO/IEC
14443-3 "14443-3"):

* SPI framing (DS 8.1.2): the first byte of a transaction is the address byte,
  bit 7 = 1 read / 0 write, bits 6..1 the register address, bit 0 = 0. A write
  transaction writes every following byte to that same register (FIFO bursts).
  In a read transaction every following MOSI byte is the next address byte and
  its MISO byte carries the data of the previous address; a ``00`` ends it.
  A read happens when its data byte is clocked out (so FIFO pops are exact).
* registers with their reset values (DS 9.2), read-only bits, and the special
  ones: ComIrqReg/DivIrqReg (bit 7 Set1/Set2 chooses whether the written 1-bits
  set or clear), FIFODataReg, FIFOLevelReg (FlushBuffer, level), ErrorReg,
  Status1Reg (CRCReady, CRCOk, IRq, TRunning, Hi/LoAlert), CollReg,
  ControlReg (RxLastBits, TStartNow/TStopNow), CRCResultReg, TCounterValReg.
* the timer (DS 8.5): f = 13.56 MHz / (2*TPrescaler+1) (or +2 with
  DemodReg.TPrescalEven), period (TReload+1) ticks; TModeReg.TAuto starts it at
  the end of every transmission and reception of the first bits stops it;
  TimerIRq on expiry; TAutoRestart reloads.
* commands (DS 10.3): Idle, CalcCRC (CRC_A preset from ModeReg.CRCPreset),
  Transmit, Transceive (BitFramingReg.StartSend, TxLastBits, RxAlign;
  TxModeReg.TxCRCEn / RxModeReg.RxCRCEn), SoftReset (registers to reset values,
  field off); NRSTPD (reset pin) low = hard power-down, rising edge = reset.
* the RF field: TxControlReg bits 0..1 (Tx1RFEn/Tx2RFEn). Tags placed on the
  reader are powered while the field is on and reset (POWER-OFF) when it drops.
* several tags answering at once: bits are combined, the first differing bit
  sets ErrorReg.CollErr and CollReg.CollPos (CollPosNotValid cleared); with
  CollReg.ValuesAfterColl = 0 the bits after it read as 0 (DS 9.3.1.15).

Virtual ``Tag``s follow 14443-3 (IDLE, READY, ACTIVE, HALT and the * states
entered from HALT): REQA wakes IDLE only, WUPA also HALT, ANTICOLLISION and
SELECT per cascade level (cascade tag 0x88, BCC, SAK cascade bit 0x04), HLTA,
field off -> POWER-OFF -> IDLE on power-up. Faults: ``mute`` (never answers),
``crc_error`` (bad CRC_A on SAK), ``bcc_error``, ``parity_error`` and ``flaky``
(a pattern of 1/0, one entry per power-up: answers only in the 1 cycles).
Reader faults: ``brownout()`` (a supply dip resets every register and drops the
field), ``disconnect(miso=0x00, power=True)`` / ``reconnect()`` (the chip stops
answering on SPI, optionally unpowered, and comes back).

Chip versions (VersionReg, ``MFRC522Model(version=...)``): NXP's 0x91 and
0x92 (``GENUINE_VERSIONS``) and the clones found on "RFID-RC522" modules
(``CLONE_VERSIONS``: 0x88 Fudan FM17522, 0xB2, 0x12, 0x90). The public record
(the Arduino MFRC522 library's issues and wiki) shows them differing from the
NXP chip only where this driver does not look: the digital self-test (DS
16.1.1) leaves other bytes in the FIFO (the FM17522) or zeros (0x12), the 0x12
cannot change the UART speed or TxModeReg's rate with a tag present, and
its SoftReset is said to reset the registers only; the rest are module
matters (antenna matching and so range, a MISO output that is not released
when deselected -- the 74HC125 gates take care of that). The driver needs none
of these, so every version here answers the same frames the same way.

Timing uses the bus's virtual clock: 106 kbit/s bits of 128/fc, frame delay
time 1236/fc. Host-side only (CPython).
"""

from __future__ import annotations

import random
from collections import Counter

FC_MHZ = 13.56
BIT_US = 128 / FC_MHZ  # one bit at 106 kbit/s
FDT_US = 1236 / FC_MHZ  # PCD->PICC frame delay time (14443-3, n = 9)

# --- registers (DS 9.2) -----------------------------------------------------
COMMAND = 0x01
COMIEN = 0x02
DIVIEN = 0x03
COMIRQ = 0x04
DIVIRQ = 0x05
ERROR = 0x06
STATUS1 = 0x07
STATUS2 = 0x08
FIFODATA = 0x09
FIFOLEVEL = 0x0A
WATERLEVEL = 0x0B
CONTROL = 0x0C
BITFRAMING = 0x0D
COLL = 0x0E
MODE = 0x11
TXMODE = 0x12
RXMODE = 0x13
TXCONTROL = 0x14
TXASK = 0x15
DEMOD = 0x19
CRCRESULT_MSB = 0x21
CRCRESULT_LSB = 0x22
RFCFG = 0x26
TMODE = 0x2A
TPRESCALER = 0x2B
TRELOAD_HI = 0x2C
TRELOAD_LO = 0x2D
TCOUNTER_HI = 0x2E
TCOUNTER_LO = 0x2F
VERSION = 0x37

RESET_VALUES = {
    COMMAND: 0x20, COMIEN: 0x80, COMIRQ: 0x14, STATUS1: 0x21, WATERLEVEL: 0x08,
    CONTROL: 0x10, COLL: 0xA0, MODE: 0x3F, TXCONTROL: 0x80, 0x16: 0x10, 0x17: 0x84,
    0x18: 0x84, DEMOD: 0x4D, 0x1C: 0x62, 0x1F: 0xEB, CRCRESULT_MSB: 0xFF,
    CRCRESULT_LSB: 0xFF, 0x24: 0x26, RFCFG: 0x48, 0x27: 0x88, 0x28: 0x20, 0x29: 0x20,
    0x33: 0x80, 0x36: 0x40,
}

# ComIrqReg bits
TX_IRQ = 0x40
RX_IRQ = 0x20
IDLE_IRQ = 0x10
HIALERT_IRQ = 0x08
LOALERT_IRQ = 0x04
ERR_IRQ = 0x02
TIMER_IRQ = 0x01
# DivIrqReg
CRC_IRQ = 0x04
# ErrorReg
WR_ERR = 0x80
BUFFER_OVFL = 0x10
COLL_ERR = 0x08
CRC_ERR = 0x04
PARITY_ERR = 0x02
PROTOCOL_ERR = 0x01

# commands (DS 10.3, table 149)
CMD_IDLE = 0x0
CMD_MEM = 0x1
CMD_RANDOM_ID = 0x2
CMD_CALC_CRC = 0x3
CMD_TRANSMIT = 0x4
CMD_NO_CHANGE = 0x7
CMD_RECEIVE = 0x8
CMD_TRANSCEIVE = 0xC
CMD_MF_AUTHENT = 0xE
CMD_SOFT_RESET = 0xF

# VersionReg values (DS 9.3.4.8 for NXP's; the clones' as reported by their users)
GENUINE_VERSIONS = {0x91: "NXP MFRC522 v1.0", 0x92: "NXP MFRC522 v2.0"}
CLONE_VERSIONS = {0x88: "Fudan FM17522", 0xB2: "FM17522 (newer modules)",
                  0x12: "clone marked NXP", 0x90: "clone reading v0.0"}

FIFO_SIZE = 64
CRC_PRESETS = (0x0000, 0x6363, 0xA671, 0xFFFF)

# ISO 14443-3 commands
REQA = 0x26
WUPA = 0x52
HLTA = 0x50
SEL_CODES = (0x93, 0x95, 0x97)
CASCADE_TAG = 0x88


def crc_a(data, preset: int = 0x6363) -> int:
    """ISO/IEC 14443-3 CRC_A (CRC-16/CCITT reflected, no final xor)."""
    crc = preset
    for b in data:
        crc ^= b
        for _ in range(8):
            crc = (crc >> 1) ^ 0x8408 if crc & 1 else crc >> 1
    return crc & 0xFFFF


def with_crc(data) -> bytes:
    c = crc_a(data)
    return bytes(data) + bytes((c & 0xFF, c >> 8))


def to_bits(data, nbits: int | None = None) -> list[int]:
    """Bits LSB first, as they go over the air."""
    if nbits is None:
        nbits = 8 * len(data)
    return [(data[i >> 3] >> (i & 7)) & 1 for i in range(nbits)]


def from_bits(bits, align: int = 0) -> tuple[bytearray, int]:
    """Bytes holding ``bits`` from bit position ``align`` on, and the valid bits of the
    last byte (0 = all 8)."""
    n = align + len(bits)
    out = bytearray((n + 7) // 8)
    for i, b in enumerate(bits):
        if b:
            p = i + align
            out[p >> 3] |= 1 << (p & 7)
    return out, n & 7


def bits_value(bits) -> int:
    v = 0
    for i, b in enumerate(bits):
        v |= b << i
    return v


# =============================================================== virtual tags


class Tag:
    """An ISO/IEC 14443-3 Type A PICC (e.g. an NTAG213/215 sticker or a MIFARE card)."""

    POWER_OFF = "POWER-OFF"
    IDLE = "IDLE"
    READY = "READY"
    ACTIVE = "ACTIVE"
    HALT = "HALT"

    def __init__(self, uid, *, atqa: int | None = None, sak: int | None = None,
                 name: str | None = None, power_up_us: float = 500.0,
                 mute: bool = False, crc_error: bool = False, bcc_error: bool = False,
                 parity_error: bool = False, flaky=None) -> None:
        uid = bytes(uid)
        if len(uid) not in (4, 7, 10):
            raise ValueError("a UID has 4, 7 or 10 bytes")
        if len(uid) > 4 and uid[0] == CASCADE_TAG:
            raise ValueError("uid0 must not be the cascade tag 0x88")
        self.uid = uid
        self.name = name or uid.hex()
        self.levels = {4: 1, 7: 2, 10: 3}[len(uid)]
        # ATQA bits 7..6: UID size (00 single, 01 double, 10 triple); bit 2: bit-frame anticoll
        if atqa is None:
            atqa = (0x0004, 0x0044, 0x0084)[self.levels - 1]
        self.atqa = atqa
        if sak is None:
            sak = 0x08 if len(uid) == 4 else 0x00  # MIFARE Classic 1K / NTAG21x
        self.sak = sak
        self.power_up_us = power_up_us
        self.mute = mute
        self.crc_error = crc_error
        self.bcc_error = bcc_error
        self.parity_error = parity_error
        self.flaky = tuple(flaky) if flaky is not None else None
        self.state = Tag.POWER_OFF
        self.from_halt = False  # the * states (READY*, ACTIVE*)
        self.level = 0
        self.ready_at = 0.0
        self.power_ups = 0
        self.answering = True
        self.frames_heard = 0
        self.answers = 0

    def __repr__(self) -> str:
        return "Tag(%s, %s)" % (self.name, self.state)

    # -------------------------------------------------------------- UID layout
    def cl_bytes(self, level: int) -> bytes:
        """The 4 UID bytes sent at cascade level ``level`` (0-based), cascade tag included."""
        u = self.uid
        if self.levels == 1:
            return u
        if self.levels == 2:
            return bytes((CASCADE_TAG,)) + u[0:3] if level == 0 else u[3:7]
        if level == 0:
            return bytes((CASCADE_TAG,)) + u[0:3]
        if level == 1:
            return bytes((CASCADE_TAG,)) + u[3:6]
        return u[6:10]

    def cl_with_bcc(self, level: int) -> bytes:
        b = self.cl_bytes(level)
        return b + bytes((b[0] ^ b[1] ^ b[2] ^ b[3],))

    # -------------------------------------------------------------- power
    def power(self, on: bool, now: float) -> None:
        if on:
            if self.state == Tag.POWER_OFF:
                self.state = Tag.IDLE
                self.from_halt = False
                self.level = 0
                self.ready_at = now + self.power_up_us
                self.answering = True
                if self.flaky:
                    self.answering = bool(self.flaky[self.power_ups % len(self.flaky)])
                self.power_ups += 1
        else:
            self.state = Tag.POWER_OFF

    def _unexpected(self) -> None:
        self.state = Tag.HALT if self.from_halt else Tag.IDLE
        self.level = 0

    # -------------------------------------------------------------- protocol
    def receive(self, bits: list[int], now: float):
        """Handle one PCD frame; return ``(answer_bits, error_flags)`` or None (silence)."""
        if self.state == Tag.POWER_OFF or now < self.ready_at:
            return None
        if self.mute or not self.answering:
            return None
        self.frames_heard += 1
        ans = self._handle(bits)
        if ans is None:
            return None
        self.answers += 1
        flags = PARITY_ERR if self.parity_error else 0
        return ans, flags

    def _handle(self, bits: list[int]):
        n = len(bits)
        if n == 7:  # short frame (14443-3 6.3.1 / 6.4)
            cmd = bits_value(bits)
            if cmd == WUPA and self.state in (Tag.IDLE, Tag.HALT):
                self.from_halt = self.state == Tag.HALT
                self.state = Tag.READY
                self.level = 0
                return to_bits(bytes((self.atqa & 0xFF, self.atqa >> 8)))
            if cmd == REQA and self.state == Tag.IDLE:
                self.from_halt = False
                self.state = Tag.READY
                self.level = 0
                return to_bits(bytes((self.atqa & 0xFF, self.atqa >> 8)))
            if cmd in (REQA, WUPA) and self.state in (Tag.READY, Tag.ACTIVE):
                self._unexpected()
            return None
        if self.state in (Tag.IDLE, Tag.HALT):
            return None
        if n < 16:
            self._unexpected()
            return None
        frame, _ = from_bits(bits)
        if self.state == Tag.READY:
            return self._ready(frame, bits)
        # ACTIVE
        if n == 32 and frame[0] == HLTA and frame[1] == 0x00 and crc_a(frame[:4]) == 0:
            self.state = Tag.HALT
            self.level = 0
            return None
        self._unexpected()
        return None

    def _ready(self, frame: bytearray, bits: list[int]):
        sel = frame[0]
        if sel != SEL_CODES[self.level]:
            self._unexpected()
            return None
        nvb = frame[1]
        mine = self.cl_with_bcc(self.level)
        if nvb == 0x70:  # SELECT (14443-3 6.5.3.x)
            if len(bits) != 72 or crc_a(frame[:9]) != 0:
                self._unexpected()
                return None
            if bytes(frame[2:7]) != mine:
                self._unexpected()
                return None
            if self.level + 1 < self.levels:
                self.level += 1
                sak = 0x04  # cascade bit: UID not complete
            else:
                self.state = Tag.ACTIVE
                sak = self.sak & ~0x04
            ans = bytearray(with_crc(bytes((sak,))))
            if self.crc_error:
                ans[2] ^= 0x5A
            return to_bits(ans)
        nbytes, nbits = nvb >> 4, nvb & 7
        known = (nbytes - 2) * 8 + nbits
        if nbytes < 2 or known > 40 or len(bits) != 16 + known:
            self._unexpected()
            return None
        mbits = to_bits(mine)
        if bits[16:16 + known] != mbits[:known]:
            return None  # not our UID: stay quiet, stay READY
        ans = bytearray(mine)
        if self.bcc_error:
            ans[4] ^= 0x01
        return to_bits(ans)[known:]


# =============================================================== the reader chip


class MFRC522Model:
    """One MFRC522 behind a chip-select on an emulated ``SpiBus``."""

    def __init__(self, bus, cs, name: str = "rc522", version: int = 0x92, rst=None,
                 trace: bool = False) -> None:
        self.name = name
        self.clock = bus.clock
        self.version = version
        self.tags: list[Tag] = []
        self.trace: list | None = [] if trace else None
        self.field_listeners: list = []
        self.unsupported: list[int] = []
        self.field_ons = 0
        self.powered = True
        self.connected = True  # False after disconnect(): SPI reads _miso, writes are lost
        self._miso: int | None = 0x00
        self._float = random.Random(name)   # a floating MISO line's noise
        self._hard_pd = False
        self.stats = Counter()
        self.reg_accesses = Counter()
        self._field = False
        self._reset_registers()
        bus.attach(self, cs)
        if rst is not None:
            rst.listen(self._rst_changed)
            if rst.value() == 0:
                self._rst_changed(0)

    # -------------------------------------------------------------- state
    def _reset_registers(self) -> None:
        self.regs = bytearray(64)
        for a, v in RESET_VALUES.items():
            self.regs[a] = v
        self.regs[VERSION] = self.version
        self.fifo = bytearray()
        self.command = CMD_IDLE
        self._events: list = []  # (time, seq, kind, payload)
        self._seq = 0
        self._timer_running = False
        self._timer_start = 0.0
        self._crc = 0
        self._reset_busy_until = self.clock.now_us + 40.0  # oscillator start-up
        self._addr = None
        self._rd_addr = None
        self._write_addr = None
        self._apply_field()

    @property
    def field_on(self) -> bool:
        return self._field

    def _want_field(self) -> bool:
        return (self.powered and not self._hard_pd and not (self.regs[COMMAND] & 0x10)
                and bool(self.regs[TXCONTROL] & 0x03))

    def _apply_field(self) -> None:
        on = self._want_field()
        if on == self._field:
            return
        self._field = on
        now = self.clock.now_us
        if on:
            self.field_ons += 1
        for t in self.tags:
            t.power(on, now)
        for fn in self.field_listeners:
            fn(self, on)

    # -------------------------------------------------------------- tags
    def place(self, *tags: Tag) -> None:
        for t in tags:
            if t not in self.tags:
                self.tags.append(t)
                t.state = Tag.POWER_OFF
                if self._field:
                    t.power(True, self.clock.now_us)

    def remove(self, *tags: Tag) -> None:
        for t in tags:
            if t in self.tags:
                self.tags.remove(t)
                t.power(False, self.clock.now_us)

    def clear(self) -> None:
        self.remove(*list(self.tags))

    # -------------------------------------------------------------- supply and wiring faults
    def brownout(self) -> None:
        """A supply dip: every register back to its reset value (DS 9.2), the field off
        (tags drop to POWER-OFF and come back IDLE at the next power-up), a running
        command and pending frames lost. What a SoftReset does, unasked."""
        self.stats["brownouts"] += 1
        self._reset_registers()

    def disconnect(self, miso: int | None = 0x00, power: bool = True) -> None:
        """The reader stops answering: a loose SPI wire or chip-select. Every MISO byte
        reads ``miso`` (0x00 when the line is pulled low, 0xFF when pulled high;
        None: the line floats -- an unplugged seat whose 74HC125 input has no
        pull-down -- and each byte reads a different, seeded-random value) and
        writes are lost. With ``power=False`` the supply wire is loose too: the field
        drops, and ``reconnect()`` brings the chip back with reset registers."""
        self.stats["disconnects"] += 1
        self.connected = False
        self._miso = None if miso is None else miso & 0xFF
        if not power:
            self.powered = False
            self._apply_field()

    def reconnect(self) -> None:
        """The wire is back; an unpowered chip comes back as after a power-up."""
        self.connected = True
        if not self.powered:
            self.powered = True
            self._reset_registers()

    # -------------------------------------------------------------- pins
    def _rst_changed(self, level: int) -> None:
        if level == 0:
            self._hard_pd = True
            self._events.clear()
            self._timer_running = False
            self._apply_field()
        else:
            self._hard_pd = False
            self._reset_registers()
            self.stats["hard_resets"] += 1

    # -------------------------------------------------------------- SPI device
    def select(self) -> None:
        self._sync()
        self.stats["transactions"] += 1
        self._addr = None
        self._rd_addr = None
        self._write_addr = None

    def deselect(self) -> None:
        self._sync()

    def exchange(self, mosi: int) -> int:
        self.stats["bytes"] += 1
        self._sync()
        if not self.connected:
            if self._miso is None:
                return self._float.randrange(256)
            return self._miso
        if self._hard_pd:
            return 0x00
        if self._addr is None:  # address byte
            self._addr = mosi
            if mosi & 0x01:
                self.stats["bad_address_bytes"] += 1
            if mosi & 0x80:
                self._rd_addr = (mosi >> 1) & 0x3F
            else:
                self._write_addr = (mosi >> 1) & 0x3F
            return 0x00
        if self._write_addr is not None:
            self._reg_write(self._write_addr, mosi)
            return 0x00
        if self._rd_addr is None:
            return 0x00
        value = self._reg_read(self._rd_addr)
        self._rd_addr = (mosi >> 1) & 0x3F if mosi & 0x80 else None
        return value

    # -------------------------------------------------------------- registers
    def _log(self, op: str, addr: int, value: int) -> None:
        self.reg_accesses[addr] += 1
        if self.trace is not None:
            self.trace.append((op, addr, value))

    def _reg_read(self, a: int) -> int:
        self.stats["reads"] += 1
        v = self._peek(a)
        if a == FIFODATA and self.fifo:
            self.fifo.pop(0)
            self._fifo_changed()
        self._log("r", a, v)
        return v

    def _peek(self, a: int) -> int:
        r = self.regs
        if a == COMMAND:
            busy = 0x10 if self.clock.now_us < self._reset_busy_until else 0
            return (r[COMMAND] & 0x30) | busy | self.command
        if a == COMIRQ:
            return r[COMIRQ] & 0x7F
        if a == DIVIRQ:
            return r[DIVIRQ] & 0x7F
        if a == STATUS1:
            return self._status1()
        if a == STATUS2:
            return (r[STATUS2] & 0xC8) | self._modem_state()
        if a == FIFODATA:
            return self.fifo[0] if self.fifo else 0x00
        if a == FIFOLEVEL:
            return len(self.fifo)
        if a == TCOUNTER_HI:
            return self._tcounter() >> 8
        if a == TCOUNTER_LO:
            return self._tcounter() & 0xFF
        return r[a]

    def _reg_write(self, a: int, v: int) -> None:
        self.stats["writes"] += 1
        self._log("w", a, v)
        r = self.regs
        if a == COMMAND:
            r[COMMAND] = v & 0x30
            self._start_command(v & 0x0F)
            self._apply_field()
        elif a in (COMIRQ, DIVIRQ):
            mask = v & 0x7F
            if v & 0x80:
                r[a] |= mask
            else:
                r[a] &= ~mask & 0x7F
        elif a == FIFODATA:
            if len(self.fifo) >= FIFO_SIZE:
                self._error(BUFFER_OVFL)
            else:
                self.fifo.append(v)
                if self.command == CMD_CALC_CRC:
                    self._crc_feed()
                self._fifo_changed()
        elif a == FIFOLEVEL:
            if v & 0x80:
                self.fifo.clear()
                r[ERROR] &= ~BUFFER_OVFL & 0xFF
                self._fifo_changed()
        elif a == CONTROL:
            if v & 0x40:  # TStartNow
                self._timer_start_now()
            if v & 0x80:  # TStopNow
                self._timer_running = False
        elif a == BITFRAMING:
            r[a] = v
            if v & 0x80 and self.command == CMD_TRANSCEIVE:
                self._start_send()
        elif a == TXCONTROL:
            r[a] = v
            self._apply_field()
        elif a in (ERROR, STATUS1, FIFODATA, VERSION, CRCRESULT_MSB, CRCRESULT_LSB,
                   TCOUNTER_HI, TCOUNTER_LO):
            pass  # read-only
        elif a == STATUS2:
            r[a] = (r[a] & 0x07) | (v & 0xC8)
        elif a == COLL:
            r[a] = (r[a] & 0x7F) | (v & 0x80)
        else:
            r[a] = v

    def _status1(self) -> int:
        r = self.regs
        v = r[STATUS1] & 0x60  # CRCOk, CRCReady
        irq = (r[COMIEN] & r[COMIRQ] & 0x7F) or (r[DIVIEN] & r[DIVIRQ] & 0x14)
        if irq:
            v |= 0x10
        if self._timer_running:
            v |= 0x08
        lvl = len(self.fifo)
        wl = r[WATERLEVEL] & 0x3F
        if FIFO_SIZE - lvl <= wl:
            v |= 0x02
        if lvl <= wl:
            v |= 0x01
        return v

    def _modem_state(self) -> int:
        if self.command != CMD_TRANSCEIVE:
            return 0
        for _, _, kind, _ in self._events:
            if kind == "tx_end":
                return 3
            if kind in ("rx_start", "rx_end"):
                return 5
        return 1

    def _fifo_changed(self) -> None:
        lvl = len(self.fifo)
        wl = self.regs[WATERLEVEL] & 0x3F
        if FIFO_SIZE - lvl <= wl:
            self.regs[COMIRQ] |= HIALERT_IRQ
        if lvl <= wl:
            self.regs[COMIRQ] |= LOALERT_IRQ

    def _error(self, bits: int) -> None:
        self.regs[ERROR] |= bits
        self.regs[COMIRQ] |= ERR_IRQ

    # -------------------------------------------------------------- commands
    def _start_command(self, cmd: int) -> None:
        if cmd == CMD_NO_CHANGE:
            return
        self._events = [e for e in self._events if e[2] == "never"]  # cancel tx/rx
        if cmd == CMD_SOFT_RESET:
            self.stats["soft_resets"] += 1
            self._reset_registers()
            return
        self.command = cmd
        if cmd == CMD_IDLE:
            return
        if cmd == CMD_CALC_CRC:
            self._crc = CRC_PRESETS[self.regs[MODE] & 0x03]
            self.regs[STATUS1] &= ~0x60 & 0xFF
            self._crc_feed()
        elif cmd == CMD_TRANSCEIVE:
            if self.regs[BITFRAMING] & 0x80:
                self._start_send()
        elif cmd == CMD_TRANSMIT:
            self._start_send()
        else:
            # Mem, GenerateRandomID, Receive, MFAuthent: not modelled
            self.unsupported.append(cmd)
            self.command = CMD_IDLE
            self.regs[COMIRQ] |= IDLE_IRQ

    def _crc_feed(self) -> None:
        """CalcCRC: the coprocessor consumes the FIFO; stays active until Idle (DS 10.3.1.4)."""
        if not self.fifo:
            return
        crc = self._crc
        for b in self.fifo:
            crc = crc_a((b,), crc)
        self._crc = crc
        self.fifo.clear()
        self._fifo_changed()
        self.regs[CRCRESULT_MSB] = crc >> 8
        self.regs[CRCRESULT_LSB] = crc & 0xFF
        self.regs[STATUS1] |= 0x20  # CRCReady
        if crc == 0:
            self.regs[STATUS1] |= 0x40  # CRCOk
        else:
            self.regs[STATUS1] &= ~0x40 & 0xFF
        self.regs[DIVIRQ] |= CRC_IRQ
        self.stats["crc_calcs"] += 1

    def _start_send(self) -> None:
        now = self.clock.now_us
        r = self.regs
        data = bytes(self.fifo)
        self.fifo.clear()
        self._fifo_changed()
        last = r[BITFRAMING] & 0x07
        nbits = 8 * len(data) - ((8 - last) if (last and data) else 0)
        bits = to_bits(data, nbits)
        if r[TXMODE] & 0x80 and nbits % 8 == 0:  # TxCRCEn
            bits += to_bits(with_crc(data)[-2:])
        # errors are cleared when a new transmission starts
        r[ERROR] &= ~(COLL_ERR | CRC_ERR | PARITY_ERR | PROTOCOL_ERR) & 0xFF
        r[COLL] = (r[COLL] & 0x80) | 0x20  # CollPosNotValid
        self.stats["frames"] += 1
        t_end = now + (len(bits) + len(bits) // 8 + 2) * BIT_US
        self._push(t_end, "tx_end", bits)

    def _push(self, t: float, kind: str, payload) -> None:
        self._seq += 1
        self._events.append((t, self._seq, kind, payload))
        self._events.sort()

    # -------------------------------------------------------------- timer
    def timer_period_us(self) -> float:
        """The timeout the driver's timer registers set (DS 8.5), in us: what
        an empty reader's frame waits (a view for tests; nothing changes)."""
        r = self.regs
        presc = ((r[TMODE] & 0x0F) << 8) | r[TPRESCALER]
        div = 2 * presc + (2 if r[DEMOD] & 0x10 else 1)
        reload = (r[TRELOAD_HI] << 8) | r[TRELOAD_LO]
        return (reload + 1) * div / FC_MHZ

    def _timer_start_now(self) -> None:
        self._timer_running = True
        self._timer_start = self.clock.now_us

    def _tcounter(self) -> int:
        r = self.regs
        reload = (r[TRELOAD_HI] << 8) | r[TRELOAD_LO]
        if not self._timer_running:
            return reload
        period = self.timer_period_us()
        elapsed = self.clock.now_us - self._timer_start
        left = max(0.0, 1.0 - elapsed / period) if period else 0.0
        return int(left * (reload + 1))

    # -------------------------------------------------------------- time
    def _sync(self) -> None:
        """Apply everything that happened up to the clock's now, in time order."""
        now = self.clock.now_us
        while True:
            t_timer = None
            if self._timer_running:
                t_timer = self._timer_start + self.timer_period_us()
            t_ev = self._events[0][0] if self._events else None
            if t_timer is not None and t_timer <= now and (t_ev is None or t_timer <= t_ev):
                self.regs[COMIRQ] |= TIMER_IRQ
                if self.regs[TMODE] & 0x10:  # TAutoRestart
                    self._timer_start = t_timer
                else:
                    self._timer_running = False
                continue
            if t_ev is not None and t_ev <= now:
                t, _, kind, payload = self._events.pop(0)
                self._event(t, kind, payload)
                continue
            return

    def _event(self, t: float, kind: str, payload) -> None:
        r = self.regs
        if kind == "tx_end":
            r[COMIRQ] |= TX_IRQ
            if r[TMODE] & 0x80:  # TAuto: timer starts at the end of the transmission
                self._timer_running = True
                self._timer_start = t
            if self.command == CMD_TRANSMIT:
                self.command = CMD_IDLE
                r[COMIRQ] |= IDLE_IRQ
                return
            answers = []
            if self._field:
                for tag in list(self.tags):
                    a = tag.receive(payload, t)
                    if a is not None:
                        answers.append(a)
            if not answers:
                return
            nbits = max(len(a[0]) for a in answers)
            rx_start = t + FDT_US
            self._push(rx_start + 5 * BIT_US, "rx_start", None)
            self._push(rx_start + (nbits + nbits // 8 + 2) * BIT_US, "rx_end", answers)
        elif kind == "rx_start":
            if r[TMODE] & 0x80 and not r[RXMODE] & 0x04:  # TAuto, not RxMultiple
                self._timer_running = False
        elif kind == "rx_end":
            self._receive(payload)

    def _receive(self, answers) -> None:
        r = self.regs
        nbits = max(len(a[0]) for a in answers)
        bits = []
        coll = None
        errs = 0
        for _, f in answers:
            errs |= f
        for i in range(nbits):
            vals = {a[0][i] for a in answers if i < len(a[0])}
            if len(vals) > 1:
                if coll is None:
                    coll = i
                bits.append(1)
            else:
                bits.append(vals.pop())
        align = (r[BITFRAMING] >> 4) & 0x07
        if coll is not None:
            errs |= COLL_ERR
            if not r[COLL] & 0x80:  # ValuesAfterColl = 0: bits after the collision read 0
                for i in range(coll + 1, nbits):
                    bits[i] = 0
            pos = align + coll + 1
            if pos <= 32:
                r[COLL] = (r[COLL] & 0x80) | (pos & 0x1F)  # 32 -> 0
            else:
                r[COLL] = (r[COLL] & 0x80) | 0x20
        data, last = from_bits(bits, align)
        if r[RXMODE] & 0x80 and last == 0 and len(data) >= 3:  # RxCRCEn
            if crc_a(data) != 0:
                errs |= CRC_ERR
            data = data[:-2]
        room = FIFO_SIZE - len(self.fifo)
        if len(data) > room:
            errs |= BUFFER_OVFL
            data = data[:room]
        self.fifo.extend(data)
        self._fifo_changed()
        r[CONTROL] = (r[CONTROL] & 0xF8) | last
        r[COMIRQ] |= RX_IRQ
        if errs:
            self._error(errs)

    # -------------------------------------------------------------- helpers for tests
    def reset_stats(self) -> None:
        self.stats.clear()
        self.reg_accesses.clear()
        if self.trace is not None:
            self.trace.clear()

    def counts(self) -> dict:
        s = self.stats
        return {"transactions": s["transactions"], "bytes": s["bytes"],
                "reg_accesses": s["reads"] + s["writes"], "frames": s["frames"]}
