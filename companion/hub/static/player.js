// A player's phone page: my timers and their sand in a sticky header, then what I do next, then my
// part of the game. Live updates change only what changed: every button is kept by its menu id (or
// node) and updated in place, so a press of any length registers exactly once. Every tap carries a
// request id (the hub answers a repeated id with its first answer) and its button waits for the answer.
// Words from the hub are texts ({"msg", "args"}) shown with tr(); the page's own words with t().
"use strict";
const me = document.body.dataset.player;
const meId = document.body.dataset.playerId || me;
const simulated = document.body.dataset.simulated === "true";

const FOLD_AT = 4;           // a menu group with more items than this folds...
const FOLD_SHOW = 3;         // ...to its first items (and the selected ones) and a "more (N)" toggle
// A refusal fades after this long (and goes at once when the hub clears it); a test may set
// window.REFUSAL_SHOW_MS to a shorter time, as it would inject a clock.
function refusalShowMs() { return window.REFUSAL_SHOW_MS || 8000; }
const FADE_MS = 800;
const RETRY_MS = 400;        // a tap that could not reach the hub is sent once more, with the same id

let snap = null;
let received = 0;

function hubNow() {
  return snap ? snap.table.now_s + (performance.now() - received) / 1000 * snap.table.time_scale : 0;
}

function fmt(seconds) {
  const s = Math.max(0, Math.ceil(seconds));
  return String(Math.floor(s / 60)).padStart(2, "0") + ":" + String(s % 60).padStart(2, "0");
}

function setText(node, value) {
  if (node.textContent !== value) node.textContent = value;
}

function setClass(node, value) {
  if (node.className !== value) node.className = value;
}

// A join link's token never stays in the address bar (the hub redirects a valid one away; a wrong one
// is shown with a notice): drop it so it is not bookmarked or shared by accident.
if (new URLSearchParams(location.search).has("t")) {
  const clean = new URL(location.href);
  clean.searchParams.delete("t");
  history.replaceState(null, "", clean.pathname + clean.search + clean.hash);
}

function canAct() { return ACCESS.role !== "spectator"; }

// --- taps -------------------------------------------------------------------------------------

let requestCount = 0;
const requestPrefix = Math.random().toString(36).slice(2, 10) || "r";

function newRequestId() {
  // crypto.randomUUID exists only on secure pages (https, localhost); a phone on the café's Wi-Fi
  // opens http://192.168..., so fall back to a random prefix, the time and a counter.
  if (window.crypto && typeof window.crypto.randomUUID === "function") return window.crypto.randomUUID();
  requestCount += 1;
  return requestPrefix + "-" + Date.now().toString(36) + "-" + requestCount;
}

function pause(ms) { return new Promise((resolve) => setTimeout(resolve, ms)); }

// POST `body` (with a new request id) to `url`; `button` stays disabled until the hub answers.
// `settles`: an accepted answer means the rules took the tap, so an earlier refusal goes (a simulated
// flip's answer only says the glass was turned: the rules' verdict comes with the next update).
async function send(url, body, button, settles) {
  if (!canAct()) {
    showRefusal({ reason: t("This page can only watch: to play, scan your QR code on the host's screen") });
    return;
  }
  if (button) {
    if (button.dataset.busy) return;
    button.dataset.busy = "1";
    button.disabled = true;
  }
  const payload = Object.assign({}, body || {}, { request: newRequestId() });
  try {
    let res = null;
    for (let attempt = 0; attempt < 2 && res === null; attempt++) {
      try { res = await hubSend(url, payload); } catch (err) { if (attempt === 0) await pause(RETRY_MS); }
    }
    if (res === null) { showRefusal({ reason: t("The hub cannot be reached; your tap was not sent.") }); return; }
    let data;
    try { data = await res.json(); } catch (err) { data = { ok: false, error: res.statusText }; }
    if (res.status === 403) watchOnly();  // the code was revoked or replaced: this page only watches now
    if (data.ok) { if (settles) clearRefusal(); }
    else showRefusal({ reason: data.reason || data.message || data.error, rule: data.rule });
  } finally {
    if (button) {
      delete button.dataset.busy;
      button.disabled = !canAct();
    }
  }
}

