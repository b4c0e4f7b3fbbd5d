// Setup page: choose the game, then pair each seat with a timer by flipping it.
"use strict";
const COLOURS = ["red", "yellow", "green", "blue", "purple", "orange", "white", "black"];
const simulated = document.body.dataset.simulated === "true";
const NAME_MAX = Number(document.body.dataset.nameMax) || 16;
// The game the table plays now (the one the hub was started with, until a new game is set up).
const CURRENT = JSON.parse(document.getElementById("current-setup").textContent || "{}");
let games = [];
const $ = (id) => document.getElementById(id);

function option(value, text) {
  const o = document.createElement("option");
  o.value = value; o.textContent = text;
  return o;
}

// Game and variant titles: a hub text, or a plain English title looked up in the catalog.
function title(value) { return typeof value === "string" ? t(value) : tr(value); }

function currentGame() { return games.find((g) => g.name === $("game").value); }

function fillVariants(preset) {
  const g = currentGame();
  $("variant").textContent = "";
  for (const v of g.variants) $("variant").append(option(v.name, title(v.title)));
  if (preset && g.variants.some((v) => v.name === preset.variant)) $("variant").value = preset.variant;
  $("count").textContent = "";
  for (let n = g.min_players; n <= g.max_players; n++) {
    $("count").append(option(n, tr({ msg: "{count} player", plural: "{count} players", args: { count: n } })));
  }
  const wanted = preset && preset.players ? preset.players.length : 4;
  $("count").value = String(Math.min(g.max_players, Math.max(g.min_players, wanted)));
  $("timers").value = preset && preset.timers ? preset.timers : g.timers_per_player;
  $("deck-box").hidden = !g.random_components;  // only a game with piles, decks or hidden choices asks
  const deck = preset && preset.deck ? preset.deck : "table";
  const chosen = document.querySelector(`input[name=deck][value=${deck}]`);
  if (chosen) chosen.checked = true;
  fillClock(preset);
  fillNames(preset);
}

function fillClock(preset) {
  const g = currentGame();
  const v = g.variants.find((x) => x.name === $("variant").value) || g.variants[0];
  $("clock").value = preset && preset.clock_minutes ? preset.clock_minutes : v.clock_minutes;
  if (preset && preset.sand_s) $("sand").value = preset.sand_s;
}

function colourLabel(c) {
  const labels = { red: t("red"), yellow: t("yellow"), green: t("green"), blue: t("blue"), purple: t("purple"),
                   orange: t("orange"), white: t("white"), black: t("black") };
  return labels[c] || c;
}

function fillNames(preset) {
  const n = Number($("count").value);
  const root = $("names");
  const old = preset && preset.players ? preset.players : [...root.querySelectorAll("input")].map((i) => i.value);
  const oldColours = preset && preset.colours ? preset.colours
    : [...root.querySelectorAll("select")].map((s) => s.value);
  root.textContent = "";
  for (let i = 0; i < n; i++) {
    const input = document.createElement("input");
    input.value = old[i] || COLOURS[i];
    input.maxLength = NAME_MAX;
    input.required = true;
    input.autocomplete = "off";
    input.setAttribute("aria-label", t("Player {number}", { number: i + 1 }));
    input.dataset.player = String(i);
    const colour = document.createElement("select");
    colour.setAttribute("aria-label", t("Colour of player {number}", { number: i + 1 }));
    colour.dataset.colour = String(i);
    for (const c of COLOURS) colour.append(option(c, colourLabel(c)));
    colour.value = oldColours[i] || COLOURS[i];
    const seat = document.createElement("div");
    seat.className = "seat";
    seat.append(input, colour);
    root.append(seat);
  }
}

function showError(text) { $("error").textContent = text || ""; $("error").hidden = !text; }

function requestId() {
  if (window.crypto && crypto.randomUUID) return crypto.randomUUID();
  return Date.now().toString(36) + "-" + Math.random().toString(36).slice(2);
}

let sending = false;

async function submit(ev) {
  ev.preventDefault();
  if (sending) return;  // a double click sends one setup
  const body = {
    game: $("game").value, variant: $("variant").value,
    players: [...$("names").querySelectorAll("input")].map((i) => i.value),
    colours: [...$("names").querySelectorAll("select")].map((s) => s.value),
    timers: Number($("timers").value), clock_minutes: Number($("clock").value), sand_s: Number($("sand").value),
    grace_s: Number($("grace").value), early_lifts: $("early").value,
    deck: document.querySelector("input[name=deck]:checked").value,
    pairing: document.querySelector("input[name=pairing]:checked").value,
    request: requestId(),
  };
  sending = true;
  $("start").disabled = true;
  try {
    const res = await hubSend(HUB + "/api/setup", body);
    const data = await res.json();
    if (!data.ok) { showError(errorText(data)); return; }
    showError("");
    expectReady = true;
  } catch (err) {
    showError(t("The hub cannot be reached."));
  } finally {
    sending = false;
    $("start").disabled = ACCESS.role !== "host";
  }
}

let expectReady = false;
let shownPairing = "";

