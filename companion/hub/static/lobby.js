// The club's lobby: the tables with their games and clocks, refreshed every 2 s; the club host adds
// and ends tables (companion/club.py).
"use strict";

function lobbyClock(seconds) {
  const s = Math.max(0, Math.round(seconds));
  return Math.floor(s / 60) + ":" + String(s % 60).padStart(2, "0");
}

const LOBBY_PHASES = { ready: t("ready to start"), running: t("running"), paused: t("paused"),
                       expired: t("time is up"), aborted: t("ended early") };

function lobbyMessage(text) { document.getElementById("message").textContent = text || ""; }

async function lobbyRefresh() {
  let data;
  try {
    data = await (await fetch("api/tables", { credentials: "same-origin" })).json();
  } catch (e) {
    lobbyMessage(t("The club does not answer; retrying…"));
    return;
  }
  lobbyMessage("");
  const list = document.getElementById("tables");
  const seen = new Set();
  for (const table of data.tables) {
    seen.add(table.table);
    let li = list.querySelector('li[data-table="' + CSS.escape(table.table) + '"]');
    if (!li) {
      li = document.createElement("li");
      li.dataset.table = table.table;
      li.innerHTML = '<a class="table-name"></a><div class="game"></div><div class="clock"></div>' +
                     '<div class="phase"></div><div class="seats"></div><div class="resumed" hidden></div>';
      if (data.host) {
        const end = document.createElement("button");
        end.className = "end-table";
        end.textContent = t("End table");
        end.addEventListener("click", async () => {
          if (!window.confirm(t("End table {table}? Its game stops; its log is kept.", { table: table.table }))) return;
          const res = await fetch("api/tables/" + encodeURIComponent(table.table), { method: "DELETE", credentials: "same-origin" });
          if (!res.ok) lobbyMessage((await res.json()).error);
          lobbyRefresh();
        });
        li.append(end);
      }
      list.append(li);
    }
    const link = li.querySelector(".table-name");
    link.textContent = t("Table {table}", { table: table.table });
    link.href = table.url;
    li.querySelector(".game").textContent = table.title + (table.variant ? " · " + table.variant : "");
    li.querySelector(".clock").textContent = lobbyClock(table.clock.remaining_s);
    li.querySelector(".phase").textContent = LOBBY_PHASES[table.clock.phase] || table.clock.phase;
    li.querySelector(".seats").textContent = t("{online} of {timers} sandtimers online · {players}",
      { online: table.online, timers: table.timers, players: table.players.join(", ") });
    const resumed = li.querySelector(".resumed");  // the club started again after a crash: this game goes on
    resumed.hidden = !table.resumed;
    resumed.textContent = table.resumed ? tr({ msg: "resumed after a restart ({count} event)",
      plural: "resumed after a restart ({count} events)", args: { count: table.resumed.events } }) : "";
  }
  for (const li of [...list.children]) if (!seen.has(li.dataset.table)) li.remove();
  document.getElementById("count").textContent = t("Tables playing: {count}", { count: data.tables.length });
}

function lobbyGames() {
  const select = document.getElementById("new-game");
  for (const [value, label] of (window.CLUB_GAMES || [])) {
    const option = document.createElement("option");
    option.value = value;
    option.textContent = label;
    select.append(option);
  }
}

document.getElementById("pin-form").addEventListener("submit", async (e) => {
  e.preventDefault();
  const res = await fetch("api/club/host", { method: "POST", credentials: "same-origin",
    headers: { "Content-Type": "application/json" }, body: JSON.stringify({ pin: document.getElementById("pin").value }) });
  if (res.ok) location.reload();
  else lobbyMessage((await res.json()).error);
});

document.getElementById("add-form").addEventListener("submit", async (e) => {
  e.preventDefault();
  const body = { table: document.getElementById("new-table").value, game: document.getElementById("new-game").value,
                 players: Number(document.getElementById("new-players").value) };
  const res = await fetch("api/tables", { method: "POST", credentials: "same-origin",
    headers: { "Content-Type": "application/json" }, body: JSON.stringify(body) });
  if (res.ok) { document.getElementById("new-table").value = ""; lobbyRefresh(); }
  else lobbyMessage((await res.json()).error);
});

lobbyGames();
lobbyRefresh();
setInterval(lobbyRefresh, 2000);
