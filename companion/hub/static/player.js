// A player's phone page: my timers, one-tap choices, my part of the game, refusals in red.
"use strict";
const me = document.body.dataset.player;
const simulated = document.body.dataset.simulated === "true";
let snap = null;
let received = 0;

function hubNow() {
  return snap ? snap.table.now_s + (performance.now() - received) / 1000 * snap.table.time_scale : 0;
}

function fmt(seconds) {
  const s = Math.max(0, Math.ceil(seconds));
  return String(Math.floor(s / 60)).padStart(2, "0") + ":" + String(s % 60).padStart(2, "0");
}

async function send(url, body) {
  try {
    const res = await fetch(url, { method: "POST", headers: { "Content-Type": "application/json" },
                                   body: JSON.stringify(body || {}) });
    const data = await res.json();
    if (!data.ok) showRefusal(data.error);
  } catch (err) {
    showRefusal("The hub cannot be reached; your tap was not sent.");
  }
}

function showRefusal(text) {
  const box = document.getElementById("refusal");
  box.textContent = text || "";
  box.hidden = !text;
}

function renderTimers() {
  const root = document.getElementById("timers");
  root.textContent = "";
  const paused = snap.table.clock.phase === "paused";
  for (const t of snap.timers) {
    let upper = t.upper_s;
    if (t.phase === "running" && !paused) upper = Math.max(0, t.upper_s - (hubNow() - snap.table.now_s));
    const phase = t.phase === "running" && upper <= 0 ? "empty" : t.phase;
    const box = el("div", "timer " + phase + (t.refused ? " refused" : ""));
    box.dataset.node = t.node;
    box.append(el("div", "", "Timer " + t.index),
               el("div", "big", t.refused ? "refused" : phase === "running" ? Math.ceil(upper) + " s" : phase),
               el("div", "", t.online ? "online" : "offline"));
    if (simulated) {
      const b = el("button", "flip", "Flip");
      b.addEventListener("click", () => send("/api/sim/" + t.node + "/flip"));
      box.append(b);
    }
    root.append(box);
  }
  const c = snap.table.clock;
  const remaining = c.phase === "running" ? Math.max(0, c.remaining_s - (hubNow() - snap.table.now_s)) : c.remaining_s;
  document.getElementById("clock").textContent = fmt(remaining);
}

function renderMenu() {
  const root = document.getElementById("menu");
  root.textContent = "";
  const groups = new Map();
  for (const item of snap.menu) {
    if (!groups.has(item.group)) groups.set(item.group, []);
    groups.get(item.group).push(item);
  }
  for (const [group, items] of groups) {
    root.append(el("h2", "", group));
    const row = el("div", "options");
    for (const item of items) {
      const b = el("button", item.selected ? "selected" : "", item.label);
      b.dataset.id = item.id;
      b.addEventListener("click", () => {
        if (item.action) send("/api/players/" + me + "/action", { action: item.action });
        else if (item.intent) send("/api/players/" + me + "/intent", { node: item.intent.node, intent: item.intent });
      });
      row.append(b);
    }
    root.append(row);
  }
}

function render() {
  if (!snap) return;
  renderTimers();
}

function connect() {
  const link = document.getElementById("link");
  const source = new EventSource("/api/stream?player=" + encodeURIComponent(me));
  source.addEventListener("open", () => { link.textContent = "live"; });
  source.addEventListener("error", () => { link.textContent = "reconnecting…"; });
  source.addEventListener("state", (e) => {
    snap = JSON.parse(e.data);
    received = performance.now();
    showRefusal(snap.refusal ? snap.refusal.reason : "");
    renderMenu();
    renderPanels(document.getElementById("view"), snap.view,
                 (action) => send("/api/players/" + me + "/action", { action }));
    renderScores(document.getElementById("scores"), snap.table.scores, snap.table.explanation);
    render();
  });
}

connect();
setInterval(render, 200);