function watchOnly() {
  ACCESS.role = "spectator";
  ACCESS.token = "";
  document.body.dataset.role = "spectator";
  if (snap) renderAll();
}

// --- the refusal box --------------------------------------------------------------------------

const refusalBox = document.getElementById("refusal");
let refusalTimers = [];
let seenRefusal = null;  // the refusal the hub's latest update carried (as a key)

function clearRefusal() {
  refusalTimers.forEach(clearTimeout);
  refusalTimers = [];
  refusalBox.hidden = true;
  refusalBox.classList.remove("fading");
}

function showRefusal(refusal) {
  clearRefusal();
  const reason = tr(refusal.reason);
  if (!reason) return;
  setText(refusalBox.querySelector(".reason"), reason);
  const rule = refusal.rule ? tr(refusal.rule) : "";
  const ruleBox = refusalBox.querySelector(".rule");
  setText(ruleBox, rule ? t("Rule: {rule}", { rule }) : "");
  ruleBox.hidden = !rule;
  refusalBox.hidden = false;
  const showMs = refusalShowMs();
  refusalTimers.push(setTimeout(() => refusalBox.classList.add("fading"), Math.max(0, showMs - FADE_MS)));
  refusalTimers.push(setTimeout(clearRefusal, showMs));
}

// The hub's latest refusal for me: shown when it is new and recent, gone when the hub clears it
// (the game starts, a later action is accepted).
function followRefusal(refusal) {
  const key = refusal ? JSON.stringify([refusal.reason, refusal.rule || "", refusal.at_s]) : null;
  if (key === seenRefusal) return;
  const had = seenRefusal !== null;
  seenRefusal = key;
  if (!refusal) {
    if (had) clearRefusal();
    return;
  }
  const ageMs = typeof refusal.at_s === "number"
    ? (snap.table.now_s - refusal.at_s) / (snap.table.time_scale || 1) * 1000 : 0;
  if (ageMs < refusalShowMs()) showRefusal(refusal);
}

// A timer's last refused flip is shown for as long as a refusal is, and never instead of its sand.
function recentlyRefused(timer) {
  if (!timer.refused) return false;
  if (typeof timer.refused_at_s !== "number") return timer.refused_at_s === undefined;
  return stillShown(timer.refused_at_s);
}

// Whether what happened at hub time ``atS`` is still said: for as long as a refusal is, in real time.
function stillShown(atS) {
  return typeof atS === "number" && (hubNow() - atS) / (snap.table.time_scale || 1) * 1000 < refusalShowMs();
}

// --- my timers (the sticky header) ------------------------------------------------------------

const PHASE_WORDS = { idle: t("idle"), running: t("running"), empty: t("empty"), stopped: t("stopped"),
                      paused: t("paused"), checking: t("checking…") };
const timerCards = new Map();

function timerCard(timer) {
  let card = timerCards.get(timer.node);
  if (card) return card;
  const box = el("div", "timer");
  box.dataset.node = timer.node;
  const head = el("div", "head");
  const name = el("span", "name");
  const state = el("span", "state");
  head.append(name, state);
  const big = el("div", "big");
  const bar = el("div", "bar");
  const sand = el("div", "sand");
  bar.append(sand);
  const on = el("div", "on");
  const net = el("div", "net");
  box.append(head, big, bar, on, net);
  card = { box, name, state, big, sand, on, net, flip: null };
  if (simulated && canAct()) {
    const flip = el("button", "flip", t("Flip"));
    flip.type = "button";
    flip.addEventListener("click", () => send(HUB + "/api/sim/" + encodeURIComponent(timer.node) + "/flip", {}, flip));
    box.append(flip);
    card.flip = flip;
  }
  timerCards.set(timer.node, card);
  return card;
}

