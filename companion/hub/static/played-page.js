// The end screen's and a replay's picture of the game that was played: fetched once, drawn by played.js.
"use strict";
(function () {
  const box = document.getElementById("played");
  if (!box) return;
  const url = (window.HUB_ROOT || "") + "/api/history/" + encodeURIComponent(box.dataset.game) + "/played";
  fetch(url).then((r) => r.json()).then((data) => {
    if (data.ok === false) return;
    box.textContent = "";
    box.append(drawPlayed(data));
    box.dataset.drawn = "true";
  });
})();
