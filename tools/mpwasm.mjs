#!/usr/bin/env node
// Run a script under the MicroPython WebAssembly port (32-bit) in Node.
//
//   node tools/mpwasm.mjs [--heapsize N[k|m]] [--cwd DIR] [--file HOST=VMPATH]...
//                         (-c CODE | [--] SCRIPT.py) [ARGS...]
//
// Every file under firmware/, tests/mp/ and host_sim/vm/ (except caches and dotfiles)
// is copied into the VM's in-memory filesystem at the same repo-relative path
// (/firmware/..., /tests/mp/...); the folders are on sys.path after the script's own.
// --file copies one more host file to an in-VM path (e.g. a record to replay).
// A SCRIPT inside the repo keeps its repo-relative path in the VM, others become
// /main.py. sys.argv is [SCRIPT, ARGS...], as under the unix port.
//
// Exit status: sys.exit(n) -> n; uncaught Python exception -> traceback on
// stderr and 1; runner or VM failure -> 2. The script runs inside a Python
// wrapper that catches everything and unlocks the heap first (an exception
// escaping to JS with micropython.heap_lock() held hangs the VM).
//
// Used by tools/mpvm.py (run_wasm); needs `npm ci` (python3 tools/dev.py setup).

import fs from "node:fs";
import path from "node:path";
import url from "node:url";

const ROOT = path.resolve(path.dirname(url.fileURLToPath(import.meta.url)), "..");
const PKG = "@micropython/micropython-webassembly-pyscript";
const VM_DIRS = ["firmware", "tests/mp", "host_sim/vm"];   // host_sim/vm: the NOR flash model
const SETUP_HINT = "run `python3 tools/dev.py setup` from the repository root";

function fail(msg) {
  fs.writeSync(2, `mpwasm: ${msg}\n`);
  process.exit(2);
}

function parseSize(s) {
  const m = /^(\d+)([kKmM]?)$/.exec(String(s));
  if (!m) fail(`bad --heapsize ${s} (use e.g. 256k, 2m or bytes)`);
  const mult = { "": 1, k: 1024, m: 1024 * 1024 }[m[2].toLowerCase()];
  return parseInt(m[1], 10) * mult;
}

function parseArgs(argv) {
  const opt = { heapsize: undefined, cwd: "/", files: [], code: null, script: null, args: [] };
  let i = 0;
  for (; i < argv.length; i++) {
    const a = argv[i];
    const next = () => {
      if (i + 1 >= argv.length) fail(`${a} needs a value`);
      return argv[++i];
    };
    if (a === "--heapsize") opt.heapsize = parseSize(next());
    else if (a === "--cwd") opt.cwd = next();
    else if (a === "--file") {
      const v = next();
      const eq = v.lastIndexOf("=");
      if (eq <= 0 || !v.slice(eq + 1).startsWith("/")) fail(`--file wants HOST=/vm/path, got ${v}`);
      opt.files.push([v.slice(0, eq), v.slice(eq + 1)]);
    } else if (a === "-c") {
      opt.code = next();
      i++;
      break;
    } else if (a === "--") {
      i++;
      break;
    } else if (a.startsWith("-")) fail(`unknown option ${a}`);
    else break;
  }
  if (opt.code === null) {
    if (i >= argv.length) fail("no script given (usage: mpwasm.mjs [options] SCRIPT [ARGS...])");
    opt.script = argv[i++];
  }
  opt.args = argv.slice(i);
  return opt;
}

// ------------------------------------------------------------------ MEMFS helpers

function vmMkdirs(FS, dir) {
  let cur = "";
  for (const part of dir.split("/").filter(Boolean)) {
    cur += "/" + part;
    if (!FS.analyzePath(cur).exists) FS.mkdir(cur);
  }
}

function vmWrite(FS, vmPath, data) {
  vmMkdirs(FS, path.posix.dirname(vmPath));
  FS.writeFile(vmPath, data);
}

function* walk(dir) {
  let entries;
  try {
    entries = fs.readdirSync(dir, { withFileTypes: true });
  } catch {
    return; // folder absent: nothing to copy
  }
  for (const e of entries.sort((a, b) => (a.name < b.name ? -1 : 1))) {
    if (e.name.startsWith(".") || e.name === "__pycache__") continue;
    const p = path.join(dir, e.name);
    if (e.isDirectory()) yield* walk(p);
    else if (e.isFile() && !/\.(pyc|mpy)$/.test(e.name)) yield p;
  }
}

