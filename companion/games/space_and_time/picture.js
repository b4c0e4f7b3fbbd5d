// Space and Time on the dashboard: the 4 × 6 board of coins with its row and column numbers (as the
// phones and the notes name cells, "(row, column)"), the latest swap outlined while it may not be
// swapped back, the molecule hints dashed, both players with their role, trophies and whose turn it is,
// and each rank's Night and Day trophy with its holder. Drawn from the referee's view ("picture", built
// by Pages.picture in companion/games/space_and_time/pages.py); every word comes from its texts. While
// the table enters a board it dealt, only the coins entered so far are in "cells": the others stay empty.
//
// Layout: on a wide dashboard (760 px and more) the players and trophies stand beside the board on an
// 840-unit picture; on a phone below it on a 360-unit one (drawn about 320 px wide), so labels stay at
// least 12 px high.
"use strict";

(function () {
  const INK = "#16181d";
  const LIGHT = "#ffffff";
  const MUTED = "#4a4f59";
  const PAPER = "#eef1f6";
  const CELL = "#dde3ec";
  const FACE = "#ffffff";
  const EDGE = "#7d8797";
  const LAST = "#111111";
  const HINT = "#9a6700";
  const TURN = "#1d4ed8";
  const ASIDE = "#c3c9d3";
  const RANKS = ["#5b5f66", "#b3261e", "#f0b429", "#2e7d32", "#1f5fae", "#6f42a1"];
  // null gray, ace red, 2 amber, 3 green, 4 blue, 5 purple: six hues a player tells apart at a glance

  function luminance(hex) {
    const m = /^#?([0-9a-f]{6})$/i.exec(String(hex || ""));
    if (!m) return 0.2;
    const [r, g, b] = [0, 2, 4].map((i) => {
      const c = parseInt(m[1].slice(i, i + 2), 16) / 255;
      return c <= 0.03928 ? c / 12.92 : Math.pow((c - 0.055) / 1.055, 2.4);
    });
    return 0.2126 * r + 0.7152 * g + 0.0722 * b;
  }

  // Dark or light ink, whichever reads better on `fill` (WCAG contrast).
  function inkOn(fill) {
    const l = luminance(fill);
    return (l + 0.05) / 0.05 >= 1.05 / (l + 0.05) ? INK : LIGHT;
  }

  function wrap(text, chars, lines) {
    const words = String(text || "").split(/[ \t\n]+/).filter(Boolean);  // a no-break space holds
    const out = [];
    let line = "";
    for (const word of words) {
      if (!line) line = word;
      else if ((line + " " + word).length <= chars) line += " " + word;
      else { out.push(line); line = word; }
    }
    if (line) out.push(line);
    if (out.length > lines) {
      const kept = out.slice(0, lines);
      kept[lines - 1] = kept[lines - 1].slice(0, Math.max(1, chars - 1)) + "…";
      return kept;
    }
    return out;
  }

  function draw(pic, ctx) {
    const S = (tag, attrs, text) => ctx.svg(tag, attrs, text);
    const tr = (t) => ctx.tr(t);
    const wide = (window.innerWidth || 1280) >= 760;
    const W = wide ? 840 : 360;
    const M = 14;
    const CELL_SIZE = wide ? 60 : 50;
    const R = CELL_SIZE * 0.39;
    const LABEL = 24;
    const rows = pic.rows || 4;
    const columns = pic.columns || 6;
    const players = pic.players || [];
    const key = (cell) => `${cell[0]},${cell[1]}`;
    const last = new Set((pic.last_swap || []).map(key));
    const hints = new Set((pic.hints || []).map(key));

    const root = S("svg", {
      width: "100%",
      preserveAspectRatio: "xMidYMin meet",
      "data-round": pic.round,
      "data-coins": (pic.cells || []).length,
      "font-family": "system-ui, sans-serif",
    });
    const caption = tr(pic.caption);
    root.setAttribute("aria-label", caption);
    root.append(S("title", {}, caption));
    const bg = S("rect", { x: 0, y: 0, width: W, height: 100, rx: 10, fill: PAPER });
    root.append(bg);

    let y = M + 20;
    for (const line of wrap(caption, Math.floor((W - 2 * M) / (17 * 0.55)), 3)) {
      root.append(S("text", { x: M, y, fill: INK, "font-size": 17, "font-weight": 700, class: "caption" }, line));
      y += 23;
    }
    y += 4;

    // the board: column numbers above, row numbers at the left
    const boardW = LABEL + columns * CELL_SIZE;
    const bx = wide ? M + LABEL : (W - boardW) / 2 + LABEL;
    const by = y + LABEL;
    for (let c = 0; c < columns; c++) {
      root.append(S("text", { x: bx + c * CELL_SIZE + CELL_SIZE / 2, y: y + 17, fill: MUTED, "font-size": 15,
        "font-weight": 700, "text-anchor": "middle", "data-column-label": c }, String(c)));
    }
    for (let r = 0; r < rows; r++) {
      root.append(S("text", { x: bx - 10, y: by + r * CELL_SIZE + CELL_SIZE / 2 + 5, fill: MUTED, "font-size": 15,
        "font-weight": 700, "text-anchor": "middle", "data-row-label": r }, String(r)));
    }
    root.append(S("rect", { x: bx - 3, y: by - 3, width: columns * CELL_SIZE + 6, height: rows * CELL_SIZE + 6,
      rx: 6, fill: EDGE }));
    for (const cell of pic.cells || []) {
      const x = bx + cell.column * CELL_SIZE;
      const top = by + cell.row * CELL_SIZE;
      const id = key([cell.row, cell.column]);
      const isLast = last.has(id);
      const isHint = hints.has(id);
      const g = S("g", { "data-cell": id, "data-rank": cell.rank, "data-last": isLast ? "true" : "false",
        "data-hint": isHint ? "true" : "false", class: "coin" });
      g.append(S("title", {}, tr(cell.title)));
      g.append(S("rect", { x: x + 1, y: top + 1, width: CELL_SIZE - 2, height: CELL_SIZE - 2, fill: CELL }));
      const fill = RANKS[cell.rank] || EDGE;
      g.append(S("circle", { cx: x + CELL_SIZE / 2, cy: top + CELL_SIZE / 2, r: R, fill, stroke: "#00000055",
        "stroke-width": 1.5 }));
      g.append(S("text", { x: x + CELL_SIZE / 2, y: top + CELL_SIZE / 2 + 8, fill: inkOn(fill), "font-size": wide ? 22 : 20,
        "font-weight": 700, "text-anchor": "middle" }, cell.symbol));
      if (isHint) g.append(S("rect", { x: x + 4, y: top + 4, width: CELL_SIZE - 8, height: CELL_SIZE - 8, rx: 6,
        fill: "none", stroke: HINT, "stroke-width": 3, "stroke-dasharray": "6 4", class: "hint" }));
      if (isLast) g.append(S("rect", { x: x + 2, y: top + 2, width: CELL_SIZE - 4, height: CELL_SIZE - 4, rx: 6,
        fill: "none", stroke: LAST, "stroke-width": 5, class: "last" }));
      root.append(g);
    }
    let below = by + rows * CELL_SIZE + 12;
    if ((pic.last_swap || []).length) {
      const by_ = players.find((p) => p.letter === pic.last_swap_by);
      const who = by_ ? `${tr(by_.name)} (${by_.letter})` : "";
      const text = `${tr(pic.last_swap_label)}: ${pic.last_swap.map((c) => `(${c[0]},\u00a0${c[1]})`).join("\u00a0↔ ")}` +
        (who ? ` · ${who}` : "");
      root.append(S("rect", { x: bx, y: below + 2, width: 16, height: 16, rx: 3, fill: "none", stroke: LAST,
        "stroke-width": 3 }));
      const room = Math.floor((columns * CELL_SIZE - 24) / (15 * 0.55));
      for (const line of wrap(text, room, 2)) {
        root.append(S("text", { x: bx + 24, y: below + 16, fill: INK, "font-size": 15, "data-last-swap": "true" },
          line));
        below += 21;
      }
      below += 7;
    }

    // the players and the trophies: beside the board when wide, below it on a phone
    let px = wide ? bx + columns * CELL_SIZE + 30 : M;
    let py = wide ? y : below + 6;
    const colW = W - px - M;
    players.forEach((p) => {
      const name = tr(p.name);
      const role = tr(p.role);
      const parts = [role, tr(p.trophies_label)];
      if (p.to_move) parts.push(tr(pic.labels.to_move));
      if (p.winner) parts.push(tr(pic.labels.winner));
      const lines = wrap(parts.join(" · "), Math.floor((colW - 70) / (15 * 0.55)), 2);
      const h = 46 + lines.length * 20;
      const g = S("g", { "data-player": p.letter, "data-trophies": p.trophies,
        "data-to-move": p.to_move ? "true" : "false", "data-winner": p.winner ? "true" : "false", class: "player" });
      g.append(S("title", {}, `${name} (${p.letter}) · ${role} · ${tr(p.trophies_label)}`));
      g.append(S("rect", { x: px, y: py, width: colW, height: h, rx: 8, fill: FACE,
        stroke: p.to_move ? TURN : p.winner ? HINT : EDGE, "stroke-width": p.to_move || p.winner ? 4 : 1.5 }));
      const colour = ctx.colour(p.colour || "gray");
      const swatch = /^#[0-9a-f]{6}$/i.test(colour) ? colour : "#8a8f94";
      g.append(S("circle", { cx: px + 30, cy: py + h / 2, r: 20, fill: colour, class: "swatch" }));
      g.append(S("text", { x: px + 30, y: py + h / 2 + 7, fill: inkOn(swatch), "font-size": 20, "font-weight": 700,
        "text-anchor": "middle" }, p.letter));
      const shown = (p.winner ? "★ " : p.to_move ? "▶ " : "") + name;
      g.append(S("text", { x: px + 60, y: py + 26, fill: INK, "font-size": 17, "font-weight": 700, class: "name" },
        shown.length > 24 ? shown.slice(0, 23) + "…" : shown));
      lines.forEach((line, n) => g.append(S("text", { x: px + 60, y: py + 50 + n * 20,
        fill: p.to_move ? TURN : MUTED, "font-size": 15 }, line)));
      root.append(g);
      py += h + 10;
    });

    // trophies: one row per round (Night, Day), one tile per rank with its holder's letter
    py += 6;
    const labelW = wide ? 70 : 60;
    const tile = Math.min(48, (colW - labelW) / 6 - 6);
    [["night", pic.labels.night], ["day", pic.labels.day]].forEach(([round, label], n) => {
      const ty = py + n * (tile + 16);
      root.append(S("text", { x: px, y: ty + tile / 2 + 6, fill: INK, "font-size": 15, "font-weight": 700 },
        tr(label)));
      (pic.trophies || []).forEach((t, k) => {
        const x = px + labelW + k * (tile + 6);
        const letter = t[round + "_letter"];
        const state = t[round + "_state"];  // held, free or aside
        const holder = tr(t[round]);
        const g = S("g", { "data-trophy": `${round}-${t.rank}`, "data-holder": letter || "", "data-state": state,
          class: "trophy" });
        g.append(S("title", {}, `${tr(label)} ${t.symbol}: ${holder}`));
        const fill = letter ? RANKS[t.rank] : state === "aside" ? ASIDE : FACE;
        g.append(S("rect", { x, y: ty, width: tile, height: tile, rx: 6, fill, stroke: EDGE,
          "stroke-width": 1.5, "stroke-dasharray": state === "free" ? "4 3" : "none" }));
        g.append(S("text", { x: x + tile / 2, y: ty + (letter ? tile / 2 : tile / 2 + 6), fill: inkOn(fill),
          "font-size": 16, "font-weight": 700, "text-anchor": "middle",
          "text-decoration": state === "aside" ? "line-through" : "none" }, t.symbol));
        if (letter) g.append(S("text", { x: x + tile / 2, y: ty + tile - 5, fill: inkOn(fill), "font-size": 14,
          "font-weight": 700, "text-anchor": "middle" }, letter));
        root.append(g);
      });
    });
    py += 2 * (tile + 16);

    const height = Math.max(below, py) + M;
    root.setAttribute("viewBox", `0 0 ${W} ${height}`);
    bg.setAttribute("height", height);
    return root;
  }

  Pictures.register("space-and-time", draw);
})();
