// Time Splicers on the dashboard: the coloured Timelines as rows of cards in Era order (cards of one Era
// line up, as adjacent cards do on the table), the meeples under the card they stand on, the Time Portal
// and a special starting card with the meeples in them, the piles, and each player's hand, Time Crystals,
// Time Jump tokens and state, with whose turn it is. Drawn from the referee's view ("picture",
// companion/games/time_splicers/table.py); every word comes from the picture's texts, translated with
// ctx.tr.
//
// Layout: a phone gets one column 360 units wide (labels at 14 units stay above 12 px at 342 px of
// width); a wide dashboard puts the players beside the Timelines.
"use strict";

(function () {
  const M = 8;
  const FONT = 14;
  const INK = "#f2f4f8";
  const MUTED = "#aab3c5";
  const DARK = "#111111";
  const TABLE = "#141a2b";
  const PANEL = "#1e263a";
  const SLOT = "#3a4560";
  const GOLD = "#f2c14e";
  const CRYSTAL = "#5fd3f3";
  const ICE = "#bfe3ff";
  const BAD = "#ff8a8a";
  const CARD_COLOURS = {
    red: "#c0392b", blue: "#2163a8", green: "#23824b", yellow: "#e0b100", purple: "#7d3c98",
    orange: "#b85c00", black: "#2b2b2b", white: "#ececec", pink: "#c2417f", brown: "#7a4a22",
    grey: "#5f6368", gray: "#5f6368",
  };

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
    return (l + 0.05) / 0.05 >= 1.05 / (l + 0.05) ? DARK : INK;
  }

  // The width of `text` in SVG units at `size` (measured with the page's fonts; estimated without a canvas).
  let measurer = null;
  function measure(text, size, weight) {
    if (measurer === null) {
      try { measurer = document.createElement("canvas").getContext("2d") || false; } catch (err) { measurer = false; }
    }
    if (!measurer) return String(text).length * size * 0.62;
    measurer.font = `${weight || 400} ${size}px system-ui, sans-serif`;
    return measurer.measureText(String(text)).width;
  }

  // Words of `text` in lines at most `width` units wide.
  function wrap(text, width, size, weight) {
    const lines = [];
    let line = "";
    for (const word of String(text).split(/\s+/)) {
      if (line && measure(line + " " + word, size, weight) > width) { lines.push(line); line = word; }
      else line = line ? line + " " + word : word;
    }
    if (line) lines.push(line);
    return lines;
  }

  function draw(pic, ctx) {
    const S = (tag, attrs, text) => ctx.svg(tag, attrs, text);
    const tr = (t) => ctx.tr(t);
    const titled = (el, text) => { el.prepend(S("title", {}, text)); return el; };
    const write = (x, y, text, attrs) =>
      S("text", Object.assign({ x, y, fill: INK, "font-size": FONT, "font-family": "system-ui, sans-serif" },
        attrs || {}), text);
    const playerColour = (p) => {
      const chosen = (window.PLAYER_COLOURS || {})[p.name];
      const c = chosen || (p.colour ? ctx.colour(p.colour) : "");
      return /^#[0-9a-f]{6}$/i.test(c || "") ? c : "#8a8f94";
    };
    const cardColour = (colour) => CARD_COLOURS[String(colour).toLowerCase()] || "#5f6368";

    const players = pic.players || [];
    const byName = Object.fromEntries(players.map((p) => [p.name, p]));
    const toMove = pic.turn ? pic.turn.player : null;
    const [lo, hi] = pic.eras || [1, 13];
    const eras = Math.max(1, hi - lo + 1);
    const wide = (window.innerWidth || 1280) >= 760;
    const W = wide ? 760 : 360;
    const boardW = wide ? 480 : W;
    const colW = (boardW - 2 * M) / eras;
    const cardW = Math.max(8, colW - 3);

    const root = S("svg", { viewBox: `0 0 ${W} 100`, width: "100%", preserveAspectRatio: "xMidYMin meet",
      "data-turn": toMove || "", "data-over": pic.turn ? "false" : "true",
      "data-rows": (pic.rows || []).length });
    root.style.width = "100%";
    root.style.height = "auto";
    root.style.display = "block";
    root.append(S("title", {}, tr(pic.summary)));
    const background = S("rect", { x: 0, y: 0, width: W, height: 100, rx: 10, fill: TABLE });
    root.append(background);

    // The summary on top: whose turn it is, or how the game ended.
    let y = M;
    const caption = S("g", { class: "ts-summary" });
    for (const line of wrap(tr(pic.summary), W - 2 * M, 15, 700)) {
      y += 20;
      caption.append(write(M, y, line, { "font-size": 15, "font-weight": 700 }));
    }
    root.append(caption);
    y += 8;

    // A meeple: a disc in the player's colour; the player to move has a gold ring.
    function meeple(x, cy, name, where) {
      const p = byName[name] || { name };
      const m = S("circle", { cx: x, cy, r: 4.5, fill: playerColour(p), stroke: name === toMove ? GOLD : INK,
        "stroke-width": name === toMove ? 2.5 : 1.2, "data-meeple": name, "data-where": where });
      m.append(S("title", {}, name));
      return m;
    }
    function meeples(names, cx, top, where, perLine) {
      const g = S("g", {});
      names.forEach((name, i) => {
        const line = Math.floor(i / perLine);
        const inLine = Math.min(perLine, names.length - line * perLine);
        const x = cx + ((i % perLine) - (inLine - 1) / 2) * 10;
        g.append(meeple(x, top + 5 + line * 11, name, where));
      });
      return g;
    }

    // --- the Timelines -------------------------------------------------------------------------------
    const board = S("g", { class: "ts-board" });
    const headerY = y + 14;
    for (let e = lo; e <= hi; e++) {
      const x = M + (e - lo) * colW + colW / 2;
      board.append(write(x, headerY, String(e), { fill: MUTED, "text-anchor": "middle",
        "font-size": eras > 13 ? 12 : FONT }));
    }
    y = headerY + 6;
    const perCard = Math.max(1, Math.floor((colW + 1) / 10));
    for (const row of pic.rows || []) {
      const fill = cardColour(row.colour);
      const g = S("g", { class: "ts-timeline", "data-timeline": row.colour, "data-cards": row.cards.length,
        "data-frozen-by": (row.frozen_by || []).join(",") });
      titled(g, tr(row.label));
      g.append(S("rect", { x: M, y: y + 6, width: 6, height: 12, rx: 2, fill }));
      g.append(write(M + 11, y + 17, tr(row.label), { "font-weight": 600 }));
      let top = y + 24;
      if (row.frozen_label) {  // beside the name, or on a line of its own when it does not fit
        const text = "❄ " + tr(row.frozen_label);
        let x = M + 11 + measure(tr(row.label), FONT, 600) + 10;
        let ty = y + 17;
        if (x + measure(text, FONT) > boardW - M) { x = M + 11; ty += 18; top += 18; }
        const tag = S("g", { class: "ts-frozen" });
        tag.append(write(x, ty, text, { fill: ICE }));
        g.append(titled(tag, tr(row.frozen_label)));
      }
      const taken = new Set(row.cards.map((card) => card.number));
      for (let e = lo; e <= hi; e++) {  // the empty Eras of the row, faintly: cards of one Era line up
        if (taken.has(e)) continue;
        g.append(S("rect", { x: M + (e - lo) * colW + (colW - cardW) / 2, y: top + 1, width: cardW, height: 36,
          rx: 3, fill: "none", stroke: SLOT, "stroke-width": 1, "stroke-dasharray": "3 3" }));
      }
      let lines = 0;
      for (const card of row.cards) {
        const x = M + (card.number - lo) * colW + (colW - cardW) / 2;
        const c = S("g", { class: "ts-card", "data-card": card.id, "data-number": card.number,
          "data-meeples": card.meeples.join(",") });
        titled(c, tr(card.name) + (card.meeples.length ? " · " + card.meeples.join(", ") : ""));
        c.append(S("rect", { x, y: top, width: cardW, height: 38, rx: 3, fill,
          stroke: card.singularity ? GOLD : "#0b0f1a", "stroke-width": card.singularity ? 2.5 : 1 }));
        c.append(write(x + cardW / 2, top + 25, String(card.number), { fill: inkOn(fill),
          "text-anchor": "middle", "font-size": cardW >= 22 ? 16 : 13, "font-weight": 700 }));
        if (card.meeples.length) {
          c.append(meeples(card.meeples, x + cardW / 2, top + 40, card.id, perCard));
          lines = Math.max(lines, Math.ceil(card.meeples.length / perCard));
        }
        g.append(c);
      }
      board.append(g);
      y = top + 38 + lines * 11 + (lines ? 6 : 4);
    }
    if (!(pic.rows || []).length) {
      y += 22;
      board.append(write(M, y, tr(pic.empty_label), { fill: MUTED }));
      y += 8;
    }
    root.append(board);

    // --- the Time Portal, a special starting card, the piles ------------------------------------------
    const side = S("g", { class: "ts-side" });
    y += 10;
    const portal = pic.portal || { meeples: [] };
    const pg = S("g", { class: "ts-portal", "data-portal": "time-portal", "data-meeples": portal.meeples.join(",") });
    titled(pg, tr(portal.label) + (portal.meeples.length ? " · " + portal.meeples.join(", ") : ""));
    const px = M + 44;
    const py = y + 26;
    pg.append(S("ellipse", { cx: px, cy: py, rx: 42, ry: 24, fill: "#3b2a6b", stroke: "#b49cff", "stroke-width": 2 }));
    pg.append(S("ellipse", { cx: px, cy: py, rx: 26, ry: 14, fill: "none", stroke: "#b49cff", "stroke-width": 1.2 }));
    pg.append(meeples(portal.meeples, px, py - 5, "time-portal", 6));
    const portalLabel = tr(portal.label);
    pg.append(write(Math.max(M, px - measure(portalLabel, FONT) / 2), py + 42, portalLabel));
    side.append(pg);
    let sx = px + 62;
    if (pic.start) {
      const st = S("g", { class: "ts-start", "data-start": pic.start.id, "data-meeples": pic.start.meeples.join(",") });
      titled(st, tr(pic.start.label));
      st.append(S("rect", { x: sx, y: y + 4, width: 34, height: 44, rx: 3, fill: "#5f6368", stroke: GOLD, "stroke-width": 1.5 }));
      st.append(write(sx + 17, y + 32, "★", { "text-anchor": "middle", "font-size": 18 }));
      st.append(meeples(pic.start.meeples, sx + 17, y + 50, pic.start.id, 3));
      const lines = wrap(tr(pic.start.label), W - sx - 42 - M, FONT);
      lines.forEach((line, i) => st.append(write(sx + 42, y + 20 + i * 18, line)));
      side.append(st);
    }
    const piles = S("g", { class: "ts-piles", "data-deck": pic.deck, "data-discard": pic.discard });
    let ly = y + 26 + 42 + 24;
    for (const [count, text] of [[pic.deck, pic.deck_label], [pic.discard, pic.discard_label]]) {
      piles.append(S("rect", { x: M, y: ly - 12, width: 10, height: 14, rx: 1.5, fill: "#7f8aa3" }));
      piles.append(S("rect", { x: M + 3, y: ly - 15, width: 10, height: 14, rx: 1.5, fill: "#c9d0de" }));
      piles.append(write(M + 20, ly, tr(text), { "data-count": count }));
      ly += 20;
    }
    side.append(piles);
    root.append(side);
    let height = ly + 2;

    // --- the players ---------------------------------------------------------------------------------
    const panelX = wide ? boardW + 10 : M;
    const panelW = wide ? W - boardW - 10 - M : W - 2 * M;
    let py2 = wide ? headerY - 14 : height + 4;
    const list = S("g", { class: "ts-players" });
    for (const p of players) {
      const g = S("g", { class: "ts-player", "data-player": p.name, "data-hand": p.hand,
        "data-crystals": p.crystals, "data-tokens": p.tokens, "data-state": p.state || "",
        "data-to-move": p.to_move ? "true" : "false" });
      titled(g, [p.name, tr(p.hand_label), tr(p.crystals_label), tr(p.tokens_label)]
        .concat(p.on ? [tr(p.on)] : []).join(" · "));
      g.append(S("rect", { x: panelX, y: py2, width: panelW, height: 52, rx: 6, fill: PANEL,
        stroke: p.to_move ? GOLD : "none", "stroke-width": 2 }));
      g.append(S("rect", { x: panelX, y: py2, width: 7, height: 52, rx: 3, fill: playerColour(p) }));
      const out = p.state === "eliminated";
      const stateText = p.state_label ? tr(p.state_label) : "";
      const w = stateText ? measure(stateText, FONT, 600) + 16 : 0;
      const room = panelW - 14 - w - 16;
      let shown = (p.to_move ? "▶ " : "") + p.name;
      while (shown.length > 2 && measure(shown, 16, 700) > room) shown = shown.slice(0, -2) + "…";
      g.append(write(panelX + 14, py2 + 20, shown, { "font-size": 16,
        "font-weight": 700, fill: out ? MUTED : INK, "text-decoration": out ? "line-through" : "none" }));
      if (stateText) {
        const text = stateText;
        const colours = { winner: [GOLD, DARK], playing: [GOLD, DARK], "to start": ["#2f6fde", "#ffffff"],
          eliminated: ["#4a1f24", BAD] }[p.state] || [SLOT, INK];
        const badge = S("g", { class: "ts-state" });
        badge.append(S("rect", { x: panelX + panelW - w - 6, y: py2 + 6, width: w, height: 19, rx: 9,
          fill: colours[0] }));
        badge.append(write(panelX + panelW - 6 - w / 2, py2 + 20, text, { fill: colours[1],
          "text-anchor": "middle", "font-weight": 600 }));
        g.append(badge);
      }
      // second line: cards in hand, crystals found of those needed, Time Jump tokens
      let x = panelX + 14;
      const hand = S("g", { class: "ts-hand" });
      hand.append(S("rect", { x, y: py2 + 31, width: 9, height: 13, rx: 1.5, fill: "#c9d0de" }));
      const handText = tr(p.hand_label);
      hand.append(write(x + 14, py2 + 43, handText));
      g.append(titled(hand, handText));
      x += 14 + measure(handText, FONT) + 12;
      const gems = S("g", { class: "ts-crystals" });
      for (let i = 0; i < (pic.crystals_to_win || 7); i++) {
        const cx = x + i * 13 + 5;
        gems.append(S("polygon", { points: `${cx},${py2 + 30} ${cx + 5},${py2 + 37} ${cx},${py2 + 44} ${cx - 5},${py2 + 37}`,
          fill: i < p.crystals ? CRYSTAL : "none", stroke: i < p.crystals ? CRYSTAL : SLOT, "stroke-width": 1.3 }));
      }
      g.append(titled(gems, tr(p.crystals_label)));
      x += (pic.crystals_to_win || 7) * 13 + 8;
      const tokens = S("g", { class: "ts-tokens" });
      tokens.append(S("polygon", { points: `${x + 6},${py2 + 29} ${x},${py2 + 38} ${x + 5},${py2 + 38} ${x + 3},${py2 + 45} ${x + 10},${py2 + 35} ${x + 5},${py2 + 35}`,
        fill: GOLD }));
      tokens.append(write(x + 14, py2 + 43, "× " + p.tokens));
      g.append(titled(tokens, tr(p.tokens_label)));
      list.append(g);
      py2 += 58;
    }
    root.append(list);
    height = Math.max(height, py2) + M;
    root.setAttribute("viewBox", `0 0 ${W} ${height}`);
    background.setAttribute("height", String(height));
    return root;
  }

  if (window.Pictures) Pictures.register("time-splicers", draw);
})();