function renderTimers() {
  const root = document.getElementById("timers");
  const paused = snap.table.clock.phase === "paused";
  const seen = new Set();
  snap.timers.forEach((timer, i) => {
    const card = timerCard(timer);
    seen.add(timer.node);
    const counting = timer.counting !== false;
    let upper = timer.upper_s;  // sand on top at the timer's last report (at_s)
    if (timer.phase === "running" && counting && !paused) {
      upper = Math.max(0, timer.upper_s - Math.max(0, hubNow() - timer.at_s));
    }
    let phase = timer.phase === "running" && upper <= 0 ? "empty" : timer.phase;
    if (!counting) phase = "stopped";
    const refused = recentlyRefused(timer) && !timer.checking;
    setClass(card.box, "timer " + phase + (refused ? " refused" : "") + (timer.checking ? " checking" : ""));
    setText(card.name, t("Timer {index}", { index: timer.index }));
    const shown = timer.checking ? "checking" : paused && phase === "running" ? "paused" : phase;
    setText(card.state, refused ? t("refused") : PHASE_WORDS[shown] || shown);
    setText(card.big, Math.ceil(upper) + " s");
    const full = timer.sand_s || snap.table.setup.sand_s || 60;
    const width = (Math.max(0, Math.min(1, upper / full)) * 100).toFixed(1) + "%";
    if (card.sand.style.width !== width) card.sand.style.width = width;
    setText(card.on, tr(timer.label));
    setText(card.net, timer.online ? "" : t("offline"));
    card.net.hidden = !!timer.online;
    if (card.flip && !canAct()) { card.flip.remove(); card.flip = null; }
    if (root.children[i] !== card.box) root.insertBefore(card.box, root.children[i] || null);
  });
  for (const [node, card] of timerCards) {
    if (!seen.has(node)) { card.box.remove(); timerCards.delete(node); }
  }
  const c = snap.table.clock;
  const remaining = c.phase === "running" ? Math.max(0, c.remaining_s - (hubNow() - snap.table.now_s)) : c.remaining_s;
  setText(document.getElementById("clock"), fmt(remaining));
  renderNotice();
  wasMoving = moving();
}

// A flip of mine that waits out the table's grace window (it may be a knock) is said at once, with why
// it waits; a knock is said when it was one. The refusal itself comes in the red box when it stands.
function renderNotice() {
  const box = document.getElementById("notice");
  let message = "";
  let kind = "";
  const scale = snap.table.time_scale || 1;
  for (const timer of snap.timers) {
    if (timer.checking) {
      const seconds = Math.max(0, Math.ceil((timer.checking.until_s - hubNow()) / scale));
      message = t("Timer {index}: this flip is being checked for {seconds} s. If the sandtimer was knocked over, stand it back up now and nothing counts; otherwise it is refused: {reason}", { index: timer.index, seconds, reason: tr(timer.checking.reason) });
      kind = "checking";
      break;
    }
    const full = timer.sand_s || snap.table.setup.sand_s || 60;
    const fresh = stillShown(timer.at_s);
    if (timer.flips === 1 && timer.phase === "running" && timer.upper_s < full - 1 && fresh) {
      // the first flip of the game: the sand on top is what had fallen since the timer was last turned
      message = t("Timer {index} started with {sand} s of sand, not {full} s: its sand had not all run through since it was last turned over (when it was paired). Let every sandtimer run through before the first turn.", { index: timer.index, sand: Math.round(timer.upper_s), full: Math.round(full) });
      kind = "partial";
    }
    if (stillShown(timer.knocked_at_s)) {
      message = t("Timer {index} was knocked over and stood up again: nothing counted", { index: timer.index });
      kind = "knocked";
    }
  }
  setText(box, message);
  setClass(box, "notice" + (kind ? " " + kind : ""));
  box.hidden = !message;
}

