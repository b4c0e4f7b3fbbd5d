// Setup page: choose the game, then pair each seat with a timer by flipping it.
"use strict";
const COLOURS = ["red", "yellow", "green", "blue", "purple", "orange", "white", "black"];
let games = [];
const $ = (id) => document.getElementById(id);

function option(value, text) {
  const o = document.createElement("option");
  o.value = value; o.textContent = text;
  return o;
}

function currentGame() { return games.find((g) => g.name === $("game").value); }

function fillVariants() {
  const g = currentGame();
  $("variant").textContent = "";
  for (const v of g.variants) $("variant").append(option(v.name, v.title));
  $("count").textContent = "";
  for (let n = g.min_players; n <= g.max_players; n++) $("count").append(option(n, t("{count} players", { count: n })));
  $("count").value = String(Math.min(g.max_players, Math.max(g.min_players, 4)));
  $("timers").value = g.timers_per_player;
  fillClock();
  fillNames();
}

function fillClock() {
  const g = currentGame();
  const v = g.variants.find((x) => x.name === $("variant").value) || g.variants[0];
  $("clock").value = v.clock_minutes;
}

function colourLabel(c) {
  const labels = { red: t("red"), yellow: t("yellow"), green: t("green"), blue: t("blue"), purple: t("purple"),
                   orange: t("orange"), white: t("white"), black: t("black") };
  return labels[c] || c;
}

function fillNames() {
  const n = Number($("count").value);
  const root = $("names");
  const old = [...root.querySelectorAll("input")].map((i) => i.value);
  const oldColours = [...root.querySelectorAll("select")].map((s) => s.value);
  root.textContent = "";
  for (let i = 0; i < n; i++) {
    const input = document.createElement("input");
    input.value = old[i] || COLOURS[i];
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

async function submit(ev) {
  ev.preventDefault();
  const body = {
    game: $("game").value, variant: $("variant").value,
    players: [...$("names").querySelectorAll("input")].map((i) => i.value),
    colours: [...$("names").querySelectorAll("select")].map((s) => s.value),
    timers: Number($("timers").value), clock_minutes: Number($("clock").value), sand_s: Number($("sand").value),
    grace_s: Number($("grace").value), early_lifts: $("early").value,
    pairing: document.querySelector("input[name=pairing]:checked").value,
  };
  const res = await hubSend("/api/setup", body);
  const data = await res.json();
  if (!data.ok) { showError(tSentence(data.error)); return; }
  showError("");
  expectReady = true;
}

let expectReady = false;

function renderPairing(snap) {
  const p = snap.pairing;
  $("pairing").hidden = !p;
  if (p) {
    $("setup-form").hidden = true;
    $("ask").textContent = p.current
      ? t("Flip the timer for {player}, number {index}", { player: p.current.player, index: p.current.index }) : "";
    $("seats").textContent = "";
    for (const s of p.seats) {
      const li = document.createElement("li");
      li.textContent = s.player + " " + s.index + ": " + (s.node || "…");
      li.className = s.node ? "done" : (p.current && p.current.player === s.player && p.current.index === s.index ? "current" : "");
      $("seats").append(li);
    }
    $("unpaired").textContent = "";
    const candidates = snap.nodes.concat(snap.unpaired).filter((n) => n.online && !p.seats.some((s) => s.node === n.node));
    for (const n of candidates) {
      const li = document.createElement("li");
      const b = document.createElement("button");
      b.type = "button"; b.textContent = t("Identify {node}", { node: n.node });
      b.addEventListener("click", () => hubSend("/api/nodes/" + n.node + "/identify"));
      li.append(b);
      $("unpaired").append(li);
    }
    expectReady = true;
  } else if (expectReady) {
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
    info = await (await hubGet("/api/access")).json();
  } catch (err) {
    showError(t("The hub cannot be reached."));
    return;
  }
  if (!info.ok) { showError(tSentence(info.error)); return; }
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
      img.src = "/qr/" + encodeURIComponent(p) + ".svg?v=" + codeGeneration;
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
      await hubSend("/api/players/" + encodeURIComponent(p) + "/token");
      showReady(snap);
    });
    cap.append(again);
    fig.append(cap);
    $("qrs").append(fig);
  }
  $("ready").hidden = false;
}

async function init() {
  games = await (await fetch("/api/games")).json();
  for (const g of games) $("game").append(option(g.name, g.title));
  $("game").addEventListener("change", fillVariants);
  $("variant").addEventListener("change", fillClock);
  $("count").addEventListener("change", fillNames);
  $("setup-form").addEventListener("submit", submit);
  $("cancel").addEventListener("click", async () => {
    await hubSend("/api/setup/cancel");
    expectReady = false;
    $("setup-form").hidden = false;
  });
  fillVariants();
  listen();
}

function listen() {
  const source = new EventSource("/api/stream");
  source.addEventListener("state", (e) => renderPairing(JSON.parse(e.data)));
  source.addEventListener("error", () => {
    if (source.readyState === EventSource.CLOSED) setTimeout(listen, 5000);  // e.g. too many pages open
  });
}

init();
