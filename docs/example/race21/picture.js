// Race to 21 on the dashboard: a bar of 21 steps filled up to the count, and whose turn it is.
"use strict";

Pictures.register("race-21", (picture, ctx) => {
  const width = 420, height = 90, step = width / picture.target;
  const svg = ctx.svg("svg", { viewBox: `0 0 ${width} ${height}`, "aria-label": `${picture.count} / ${picture.target}` });
  for (let i = 0; i < picture.target; i += 1) {
    svg.append(ctx.svg("rect", {
      x: i * step + 1, y: 10, width: step - 2, height: 40, rx: 3,
      fill: i < picture.count ? "#2f78c4" : "#e6e2d8",
    }));
  }
  svg.append(ctx.svg("text", { x: width / 2, y: 78, "text-anchor": "middle", "font-size": 18 },
    picture.winner || picture.to_move));
  return svg;
});
