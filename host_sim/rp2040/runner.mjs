// The emulated Raspberry Pi Pico (rp2040js) as a child process of the host's
// Python bridge (host_sim/rp2040/emulator.py).  Usage:
//
//   node runner.mjs BOOTROM FLASH_IMAGE [--chain-decoder]
//
// FLASH_IMAGE holds the serial flash (2 MiB: MicroPython's UF2 written in, the
// littlefs filesystem at 0xA0000); the emulated chip writes only to its copy
// in memory until the host says "save" (a power cut writes what reached the
// flash, see SerialFlash).
//
// The chips on the buses are the host's models, not modelled here: each byte
// the RP2040 clocks out of SPI0 is sent to the host and the emulator waits
// (a blocking read of standard input) until the host answers the byte it
// clocks in, so the CPU never advances while the host answers.  One line per
// message on standard output ("<kind> <time ns> ..."), one line per answer or
// command on standard input:
//
//   S t b        SPI0 byte b sent          -> answer: the byte received
//   Y t dc hex   SPI0 bytes to the display (its chip-select low) at D/C# dc:
//                not asked (the panel never drives MISO: they read 0x00)
//   G t pin v    an output pin the host watches changed (chip-selects, reset)
//   I t addr hex I2C0 write transaction (acked: the address is present)
//   R t addr     I2C0 read of one byte     -> answer: the byte
//   N t hex      WS2812 bytes decoded from the data pin's pulses (one frame)
//   P t freq duty enabled   the buzzer pin's PWM slice changed
//   U t hex      bytes the Pico sent on its USB CDC serial port
//   D t ...      a command is done (the reply to the host's command)
//
// Commands from the host (each answered with one D line, messages before it):
//
//   run T [line]   run until emulated time T ns, or (with "line") until the
//                  USB serial output holds a newline
//   cdc HEX        bytes the host sends to the Pico's USB serial port
//   in PIN V       drive an input pin (a button) to V (0 or 1)
//   watch PIN...   report these output pins (G messages)
//   ack ADDR...    I2C0 addresses that acknowledge (a device is there)
//   spidisplay CS DC   a display on SPI0 at chip-select CS, D/C# on DC (Y messages)
//   ws2812 PIN     decode WS2812 frames on this pin (N messages)
//   pwm PIN        report the PWM slice of this pin (P messages)
//   save PATH      write the flash as a power cut at this instant leaves it
//   flash          D answers the serial flash's counters and the operation under way
//   arm KIND N     stop the run (D answers "cut") when the N-th next program or
//                  erase (KIND) begins: a power cut inside it follows
//   oplog start|PATH  record every program and erase from now on | write
//                  those recorded to PATH (nor_flash.py's load_log reads it)
//   stats          D answers the PC, whether the core sleeps, timer reads, busy
//                  waits skipped and instructions executed (diagnostics)
//   profile on|show  count instructions per 64 bytes of code; show the 25 hottest
//   quit
import fs from 'node:fs';
import { RP2040, USBCDC } from 'rp2040js';
import { speedUp } from './fast_core.mjs';
import { SerialFlash } from './serial_flash.mjs';

// A cycle's time follows clk_sys as the firmware sets the PLL and the clock
// tree (rp2040js models both: 125 MHz until the firmware says otherwise;
// boards/pico.py raises it to 200 MHz, the RP2040's rated top speed).
let nsPerCycle = 8;
const WS2812_RESET_NS = 50000;            // a low line this long ends a frame
const WS2812_ONE_NS = 600;                // high pulses longer than this are 1 bits

