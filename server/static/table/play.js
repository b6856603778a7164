// The player's page at play: what the player's last command did (the server's summaries of the
// events that reached the page with or before its ack, nothing folded here), a turn that cannot
// be missed (its look, the tab's title, an optional sound and notification), the prompt to take
// a readied action when another combatant's command ends, and the keyboard's way through a turn
// (skip links, the move sent from the map, focus kept on the control that acted).

import { h } from "/table/render.js";
import { withoutRules, rulesNote } from "/table/rulenote.js";

/** The commands whose outcome the page shows (a combatant's action, a die entered or rolled). */
const SHOWN = new Set(["act", "submit_roll", "server_roll"]);

/** One log line as the player reads it: the server's words without their rule numbers, which
 *  go to its tooltip. */
export function summaryLine(line, tag = "li") {
  const { text, rules } = withoutRules(line.text);
  const dice = (line.parts || []).map((p) => `${p.label} ${p.value}`).join("; ");
  const title = [rulesNote(rules), dice].filter(Boolean).join(" · ");
  return h(tag, { class: `summary ${line.kind}`, dataset: { kind: line.kind, rules: rules.join("; ") || null }, title: title || null }, text);
}

/**
 * "Your last action": the summaries of the events the player's last command caused, as the
 * server worded them. `send(type, fields)` sends a command as `conn.command` does and, once it
 * is answered, shows the lines of the events that came with or before its ack.
 */
export function lastOutcome(table, conn, focus) {
  const title = h("h2", { id: "outcome-title" }, "Your last action");
  const list = h("ul", { class: "outcome" });
  const empty = h("p", { class: "muted outcome-none" }, "What your actions do shows here.");
  const live = h("div", { class: "outcome-scroll", role: "status", "aria-live": "polite", tabindex: 0, "aria-label": "What your last action did" }, empty, list);
  const el = h("section", { class: "outcome-panel", "aria-labelledby": "outcome-title" }, title, live);
  const show = (lines, label) => {
    list.replaceChildren(...lines.map((l) => summaryLine(l)));
    list.dataset.command = label;
    empty.textContent = lines.length ? "" : "Done: nothing the table sees came of it.";
    empty.hidden = !!lines.length;
    live.scrollTop = live.scrollHeight; // (on a phone, its end first: the target's state now)
  };
  const send = (type, fields = {}) => {
    if (!SHOWN.has(type)) return conn.command(type, fields);
    focus.remember();
    const mark = table.log.at(-1) || null;
    const sent = conn.command(type, fields);
    sent.then(() => {
      const from = mark ? table.log.indexOf(mark) + 1 : 0;
      const lines = (from > 0 || !mark ? table.log.slice(from) : []).filter((l) => l.kind !== "snapshot");
      show(lines, `${type}${fields.action ? ":" + fields.action : ""}`);
    }, () => {}).finally(() => setTimeout(() => focus.restore(), 0));
    return sent;
  };
  return { el, send, show };
}

// -- focus ---------------------------------------------------------------------------------

/** What finds a control again once the actions are drawn anew: its action, combatant, tag and
 *  class (or its id). */
function describe(el) {
  if (!el || el === document.body) return null;
  if (el.id) return { id: el.id };
  const holder = el.closest("[data-action]");
  const group = el.closest("fieldset[data-combatant]");
  if (!holder && group && el.className) return { group: group.dataset.combatant, tag: el.tagName, cls: el.className.split(" ")[0] };
  return {
    action: holder ? holder.dataset.action : null,
    combatant: holder ? holder.dataset.combatant ?? "" : null,
    tag: el.tagName, cls: (el.className || "").split(" ")[0], name: el.getAttribute("name"),
    square: el.classList.contains("sq") ? [el.dataset.x, el.dataset.y] : null,
  };
}

