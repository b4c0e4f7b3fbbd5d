// Live dashboard: one Server-Sent Events stream; sand is drawn between frames from the hub's clock.
"use strict";
const COLOURS = { red: "#e74c3c", yellow: "#f1c40f", green: "#2ecc71", blue: "#3498db", purple: "#9b59b6",
                  orange: "#e67e22", white: "#ecf0f1", black: "#7f8c8d" };
const simulated = document.body.dataset.simulated === "true";
let snapshot = null;
let builtSeats = "";
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

// A timer's sand on top now: the hub sends what it had at its last report (upper_s at at_s), so a
// live page is sent nothing while sand merely runs.
function timerUpper(timer) {
  if (timer.phase !== "running" || snapshot.clock.phase === "paused") return timer.upper_s;
  return Math.max(0, timer.upper_s - Math.max(0, hubNow() - timer.at_s));
}

const TIMER_PHASES = { idle: t("idle"), running: t("running"), empty: t("empty"), stopped: t("stopped") };
// Each cue by when it sounds (a name like "buzz" says nothing of that)
const CUE_LABELS = { start: t("when the master clock starts"), remaining: t("the time left, now and then"),
                     warning: t("warnings near the end"), countdown: t("the last seconds, counted down"),
                     end: t("when the master clock runs out"), chime: t("when a sandtimer runs out"),
                     buzz: t("when a rule is broken"), hurry: t("when a turn timer is about to run out") };
const stoppedAt = {};  // node → the sand shown when it stopped counting (the game is over)
const REFUSED_SHOW_S = 8;  // game seconds a "refused" mark stays on a timer after its refused flip

function buildPlayers() {
  const root = document.getElementById("players");
  root.textContent = "";
  const tpl = document.getElementById("timer-template");
  for (const p of snapshot.players) {
    const card = document.createElement("div");
    card.className = "player";
    card.dataset.player = p.name;
    card.style.setProperty("--colour", COLOURS[p.colour] || COLOURS[p.name] || "#888");
    const h = document.createElement("h2");
    const badge = document.createElement("span");
    badge.className = "badge";
    badge.textContent = p.name[0].toUpperCase();
    const link = document.createElement("a");
    link.href = HUB + "/play/" + encodeURIComponent(p.name);
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
      restart.addEventListener("click", async () => {
        const question = t("Restart the node of {player} timer {index}?", { player: p.name, index: timer.index });
        if (await ask(question, [{ value: "yes", label: t("Restart node") }])) post(HUB + "/api/nodes/" + timer.node + "/restart");
      });
      const flip = el.querySelector(".flip");
      if (simulated && ACCESS.role === "host") {
        flip.hidden = false;
        flip.addEventListener("click", () => post(HUB + "/api/sim/" + timer.node + "/flip"));
      }
      timers.append(el);
    }
    card.append(h, timers);
    root.append(card);
  }
}

// Is the timer's "refused" mark still fresh? It goes ~8 s (game time) after the refused flip.
function refusedNow(timer) {
  if (!timer.refused) return false;
  if (timer.refused_at_s === null || timer.refused_at_s === undefined) return true;
  return hubNow() - timer.refused_at_s < REFUSED_SHOW_S;
}