const [bootromPath, flashPath, decoder] = process.argv.slice(2);
const mcu = new RP2040();
// The instruction decoder as a jump table and stores to SRAM without the
// peripheral lookup (fast_core.mjs: the same instructions, the same cycles);
// --chain-decoder keeps rp2040js as it is.
if (decoder !== '--chain-decoder') {
  for (const note of await speedUp(mcu)) process.stderr.write(`[fast_core] ${note}\n`);
}
mcu.logger = {                            // rp2040js logs to stdout; ours is the protocol
  debug() {}, info() {},
  warn(c, m) { process.stderr.write(`[${c}] ${m}\n`); },
  error(c, m) { process.stderr.write(`[${c}] ${m}\n`); },
};
let nsFraction = 0;                       // below a nanosecond, carried (clk_sys not 1e9/n)
mcu.addClockListener((hz) => {
  nsPerCycle = 1e9 / hz;
  if (Number.isInteger(nsPerCycle)) nsFraction = 0;   // (whole again: the fast path)
});
function tickCycles(cycles) {             // the clock stays on whole nanoseconds
  const ns = cycles * nsPerCycle + nsFraction;
  const whole = Math.floor(ns);
  nsFraction = ns - whole;
  mcu.clock.tick(whole);
}
const rom = fs.readFileSync(bootromPath);
mcu.loadBootrom(new Uint32Array(rom.buffer, rom.byteOffset, rom.length / 4));
const image = fs.readFileSync(flashPath);
mcu.flash.set(image);                     // after loadBootrom: its reset erases the flash
const flash = new SerialFlash(mcu.flash, image.length, () => mcu.clock.nanos);
flash.attach(mcu);
// Start at boot2 in flash, as rp2040js does (its boot ROM path waits for a
// second core it does not have); the ROM stays there for its flash functions.
mcu.core.PC = 0x10000000;

// ------------------------------------------------------------------ the pipe to the host
const input = Buffer.alloc(1 << 16);
let pending = '';

function readLine() {
  for (;;) {
    const nl = pending.indexOf('\n');
    if (nl >= 0) {
      const line = pending.slice(0, nl);
      pending = pending.slice(nl + 1);
      return line;
    }
    let n;
    try {
      n = fs.readSync(0, input, 0, input.length, null);
    } catch (e) {
      if (e.code === 'EAGAIN') continue;
      throw e;
    }
    if (n === 0) process.exit(0);         // the host has gone
    pending += input.toString('latin1', 0, n);
  }
}

let outbox = [];
function tell(msg) {
  outbox.push(`${msg}\n`);
  if (outbox.length > 256) flush();
}
function flush() {
  if (outbox.length) {
    const data = outbox.join('');
    outbox = [];
    let off = 0;
    const buf = Buffer.from(data, 'latin1');
    while (off < buf.length) {
      try {
        off += fs.writeSync(1, buf, off);
      } catch (e) {
        if (e.code !== 'EAGAIN') throw e;
      }
    }
  }
}
function ask(msg) {
  tell(msg);
  flush();
  return readLine();
}
const now = () => Math.floor(mcu.clock.nanos);   // (alarms of clk_sys-timed peripherals fall between)

// ------------------------------------------------------------------ SPI0: the readers
// A byte to the display takes its 8 bits on the wire at the clock the
// firmware set (4 MHz: 2 us): the CPU's polls of the status register and the
// DMA that MicroPython uses for a transfer of 32 bytes or more see it busy
// meanwhile, as on a Pico.  (Completed at once, the DMA's transmit channel --
// rescheduled at the same instant, which rp2040js runs last-scheduled-first --
// overran the receive FIFO before its channel ever ran, and machine.SPI.write
// waited forever.)  A reader's byte is answered at once: a poll's few dozen
// bytes are tens of microseconds on the Pico, and the readers' register
// access never uses the DMA (boards/rp2_regs.py).
const spi0 = mcu.spi[0];
let display = null;                       // {cs, dc, bytes, level}: the display on SPI0
let spiBusy = false;                      // a byte on the wire (its alarm pending)
const spiAlarm = mcu.clock.createAlarm(() => {
  spiBusy = false;
  spi0.completeTransmit(0);               // the panel never drives MISO: the pull-down
});
// The CPU's polls of SSPSR, or of the DMA's registers while machine.SPI's DMA
// waits, during a byte on the wire move the clock to the next alarm (the
// byte's end at the latest), as the I2C's polls do below: 400 cycles of a
// spin a byte at 4 MHz, which the emulator would otherwise run.
let lastSpiRead = -1e9;
let spiSpins = 0;
function spiPolled() {
  if (!spiBusy) return;
  spiSpins = executed - lastSpiRead < SPIN_GAP ? spiSpins + 1 : 0;
  lastSpiRead = executed;
  const next = mcu.clock.nanosToNextAlarm;
  if (spiSpins >= 2 && next > 0) { skipToAlarm(next); skipped++; }
}
const sspRead = spi0.readUint32.bind(spi0);
spi0.readUint32 = (offset) => {
  if (offset === 0x0c) spiPolled();                   // SSPSR
  return sspRead(offset);
};
const dmaRead = mcu.dma.readUint32.bind(mcu.dma);
mcu.dma.readUint32 = (offset) => {
  spiPolled();
  return dmaRead(offset);
};
function displayFlush() {
  if (display.bytes.length) {
    tell(`Y ${now()} ${display.level} ${Buffer.from(display.bytes).toString('hex')}`);
    display.bytes = [];
  }
}
spi0.onTransmit = (b) => {
  if (display !== null && mcu.gpio[display.cs].value === 0) {
    const level = mcu.gpio[display.dc].value === 0 ? 0 : 1;
    if (level !== display.level) displayFlush();
    display.level = level;
    display.bytes.push(b);
    spiBusy = true;
    const hz = spi0.clockFrequency;
    spiAlarm.schedule(hz > 0 ? Math.round(8e9 / hz) : 0);
    return;
  }
  spi0.completeTransmit(parseInt(ask(`S ${now()} ${b}`), 10) & 0xff);
};
function spiDisplay(cs, dc) {
  if (display === null || display.cs !== cs) {
    mcu.gpio[cs].addListener((state) => { if (state !== 0 && display.cs === cs) displayFlush(); });
  }
  display = { cs, dc, bytes: [], level: 0 };
}