function find(key, root) {
  if (key.id) return document.getElementById(key.id);
  if (key.square) return document.querySelector(`.map .sq[data-x="${key.square[0]}"][data-y="${key.square[1]}"]`);
  if (key.group !== undefined) return root.querySelector(`fieldset[data-combatant="${CSS.escape(key.group)}"] ${key.tag.toLowerCase()}.${CSS.escape(key.cls)}`);
  if (!key.action) return null;
  const holders = [...root.querySelectorAll(`[data-action="${CSS.escape(key.action)}"]`)]
    .filter((el) => (el.dataset.combatant ?? "") === key.combatant && !el.parentElement.closest(`[data-action="${CSS.escape(key.action)}"]`));
  for (const holder of holders) {
    if (holder.tagName === key.tag && (holder.className || "").split(" ")[0] === key.cls) return holder;
    const same = [...holder.querySelectorAll(key.tag)].find((el) => (el.className || "").split(" ")[0] === key.cls && el.getAttribute("name") === key.name);
    if (same) return same;
    const button = holder.querySelector("button");
    if (button) return button;
  }
  return null;
}

const usable = (el) => el && el.isConnected && !el.disabled && !el.closest("[hidden]");

/**
 * Keeps the focus on the control that acted: remembered when a command is sent, given back once
 * its answer is in and the controls are drawn anew (to the same control, else the first control
 * of the turn, else the actions' heading). A click elsewhere forgets it.
 */
export function focusKeeper(root, fallback, home = null) {
  let key = null;
  let moving = false; // (the focus put somewhere by this keeper: not the user's choice)
  // the control among the actions that has the focus (typing a note, choosing a target) is
  // the one given it back when the actions are drawn anew; a click elsewhere forgets it
  root.addEventListener("focusin", (ev) => { if (!moving) key = describe(ev.target); });
  document.addEventListener("pointerdown", (ev) => { if (!root.contains(ev.target)) key = null; }, true);
  return {
    remember(el = document.activeElement) { key = describe(el); },
    /** The focus back on the control that acted (or, gone, the first of the turn), when it
     *  fell (to the page, or a control drawn away) or stayed among the actions. */
    restore() {
      if (!key) return;
      const now = document.activeElement;
      // (on the actions' heading: put there while the controls were busy, to be moved on)
      const fell = !now || now === document.body || !now.isConnected || now.disabled || now === home;
      const el = find(key, document);
      if (!fell && (now === el || !root.contains(now))) return; // there, or the user is elsewhere
      const target = usable(el) ? el : fallback();
      if (!target || target === now) return;
      moving = true;
      try { target.focus(); } finally { moving = false; }
    },
  };
}

// -- "your turn" ---------------------------------------------------------------------------

const CALL_KEY = "stablemaster.turn-call";

/** A short two-note chime (Web Audio: no file to load). */
function chime(ctx) {
  if (!ctx) return;
  const now = ctx.currentTime;
  for (const [i, freq] of [[0, 660], [1, 880]]) {
    const osc = ctx.createOscillator(), gain = ctx.createGain();
    osc.frequency.value = freq;
    gain.gain.setValueAtTime(0.0001, now + i * 0.18);
    gain.gain.exponentialRampToValueAtTime(0.2, now + i * 0.18 + 0.02);
    gain.gain.exponentialRampToValueAtTime(0.0001, now + i * 0.18 + 0.16);
    osc.connect(gain).connect(ctx.destination);
    osc.start(now + i * 0.18);
    osc.stop(now + i * 0.18 + 0.18);
  }
}

/**
 * The opt-in call when the player's turn comes: a chime and, with the browser's permission, a
 * notification while the tab is not shown. Off until the player ticks it (kept in this
 * browser).
 */
export function turnCall() {
  let on = false;
  try { on = localStorage.getItem(CALL_KEY) === "1"; } catch { on = false; }
  let ctx = null;
  const box = h("input", { type: "checkbox", class: "turn-call", checked: on || null });
  const note = h("span", { class: "muted turn-call-note" });
  const el = h("p", { class: "turn-call-row" }, h("label", {}, box, " Call me when my turn comes (a sound; a notification when this tab is hidden)"), " ", note);
  box.addEventListener("change", async () => {
    on = box.checked;
    try { localStorage.setItem(CALL_KEY, on ? "1" : "0"); } catch { /* not kept */ }
    if (!on) { note.textContent = ""; return; }
    try { ctx = ctx || new AudioContext(); await ctx.resume(); } catch { ctx = null; }
    if ("Notification" in window && Notification.permission === "default") {
      try { await Notification.requestPermission(); } catch { /* asked and not given */ }
    }
    note.textContent = "Notification" in window && Notification.permission === "granted" ? "" : "(sound only: notifications are not allowed)";
  });
  return {
    el,
    /** The player's turn has just come (`who` acts). */
    ring(who) {
      if (!on) return;
      try { ctx = ctx || new AudioContext(); chime(ctx); } catch { /* no sound here */ }
      if (document.hidden && "Notification" in window && Notification.permission === "granted") {
        try { new Notification("Your turn — Stablemaster", { body: `${who} acts now.`, tag: "stablemaster-turn" }); } catch { /* none */ }
      }
    },
  };
}

