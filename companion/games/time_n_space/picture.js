// Time 'n' Space on the dashboard: the main board (planets and moons on the ring of wormholes, the tile
// piles, the bonus counters, every spaceship where it is or on its way) and each player's control center
// (buildings with their spots, the research plant, the spaceship's time symbol) with the sandtimer that
// stands on each time symbol. Drawn from the referee's view ("picture", companion/games/time_n_space/
// picture.py); every word comes from the picture's texts, translated with ctx.tr.
//
// Layout: tiles 480 units wide. A wide dashboard puts them in two columns (board first), a phone in one,
// so labels stay at least 12 px high (18 units at 323 px of width, a 390 px phone).
"use strict";

(function () {
  const TILE = 480;
  const GAP = 16;
  const FONT = 18;
  const INK = "#f2f4f8";
  const DARK = "#111111";
  const SPACE = "#0b1020";
  const PANEL = "#1b2030";
  const SAND = "#f2c14e";
  const DONE = "#3fbf6f";
  const GOODS = { gray: "#9aa0a6", yellow: "#f2c94c", blue: "#3d7fd9", brown: "#8b5a2b" };
  const BUILDINGS = {
    production: { fill: "#c8873a", ink: DARK, stroke: "#f0c08a" },
    beam: { fill: "#2b2b2b", ink: INK, stroke: "#8a8f94" },
    trading: { fill: "#e9e9e9", ink: DARK, stroke: "#ffffff" },
  };
  // A pile whose top tile the hub does not know (a table deck: the players shuffled it).
  const UNSEEN = { fill: "#6d7a86", ink: INK, stroke: "#aab4bd" };

  function luminance(hex) {
    const m = /^#?([0-9a-f]{6})$/i.exec(String(hex || ""));
    if (!m) return 0.2;
    const [r, g, b] = [0, 2, 4].map((i) => {
      const c = parseInt(m[1].slice(i, i + 2), 16) / 255;
      return c <= 0.03928 ? c / 12.92 : Math.pow((c - 0.055) / 1.055, 2.4);
    });
    return 0.2126 * r + 0.7152 * g + 0.0722 * b;
  }

  // A label squeezed to `width` when its letters would not fit (estimated: no layout is needed to draw).
  function fit(el, text, width, size) {
    if (String(text).length * size * 0.56 > width) {
      el.setAttribute("textLength", Math.round(width));
      el.setAttribute("lengthAdjust", "spacingAndGlyphs");
    }
    return el;
  }

  // Dark or light ink, whichever reads better on `fill` (WCAG contrast).
  function inkOn(fill) {
    const l = luminance(fill);
    return (l + 0.05) / 0.05 >= 1.05 / (l + 0.05) ? DARK : INK;
  }

  function draw(pic, ctx) {
    const S = (tag, attrs, text) => ctx.svg(tag, attrs, text);
    const tr = (t) => ctx.tr(t);
    const colourOf = (name, colour) => {
      const c = ctx.colour(colour || name);
      return /^#[0-9a-f]{6}$/i.test(c) ? c : "#8a8f94";
    };
    const titled = (el, text) => { el.append(S("title", {}, tr(text))); return el; };
    const label = (x, y, text, attrs) =>
      S("text", Object.assign({ x, y, fill: INK, "font-size": FONT, "text-anchor": "middle",
        "font-family": "system-ui, sans-serif" }, attrs || {}), text);

    const wide = (window.innerWidth || 1280) >= 760;
    const columns = wide ? 2 : 1;
    const width = columns * TILE + (columns - 1) * GAP;
    const root = S("svg", { viewBox: `0 0 ${width} 100`, width: "100%", preserveAspectRatio: "xMidYMin meet",
      "data-variant": pic.variant, "data-phase": pic.phase });
    root.style.width = "100%";
    root.style.height = "auto";
    root.style.display = "block";
    // a phone shows the tiles one under the other at full width (taller than the screen: it scrolls), so
    // that labels stay readable; a wide dashboard keeps the page's height limit
    if (!wide) root.style.maxHeight = "none";
    root.append(S("title", {}, tr(pic.title)));

    // An hourglass for a sandtimer on a time symbol: sand on top while it runs, below when finished.
    function hourglass(x, y, timer, size) {
      const s = size || 24;
      const g = S("g", { class: "tns-timer", "data-node": timer.node, "data-player": timer.player,
        "data-timer": timer.index, "data-state": timer.state, transform: `translate(${x},${y})` });
      const running = timer.state === "running";
      g.append(S("rect", { x: -s * 0.55, y: -s * 0.6, width: s * 1.1 + FONT * 0.8, height: s * 1.2, rx: 4,
        fill: running ? "#3a2f12" : "#123a22", stroke: running ? SAND : DONE, "stroke-width": 2 }));
      g.append(S("polygon", { points: `${-s * 0.35},${-s * 0.45} ${s * 0.35},${-s * 0.45} 0,0`,
        fill: running ? SAND : "none", stroke: INK, "stroke-width": 1.5 }));
      g.append(S("polygon", { points: `${-s * 0.35},${s * 0.45} ${s * 0.35},${s * 0.45} 0,0`,
        fill: running ? "none" : SAND, stroke: INK, "stroke-width": 1.5 }));
      g.append(S("text", { x: s * 0.45 + 2, y: FONT * 0.35, fill: INK, "font-size": FONT, "font-weight": 700,
        "font-family": "system-ui, sans-serif" }, String(timer.index)));
      return titled(g, timer.title);
    }

    // --- the main board -----------------------------------------------------------------------------
    function board() {
      const g = S("g", { class: "tns-board" });
      const size = TILE;
      g.append(S("rect", { width: size, height: size, rx: 14, fill: SPACE, stroke: "#33406a", "stroke-width": 2 }));
      g.append(S("text", { x: 14, y: 28, fill: INK, "font-size": FONT + 2, "font-weight": 700,
        "font-family": "system-ui, sans-serif" }, tr(pic.legend.board)));
      const cx = size / 2, cy = size / 2 + 8, R = size * 0.33;
      const places = pic.board.places;
      const at = {};
      places.forEach((p, i) => {
        const a = -Math.PI / 2 + (2 * Math.PI * i) / places.length;
        at[p.id] = { x: cx + R * Math.cos(a), y: cy + R * Math.sin(a), a };
      });
      for (const [a, b] of pic.board.wormholes) {
        if (!at[a] || !at[b]) continue;
        g.append(S("line", { class: "tns-wormhole", "data-wormhole": `${a} ${b}`, x1: at[a].x, y1: at[a].y,
          x2: at[b].x, y2: at[b].y, stroke: "#6d7fb8", "stroke-width": 4, "stroke-dasharray": "2 7",
          "stroke-linecap": "round" }));
      }
      for (const p of places) {
        const { x, y } = at[p.id];
        const pg = S("g", { class: "tns-place", "data-place": p.id, "data-kind": p.kind });
        if (p.kind === "planet") {
          const fill = colourOf(p.player, p.colour);
          pg.setAttribute("data-planet", p.id);
          pg.setAttribute("data-player", p.player);
          pg.append(S("circle", { cx: x, cy: y, r: 38, fill, stroke: INK, "stroke-width": 3 }));
          if (p.bonus !== null && p.bonus !== undefined) {
            const bg = S("g", { class: "tns-bonus", "data-bonus": p.bonus });
            bg.append(S("circle", { cx: x + 30, cy: y - 30, r: 15, fill: "#ffffff", stroke: DARK, "stroke-width": 2 }));
            bg.append(label(x + 30, y - 24, String(p.bonus), { fill: DARK, "font-weight": 700 }));
            pg.append(bg);
          }
        } else {
          pg.setAttribute("data-moon", p.id);
          pg.setAttribute("data-pile", p.pile);
          pg.append(S("circle", { cx: x, cy: y, r: 27, fill: "#c9ced8", stroke: "#eef1f6", "stroke-width": 2 }));
          if (p.pile > 0) {
            const kind = BUILDINGS[p.top] || UNSEEN;
            const pile = S("g", { class: "tns-pile", "data-pile": p.pile, "data-top": p.top || "" });
            for (let k = Math.min(p.pile, 4) - 1; k >= 0; k--) {
              pile.append(S("rect", { x: x - 13 + k * 2, y: y - 13 - k * 3, width: 26, height: 26, rx: 3,
                fill: kind.fill, stroke: kind.stroke, "stroke-width": 1.5 }));
            }
            pile.append(label(x, y + 6, String(p.pile), { fill: kind.ink, "font-weight": 700 }));
            pg.append(pile);
          }
        }
        const below = y + (p.kind === "planet" ? 38 : 27) + FONT + 2;
        const name = tr(p.name);
        pg.append(fit(label(Math.max(76, Math.min(size - 76, x)), below, name, { "font-weight": 600 }), name, 150, FONT));
        g.append(titled(pg, p.title));
      }
      // ships: at a place on its inner side, or half way along the wormhole they fly through
      const here = {};
      for (const ship of pic.board.ships) (here[ship.at] = here[ship.at] || []).push(ship);
      pic.board.ships.forEach((ship) => {
        const from = at[ship.at];
        if (!from) return;
        let x, y, heading;
        if (ship.to && at[ship.to]) {
          const to = at[ship.to];
          const flying = pic.board.ships.filter((s) => s.to && s.at === ship.at && s.to === ship.to);
          const k = flying.indexOf(ship) - (flying.length - 1) / 2;
          const dx = to.x - from.x, dy = to.y - from.y, len = Math.hypot(dx, dy) || 1;
          x = from.x + dx * 0.55 - (dy / len) * k * 22;
          y = from.y + dy * 0.55 + (dx / len) * k * 22;
          heading = Math.atan2(dy, dx);
        } else {
          const group = here[ship.at];
          const k = group.indexOf(ship) - (group.length - 1) / 2;
          const inward = from.a + Math.PI + k * 0.5;
          const r = (pic.board.places.find((p) => p.id === ship.at) || {}).kind === "planet" ? 58 : 46;
          x = from.x + r * Math.cos(inward);
          y = from.y + r * Math.sin(inward);
          heading = inward;
        }
        const fill = colourOf(ship.player, ship.colour);
        const sg = S("g", { class: "tns-ship", "data-ship": ship.player, "data-at": ship.at,
          "data-to": ship.to || "" });
        const deg = (heading * 180) / Math.PI;
        sg.append(S("polygon", { points: "14,0 -10,-10 -5,0 -10,10", fill, stroke: INK, "stroke-width": 2,
          transform: `translate(${x},${y}) rotate(${deg})` }));
        if (ship.timer) sg.append(hourglass(x + 16, y + 18, ship.timer, 18));
        g.append(titled(sg, ship.title));
      });
      return { g, height: size };
    }

    // --- the goods supply ---------------------------------------------------------------------------
    function supply() {
      const g = S("g", { class: "tns-supply" });
      const h = 52;
      g.append(S("rect", { width: TILE, height: h, rx: 10, fill: PANEL }));
      const caption = tr(pic.legend.supply);
      const start = Math.min(230, 28 + caption.length * FONT * 0.62);
      g.append(fit(S("text", { x: 12, y: h / 2 + 6, fill: INK, "font-size": FONT, "font-weight": 700,
        "font-family": "system-ui, sans-serif" }, caption), caption, start - 20, FONT));
      const step = (TILE - start) / pic.supply.length;
      pic.supply.forEach((s, i) => {
        const x = start + i * step;
        const cg = S("g", { "data-supply": s.color, "data-count": s.count });
        cg.append(S("rect", { x, y: h / 2 - 13, width: 26, height: 26, rx: 4, fill: GOODS[s.color] || "#888",
          stroke: INK, "stroke-width": 1.5 }));
        cg.append(S("text", { x: x + 32, y: h / 2 + 6, fill: INK, "font-size": FONT,
          "font-family": "system-ui, sans-serif" }, String(s.count)));
        g.append(titled(cg, s.name));
      });
      return { g, height: h };
    }

    // --- a control center ---------------------------------------------------------------------------
    function spot(x, y, s) {
      const g = S("g", { class: "tns-spot" });
      if (s.cube) {
        g.setAttribute("data-cube", s.cube);
        g.append(S("rect", { x: x - 10, y: y - 10, width: 20, height: 20, rx: 3, fill: GOODS[s.cube] || "#888",
          stroke: INK, "stroke-width": 1.5 }));
      } else if (s.order) {
        g.setAttribute("data-order", `${s.order.color} ${s.order.value}`);
        const fill = GOODS[s.order.color] || "#888";
        g.append(S("circle", { cx: x, cy: y, r: 12, fill, stroke: "#ffffff", "stroke-width": 2.5 }));
        g.append(S("text", { x, y: y + 6, fill: inkOn(fill), "font-size": FONT, "font-weight": 700,
          "text-anchor": "middle", "font-family": "system-ui, sans-serif" }, String(s.order.value)));
      } else {
        g.setAttribute("data-free", s.want || "any");
        g.append(S("circle", { cx: x, cy: y, r: 10, fill: "none", stroke: s.want ? GOODS[s.want] : "#c0c6d2",
          "stroke-width": 2.5, "stroke-dasharray": "3 3" }));
      }
      return titled(g, s.title);
    }

    function controlCenter(p) {
      const g = S("g", { class: "tns-center", "data-player": p.name });
      const fill = colourOf(p.name, p.colour);
      const pad = 12, cols = 4, gapX = 8, cellW = (TILE - 2 * pad - (cols - 1) * gapX) / cols, cellH = 76;
      const top = 72, slotH = 54;
      const rows = Math.ceil(p.buildings.length / cols);
      const slotsY = top + rows * (cellH + 8);
      const height = slotsY + slotH + 12;
      g.append(S("rect", { width: TILE, height, rx: 12, fill: PANEL, stroke: fill, "stroke-width": 4 }));
      g.append(S("circle", { cx: 22, cy: 24, r: 9, fill, stroke: INK, "stroke-width": 1.5 }));
      const heading = tr(p.title);
      g.append(fit(S("text", { x: 38, y: 30, fill: INK, "font-size": FONT + 2, "font-weight": 700,
        "font-family": "system-ui, sans-serif" }, heading), heading, TILE - 38 - 80, FONT + 2));
      // sandtimers standing in front of the player (on no symbol)
      p.timers.filter((t) => t.state === "parked").forEach((t, k) => {
        const pg = S("g", { class: "tns-parked", "data-node": t.node, "data-timer": t.index });
        pg.append(S("polygon", { points: `${TILE - 24 - k * 30},14 ${TILE - 8 - k * 30},14 ${TILE - 16 - k * 30},26 ` +
          `${TILE - 8 - k * 30},38 ${TILE - 24 - k * 30},38 ${TILE - 16 - k * 30},26`, fill: "none", stroke: INK,
          "stroke-width": 2 }));
        g.append(titled(pg, t.label));
      });
      // counters: above the control center, collected below it, bonus
      const counters = S("g", { class: "tns-counters" });
      let x = pad;
      const row = (items, key, caption, title) => {
        const cg = S("g", { "data-counters": key });
        cg.append(S("text", { x, y: 56, fill: INK, "font-size": FONT, "font-family": "system-ui, sans-serif" },
          tr(caption)));
        x += 10 + tr(caption).length * FONT * 0.55;
        for (const item of items) {
          if (!item.count) continue;
          cg.append(S("rect", { x, y: 42, width: 16, height: 16, rx: 3, fill: GOODS[item.color] || "#888",
            stroke: INK, "stroke-width": 1 }));
          cg.append(S("text", { x: x + 19, y: 56, fill: INK, "font-size": FONT, "font-family": "system-ui, sans-serif" },
            String(item.count)));
          x += 22 + String(item.count).length * FONT * 0.6;
        }
        x += 10;
        counters.append(titled(cg, title));
      };
      row(p.above, "above", pic.legend.above, p.above_title);
      row(p.collected, "collected", pic.legend.collected, p.collected_title);
      if (p.bonus.length) {
        const bg = S("g", { "data-counters": "bonus" });
        bg.append(S("text", { x, y: 56, fill: INK, "font-size": FONT, "font-family": "system-ui, sans-serif" },
          `${tr(pic.legend.bonus)} ${p.bonus.join(" ")}`));
        counters.append(bg);
      }
      g.append(counters);
      // the buildings, in the control center's layout order
      p.buildings.forEach((b, i) => {
        const bx = pad + (i % cols) * (cellW + gapX), by = top + Math.floor(i / cols) * (cellH + 8);
        const look = BUILDINGS[b.type] || BUILDINGS.trading;
        const bg = S("g", { class: "tns-building", "data-building": b.id, "data-type": b.type, "data-stage": b.stage });
        bg.append(S("rect", { x: bx, y: by, width: cellW, height: cellH, rx: 8, fill: look.fill, stroke: look.stroke,
          "stroke-width": 2 }));
        bg.append(S("text", { x: bx + 8, y: by + 22, fill: look.ink, "font-size": FONT, "font-weight": 700,
          "font-family": "system-ui, sans-serif" }, `${b.id} ${b.stage}`));
        if (b.type === "trading") {
          bg.append(S("text", { x: bx + cellW / 2, y: by + 58, fill: look.ink, "font-size": FONT + 4, "font-weight": 700,
            "text-anchor": "middle", "font-family": "system-ui, sans-serif" }, `×${b.capacity}`));
        } else {
          const n = b.spots.length, step = Math.min(26, (cellW - 16) / Math.max(n, 1));
          b.spots.forEach((s, k) => {
            bg.append(spot(bx + cellW / 2 + (k - (n - 1) / 2) * step, by + 52, s));
          });
        }
        if (b.timer) bg.append(hourglass(bx + cellW - 30, by + 20, b.timer, 20));
        g.append(titled(bg, b.title));
      });
      // the research plant (in the player's colour) and the spaceship's time symbol
      const slotW = (TILE - 2 * pad - gapX) / 2;
      const research = S("g", { class: "tns-research", "data-research": p.research.tile ? p.research.tile.type : "" });
      research.append(S("rect", { x: pad, y: slotsY, width: slotW, height: slotH, rx: 8, fill, stroke: INK,
        "stroke-width": 1.5 }));
      const plant = tr(pic.legend.research);
      const room = slotW - 16 - (p.research.timer ? 52 : 0);
      research.append(fit(S("text", { x: pad + 8, y: slotsY + 22, fill: inkOn(fill), "font-size": FONT,
        "font-weight": 700, "font-family": "system-ui, sans-serif" }, plant), plant, room, FONT));
      if (p.research.tile) {
        const look = BUILDINGS[p.research.tile.type] || BUILDINGS.trading;
        const tg = S("g", { "data-tile": p.research.tile.id });
        const kind = `${tr(p.research.tile.kind)} II`;
        tg.append(S("rect", { x: pad + 8, y: slotsY + 30, width: 18, height: 18, rx: 3, fill: look.fill,
          stroke: look.stroke, "stroke-width": 1.5 }));
        tg.append(fit(S("text", { x: pad + 32, y: slotsY + 45, fill: inkOn(fill), "font-size": FONT,
          "font-family": "system-ui, sans-serif" }, kind), kind, slotW - 40, FONT));
        research.append(tg);
      } else {
        research.append(S("text", { x: pad + 8, y: slotsY + 45, fill: inkOn(fill), "font-size": FONT,
          "font-family": "system-ui, sans-serif" }, tr(pic.legend.empty)));
      }
      if (p.research.timer) research.append(hourglass(pad + slotW - 30, slotsY + 20, p.research.timer, 20));
      g.append(titled(research, p.research.title));
      const ship = S("g", { class: "tns-ship-symbol", "data-ship-symbol": p.name });
      const sx = pad + slotW + gapX;
      ship.append(S("rect", { x: sx, y: slotsY, width: slotW, height: slotH, rx: 8, fill: SPACE, stroke: fill,
        "stroke-width": 2 }));
      ship.append(S("polygon", { points: "14,0 -10,-10 -5,0 -10,10", fill, stroke: INK, "stroke-width": 1.5,
        transform: `translate(${sx + 20},${slotsY + 27})` }));
      const shipName = tr(pic.legend.ship), where = tr(p.ship.where);
      const shipRoom = slotW - 46 - (p.ship.timer ? 52 : 0);
      ship.append(fit(S("text", { x: sx + 38, y: slotsY + 22, fill: INK, "font-size": FONT, "font-weight": 700,
        "font-family": "system-ui, sans-serif" }, shipName), shipName, shipRoom, FONT));
      ship.append(fit(S("text", { x: sx + 38, y: slotsY + 45, fill: INK, "font-size": FONT,
        "font-family": "system-ui, sans-serif" }, where), where, slotW - 46, FONT));
      if (p.ship.timer) ship.append(hourglass(sx + slotW - 30, slotsY + 20, p.ship.timer, 20));
      g.append(titled(ship, p.ship.title));
      return { g, height };
    }

    // --- layout: tiles in columns, each next one into the shorter column ------------------------------
    const boardTile = board();
    const supplyTile = supply();
    const first = S("g", {});
    first.append(boardTile.g);
    supplyTile.g.setAttribute("transform", `translate(0,${boardTile.height + GAP / 2})`);
    first.append(supplyTile.g);
    const tiles = [{ g: first, height: boardTile.height + GAP / 2 + supplyTile.height }];
    for (const p of pic.players) tiles.push(controlCenter(p));
    const heights = new Array(columns).fill(0);
    for (const tile of tiles) {
      const c = heights.indexOf(Math.min(...heights));
      tile.g.setAttribute("transform", `translate(${c * (TILE + GAP)},${heights[c]})`);
      heights[c] += tile.height + GAP;
      root.append(tile.g);
    }
    root.setAttribute("viewBox", `0 0 ${width} ${Math.max(...heights) - GAP}`);
    return root;
  }

  Pictures.register("time-n-space", draw);
})();
