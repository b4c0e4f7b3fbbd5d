// The storage banner (templates/_storage.html): "storage full: the game is paused, nothing is lost"
// while the hub cannot write the game log, from the snapshot's "storage" part.
"use strict";

function renderStorage(storage) {
  const banner = document.getElementById("storage-banner");
  if (!banner) return;
  const held = Boolean(storage) && storage.ok === false;
  banner.hidden = !held;
  document.body.classList.toggle("storage-held", held);
  const message = held ? tr(storage.message) : "";
  const detail = held ? storage.detail || "" : "";
  const shown = document.getElementById("storage-message");
  if (shown.textContent !== message) shown.textContent = message;
  const why = document.getElementById("storage-detail");
  if (why.textContent !== detail) why.textContent = detail;
}
