// Live dashboard: one Server-Sent Events stream; sand is drawn between frames from the hub's clock.
"use strict";
const COLOURS = { red: "#e74c3c", yellow: "#f1c40f", green: "#2ecc71", blue: "#3498db", purple: "#9b59b6",
                  orange: "#e67e22", white: "#ecf0f1", black: "#7f8c8d" };
const simulated = document.body.dataset.simulated === "true";
let snapshot = null;
let received = 0;  // performance.now() when the snapshot arrived

function hubNow() {
  if (!snapshot) return 0;
  return snapshot.now_s + (performance.now() - received) / 1000 * snapshot.time_scale;
}

function fmtClock(seconds) {
  const s = Math.max(0, Math.ceil(seconds));
  return String(Math.floor(s / 60)).padStart(2, "0") + ":" + String(s % 60).padStart(2, "0");
}

function clockRemaining() {
  const c = snapshot.clock;
  if (c.phase !== "running") return c.remaining_s;
  return Math.max(0, c.remaining_s - (hubNow() - snapshot.now_s));
}

function timerUpper(timer) {
  if (timer.phase !== "running" || snapshot.clock.phase === "paused") return timer.upper_s;
  return Math.max(0, timer.upper_s - (hubNow() - snapshot.now_s));
}

const PHASE_NAMES = { ready: t("ready to start"), running: t("running"), paused: t("paused"),
                      expired: t("time is up"), aborted: t("game ended") };
const TIMER_PHASES = { idle: t("idle"), running: t("running"), empty: t("empty") };
// Why the hub has no broker, as companion/mqtt/bridge.py words it; listed so the catalogs carry them
// and tSentence() can translate the reason the hub sends.
const BROKER_REASONS = [t("lost the connection to the broker at {address}"), t("cannot reach the broker at {address}"),
                        t("the broker at {address} refused the hub: {reason}")];
const CUE_LABELS = { start: t("start"), remaining: t("remaining"), warning: t("warning"), countdown: t("countdown"),
                     end: t("end"), chime: t("chime"), buzz: t("buzz") };

function buildPlayers() {
  const root = document.getElementById("players");
  root.textContent = "";
  const tpl = document.getElementById("timer-template");
  for (const p of snapshot.players) {
    const card = document.createElement("div");
    card.className = "player";
    card.style.setProperty("--colour", COLOURS[p.colour] || COLOURS[p.name] || "#888");
    const h = document.createElement("h2");
    const badge = document.createElement("span");
    badge.className = "badge";
    badge.textContent = p.name[0].toUpperCase();
    const link = document.createElement("a");
    link.href = "/play/" + encodeURIComponent(p.name);
    link.textContent = p.name;
    link.title = t("Open {player}'s phone page", { player: p.name });
    h.append(badge, link);
    const timers = document.createElement("div");
    timers.className = "timers";
    for (const timer of p.timers) {
      const el = tpl.content.firstElementChild.cloneNode(true);
      el.dataset.node = timer.node;
      el.querySelector(".timer-label").textContent = t("Timer {index}", { index: timer.index });
      const restart = el.querySelector(".restart");
      restart.hidden = ACCESS.role !== "host";
      restart.addEventListener("click", () => {
        const question = t("Restart the node of {player} timer {index}?", { player: p.name, index: timer.index });
        if (window.confirm(question)) post("/api/nodes/" + timer.node + "/restart");
      });
      const flip = el.querySelector(".flip");
      if (simulated && ACCESS.role === "host") {
        flip.hidden = false;
        flip.addEventListener("click", () => post("/api/sim/" + timer.node + "/flip"));
      }
      timers.append(el);
    }
    card.append(h, timers);
    root.append(card);
  }
}

function render() {
  if (!snapshot) return;
  const remaining = clockRemaining();
  const clock = document.getElementById("clock");
  clock.textContent = fmtClock(remaining);
  clock.classList.toggle("low", remaining <= 60 && snapshot.clock.phase === "running");
  document.getElementById("clock-phase").textContent = PHASE_NAMES[snapshot.clock.phase] || snapshot.clock.phase;
  for (const p of snapshot.players) {
    for (const timer of p.timers) {
      const el = document.querySelector('.timer[data-node="' + timer.node + '"]');
      if (!el) continue;
      const upper = timerUpper(timer);
      const phase = timer.phase === "running" && upper <= 0 ? "empty" : timer.phase;
      el.className = "timer " + phase + (timer.refused ? " refused" : "");
      el.querySelector(".sand").style.height = (100 * upper / timer.sand_s).toFixed(1) + "%";
      el.querySelector(".timer-state").textContent =
        timer.refused ? t("refused") : phase === "running" ? Math.ceil(upper) + " s" : TIMER_PHASES[phase] || phase;
      el.title = timer.refused ? tSentence(timer.refused) : "";
      el.querySelector(".timer-on").textContent = timer.label || "";
      const ns = el.querySelector(".node-state");
      ns.textContent = (timer.online ? t("online") : t("offline")) +
        (timer.battery_mv ? " · " + (timer.battery_mv / 1000).toFixed(2) + " V" : "");
      ns.classList.toggle("offline", !timer.online);
      const link = (snapshot.nodes || []).find((n) => n.node === timer.node);
      const dropped = el.querySelector(".node-dropped");
      dropped.hidden = !(link && link.dropped > 0);
      dropped.textContent = dropped.hidden ? "" : t("lost {count} buffered events", { count: link.dropped });
    }
  }
  renderBroker();
}