// --- what I can do (the menu) -----------------------------------------------------------------

const groupBoxes = new Map();  // group key → { section, title, row, more, buttons: Map(id → button) }
const unfolded = new Set();    // group keys whose "more" toggle is open (kept across live updates)
const searched = new Map();    // group key → what the player typed in its search box (long piles)

// Lower case without accents, so "plantá" finds "Planta" (a search over what a pile can still hold).
function folded(text) {
  return String(text || "").normalize("NFD").replace(/[\u0300-\u036f]/g, "").toLowerCase();
}

function tap(button) {
  const item = button.menuItem;
  if (!item || !canAct()) return;
  const base = HUB + "/api/players/" + encodeURIComponent(meId);
  if (item.action) send(base + "/action", { action: item.action }, button, true);
  else if (item.intent) send(base + "/intent", { node: item.node, intent: item.intent }, button, true);
}

function groupBox(key) {
  let box = groupBoxes.get(key);
  if (box) return box;
  const section = el("section", "group");
  section.dataset.group = key;
  const title = el("h2");
  const row = el("div", "options");
  const more = el("button", "more");
  more.type = "button";
  more.addEventListener("click", () => {
    if (unfolded.has(key)) unfolded.delete(key); else unfolded.add(key);
    renderMenu();
  });
  const search = el("input", "search");
  search.type = "search";
  search.hidden = true;
  search.addEventListener("input", () => { searched.set(key, search.value); renderMenu(); });
  section.append(title, search, row, more);
  box = { section, title, search, row, more, buttons: new Map() };
  groupBoxes.set(key, box);
  return box;
}

function menuButton(box, item) {
  let button = box.buttons.get(item.id);
  if (!button) {
    button = el("button", "option");
    button.type = "button";
    button.dataset.id = item.id;
    button.addEventListener("click", () => tap(button));
    box.buttons.set(item.id, button);
  }
  return button;
}

function renderMenu() {
  const root = document.getElementById("menu");
  const groups = new Map();  // in the referee's order: what I do next comes first
  for (const item of snap.menu || []) {
    const key = JSON.stringify(item.group);
    if (!groups.has(key)) groups.set(key, []);
    groups.get(key).push(item);
  }
  let position = 0;
  for (const [key, items] of groups) {
    const box = groupBox(key);
    setText(box.title, tr(items[0].group));
    const searchable = items.some((item) => item.search);
    box.search.hidden = !searchable;
    if (searchable) {
      const hint = t("Search");
      if (box.search.placeholder !== hint) { box.search.placeholder = hint; box.search.setAttribute("aria-label", hint); }
    }
    const query = searchable ? folded(searched.get(key)) : "";
    const folds = items.length > FOLD_AT && !query;
    const open = !folds || unfolded.has(key);
    let hidden = 0;
    const ids = new Set();
    items.forEach((item, i) => {
      const button = menuButton(box, item);
      ids.add(item.id);
      button.menuItem = item;
      setText(button, tr(item.label));
      button.classList.toggle("selected", !!item.selected);
      if (item.intent) button.setAttribute("aria-pressed", item.selected ? "true" : "false");
      else button.removeAttribute("aria-pressed");
      const disabled = !canAct() || !!button.dataset.busy;
      if (button.disabled !== disabled) button.disabled = disabled;
      const matches = !query || folded(button.textContent).includes(query);
      const shown = matches && (open || i < FOLD_SHOW || !!item.selected);
      if (!shown) hidden += 1;
      if (button.hidden === shown) button.hidden = !shown;
      if (box.row.children[i] !== button) box.row.insertBefore(button, box.row.children[i] || null);
    });
    for (const [id, button] of box.buttons) {
      if (!ids.has(id)) { button.remove(); box.buttons.delete(id); }
    }
    box.more.hidden = !folds;
    box.more.setAttribute("aria-expanded", open ? "true" : "false");
    setText(box.more, open ? t("fewer") : t("more ({count})", { count: hidden }));
    if (root.children[position] !== box.section) root.insertBefore(box.section, root.children[position] || null);
    position += 1;
  }
  for (const [key, box] of groupBoxes) {
    if (!groups.has(key)) { box.section.remove(); groupBoxes.delete(key); unfolded.delete(key); searched.delete(key); }
  }
}