function renderPairing(snap) {
  renderStorage(snap.storage);
  const p = snap.pairing;
  $("pairing").hidden = !p;
  if (p) {
    $("setup-form").hidden = true;
    const candidates = snap.nodes.concat(snap.unpaired).filter((n) => n.online && !p.seats.some((s) => s.node === n.node));
    const key = JSON.stringify([p, candidates.map((n) => n.node)]);
    expectReady = true;
    if (key === shownPairing) return;  // redraw only what changed: a press on a button is never lost
    shownPairing = key;
    $("ask").textContent = p.current
      ? t("Flip the timer for {player}, number {index}", { player: p.current.player, index: p.current.index }) : "";
    $("seats").textContent = "";
    for (const s of p.seats) {
      const li = document.createElement("li");
      li.textContent = t("{player} timer {index}", { player: s.player, index: s.index }) + ": " + (s.node || "…");
      li.className = s.node ? "done" : (p.current && p.current.player === s.player && p.current.index === s.index ? "current" : "");
      $("seats").append(li);
    }
    $("unpaired").textContent = "";
    for (const n of candidates) {
      const li = document.createElement("li");
      li.dataset.node = n.node;
      const name = document.createElement("span");
      name.className = "node-name";
      name.textContent = n.node;
      const b = document.createElement("button");
      b.type = "button"; b.className = "identify"; b.textContent = t("Identify");
      b.setAttribute("aria-label", t("Identify {node}", { node: n.node }));
      b.addEventListener("click", () => hubSend(HUB + "/api/nodes/" + encodeURIComponent(n.node) + "/identify"));
      li.append(name, " ", b);
      if (simulated) {
        const f = document.createElement("button");
        f.type = "button"; f.className = "flip"; f.textContent = t("Flip");
        f.setAttribute("aria-label", t("Flip {node}", { node: n.node }));
        f.addEventListener("click", () => hubSend(HUB + "/api/sim/" + encodeURIComponent(n.node) + "/flip"));
        li.append(" ", f);
      }
      $("unpaired").append(li);
    }
  } else if (expectReady) {
    shownPairing = "";
    showReady(snap);
  }
}

let shownCodes = null;  // the join links the QR codes were drawn for
let codeGeneration = 0;

async function showReady(snap) {
  $("setup-form").hidden = true;
  if (ACCESS.role !== "host") { $("ready").hidden = false; return; }  // the codes let a phone play
  let info;
  try {
    info = await (await hubGet(HUB + "/api/access")).json();
  } catch (err) {
    showError(t("The hub cannot be reached."));
    return;
  }
  if (!info.ok) { showError(errorText(info)); return; }
  const key = JSON.stringify(info.players);
  if (key === shownCodes) return;
  shownCodes = key;
  codeGeneration += 1;
  const first = info.players.find((p) => p.url);
  const host = first ? new URL(first.url).hostname : location.hostname;
  const local = ["127.0.0.1", "localhost", "[::1]", "::1"].includes(host);
  $("qr-hint").textContent = local
    ? t("Phones cannot open 127.0.0.1: start the hub with --host 0.0.0.0 and open this page at the hub's network address.")
    : t("Each player scans their code to open their page.");
  $("qrs").textContent = "";
  for (const phone of info.players) {
    const p = phone.player;
    const fig = document.createElement("figure");
    fig.dataset.player = p;
    const cap = document.createElement("figcaption");
    if (phone.url) {
      const img = document.createElement("img");
      img.src = HUB + "/qr/" + encodeURIComponent(p) + ".svg?v=" + codeGeneration;
      img.alt = t("QR code for {player}", { player: p });
      fig.append(img);
      const a = document.createElement("a");
      a.href = phone.url;
      a.rel = "noreferrer";
      a.textContent = p;
      cap.append(a, " ");
    } else {
      cap.append(p + ": " + t("no code: no phone can play for this player until you issue a new one") + " ");
    }
    const again = document.createElement("button");
    again.type = "button";
    again.className = "reissue";
    again.textContent = t("New code");
    again.addEventListener("click", async () => {
      await hubSend(HUB + "/api/players/" + encodeURIComponent(p) + "/token");
      showReady(snap);
    });
    cap.append(again);
    fig.append(cap);
    $("qrs").append(fig);
  }
  $("ready").hidden = false;
}

async function init() {
  games = await (await fetch(HUB + "/api/games")).json();
  for (const g of games) $("game").append(option(g.name, title(g.title)));
  // preselect the game the table plays now (the hub's --game), with its variant and players
  const preset = games.some((g) => g.name === CURRENT.game) ? CURRENT : null;
  if (preset) $("game").value = preset.game;
  $("game").addEventListener("change", () => fillVariants(null));
  $("variant").addEventListener("change", () => fillClock(null));
  $("count").addEventListener("change", () => fillNames(null));
  $("setup-form").addEventListener("submit", submit);
  $("cancel").addEventListener("click", async () => {
    await hubSend(HUB + "/api/setup/cancel");
    expectReady = false;
    $("setup-form").hidden = false;
  });
  fillVariants(preset);
  listen();
}

function listen() {
  const source = new EventSource(HUB + "/api/stream");
  liveSnapshot(source, renderPairing, listen);
  source.addEventListener("error", () => {
    if (source.readyState === EventSource.CLOSED) setTimeout(listen, 5000);  // e.g. too many pages open
  });
}

init();