// ------------------------------------------------------------------ GPIO outputs
const watched = new Set();
function watch(pin) {
  if (watched.has(pin)) return;
  watched.add(pin);
  mcu.gpio[pin].addListener((state) => {
    // GPIOPinState: Low 0, High 1, the input states (2..) read as high: pulled up
    tell(`G ${now()} ${pin} ${state === 0 ? 0 : 1}`);
  });
}

// ------------------------------------------------------------------ I2C0: the display
// The bus takes its time: each bit one SCL period of the clock the firmware
// set (IC_FS_SCL_HCNT + IC_FS_SCL_LCNT cycles of clk_sys: 2.5 us at 400 kHz;
// pico-sdk always uses the fast-mode counts), a byte and its acknowledge 9
// bits, a START or STOP one.  The controller's next command waits for the
// byte on the wire, so a write blocks the CPU as long as on a Pico.
const acking = new Set();
const i2c = mcu.i2c[0];
let i2cAddr = -1;
let i2cWrite = null;                      // bytes of the write transaction under way
let i2cDone = null;                       // what ends the bus's current bit times
const i2cAlarm = mcu.clock.createAlarm(() => { const done = i2cDone; i2cDone = null; done(); });
function i2cAfter(bits, done) {
  const period = i2c.fsClockHighPeriod + i2c.fsClockLowPeriod;
  i2cDone = done;
  i2cAlarm.schedule(Math.round(bits * (period > 0 ? period : 500) * 1e9 / mcu.clkSys));
}
function i2cEnd() {
  if (i2cWrite !== null) {
    tell(`I ${now()} ${i2cAddr} ${Buffer.from(i2cWrite).toString('hex')}`);
    i2cWrite = null;
  }
}
i2c.onStart = () => { i2cEnd(); i2cAfter(1, () => i2c.completeStart()); };
i2c.onConnect = (addr, mode) => {
  const ack = acking.has(addr);
  i2cAddr = addr;
  i2cWrite = ack && mode === 0 ? [] : null;   // I2CMode.Write is 0
  i2cAfter(9, () => i2c.completeConnect(ack));
};
i2c.onWriteByte = (b) => {
  const ack = i2cWrite !== null;
  if (ack) i2cWrite.push(b);
  i2cAfter(9, () => i2c.completeWrite(ack));
};
i2c.onReadByte = () => {
  const value = parseInt(ask(`R ${now()} ${i2cAddr}`), 10) & 0xff;
  i2cAfter(9, () => i2c.completeRead(value));
};
i2c.onStop = () => { i2cEnd(); i2cAfter(1, () => i2c.completeStop()); };
// An abort (an address or a byte not acknowledged) flushes the TX FIFO, and
// TX_EMPTY is the FIFO's level (at or below IC_TX_TL, RP2040 datasheet 4.3.17
// IC_RAW_INTR_STAT): it is set then, which rp2040js leaves to the next byte
// taken from the FIFO.  pico-sdk's write waits for it before it looks at the
// abort: without it a missing display timed out (ETIMEDOUT) and its abort,
// never cleared, failed the next write to a display that was back.
// pico-sdk's write polls the controller's status while a byte is on the wire
// (4500 cycles of it at 200 MHz and 400 kHz): a read of it again and again with
// only a few instructions between moves the clock on to the byte's end (the
// next alarm: nothing else can change meanwhile), as the timer's spins do.
const I2C_POLLED = new Set([0x2c, 0x34, 0x70, 0x74, 0x80]);   // INTR_STAT, RAW_INTR_STAT,
let lastI2cRead = -1e9;                                      // STATUS, TXFLR, TX_ABRT_SOURCE
let i2cSpins = 0;
const i2cRead = i2c.readUint32.bind(i2c);
i2c.readUint32 = (offset) => {
  if (I2C_POLLED.has(offset) && i2cDone !== null) {
    i2cSpins = executed - lastI2cRead < SPIN_GAP ? i2cSpins + 1 : 0;
    lastI2cRead = executed;
    const next = mcu.clock.nanosToNextAlarm;
    if (i2cSpins >= 2 && next > 0) { skipToAlarm(next); skipped++; }
  }
  return i2cRead(offset);
};
const abortFlush = i2c.abort.bind(i2c);
i2c.abort = (reason) => { abortFlush(reason); i2c.setInterrupts(1 << 4); };   // R_TX_EMPTY

