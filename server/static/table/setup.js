// The create page's encounter options as controls: the turn timer, who rolls the dice and
// anonymous hidden turns (docs/protocol/options.<ruleset>.schema.json names each one). What they
// set is merged over the options' JSON box, which stays for the others.

import { h } from "/table/render.js";
import { argProblems } from "/table/argcheck.js";

const EXPIRY = [["notify", "only says so"], ["end_turn", "ends the turn"], ["delay", "makes its combatant delay (Dramatic only)"]];

/** The controls, `read()` the options they set (those left at their default left out) and
 *  `fill(options)` showing an example's or a file's. */
export function optionControls() {
  const seconds = h("input", { type: "number", name: "turn_seconds", min: 1, max: 86400, placeholder: "none", class: "opt-seconds" });
  const warning = h("input", { type: "number", name: "turn_warning_seconds", min: 0, max: 86400, placeholder: "10", class: "opt-warning" });
  const expiry = h("select", { name: "turn_expiry", class: "opt-expiry" }, ...EXPIRY.map(([v, t]) => h("option", { value: v }, t)));
  const flag = (name, text) => {
    const box = h("input", { type: "checkbox", name, class: `opt-${name}` });
    return [box, h("label", { class: "flag" }, box, ` ${text}`)];
  };
  const [players, playersLabel] = flag("players_roll", "players roll their own dice (and enter them)");
  const [manual, manualLabel] = flag("manual_rolls", "I roll the NPCs' dice myself (and enter them)");
  const [publicRolls, publicLabel] = flag("npc_rolls_public", "the NPCs' dice are shown to everyone");
  const [anonymous, anonymousLabel] = flag("anonymous_hidden_turns", "anonymous hidden turns: the table sees one turn of “someone behind the GM's screen” a round");
  const el = h("fieldset", { class: "options-controls" }, h("legend", {}, "Options"),
    h("p", { class: "opt-row" },
      h("label", {}, "Turn timer (seconds) ", seconds), " ",
      h("label", {}, "warn this many seconds before ", warning), " ",
      h("label", {}, "when time is up, it ", expiry)),
    h("p", { class: "opt-row" }, playersLabel, manualLabel, publicLabel),
    h("p", { class: "opt-row" }, anonymousLabel));
  // a control the GM changed says its value (its default too); the others only a value of their own
  const touched = new Set();
  el.addEventListener("change", (ev) => { if (ev.target.name) touched.add(ev.target.name); });
  return {
    el,
    read() {
      const out = {};
      if (touched.has("turn_seconds")) out.turn_seconds = seconds.value === "" ? null : Number(seconds.value);
      if (touched.has("turn_expiry")) out.turn_expiry = expiry.value;
      for (const box of [players, manual, publicRolls, anonymous]) if (touched.has(box.name)) out[box.name] = box.checked;
      if (seconds.value !== "") out.turn_seconds = Number(seconds.value);
      if (warning.value !== "") out.turn_warning_seconds = Number(warning.value);
      if (expiry.value !== "notify") out.turn_expiry = expiry.value;
      for (const box of [players, manual, publicRolls, anonymous]) if (box.checked) out[box.name] = true;
      return out;
    },
    fill(options) {
      const o = options || {};
      seconds.value = o.turn_seconds ?? "";
      warning.value = o.turn_warning_seconds ?? "";
      expiry.value = o.turn_expiry || "notify";
      for (const box of [players, manual, publicRolls, anonymous]) box.checked = !!o[box.name];
      touched.clear();
    },
  };
}

// -- the stat-block editor -------------------------------------------------------------------


/** A stat block's fields the form leaves to the map and to integrations (YAML sets them). */
const LEFT_OUT = new Set(["position", "external_ids"]);
const schemas = new Map();

