// The Pico's serial flash (a W25Q16JV-like NOR chip) behind the RP2040's SSI,
// for rp2040js, which reads flash through XIP but answers only the status
// command on the SSI: erase and program did nothing there.
//
// Who talks to the chip directly: the boot ROM's flash functions
// (flash_range_erase, flash_range_program, flash_exit_xip), which MicroPython's
// rp2_flash.c calls through the pico-sdk (and the sdk's flash_do_cmd, e.g. the
// unique id read at boot).  They drive the chip-select by hand through
// IO_QSPI's GPIO_QSPI_SS_CTRL output override and clock bytes through SSI DR0,
// keeping up to 14 bytes in flight (hence the receive FIFO here).  A command
// is the bytes between chip-select low and high.  Boot2's own commands run
// with the SSI driving chip-select itself; they are answered as before (0:
// quad mode enabled, not busy).
//
// Commands: 06 write enable, 04 write disable, 05/35/15 status registers,
// 02 page program (wraps in its 256-byte page, only clears bits), 20 sector
// erase (4 KiB), 52 block erase (32 KiB), D8 block erase (64 KiB),
// 03/0B reads, 9F JEDEC id, 4B unique id, AB release power-down; others are
// ignored.  Program and erase take the datasheet's typical times, during which
// the status register says busy.  A program or erase is applied to the memory
// at once; if power is cut before its time is up (afterPowerCut), only the
// part done by then stays: the first bytes of a program, the first bytes of an
// erase, the rest as it was before.
const SS_CTRL = 0x0c;                     // IO_QSPI: GPIO_QSPI_SS_CTRL
const OUTOVER_LOW = 2;                    // drive output low
const SSI_SR = 0x28;
const SSI_SSIENR = 0x08;
const SSI_RXFLR = 0x24;
const SSI_DR0 = 0x60;
const SR_TFNF = 0x02;
const SR_TFE = 0x04;
const SR_RFNE = 0x08;
const PAGE = 256;

const TIMES_NS = {                        // W25Q16JV typical
  0x02: 400e3,                            // page program 0.4 ms
  0x20: 45e6,                             // sector erase 45 ms
  0x52: 120e6,                            // 32 KiB block erase
  0xd8: 150e6,                            // 64 KiB block erase
  0x01: 10e6,                             // write status register
};
const ERASE_BYTES = { 0x20: 4096, 0x52: 32768, 0xd8: 65536 };
const JEDEC_ID = [0xef, 0x40, 0x15];
const UNIQUE_ID = [0xe6, 0x60, 0x58, 0x38, 0x83, 0x4a, 0x2b, 0x2e];

export class SerialFlash {
  constructor(memory, size, nanos, times = TIMES_NS) {
    this.memory = memory;                 // rp2040js's flash array (XIP reads it)
    this.size = size;
    this.nanos = nanos;
    this.times = times;
    this.selected = false;
    this.cmd = -1;
    this.n = 0;                           // bytes after the command byte
    this.addr = 0;
    this.data = [];
    this.wel = false;
    this.op = null;                       // the last program/erase: undo while busy
    this.rx = [];
    this.counts = { program: 0, erase: 0, bytes: 0, ignored: 0 };
    this.log = null;                      // an array: every program and erase recorded
  }

  // The operations recorded since startLog, in host_sim/vm/nor_flash.py's
  // save_log format (per 4 KiB sector: block, offset or -1 for an erase, the
  // bytes programmed), so the flash a cut leaves can be rebuilt on the host;
  // a block erase is logged sector by sector.
  logBytes() {
    const parts = [];
    for (const [addr, data] of this.log) {
      const head = Buffer.alloc(12);
      head.writeInt32LE(Math.floor(addr / 4096), 0);
      head.writeInt32LE(data ? addr % 4096 : -1, 4);
      head.writeUInt32LE(data ? data.length : 0, 8);
      parts.push(head);
      if (data) parts.push(Buffer.from(data));
    }
    return Buffer.concat(parts);
  }

  attach(mcu) {
    const ssi = mcu.peripherals[0x18000];
    const read = ssi.readUint32.bind(ssi);
    const write = ssi.writeUint32.bind(ssi);
    ssi.readUint32 = (offset) => {
      switch (offset) {
        case SSI_SR: return SR_TFE | SR_TFNF | (this.rx.length ? SR_RFNE : 0);
        case SSI_RXFLR: return this.rx.length;
        case SSI_DR0: return this.rx.length ? this.rx.shift() : 0;
        default: return read(offset);
      }
    };
    ssi.writeUint32 = (offset, value) => {
      if (offset === SSI_DR0) {
        this.rx.push(this.selected ? this.exchange(value & 0xff) : 0);
        if (this.rx.length > 16) this.rx.shift();
      } else {
        if (offset === SSI_SSIENR && !(value & 1)) this.rx = [];   // disabling clears FIFOs
        write(offset, value);
      }
    };
    const regs = new Map();
    const ioQspi = mcu.peripherals[0x40018];
    // unwritten registers read all ones, as rp2040js answered before: the
    // boot ROM reads the chip-select pad as high (BOOTSEL not pressed)
    ioQspi.readUint32 = (offset) => (regs.has(offset) ? regs.get(offset) : 0xffffffff);
    ioQspi.writeUint32 = (offset, value) => {
      regs.set(offset, value);
      if (offset === SS_CTRL) {
        const low = ((value >> 8) & 3) === OUTOVER_LOW;
        if (low && !this.selected) this.select();
        else if (!low && this.selected) this.deselect();
      }
    };
  }

