// Applies the changes the hub sends between two live snapshots (companion/table/deltas.py):
// ["set", path, value], ["del", path], ["splice", path, start, removed, items]. The result is a new
// object; the snapshot given is not changed.
"use strict";

function applyDelta(value, ops) {
  let out = structuredClone(value);
  for (const op of ops) {
    const [kind, path] = op;
    if (kind === "splice") {
      let target = out;
      for (const step of path) target = target[step];
      target.splice(op[2], op[3], ...structuredClone(op[4]));
      continue;
    }
    if (path.length === 0) {
      if (kind !== "set") throw new Error("only 'set' and 'splice' apply to the whole value");
      out = structuredClone(op[2]);
      continue;
    }
    let parent = out;
    for (const step of path.slice(0, -1)) parent = parent[step];
    const last = path[path.length - 1];
    if (kind === "set") parent[last] = structuredClone(op[2]);
    else if (kind === "del") delete parent[last];
    else throw new Error("unknown operation " + kind);
  }
  return out;
}

// A live snapshot kept up to date from a stream's "state" (whole) and "delta" (changes) events:
// onState(snapshot) is called with the new whole snapshot after either. The SSE id of each frame names
// it; a delta says which frame it follows ("from"). One that does not follow the last frame seen (which
// the hub never sends) closes the stream and calls reconnect() for a whole state.
function liveSnapshot(source, onState, reconnect) {
  let current = null;
  let frame = null;
  source.addEventListener("state", (e) => {
    current = JSON.parse(e.data);
    frame = e.lastEventId;
    onState(current);
  });
  source.addEventListener("delta", (e) => {
    const delta = JSON.parse(e.data);
    if (current === null || String(delta.from) !== frame) {
      source.close();
      if (reconnect) reconnect();
      return;
    }
    current = applyDelta(current, delta.ops);
    frame = e.lastEventId;
    onState(current);
  });
}
