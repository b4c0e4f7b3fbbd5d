// The picture of a game that was played, for the end screen and the history: drawn as one SVG from the
// data companion/table/played.py makes of the game's log, with its decisive moments listed under it.
//
//   drawPlayed(data) -> <figure class="played">
//
// Top: the count the game is won on (victory points, trophies, cards left) over the master clock's time,
// one line per player in their colour, the moments numbered above it. Below: one lane per sandtimer,
// its sand running (the player's colour), idle (gray), refused flips (red) and knocks (orange).
// The viewBox is 360 wide, so at a phone's 390 px every word is drawn at 12 px or more.
"use strict";

// Lighter than the board pictures' colours (pictures.js): thin lines on the page's dark background.
const PLAYED_COLOURS = { red: "#e74c3c", yellow: "#f1c40f", green: "#2ecc71", blue: "#3498db", purple: "#9b59b6",
                         orange: "#e67e22", white: "#ecf0f1", black: "#95a5a6" };

const playedSvg = (tag, attrs, content) => Pictures.ctx.svg(tag, attrs, content);  // pictures.js

function playedClock(seconds) {
  const s = Math.max(0, Math.round(seconds));
  return String(Math.floor(s / 60)).padStart(2, "0") + ":" + String(s % 60).padStart(2, "0");
}

