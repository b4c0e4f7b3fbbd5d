// Renders a game's view panels and scores (shapes documented in companion/rules/pages.py). Every word
// the hub sends is a text ({"msg", "args"}) or a plain string: tr() shows either in the page's language.
"use strict";

function el(tag, cls, text) {
  const e = document.createElement(tag);
  if (cls) e.className = cls;
  if (text !== undefined && text !== null) e.textContent = typeof text === "object" ? tr(text) : String(text);
  return e;
}

// Cells a player has tapped on a pickable grid, kept across redraws while the board is unchanged
// (the page redraws on every live update, and a tap must not be lost to one).
const gridPicks = new Map();

function renderGrid(panel, onPick) {
  const table = el("table", "grid");
  const boardKey = JSON.stringify(panel.rows);
  const gridKey = JSON.stringify(panel.title);
  const memo = gridPicks.get(gridKey);
  const picked = memo && memo.board === boardKey ? memo.picked : [];
  gridPicks.set(gridKey, { board: boardKey, picked });
  const highlight = new Set((panel.highlight || []).map((rc) => rc.join(",")));
  panel.rows.forEach((row, r) => {
    const line = el("tr");
    row.forEach((cell, c) => {
      const td = el("td", highlight.has(r + "," + c) ? "hl" : "", cell);
      if (picked.some((p) => p[0] === r && p[1] === c)) td.classList.add("picked");
      if (panel.select && onPick) {
        td.classList.add("pickable");
        td.tabIndex = 0;
        td.addEventListener("click", () => {
          const i = picked.findIndex((p) => p[0] === r && p[1] === c);
          if (i >= 0) { picked.splice(i, 1); td.classList.remove("picked"); }
          else { picked.push([r, c]); td.classList.add("picked"); }
          if (picked.length === panel.select) {
            onPick({ "@": panel.action_type, cells: picked.slice() });
            picked.length = 0;
            table.querySelectorAll(".picked").forEach((x) => x.classList.remove("picked"));
          }
        });
      }
      line.append(td);
    });
    table.append(line);
  });
  return table;
}

const RING_PALETTE = { red: "#e74c3c", yellow: "#f1c40f", green: "#2ecc71", blue: "#3498db", purple: "#9b59b6",
                       orange: "#e67e22", white: "#ecf0f1", black: "#7f8c8d" };
const RING_ORDER = Object.values(RING_PALETTE);
window.PLAYER_COLOURS = window.PLAYER_COLOURS || {};
const SVG_NS = "http://www.w3.org/2000/svg";

function svg(tag, attrs, text) {
  const e = document.createElementNS(SVG_NS, tag);
  for (const [k, v] of Object.entries(attrs || {})) e.setAttribute(k, String(v));
  if (text !== undefined) e.textContent = String(text);
  return e;
}