// --- my part of the game and the scores: redrawn only when they change ------------------------

let drawnView = null;
let drawnScores = null;

function renderView() {
  const key = JSON.stringify([snap.view, canAct()]);
  if (key === drawnView) return;
  drawnView = key;
  renderPanels(document.getElementById("view"), snap.view,
               canAct() ? (action) => send(HUB + "/api/players/" + encodeURIComponent(meId) + "/action", { action }, null, true) : null);
}

function renderScoreList() {
  const key = JSON.stringify([snap.table.scores, snap.table.explanation]);
  if (key === drawnScores) return;
  drawnScores = key;
  renderScores(document.getElementById("scores"), snap.table.scores, snap.table.explanation);
}

// Where the game stands, in the same words as the dashboard and /end (nothing while it simply runs).
function renderTableState() {
  const box = document.getElementById("table-state");
  const stage = snap.table.stage || { key: "playing" };
  const words = stage.key === "playing" ? [] : [tr(stage.title), tr(stage.how), tr(stage.result)].filter(Boolean);
  setText(box, words.join(" · "));
  setClass(box, "table-state " + stage.key);
  box.dataset.stage = stage.key;
  box.hidden = words.length === 0;
}

function renderAll() {
  renderTableState();
  renderStorage(snap.table.storage);
  renderTimers();
  renderMenu();
  renderView();
  renderScoreList();
}

// Whether my timers' strip shows something that changes with time alone: the running master clock,
// sand running down, a flip being checked, a refusal, a knock or a short first sand until it goes.
// The frame tick redraws only then, and once more after (a phone's battery, a page left open).
let wasMoving = false;

function moving() {
  const table = snap.table;
  if (table.clock.phase === "running") return true;
  return snap.timers.some((timer) =>
    (timer.phase === "running" && timer.counting !== false && table.clock.phase !== "paused") ||
    timer.checking || stillShown(timer.at_s) || stillShown(timer.refused_at_s) || stillShown(timer.knocked_at_s));
}

function render() {
  if (snap && (wasMoving || moving())) renderTimers();
}

// The badge in my colour, its letter dark or light, whichever reads better on it.
function paintBadge(colour) {
  const badge = document.querySelector(".badge");
  const [r, g, b] = [1, 3, 5].map((i) => parseInt(colour.slice(i, i + 2), 16) / 255)
    .map((c) => (c <= 0.03928 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4));
  const light = 0.2126 * r + 0.7152 * g + 0.0722 * b;
  badge.style.background = colour;
  badge.style.color = (light + 0.05) / 0.0556 >= 1.05 / (light + 0.05) ? "#111" : "#fff";
}

function connect() {
  const link = document.getElementById("link");
  const source = new EventSource(HUB + "/api/stream?player=" + encodeURIComponent(me));
  source.addEventListener("open", () => { setText(link, t("live")); });
  source.addEventListener("error", () => {
    setText(link, t("reconnecting…"));
    // the browser gives up after an HTTP error (e.g. too many pages open): try again in a while
    if (source.readyState === EventSource.CLOSED) setTimeout(connect, 5000);
  });
  liveSnapshot(source, (data) => {
    snap = data;
    received = performance.now();
    const palette = RING_PALETTE;
    window.PLAYER_COLOURS = Object.fromEntries(snap.table.players.map((p) => [p.name, palette[p.colour] || "#888"]));
    const mine = snap.table.players.find((p) => p.name === me);
    if (mine && palette[mine.colour]) paintBadge(palette[mine.colour]);
    followRefusal(snap.refusal);
    renderAll();
  }, connect);
}

connect();
setInterval(render, 200);