function drawPlayed(data) {
  const W = 360, L = 58, R = W - 10;
  const colour = Object.fromEntries(data.players.map((p) => [p.name, PLAYED_COLOURS[p.colour] || "#aaa"]));
  const names = data.names || {};
  const named = (player) => (names[player] ? tr(names[player]) : player);  // the computer, in the table's words
  const span = Math.max(1, data.length_s);
  const at = (x) => L + (R - L) * Math.min(1, Math.max(0, x / span));
  const svg = playedSvg("svg", { class: "played-svg", role: "img", "font-family": "system-ui, sans-serif" });
  const parts = [];
  let y = 4;
  const moments = data.moments || [];
  // --- the count over time -------------------------------------------------------------------------
  if (data.measure) {
    const label = tr(data.measure.label);
    const said = data.measure.lower_is_better
      ? t("{label} over time (fewer is better)", { label }) : t("{label} over time", { label });
    const title = said.charAt(0).toUpperCase() + said.slice(1);
    parts.push(playedSvg("text", { x: 4, y: y + 13, "font-size": 13, "font-weight": 700, fill: "#f2f4f8" }, title));
    y += 34;
    const top = y, H = 120, bottom = top + H;
    const values = Object.values(data.track).flat().map((p) => p[1]);
    const most = Math.max(1, ...values), least = Math.min(0, ...values);
    const level = (v) => bottom - (H * (v - least)) / Math.max(1, most - least);
    for (const v of [least, most]) {
      parts.push(playedSvg("line", { x1: L, x2: R, y1: level(v), y2: level(v), stroke: "#3a4258", "stroke-width": 1 }));
      parts.push(playedSvg("text", { x: L - 6, y: level(v) + 4, "font-size": 12, fill: "#c3cad8", "text-anchor": "end" }, v));
    }
    data.players.forEach((p, k) => {
      const points = data.track[p.name] || [];
      if (!points.length) return;
      const shift = (k - (data.players.length - 1) / 2) * 2.5;  // equal counts stay side by side, all seen
      let d = "";
      let last = null;
      for (const [x, v] of points) {
        const yv = (level(v) + shift).toFixed(1);
        d += last === null ? `M${at(x).toFixed(1)},${yv}` : `H${at(x).toFixed(1)}V${yv}`;
        last = v;
      }
      d += `H${at(span).toFixed(1)}`;
      const line = playedSvg("path", { d, fill: "none", stroke: colour[p.name], "stroke-width": 3, class: "played-line" });
      line.dataset.player = p.name;
      line.dataset.last = String(last);
      parts.push(line);
    });
    let free = 0;  // the numbered markers never cover each other: a close one moves right
    moments.forEach((m, i) => {
      const cx = Math.min(R - 4, Math.max(at(m.x), free));
      free = cx + 18;
      const mark = playedSvg("g", { class: "played-moment" });
      mark.dataset.kind = m.kind;
      mark.append(playedSvg("line", { x1: at(m.x), x2: at(m.x), y1: top - 4, y2: bottom, stroke: "#f2c14e",
                                      "stroke-width": 1, "stroke-dasharray": "3 3" }));
      mark.append(playedSvg("circle", { cx, cy: top - 12, r: 8, fill: "#f2c14e" }));
      mark.append(playedSvg("text", { x: cx, y: top - 8, "font-size": 12, "font-weight": 700, fill: "#111",
                                      "text-anchor": "middle" }, i + 1));
      parts.push(mark);
    });
    y = bottom + 8;
    // who ended where: one row of names and their final counts, in their colours
    let cx = 4;
    y += 14;
    for (const p of data.players) {
      const points = data.track[p.name] || [];
      const last = points.length ? points[points.length - 1][1] : "";
      const won = (data.winners || []).includes(p.name);
      parts.push(playedSvg("rect", { x: cx, y: y - 10, width: 10, height: 10, fill: colour[p.name] }));
      const words = named(p.name) + " " + last + (won ? " ★" : "");
      parts.push(playedSvg("text", { x: cx + 14, y, "font-size": 12, fill: "#f2f4f8", "font-weight": won ? 700 : 400 }, words));
      cx += 24 + words.length * 7.2;
      if (cx > W - 60) { cx = 4; y += 18; }
    }
    y += 12;
  }
  // --- the sandtimers' use ---------------------------------------------------------------------------
  parts.push(playedSvg("text", { x: 4, y: y + 13, "font-size": 13, "font-weight": 700, fill: "#f2f4f8" }, t("Sandtimers")));
  y += 22;
  for (const timer of data.timers) {
    const lane = playedSvg("g", { class: "played-lane" });
    lane.dataset.player = timer.player;
    lane.dataset.index = String(timer.index);
    lane.append(playedSvg("text", { x: L - 6, y: y + 11, "font-size": 12, fill: "#c3cad8", "text-anchor": "end" },
                          named(timer.player) + " " + timer.index));
    lane.append(playedSvg("rect", { x: L, y, width: R - L, height: 14, fill: "#3a4258", class: "idle" }));
    for (const [a, b] of timer.runs) {
      lane.append(playedSvg("rect", { x: at(a), y, width: Math.max(1.5, at(b) - at(a)), height: 14,
                                      fill: colour[timer.player], class: "running" }));
    }
    // a refused flip is a white cross, a knock an orange dot: never mistaken for a player's colour
    for (const x of timer.refused) {
      const cx = at(x);
      lane.append(playedSvg("path", { d: `M${cx - 4},${y + 3}l8,8m0,-8l-8,8`, stroke: "#fff", "stroke-width": 2.5,
                                      class: "refused" }));
    }
    for (const x of timer.knocked) {
      lane.append(playedSvg("circle", { cx: at(x), cy: y + 7, r: 4, fill: "#ff9f43", stroke: "#111", class: "knocked" }));
    }
    parts.push(lane);
    y += 20;
  }
  // the time axis, and what the lanes' colours mean
  y += 4;
  for (const x of [0, span / 2, span]) {
    parts.push(playedSvg("text", { x: at(x), y: y + 10, "font-size": 12, fill: "#c3cad8",
                                   "text-anchor": x === 0 ? "start" : x === span ? "end" : "middle" }, playedClock(x)));
  }
  y += 26;
  let kx = 4;
  for (const [kind, words] of [["running", t("running")], ["idle", t("idle")], ["refused", t("refused")],
                               ["knocked", t("knocked over")]]) {
    if (kind === "running") {
      data.players.forEach((p, k) => parts.push(playedSvg("rect", { x: kx + k * 4, y: y - 10, width: 4, height: 10,
                                                                     fill: colour[p.name] })));
    } else if (kind === "idle") {
      parts.push(playedSvg("rect", { x: kx, y: y - 10, width: 10, height: 10, fill: "#3a4258", stroke: "#8a93a8" }));
    } else if (kind === "refused") {
      parts.push(playedSvg("path", { d: `M${kx + 1},${y - 9}l8,8m0,-8l-8,8`, stroke: "#fff", "stroke-width": 2.5 }));
    } else {
      parts.push(playedSvg("circle", { cx: kx + 5, cy: y - 5, r: 4, fill: "#ff9f43" }));
    }
    const shift = kind === "running" ? Math.max(10, data.players.length * 4) : 10;
    parts.push(playedSvg("text", { x: kx + shift + 4, y, "font-size": 12, fill: "#c3cad8" }, words));
    kx += shift + 16 + words.length * 7;
    if (kx > W - 70) { kx = 4; y += 18; }
  }
  y += 8;
  svg.setAttribute("viewBox", `0 0 ${W} ${y}`);
  svg.setAttribute("aria-label", t("How the game went"));
  svg.append(...parts);
  const figure = document.createElement("figure");
  figure.className = "played";
  figure.append(svg);
  if (moments.length) {
    const list = document.createElement("ol");
    list.className = "played-moments";
    for (const m of moments) {
      const li = document.createElement("li");
      li.dataset.kind = m.kind;
      li.textContent = playedClock(m.x) + " · " + tr(m.text);
      list.append(li);
    }
    figure.append(list);
  }
  return figure;
}
window.drawPlayed = drawPlayed;