// ------------------------------------------------------------------ WS2812: the LED strip
// neopixel.write is machine.bitstream on the rp2 port: a timed loop toggling
// the pin.  The pulses are measured in emulated time and decoded; a frame ends
// when the line has been low for the reset time.
function decodeWs2812(pin) {
  let rise = -1;
  let bits = 0;
  let nbits = 0;
  let bytes = [];
  const frameEnd = mcu.clock.createAlarm(() => {
    if (bytes.length) tell(`N ${now()} ${Buffer.from(bytes).toString('hex')}`);
    bytes = [];
    bits = nbits = 0;
  });
  mcu.gpio[pin].addListener((state) => {
    const t = now();
    if (state === 1) {
      rise = t;
      frameEnd.cancel();
    } else if (state === 0 && rise >= 0) {
      bits = (bits << 1) | (t - rise > WS2812_ONE_NS ? 1 : 0);
      rise = -1;
      if (++nbits === 8) {
        bytes.push(bits);
        bits = nbits = 0;
      }
      frameEnd.schedule(WS2812_RESET_NS);
    }
  });
}

// ------------------------------------------------------------------ PWM: the buzzer
// What a piezo hears is the slice's frequency and the channel's duty; both are
// read from the registers whenever the slice's registers are written.
function reportPwm(pin) {
  const slice = (pin >> 1) & 7;
  const chanB = pin & 1;
  const pwm = mcu.pwm;
  let last = '';
  const write = pwm.writeUint32.bind(pwm);
  pwm.writeUint32 = (offset, value) => {
    write(offset, value);
    if (Math.floor(offset / 0x14) !== slice && offset !== 0xa0) return;  // 0xa0: EN
    const ch = pwm.channels[slice];
    const div = ((ch.div >> 4) & 0xff || 256) + (ch.div & 0xf) / 16;
    const phaseCorrect = ch.csr & 2 ? 2 : 1;
    const top = ch.top + 1;
    const freq = Math.round(mcu.clkSys / (div * top * phaseCorrect));
    const cc = chanB ? (ch.cc >>> 16) & 0xffff : ch.cc & 0xffff;
    const duty = Math.min(65535, Math.round((cc * 65535) / top));
    const enabled = ch.csr & 1 ? 1 : 0;
    const state = `${freq} ${duty} ${enabled}`;
    if (state !== last) {
      last = state;
      tell(`P ${now()} ${state}`);
    }
  };
}

