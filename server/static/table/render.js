// Pieces every view shares: the status badge, the initiative order, the log with its dice, a
// combatant's sheet, and the legal actions as controls. Everything shown comes from what the
// server sent; actions are rendered from the legal_actions entries alone, so an action the
// rules engine adds tomorrow shows up as a control without a change here. A few actions get
// richer controls for the arguments the protocol documents: an attack's weapon (from the
// sheet) and, without a map, its range, cover and concealment; a move's path, picked by
// clicking squares on the map; the choices an entry's `options` give.

import { argSchemas, argProblems } from "/table/argcheck.js";
import { withoutRules, rulesNote } from "/table/rulenote.js";
import { vitalsText, vitalsLabel, bandText, conditionText, trackText, terms, effectText, effectLasts, rulesets, loadRulesets } from "/table/model.js";

/** Build an element: h("li", {class: "x", dataset: {a: 1}, onclick}, "text", child…). */
export function h(tag, attrs = {}, ...children) {
  const el = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs || {})) {
    if (v === undefined || v === null || v === false) continue;
    if (k === "class") el.className = v;
    else if (k === "dataset") Object.assign(el.dataset, v);
    else if (k.startsWith("on")) el.addEventListener(k.slice(2), v);
    else if (k === "value") el.value = v;
    else el.setAttribute(k, v === true ? "" : v);
  }
  for (const c of children.flat()) {
    if (c === null || c === undefined || c === false) continue;
    el.append(c instanceof Node ? c : document.createTextNode(String(c)));
  }
  return el;
}

export const humanize = (name) => name.replaceAll("_", " ");

export function renderStatus(el, state, detail) {
  el.dataset.state = state;
  el.textContent = { live: "● live", connecting: "… connecting", offline: "○ offline", closed: "✕ closed",
    replaying: "▶ replay", replayed: "■ replay over" }[state] || state;
  if (detail) el.textContent += ` — ${detail}`;
  el.title = detail || state;
}

/** The id of the GM's screen in the order, with anonymous hidden turns (R99). */
const SCREEN = "screen";

/** The initiative order (or, before it is rolled, the combatants), whose turn it is marked;
 * with anonymous hidden turns the GM's screen is in it, on its count (R99). */
export function renderOrder(el, table) {
  const ids = table.order.length ? table.order : [...table.combatants.keys()];
  const options = (table.state && table.state.options) || {};
  el.replaceChildren(...ids.map((id) => {
    const screen = id === SCREEN && !table.combatants.has(id);
    const c = table.combatants.get(id) || { name: screen ? "Someone behind the GM's screen" : id, side: screen ? "screen" : "" };
    const init = table.initiative.get(id) || (screen && typeof options.screen_count === "number" ? { count: options.screen_count } : undefined);
    const badges = [];
    if (c.hidden) badges.push(h("span", { class: "badge hidden" }, "hidden"));
    if (table.flatFooted.has(id)) badges.push(h("span", { class: "badge" }, "flat-footed"));
    if (table.delaying.has(id)) badges.push(h("span", { class: "badge" }, "delaying"));
    if (table.readied[id]) badges.push(h("span", { class: "badge" }, "readied"));
    for (const e of table.effects.values()) if (e.combatant === id) badges.push(h("span", { class: "badge effect", title: effectLasts(e) }, effectText(e)));
    for (const cond of conditionsOf(c)) badges.push(h("span", { class: "badge condition" }, cond));
    badges.push(...vitalBadges(table, id));
    return h("li", { class: [id === table.current ? "current" : "", c.side || ""].join(" ").trim(), dataset: { combatant: id } },
      h("span", { class: "init" }, init ? String(init.count ?? init.total) : ""),
      h("span", { class: "name" }, c.name),
      ...badges);
  }));
}

/** A bar for fatigue points (Health), when this viewer may see them. */
export function fatigueBar(v, label = "fatigue") {
  if (!v || v.fatigue === null || v.fatigue === undefined || !v.fatigue_max) return null;
  const pct = Math.max(0, Math.min(100, Math.round((100 * v.fatigue) / v.fatigue_max)));
  return h("span", { class: `fatigue${pct <= 34 ? " low" : ""}`, title: `${label} ${v.fatigue}/${v.fatigue_max}`, dataset: { fatigue: v.fatigue } },
    h("span", { class: "fill", style: `width:${pct}%` }), h("span", { class: "num" }, `${v.fatigue}/${v.fatigue_max}`));
}

/** Badges for what the server says of a combatant's state: fatigue, tracks, consciousness,
 * prone, grabbed, "Action Time" effects. */
export function vitalBadges(table, id) {
  const c = table.combatants.get(id) || {};
  const v = c.vitals;
  const out = [];
  if (v) {
    const bar = fatigueBar(v, vitalsLabel(table.ruleset));
    if (bar) out.push(bar);
    else if (v.band) { // the points are behind the GM's screen: how they stand, in words (R105)
      out.push(h("span", { class: `badge band ${v.band}`, title: `${vitalsLabel(table.ruleset)}: ${bandText(v.band, table.ruleset)}` }, bandText(v.band, table.ruleset)));
    }
    for (const [name, t] of [["physical", v.physical], ["mental", v.mental]]) {
      if (t && t.step) out.push(h("span", { class: "badge track", title: trackText(name, t) }, `${name} ${t.step}/5 (${t.penalty})`));
    }
    const cond = conditionText(v.condition, vitalsLabel(table.ruleset));
    if (cond) out.push(h("span", { class: `badge consciousness ${(v.condition || [])[0] || ""}` }, cond));
    if (v.prone) out.push(h("span", { class: "badge prone" }, "prone"));
    if (v.helpless) out.push(h("span", { class: "badge helpless" }, "helpless"));
  }
  const grabbers = table.grabs.get(id);
  if (grabbers && grabbers.length) out.push(h("span", { class: "badge grabbed" }, `grabbed by ${grabbers.map((g) => table.nameOf(g)).join(", ")}`));
  for (const e of table.atEffects || []) {
    if (e.holder === id && e.source_kind !== "mark") out.push(h("span", { class: "badge effect" }, `${e.source} ${e.value >= 0 ? "+" : ""}${e.value}`));
  }
  return out;
}

/** Conditions the server lists for a combatant (a `conditions` list in its profile or stats). */
export function conditionsOf(c) {
  const raw = c.conditions ?? (c.stats || {}).conditions;
  if (Array.isArray(raw)) return raw.map((x) => (typeof x === "string" ? x : x.name || JSON.stringify(x)));
  if (raw && typeof raw === "object") return Object.entries(raw).filter(([, v]) => v).map(([k, v]) => (v === true ? k : `${k} ${v}`));
  return [];
}

/** The dice of a summary's parts (`d20` 14, `d6` 3…) as chips: a roll's breakdown, in the
 * server's words (its text says the rest). */
export function renderParts(parts) {
  return h("span", { class: "roll" }, ...parts.filter((p) => /^d\d+$/.test(p.label)).map((p) => h("span", { class: "die", title: p.label }, String(p.value))));
}

/** The kinds of event whose log line shows its dice as chips too. */
const ROLL_LINES = new Set(["dice_rolled"]);

/** The log's lines; with `hideRules` (a player's page), the rule numbers of the server's
 * words go to each line's tooltip (the server's text is shared with other clients: kept). */
export function renderLog(el, table, limit = 200, { hideRules = false } = {}) {
  const lines = table.log.slice(-limit);
  const stick = el.scrollTop + el.clientHeight >= el.scrollHeight - 20;
  el.replaceChildren(...lines.map((l) => {
    const { text, rules } = hideRules ? withoutRules(l.text) : { text: l.text, rules: [] };
    const dice = l.parts && l.parts.length ? l.parts.map((p) => `${p.label} ${p.value}`).join("; ") : "";
    return h("div", { class: `line ${l.kind}${l.gone ? " taken-back" : ""}`, dataset: { n: l.n, kind: l.kind },
      title: [rulesNote(rules), dice].filter(Boolean).join(" · ") || null },
    h("span", { class: "seq" }, String(l.n)), " ", l.gone ? h("span", { class: "sr-only" }, "(taken back) ") : "", text, ROLL_LINES.has(l.kind) && l.parts && l.parts.length ? [" ", renderParts(l.parts)] : "");
  }));
  if (stick) el.scrollTop = el.scrollHeight;
}