  busy() {
    return this.op !== null && this.nanos() < this.op.end;
  }

  // When the operation under way ends (ns), or 0 if none is.
  opEnd() {
    return this.busy() ? this.op.end : 0;
  }

  status() {
    return (this.busy() ? 1 : 0) | (this.wel ? 2 : 0);
  }

  select() {
    this.selected = true;
    this.cmd = -1;
    this.n = 0;
    this.addr = 0;
    this.data = [];
  }

  exchange(b) {
    if (this.cmd < 0) {
      this.cmd = b;
      if (b === 0x06 && !this.busy()) this.wel = true;
      else if (b === 0x04 && !this.busy()) this.wel = false;
      return 0xff;
    }
    const k = this.n++;
    switch (this.cmd) {
      case 0x05: return this.status();
      case 0x35: return 0x02;             // status 2: QE set (boot2 leaves it so)
      case 0x15: return 0x00;
      case 0x9f: return JEDEC_ID[k] ?? 0xff;
      case 0x4b: return k < 4 ? 0xff : UNIQUE_ID[k - 4] ?? 0xff;
      case 0xab: return k < 3 ? 0xff : 0x14;
      case 0x03:
      case 0x0b: {
        if (k < 3) { this.addr = (this.addr << 8) | b; return 0xff; }
        const skip = this.cmd === 0x0b ? 4 : 3;
        if (k < skip) return 0xff;
        return this.memory[(this.addr + k - skip) % this.size];
      }
      case 0x02:
        if (k < 3) this.addr = (this.addr << 8) | b;
        else if (this.data.length < 4096) this.data.push(b);
        return 0xff;
      case 0x20: case 0x52: case 0xd8:
        if (k < 3) this.addr = (this.addr << 8) | b;
        return 0xff;
      default:
        return 0xff;
    }
  }

  deselect() {
    this.selected = false;
    const { cmd } = this;
    if (!this.wel || this.busy() || !(cmd === 0x02 || cmd in ERASE_BYTES || cmd === 0x01)) {
      if (cmd >= 0 && cmd !== 0x05 && cmd !== 0x06 && cmd !== 0x04 && !this.knownRead(cmd)) {
        this.counts.ignored++;
      }
      return;
    }
    if (cmd === 0x02 && this.n >= 4) this.program();
    else if (cmd in ERASE_BYTES && this.n >= 3) this.erase(ERASE_BYTES[cmd]);
    else if (cmd === 0x01) this.begin(cmd, []);
    this.wel = false;
  }

  knownRead(cmd) {
    return [0x35, 0x15, 0x9f, 0x4b, 0xab, 0x03, 0x0b].includes(cmd);
  }

  begin(cmd, cells) {
    const start = this.nanos();
    this.op = { cmd, start, end: start + this.times[cmd], cells };
    if (this.onBegin) this.onBegin(cmd);
  }

  // The operation under way: what it is, where, and how far it has got.
  state() {
    if (!this.busy()) return { busy: null };
    const { cmd, start, end, cells } = this.op;
    const kind = cmd === 0x02 ? 'program' : cmd === 0x01 ? 'status' : 'erase';
    return {
      busy: kind, addr: cells.length ? cells[0][0] : 0, cells: cells.length,
      done: Math.floor((cells.length * (this.nanos() - start)) / (end - start)),
    };
  }

  // cells: [address, value before] in the order the chip works through them
  program() {
    const page = this.addr & ~(PAGE - 1);
    const data = this.data.slice(-PAGE);  // more than a page: the last 256 bytes count
    const cells = [];
    for (let i = 0; i < data.length; i++) {
      const a = (page + ((this.addr + i) & (PAGE - 1))) % this.size;
      cells.push([a, this.memory[a]]);
      this.memory[a] &= data[i];          // NOR: programming only clears bits
    }
    this.counts.program++;
    this.counts.bytes += data.length;
    if (this.log && cells.length) this.log.push([cells[0][0], data]);
    this.begin(0x02, cells);
  }

  erase(bytes) {
    const base = (this.addr & ~(bytes - 1)) % this.size;
    const cells = [];
    for (let a = base; a < base + bytes; a++) {
      cells.push([a, this.memory[a]]);
      this.memory[a] = 0xff;
    }
    this.counts.erase++;
    for (let a = base; this.log && a < base + bytes; a += 4096) this.log.push([a, null]);
    this.begin(this.cmd, cells);
  }

  // The flash as it is after a power cut now: an operation still under way has
  // done the fraction of its cells its time allows; the rest keep their values.
  afterPowerCut() {
    const out = Buffer.from(this.memory.subarray(0, this.size));
    if (this.busy()) {
      const { start, end, cells } = this.op;
      const done = Math.floor((cells.length * (this.nanos() - start)) / (end - start));
      for (let i = done; i < cells.length; i++) out[cells[i][0]] = cells[i][1];
    }
    return out;
  }
}
