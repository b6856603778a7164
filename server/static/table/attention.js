// The GM console's attention strip: at the top of the first screen, what waits for the GM, each
// with its answer in place. Read from what the server sends and nothing else: the players'
// undo requests (the state's `undo_requests`, R108), the dice the GM's legal actions ask for
// (`submit_roll`, `server_roll`), a turn timer running out (the state's `timer`, R102), a
// player who joined or left (the `presence` messages), a readied action an NPC holds (the
// state's `readied`), and the demo's bots handing the NPCs to the GM (and an NPC's turn
// waiting for the GM then). The tab title counts the items; a sound (off unless the GM turns
// it on) says a new one came.

import { h, errorWords } from "/table/render.js";
import { timerNow, clockText, WARN_SECONDS } from "/table/clock.js";

/** The label the demo gives its bots' credential (server/demo.py): an integration credential
 * with the GM's commands. The demo's bots play the NPCs until a GM credential's first move (a
 * command whose events are not only handing out or revoking a link, or dice entropy), and for
 * as long as a connection of that credential stays open. */
export const DEMO_BOTS = "demo bots";

/** The commands that do not take the NPCs from the demo's bots (server/demo.py's NOT_PLAYING:
 * their events are links and entropy) and the queries, which cause no event. */
const NOT_PLAYING = new Set(["issue_invite", "issue_spectator_link", "issue_integration_token", "revoke_token", "add_dice_entropy"]);
const playing = (type) => !NOT_PLAYING.has(type) && !type.startsWith("get_");

const SOUND_KEY = "stablemaster.attention.sound";

/** A short beep (WebAudio: no sound file). */
function beep() {
  try {
    const Ctx = window.AudioContext || window.webkitAudioContext;
    if (!Ctx) return;
    const ctx = beep.ctx ||= new Ctx();
    const osc = ctx.createOscillator();
    const gain = ctx.createGain();
    osc.frequency.value = 880;
    gain.gain.setValueAtTime(0.0001, ctx.currentTime);
    gain.gain.exponentialRampToValueAtTime(0.2, ctx.currentTime + 0.02);
    gain.gain.exponentialRampToValueAtTime(0.0001, ctx.currentTime + 0.25);
    osc.connect(gain).connect(ctx.destination);
    osc.start();
    osc.stop(ctx.currentTime + 0.3);
  } catch (err) { /* no sound then */ }
}

/** The tab title with the count of items in front ("(2) Brawl — Stablemaster"), kept there
 * when the page sets its title again. */
function titleCounter() {
  let count = 0;
  const strip = (t) => t.replace(/^\(\d+\) /, "");
  const apply = () => {
    const want = count ? `(${count}) ${strip(document.title)}` : strip(document.title);
    if (document.title !== want) document.title = want;
  };
  const el = document.querySelector("title");
  if (el) new MutationObserver(apply).observe(el, { childList: true, characterData: true, subtree: true });
  return (n) => { count = n; apply(); };
}

/**
 * The strip: `{el, update(msg), wrap(run)}`. `wrap` gives the console's command sender that
 * notes this console's first move (which hands the demo's NPCs over); `conn` is the page's
 * connection (`stop()` hands them back).
 */