/** A part of a listed item (a weapon's ranges, damage types…) as a person reads it. */
function itemText(key, value) {
  if (value === null || value === undefined) return "—";
  if (Array.isArray(value)) return value.map((x) => (x && typeof x === "object" ? itemText("", x) : String(x))).join(", ");
  if (typeof value !== "object") return String(value);
  const parts = Object.entries(value).map(([k, y]) => `${humanize(k)} ${itemText(k, y)}`);
  // the range bands of a weapon: the last square of each band
  return key === "ranges" ? `${Object.entries(value).map(([k, y]) => `${humanize(k)} to ${y}`).join(", ")} squares` : parts.join(", ");
}

function renderValue(v) {
  if (v === null || v === undefined) return "—";
  if (Array.isArray(v) && v.some((x) => x && typeof x === "object")) {
    return h("ul", { class: "items" }, ...v.map((x) => h("li", {}, x && typeof x === "object"
      ? Object.entries(x).map(([k, y]) => (k === "name" ? String(y) : `${humanize(k)} ${itemText(k, y)}`)).join(" · ")
      : String(x))));
  }
  if (Array.isArray(v)) return v.map(String).join(", ");
  if (typeof v === "object") {
    return h("table", { class: "kv" }, ...Object.entries(v).map(([k, x]) => h("tr", {}, h("th", {}, humanize(k)), h("td", {}, renderValue(x)))));
  }
  return String(v);
}

const PROFILE_KEYS = new Set(["id", "name", "kind", "side", "initiative_mod", "hidden", "aware", "group", "stats", "controlled", "vitals", "external_ids"]);

/** A combatant's sheet: what the server sent of its profile and stats, whatever they hold. */
/** " (+2 Shield of Leaves, -1 Slowed)": the itemised modifiers after a number, if any. */
function modsText(mods) {
  return mods.length ? ` (${mods.map((m) => `${m.value >= 0 ? "+" : ""}${m.value} ${m.name}`).join(", ")})` : "";
}

export function renderSheet(table, id) {
  const c = table.combatants.get(id);
  if (!c) return h("section", { class: "sheet" }, id);
  const rows = [["kind", c.kind === "pc" ? "player character" : "NPC"], ["side", c.side], ["initiative modifier", c.initiative_mod]];
  const init = table.initiative.get(id);
  if (init) rows.push(["initiative", init.total]);
  if (c.group) rows.push(["group", c.group]);
  const at = table.positions.get(id);
  if (at) rows.push(["position", `(${at[0]},${at[1]})`]);
  // fatigue, conditions…; what the ruleset does not have (an Action Time combatant's size) is left out
  for (const [k, v] of Object.entries(c)) if (!PROFILE_KEYS.has(k) && v !== null && v !== undefined) rows.push([humanize(k), v]);
  for (const [k, v] of Object.entries(c.stats || {})) rows.push([humanize(k), v]);
  const nums = (table.numbers || {})[id];
  if (nums) {
    if (nums.defenses) rows.push(["defenses", Object.entries(nums.defenses).map(([k, d]) => `${k} ${d.total}${modsText(d.parts.filter((m) => m.value && !m.section.startsWith("DEFENSES")))}`).join(", ")]);
    if (nums.defense != null) rows.push(["defense now", `${nums.defense}${modsText((nums.defense_modifiers || []).filter((m) => m.counted !== false))}`]);
    rows.push(["speed now", `${nums.speed}${modsText(nums.speed_modifiers || [])}${nums.fly_speed != null ? `, fly ${nums.fly_speed}` : ""}`]);
  }
  const state = [];
  if (id === table.current) state.push("acting");
  if (table.flatFooted.has(id)) state.push("flat-footed");
  if (table.delaying.has(id)) state.push("delaying");
  if (table.readied[id]) state.push(`readied: ${humanize(table.readied[id].action)} (${table.readied[id].trigger})`);
  for (const e of table.effects.values()) if (e.combatant === id) state.push(`${effectText(e)}, ${effectLasts(e)}`);
  const v = c.vitals;
  return h("section", { class: "sheet", dataset: { combatant: id } },
    h("h3", {}, c.name, c.hidden ? h("span", { class: "badge hidden" }, "hidden") : ""),
    v ? h("div", { class: "vitals", dataset: { combatant: id } }, ...vitalBadges(table, id),
      h("span", { class: "vitals-text" }, vitalsText(v, vitalsLabel(table.ruleset)) || "fit")) : "",
    h("table", { class: "kv" }, ...rows.map(([k, v]) => h("tr", {}, h("th", {}, k), h("td", {}, renderValue(v))))),
    state.length ? h("p", { class: "conditions" }, state.join(" · ")) : "");
}

/** key=value pairs typed by a person into args: numbers become numbers. */
export function parseArgs(text) {
  const args = {};
  for (const m of (text || "").matchAll(/(\w+)=("([^"]*)"|'([^']*)'|\S+)/g)) {
    const raw = m[3] ?? m[4] ?? m[2];
    args[m[1]] = /^-?\d+$/.test(raw) ? Number(raw) : raw === "true" ? true : raw === "false" ? false : raw;
  }
  return args;
}

/** An input for one argument the server describes in an entry's `args` (if it ever does). */
function argInput(name, spec) {
  if (Array.isArray(spec)) return h("select", { name }, ...spec.map((o) => h("option", { value: typeof o === "object" ? o.value ?? o.id : o }, typeof o === "object" ? o.label ?? o.name ?? o.id : o)));
  const type = typeof spec === "object" && spec ? spec.type : spec;
  if (type === "integer" || type === "number" || typeof spec === "number") return h("input", { name, type: "number", placeholder: humanize(name) });
  if (type === "boolean" || typeof spec === "boolean") return h("input", { name, type: "checkbox" });
  return h("input", { name, type: "text", placeholder: humanize(name) });
}

/** The documented arguments of an attack: the weapon (the entry's weapon options, or the
 * attacker's sheet when this viewer holds it), a stated distance for the actions that take one
 * and, without a battle map to decide them, range, cover and concealment for those that take
 * them (see each action's arguments in docs/actions.md). */
const ATTACKS = new Set(["attack", "grab", "ram", "melee_attack", "ranged_attack", "all_out_attack", "charge"]);
/** Attacks made with a melee weapon ("Action Time"; its ranged_attack takes a ranged one). */
const MELEE_ONLY = new Set(["melee_attack", "all_out_attack", "charge"]);
/** Attacks whose distance is stated (in the ruleset's own unit: yards). */
const STATED_DISTANCE = new Set(["ranged_attack"]);
/** Attacks whose range band, cover and concealment are stated when no map decides them. */
const STATED_CIRCUMSTANCES = new Set(["attack", "grab", "ram"]);
const CHOICES = {
  range: ["", "point_blank", "short", "medium", "long"],
  cover: ["none", "cover", "improved", "total"],
  concealment: ["none", "concealment", "total"],
};

function extraInputs(a, table) {
  if (!ATTACKS.has(a.action)) return [];
  const out = [];
  const c = table.combatants.get(a.combatant) || {};
  const weapons = ((c.stats || {}).weapons || []).filter((w) => w && w.name);
  const byName = new Map(weapons.map((w) => [w.name, w]));
  // the weapons the entry offers (unarmed among them where the ruleset has it), else the sheet's
  const offered = (a.options || {}).weapon || weapons.map((w) => w.name);
  // the weapons the action takes first (a melee attack's is not a ranged one), so that the
  // one chosen at first is one the server accepts
  const fits = (name) => {
    const kind = (byName.get(name) || {}).kind;
    return MELEE_ONLY.has(a.action) ? kind !== "ranged" : a.action !== "ranged_attack" || kind === "ranged";
  };
  const choices = [...offered.filter(fits), ...offered.filter((name) => !fits(name))];
  if (choices.length && weapons.length && a.action !== "grab" && a.action !== "ram") {
    out.push(h("select", { name: "weapon", class: "weapon", "aria-label": "weapon", onchange: () => { if (aimSend) refreshAim(table, aimSend); } },
      ...choices.map((name) => {
        const w = byName.get(name);
        return h("option", { value: name }, w ? `${w.name}${w.damage ? " " + w.damage : ""}${w.kind ? " (" + w.kind + ")" : ""}` : humanize(name));
      })));
  }
  if (STATED_DISTANCE.has(a.action)) out.push(h("input", { name: "distance", type: "number", min: 0, class: "distance", placeholder: "yards", "aria-label": "distance in yards" }));
  const placed = table.map && table.positions.has(a.combatant);
  if (STATED_CIRCUMSTANCES.has(a.action) && !placed) {
    for (const [name, options] of Object.entries(CHOICES)) {
      out.push(h("select", { name, class: name, "aria-label": name },
        ...options.map((o) => h("option", { value: o }, o ? `${name}: ${humanize(o)}` : `${name}: —`))));
    }
    out.push(h("label", { class: "flag" }, h("input", { type: "checkbox", name: "into_melee" }), " into melee"));
  }
  // sight-based (ruling R67.5): a target the attacker cannot see is attacked at its square, at -5
  if (STATED_CIRCUMSTANCES.has(a.action)) {
    out.push(h("label", { class: "flag", title: "a target you cannot see (total concealment): aim at the square it is thought to occupy, at -5" },
      h("input", { type: "checkbox", name: "at_square" }), " at its square (unseen, -5)"));
  }
  return out;
}