// -- a readied action ----------------------------------------------------------------------

/**
 * The prompt to take a readied action: shown each time another combatant's command ends (a
 * frame of events that answers no command of this page) while a combatant the player controls
 * holds one (a `trigger_ready` entry in its legal actions); its button sends that entry's own
 * control. Dismissed, it comes back at the next command's end.
 */
export function readiedPrompt(table, conn, actionsEl) {
  const text = h("p", { class: "readied-text" });
  const buttons = h("div", { class: "buttons" });
  const el = h("section", { class: "readied-prompt wide", role: "alert", hidden: true, "aria-labelledby": "readied-title" },
    h("h2", { id: "readied-title" }, "Take the readied action now?"), text, buttons);
  const mine = () => (table.welcome && table.welcome.combatants) || [];
  const held = () => table.legal.filter((a) => a.action === "trigger_ready" && mine().includes(a.combatant));
  const hide = () => { el.hidden = true; };
  const open = (entries) => {
    text.replaceChildren(...entries.map((a) => {
      const r = table.readied[a.combatant];
      const what = r ? `${table.nameOf(a.combatant)} readied ${String(r.action).replaceAll("_", " ")}${r.trigger ? ` for “${r.trigger}”` : ""}.` : `${table.nameOf(a.combatant)} holds a readied action.`;
      return h("span", { class: "readied-what", dataset: { combatant: a.combatant } }, what, " ");
    }), "Did its trigger just happen?");
    buttons.replaceChildren(...entries.map((a) => h("button", { type: "button", class: "primary take-readied", dataset: { combatant: a.combatant },
      onclick: () => {
        const form = actionsEl.querySelector(`form.act[data-action="trigger_ready"][data-combatant="${CSS.escape(a.combatant)}"]`);
        hide();
        if (form) form.requestSubmit();
      } }, entries.length > 1 ? `${a.label || "Take the readied action"}: ${table.nameOf(a.combatant)}` : a.label || "Take the readied action now")),
    h("button", { type: "button", class: "dismiss-readied", onclick: hide }, "Not now"));
    el.hidden = false;
  };
  conn.client.on("frame", (frame) => {
    const msgs = frame.type === "batch" ? frame.messages : [frame];
    if (!msgs.some((m) => m.type === "event")) return;
    if (msgs.some((m) => m.type === "ack" || (m.type === "error" && m.id))) return; // this page's own command
    const entries = held();
    if (entries.length) open(entries);
  });
  return { el, update() { if (!held().length) hide(); } };
}

// -- the keyboard ----------------------------------------------------------------------------

/** Links at the very start of the page to the map and to the turn's actions (shown when
 *  focused). */
export function skipLinks(toMap, toActions) {
  const link = (text, go, cls) => h("a", { href: "#", class: `skip-link ${cls}`, onclick: (ev) => { ev.preventDefault(); go(); } }, text);
  return h("nav", { class: "skip-links", "aria-label": "Skip links" }, link("Skip to the map", toMap, "to-map"), link("Skip to the actions", toActions, "to-actions"));
}

/** The first control of the turn, to be focused from a skip link: the target of its attack
 *  (the fight's first question), else its first control; else the first of any group. */
export function firstControl(actionsEl) {
  const turn = actionsEl.querySelector("fieldset.actions.turn");
  const attack = turn && [...turn.querySelectorAll(".buttons.first form.act select.target")]
    .find((el) => /attack|charge/.test(el.closest("form").dataset.action) && !el.disabled);
  return attack || (turn && turn.querySelector(".buttons.first button:not([disabled]), .buttons.first select"))
    || actionsEl.querySelector("button:not([disabled]), select, input");
}
