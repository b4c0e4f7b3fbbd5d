// A MicroPython "board" for mpremote without hardware: real MicroPython 1.27 (WebAssembly) speaking
// the raw REPL protocol on stdin/stdout. The test relays a pseudo-terminal to it, so mpremote talks to
// it exactly as to a USB board: enter raw REPL (Ctrl-A), soft reset (Ctrl-D), run code (text + Ctrl-D,
// answered with OK, output, \x04, errors, \x04, >), leave (Ctrl-B). Raw-paste mode is declined.
// Its filesystem starts empty (like a freshly flashed board) and lives as long as the process.
// usage: node fake_board.mjs
import path from "node:path";
import url from "node:url";

const here = path.dirname(url.fileURLToPath(import.meta.url));
const { loadMicroPython } = await import(
  path.join(here, "..", "micropython", "node_modules", "@micropython", "micropython-webassembly-pyscript",
            "micropython.mjs"));

let captured = "";
const text = (t) => typeof t === "number" ? String.fromCharCode(t)
  : typeof t === "string" ? t : Buffer.from(t).toString("latin1");
const mp = await loadMicroPython({ stdout: (t) => { captured += text(t); }, stderr: (t) => { captured += text(t); },
                                   linebuffer: false, heapsize: 4 * 1024 * 1024 });
// The WebAssembly port reports Emscripten errno values; a board (and mpremote) uses the usual ones.
const ERRNO = { 44: 2, 20: 17, 54: 20, 31: 21, 55: 39, 28: 22, 2: 13 };
const boardErrno = (msg) => msg.replace(/OSError: (?:\[Errno )?(\d+)\]?/g,
  (m, n) => "OSError: " + (ERRNO[n] !== undefined ? ERRNO[n] : n));
// machine.reset() for `mpremote reset`; kept out of the board's own /lib
try { mp.FS.mkdir("/fakeboard"); } catch (e) { /* exists */ }
mp.FS.writeFile("/fakeboard/machine.py", "def reset():\n    pass\n");
try { mp.FS.mkdir("/lib"); } catch (e) { /* exists */ }
mp.runPython("import sys, os\nos.chdir('/')\nsys.path[:] = ['', '.frozen', '/lib', '/fakeboard']\n");

const out = (s) => process.stdout.write(Buffer.from(s, "latin1"));
let mode = "friendly";   // or "raw"
let buf = [];
let pasteProbe = 0;      // bytes of "\x05A\x01" seen

function run(code) {
  captured = "";
  let err = "";
  try {
    mp.runPython(code);
  } catch (e) {
    err = boardErrno(String(e && e.message ? e.message : e));
  }
  out("OK" + captured + "\x04" + err + "\x04>");
}

process.stdin.on("data", (chunk) => {
  for (const byte of chunk) {
    if (mode === "raw" && pasteProbe > 0) {
      pasteProbe = (pasteProbe === 1 && byte === 0x41) ? 2 : (pasteProbe === 2 && byte === 0x01) ? 3 : 0;
      if (pasteProbe === 3) { out("R\x00"); pasteProbe = 0; }
      continue;
    }
    if (byte === 0x01) { mode = "raw"; buf = []; out("\r\nraw REPL; CTRL-B to exit\r\n>"); continue; }
    if (mode === "friendly") {
      if (byte === 0x03) out("\r\n>>> ");
      continue;
    }
    if (byte === 0x02) { mode = "friendly"; buf = []; out("\r\nMicroPython (fake board)\r\n>>> "); continue; }
    if (byte === 0x03) { buf = []; continue; }
    if (byte === 0x05 && buf.length === 0) { pasteProbe = 1; continue; }
    if (byte === 0x04) {
      if (buf.length === 0) {
        out("OK\r\nMPY: soft reboot\r\nraw REPL; CTRL-B to exit\r\n>");
      } else {
        const code = Buffer.from(buf).toString("utf8");
        buf = [];
        run(code);
      }
      continue;
    }
    buf.push(byte);
  }
});
process.stdin.on("end", () => process.exit(0));