/** Actions that hold another back until a trigger the user states (docs/actions.md). */
const TRIGGERED = new Set(["ready", "prepare"]);

/** A choice for each field an entry's `options` name (a stunt's kind, the action a ready or
 * prepare holds back, the item to draw or stow) that has no control above, nothing chosen
 * first; and the trigger of an action held back. */
function optionInputs(a, taken) {
  const out = Object.entries(a.options || {})
    .filter(([name, choices]) => !taken.has(name) && Array.isArray(choices) && choices.length)
    // an attack's weapon is the select above, from the sheet (a harvest's is unarmed by default)
    .filter(([name]) => name !== "weapon" || !(ATTACKS.has(a.action) || a.action === "harvest"))
    .map(([name, choices]) => h("select", { name, class: `option ${name}`, "aria-label": humanize(name) },
      h("option", { value: "" }, `${humanize(name)}: —`),
      ...choices.map((o) => h("option", { value: o }, `${humanize(name)}: ${humanize(String(o))}`))));
  if (TRIGGERED.has(a.action) && !taken.has("trigger")) {
    out.push(h("input", { type: "text", name: "trigger", class: "trigger", maxlength: 200, placeholder: "trigger: when …", "aria-label": "trigger" }));
  }
  return out;
}

// -- picking a path on the map ------------------------------------------------------------

/** The squares picked for a move, for one combatant; map clicks add to it. */
export const picking = { combatant: null, path: [] };
const PATH_ACTIONS = new Set(["move", "run"]);

function pathText(cid) {
  const path = picking.combatant === cid ? picking.path : [];
  return path.length ? `path: ${path.map(([x, y]) => `(${x},${y})`).join(" → ")}` : "click squares on the map";
}

export function setPath(cid, path) {
  picking.combatant = cid;
  picking.path = path;
  for (const el of document.querySelectorAll(".path-text")) el.textContent = pathText(el.dataset.combatant);
  for (const el of document.querySelectorAll(".map .sq.path")) el.classList.remove("path");
  path.forEach(([x, y], i) => {
    for (const el of document.querySelectorAll(`.map .sq[data-x="${x}"][data-y="${y}"]`)) { el.classList.add("path"); el.dataset.step = String(i + 1); }
  });
}

/** A square picked for the move of the combatant whose move is legal: next to the path's
 * end, it is the next step; first, or elsewhere, the server's cheapest path to it when
 * the move can end there (`get_reach`), else the next step all the same (the server says
 * why not); the path's last square again takes it back. False when no move is to be picked. */
export function pickSquare(table, x, y) {
  const mover = table.legal.find((a) => PATH_ACTIONS.has(a.action) && table.positions.has(a.combatant));
  if (!mover) return false;
  let path = picking.combatant === mover.combatant ? [...picking.path] : [];
  const last = path.at(-1);
  const from = last || table.positions.get(mover.combatant);
  const beside = from && Math.max(Math.abs(from[0] - x), Math.abs(from[1] - y)) === 1;
  const known = reach.combatant === mover.combatant ? reach.squares.get(`${x},${y}`) : null;
  if (last && last[0] === x && last[1] === y) path.pop();
  // (the first square picked, even one beside the mover: a step there may cost more than the
  // server's way round, a diagonal past difficult terrain)
  else if (known && (!beside || !last)) path = known.path.map(([a, b]) => [a, b]);
  else path.push([x, y]);
  setPath(mover.combatant, path);
  return true;
}

// -- where a move can go (get_reach, ruling R106) --------------------------------------------

/** The squares the move of the combatant whose move is legal can end on, with the cheapest
 * path to each and its cost, as the server works them out (`get_reach`); never worked out
 * here. */
export const reach = { key: "", combatant: null, budget: 0, squares: new Map() };
/** How much larger than its fitted size the map is drawn (the zoom buttons: 1 to 3). */
const mapZoom = { scale: 1 };
/** The map's square that has the focus, kept as the map is drawn again. */
const mapFocus = { square: null };

/** Ask the server where the mover can go, once for each list of legal actions and position. */
export async function refreshReach(table, send) {
  const mover = table.legal.find((a) => a.action === "move" && table.positions.has(a.combatant));
  const key = mover ? `${table.turnId}|${mover.combatant}|${table.positions.get(mover.combatant)}|${JSON.stringify(table.legal.map((a) => a.action))}` : "";
  if (key === reach.key) return;
  reach.key = key;
  let found = { combatant: null, budget: 0, squares: [] };
  if (mover) {
    try {
      found = (await send("get_reach", { combatant: mover.combatant })).result;
    } catch (err) { found = { combatant: null, budget: 0, squares: [] }; }
    if (reach.key !== key) return; // asked again meanwhile
  }
  reach.combatant = found.combatant;
  reach.budget = found.budget;
  reach.squares = new Map(found.squares.map((s) => [`${s.at[0]},${s.at[1]}`, s]));
  markReach();
}

/** Mark the squares the move can end on, each with what it costs, in its label too. */
function markReach() {
  for (const el of document.querySelectorAll(".map .sq")) {
    const s = reach.squares.get(`${el.dataset.x},${el.dataset.y}`);
    el.classList.toggle("reach", !!s);
    // the mover's token may be dragged to a shaded square (on a map that takes picks)
    el.classList.toggle("movable", !!reach.combatant && !!el.closest(".map.picks")
      && !!el.querySelector(`.token[data-combatant="${CSS.escape(reach.combatant)}"]`));
    if (s) el.dataset.cost = String(s.cost); else delete el.dataset.cost;
    const mover = reach.combatant && s ? `; ${reach.budget - s.cost} of ${reach.budget} squares left after a move here` : "";
    // its name for a screen reader, in words (the token's initials are hidden from it)
    let said = el.querySelector(".sr-only:not(.aim-said)");
    if (!said) { said = h("span", { class: "sr-only" }); el.prepend(said); }
    said.textContent = `${el.title}${mover}`;
  }
}

// -- dragging the mover's token ------------------------------------------------------------

/** What a drag over square `sq` would do, in words, with the server's path to it shown on the
 * map (`get_reach`): nothing is worked out here. */
function dragOver(sq, before) {
  const hint = document.querySelector(".drag-hint");
  const s = sq ? reach.squares.get(`${sq.dataset.x},${sq.dataset.y}`) : null;
  for (const el of document.querySelectorAll(".map .sq.drop")) el.classList.remove("drop");
  if (sq) sq.classList.add("drop");
  setPath(reach.combatant, s ? s.path.map(([a, b]) => [a, b]) : before);
  if (hint) {
    hint.textContent = !sq ? "" : s ? `To (${sq.dataset.x},${sq.dataset.y}): ${s.cost} of ${reach.budget} squares, ${reach.budget - s.cost} left. Drop to move.`
      : `(${sq.dataset.x},${sq.dataset.y}): the move cannot end here.`;
    hint.classList.toggle("no", !!sq && !s);
  }
  return s;
}

/** A drop on square (x, y): the move along the server's path there, sent by the move's own
 * form (as Enter on the square then Move would); nothing off the shaded squares. */
function dropOn(x, y) {
  const s = reach.squares.get(`${x},${y}`);
  const form = reach.combatant && document.querySelector(`form.act[data-action="move"][data-combatant="${CSS.escape(reach.combatant)}"]`);
  if (!s || !form) return false;
  setPath(reach.combatant, s.path.map(([a, b]) => [a, b]));
  form.requestSubmit();
  return true;
}

/** Let the mover's token be dragged with the pointer (mouse, pen or finger) onto a shaded
 * square of `grid`; `allowed()` says whether a drag may start now. */
