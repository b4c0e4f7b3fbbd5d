// Renders a game's view panels and scores (shapes documented in companion/table/referee.py).
"use strict";

function el(tag, cls, text) {
  const e = document.createElement(tag);
  if (cls) e.className = cls;
  if (text !== undefined && text !== null) e.textContent = String(text);
  return e;
}

function renderGrid(panel, onPick) {
  const table = el("table", "grid");
  const picked = [];
  const highlight = new Set((panel.highlight || []).map((rc) => rc.join(",")));
  panel.rows.forEach((row, r) => {
    const tr = el("tr");
    row.forEach((cell, c) => {
      const td = el("td", highlight.has(r + "," + c) ? "hl" : "", cell);
      if (panel.select && onPick) {
        td.classList.add("pickable");
        td.tabIndex = 0;
        td.addEventListener("click", () => {
          const i = picked.findIndex((p) => p[0] === r && p[1] === c);
          if (i >= 0) { picked.splice(i, 1); td.classList.remove("picked"); }
          else { picked.push([r, c]); td.classList.add("picked"); }
          if (picked.length === panel.select) {
            onPick({ type: panel.action_type, cells: picked.slice() });
            picked.length = 0;
            table.querySelectorAll(".picked").forEach((x) => x.classList.remove("picked"));
          }
        });
      }
      tr.append(td);
    });
    table.append(tr);
  });
  return table;
}

function renderPanels(root, view, onPick) {
  root.textContent = "";
  if (!view) return;
  if (view.summary) root.append(el("p", "summary", view.summary));
  for (const panel of view.panels || []) {
    const box = el("section", "panel");
    if (panel.title) box.append(el("h3", "", panel.title));
    if (panel.kind === "lines") {
      const ul = el("ul");
      for (const line of panel.lines || []) ul.append(el("li", "", line));
      box.append(ul);
    } else if (panel.kind === "grid") {
      box.append(renderGrid(panel, onPick));
    } else if (panel.kind === "table") {
      const table = el("table", "data");
      const head = el("tr");
      for (const col of panel.columns || []) head.append(el("th", "", col));
      table.append(head);
      for (const row of panel.rows || []) {
        const tr = el("tr");
        for (const cell of row) tr.append(el("td", "", cell));
        table.append(tr);
      }
      box.append(table);
    } else {
      box.append(el("pre", "", JSON.stringify(panel, null, 1)));
    }
    root.append(box);
  }
}

function renderScores(root, scores, explanation) {
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
    const tr = el("tr", (scores.winners || []).includes(name) ? "winner" : "");
    tr.append(el("td", "", name), el("td", "", p.total !== undefined ? p.total : ""));
    table.append(tr);
  }
  root.append(table);
  if (explanation) root.append(el("p", "winners", tSentence(explanation)));
  else if (scores.winners && scores.winners.length) {
    const names = scores.winners.join(", ");
    root.append(el("p", "winners", scores.winners.length > 1 ? t("Shared victory: {names}", { names })
      : t("Winner: {names}", { names })));
  }
  const more = el("a", "", t("Full results, export and print"));
  more.href = "/end";
  root.append(more);
}