// ------------------------------------------------------------------ USB CDC: the console
const cdc = new USBCDC(mcu.usbCtrl);
const toPico = [];                        // bytes the host sent, not yet read by the Pico
let heldRead = null;                      // the Pico's read request waiting for data
let lineSeen = false;
cdc.onSerialData = (buf) => {
  tell(`U ${now()} ${Buffer.from(buf).toString('hex')}`);
  if (buf.includes(10)) lineSeen = true;
};
function answerRead(endpoint, size) {
  const chunk = toPico.splice(0, Math.min(size, toPico.length));
  mcu.usbCtrl.endpointReadDone(endpoint, new Uint8Array(chunk));
}
// rp2040js answers a read with an empty packet every 10 us while the host has
// nothing to send; a real host holds the request until data is there, which
// lets the Pico sleep (and the emulator skip the idle time).
mcu.usbCtrl.onEndpointRead = (endpoint, size) => {
  if (endpoint !== cdc.outEndpoint) return;
  if (toPico.length) answerRead(endpoint, size);
  else heldRead = [endpoint, size];
};
function sendToPico(bytes) {
  toPico.push(...bytes);
  if (heldRead && toPico.length) {
    const [endpoint, size] = heldRead;
    heldRead = null;
    answerRead(endpoint, size);
  }
}

// ------------------------------------------------------------------ busy waits
// time.sleep_us on the rp2 port spins on the timer (mp_hal_delay_us: up to a
// millisecond as a loop of time_us_64 calls), which the emulator would run
// instruction by instruction.  A loop that reads the timer again and again
// with only a few instructions between is taken as waiting: from the
// SPIN_READS-th such read on, each read moves the clock SKIP_NS on, or to the
// next alarm if that is sooner (alarms and interrupts still come on time), so
// such a wait ends at most SKIP_NS late.
const SPIN_GAP = 64;                      // instructions between the reads of a spin
const SPIN_READS = 12;
const SKIP_NS = 4000;
let executed = 0;                         // instructions executed
// A skip to an alarm: what the loop waits for may have come, so the loop is
// let run on until it shows itself a spin again (a skip at once to the alarm
// after would run past the moment the CPU answers, a byte's end say).
function skipToAlarm(ns) {
  mcu.clock.tick(ns);
  spinReads = 0;
  i2cSpins = 0;
  spiSpins = 0;
}
let lastTimerRead = -1e9;
let spinReads = 0;
let skipped = 0;
let timerReads = 0;
const timer = mcu.peripherals[0x40054];
const timerRead = timer.readUint32.bind(timer);
timer.readUint32 = (offset) => {
  timerReads++;
  if (offset === 0x28) {                  // TIMERAWL, read once per time_us_64
    spinReads = executed - lastTimerRead < SPIN_GAP ? spinReads + 1 : 0;
    lastTimerRead = executed;
    if (spinReads >= SPIN_READS) {        // (no further than the next alarm: a bus's
      const next = mcu.clock.nanosToNextAlarm;  // byte ends on time)
      if (next > 0 && next < SKIP_NS) skipToAlarm(next);
      else mcu.clock.tick(SKIP_NS);
      skipped++;
    }
  }
  return timerRead(offset);
};

// The flash's status register polled while an erase or a program runs (45 ms
// a sector: the CPU, running from RAM with its interrupts off, reads it again
// and again): from the fourth read in a row the clock moves on to the
// operation's end, alarms firing on the way, as a spin on the timer does --
// but never past the end of the current run, so a power cut the host takes
// part of the way through an operation (run for a while, then save) still
// finds it under way.
const FLASH_SPIN_GAP = 512;               // instructions between the polls of a spin
const flashStatus = flash.status.bind(flash);
let lastStatusRead = -1e9;
let statusSpins = 0;
let runUntil = 0;                         // the current run's end (ns)
flash.status = () => {
  const left = Math.min(flash.opEnd(), runUntil) - mcu.clock.nanos;
  if (left > 0) {
    statusSpins = executed - lastStatusRead < FLASH_SPIN_GAP ? statusSpins + 1 : 0;
    lastStatusRead = executed;
    if (statusSpins >= 4) {
      mcu.clock.tick(Math.ceil(left));
      statusSpins = 0;
      skipped++;
    }
  }
  return flashStatus();
};