// The orbital ring of Space Dealer (also its victory-point track) as a picture: one disc per field,
// tinted with its owner's colour; victory-point markers as dots and ships as triangles, each with the
// player's initial so colour is never the only cue.
function renderRing(panel) {
  const chosen = window.PLAYER_COLOURS || {};
  const colour = (name) => chosen[name] || RING_PALETTE[name]
    || RING_ORDER[(panel.players || []).indexOf(name) % RING_ORDER.length] || "#888";
  const n = panel.fields.length;
  const size = 420, mid = size / 2, radius = 150;
  const pic = svg("svg", { viewBox: "0 0 " + size + " " + size, class: "ring", role: "img",
                           "aria-label": tr(panel.title) });
  pic.append(svg("circle", { cx: mid, cy: mid, r: radius, fill: "none", stroke: "#556", "stroke-width": 2,
                             "stroke-dasharray": "4 6" }));
  panel.fields.forEach((f, i) => {
    const a = -Math.PI / 2 + (2 * Math.PI * i) / n;
    const x = mid + radius * Math.cos(a), y = mid + radius * Math.sin(a);
    const g = svg("g", { class: "field", "data-field": f.label });
    g.append(svg("circle", { cx: x, cy: y, r: 24, fill: f.owner ? colour(f.owner) : "#2a3044",
                             "fill-opacity": f.owner ? 0.35 : 1, stroke: f.owner ? colour(f.owner) : "#667",
                             "stroke-width": 3 }));
    g.append(svg("text", { x: x, y: y + 5, "text-anchor": "middle", class: "ring-label" },
                 f.owner ? f.owner[0].toUpperCase() + f.label : f.label));
    (f.markers || []).forEach((m, j) => {
      const b = a + (j - (f.markers.length - 1) / 2) * 0.09;
      const mx = mid + (radius + 42) * Math.cos(b), my = mid + (radius + 42) * Math.sin(b);
      g.append(svg("circle", { cx: mx, cy: my, r: 8, fill: colour(m), class: "marker", "data-player": m }));
      g.append(svg("text", { x: mx, y: my + 4, "text-anchor": "middle", class: "ring-mark" }, m[0].toUpperCase()));
    });
    [...(f.ships || []), ...(f.arriving || [])].forEach((s, j) => {
      const b = a + (j - 0.5) * 0.12;
      const sx = mid + (radius - 44) * Math.cos(b), sy = mid + (radius - 44) * Math.sin(b);
      g.append(svg("polygon", { points: [sx, sy - 9, sx - 8, sy + 7, sx + 8, sy + 7].join(" "), fill: colour(s),
                                class: "ship", "data-player": s, opacity: (f.ships || []).includes(s) ? 1 : 0.5 }));
    });
    pic.append(g);
  });
  return pic;
}

// A score sheet the player fills in (Time 'n' Space light mode). Drafts survive live redraws until saved.
const sheetDrafts = new Map();

function renderCounterSheet(panel, onPick) {
  const key = JSON.stringify(panel.title) + "/" + panel.player;
  const saved = JSON.stringify(panel.entry);
  let draft = sheetDrafts.get(key);
  if (!draft || (!draft.dirty && draft.saved !== saved)) {
    draft = { saved, dirty: false, entry: JSON.parse(saved) };
    sheetDrafts.set(key, draft);
  }
  const entry = draft.entry;
  const box = el("div", "counter-sheet");
  const changed = () => { draft.dirty = true; };
  const select = (choices, value, onChange, label) => {
    const s = el("select");
    s.setAttribute("aria-label", label);
    for (const c of choices) {
      const o = el("option", "", c.label !== undefined ? c.label : c);
      o.value = c.value !== undefined ? c.value : c;
      s.append(o);
    }
    s.value = String(value);
    s.addEventListener("change", () => { onChange(s.value); changed(); });
    return s;
  };
  const rows = (title, list, make, blank) => {
    const section = el("div", "sheet-section");
    section.append(el("h4", "", title));
    list.forEach((item, i) => {
      const row = el("div", "sheet-row");
      row.append(...make(item, i));
      const remove = el("button", "remove", t("Remove"));
      remove.type = "button";
      remove.addEventListener("click", () => { list.splice(i, 1); changed(); rerender(); });
      row.append(remove);
      section.append(row);
    });
    const add = el("button", "add", t("Add"));
    add.type = "button";
    add.addEventListener("click", () => { list.push(blank()); changed(); rerender(); });
    section.append(add);
    return section;
  };
  const names = { gray: t("gray"), yellow: t("yellow"), blue: t("blue"), brown: t("brown") };
  const colours = panel.colors.map((c) => ({ value: c, label: names[c] || c }));
  const rerender = () => { box.replaceWith(renderCounterSheet(panel, onPick)); };
  box.append(
    rows(t("Counters I collected"), entry.collected, (c) => [
      select(colours, c.color, (v) => { c.color = v; }, t("Colour")),
      select(panel.values, c.value, (v) => { c.value = Number(v); }, t("Value")),
      select(panel.others, c.from, (v) => { c.from = v; }, t("From")),
    ], () => ({ color: panel.colors[0], value: panel.values[0], from: panel.others[0] })),
    rows(t("Bonus counters I hold"), entry.bonus, (b, i) => [
      select([1, 2, 3, 4, 5], b, (v) => { entry.bonus[i] = Number(v); }, t("Value")),
    ], () => 2),
    rows(t("My counters still above my control center"), entry.above, (c) => [
      select(colours, c.color, (v) => { c.color = v; }, t("Colour")),
      select(panel.values, c.value, (v) => { c.value = Number(v); }, t("Value")),
    ], () => ({ color: panel.colors[0], value: panel.values[0] })),
  );
  const save = el("button", "save", t("Save my score sheet"));
  save.type = "button";
  save.addEventListener("click", () => {
    draft.dirty = false;
    draft.saved = "";
    onPick({ "@": panel.action_type, sheet: { players: { [panel.player]: entry } } });
  });
  box.append(save);
  return box;
}