export function attentionStrip(table, conn) {
  const list = h("ul", { class: "attention-items", "aria-live": "polite" });
  const error = h("p", { class: "error", role: "alert" });
  const sound = h("input", { type: "checkbox", class: "attention-sound", checked: localStorage.getItem(SOUND_KEY) === "1" || null,
    onchange: () => { localStorage.setItem(SOUND_KEY, sound.checked ? "1" : "0"); if (sound.checked) beep(); } });
  const empty = h("span", { class: "attention-empty" }, "nothing now.");
  const el = h("section", { class: "wide attention", "aria-label": "Waiting for you" },
    h("div", { class: "attention-head" }, h("h2", {}, "Waiting for you:"), empty,
      h("label", { class: "attention-toggle" }, sound, " sound for a new item")),
    list, error);
  const setCount = titleCounter();
  let send = null; // the console's command sender (wrap)
  const answer = async (type, fields) => {
    error.textContent = "";
    try { return await send(type, fields); } catch (err) { error.textContent = errorWords(err); return null; }
  };

  // -- who joined or left: each player character's connections, from the presence messages
  let seen = null; // combatant -> connected, once a first presence message came
  const arrivals = new Map(); // combatant -> {joined, at}
  let seats = [];
  function takePresence(msg) {
    seats = msg.seats || [];
    const now = new Map();
    for (const s of seats) if (s.role === "player") for (const c of s.combatants || []) now.set(c, true);
    if (seen) {
      for (const c of new Set([...seen.keys(), ...now.keys()])) {
        const was = !!seen.get(c), is = !!now.get(c);
        if (was !== is) arrivals.set(c, { joined: is, at: table.serverNow() });
      }
    }
    seen = now;
  }

  // -- the demo's bots: this console's first move hands them the NPCs (server/demo.py)
  const movedKey = () => `stablemaster.moved.${table.welcome?.encounter || ""}.${table.welcome?.token_id || ""}`;
  let handedBack = false;
  const moved = () => { try { return localStorage.getItem(movedKey()) === "1"; } catch (err) { return false; } };
  const noteMove = () => { try { localStorage.setItem(movedKey(), "1"); } catch (err) { /* kept for this page only */ } };
  let movedHere = false;
  const bots = () => seats.find((s) => s.role === "integration" && s.label === DEMO_BOTS && s.connections > 0);
  const takenOver = () => !!bots() && (movedHere || moved());

  const dismissed = new Set();

  /** What waits for the GM now: [{key, kind, text, answers: [[label, class, onclick]]}]. */
  function items() {
    const out = [];
    if (handedBack) {
      out.push({ key: "handed-back", kind: "takeover", text: "You handed the NPCs back: this console is disconnected and the demo's bots play them again. Reconnecting takes them back.",
        answers: [["Reconnect (takes the NPCs back)", "reconnect", () => location.reload()]] });
    }
    // who joined or left since the GM last said OK: one item, a sentence each
    if (arrivals.size) {
      const latest = Math.max(...[...arrivals.values()].map((a) => a.at));
      out.push({ key: `presence:${latest}`, kind: "presence",
        text: [...arrivals].map(([cid, a]) => `${table.nameOf(cid)}'s player ${a.joined ? "joined" : "left"}.`).join(" "),
        answers: [["OK", "dismiss", () => { arrivals.clear(); render(); }]] });
    }
    if (!table.started || table.ended) return out;
    const gmLegal = table.legal || [];
    for (const r of (table.state && table.state.undo_requests) || []) {
      out.push({ key: `undo:${r.request}`, kind: "undo", data: { request: r.request },
        text: `${table.nameOf(r.combatant)}'s player asks to take back its last action${r.reason ? ` (${r.reason})` : ""}.`,
        answers: [["Accept: take it back", "grant", () => answer("undo", { request: r.request })],
          ["Refuse: keep it", "refuse", () => answer("refuse_undo", { request: r.request })]] });
    }
    const rolls = new Map();
    for (const a of gmLegal) {
      if (a.action !== "submit_roll" && a.action !== "server_roll") continue;
      const request = (a.targets || [])[0];
      if (!request) continue;
      if (!rolls.has(request)) rolls.set(request, { entries: new Set(), label: a.label, combatant: a.combatant });
      rolls.get(request).entries.add(a.action);
    }
    for (const [request, r] of rolls) {
      const pending = table.pendingRolls.get(request) || {};
      const who = pending.combatant ?? r.combatant;
      // a player character's dice wait for its player while one is connected
      if (who && table.combatants.get(who)?.kind === "pc" && seen && seen.get(who)) continue;
      const what = pending.dice && pending.dice.length ? pending.dice.map((d) => `d${d}`).join(" + ") : "dice";
      const answers = [];
      if (r.entries.has("server_roll")) answers.push(["Roll", "roll", () => answer("server_roll", { request })]);
      if (r.entries.has("submit_roll")) answers.push(["Enter the dice rolled", "enter", () => focusRoll()]);
      out.push({ key: `roll:${request}`, kind: "roll", data: { request },
        text: `${who ? `${table.nameOf(who)}: ` : ""}${r.label ? `${r.label}, ` : ""}${what} to roll.`, answers });
    }
    const t = timerNow(table);
    if (t && t.combatant === table.current && (t.state === "warned" || t.state === "out" || (t.state === "running" && t.left <= WARN_SECONDS * 1000))) {
      // (Pause as the timer line offers it: while the timer runs, pause_turn_timer is the GM's)
      out.push({ key: `timer:${table.timer.number}`, kind: "timer", live: true,
        text: () => { const n = timerNow(table); return !n ? "" : n.state === "out" ? `${table.nameOf(n.combatant)}'s turn: time is up.` : `${table.nameOf(n.combatant)}'s turn: ${clockText(n.left)} left.`; },
        answers: t.state !== "out" ? [["Pause the timer", "pause", () => answer("pause_turn_timer", {})]] : [] });
    }
    for (const [cid, ready] of Object.entries(table.readied || {})) {
      const c = table.combatants.get(cid);
      if (!c || c.kind !== "npc" || !ready) continue;
      const key = `ready:${cid}:${ready.action}:${ready.trigger}:${table.current}:${table.round}`;
      if (dismissed.has(key)) continue;
      const take = gmLegal.find((a) => a.combatant === cid && a.action === "trigger_ready");
      const answers = [];
      if (take) answers.push(["Take it now", "trigger", () => answer("act", { combatant: cid, action: "trigger_ready", ...(table.turnId ? { expect_turn: table.turnId } : {}) })]);
      answers.push(["Not now", "dismiss", () => { dismissed.add(key); render(); }]);
      out.push({ key, kind: "readied", data: { combatant: cid },
        text: `${c.name} holds a readied action: ${String(ready.action || "").replaceAll("_", " ")}${ready.trigger ? `, when ${ready.trigger}` : ""}.`, answers });
    }
    const current = table.current && table.combatants.get(table.current);
    // (said when the demo's bots left the NPCs to the GM: a scene does not sit on an NPC's
    // turn unnoticed; elsewhere the GM plays every NPC, and the actions panel shows its turn)
    if (current && current.kind === "npc" && takenOver() && !handedBack && gmLegal.some((a) => a.combatant === current.id)) {
      out.push({ key: `turn:${current.id}:${table.turnId}`, kind: "npc-turn", data: { combatant: current.id },
        text: `${current.name}'s turn: the NPC waits for you.`,
        answers: [["Go to its actions", "go", () => focusTurn(current.id)]] });
    }
    if (takenOver() && !handedBack) {
      const mine = seats.find((s) => s.token_id === table.welcome?.token_id);
      const others = mine && mine.connections > 1 ? ` ${mine.connections - 1} other tab${mine.connections > 2 ? "s" : ""} with this GM link ${mine.connections > 2 ? "are" : "is"} open: close ${mine.connections > 2 ? "them" : "it"} too.` : "";
      out.push({ key: "takeover", kind: "takeover",
        text: `The demo's bots stopped playing the NPCs when you made your first move here: the NPCs and the scene's flow wait for you while this console is connected.${others}`,
        answers: [["Hand them back (disconnects this console)", "hand-back", () => {
          handedBack = true;
          conn.stop();
          render();
        }]] });
    }
    return out;
  }

  /** The dice form of the actions panel (the faces are entered there). */
  function focusRoll() {
    const box = document.querySelector(".actions-panel form.roll");
    if (box) { box.scrollIntoView({ block: "center" }); box.querySelector("input")?.focus(); }
  }
  function focusTurn(cid) {
    const box = document.querySelector(`.actions-panel fieldset[data-combatant="${CSS.escape(cid)}"]`);
    if (box) { box.scrollIntoView({ block: "center" }); box.querySelector("button, select, input")?.focus(); }
  }

  let key = "";
  const known = new Set();
  let timerText = null;
  function render() {
    const now = items();
    const k = JSON.stringify(now.map((i) => [i.key, typeof i.text === "function" ? "" : i.text, i.answers.map((a) => a[0])]));
    if (timerText) timerText();
    if (k === key) return;
    key = k;
    timerText = null;
    list.replaceChildren(...now.map((i) => {
      const text = h("span", { class: "what" }, typeof i.text === "function" ? i.text() : i.text);
      if (typeof i.text === "function") timerText = () => { text.textContent = i.text(); };
      return h("li", { class: `item ${i.kind}`, dataset: { key: i.key, kind: i.kind, ...(i.data || {}) } }, text, " ",
        ...i.answers.map(([label, cls, onclick]) => h("button", { type: "button", class: cls, onclick: async (ev) => {
          ev.target.disabled = true;
          try { await onclick(); } finally { ev.target.disabled = false; }
        } }, label)));
    }));
    empty.hidden = now.length > 0;
    el.dataset.count = String(now.length);
    setCount(now.length);
    const fresh = now.filter((i) => !known.has(i.key));
    for (const i of now) known.add(i.key);
    if (fresh.length && sound.checked) beep();
  }
  setInterval(render, 500); // (a timer running out)

  return {
    el,
    /** The console's command sender, noting this console's first move. */
    wrap(run) {
      send = async (type, fields) => {
        const result = await run(type, fields);
        if (playing(type) && !movedHere) { movedHere = true; if (bots()) noteMove(); }
        return result;
      };
      return send;
    },
    update(msg) {
      if (msg.type === "presence") takePresence(msg);
      render();
    },
  };
}