function render() {
  if (!snapshot) return;
  const remaining = clockRemaining();
  const clock = document.getElementById("clock");
  clock.textContent = fmtClock(remaining);
  clock.classList.toggle("low", remaining <= 60 && snapshot.clock.phase === "running");
  setText(document.getElementById("clock-phase"), snapshot.stage ? tr(snapshot.stage.short) : "");
  for (const p of snapshot.players) {
    for (const timer of p.timers) {
      const el = document.querySelector('.timer[data-node="' + timer.node + '"]');
      if (!el) continue;
      const counting = timer.counting !== false;
      if (counting) delete stoppedAt[timer.node];
      else if (!(timer.node in stoppedAt)) stoppedAt[timer.node] = timerUpper(timer);  // its sand no longer counts
      const upper = counting ? timerUpper(timer) : stoppedAt[timer.node];
      let phase = timer.phase === "running" && upper <= 0 ? "empty" : timer.phase;
      if (!counting && phase === "running") phase = "stopped";
      const refused = refusedNow(timer);
      const cls = "timer " + phase + (refused ? " refused" : "");
      if (el.className !== cls) el.className = cls;
      el.querySelector(".sand").style.height = (100 * upper / timer.sand_s).toFixed(1) + "%";
      setText(el.querySelector(".timer-state"), phase === "running" ? Math.ceil(upper) + " s"
        : TIMER_PHASES[phase] || phase);
      const mark = el.querySelector(".timer-refused");
      mark.hidden = !refused;
      const why = refused ? tr(timer.refused) : "";
      if (mark.title !== why) mark.title = why;
      if (el.title !== why) el.title = why;
      setText(el.querySelector(".timer-on"), tr(timer.label));
      const ns = el.querySelector(".node-state");
      setText(ns, (timer.online ? t("online") : t("offline")) +
        (timer.battery_mv ? " · " + (timer.battery_mv / 1000).toFixed(2) + " V" : ""));
      ns.classList.toggle("offline", !timer.online);
      const link = (snapshot.nodes || []).find((n) => n.node === timer.node);
      const dropped = el.querySelector(".node-dropped");
      dropped.hidden = !(link && link.dropped > 0);
      setText(dropped, dropped.hidden ? "" : tr({ msg: "lost {count} buffered event", plural: "lost {count} buffered events",
                                                   args: { count: link.dropped } }));
    }
  }
  renderBroker();
  renderStorage(snapshot.storage);
  wasMoving = moving();
}

// Whether the page shows something that changes with time alone: the running master clock, sand
// running down, a "refused" mark until it goes, how long the broker has been away. The frame tick
// redraws only then, and once more after (an idle dashboard redrawn ten times a second kept a
// tenth of a core of a kiosk or TV busy).
let wasMoving = false;

function moving() {
  const phase = snapshot.clock.phase;
  if (phase === "running") return true;
  const broker = snapshot.broker || {};
  if (broker.online === false && typeof broker.since_s === "number") return true;
  return snapshot.players.some((p) => p.timers.some((timer) =>
    (timer.phase === "running" && timer.counting !== false && phase !== "paused" && timerUpper(timer) > 0) ||
    (typeof timer.refused_at_s === "number" && refusedNow(timer))));
}

function tick() {
  if (snapshot && (wasMoving || moving())) render();
}

function setText(el, text) { if (el.textContent !== text) el.textContent = text; }

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
  setText(state, away ? t("broker offline") : t("broker online"));
  state.classList.toggle("offline", away);
  if (!away) return;
  setText(document.getElementById("broker-detail"), tr(broker.detail || ""));
  if (broker.since_s === null || broker.since_s === undefined) return;
  const ago = (hubNow() - broker.since_s) / (snapshot.time_scale || 1);  // real seconds
  const since = new Date(Date.now() - ago * 1000);
  setText(document.getElementById("broker-since"), t("since {time} ({duration})", {
    time: since.toLocaleTimeString(document.documentElement.lang || undefined),
    duration: fmtDuration(ago),
  }));
}

let drawnRecent = "";

function renderLists() {
  const recent = snapshot.recent.slice(0, 15);
  const key = JSON.stringify(recent);
  if (key !== drawnRecent) {
    drawnRecent = key;
    const list = document.getElementById("recent");
    list.textContent = "";
    for (const e of recent) {
      const li = document.createElement("li");
      li.textContent = tr(e.text);
      if (e.type === "FlipRefused" || e.type === "ActionRefused") li.className = "refused";
      list.append(li);
    }
  }
  setText(document.getElementById("rejected"), String(snapshot.stats.counts.rejected || 0));
  setText(document.getElementById("deck"), snapshot.deck ? " · " + tr(snapshot.deck) : "");
}

// --- the game's picture at the top; its tables behind "Details" --------------------------------------
let drawnPicture = null;
let detailsTouched = sessionStorage.getItem("companion-details");  // "open" / "closed" once the host chose

