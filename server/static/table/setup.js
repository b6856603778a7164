// The create page's encounter options as controls: the turn timer, who rolls the dice and
// anonymous hidden turns (docs/protocol/options.<ruleset>.schema.json names each one). What they
// set is merged over the options' JSON box, which stays for the others.

import { h } from "/table/render.js";

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
