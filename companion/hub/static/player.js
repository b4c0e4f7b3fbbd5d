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

// A join link's token never stays in the address bar (the hub redirects a valid one away; a wrong one
// is shown with a notice): drop it so it is not bookmarked or shared by accident.
if (new URLSearchParams(location.search).has("t")) {
  const clean = new URL(location.href);
  clean.searchParams.delete("t");
  history.replaceState(null, "", clean.pathname + clean.search + clean.hash);
}

function canAct() { return ACCESS.role !== "spectator"; }

async function send(url, body) {
  if (!canAct()) { showRefusal(t("This page can only watch: to play, scan your QR code on the host's screen")); return; }
  try {
    const res = await hubSend(url, body || {});
    const data = await res.json();
    if (res.status === 403) watchOnly();  // the code was revoked or replaced: this page only watches now
    if (!data.ok) showRefusal(tSentence(data.error));
  } catch (err) {
    showRefusal(t("The hub cannot be reached; your tap was not sent."));
  }
}

function watchOnly() {
  ACCESS.role = "spectator";
  ACCESS.token = "";
  document.body.dataset.role = "spectator";
  if (snap) { renderMenu(); renderView(); render(); }
}

function showRefusal(text) {
  const box = document.getElementById("refusal");
  box.textContent = text || "";
  box.hidden = !text;
}

const TIMER_PHASES = { idle: t("idle"), running: t("running"), empty: t("empty") };

function renderTimers() {
  const root = document.getElementById("timers");
  root.textContent = "";
  const paused = snap.table.clock.phase === "paused";
  for (const timer of snap.timers) {
    let upper = timer.upper_s;
    if (timer.phase === "running" && !paused) upper = Math.max(0, timer.upper_s - (hubNow() - snap.table.now_s));
    const phase = timer.phase === "running" && upper <= 0 ? "empty" : timer.phase;
    const box = el("div", "timer " + phase + (timer.refused ? " refused" : ""));
    box.dataset.node = timer.node;
    box.append(el("div", "", t("Timer {index}", { index: timer.index })),
               el("div", "big", timer.refused ? t("refused") : phase === "running" ? Math.ceil(upper) + " s"
                 : TIMER_PHASES[phase] || phase),
               el("div", "on", timer.label || ""),
               el("div", "", timer.online ? t("online") : t("offline")));
    if (simulated && canAct()) {
      const b = el("button", "flip", t("Flip"));
      b.addEventListener("click", () => send("/api/sim/" + timer.node + "/flip"));
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
      b.disabled = !canAct();
      b.addEventListener("click", () => {
        if (item.action) send("/api/players/" + me + "/action", { action: item.action });
        else if (item.intent) send("/api/players/" + me + "/intent", { node: item.intent.node, intent: item.intent });
      });
      row.append(b);
    }
    root.append(row);
  }
}

function renderView() {
  renderPanels(document.getElementById("view"), snap.view,
               canAct() ? (action) => send("/api/players/" + me + "/action", { action }) : null);
}

function render() {
  if (!snap) return;
  renderTimers();
}

function connect() {
  const link = document.getElementById("link");
  const source = new EventSource("/api/stream?player=" + encodeURIComponent(me));
  source.addEventListener("open", () => { link.textContent = t("live"); });
  source.addEventListener("error", () => {
    link.textContent = t("reconnecting…");
    // the browser gives up after an HTTP error (e.g. too many pages open): try again in a while
    if (source.readyState === EventSource.CLOSED) setTimeout(connect, 5000);
  });
  source.addEventListener("state", (e) => {
    snap = JSON.parse(e.data);
    received = performance.now();
    const palette = RING_PALETTE;
    window.PLAYER_COLOURS = Object.fromEntries(snap.table.players.map((p) => [p.name, palette[p.colour] || "#888"]));
    const mine = snap.table.players.find((p) => p.name === me);
    if (mine) document.querySelector(".badge").style.background = palette[mine.colour] || "";
    showRefusal(snap.refusal ? tSentence(snap.refusal.reason) : "");
    renderMenu();
    renderView();
    renderScores(document.getElementById("scores"), snap.table.scores, snap.table.explanation);
    render();
  });
}

connect();
setInterval(render, 200);