function renderGame() {
  const view = snapshot.view || {};
  const root = document.getElementById("picture");
  const drawable = Boolean(window.Pictures && Pictures.has(snapshot.game));
  const key = JSON.stringify([snapshot.game, drawable, view.picture || null, window.PLAYER_COLOURS]);
  if (key !== drawnPicture) {  // redraw only when the picture changed, never on every frame
    drawnPicture = key;
    let drawn = null;
    try {
      drawn = drawable ? Pictures.draw(snapshot.game, view.picture) : null;
    } catch (err) {
      console.error("the picture of " + snapshot.game + " could not be drawn", err);
    }
    root.textContent = "";
    if (drawn) root.append(drawn);
    root.hidden = !drawn;
  }
  const details = document.getElementById("details");
  const hasPanels = Boolean(view.summary) || (view.panels || []).length > 0;
  details.hidden = !hasPanels;
  if (detailsTouched === null) details.open = hasPanels && root.hidden;  // no picture: the tables are the game
  renderPanels(document.getElementById("game"), view);
}

document.querySelector("#details > summary").addEventListener("click", () => {
  detailsTouched = document.getElementById("details").open ? "closed" : "open";
  sessionStorage.setItem("companion-details", detailsTouched);
});

// --- where the game stands (the same words as the phones and /end), and the clock's buttons ----------
function renderOver() {
  const banner = document.getElementById("over");
  const stage = snapshot.stage || { key: "setup" };
  const ending = stage.key === "over" || stage.key === "last-lifts";
  banner.hidden = !ending;
  banner.classList.toggle("last-lifts", stage.key === "last-lifts");
  document.getElementById("final-scores").hidden = stage.key !== "over";
  if (ending) {
    const words = [tr(stage.title), tr(stage.how), tr(stage.result)].filter(Boolean);
    setText(document.getElementById("over-text"), words.join(" · "));
  }
  // a button is enabled only when it applies now
  const phase = snapshot.clock.phase;
  const enabled = {
    start: phase === "ready" && !snapshot.pairing,
    pause: phase === "running",
    resume: phase === "paused",
    abort: stage.key !== "over" && stage.key !== "setup",
  };
  for (const b of document.querySelectorAll("[data-clock]")) {
    const on = Boolean(enabled[b.dataset.clock]);
    if (b.disabled === on) b.disabled = !on;
  }
}

// --- what the host may do for the whole table now (a game's host actions): asked first --------------
let drawnHostActions = "";

function renderHostActions() {
  const actions = (snapshot.view && snapshot.view.host_actions) || [];
  const key = JSON.stringify(actions);
  if (key === drawnHostActions) return;
  drawnHostActions = key;
  const root = document.getElementById("host-actions");
  root.textContent = "";
  if (ACCESS.role !== "host") return;
  for (const action of actions) {
    const b = document.createElement("button");
    b.type = "button";
    b.dataset.hostAction = action.id;
    b.textContent = tr(action.label);
    b.addEventListener("click", async () => {
      const sure = await ask(tr(action.question), [{ value: "yes", label: tr(action.label), id: "confirm-host-action" }]);
      if (!sure) return;
      const msg = document.getElementById("message");
      try {
        const res = await hubSend(HUB + "/api/table/action", { action: action.action });
        const body = await res.json();
        msg.textContent = body.ok ? "" : errorText(body);
      } catch (err) {
        msg.textContent = t("The hub cannot be reached.");
      }
    });
    root.append(b);
  }
}

// --- undo: only what the hub says can be undone now --------------------------------------------------
function renderUndo() {
  const button = document.getElementById("undo");
  const steps = snapshot.undo || [];
  button.disabled = steps.length === 0;
  const title = steps.length ? t("Undo: {action}", { action: tr(steps[0].note) }) : t("There is nothing to undo now.");
  if (button.title !== title) button.title = title;
}

document.getElementById("undo").addEventListener("click", async () => {
  const steps = (snapshot && snapshot.undo) || [];
  const msg = document.getElementById("message");
  if (!steps.length) { msg.textContent = t("There is nothing to undo now."); return; }
  const choices = steps.map((s) => ({ value: s.step, label: t("Undo: {action}", { action: tr(s.note) }) }));
  const step = await ask(t("Which step should be taken back?"), choices);
  if (step === null) return;
  try {
    const res = await hubSend(HUB + "/api/undo", { confirm: true, step: Number(step) });
    const body = await res.json();
    msg.textContent = body.ok ? "" : errorText(body);
  } catch (err) {
    msg.textContent = t("The hub cannot be reached.");
  }
});

