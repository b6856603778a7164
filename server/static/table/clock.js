// The turn timer (the `turn_seconds` option, ruling R102) as the pages show it: a countdown of
// the state's `timer` from its `deadline`, against the server's clock (the table reckons it
// from the `ts` of the events it receives), or the time it has left while the GM has paused
// it. The GM console adds Pause and Resume: `pause_turn_timer`, `resume_turn_timer`.

import { h } from "/table/render.js";

/** The countdown shows the warning colour from this many seconds before the end on. */
export const WARN_SECONDS = 10;

/** How long "time is up" shows before the server's word that the time ran out (ms). */
const OUT_SHOWN_MS = 3000;

/** The commands that stop and start the timer again: the GM's, with controls of their own. */
export const TIMER_COMMANDS = ["pause_turn_timer", "resume_turn_timer"];

/** Milliseconds as the countdown shows them: "1:05", "0:09" (whole seconds, rounded up). */
export function clockText(ms) {
  const s = Math.max(0, Math.ceil(ms / 1000));
  return `${Math.floor(s / 60)}:${String(s % 60).padStart(2, "0")}`;
}

/** What the timer says now: null when none runs; else its `state` (running, warned, paused or
 *  out), the milliseconds left and whose turn it counts. */
export function timerNow(table) {
  const t = table.timer;
  if (!t) return null;
  if (t.remaining !== null && t.remaining !== undefined) return { state: "paused", left: t.remaining, combatant: t.combatant };
  if (t.deadline === null || t.deadline === undefined) return null;
  const now = table.serverNow();
  const left = t.deadline - now;
  const state = left <= 0 ? "out" : t.warn_at !== null && t.warn_at !== undefined && now >= t.warn_at ? "warned" : "running";
  return { state, left: Math.max(0, left), combatant: t.combatant };
}

/**
 * The countdown, kept up to date four times a second: `{el, update()}`. With `run` (the GM
 * console's command sender) it has Pause and Resume buttons, offered while the state (or the
 * GM's legal actions) allows them.
 */
export function turnTimer(table, run = null) {
  const text = h("span", { class: "clock" });
  const error = h("span", { class: "error", role: "alert" });
  const button = (command, label) => h("button", { type: "button", class: command.replace(/_/g, "-"), dataset: { command }, hidden: true,
    onclick: async (ev) => {
      error.textContent = "";
      ev.target.disabled = true;
      try { await run(command, {}); } catch (err) { error.textContent = ` ${err.code || ""}: ${err.message || err}`; } finally { ev.target.disabled = false; }
    } }, label);
  const pause = run ? button("pause_turn_timer", "Pause the timer") : null;
  const resume = run ? button("resume_turn_timer", "Resume the timer") : null;
  const el = h("p", { class: "turn-timer", hidden: true, "aria-live": "off" }, text, pause ? " " : "", pause, resume, error);
  const update = () => {
    // a timer counts the turn of the combatant acting now, as this viewer sees it: while
    // another one acts (a hidden one the table does not see, the GM's screen) it is not shown
    // and a timer past its end that the server has not ended (it ends it at once:
    // `turn_timer_expired` takes it off the state) is one whose end this viewer is not told
    // yet (the table's view held behind the GM's screen): "time is up" is not said for long
    const now = timerNow(table);
    const stale = !!now && (now.combatant !== table.current
      || (now.state === "out" && table.serverNow() - table.timer.deadline > OUT_SHOWN_MS));
    el.hidden = !now || stale;
    if (!now || stale) { delete el.dataset.state; return; }
    // the warning colour from the last WARN_SECONDS on, whatever the options' warning
    el.dataset.state = now.state === "running" && now.left <= WARN_SECONDS * 1000 ? "warned" : now.state;
    el.dataset.left = String(Math.ceil(now.left / 1000));
    const who = table.nameOf(now.combatant);
    text.textContent = now.state === "paused" ? `${who}'s turn: ${clockText(now.left)} left (paused)`
      : now.state === "out" ? `${who}'s turn: time is up` : `${who}'s turn: ${clockText(now.left)} left`;
    if (run) {
      const listed = new Set(table.legal.filter((a) => a.combatant === null || a.combatant === undefined).map((a) => a.action));
      pause.hidden = !(listed.has("pause_turn_timer") || now.state !== "paused");
      resume.hidden = !(listed.has("resume_turn_timer") || now.state === "paused");
    }
  };
  setInterval(update, 250);
  return { el, update };
}