// What an API refusal says, in the page's language: its text ("message"), else its English sentence.
function errorText(body) {
  if (!body) return "";
  return tr(body.message !== undefined && body.message !== null ? body.message : body.error);
}

// Draws the view's panels into root (titles as <h3>, or the level in root's data-heading-level), only when the view changed since the last drawing there (a live
// update that changes nothing keeps every element, so a press, a pick or an open list is never lost).
const panelViewsDrawn = new WeakMap();

function renderPanels(root, view, onPick) {
  const key = JSON.stringify(view ? [view.summary, view.panels] : null);  // the picture is drawn elsewhere
  if (panelViewsDrawn.get(root) === key) return false;
  panelViewsDrawn.set(root, key);
  root.textContent = "";
  if (!view) return true;
  if (view.summary) root.append(el("p", "summary", view.summary));
  for (const panel of view.panels || []) {
    const box = el("section", "panel");
    if (panel.kind) box.dataset.kind = panel.kind;
    if (panel.title) box.append(el("h" + (root.dataset.headingLevel || "3"), "", panel.title));
    if (panel.kind === "lines") {
      const ul = el("ul");
      for (const line of panel.lines || []) ul.append(el("li", "", line));
      box.append(ul);
    } else if (panel.kind === "counter-sheet") {
      if (onPick) box.append(renderCounterSheet(panel, onPick));
    } else if (panel.kind === "ring") {
      box.append(renderRing(panel));
    } else if (panel.kind === "grid") {
      const scroll = el("div", "scroll");  // a wide grid scrolls inside its panel, never the page
      scroll.append(renderGrid(panel, onPick));
      box.append(scroll);
    } else if (panel.kind === "table") {
      const table = el("table", "data");
      const head = el("tr");
      for (const col of panel.columns || []) head.append(el(col === "" || col === null ? "td" : "th", "", col));
      table.append(head);
      for (const row of panel.rows || []) {
        const line = el("tr");
        for (const cell of row) line.append(el("td", "", cell));
        table.append(line);
      }
      const scroll = el("div", "scroll");
      scroll.append(table);
      box.append(scroll);
    } else {
      box.append(el("pre", "", JSON.stringify(panel, null, 1)));
    }
    root.append(box);
  }
  return true;
}

const panelScoresDrawn = new WeakMap();

function renderScores(root, scores, explanation) {
  const key = JSON.stringify([scores || null, explanation || null]);
  if (panelScoresDrawn.get(root) === key) return;
  panelScoresDrawn.set(root, key);
  root.textContent = "";
  if (!scores) { root.hidden = true; return; }
  root.hidden = false;
  root.append(el("h2", "", t("Final scores")));
  const players = scores.players || {};
  const table = el("table", "data scores");
  const head = el("tr");
  [t("Player"), t("Total")].forEach((h) => head.append(el("th", "", h)));
  table.append(head);
  for (const name of scores.ranking || Object.keys(players)) {
    const p = players[name] || {};
    const line = el("tr", (scores.winners || []).includes(name) ? "winner" : "");
    line.dataset.player = name;
    line.append(el("td", "", name), el("td", "", p.total !== undefined ? p.total : ""));
    table.append(line);
  }
  root.append(table);
  if (explanation) root.append(el("p", "winners", tr(explanation)));
  else if (scores.winners && scores.winners.length) {
    const names = scores.winners.join(", ");
    root.append(el("p", "winners", scores.winners.length > 1 ? t("Shared victory: {names}", { names })
      : t("Winner: {names}", { names })));
  }
  const more = el("a", "", t("Full results, export and print"));
  more.href = HUB + "/end";
  root.append(more);
}