// ------------------------------------------------------------------ running
let profile = null;
let armed = null;                         // [kind, count]: stop when it begins
let cutPoint = false;
flash.onBegin = (cmd) => {
  if (!armed) return;
  const kind = cmd === 0x02 ? 'program' : cmd === 0x01 ? 'status' : 'erase';
  if (kind === armed[0] && --armed[1] <= 0) {
    armed = null;
    cutPoint = true;
  }
};                       // PC / 64 -> instructions executed there
function run(until, stopOnLine) {
  const { core, clock } = mcu;
  runUntil = until;
  lineSeen = false;
  cutPoint = false;
  while (clock.nanos < until && !(stopOnLine && lineSeen) && !cutPoint) {
    if (core.waiting) {
      const next = clock.nanosToNextAlarm;
      if (next <= 0 || clock.nanos + next > until) {
        clock.tick(until - clock.nanos);  // asleep until then: nothing else happens
      } else {
        clock.tick(next);
      }
    } else if (profile !== null || nsFraction !== 0 || !Number.isInteger(nsPerCycle)) {
      // an instruction on its own (the reference the bursts below must match)
      if (profile) profile.set(core.PC >>> 6, (profile.get(core.PC >>> 6) || 0) + 1);
      executed++;
      if (nsFraction === 0 && Number.isInteger(nsPerCycle)) {
        clock.tick(core.executeInstruction() * nsPerCycle);
      } else {
        tickCycles(core.executeInstruction());
      }
    } else {
      // whole nanoseconds a cycle (the usual case): a burst of up to 256
      // instructions, each step as above (the clock as the instruction leaves
      // it, its alarms due fired) but the clock moved in place when no alarm
      // falls due -- the same instructions at the same times (the same count
      // over a session), the emulator some 7 % faster
      const ns = nsPerCycle;
      let burst = 256;
      do {
        executed++;
        const cycles = core.executeInstruction();    // (it may move the clock: a skip)
        const target = clock.nanosCounter + cycles * nsPerCycle;   // (as it is now)
        const alarm = clock.nextAlarm;
        if (alarm !== null && alarm.nanos <= target) clock.tick(target - clock.nanosCounter);
        else clock.nanosCounter = target;
      } while (--burst > 0 && !core.waiting && clock.nanosCounter < until && !cutPoint
               && !(stopOnLine && lineSeen) && ns === nsPerCycle);
    }
  }
}

const commands = {
  run(args) {
    run(Number(args[0]), args[1] === 'line');
    return cutPoint ? 'cut' : '';
  },
  arm(args) { armed = [args[0], Number(args[1])]; return ''; },
  cdc(args) { sendToPico(Buffer.from(args[0] || '', 'hex')); return ''; },
  in(args) { mcu.gpio[Number(args[0])].setInputValue(args[1] === '1'); return ''; },
  watch(args) { args.forEach((p) => watch(Number(p))); return ''; },
  ack(args) { acking.clear(); args.forEach((a) => acking.add(Number(a))); return ''; },
  spidisplay(args) { spiDisplay(Number(args[0]), Number(args[1])); return ''; },
  ws2812(args) { decodeWs2812(Number(args[0])); return ''; },
  pwm(args) { reportPwm(Number(args[0])); return ''; },
  save(args) { fs.writeFileSync(args[0], flash.afterPowerCut()); return ''; },
  flash() { return JSON.stringify({ ...flash.counts, ...flash.state() }); },
  oplog(args) {
    if (args[0] === 'start') flash.log = [];
    else fs.writeFileSync(args[0], flash.logBytes());
    return '';
  },
  profile(args) {
    if (args[0] === 'on') { profile = new Map(); return ''; }
    const top = [...profile.entries()].sort((a, b) => b[1] - a[1]).slice(0, 25);
    return top.map(([k, v]) => `${(k << 6).toString(16)}:${v}`).join(' ');
  },
  stats() {
    return `${mcu.core.PC.toString(16)} ${mcu.core.waiting} ${timerReads} ${skipped} ${executed}`;
  },
  quit() { flush(); process.exit(0); },
};

for (;;) {
  const [name, ...args] = readLine().trim().split(' ');
  const command = commands[name];
  let reply;
  try {
    reply = command ? command(args) : `!unknown command ${name}`;
  } catch (e) {
    reply = `!${String(e && e.stack ? e.stack : e).replace(/\n/g, ' | ')}`;
  }
  tell(`D ${now()} ${reply}`);
  flush();
}