function fmtDuration(seconds) {
  const s = Math.max(0, Math.floor(seconds));
  return s < 60 ? s + " s" : Math.floor(s / 60) + " min " + (s % 60) + " s";
}

// The hub's connection to its broker: a banner while it is away (with the reason and since when).
function renderBroker() {
  const broker = snapshot.broker || {};
  const away = broker.online === false;
  const banner = document.getElementById("broker-banner");
  banner.hidden = !away;
  document.body.classList.toggle("no-broker", away);
  const state = document.getElementById("broker-state");
  state.hidden = broker.online === null || broker.online === undefined;
  state.textContent = away ? t("broker offline") : t("broker online");
  state.classList.toggle("offline", away);
  if (!away) return;
  document.getElementById("broker-detail").textContent = tSentence(broker.detail || "");
  if (broker.since_s === null || broker.since_s === undefined) return;
  const ago = (hubNow() - broker.since_s) / (snapshot.time_scale || 1);  // real seconds
  const since = new Date(Date.now() - ago * 1000);
  document.getElementById("broker-since").textContent = t("since {time} ({duration})", {
    time: since.toLocaleTimeString(document.documentElement.lang || undefined),
    duration: fmtDuration(ago),
  });
}

function renderLists() {
  const list = document.getElementById("recent");
  list.textContent = "";
  for (const e of snapshot.recent.slice(0, 15)) {
    const li = document.createElement("li");
    li.textContent = tSentence(e.text);
    if (e.type === "FlipRefused") li.className = "refused";
    list.append(li);
  }
  document.getElementById("rejected").textContent = snapshot.stats.counts.rejected || 0;
}

async function post(url) {
  const msg = document.getElementById("message");
  try {
    const res = await hubSend(url);
    const body = await res.json();
    msg.textContent = body.ok ? "" : tSentence(body.error);
  } catch (err) {
    msg.textContent = t("The hub cannot be reached.");
  }
}

document.getElementById("undo").addEventListener("click", async () => {
  const preview = await (await fetch("/api/undo")).json();
  const msg = document.getElementById("message");
  if (!preview.ok) { msg.textContent = t("There is no accepted action to undo."); return; }
  if (!window.confirm(t("Undo: {action}?", { action: tSentence(preview.undo) }))) return;
  const res = await hubSend("/api/undo", { confirm: true });
  const body = await res.json();
  msg.textContent = body.ok ? "" : tSentence(body.error);
});

for (const b of document.querySelectorAll("[data-clock]")) {
  b.addEventListener("click", () => post("/api/clock/" + b.dataset.clock));
}

// --- audio cues: Web Audio after one tap, the browser's speech when the hub has none -----
const audio = { ctx: null, buffers: new Map(), speech: true, played: [] };
window.__companionCues = audio.played;

async function loadAudioSettings() {
  try {
    const res = await fetch("/api/audio");
    if (!res.ok) return;
    const info = await res.json();
    audio.speech = info.speech;
    const root = document.getElementById("cue-switches");
    root.textContent = "";
    for (const name of info.cues) {
      const label = document.createElement("label");
      const box = document.createElement("input");
      box.type = "checkbox";
      box.checked = !info.disabled.includes(name);
      box.dataset.cue = name;
      box.addEventListener("change", saveCueSwitches);
      label.append(box, " " + (CUE_LABELS[name] || name));
      root.append(label);
    }
  } catch (err) { /* audio settings are optional */ }
}

async function saveCueSwitches() {
  const disabled = [...document.querySelectorAll("#cue-switches input")].filter((b) => !b.checked)
    .map((b) => b.dataset.cue);
  await hubSend("/api/audio", { disabled });
}

document.getElementById("sound").addEventListener("click", (e) => {
  const on = !audio.ctx || audio.ctx.state === "suspended" || e.currentTarget.getAttribute("aria-pressed") !== "true";
  if (on) {
    audio.ctx = audio.ctx || new (window.AudioContext || window.webkitAudioContext)();
    audio.ctx.resume();
  } else if (audio.ctx) {
    audio.ctx.suspend();
  }
  e.currentTarget.setAttribute("aria-pressed", on ? "true" : "false");
  e.currentTarget.textContent = on ? t("Sound on") : t("Sound off");
});