function draggable(grid, allowed) {
  grid.addEventListener("pointerdown", (ev) => {
    if ((ev.pointerType === "mouse" && ev.button !== 0) || !reach.combatant || !allowed()) return;
    const from = ev.target.closest(".sq.movable");
    if (!from) return;
    ev.preventDefault(); // (no text selected, no scrolling: the token follows the pointer)
    const before = picking.combatant === reach.combatant ? [...picking.path] : [];
    const token = from.querySelector(".token");
    token.classList.add("dragging");
    let over = null;
    const at = (e) => {
      const el = document.elementFromPoint(e.clientX, e.clientY);
      return el && el.closest ? el.closest(".map .sq") : null;
    };
    const move = (e) => {
      if (e.pointerId !== ev.pointerId) return;
      const sq = at(e);
      if (sq === over) return;
      over = sq;
      dragOver(sq && sq !== from ? sq : null, before);
    };
    const end = (e) => {
      if (e.pointerId !== ev.pointerId) return;
      window.removeEventListener("pointermove", move);
      window.removeEventListener("pointerup", end);
      window.removeEventListener("pointercancel", end);
      token.classList.remove("dragging");
      const sq = e.type === "pointerup" ? at(e) : null;
      dragOver(null, before);
      const hint = document.querySelector(".drag-hint");
      if (sq && sq !== from) {
        grid.dataset.dragged = "1"; // the click that follows a drag picks nothing
        setTimeout(() => { delete grid.dataset.dragged; }, 0);
        if (!dropOn(Number(sq.dataset.x), Number(sq.dataset.y)) && hint) {
          hint.textContent = `(${sq.dataset.x},${sq.dataset.y}): the move cannot end here; nothing was sent.`;
          hint.classList.add("no");
        }
      }
    };
    window.addEventListener("pointermove", move);
    window.addEventListener("pointerup", end);
    window.addEventListener("pointercancel", end);
  });
}

// -- which targets an attack can reach (get_aim, ruling R107) ------------------------------------

/** The actions whose targets the map decides (`get_aim` answers for them). */
const AIMED = new Set(["attack", "grab"]);
/** What the server said of each target of the attack (grab) of the combatant on the map, for
 * the weapon chosen: `{ok, why, distance, cover, concealment}` by target; never worked out
 * here. */
export const aim = { key: "", byAction: new Map() };
let aimSend = null;

/** The weapon chosen in an action's form now (the first offered before it is drawn). */
function chosenWeapon(a) {
  const select = document.querySelector(`form.act[data-action="${a.action}"][data-combatant="${a.combatant}"] select.weapon`);
  if (select) return select.value;
  const offered = (a.options || {}).weapon;
  return a.action === "attack" && offered && offered.length ? offered[0] : null;
}

/** Ask the server what the map says of each target of the attacks of the combatants on the map,
 * once for each list of legal actions, position and weapon chosen. */
export async function refreshAim(table, send) {
  aimSend = send;
  const entries = table.map ? table.legal.filter((a) => AIMED.has(a.action) && a.combatant && table.positions.has(a.combatant) && (a.targets || []).length) : [];
  const asks = entries.map((a) => ({ a, weapon: chosenWeapon(a) }));
  const key = `${table.turnId}|${JSON.stringify([...table.positions])}|${JSON.stringify(asks.map(({ a, weapon }) => [a.action, a.combatant, weapon, a.targets]))}`;
  if (key === aim.key) { markAim(table); return; }
  aim.key = key;
  const found = new Map();
  for (const { a, weapon } of asks) {
    try {
      const answer = (await send("get_aim", { combatant: a.combatant, action: a.action, args: weapon ? { weapon } : {} })).result;
      found.set(`${a.action}|${a.combatant}`, new Map(answer.targets.map((t) => [t.target, t])));
    } catch (err) { /* nothing marked: the attack says why when it is sent */ }
    if (aim.key !== key) return; // asked again meanwhile
  }
  aim.byAction = found;
  markAim(table);
}

/** How a target stands for the attack, in a few words: "3 squares, cover", "out of reach". */
function aimWords(t) {
  if (!t.ok) {
    const why = t.why || "";
    return /line of effect/.test(why) ? "no line of effect" : /reach/.test(why) ? "out of reach" : /range/.test(why) ? "out of range" : "cannot be hit from here";
  }
  const parts = [];
  if (t.distance != null) parts.push(`${t.distance} square${t.distance === 1 ? "" : "s"}`);
  if (t.cover && t.cover !== "none") parts.push(t.cover === "cover" ? "cover" : `${humanize(t.cover)} cover`);
  if (t.concealment && t.concealment !== "none") parts.push(t.concealment === "concealment" ? "concealment" : `${humanize(t.concealment)} concealment`);
  if (t.into_melee) parts.push("into melee");
  return parts.join(", ");
}

/** Mark the targets in each aimed form's list and, for the attack of the turn, on the map:
 * those the attack can reach with a solid ring, the others a dotted one, each with what the
 * server said. */
function markAim(table) {
  for (const form of document.querySelectorAll("form.act")) {
    const answers = aim.byAction.get(`${form.dataset.action}|${form.dataset.combatant}`);
    const select = form.querySelector("select.target");
    if (!select) continue;
    for (const option of select.options) {
      if (!option.value) continue;
      const t = answers && answers.get(option.value);
      const base = option.dataset.name || (option.dataset.name = option.textContent);
      option.textContent = t ? `${base} — ${aimWords(t)}`.replace(/ — $/, "") : base;
      option.classList.toggle("unreachable", !!t && !t.ok);
      if (t && !t.ok) option.title = t.why; else option.removeAttribute("title");
    }
    let hint = form.querySelector(".aim-why");
    const picked = answers && select.value && answers.get(select.value);
    if (picked && !picked.ok) {
      if (!hint) { hint = h("p", { class: "aim-why", role: "status" }); form.append(hint); }
      hint.textContent = sentence(picked.why);
    } else if (hint) hint.remove();
    if (!select.dataset.aimed) { select.dataset.aimed = "1"; select.addEventListener("change", () => markAim(table)); }
  }
  const turn = aim.byAction.get(`attack|${table.current}`) || aim.byAction.get(`grab|${table.current}`);
  for (const token of document.querySelectorAll(".map .token")) {
    // the foes on the map (an ally may be aimed at too: its list says so, the map does not)
    const foe = !isAlly(table, table.current, token.dataset.combatant);
    const t = turn && foe && turn.get(token.dataset.combatant);
    token.classList.toggle("aim-ok", !!t && t.ok);
    token.classList.toggle("aim-no", !!t && !t.ok);
    const square = token.closest(".sq");
    let said = square && square.querySelector(".aim-said");
    if (square && t && !said) { said = h("span", { class: "sr-only aim-said" }); square.append(said); }
    if (said) said.textContent = t ? `; ${t.ok ? "can be attacked" : "cannot be attacked"}${aimWords(t) ? ": " + aimWords(t) : ""}` : "";
  }
}

/** "Twilight Sparkle" → "TS", "Spike" → "Sp". */
function initials(name) {
  const words = name.split(/\s+/).filter(Boolean);
  return words.length > 1 ? (words[0][0] + words.at(-1)[0]).toUpperCase() : name.slice(0, 2);
}

/** The id the server gives a combatant named `name` when the stat block gives none (its slug:
 * `Diamond Dog` -> `diamond-dog`, the next one `diamond-dog-2`). */
const slug = (name) => (name.toLowerCase().replace(/[^a-z0-9]+/g, "-").replace(/^-+|-+$/g, "") || "combatant").slice(0, 32);

/** A combatant's token label, from its own name and id alone (docs/clients.md, "Token
 * labels"): its initials ("Twilight Sparkle" TS, "Spike" Sp) for the server's id of its name
 * or an id that is the name's first word (`twilight`); with the number of the server's next
 * ids (`diamond-dog-2` DD2), or the letter after the slug in the server's id of a hidden one
 * (`diamond-dog-k3x9` DDk, ruling R116); for an id that is another word of the name, the
 * first letter and that word's first two (`dash` of "Rainbow Dash" RDa, `boss` of "Diamond
 * Dog Boss" DBo); else the initials and the id's first letter (`lurker` DDl). The same for
 * every viewer and across a reveal, it says nothing of any other combatant. */
export function tokenLabel(c) {
  const base = initials(c.name);
  const id = String(c.id || "");
  const words = c.name.split(/\s+/).filter(Boolean).map(slug);
  const whole = slug(c.name), first = words[0] || "";
  if (id === whole || id === first) return base;
  for (const stem of [whole, first]) {
    const n = stem && id.startsWith(stem) ? id.slice(stem.length).match(/^-?(\d+)$/) : null;
    if (n) return `${base}${n[1]}`;
  }
  const own = id.startsWith(whole) ? id.slice(whole.length).match(/^-([a-z][a-z0-9]{3})$/) : null;
  if (own) return `${base}${own[1][0]}`;
  const word = words.slice(1).find((w) => w === id);
  if (word) return `${base[0].toUpperCase()}${word[0].toUpperCase()}${word.slice(1, 2)}`;
  return `${base}${id.replace(/[^A-Za-z0-9]/g, "").slice(0, 1).toLowerCase()}`;
}

