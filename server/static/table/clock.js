// The turn timer (the `turn_seconds` option, ruling R102) as the pages show it: a countdown of
// the state's `timer` from its `deadline`, against the server's clock (the table reckons it
// from the `ts` of the events it receives), or the time it has left while the GM has paused
// it. The GM console adds Pause and Resume: `pause_turn_timer`, `resume_turn_timer`.

import { h } from "/table/render.js";

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
    const now = timerNow(table);
    el.hidden = !now;
    if (!now) { delete el.dataset.state; return; }
    el.dataset.state = now.state;
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