function toVmPath(hostPath) {
  const rel = path.relative(ROOT, path.resolve(hostPath));
  if (rel.startsWith("..") || path.isAbsolute(rel)) return null;
  return "/" + rel.split(path.sep).join("/");
}

// ------------------------------------------------------------------ Python wrapper

// JSON strings/arrays of strings are valid Python literals.
const py = (v) => JSON.stringify(v);

function wrapper(script, argv, sysPath, cwd) {
  return `
def _mpwasm_unlock(micropython):
    # Undo every heap_lock() still held. There is no heap_locked() in this
    # port and unlocking an unlocked heap corrupts the lock depth, so probe
    # with a tiny allocation: it fails only while the heap is locked.
    n = 0
    while n < 10000:
        try:
            probe = [n]
        except MemoryError:
            micropython.heap_unlock()
            n += 1
            continue
        return n
    return n

def _mpwasm_main():
    import sys, os, micropython
    sys.argv.clear()
    sys.argv.extend(${py(argv)})
    sys.path.clear()
    sys.path.extend(${py(sysPath)})
    os.chdir(${py(cwd)})
    g = {"__name__": "__main__", "__file__": ${py(script)}}
    rc = 0
    try:
        execfile(${py(script)}, g)
    except SystemExit as e:
        _mpwasm_unlock(micropython)
        code = e.args[0] if e.args else None
        if code is None:
            rc = 0
        elif isinstance(code, int):
            rc = code
        else:
            print(code, file=sys.stderr)
            rc = 1
    except BaseException as e:
        _mpwasm_unlock(micropython)
        sys.print_exception(e, sys.stderr)
        rc = 1
    finally:
        _mpwasm_unlock(micropython)
    return rc

_mpwasm_rc = _mpwasm_main()
`;
}

// ------------------------------------------------------------------ main

function makeSink(fd) {
  let buf = [];
  const flush = () => {
    if (buf.length) {
      try {
        fs.writeSync(fd, Buffer.from(buf));
      } catch {
        // reader went away (EPIPE): drop output
      }
      buf = [];
    }
  };
  const put = (bytes) => {
    for (const b of bytes) {
      buf.push(b);
      if (b === 10 || buf.length >= 4096) flush();
    }
  };
  return { put, flush };
}

async function main() {
  const opt = parseArgs(process.argv.slice(2));
  const pkgFile = path.join(ROOT, "node_modules", ...PKG.split("/"), "micropython.mjs");
  if (!fs.existsSync(pkgFile)) fail(`${PKG} is not installed in ${ROOT}/node_modules: ${SETUP_HINT}`);
  const { loadMicroPython } = await import(url.pathToFileURL(pkgFile).href);

  const out = makeSink(1);
  const err = makeSink(2);
  const mpOptions = { stdout: (b) => out.put(b), stderr: (b) => err.put(b), linebuffer: false };
  if (opt.heapsize !== undefined) mpOptions.heapsize = opt.heapsize; // undefined would crash it
  const mp = await loadMicroPython(mpOptions);
  const FS = mp.FS;

  for (const d of VM_DIRS) {
    for (const host of walk(path.join(ROOT, d))) vmWrite(FS, toVmPath(host), fs.readFileSync(host));
  }
  for (const [host, vm] of opt.files) {
    if (!fs.existsSync(host)) fail(`--file: no such file ${host}`);
    vmWrite(FS, vm, fs.readFileSync(host));
  }

  let vmScript;
  if (opt.code !== null) {
    vmScript = "/main.py";
    vmWrite(FS, vmScript, opt.code);
  } else {
    if (!fs.existsSync(opt.script)) fail(`no such script ${opt.script}`);
    vmScript = toVmPath(opt.script) ?? "/main.py";
    vmWrite(FS, vmScript, fs.readFileSync(opt.script));
  }
  const scriptDir = path.posix.dirname(vmScript);
  const sysPath = [scriptDir, ...VM_DIRS.map((d) => "/" + d), ".frozen", "/lib"].filter(
    (p, i, all) => all.indexOf(p) === i,
  );

  let rc;
  try {
    mp.runPython(wrapper(vmScript, [vmScript, ...opt.args], sysPath, opt.cwd));
    rc = mp.globals.get("_mpwasm_rc");
  } catch (e) {
    out.flush();
    err.flush();
    fail(`the VM failed outside the script: ${e && e.name === "PythonError" ? e.message : e?.stack ?? e}`);
  }
  out.flush();
  err.flush();
  process.exit(Number.isInteger(rc) ? rc & 0xff : 2);
}

main().catch((e) => fail(`runner crashed: ${e?.stack ?? e}`));