/** The label of each token this viewer sees (`tokenLabel`). */
function tokenLabels(table) {
  return new Map([...table.combatants].map(([id, c]) => [id, tokenLabel({ ...c, id })]));
}

/** Whether a combatant is out of the fight as the snapshot says: not conscious, or in a
 * conscious state its ruleset counts out (`out_of_fight`: 0 Health in Action Time, R29). */
export function outOfFight(table, c) {
  const condition = (c && c.vitals && c.vitals.condition) || [];
  const counted = (table.state && table.state.out_of_fight) || [];
  return condition.length > 0 && (condition[0] !== "active" || condition.slice(1).some((x) => counted.includes(x)));
}

/** The map's legend: each placed token's label, the combatant's name and how it stands (the
 * band of its points in the ruleset's words, R105; "out of the fight"). */
export function renderTokenLegend(box, table) {
  const labels = tokenLabels(table);
  const rows = [];
  for (const [id] of table.positions) {
    const c = table.combatants.get(id);
    if (!c) continue;
    const out = outOfFight(table, c);
    const how = out ? "out of the fight" : bandText(c.vitals && c.vitals.band, table.ruleset);
    rows.push(h("li", { class: out ? "down" : "", dataset: { combatant: id } },
      h("span", { class: `token ${c.side || ""}${c.hidden ? " hidden" : ""}` }, labels.get(id)), h("span", { class: "name" }, c.name),
      c.hidden ? h("span", { class: "how" }, "hidden from the table") : "",
      how ? h("span", { class: "how" }, how) : ""));
  }
  box.replaceChildren(...rows);
}

/**
 * The battle map: squares, blocked squares, thin walls, low objects, difficult terrain, fog,
 * darkness, pits, improved cover, and a token per placed combatant. `onClick(x, y)` gets
 * the clicked square.
 */
export function renderMap(box, table, onClick, { canDrag = () => true } = {}) {
  const m = table.map;
  if (!m) { box.replaceChildren(); return false; }
  const w = m.width, hgt = m.height;
  if (w * hgt > 10000) { box.replaceChildren(h("p", { class: "muted" }, `a ${w}x${hgt} map: too large to draw`)); return true; }
  const cells = [];
  for (let y = 0; y < hgt; y++) for (let x = 0; x < w; x++) cells.push(h("div", { class: "sq", role: "button", tabindex: -1, dataset: { x, y }, title: `(${x},${y})` }));
  const at = (x, y) => (x >= 0 && y >= 0 && x < w && y < hgt ? cells[y * w + x] : null);
  for (const layer of ["blocked", "low", "difficult", "fog", "darkness", "pits", "improved_cover"]) {
    for (const [x, y] of m[layer] || []) { const c = at(x, y); if (c) { c.classList.add(layer); c.title += ` ${humanize(layer)}`; } }
  }
  for (const [[ax, ay], [bx, by]] of m.walls || []) {
    if (ax === bx) for (let y = Math.min(ay, by); y < Math.max(ay, by); y++) { at(ax, y)?.classList.add("wl"); at(ax - 1, y)?.classList.add("wr"); }
    else for (let x = Math.min(ax, bx); x < Math.max(ax, bx); x++) { at(x, ay)?.classList.add("wt"); at(x, ay - 1)?.classList.add("wb"); }
  }
  const labels = tokenLabels(table);
  for (const [id, [x, y]] of table.positions) {
    const c = table.combatants.get(id);
    const cell = at(x, y);
    if (!c || !cell) continue;
    const v = c.vitals || {};
    const down = outOfFight(table, c);
    const label = labels.get(id);
    cell.append(h("span", { class: `token ${c.side || ""}${id === table.current ? " current" : ""}${down ? " down" : ""}${v.prone ? " prone" : ""}${c.hidden ? " hidden" : ""}${label.length > 2 ? " long" : ""}`,
      dataset: { combatant: id }, "aria-hidden": "true", title: `${c.name}${vitalsText(v, vitalsLabel(table.ruleset)) ? " — " + vitalsText(v, vitalsLabel(table.ruleset)) : ""}` }, label));
  }
  // squares as large as the stylesheet's, smaller on a narrow screen until the map fits (not
  // below a fingertip's width: a larger map scrolls)
  for (const [id, [x, y]] of table.positions) {
    const cell = at(x, y), c = table.combatants.get(id);
    if (cell && c) cell.title += ` ${c.name} (${labels.get(id)})${c.hidden ? ", hidden from the table" : ""}`; // (its token's text too)
  }
  const grid = h("div", { class: `map${onClick ? " picks" : ""}`, role: "group", "aria-label": "Battle map: the arrow keys go from square to square, Enter picks one", style: `--sq: calc(clamp(1.3rem, calc((100vw - 4.5rem) / ${w}), 1.9rem) * ${mapZoom.scale}); grid-template-columns: repeat(${w}, var(--sq))` }, ...cells);
  if (onClick) grid.addEventListener("click", (ev) => {
    if (grid.dataset.dragged) return; // (the end of a drag)
    const sq = ev.target.closest(".sq");
    if (sq) onClick(Number(sq.dataset.x), Number(sq.dataset.y));
  });
  // one square takes the focus (the one focused last, else the acting token's); the arrow
  // keys move it, Enter or Space picks it as a click does
  const focused = mapFocus.square && at(...mapFocus.square) ? mapFocus.square : (table.positions.get(table.current) || [0, 0]);
  (at(...focused) || cells[0]).tabIndex = 0;
  grid.addEventListener("keydown", (ev) => {
    const sq = ev.target.closest(".sq");
    if (!sq) return;
    const x = Number(sq.dataset.x), y = Number(sq.dataset.y);
    const step = { ArrowLeft: [-1, 0], ArrowRight: [1, 0], ArrowUp: [0, -1], ArrowDown: [0, 1], Home: [-1, -1], PageUp: [1, -1], End: [-1, 1], PageDown: [1, 1] }[ev.key];
    if (step) {
      const next = at(x + step[0], y + step[1]);
      if (next) { sq.tabIndex = -1; next.tabIndex = 0; next.focus(); mapFocus.square = [x + step[0], y + step[1]]; }
      ev.preventDefault();
    } else if ((ev.key === "Enter" || ev.key === " ") && onClick) {
      mapFocus.square = [x, y];
      onClick(x, y);
      ev.preventDefault();
    }
  });
  const refocus = box.contains(document.activeElement) && document.activeElement.classList.contains("sq");
  // zoom: larger squares for a fingertip (the map then scrolls in its panel: pan with a finger)
  const zoom = (by) => h("button", { type: "button", class: `zoom ${by > 0 ? "in" : "out"}`, "aria-label": by > 0 ? "zoom in" : "zoom out",
    disabled: (by > 0 ? mapZoom.scale >= 3 : mapZoom.scale <= 1) || null,
    onclick: () => { mapZoom.scale = Math.min(3, Math.max(1, mapZoom.scale + by)); renderMap(box, table, onClick, { canDrag }); } }, by > 0 ? "+" : "−");
  if (onClick) draggable(grid, canDrag);
  const hint = box.querySelector(".drag-hint") || h("p", { class: "drag-hint", role: "status" });
  if (onClick) box.replaceChildren(h("div", { class: "zoombar" }, zoom(-0.5), zoom(0.5), hint), grid);
  else box.replaceChildren(grid); // (the overlay: no controls)
  if (refocus) (at(...focused) || cells[0]).focus();
  markReach();
  markAim(table);
  if (picking.path.length) setPath(picking.combatant, picking.path);
  return true;
}

function collect(form) {
  const args = {};
  for (const el of form.querySelectorAll("[name]")) {
    if (el.type === "checkbox") args[el.name] = el.checked;
    else if (el.value !== "") args[el.name] = el.type === "number" ? Number(el.value) : el.value;
  }
  return args;
}

/**
 * The legal actions as controls, grouped by combatant (the GM's own under "Game master").
 * `send(type, fields)` returns a promise; errors are shown next to the group. The GM's
 * commands in `skip` have controls of their own elsewhere.
 */
/** Actions aimed at an opponent: no target is preselected, enemies are listed first, and one
 * aimed at an ally asks first. */
export const HOSTILE_ACTIONS = new Set(["attack", "distraction", "grab", "ram", "dispute", "lie",
  "melee_attack", "ranged_attack", "all_out_attack", "charge", "press_the_attack", "stunt"]);

/** The turn's own moves: they take no note (the server refuses an argument an action does
 * not take; docs/protocol/actions.<ruleset>.schema.json lists each action's). */
