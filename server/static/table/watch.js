// The spectator overlay: initiative order, whose turn it is and its timer, the conditions a
// spectator may see (fatigue only where the server sends it; how an NPC's stand, in words, R105),
// the battle map with every token and its legend, and the last few log lines (the server's words
// for each event). /watch?spectate=<token>; add &transparent=1 for streaming software,
// &size=1080p or &size=4k to scale it to a stream's canvas, &lines=N for more or fewer log lines,
// &replay=<speed> (and &from_round=<round>) to play the encounter back instead of watching it
// live. It reconnects and catches up by itself.

import { Connection, readHistory } from "/table/conn.js";
import { Table, loadRulesets } from "/table/model.js";
import { renderStatus, renderOrder, renderLog, renderMap, renderTokenLegend } from "/table/render.js";
import { turnTimer } from "/table/clock.js";

const $ = (id) => document.getElementById(id);
const params = new URLSearchParams(location.search);
const token = params.get("spectate");
const lines = Math.max(0, Math.min(50, Number(params.get("lines") || 6)));
const replay = params.get("replay")
  ? { speed: Number(params.get("replay")) || 1, from_round: Math.max(0, Number(params.get("from_round")) || 0) }
  : undefined;
if (params.get("transparent")) document.body.classList.add("transparent");
// &size=1080p or &size=4k scales the whole overlay for a stream's canvas (token labels 18 px at 1080p)
const size = { "1080p": 30, "4k": 60 }[params.get("size") || ""];
if (size) { document.documentElement.style.fontSize = `${size}px`; document.body.classList.add("sized"); }

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
  renderTokenLegend($("legend"), table);
  renderLog($("log"), table, lines);
  if (size) fitLog($("log"));
}

/** A sized overlay's log has the height the rest leaves: the oldest lines go until the newest
 * fit whole. */
function fitLog(el) {
  while (el.children.length > 1 && el.scrollHeight > el.clientHeight) el.firstElementChild.remove();
}
if (size) addEventListener("resize", () => render());

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
      // and again after the GM took commands back (R108): the server marks what is taken back
      const undone = msg.type === "event" && msg.event.kind === "commands_undone";
      if (((msg.type === "snapshot" && empty) || undone) && !replay) readHistory(conn).then((page) => { table.fromHistory(page.events); render(); }).catch(() => {});
      render();
    },
  });
  window.stablemaster = { conn, table };
  conn.start();
}