async function playCue(cue) {
  const record = { name: cue.name, sound: cue.sound, at: performance.now(), played: false };
  audio.played.push(record);
  if (!audio.ctx || audio.ctx.state !== "running") return;
  try {
    let buffer = audio.buffers.get(cue.sound);
    if (!buffer) {
      const res = await fetch("/sounds/" + encodeURIComponent(cue.sound) + ".wav");
      buffer = await audio.ctx.decodeAudioData(await res.arrayBuffer());
      audio.buffers.set(cue.sound, buffer);
    }
    const source = audio.ctx.createBufferSource();
    source.buffer = buffer;
    source.connect(audio.ctx.destination);
    source.start();
    record.played = true;
    record.duration = buffer.duration;
    if (!audio.speech && cue.text && window.speechSynthesis) {
      window.speechSynthesis.speak(new SpeechSynthesisUtterance(cue.text));
    }
  } catch (err) {
    record.error = String(err);
  }
}

function connect() {
  const source = new EventSource("/api/stream");
  const link = document.getElementById("link");
  source.addEventListener("open", () => { link.textContent = t("live"); });
  source.addEventListener("error", () => {
    link.textContent = t("reconnecting…");
    // the browser gives up after an HTTP error (e.g. too many pages open): try again in a while
    if (source.readyState === EventSource.CLOSED) setTimeout(connect, 5000);
  });
  source.addEventListener("cue", (e) => playCue(JSON.parse(e.data)));
  source.addEventListener("state", (e) => {
    const first = !snapshot;
    snapshot = JSON.parse(e.data);
    received = performance.now();
    if (first || document.querySelectorAll(".timer").length !== snapshot.players.reduce((n, p) => n + p.timers.length, 0)) {
      buildPlayers();
    }
    // a new game (new setup, or the event count starting again) has new phone codes
    if (JSON.stringify(snapshot.setup) !== phonesFor.setup || snapshot.events < phonesFor.events) refreshPhones();
    phonesFor.events = snapshot.events;
    renderLists();
    window.PLAYER_COLOURS = Object.fromEntries(snapshot.players.map((p) => [p.name, COLOURS[p.colour] || "#888"]));
    renderPanels(document.getElementById("game"), snapshot.view);
    renderScores(document.getElementById("scores"), snapshot.scores, snapshot.explanation);
    render();
    window.dispatchEvent(new CustomEvent("companion-state", { detail: snapshot }));
  });
}

// --- the players' phones (host only): each player's QR code, a new code, revoking one ----------
const phonesFor = { setup: null, events: 0 };  // the game the list was drawn for

async function refreshPhones() {
  phonesFor.setup = snapshot ? JSON.stringify(snapshot.setup) : null;
  const details = document.getElementById("phones");
  if (ACCESS.role !== "host" || !details.open) return;
  const list = document.getElementById("phone-list");
  let info;
  try {
    const res = await hubGet("/api/access");
    info = await res.json();
    if (!info.ok) { list.textContent = tSentence(info.error); return; }
  } catch (err) {
    list.textContent = t("The hub cannot be reached.");
    return;
  }
  list.textContent = "";
  for (const phone of info.players) {
    const li = document.createElement("li");
    li.dataset.player = phone.player;
    const name = document.createElement("b");
    name.textContent = phone.player;
    li.append(name, " ");
    if (phone.active) {
      const img = document.createElement("img");
      img.className = "qr";
      img.alt = t("QR code for {player}", { player: phone.player });
      img.src = "/qr/" + encodeURIComponent(phone.player) + ".svg?v=" + Date.now();
      const link = document.createElement("a");
      link.className = "join";
      link.href = phone.url;
      link.textContent = t("Join link");
      link.rel = "noreferrer";
      li.append(img, link, " ");
    } else {
      const none = document.createElement("span");
      none.className = "revoked";
      none.textContent = t("no code: no phone can play for this player until you issue a new one");
      li.append(none, " ");
    }
    const reissue = document.createElement("button");
    reissue.className = "reissue";
    reissue.textContent = t("New code");
    reissue.addEventListener("click", () => changeCode(phone.player, "POST"));
    li.append(reissue);
    if (phone.active) {
      const revoke = document.createElement("button");
      revoke.className = "revoke danger";
      revoke.textContent = t("Revoke");
      revoke.addEventListener("click", () => {
        const question = t("Revoke {player}'s code? Their phone can only watch until you issue a new one.",
                           { player: phone.player });
        if (window.confirm(question)) changeCode(phone.player, "DELETE");
      });
      li.append(" ", revoke);
    }
    list.append(li);
  }
}

async function changeCode(player, method) {
  const msg = document.getElementById("message");
  try {
    const res = await hubSend("/api/players/" + encodeURIComponent(player) + "/token", undefined, method);
    const body = await res.json();
    msg.textContent = body.ok ? "" : tSentence(body.error);
  } catch (err) {
    msg.textContent = t("The hub cannot be reached.");
  }
  refreshPhones();
}

document.getElementById("phones").addEventListener("toggle", refreshPhones);

connect();
loadAudioSettings();
setInterval(render, 100);
