// Two of rp2040js's hot paths made faster without changing what it emulates:
// the instruction decoder as a jump table, and stores to SRAM (`speedUp`).
//
// CortexM0Core.executeInstruction (rp2040js 1.4.1) decodes an instruction by
// testing it against about 85 encodings one after the other, in alphabetical
// order; a load or a store, the most common instructions MicroPython's
// bytecode loop runs, is tested against some fifty encodings first.  That
// search is a third of the emulator's time.
//
// `fastExecuteInstruction()` returns the same method rewritten: its source is
// taken from the installed package, and the chain `if (A) {..} else if (B)
// {..} ...` becomes a `switch` whose cases hold the same conditions and
// bodies in the same order, falling through from one to the next:
//
//     switch (first[opcode]) { case 0: if (A) {..; break} case 1: if (B) ... }
//
// `first[opcode]` is where the chain's search would first be able to succeed:
// every condition before it is false for that opcode (worked out once per
// opcode, from the parts of each condition that depend on the opcode alone;
// a part that also reads the second half-word of a 32-bit instruction or the
// core's state counts as possibly true).  So each instruction runs exactly the
// body the chain would have chosen, with the same cycle count: the
// emulation is unchanged, only the search is skipped.
//
// The rewritten module is a copy of the package's cortex-m0-core.js in the
// temporary directory, importing its neighbours from the package itself, so
// the method sees the same constants and helpers.  If the source does not
// have the shape expected, the package's own method is kept (nothing breaks,
// it is only slower) and the reason is given.
import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const CHAIN_START = '        let deltaCycles = 1;';
const CHAIN_END = '        this.cycles += deltaCycles;';

// The condition's parts joined by a top-level `&&` (the whole condition when
// it has a top-level `||`).
function conjuncts(cond) {
  const parts = [];
  let depth = 0;
  let start = 0;
  for (let i = 0; i < cond.length; i++) {
    const c = cond[i];
    if (c === '(') depth++;
    else if (c === ')') depth--;
    else if (depth === 0 && cond.startsWith('||', i)) return [cond];
    else if (depth === 0 && cond.startsWith('&&', i)) {
      parts.push(cond.slice(start, i));
      start = i + 2;
      i++;
    }
  }
  parts.push(cond.slice(start));
  return parts.map((p) => p.trim());
}

