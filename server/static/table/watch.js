// The spectator overlay: initiative order, whose turn it is and its timer, the conditions a
// spectator may see (fatigue only where the server sends it), the battle map with every token,
// and the last few log lines (the server's words for each event). /watch?spectate=<token>;
// add &transparent=1 for streaming software, &lines=N for more or fewer log lines,
// &replay=<speed> (and &from_round=<round>) to play the encounter back instead of watching it
// live. It reconnects and catches up by itself.

import { Connection, readHistory } from "/table/conn.js";
import { Table, loadRulesets } from "/table/model.js";
import { renderStatus, renderOrder, renderLog, renderMap } from "/table/render.js";
import { turnTimer } from "/table/clock.js";

const $ = (id) => document.getElementById(id);
const params = new URLSearchParams(location.search);
const token = params.get("spectate");
const lines = Math.max(0, Math.min(50, Number(params.get("lines") || 6)));
const replay = params.get("replay")
  ? { speed: Number(params.get("replay")) || 1, from_round: Math.max(0, Number(params.get("from_round")) || 0) }
  : undefined;
if (params.get("transparent")) document.body.classList.add("transparent");

const table = new Table();
const timer = turnTimer(table);
$("turn").after(timer.el);

function render() {
  $("title").textContent = table.name || "…";
  document.title = `${table.name} — Stablemaster`;
  $("round").textContent = table.ended ? "the scene is over" : table.round ? `round ${table.round}` : table.started ? "" : "not started";
  $("turn").textContent = table.current ? `${table.nameOf(table.current)}'s turn` : "";
  $("turn").dataset.current = table.current || "";
  timer.update();
  renderOrder($("order"), table);
  renderMap($("map"), table);
  renderLog($("log"), table, lines);
}

if (!token) {
  $("title").textContent = "Add ?spectate=<spectator token> to the address";
} else {
  // the rulesets' words first (Action Time's "Health" for fatigue points), as the table's pages
  loadRulesets().catch(() => {}).then(watch);
}

function watch() {
  const conn = new Connection({
    spectate: token,
    replay,
    onStatus: (state, detail) => renderStatus($("status"), replay && state === "live" ? "replaying" : state, detail),
    onMessage: (msg) => {
      const empty = table.log.length === 0;
      table.apply(msg, conn.state);
      if (msg.type === "replay_ended") renderStatus($("status"), "replayed", "");
      // (a replay brings its own events: no history is read for it)
      if (msg.type === "snapshot" && empty && !replay) readHistory(conn).then((page) => { table.fromHistory(page.events); render(); }).catch(() => {});
      render();
    },
  });
  window.stablemaster = { conn, table };
  conn.start();
}