/** A ruleset's stat-block schema, as the server publishes it (fetched once). */
export function statBlockSchema(ruleset) {
  if (!schemas.has(ruleset)) {
    schemas.set(ruleset, fetch(`/schemas/stat-block.${encodeURIComponent(ruleset)}.json`)
      .then((r) => (r.ok ? r.json() : null)).catch(() => null));
  }
  return schemas.get(ruleset);
}

const words = (key) => String(key).replaceAll("_", " ");

function resolve(schema, root) {
  let s = schema || {};
  while (s.$ref) s = (root.$defs || {})[s.$ref.replace(/^#\/\$defs\//, "")] || {};
  // a value or nothing: the value's own schema
  if (s.anyOf) {
    const some = s.anyOf.map((a) => resolve(a, root)).filter((a) => a.type !== "null");
    // (of several, written as text: a die as "d8" where a number would do too)
    const one = some.length === 1 ? some[0] : some.find((a) => a.type === "string");
    if (one) return { ...one, description: s.description || one.description, default: s.default ?? one.default };
  }
  return s;
}

/** The singular of a list's name, for its items: "weapons" → "weapon". */
const single = (key) => words(key).replace(/ies$/, "y").replace(/s$/, "");

/**
 * One field of the form, drawn from its schema: `{el, get()}`, `get()` undefined for a field
 * left empty (the server's default). `at` registers the field's element by its path, where an
 * error about it is shown.
 */
function field(schema, root, key, path, label, at) {
  const s = resolve(schema, root);
  const hint = s.description || null;
  const type = [].concat(s.type || [])[0];
  if (s.enum) {
    const select = h("select", { name: path, title: hint },
      h("option", { value: "" }, s.default !== undefined ? `${words(s.default)} (default)` : "—"),
      ...s.enum.filter((v) => v !== null).map((v) => h("option", { value: String(v) }, words(v))));
    const el = h("label", { class: "sb-field" }, h("span", {}, label), select);
    at(path, el, select);
    return { el, get: () => (select.value === "" ? undefined : s.enum.find((v) => String(v) === select.value)), set: (v) => { select.value = v ?? ""; } };
  }
  if (type === "boolean") {
    const box = h("input", { type: "checkbox", name: path, title: hint, checked: s.default === true || null });
    const el = h("label", { class: "sb-field sb-flag" }, box, h("span", {}, ` ${label}`));
    at(path, el, box);
    return { el, get: () => (box.checked === (s.default === true) ? undefined : box.checked), set: (v) => { box.checked = v ?? s.default === true; } };
  }
  if (type === "integer" || type === "number" || type === "string") {
    const input = h("input", { type: type === "string" ? "text" : "number", name: path, title: hint,
      placeholder: s.default !== undefined && s.default !== null ? String(s.default) : type === "string" ? "" : "—", step: type === "integer" ? 1 : "any" });
    const el = h("label", { class: `sb-field${type === "string" ? " sb-text" : ""}` }, h("span", {}, label), input);
    at(path, el, input);
    return {
      el,
      get: () => (input.value === "" ? undefined : type === "string" ? input.value : Number(input.value)),
      set: (v) => { input.value = v ?? ""; },
    };
  }
  if (type === "array" && resolve(s.items, root).type !== "object") {
    // a list of words: comma-separated
    const input = h("input", { type: "text", name: path, title: hint, placeholder: "comma-separated" });
    const el = h("label", { class: "sb-field sb-text" }, h("span", {}, label), input);
    at(path, el, input);
    return { el, get: () => { const v = input.value.split(",").map((x) => x.trim()).filter(Boolean); return v.length ? v : undefined; }, set: (v) => { input.value = (v || []).join(", "); } };
  }
  if (type === "array") {
    const item = resolve(s.items, root);
    const rows = [];
    const list = h("div", { class: "sb-items" });
    const box = h("fieldset", { class: "sb-list", dataset: { path } }, h("legend", {}, label), list);
    const add = (value) => {
      const n = rows.length;
      const row = { fields: null, el: null };
      const inner = objectFields(item, root, `${path}[${n}]`, `${single(key)} ${n + 1}`, at);
      const remove = h("button", { type: "button", class: "sb-remove", onclick: () => { rows.splice(rows.indexOf(row), 1); row.el.remove(); } }, `Remove ${single(key)} ${n + 1}`);
      row.fields = inner;
      row.el = h("fieldset", { class: "sb-item" }, h("legend", {}, `${single(key)} ${n + 1}`), ...inner.els, remove);
      if (value) inner.set(value);
      rows.push(row);
      list.append(row.el);
    };
    box.append(h("button", { type: "button", class: "sb-add", dataset: { list: key }, onclick: () => add() }, `Add a ${single(key)}`));
    at(path, box, box);
    return { el: box, get: () => { const v = rows.map((r) => r.fields.get()); return v.length ? v : undefined; },
      set: (v) => { rows.splice(0).forEach((r) => r.el.remove()); for (const x of v || []) add(x); } };
  }
  if (type === "object" && s.properties && Object.keys(s.properties).length) {
    const inner = objectFields(s, root, path, label, at);
    const box = h("fieldset", { class: "sb-group" }, h("legend", {}, label), ...inner.els);
    at(path, box, box);
    // (a group left empty is left out: its default, or none)
    return { el: box, get: () => { const v = inner.get(); return Object.keys(v).length ? v : undefined; }, set: inner.set };
  }
  if (type === "object" && s.additionalProperties && typeof s.additionalProperties === "object") {
    // a map of names to values (skills): one "name value" pair a line, comma-separated
    const input = h("input", { type: "text", name: path, title: hint, placeholder: "name value, name value…" });
    const el = h("label", { class: "sb-field sb-text" }, h("span", {}, label), input);
    at(path, el, input);
    const valueType = resolve(s.additionalProperties, root).type;
    return {
      el,
      get: () => {
        const out = {};
        for (const part of input.value.split(",").map((x) => x.trim()).filter(Boolean)) {
          const m = part.match(/^(.*?)\s+(-?\d+)$/);
          if (m && (valueType === "integer" || valueType === "number")) out[m[1].trim()] = Number(m[2]);
          else out[part] = part; // (the schema says what is wrong with it)
        }
        return Object.keys(out).length ? out : undefined;
      },
      set: (v) => { input.value = Object.entries(v || {}).map(([k, x]) => `${k} ${x}`).join(", "); },
    };
  }
  return null; // (YAML sets it)
}

/** The fields of an object's properties: `{els, get, set}`. */
function objectFields(schema, root, path, label, at) {
  const s = resolve(schema, root);
  const parts = [];
  for (const [key, sub] of Object.entries(s.properties || {})) {
    if (LEFT_OUT.has(key)) continue;
    const f = field(sub, root, key, path ? `${path}.${key}` : key, words(key), at);
    if (f) parts.push([key, f]);
  }
  return {
    els: parts.map(([, f]) => f.el),
    get: () => {
      const out = {};
      for (const [key, f] of parts) { const v = f.get(); if (v !== undefined) out[key] = v; }
      return out;
    },
    set: (v) => { for (const [key, f] of parts) f.set((v || {})[key]); },
  };
}

/** A problem's path in words: `stats.weapons[1].damage` → "weapon 2: damage". */
export function pathWords(path) {
  return path.split(".").map((part) => {
    const m = part.match(/^(\w+)\[(\d+)\]$/);
    return m ? `${single(m[1])} ${Number(m[2]) + 1}` : words(part);
  }).filter((p) => p !== "stats").join(": ");
}

/**
 * The stat-block editor: a card per combatant with the fields of the ruleset's published schema
 * (its stats, weapons and skills among them), "Add a combatant", and `check()`, which shows every
 * problem at once, next to its field and in words, and returns the combatants or null.
 */
export function statBlockEditor() {
  const list = h("div", { class: "sb-cards" });
  const status = h("p", { class: "sb-summary", role: "alert" });
  let schema = null;
  const cards = [];
  const addButton = h("button", { type: "button", class: "sb-add-combatant" }, "Add a combatant");
  const el = h("div", { class: "sb-editor" }, list, h("p", {}, addButton), status);
  const add = (value) => {
    if (!schema) return;
    const n = cards.length + 1;
    const places = new Map();
    const at = (path, holder, control) => places.set(path, { holder, control });
    const main = objectFields({ ...schema, properties: Object.fromEntries(Object.entries(schema.properties).filter(([k]) => k !== "stats")) }, schema, "", "", at);
    const stats = field(schema.properties.stats, schema, "stats", "stats", "statistics", at);
    const card = { n, main, stats, places, el: null };
    const remove = h("button", { type: "button", class: "sb-remove", onclick: () => { cards.splice(cards.indexOf(card), 1); card.el.remove(); } }, `Remove combatant ${n}`);
    const statsBox = h("details", { class: "sb-stats" }, h("summary", {}, "Statistics, weapons and skills"), stats ? stats.el : "");
    card.el = h("fieldset", { class: "sb-card", dataset: { n } }, h("legend", {}, `Combatant ${n}`), h("div", { class: "sb-main" }, ...main.els), statsBox, remove);
    if (value) { main.set(value); if (stats) stats.set(value.stats); }
    cards.push(card);
    list.append(card.el);
  };
  addButton.addEventListener("click", () => add());
  return {
    el,
    /** Draw the form for a ruleset's schema (a combatant to start with). */
    async load(ruleset) {
      schema = await statBlockSchema(ruleset);
      cards.splice(0).forEach((c) => c.el.remove());
      status.textContent = schema ? "" : "This server does not publish its stat-block schema: use the YAML tab.";
      addButton.disabled = !schema || null;
      if (schema) add();
    },
    /** The combatants, or null with every problem shown at its field. */
    check() {
      for (const old of el.querySelectorAll(".sb-error")) old.remove();
      for (const bad of el.querySelectorAll("[aria-invalid]")) { bad.removeAttribute("aria-invalid"); bad.removeAttribute("aria-describedby"); }
      if (!schema) return null;
      const blocks = [];
      let count = 0;
      for (const card of cards) {
        const block = card.main.get();
        const stats = card.stats ? card.stats.get() : undefined;
        if (stats && Object.keys(stats).length) block.stats = stats;
        blocks.push(block);
        for (const problem of argProblems(schema, block)) {
          count += 1;
          // at the field (else the nearest group that holds it, else the card)
          let path = problem.field || "";
          while (path && !card.places.has(path)) path = path.replace(/(\.[^.[\]]+|\[\d+\])$/, "");
          const place = card.places.get(path);
          const text = problem.field ? problem.text.replace(problem.field, pathWords(problem.field)) : problem.text;
          const id = `sb-error-${card.n}-${count}`;
          const note = h("span", { class: "sb-error error", id, dataset: { field: problem.field || "" } }, `${text.charAt(0).toUpperCase()}${text.slice(1)}.`);
          if (place) {
            place.holder.append(note);
            if (place.control.matches("input, select")) { place.control.setAttribute("aria-invalid", "true"); place.control.setAttribute("aria-describedby", id); }
            for (let d = place.holder.closest("details"); d; d = d.parentElement.closest("details")) d.open = true;
          } else card.el.append(note);
        }
      }
      status.textContent = count ? `${count} problem${count === 1 ? "" : "s"} in the stat blocks, each shown at its field: nothing was sent.` : "";
      if (count) el.querySelector(".sb-error")?.closest("label, fieldset")?.querySelector("input, select")?.focus();
      if (!cards.length) { status.textContent = "Add a combatant first."; return null; }
      return count ? null : blocks;
    },
  };
}
