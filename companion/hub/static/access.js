// Who this page acts as. The hub puts a token in the page (<meta name="companion-token">) only for
// the host and for a player's own phone; every change is sent with it in the X-Companion-Token
// header, which a page of another site cannot send. Without a token the page only watches.
"use strict";
const ACCESS = {
  token: (document.querySelector('meta[name="companion-token"]') || {}).content || "",
  role: document.body.dataset.role || "spectator",
};

// A change to the table: POST (or `method`) with the page's token; `body` is sent as JSON.
function hubSend(url, body, method) {
  const headers = {};
  if (ACCESS.token) headers["X-Companion-Token"] = ACCESS.token;
  const init = { method: method || "POST", headers, credentials: "same-origin" };
  if (body !== undefined) {
    headers["Content-Type"] = "application/json";
    init.body = JSON.stringify(body);
  }
  return fetch(url, init);
}

// A read that only the host may make (the players' join links).
function hubGet(url) {
  return fetch(url, { headers: ACCESS.token ? { "X-Companion-Token": ACCESS.token } : {}, credentials: "same-origin" });
}