async function post(url) {
  const msg = document.getElementById("message");
  try {
    const res = await hubSend(url);
    const body = await res.json();
    msg.textContent = body.ok ? "" : errorText(body);
  } catch (err) {
    msg.textContent = t("The hub cannot be reached.");
  }
}

for (const b of document.querySelectorAll("[data-clock]")) {
  b.addEventListener("click", async () => {
    if (b.dataset.clock === "abort") {
      const sure = await ask(t("End the game now? The master clock stops for good and the game is scored as it stands."),
                             [{ value: "end", label: t("End the game"), danger: true, id: "confirm-end" }]);
      if (!sure) return;
    }
    post(HUB + "/api/clock/" + b.dataset.clock);
  });
}

// --- audio cues: Web Audio after one tap, the browser's speech when the hub has none -----
const audio = { ctx: null, buffers: new Map(), speech: true, played: [] };
window.__companionCues = audio.played;

async function loadAudioSettings() {
  try {
    const res = await fetch(HUB + "/api/audio");
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
  await hubSend(HUB + "/api/audio", { disabled });
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
  e.currentTarget.textContent = on ? t("Turn the sound off") : t("Turn the sound on");  // what a tap does
});

async function playCue(cue) {
  const record = { name: cue.name, sound: cue.sound, at: performance.now(), played: false };
  audio.played.push(record);
  if (!audio.ctx || audio.ctx.state !== "running") return;
  try {
    let buffer = audio.buffers.get(cue.sound);
    if (!buffer) {
      const res = await fetch(HUB + "/sounds/" + encodeURIComponent(cue.sound) + ".wav");
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
  const source = new EventSource(HUB + "/api/stream");
  const link = document.getElementById("link");
  source.addEventListener("open", () => { link.textContent = t("live"); });
  source.addEventListener("error", () => {
    link.textContent = t("reconnecting…");
    // the browser gives up after an HTTP error (e.g. too many pages open): try again in a while
    if (source.readyState === EventSource.CLOSED) setTimeout(connect, 5000);
  });
  source.addEventListener("cue", (e) => playCue(JSON.parse(e.data)));
  liveSnapshot(source, (data) => {
    const first = !snapshot;
    snapshot = data;
    received = performance.now();
    const seats = JSON.stringify(snapshot.players.map((p) => [p.name, p.colour, p.timers.map((x) => x.node)]));
    if (first || seats !== builtSeats) {  // the timers are built once per game, then updated in place
      builtSeats = seats;
      buildPlayers();
    }
    // a new game (new setup, or the event count starting again) has new phone codes
    if (JSON.stringify(snapshot.setup) !== phonesFor.setup || snapshot.events < phonesFor.events) refreshPhones();
    phonesFor.events = snapshot.events;
    renderLists();
    window.PLAYER_COLOURS = Object.fromEntries(snapshot.players.map((p) => [p.name, COLOURS[p.colour] || "#888"]));
    renderGame();
    renderScores(document.getElementById("scores"), snapshot.scores, snapshot.explanation);
    renderOver();
    renderHostActions();
    renderUndo();
    render();
    window.dispatchEvent(new CustomEvent("companion-state", { detail: snapshot }));
  }, connect);
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
    const res = await hubGet(HUB + "/api/access");
    info = await res.json();
    if (!info.ok) { list.textContent = errorText(info); return; }
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
      img.src = HUB + "/qr/" + encodeURIComponent(phone.player) + ".svg?v=" + Date.now();
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
        ask(question, [{ value: "revoke", label: t("Revoke"), danger: true }])
          .then((sure) => { if (sure) changeCode(phone.player, "DELETE"); });
      });
      li.append(" ", revoke);
    }
    list.append(li);
  }
}

async function changeCode(player, method) {
  const msg = document.getElementById("message");
  try {
    const res = await hubSend(HUB + "/api/players/" + encodeURIComponent(player) + "/token", undefined, method);
    const body = await res.json();
    msg.textContent = body.ok ? "" : errorText(body);
  } catch (err) {
    msg.textContent = t("The hub cannot be reached.");
  }
  refreshPhones();
}

document.getElementById("phones").addEventListener("toggle", refreshPhones);

connect();
loadAudioSettings();
setInterval(tick, 100);
