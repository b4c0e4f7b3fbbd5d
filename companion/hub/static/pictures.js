// Pictures of the game for the dashboard: each game draws its view's "picture" (structured data from the
// referee's view, companion/rules/pages.py) as one SVG, in companion/hub/static/pictures/<game>.js:
//
//   Pictures.register("<game name>", (picture, ctx) => svgElement);
//
// ctx gives the drawing helpers every game shares: ctx.svg(tag, attrs, text) makes an SVG element,
// ctx.tr(text) translates a hub text (i18n.js), ctx.colour(name) is a player's or a game colour as CSS.
// Nothing is drawn from image files: every state is drawn from the data.
"use strict";

const PICTURE_NS = "http://www.w3.org/2000/svg";
const PICTURE_COLOURS = {
  red: "#d64541", yellow: "#e0b100", green: "#2e9e5b", blue: "#2f78c4", purple: "#8e44ad",
  orange: "#e67e22", white: "#f4f4f4", black: "#3b3b3b", gray: "#8a8f94", grey: "#8a8f94",
  brown: "#8b5a2b", pink: "#e86fa7", cyan: "#1fa2b5",
};

const Pictures = {
  _draw: {},
  register(game, draw) { this._draw[game] = draw; },
  has(game) { return Object.prototype.hasOwnProperty.call(this._draw, game); },
  ctx: {
    svg(tag, attrs, text) {
      const e = document.createElementNS(PICTURE_NS, tag);
      for (const [k, v] of Object.entries(attrs || {})) if (v !== undefined && v !== null) e.setAttribute(k, String(v));
      if (text !== undefined && text !== null) e.textContent = String(text);
      return e;
    },
    tr(value) { return typeof tr === "function" ? tr(value) : String(value || ""); },
    colour(name) {
      if (!name) return PICTURE_COLOURS.gray;
      const key = String(name).toLowerCase();
      if (window.PLAYER_COLOURS && window.PLAYER_COLOURS[name]) return window.PLAYER_COLOURS[name];
      return PICTURE_COLOURS[key] || key;
    },
  },
  // The picture of `game` for `picture` (the view's "picture" field), or null when the game draws none.
  draw(game, picture) {
    if (!picture || !this.has(game)) return null;
    const drawn = this._draw[game](picture, this.ctx);
    if (drawn) {
      drawn.classList.add("game-picture");
      drawn.setAttribute("role", "img");
      drawn.dataset.game = game;
    }
    return drawn;
  },
};
window.Pictures = Pictures;
