// Timeline: España on the dashboard: the time line of face-up cards, left to right with their years, the
// card placed last (or the one just discarded), the deck and the discard pile, and each player's hand as
// a fan of card backs with its count. Drawn from the referee's view ("picture", built by
// Pages.picture in companion/games/timeline/pages.py); every word comes from its texts. At a table
// deck the hub knows only the years (a card whose year nobody entered shows "?") and draws the card
// put in a gap, not turned over yet, dashed in its place.
//
// Layout: a wide dashboard (760 px and more) puts seven cards in a row on a 960-unit picture, a phone
// three on a 400-unit one, so labels stay at least 12 px high. The line wraps from row to row.
"use strict";

(function () {
  const FONT = 15;
  const INK = "#1f1b16";
  const MUTED = "#4d4437";
  const PAPER = "#f4efe4";
  const FACE = "#fffdf7";
  const EDGE = "#8a7a5a";
  const YEAR = "#7a1f1f";
  const LINE = "#6b5a3a";
  const BACK = "#2f4b7c";
  const LAST = "#b7791f";
  const WRONG = "#a4262c";
  const TURN = "#1d4ed8";

  // Words of `text` in lines of at most `chars` characters; at most `lines` lines, the last one cut with "…".
  function wrap(text, chars, lines) {
    const words = String(text || "").split(/\s+/).filter(Boolean);
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
      let last = kept[lines - 1];
      while (last.length > chars - 1) last = last.slice(0, -1);
      kept[lines - 1] = last.replace(/[\s,;:]+$/, "") + "…";
      return kept;
    }
    return out.map((l) => (l.length > chars ? l.slice(0, chars - 1) + "…" : l));
  }

  function draw(pic, ctx) {
    const S = (tag, attrs, text) => ctx.svg(tag, attrs, text);
    const tr = (t) => ctx.tr(t);
    const wide = (window.innerWidth || 1280) >= 760;
    const W = wide ? 960 : 360;
    const M = 12;
    const perRow = wide ? 7 : 3;
    const gap = wide ? 14 : 10;
    const cardW = (W - 2 * M - (perRow - 1) * gap) / perRow;
    const font = wide ? FONT : 14;
    const chars = Math.max(8, Math.floor((cardW - 12) / (font * 0.55)));
    const maxLines = wide ? 5 : 6;

    const cards = pic.cards || [];
    const titleLines = cards.map((card) => wrap(ctx.tr(card.title), chars, maxLines));
    const used = Math.max(1, ...titleLines.map((lines) => lines.length));
    const cardH = 58 + (used - 1) * (font + 3) + 16;  // as tall as the longest title needs
    const players = pic.players || [];
    const root = S("svg", {
      width: "100%",
      preserveAspectRatio: "xMidYMin meet",
      "data-cards": cards.length,
      "data-players": players.length,
      "data-deck": pic.deck,
      "data-discard": pic.discard,
      "font-family": "system-ui, sans-serif",
    });
    const caption = tr(pic.caption);
    root.setAttribute("aria-label", caption);
    root.append(S("title", {}, caption));
    const bg = S("rect", { x: 0, y: 0, width: W, height: 100, rx: 10, fill: PAPER });
    root.append(bg);

    // the caption: whose turn it is, or who won
    let y = M + 20;
    for (const line of wrap(caption, Math.floor((W - 2 * M) / (18 * 0.55)), 2)) {
      root.append(S("text", { x: M, y, fill: INK, "font-size": 18, "font-weight": 700, class: "caption" }, line));
      y += 24;
    }
    y += 6;

    // the time line: rows of cards on a line, left to right
    const rows = Math.max(1, Math.ceil(cards.length / perRow));
    for (let r = 0; r < rows; r++) {
      const inRow = cards.slice(r * perRow, (r + 1) * perRow);
      const top = y + r * (cardH + 22);
      const mid = top + cardH / 2;
      const x1 = M + (inRow.length - 1) * (cardW + gap) + cardW + (r === rows - 1 ? 14 : gap / 2);
      root.append(S("line", { x1: r === 0 ? M - 4 : M - gap / 2, y1: mid, x2: Math.min(W - 2, x1), y2: mid,
        stroke: LINE, "stroke-width": 4, "stroke-linecap": "round", class: "time-line" }));
      if (r === rows - 1) {
        const tip = Math.min(W - 2, x1);
        root.append(S("path", { d: `M ${tip} ${mid} l -10 -7 l 0 14 z`, fill: LINE }));
      }
      inRow.forEach((card, i) => {
        const x = M + i * (cardW + gap);
        const g = S("g", { "data-card": card.id, "data-year": card.year, "data-index": r * perRow + i,
          "data-last": card.last ? "true" : "false", "data-placing": card.placing ? "true" : "false",
          class: "card" });
        const year = tr(card.year_label);
        const title = tr(card.title);
        g.append(S("title", {}, [year, title].filter(Boolean).join(" · ")));
        // a card put in its gap and not turned over yet: dashed, in the colour of whose turn it is
        g.append(S("rect", { x, y: top, width: cardW, height: cardH, rx: 8, fill: FACE,
          stroke: card.placing ? TURN : card.last ? LAST : EDGE, "stroke-width": card.last || card.placing ? 5 : 2,
          "stroke-dasharray": card.placing ? "10 6" : undefined }));
        const yearFont = Math.min(wide ? 24 : 22, (cardW - 10) / (Math.max(year.length, 1) * 0.62));
        g.append(S("text", { x: x + cardW / 2, y: top + 30, fill: YEAR, "font-size": yearFont.toFixed(1),
          "font-weight": 700, "text-anchor": "middle", class: "year" }, year));
        g.append(S("line", { x1: x + 10, y1: top + 40, x2: x + cardW - 10, y2: top + 40, stroke: EDGE,
          "stroke-width": 1 }));
        const lines = titleLines[r * perRow + i];
        lines.forEach((line, n) => g.append(S("text", { x: x + 6, y: top + 58 + n * (font + 3), fill: INK,
          "font-size": font, class: "event" }, line)));
        root.append(g);
      });
    }
    y += rows * (cardH + 22) + 4;

    // the card placed last: kept in the line (marked above), or discarded
    if (pic.last) {
      const ok = Boolean(pic.last.correct);
      const text = `${tr(pic.labels.last)}: ` +
        [tr(pic.last.year_label), tr(pic.last.title), tr(ok ? pic.labels.correct : pic.labels.wrong)]
          .filter(Boolean).join(" · ");
      const g = S("g", { "data-last-card": pic.last.id, "data-correct": ok ? "true" : "false" });
      g.append(S("rect", { x: M, y: y - 2, width: 14, height: 14, rx: 3, fill: ok ? LAST : WRONG }));
      for (const line of wrap(text, Math.floor((W - 2 * M - 22) / (font * 0.55)), 3)) {
        g.append(S("text", { x: M + 22, y: y + 11, fill: ok ? INK : WRONG, "font-size": font }, line));
        y += font + 6;
      }
      root.append(g);
      y += 8;
    }

    // the piles
    const pile = (x, count, label, kind) => {
      const g = S("g", { ["data-" + kind]: count });
      g.append(S("title", {}, tr(label)));
      for (let i = Math.min(3, count) - 1; i >= 0; i--) {
        g.append(S("rect", { x: x + i * 3, y: y - i * 3, width: 30, height: 42, rx: 4,
          fill: kind === "deck-pile" ? BACK : FACE, stroke: EDGE, "stroke-width": 1.5 }));
      }
      if (!count) g.append(S("rect", { x, y, width: 30, height: 42, rx: 4, fill: "none", stroke: EDGE,
        "stroke-dasharray": "4 3" }));
      g.append(S("text", { x: x + 44, y: y + 27, fill: INK, "font-size": font }, tr(label)));
      root.append(g);
    };
    pile(M, pic.deck, pic.deck_label, "deck-pile");
    if (!wide) y += 56;  // a phone stacks the piles
    pile(wide ? W / 2 : M, pic.discard, pic.discard_label, "discard-pile");
    y += 60;

    // the players: name in their colour's bar, the hand as card backs and its count, their state
    const cols = wide ? 4 : 2;
    const chipW = (W - 2 * M - (cols - 1) * 10) / cols;
    const chipH = 78;
    players.forEach((p, i) => {
      const x = M + (i % cols) * (chipW + 10);
      const top = y + Math.floor(i / cols) * (chipH + 10);
      const g = S("g", { "data-player": p.name, "data-hand": p.cards, "data-to-move": p.to_move ? "true" : "false",
        "data-out": p.out ? "true" : "false", "data-winner": p.winner ? "true" : "false", class: "player" });
      const status = tr(p.status);
      g.append(S("title", {}, [p.name, tr(p.hand), status].filter(Boolean).join(" · ")));
      g.append(S("rect", { x, y: top, width: chipW, height: chipH, rx: 8, fill: FACE,
        stroke: p.to_move ? TURN : p.winner ? LAST : EDGE, "stroke-width": p.to_move || p.winner ? 4 : 1.5 }));
      g.append(S("rect", { x, y: top, width: 10, height: chipH, rx: 4, fill: ctx.colour(p.colour || p.name),
        class: "swatch" }));
      const name = (p.winner ? "★ " : p.to_move ? "▶ " : "") + p.name;
      g.append(S("text", { x: x + 18, y: top + 22, fill: INK, "font-size": 16, "font-weight": 700,
        "text-decoration": p.out ? "line-through" : "none" }, name.length > 22 ? name.slice(0, 21) + "…" : name));
      const backs = Math.min(p.cards, 8);
      for (let b = 0; b < backs; b++) {
        g.append(S("rect", { x: x + 18 + b * 9, y: top + 32, width: 16, height: 22, rx: 2, fill: BACK,
          stroke: FACE, "stroke-width": 1, class: "hand-card" }));
      }
      g.append(S("text", { x: x + 18 + Math.max(backs, 1) * 9 + 14, y: top + 49, fill: INK, "font-size": font,
        class: "hand" }, tr(p.hand)));
      if (status) g.append(S("text", { x: x + 18, y: top + 71, fill: p.to_move ? TURN : MUTED, "font-size": font,
        class: "status" }, status));
      root.append(g);
    });
    y += Math.ceil(players.length / cols) * (chipH + 10) + M;

    root.setAttribute("viewBox", `0 0 ${W} ${y}`);
    bg.setAttribute("height", y);
    return root;
  }

  Pictures.register("timeline", draw);
})();