// The chain of `if (cond) {` ... `}` `else if (cond) {` ... `else {` ... `}`
// at eight spaces of indent: [{cond, body}], the final else's body.
function parseChain(lines) {
  const cases = [];
  let elseBody = null;
  let current = null;
  for (const line of lines) {
    if (current !== null) {
      if (line === '        }') {
        if (current.cond === null) elseBody = current.body;
        else cases.push(current);
        current = null;
      } else {
        current.body.push(line);
      }
      continue;
    }
    const m = /^        (?:else )?if \((.*)\) \{$/.exec(line);
    if (m) current = { cond: m[1], body: [] };
    else if (line === '        else {') current = { cond: null, body: [] };
    else if (!/^\s*(\/\/.*)?$/.test(line)) throw new Error(`unexpected line: ${line}`);
  }
  if (current !== null || elseBody === null || cases.length < 50) {
    throw new Error('the decoder chain does not have the expected shape');
  }
  return { cases, elseBody };
}

function rewrite(source) {
  const lines = source.split('\n');
  const start = lines.indexOf('    executeInstruction() {');
  const chainStart = lines.indexOf(CHAIN_START, start);
  const chainEnd = lines.indexOf(CHAIN_END, chainStart);
  if (start < 0 || chainStart < 0 || chainEnd < 0) {
    throw new Error('executeInstruction has changed');
  }
  const { cases, elseBody } = parseChain(lines.slice(chainStart + 1, chainEnd));
  const out = [];
  out.push('        const __first = __FIRST[opcode] !== 255 ? __FIRST[opcode] : __firstCase(opcode);');
  out.push('        __chain: switch (__first) {');
  cases.forEach((c, i) => {
    out.push(`        case ${i}: if (${c.cond}) {`, ...c.body, '            break __chain;', '        }');
  });
  out.push(`        default: {`, ...elseBody, '        }', '        }');
  // For each case, its opcode-only parts, as functions of the opcode.
  const tests = cases.map((c) => {
    const known = conjuncts(c.cond).filter((p) => !/\bopcode2\b|\bthis\b/.test(p));
    return known.length ? `(opcode) => (${known.join(') && (')})` : 'null';
  });
  const table = [
    `const __FIRST = new Uint8Array(65536).fill(255);`,
    `const __TESTS = [${tests.join(', ')}];`,
    `function __firstCase(opcode) {`,
    `  let i = 0;`,
    `  for (; i < __TESTS.length; i++) {`,
    `    const test = __TESTS[i];`,
    `    let possible = true;`,
    `    try { possible = test === null || test(opcode); } catch (e) { possible = true; }`,
    `    if (possible) break;`,
    `  }`,
    `  __FIRST[opcode] = i;`,
    `  return i;`,
    `}`,
  ];
  if (cases.length >= 255) throw new Error('too many encodings for the table');
  return [...lines.slice(0, chainStart + 1), ...out, ...lines.slice(chainEnd), ...table]
    .join('\n');
}

async function fastExecuteInstruction() {
  const index = fileURLToPath(import.meta.resolve('rp2040js'));
  const dir = path.dirname(index);
  const corePath = path.join(dir, 'cortex-m0-core.js');
  const source = fs.readFileSync(corePath, 'utf8');
  let code = rewrite(source);
  // its neighbours, imported from the package
  code = code.replace(/from '\.\/([^']+)'/g, (_m, file) => `from '${pathToFileURL(path.join(dir, file)).href}'`);
  const hash = crypto.createHash('sha256').update(code).digest('hex').slice(0, 16);
  const file = path.join(os.tmpdir(), `tapp-rp2040js-core-${hash}.mjs`);
  if (!fs.existsSync(file)) {
    const tmp = `${file}.${process.pid}`;
    fs.writeFileSync(tmp, code);
    fs.renameSync(tmp, file);
  }
  const mod = await import(pathToFileURL(file).href);
  return mod.CortexM0Core.prototype.executeInstruction;
}

// RP2040.writeUint32 looks the address up among the peripherals before it
// tries memory, so every 32-bit store to SRAM (most stores MicroPython makes)
// pays a failed lookup in a sparse table.  No peripheral lies in SRAM's
// range (checked here), so a store there goes straight to SRAM as the
// package's own SRAM branch does.
function fastSramWrites(mcu) {
  const start = 0x20000000;
  const end = start + mcu.sram.length;
  const keys = Object.keys(mcu.peripherals).map(Number);
  if (keys.some((k) => k >= (start >>> 14) << 2 && k <= ((end - 1) >>> 14) << 2)) {
    throw new Error('a peripheral in the SRAM range');
  }
  const write = mcu.writeUint32;
  const view = mcu.sramView;
  mcu.writeUint32 = function writeUint32(address, value) {
    const a = address >>> 0;
    if (a >= start && a + 3 < end) view.setUint32(a - start, value, true);
    else write.call(this, address, value);
  };
}

// Both, on `mcu` (an RP2040); what cannot be applied is left as the package
// has it, and the reason returned (for the emulator's stderr).
export async function speedUp(mcu) {
  const notes = [];
  try {
    mcu.core.executeInstruction = await fastExecuteInstruction();
  } catch (e) {
    notes.push(`rp2040js's own decoder kept: ${e.message}`);
  }
  try {
    fastSramWrites(mcu);
  } catch (e) {
    notes.push(`rp2040js's own SRAM writes kept: ${e.message}`);
  }
  return notes;
}