const NO_NOTE = new Set(["end_turn", "delay", "ready", "trigger_ready", "take_delayed_turn"]);

/** The commands of a combatant's turn: sent with `expect_turn`, so that one meant for a turn
 * that has passed (a double click, another GM's click) is refused as stale. */
const TURN_COMMANDS = new Set(["act", "submit_roll", "server_roll"]);

export function renderActions(el, table, send, skip = new Set()) {
  argSchemas(); // (fetched once, before the first command is sent)
  if (!el.dataset.guarded) {
    // the second click of a double click lands on whatever the first one's answer drew there
    // (the next combatant's "end turn"): it is not a command
    el.dataset.guarded = "1";
    el.addEventListener("click", (ev) => {
      if (ev.detail > 1 && ev.target.closest && ev.target.closest("button")) { ev.preventDefault(); ev.stopPropagation(); }
    }, true);
  }
  const groups = new Map();
  for (const a of table.legal) {
    if ((a.combatant === null || a.combatant === undefined) && skip.has(a.action)) continue; // a form of its own
    const key = a.combatant ?? "";
    if (!groups.has(key)) groups.set(key, []);
    groups.get(key).push(a);
  }
  if (!groups.size) {
    el.replaceChildren(h("p", { class: "muted" }, table.ended ? "The scene is over." : "Nothing to do right now."));
    return;
  }
  const turnId = table.turnId; // the turn these controls are drawn for
  const setBusy = (busy) => { for (const b of el.querySelectorAll("button")) b.disabled = busy; };
  // the groups folded away (below) that the user opened: open again once redrawn
  const opened = (el._opened ||= new Set());
  el.replaceChildren(...[...groups].map(([cid, entries]) => {
    const note = h("input", { type: "text", class: "note", placeholder: "note (optional)", maxlength: 200 });
    const extra = h("input", { type: "text", class: "args", placeholder: "more arguments: key=value …" });
    const error = h("p", { class: "error", role: "alert" });
    const turn = cid && cid === table.current;
    const fieldset = h("fieldset", { class: `actions${turn ? " turn" : ""}`, dataset: { combatant: cid } },
      h("legend", {}, cid ? `${table.nameOf(cid)}${turn ? " — turn" : ""}` : "Game master"));
    // a refusal is said under the control that caused it (in the fieldset when that control
    // was redrawn meanwhile), in words
    const say = (button, text, code) => {
      const control = button && button.isConnected ? button.closest("form, .gmaction") || button : null;
      if (control && el.contains(control)) {
        control.after(h("p", { class: "error at-control", role: "alert", dataset: { code: code || "" } }, text));
        return;
      }
      const shown = el.contains(error) ? error : el.querySelector(`fieldset[data-combatant="${cid}"] .error`) || error;
      shown.textContent = text;
    };
    const run = async (button, type, fields) => {
      error.textContent = "";
      for (const old of el.querySelectorAll(".error.at-control")) old.remove();
      if (type === "_local") { say(button, fields.message); return false; }
      // never sent when its schema refuses it (the server would, in a validator's words)
      const problems = await fieldProblems(table, type, fields);
      if (problems.length) { say(button, `${sentence(problems.map((p) => p.text).join("; "))}`, "checked_here"); return false; }
      const forTurn = TURN_COMMANDS.has(type) && turnId;
      // disabled from the moment it is sent until its answer, redrawn controls included
      table.sending += 1;
      setBusy(true);
      try {
        await send(type, forTurn ? { ...fields, expect_turn: turnId } : fields);
        note.value = ""; extra.value = "";
        return true;
      } catch (err) {
        say(button, errorWords(err), err && err.code);
        return false;
      } finally {
        table.sending -= 1;
        if (!table.sending) setBusy(false);
      }
    };
    const rows = entries.map((a) => actionControl(a, table, run, () => ({ note: note.value.trim(), extra: parseArgs(extra.value) })));
    if (turn) { // the turn first: what is left of its budget, the actions of the moment, "More…"
      fieldset.append(budgetLine(table, cid), ...turnControls(entries, rows, table, cid, opened), h("div", { class: "argrow" }, note, extra), error);
      return fieldset;
    }
    // a list of many combatants (the GM's) folds away those that may only act out of turn, in
    // ways nothing is waiting for (no target, no die, no readied action or delay to take)
    const folded = cid && !turn && groups.size > 2 && entries.every((a) => !URGENT.has(a.action) && !(a.targets || []).length);
    const box = folded ? h("details", { class: "folded", open: opened.has(cid) || null },
      h("summary", {}, `${entries.length} action${entries.length === 1 ? "" : "s"} out of turn`)) : fieldset;
    if (folded) {
      box.addEventListener("toggle", () => { if (box.open) opened.add(cid); else opened.delete(cid); });
      fieldset.append(box);
    }
    box.append(h("div", { class: "buttons" }, ...rows));
    if (cid) box.append(h("div", { class: "argrow" }, note, extra));
    else if (entries.some((a) => !["start_encounter", "submit_roll", "server_roll"].includes(a.action))) box.append(h("div", { class: "argrow" }, extra));
    fieldset.append(error);
    return fieldset;
  }));
  if (table.sending) setBusy(true);
}

/** A refusal from the server in words: its message as a sentence (the code is kept in the
 * element's `data-code`), the arguments named as the form names them. */
