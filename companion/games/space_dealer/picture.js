// Space Dealer on the dashboard: the orbital ring, which is also the victory-point track (each player's
// planet in their colour with the victory-point markers placed on its orders, the neutral planets with
// their face-up order, every spaceship docked or arriving, the common pool in the middle), and each
// player's planet: power plants beside it, the cards built below with their goods and attack markers,
// the planning area, the spaceship and its cargo, and the sandtimers, drawn on what they stand on
// (sand on top while running, below once run out). Drawn from the referee's view ("picture",
// companion/games/space_dealer/pages.py); every word comes from the picture's texts, via ctx.tr.
//
// Layout: tiles 440 units wide. On a phone one column, as tall as it needs (the page scrolls), so labels
// stay at least 12 px high (17 units at 322 px of width); on a wide dashboard as many columns (1 to 3) as
// make the picture largest within the page's width and 80% of its height.
"use strict";

(function () {
  const TILE = 440;
  const GAP = 16;
  const PAD = 14;
  const FONT = 17;
  const INK = "#f2f4f8";
  const MUTED = "#b8c0d4";
  const DARK = "#111111";
  const SPACE = "#0b1020";
  const PANEL = "#1b2030";
  const CARD = "#2a3350";
  const EDGE = "#8a93a8";
  const NEUTRAL = "#3b4560";
  const SAND = "#f2c14e";
  const DONE = "#3fbf6f";
  const ALERT = "#ff6b6b";
  const GOODS = { red: "#d64541", yellow: "#e0b100", blue: "#3d7fd9", green: "#2e9e5b" };
  const FAMILY = "system-ui, sans-serif";

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

  function draw(pic, ctx) {
    const S = (tag, attrs, text) => ctx.svg(tag, attrs, text);
    const tr = (t) => ctx.tr(t);
    const colourOf = (name) => {
      const c = ctx.colour(name);
      return /^#[0-9a-f]{6}$/i.test(c) ? c : "#8a8f94";
    };
    const goodsColour = (c) => GOODS[c] || colourOf(c);
    const titled = (el, ...texts) => {
      el.append(S("title", {}, texts.map((t) => (typeof t === "string" ? t : tr(t))).filter(Boolean).join(" · ")));
      return el;
    };
    const text = (x, y, value, attrs) =>
      S("text", Object.assign({ x, y, fill: INK, "font-size": FONT, "font-family": FAMILY }, attrs || {}), value);
    // A text shrunk (never below 13 units) to fit `width`, for long card names in other languages.
    const fitted = (x, y, value, width, attrs) => {
      const size = Math.max(13, Math.min(FONT, width / (0.56 * Math.max(1, value.length))));
      return text(x, y, value, Object.assign({ "font-size": size.toFixed(1) }, attrs || {}));
    };
    // Two lines at most, broken at spaces.
    const lines = (value, perLine) => {
      const words = String(value).split(" ");
      const out = [""];
      for (const w of words) {
        const last = out[out.length - 1];
        if (!last || (last + " " + w).length <= perLine || out.length === 2) out[out.length - 1] = last ? last + " " + w : w;
        else out.push(w);
      }
      return out;
    };

    const phone = (window.innerWidth || 1280) < 760;
    const root = S("svg", { viewBox: `0 0 ${TILE} 100`, width: "100%", preserveAspectRatio: "xMidYMin meet",
      "data-phase": pic.phase, "data-started": pic.started ? "true" : "false" });
    root.style.width = "100%";
    root.style.height = "auto";
    root.style.display = "block";
    if (phone) root.style.maxHeight = "none";  // one readable column that scrolls with the page
    root.append(S("title", {}, tr(pic.words.ring)));

    // Goods cubes in a row from (x, y); more than three of a colour: one cube and "×n".
    function cubes(g, x, y, goods, size) {
      const s = size || 13;
      let cx = x;
      for (const c of goods || []) {
        const many = c.count > 3;
        for (let i = 0; i < (many ? 1 : c.count); i++) {
          g.append(S("rect", { x: cx, y: y - s, width: s, height: s, rx: 2, fill: goodsColour(c.colour),
            stroke: DARK, "stroke-width": 1, "data-cube": c.colour }));
          cx += s + 3;
        }
        if (many) {
          g.append(text(cx, y, "\u00d7" + c.count, { "font-size": FONT }));
          cx += 12 + String(c.count).length * 10 + 4;
        }
      }
      return cx;
    }

    // An hourglass for a sandtimer: sand on top while it runs, below once it has run out.
    function hourglass(x, y, timer, size, attrs) {
      const s = size || 24;
      const running = timer.status === "active";
      const g = S("g", Object.assign({ class: "sd-hourglass", "data-status": timer.status,
        transform: `translate(${x},${y})` }, attrs || {}));
      const ring = timer.sabotaged_by ? ALERT : running ? SAND : timer.status === "usable" ? DONE : EDGE;
      g.append(S("rect", { x: -s * 0.55, y: -s * 0.62, width: s * 1.1 + FONT * 0.8, height: s * 1.24, rx: 4,
        fill: SPACE, stroke: ring, "stroke-width": timer.sabotaged_by ? 3 : 2 }));
      g.append(S("polygon", { points: `${-s * 0.35},${-s * 0.45} ${s * 0.35},${-s * 0.45} 0,0`,
        fill: running ? SAND : "none", stroke: INK, "stroke-width": 1.5 }));
      g.append(S("polygon", { points: `${-s * 0.35},${s * 0.45} ${s * 0.35},${s * 0.45} 0,0`,
        fill: running ? "none" : SAND, stroke: INK, "stroke-width": 1.5 }));
      g.append(text(s * 0.45 + 2, FONT * 0.35, String(timer.number), { "font-weight": 700 }));
      return titled(g, timer.name, timer.label);
    }

    function shipShape(x, y, fill, arriving, scale) {
      const k = scale || 1;
      return S("polygon", { points: `${16 * k},0 ${-11 * k},${-10 * k} ${-5 * k},0 ${-11 * k},${10 * k}`,
        transform: `translate(${x},${y})`, fill: arriving ? SPACE : fill, stroke: arriving ? fill : INK,
        "stroke-width": arriving ? 2.5 : 1.5, "stroke-dasharray": arriving ? "4 3" : null });
    }

    // --- the orbital ring ---------------------------------------------------------------------------
    function ringTile() {
      const g = S("g", { class: "sd-ring" });
      const top = 50;
      const size = TILE - 24;
      const height = top + size;
      g.append(S("rect", { x: 0, y: 0, width: TILE, height, rx: 12, fill: SPACE }));
      g.append(fitted(PAD, 24, tr(pic.words.ring), TILE - 2 * PAD, { "font-weight": 700 }));
      g.append(fitted(PAD, 46, tr(pic.phase_label), TILE - 2 * PAD, { fill: MUTED }));
      const cx = TILE / 2;
      const cy = top + size / 2;
      const n = pic.ring.length;
      const R = size / 2 - 58;
      const r = Math.max(20, Math.min(32, (Math.PI * R) / n - 6));
      g.append(S("circle", { cx, cy, r: R, fill: "none", stroke: NEUTRAL, "stroke-width": 6 }));
      pic.ring.forEach((field, i) => {
        const a = -Math.PI / 2 + (2 * Math.PI * i) / n;
        const at = (radius, along) => [cx + radius * Math.cos(a) - (along || 0) * Math.sin(a),
          cy + radius * Math.sin(a) + (along || 0) * Math.cos(a)];
        const [x, y] = at(R);
        const fill = field.owner ? colourOf(field.owner) : NEUTRAL;
        const fg = S("g", { class: "sd-field", "data-field": field.field, "data-owner": field.owner || "" });
        fg.append(S("circle", { cx: x, cy: y, r, fill, stroke: field.owner ? INK : EDGE, "stroke-width": 2 }));
        fg.append(text(x, y + 6, String(field.field), { fill: inkOn(fill), "text-anchor": "middle",
          "font-weight": 700 }));
        // victory-point markers on the owner's orders, inside the ring
        field.markers.forEach((by, m) => {
          const row = Math.floor(m / 5);
          const [mx, my] = at(R - r - 14 - row * 16, ((m % 5) - Math.min(4, field.markers.length - 1 - row * 5) / 2) * 16);
          fg.append(titled(S("circle", { cx: mx, cy: my, r: 7, fill: colourOf(by), stroke: INK, "stroke-width": 1.5,
            "data-marker": by }), by));
        });
        // a neutral planet's face-up order: the goods it wants and its points
        if (field.order) {
          const og = S("g", { class: "sd-order", "data-order": field.order.card });
          const [ox, oy] = at(R - r - 26);
          const wanted = field.order.goods.reduce((k, c) => k + Math.min(c.count, 3), 0);
          const w = wanted * 13 + 10 + 24;
          og.append(S("rect", { x: ox - w / 2, y: oy - 13, width: w, height: 26, rx: 4, fill: CARD, stroke: EDGE }));
          const end = cubes(og, ox - w / 2 + 5, oy + 6, field.order.goods, 10);
          og.append(text(end + 2, oy + 6, String(field.order.points[0]), { "font-weight": 700 }));
          fg.append(titled(og, field.order.text));
        }
        if (field.goods.length) cubes(fg, ...at(R + r + 8, -20).map((v, k) => v + (k ? 6 : 0)), field.goods, 10);
        // spaceships docked here (outside the ring) or on their way here (dashed)
        field.ships.forEach((ship, s) => {
          const [sx, sy] = at(R + r + 20, (s - (field.ships.length - 1) / 2) * 28);
          const sg = S("g", { class: "sd-ship", "data-ship": ship.id, "data-arriving": ship.arriving ? "true" : "false" });
          sg.append(shipShape(sx, sy, ship.colour ? colourOf(ship.colour) : "#c0c4cc", ship.arriving));
          fg.append(titled(sg, ship.name));
        });
        g.append(titled(fg, field.label));
      });
      // the common pool in the middle
      const pool = S("g", { class: "sd-pool" });
      pool.append(text(cx, cy - 4, tr(pic.words.pool), { "text-anchor": "middle", fill: MUTED }));
      (pic.pool || []).forEach((c, k) => {
        const px = cx - 64 + (k % 2) * 70;
        const py = cy + 22 + Math.floor(k / 2) * 26;
        pool.append(S("rect", { x: px, y: py - 14, width: 18, height: 18, rx: 3, fill: goodsColour(c.colour),
          stroke: INK, "data-pool": c.colour }));
        pool.append(text(px + 24, py + 2, String(c.count)));
      });
      g.append(pool);
      return { g, height };
    }

    // --- a player's planet --------------------------------------------------------------------------
    function playerTile(p) {
      const colour = colourOf(p.name);
      const g = S("g", { class: "sd-player", "data-player": p.name });
      const timerOf = (number) => p.timers.find((t) => t.number === number);
      const parts = [];
      let y = 0;
      // name, points, tech level, markers left, stack
      parts.push(S("circle", { cx: PAD + 11, cy: 24, r: 11, fill: colour, stroke: INK, "stroke-width": 1.5,
        "data-swatch": p.name }));
      parts.push(fitted(PAD + 30, 30, p.name, 170, { "font-weight": 700 }));
      parts.push(text(TILE - PAD, 30, tr(p.points_label), { "text-anchor": "end", "font-weight": 700,
        "data-points": p.points }));
      parts.push(fitted(PAD, 54, `${tr(p.tech_label)} \u00b7 ${tr(p.stack_label)}`, TILE - 2 * PAD, { fill: MUTED }));
      parts.push(fitted(PAD, 76, tr(p.markers_label), TILE - 2 * PAD, { fill: MUTED, "data-markers-left": p.markers_left }));
      y = 84;

      // the planet row: power plants left and right of the planet (a timer on the planet beside it)
      const planet = S("g", { class: "sd-planet" });
      const pr = 26;
      const px = TILE / 2 - 20;
      planet.append(S("circle", { cx: px, cy: y + pr + 4, r: pr, fill: colour, stroke: INK, "stroke-width": 2 }));
      planet.append(text(px, y + pr + 10, String(p.tech_level), { fill: inkOn(colour), "text-anchor": "middle",
        "font-weight": 700 }));
      titled(planet, pic.words.planet, p.tech_label);
      parts.push(planet);
      if (p.planet_timer) parts.push(hourglass(px + pr + 22, y + pr + 4, timerOf(p.planet_timer), 20, { "data-on-timer": p.planet_timer }));
      for (const side of p.plants) {
        if (!side.cards.length) continue;
        const top = side.cards[side.cards.length - 1];
        const x = side.side === "left" ? PAD : px + pr + 52;
        const w = side.side === "left" ? px - pr - 10 - PAD : TILE - PAD - x;
        const pg = S("g", { class: "sd-plant", "data-plant": top.card, "data-side": side.side });
        pg.append(S("rect", { x, y: y + 8, width: w, height: 52, rx: 6, fill: "#4a3b1f", stroke: SAND, "stroke-width": 1.5 }));
        pg.append(fitted(x + 8, y + 30, tr(top.name), w - 16));
        pg.append(text(x + 8, y + 52, tr(side.side_label) + (side.cards.length > 1 ? ` \u00d7${side.cards.length}` : ""),
          { fill: MUTED }));
        parts.push(titled(pg, ...side.cards.map((c) => c.name)));
      }
      y += 2 * pr + 16;

      // the built cards, by unit from left to right
      const cw = (TILE - 2 * PAD - 10) / 2;
      const ch = 76;
      p.cards.forEach((card, k) => {
        const x = PAD + (k % 2) * (cw + 10);
        const cy = y + Math.floor(k / 2) * (ch + 8);
        const cg = S("g", { class: "sd-card", "data-card": card.card, "data-kind": card.kind,
          "data-covered": card.covered ? "true" : "false", "data-blocked": card.blocked_by || "",
          opacity: card.covered ? 0.5 : null });
        cg.append(S("rect", { x, y: cy, width: cw, height: ch, rx: 6, fill: CARD,
          stroke: card.blocked_by ? ALERT : EDGE, "stroke-width": card.blocked_by ? 3 : 1.5,
          "stroke-dasharray": card.covered ? "5 4" : null }));
        if (card.colour) cg.append(S("rect", { x, y: cy, width: 8, height: ch, rx: 3, fill: goodsColour(card.colour) }));
        const name = lines(tr(card.name), 19);
        name.forEach((line, i) => cg.append(fitted(x + 14, cy + 22 + i * 20, line, cw - 54)));
        let bx = x + 14;
        if (card.goods.length) bx = cubes(cg, bx, cy + ch - 8, card.goods, 13) + 6;
        for (let m = 0; m < card.attack_markers; m++) {
          cg.append(S("rect", { x: bx, y: cy + ch - 21, width: 13, height: 13, rx: 2, fill: DARK, stroke: INK,
            "data-attack-marker": card.card }));
          bx += 16;
        }
        if (card.order) {
          const og = S("g", { class: "sd-order", "data-order": card.order.card, "data-done": card.order.done ? "true" : "false" });
          const ox = cubes(og, Math.max(bx, x + cw - 128), cy + ch - 8, card.order.goods, 11);
          og.append(text(ox + 1, cy + ch - 8, card.order.points.join("/") + (card.order.done ? " \u2713" : ""),
            { fill: card.order.done ? DONE : INK, "font-weight": 700 }));
          cg.append(titled(og, card.order.text));
        }
        if (card.timer) cg.append(hourglass(x + cw - 34, cy + 22, timerOf(card.timer), 20, { "data-on-timer": card.timer }));
        parts.push(titled(cg, card.name, card.covered ? pic.words.built_over : null, card.blocked));
      });
      y += Math.ceil(p.cards.length / 2) * (ch + 8) + 8;

      // the planning area: planned cards and free spaces
      parts.push(text(PAD, y + 16, tr(pic.words.planning), { fill: MUTED }));
      y += 24;
      const slots = Math.max(p.planning_capacity, p.planning.length);
      const perRow = Math.min(3, Math.max(2, slots));
      const sw = (TILE - 2 * PAD - (perRow - 1) * 8) / perRow;
      for (let k = 0; k < slots; k++) {
        const planned = p.planning[k];
        const x = PAD + (k % perRow) * (sw + 8);
        const sy = y + Math.floor(k / perRow) * 48;
        const sg = S("g", { class: planned ? "sd-planned" : "sd-free-space", "data-planning": planned ? planned.card : "" });
        sg.append(S("rect", { x, y: sy, width: sw, height: 40, rx: 6, fill: planned ? CARD : "none", stroke: EDGE,
          "stroke-dasharray": planned ? null : "5 4", "stroke-width": 1.5 }));
        const label = planned ? tr(planned.name) : tr(pic.words.free_space);
        sg.append(fitted(x + 8, sy + 26, label, sw - (planned && planned.timer ? 56 : 16), { fill: planned ? INK : MUTED }));
        if (planned && planned.timer) sg.append(hourglass(x + sw - 34, sy + 20, timerOf(planned.timer), 18, { "data-on-timer": planned.timer }));
        parts.push(titled(sg, planned ? planned.name : pic.words.free_space));
      }
      y += Math.ceil(slots / perRow) * 48 + 2;

      // the spaceship (and the neutral one, with an Orbital Station) and its cargo
      const ships = [p.ship, p.neutral_ship].filter(Boolean);
      for (const ship of ships) {
        const own = ship === p.ship;
        const sg = S("g", { class: "sd-own-ship", "data-ship": ship.id });
        const inFlight = ship.field === null || ship.field === undefined;
        sg.append(shipShape(PAD + 16, y + 18, own ? colour : "#c0c4cc", inFlight, 1.1));
        const where = own ? tr(ship.where) : tr(ship.name);
        sg.append(fitted(PAD + 40, y + 24, where, TILE - 2 * PAD - 100));
        if (own && ship.timer) sg.append(hourglass(TILE - PAD - 34, y + 18, timerOf(ship.timer), 20, { "data-on-timer": ship.timer }));
        if (ship.cargo.length) {
          cubes(sg, PAD + 40, y + 50, ship.cargo, 14);
          y += 26;
        }
        parts.push(titled(sg, own ? pic.words.ship : ship.name, own ? ship.where : null));
        y += 36;
      }

      // the sandtimers: number and state; on a timer space they are drawn above as well
      const tg = S("g", { class: "sd-timers" });
      p.timers.forEach((timer, k) => {
        const x = PAD + 16 + k * 150;
        const hg = hourglass(x, y + 20, timer, 22, { "data-timer": timer.number, "data-node": timer.node || "",
          "data-player": p.name, "data-sabotaged": timer.sabotaged_by || "" });
        tg.append(hg);
        tg.append(fitted(x + 34, y + 26, tr(timer.state), 100, { fill: timer.sabotaged_by ? ALERT : MUTED }));
      });
      parts.push(tg);
      y += 44;

      const height = y + 4;
      g.append(S("rect", { x: 0, y: 0, width: TILE, height, rx: 12, fill: PANEL, stroke: colour, "stroke-width": 3 }));
      for (const part of parts) g.append(part);
      return { g, height };
    }

    // --- layout: tiles in columns, each next one into the shorter column ------------------------------
    const tiles = [ringTile(), ...pic.players.map(playerTile)];
    const place = (columns) => {
      const heights = new Array(columns).fill(0);
      const at = tiles.map((tile) => {
        const c = heights.indexOf(Math.min(...heights));
        const spot = [c * (TILE + GAP), heights[c]];
        heights[c] += tile.height + GAP;
        return spot;
      });
      return { columns, at, width: columns * TILE + (columns - 1) * GAP, height: Math.max(...heights) - GAP };
    };
    const host = document.getElementById("picture");
    const roomW = Math.max(300, ((host && host.parentElement && host.parentElement.clientWidth) || window.innerWidth) - 20);
    const roomH = 0.8 * (window.innerHeight || 800);
    let best = place(1);
    if (!phone) {
      const scale = (l) => Math.min(roomW / l.width, roomH / l.height);
      for (let columns = 2; columns <= Math.min(3, tiles.length); columns++) {
        const layout = place(columns);
        if (scale(layout) > scale(best) * 1.02) best = layout;
      }
    }
    tiles.forEach((tile, k) => {
      tile.g.setAttribute("transform", `translate(${best.at[k][0]},${best.at[k][1]})`);
      root.append(tile.g);
    });
    root.setAttribute("viewBox", `0 0 ${best.width} ${best.height}`);
    root.dataset.columns = String(best.columns);
    return root;
  }

  Pictures.register("space-dealer", draw);
})();
