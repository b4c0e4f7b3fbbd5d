// Runs a Python file under MicroPython (WebAssembly build) with the repo's node core on its path.
// usage: node run.mjs SCRIPT.py [MODULE_DIR...]
// Each MODULE_DIR (relative to the repo root) is copied into /lib keeping its path, so
// `companion/core` becomes importable as `companion.core`; every package on the way gets an
// empty __init__.py (the hub-side package __init__ files are not needed on a node).
import { loadMicroPython } from "@micropython/micropython-webassembly-pyscript";
import fs from "node:fs";
import path from "node:path";
import url from "node:url";

const here = path.dirname(url.fileURLToPath(import.meta.url));
const repo = path.resolve(here, "..", "..");
const [script, ...moduleDirs] = process.argv.slice(2);
if (!script) {
  console.error("usage: node run.mjs SCRIPT.py [MODULE_DIR...]");
  process.exit(2);
}

let output = "";
const mp = await loadMicroPython({ stdout: (t) => { output += t; process.stdout.write(t); },
                                   stderr: (t) => { output += t; process.stderr.write(t); },
                                   linebuffer: false, heapsize: 4 * 1024 * 1024 });
const FS = mp.FS;

function ensureDir(dir) {
  const parts = dir.split("/").filter(Boolean);
  let cur = "";
  for (const part of parts) {
    cur += "/" + part;
    try { FS.mkdir(cur); } catch (e) { /* exists */ }
  }
}

for (const rel of moduleDirs) {
  const src = path.join(repo, rel);
  const dest = "/lib/" + rel;
  ensureDir(dest);
  // empty package markers on the way down (companion/__init__.py on the hub imports nothing we need)
  const parts = rel.split("/");
  for (let i = 1; i < parts.length; i++) {
    const pkg = "/lib/" + parts.slice(0, i).join("/") + "/__init__.py";
    try { FS.stat(pkg); } catch (e) { FS.writeFile(pkg, ""); }
  }
  for (const name of fs.readdirSync(src)) {
    if (name.endsWith(".py")) FS.writeFile(dest + "/" + name, fs.readFileSync(path.join(src, name)));
  }
}

const code = fs.readFileSync(path.resolve(script), "utf8");
try {
  mp.runPython("import sys\nsys.path.insert(0, '/lib')\n");
  mp.runPython(code);
} catch (err) {
  console.error(String(err && err.message ? err.message : err));
  process.exit(1);
}