export function errorWords(err) {
  if (err && err.code === "stale") return "The turn moved on before this arrived: nothing was done.";
  return sentence(String(err && err.message ? err.message : err || "refused").replace(/^args\./, "").replace(/([ (])args\./g, "$1"));
}

const sentence = (text) => `${text.charAt(0).toUpperCase()}${text.slice(1)}${/[.!?)]$/.test(text) ? "" : "."}`;

/** What the entry's schema (`args_schema`) refuses in a command about to be sent. */
async function fieldProblems(table, type, fields) {
  const schemas = await argSchemas();
  const act = type === "act";
  const entry = (table.legal || []).find((e) => e.action === (act ? fields.action : type)
    && (!act || (e.combatant ?? null) === (fields.combatant ?? null)));
  const schema = entry && entry.args_schema ? schemas[entry.args_schema] : null;
  if (!schema) return [];
  const value = act ? (fields.args || {}) : Object.fromEntries(Object.entries(fields).filter(([k]) => k !== "expect_turn"));
  return argProblems(schema, value);
}

/** The groups of a turn's entries shown first (the server's `group` of each entry): a fight's,
 * or a debate's in a social scene; the others are under "More…", by what they cost. */
function firstGroups(table) {
  return new Set(socialShown(table) ? ["social", "turn", "dice"] : ["attack", "movement", "turn", "dice"]);
}

/** A slot of the turn's budget (a cost) in words: "full_round" → "full-round". */
const slotWords = (slot) => humanize(slot).replace("full round", "full-round");

/** What a cost is called under "More…" (`cost` of the entries, in the ruleset's words). */
function costTitle(cost) {
  if (!cost) return "Other";
  const words = slotWords(cost);
  return cost === "reaction" ? "Reactions" : `${words[0].toUpperCase()}${words.slice(1)} actions`;
}

/** The turn's controls: the entries of the groups of the moment, then the others folded
 * under "More…", in a box per cost. */
function turnControls(entries, rows, table, cid, opened) {
  const first = firstGroups(table);
  const main = [], more = new Map();
  entries.forEach((a, i) => {
    if (!a.group || first.has(a.group)) { main.push(rows[i]); return; }
    const key = a.cost || "";
    if (!more.has(key)) more.set(key, []);
    more.get(key).push(rows[i]);
  });
  const out = [h("div", { class: "buttons first" }, ...main)];
  if (more.size) {
    const count = [...more.values()].reduce((n, r) => n + r.length, 0);
    const key = `more:${cid}`;
    const box = h("details", { class: "more", open: opened.has(key) || null },
      h("summary", {}, `More… (${count} other action${count === 1 ? "" : "s"})`),
      ...[...more].map(([cost, rs]) => h("div", { class: "cost-group", dataset: { cost } },
        h("h3", {}, costTitle(cost)), h("div", { class: "buttons" }, ...rs))));
    box.addEventListener("toggle", () => { if (box.open) opened.add(key); else opened.delete(key); });
    out.push(box);
  }
  return out;
}

/** What is left of the turn's budget (the snapshot's `turn.budget`, in the ruleset's words). */
function budgetLine(table, cid) {
  const turn = table.state && table.state.turn;
  if (!turn || turn.combatant !== cid || !turn.budget) return "";
  const slots = Object.entries(turn.budget);
  return h("p", { class: "budget", "aria-label": "left this turn" }, h("span", { class: "muted" }, "Left this turn: "),
    ...slots.map(([slot, free]) => h("span", { class: `slot ${free ? "free" : "spent"}`, dataset: { slot, free: String(free) }, title: `${slotWords(slot)} action: ${free ? "left" : "spent"}` },
      `${slotWords(slot)}${free ? "" : " (spent)"}`)));
}

/** Entries never folded away: something waits for them (a die, a readied action's trigger, a
 * delayed turn). */
const URGENT = new Set(["submit_roll", "server_roll", "trigger_ready", "take_delayed_turn"]);

/** Whether `target` is on `actor`'s side. */
function isAlly(table, actor, target) {
  const a = table.combatants.get(actor), t = table.combatants.get(target);
  return !!a && !!t && target !== actor && !!a.side && a.side === t.side;
}

/** A target's option text: its name, and "(ally)" for one of the actor's side. */
function targetName(table, actor, t) {
  if (t === actor) return `${table.nameOf(t)} (self)`;
  return isAlly(table, actor, t) ? `${table.nameOf(t)} (ally)` : table.nameOf(t);
}

/** The targets of an action as the selects list them: for a hostile action, enemies first and
 * allies after them (as the server listed them otherwise). */
function orderedTargets(a, table) {
  const targets = a.targets || [];
  if (!HOSTILE_ACTIONS.has(a.action)) return targets;
  return [...targets.filter((t) => !isAlly(table, a.combatant, t)), ...targets.filter((t) => isAlly(table, a.combatant, t))];
}

function targetSelect(a, table, label) {
  const hostile = HOSTILE_ACTIONS.has(a.action);
  const options = orderedTargets(a, table).map((t) => h("option", { value: t, class: isAlly(table, a.combatant, t) ? "ally" : "" }, targetName(table, a.combatant, t)));
  // a hostile action preselects nobody: the user picks the target
  if (hostile) options.unshift(h("option", { value: "", disabled: true, selected: true }, "choose a target…"));
  // an action the server says may go without a target (a harvest) offers none first
  else if (a.optional_target) options.unshift(h("option", { value: "", selected: true }, "no target"));
  return h("select", { class: "target", required: hostile, "aria-label": `${label}: target` }, ...options);
}

/** Before a hostile action: a target is chosen, and one on the actor's side is confirmed.
 * False (and nothing sent) otherwise. */
function targetsOk(a, table, targets, run, button = null) {
  if (!HOSTILE_ACTIONS.has(a.action)) return true;
  if (!targets.length || targets.some((t) => !t)) {
    run(button, "_local", { message: "Choose a target first." });
    return false;
  }
  const allies = targets.filter((t) => isAlly(table, a.combatant, t));
  if (!allies.length) return true;
  const label = a.label || humanize(a.action);
  return window.confirm(`${label}: ${allies.map((t) => table.nameOf(t)).join(", ")} ${allies.length > 1 ? "are allies" : "is an ally"} of ${table.nameOf(a.combatant)}. Go ahead?`);
}

function actionControl(a, table, run, shared) {
  const data = { action: a.action, combatant: a.combatant ?? "" };
  const label = a.label || humanize(a.action);
  if (a.action === "submit_roll") {
    const pending = table.pendingRolls.get((a.targets || [])[0]);
    const dice = pending ? pending.dice : [];
    const inputs = dice.length
      ? dice.map((sides, i) => h("input", { type: "number", min: 1, max: sides, class: "face", title: `d${sides}`, placeholder: `d${sides}`, "aria-label": `die ${i + 1}: d${sides}` }))
      : [h("input", { type: "text", class: "face", placeholder: "faces, e.g. 14 3" })];
    const form = h("form", { class: "roll", dataset: data }, h("span", {}, `${label}: `), ...inputs,
      h("button", { type: "submit", dataset: data }, "Enter dice"));
    form.addEventListener("submit", (ev) => {
      ev.preventDefault();
      const faces = inputs.flatMap((i) => i.value.split(/[\s,]+/)).filter((x) => x !== "").map(Number);
      run(form.querySelector("button"), "submit_roll", { request: a.targets[0], faces });
    });
    return form;
  }
  if (a.action === "request_undo") { // a command of its own (R108): the GM answers it
    return h("button", { type: "button", dataset: data, class: "request-undo",
      onclick: (ev) => run(ev.target, "request_undo", { combatant: a.combatant }) }, a.label || "Ask the GM to undo the last action");
  }
  if (a.action === "server_roll") {
    return h("button", { type: "button", dataset: data, onclick: (ev) => run(ev.target, "server_roll", { request: a.targets[0] }) }, `Let the server roll ${a.label ? "(" + a.label + ")" : ""}`);
  }
  if (a.combatant === null || a.combatant === undefined) {
    // the GM's own commands: named after the command to send
    const reason = a.action === "end_encounter" ? h("input", { type: "text", class: "reason", placeholder: "reason (optional)", maxlength: 80 }) : null;
    const text = { start_encounter: "Start the scene", end_encounter: "End the scene" }[a.action] || label;
    return h("span", { class: "gmaction" }, reason,
      h("button", { type: "button", dataset: data, onclick: (ev) => {
        const fields = { ...shared().extra };
        if (reason && reason.value.trim()) fields.reason = reason.value.trim();
        run(ev.target, a.action, fields);
      } }, text));
  }
  if (SOCIAL_CONTROLS[a.action]) return SOCIAL_CONTROLS[a.action](a, table, run, shared, data, label);
  // an action of the combatant: its targets (if the server lists any) and its arguments
  const select = a.targets && a.targets.length ? targetSelect(a, table, label) : null;
  const argInputs = a.args && typeof a.args === "object" && !Array.isArray(a.args)
    ? Object.entries(a.args).map(([name, spec]) => argInput(name, spec)) : [];
  argInputs.push(...extraInputs(a, table));
  argInputs.push(...optionInputs(a, new Set(argInputs.map((el) => el.name).filter(Boolean))));
  const onMap = table.map && table.positions.has(a.combatant) && PATH_ACTIONS.has(a.action);
  if (onMap) argInputs.push(h("span", { class: "path-text", dataset: { combatant: a.combatant } }, pathText(a.combatant)));
  const form = h("form", { class: `act${select || argInputs.length ? " with-args" : ""}`, dataset: data },
    h("button", { type: "submit", dataset: data, title: a.action }, label), select, ...argInputs);
  form.addEventListener("submit", (ev) => {
    ev.preventDefault();
    const { note, extra } = shared();
    const args = { ...extra, ...collect(form) };
    if (select && select.value) args.target = select.value;
    if (select && !targetsOk(a, table, [args.target], run, form.querySelector("button"))) return;
    if (note && !NO_NOTE.has(a.action)) args.note = note;
    if (onMap && !args.path) {
      if (!picking.path.length || picking.combatant !== a.combatant) {
        run(form.querySelector("button"), "_local", { message: "Click the squares to enter on the map first." });
        return;
      }
      args.path = picking.path.map(([x, y]) => [x, y]);
    }
    run(form.querySelector("button"), "act", { combatant: a.combatant, action: a.action, args })
      .then((ok) => { if (ok && onMap) setPath(a.combatant, []); });
  });
  return form;
}

// -- social scenes ---------------------------------------------------------------------------

/** Statement sizes, smallest first (the lie's size choice; the server names the rule). */
export const SIZES = ["fine", "diminutive", "tiny", "small", "medium", "large", "huge", "gargantuan", "colossal"];
const ATTITUDES = ["hostile", "unfriendly", "indifferent", "friendly", "helpful"];

/** A combatant's statements the server lists (spent ones last). */
export function statementsOf(table, cid, { unspent = false } = {}) {
  return [...table.arguments].filter(([, a]) => a.owner === cid && (!unspent || a.size))
    .sort(([, x], [, y]) => (x.size ? 0 : 1) - (y.size ? 0 : 1));
}

const statementLabel = ([id, a]) => `${a.text ? `“${a.text}” ` : ""}(${a.size || "spent"}${a.perilous ? ", perilous" : ""}) ${id}`;

function argumentSelect(table, cid, name, aria) {
  const own = statementsOf(table, cid, { unspent: true });
  return h("select", { name, class: name, "aria-label": aria },
    ...(own.length ? own.map((x) => h("option", { value: x[0] }, statementLabel(x))) : [h("option", { value: "" }, "no statement (the GM sizes them)")]));
}

function socialForm(a, table, run, shared, data, label, inputs, args) {
  const form = h("form", { class: "act social with-args", dataset: data },
    h("button", { type: "submit", dataset: data, title: a.action }, label), ...inputs);
  form.addEventListener("submit", (ev) => {
    ev.preventDefault();
    const { note, extra } = shared();
    const out = { ...extra, ...args(form) };
    const aimed = out.targets || (out.target !== undefined ? [out.target] : []);
    if ((out.targets || out.target !== undefined) && !targetsOk(a, table, aimed, run, form.querySelector("button"))) return;
    if (note) out.note = note;
    run(form.querySelector("button"), "act", { combatant: a.combatant, action: a.action, args: out });
  });
  return form;
}

/** Controls for the social maneuvers: the arguments they take (docs/protocol.md), filled
 * from the statements the server lists. */
const SOCIAL_CONTROLS = {
  dispute(a, table, run, shared, data, label) {
    const target = targetSelect(a, table, label);
    const argument = argumentSelect(table, a.combatant, "argument", `${label}: your statement`);
    return socialForm(a, table, run, shared, data, label, [target, argument],
      () => ({ target: target.value, argument: argument.value }));
  },
  conversation(a, table, run, shared, data, label) {
    const target = targetSelect(a, table, label);
    const argument = argumentSelect(table, a.combatant, "argument", `${label}: your statement`);
    const against = h("span", { class: "against" });
    const refresh = () => against.replaceChildren(argumentSelect(table, target.value, "against", `${label}: the target's statement`));
    target.addEventListener("change", refresh);
    refresh();
    return socialForm(a, table, run, shared, data, label, [target, argument, " against ", against],
      (form) => ({ target: target.value, argument: argument.value, against: form.querySelector("select.against").value }));
  },
  lie(a, table, run, shared, data, label) {
    const targets = h("select", { class: "targets", multiple: true, size: Math.min(4, (a.targets || []).length), "aria-label": `${label}: to whom` },
      ...orderedTargets(a, table).map((t) => h("option", { value: t, class: isAlly(table, a.combatant, t) ? "ally" : "" }, targetName(table, a.combatant, t))));
    const size = h("select", { name: "size", class: "size", "aria-label": "the lie's size" }, ...SIZES.map((z) => h("option", { value: z, selected: z === "medium" }, `size: ${z}`)));
    const white = h("label", { class: "flag" }, h("input", { type: "checkbox", name: "white" }), " white lie");
    const text = h("input", { type: "text", name: "text", class: "lie-text", maxlength: 200, placeholder: "what is said" });
    return socialForm(a, table, run, shared, data, label, [targets, size, white, text], (form) => {
      const out = { targets: [...targets.selectedOptions].map((o) => o.value), size: size.value, white: form.querySelector("input[name=white]").checked };
      if (text.value.trim()) out.text = text.value.trim();
      return out;
    });
  },
  answer_statement(a, table, run, shared, data, label) {
    const waiting = a.targets || [];
    const which = h("select", { class: "statement", "aria-label": "which statement", hidden: waiting.length < 2 },
      ...waiting.map((sid) => {
        const p = table.answers.get(sid);
        return h("option", { value: sid }, p ? `${table.nameOf(p.speaker)}'s statement (${p.loss})` : sid);
      }));
    const first = table.answers.get(waiting[0]);
    const say = first ? `${table.nameOf(first.speaker)}'s statement (${first.loss} mental fatigue if refused):` : `${label}:`;
    const send = (answer) => (ev) => run(ev.target, "act", { combatant: a.combatant, action: a.action, args: { answer, statement: which.value || waiting[0] } });
    return h("span", { class: "answer", dataset: data }, h("span", {}, say), which,
      ...[["accept", "Accept"], ["accept_with_reservation", "Accept with reservation"], ["refuse", "Refuse"]].map(([answer, text]) =>
        h("button", { type: "button", class: `answer-${answer}`, dataset: { ...data, answer }, onclick: send(answer) }, text)));
  },
};

/** Whether there is anything social to show: an event, statements, attitudes, Blocking. */
export function socialShown(table) {
  return !!(table.social || table.arguments.size || Object.keys(table.attitudes).length || table.blocking.size || table.debateOver);
}

/**
 * The social scene as the server sent it: the event, and per combatant its mental track, its
 * statements, Blocking and its standing (Social Status with its parts, Social Access Rating,
 * aura, Harmony and Discord points); then the attitudes, holder → toward.
 */
export function renderSocial(box, table) {
  if (!socialShown(table)) { box.replaceChildren(); return false; }
  const event = table.social && table.social.event;
  const head = [];
  if (event) {
    const bits = [`Event Rating ${event.rating}`];
    if (event.organizer) bits.push(`organised by ${table.nameOf(event.organizer)}`);
    if (event.circle) bits.push(`circle: ${event.circle}`);
    if (event.topic) bits.push(`topic: ${event.topic}`);
    bits.push(`encounter ${event.encounter ?? 1}${event.last === false ? "" : " (the last)"}`);
    head.push(h("p", { class: "social-event", title: terms(event.parts) }, bits.join(" · ")));
  } else head.push(h("p", { class: "social-event muted" }, "No social event set."));
  if (table.debateOver) head.push(h("p", { class: "debate-over" }, "The debate is over: no more Dispute or Conversation in this scene."));
  const standing = (table.social && table.social.standing) || {};
  const rows = [...table.combatants.values()].map((c) => {
    const st = standing[c.id];
    const mental = (c.vitals || {}).mental;
    const track = mental ? `${mental.step || 0}/5${mental.penalty ? ` (${mental.penalty})` : ""}${mental.persistent ? `, ${mental.persistent} persistent` : ""}` : "—";
    const statements = statementsOf(table, c.id);
    const aura = st && st.aura && st.aura.level ? `${st.aura.kind} ${st.aura.level}` : "—";
    return h("tr", { dataset: { combatant: c.id } },
      h("th", {}, c.name, table.blocking.has(c.id) ? h("span", { class: "badge blocking" }, "blocking") : ""),
      h("td", { class: "mental" }, track),
      h("td", { class: "status", title: st ? terms(st.status_parts) : "" }, st ? String(st.status) : "—",
        st && st.status_parts && st.status_parts.length ? h("span", { class: "parts" }, ` (${terms(st.status_parts)})`) : ""),
      h("td", { class: "access" }, st && st.access !== null && st.access !== undefined ? String(st.access) : "—"),
      h("td", { class: "aura" }, aura),
      h("td", { class: "points" }, st ? `${st.harmony || 0} / ${st.discord || 0}` : "—"),
      h("td", { class: "statements" }, statements.length ? h("ul", { class: "items" }, ...statements.map((x) =>
        h("li", { class: x[1].size ? "" : "spent", dataset: { argument: x[0] } }, statementLabel(x)))) : "—"));
  });
  const attitudes = [];
  for (const [holder, row] of Object.entries(table.attitudes)) {
    for (const [toward, attitude] of Object.entries(row)) {
      attitudes.push(h("tr", { dataset: { holder, toward } }, h("td", {}, table.nameOf(holder)), h("td", {}, "→"),
        h("td", {}, table.nameOf(toward)), h("td", { class: `attitude ${attitude}` }, attitude)));
    }
  }
  box.replaceChildren(...head,
    h("table", { class: "social" }, h("thead", {}, h("tr", {}, ...[h("span", { class: "sr-only" }, "Character"), "Mental track", "Social Status", "Access", "Aura", "Harmony / Discord", "Statements"].map((t) => h("th", {}, t)))),
      h("tbody", {}, ...rows)),
    h("h3", {}, "Attitudes"),
    attitudes.length ? h("table", { class: "attitudes" }, h("tbody", {}, ...attitudes))
      : h("p", { class: "muted" }, `Everyone is ${ATTITUDES[2]} (no attitude set).`));
  return true;
}

/** A link to the table for a token. */
export function tableLink(tok) {
  return `${location.origin}/table/#token=${encodeURIComponent(tok)}`;
}

/** A link to the spectator overlay for a spectator token. */
export function watchLink(tok, transparent = false) {
  return `${location.origin}/watch?spectate=${encodeURIComponent(tok)}${transparent ? "&transparent=1" : ""}`;
}

/** A link to the spectator overlay playing the encounter back, at `speed` times its pace. */
export function replayLink(tok, speed = 4) {
  return `${location.origin}/watch?spectate=${encodeURIComponent(tok)}&replay=${speed}`;
}

export { rulesets, loadRulesets };

/** A ruleset's title (its name, until the server's list has come). */
export function rulesetTitle(name) {
  return (rulesets.get(name) || {}).title || name || "";
}

export function subtitle(table) {
  const w = table.welcome || {};
  const phase = table.ended ? "ended" : table.started ? (table.round ? `round ${table.round}` : "rolling initiative") : "setting up";
  return `${w.role || ""} · ${rulesetTitle(table.ruleset)} · ${phase}`;
}
