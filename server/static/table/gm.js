// The GM console: the roster (awareness, hide and reveal, invites), links for players and
// spectators, the scene's flow and every legal action, rulings, the order with the turn timer,
// and the log with the verifiable dice.

import { h, renderOrder, renderLog, renderActions, renderMap, renderTokenLegend, renderSheet, renderSocial, socialShown, pickSquare, refreshReach, refreshAim, errorWords, subtitle, tableLink, watchLink, replayLink, SIZES } from "/table/render.js";
import { drawingToMap, keepsMap, rulesets, vitalsLabel } from "/table/model.js";
import { turnTimer, TIMER_COMMANDS } from "/table/clock.js";
import { attentionStrip } from "/table/attention.js";

// GM rulings: overriding a value and adjudicating an action the rules do not list (each
// audited by the server as a gm_ruling, with its reason), a fall, the battle map, and the
// social scene's tools (statements, attitudes, the event, each one's situation). Each form
// sends its command with the fields below; a tool is offered only while the server lists its
// command in the GM's legal_actions (each ruleset has its own). A field is [name, kind, label]:
// "combatant" a combatant, "combatant?" an optional one, "combatants" several, "int" a whole
// number (sent as a JSON number), "int|null" one whose empty field is sent as null, "number"
// any number, "step" a track step 0-5, "bool?" yes/no/unchanged, a list the choices, "text"
// text; a dotted name ("on_success.heal") goes into a nested object. Empty fields are left
// out.
const OUTCOME = (key, title) => [
  [`${key}.fatigue_loss`, "int", `${title}: fatigue loss`],
  [`${key}.loss_kind`, ["physical", "mental"], `${title}: loss kind`],
  [`${key}.steps`, "step", `${title}: steps down the track`],
  [`${key}.persistent`, "bool?", `${title}: persistent steps`],
  [`${key}.heal`, "int", `${title}: heal`],
  [`${key}.prone`, "bool?", `${title}: prone`],
];

export const GM_TOOLS = [
  { command: "adjust_combatant", title: "Override", help: "Set a combatant's values, with a reason everyone who sees it sees.",
    fields: [["combatant", "combatant", "combatant"], ["reason", "text", "reason (required)"], ["fatigue", "int", "fatigue"],
      ["fatigue_max", "int", "fatigue max"], ["physical_step", "step", "physical step"], ["physical_persistent", "step", "physical persistent"],
      ["physical_crippling", "step", "physical crippling"], ["mental_step", "step", "mental step"], ["mental_persistent", "step", "mental persistent"],
      ["mental_crippling", "step", "mental crippling"], ["prone", "bool?", "prone"],
      ["condition", ["", "conscious", "unconscious", "dead", "destroyed"], "condition"]] },
  { command: "adjudicate", title: "Adjudicate", help: "An action the rules do not list: the server rolls d20 + modifier against the DC (no DC: success).",
    fields: [["description", "text", "description (required)"], ["combatant", "combatant?", "acting combatant"],
      ["target", "combatant?", "target (default: the combatant)"], ["modifier", "int", "modifier"], ["dc", "int", "DC"],
      ...OUTCOME("on_success", "success"), ...OUTCOME("on_failure", "failure")] },
  { command: "add_effect", title: "Effect", help: "An effect on a combatant: what it changes (targets in actions.md, \"Effects\": e.g. reflex_defense +2, attack -1; Action Time: defense +1, test_steps -1, extra_damage_die d6) and how long it lasts (R90).",
    fields: [["name", "text", "name (required)"], ["combatant", "combatant?", "holder"], ["modifiers", "modifiers", "changes (target amount, ...)"],
      ["until", ["rounds", "start_of_next_turn", "end_of_round", "scene", "ended"], "lasts"], ["rounds", "int", "rounds (with lasts: rounds)"],
      ["source", "text", "source (default: the name)"], ["source_kind", ["gm", "feat", "talent", "species", "spell", "item", "stunt", "cover", "concealment", "condition"], "kind of source"],
      ["origin", "combatant?", "from (combatant)"]] },
  { command: "fall", title: "Fall", help: "A combatant falls: the server rolls Acrobatics (if trained), the fall and its damage.",
    fields: [["combatant", "combatant", "combatant"], ["meters", "number", "meters"]] },
  { command: "collide", title: "Collision", help: "Two movers run into each other: no roll to hit; each takes both speeds + the other's Strength modifier + the other's size damage (R23).",
    fields: [["first", "combatant", "first mover"], ["first_flying", "bool?", "first flying"], ["second", "combatant", "second mover"],
      ["second_flying", "bool?", "second flying"]] },
  { command: "load_object", title: "Load", help: "An object now supports a weight (in its stat block's load unit; 0 takes the load off): beyond its heavy load it moves down the track (R15).",
    fields: [["combatant", "combatant", "object"], ["weight", "number", "weight (required)"]] },
  { command: "size_argument", title: "Statement", help: "Give a combatant a statement of a size (or resize one: its id).",
    fields: [["combatant", "combatant", "combatant"], ["size", SIZES, "size"], ["text", "text", "what it says"],
      ["argument", "text", "resize statement (id)"], ["perilous", "bool?", "perilous"]] },
  { command: "set_attitude", title: "Attitude", help: "Set one character's attitude toward another.",
    fields: [["holder", "combatant", "holder"], ["toward", "combatant", "toward"],
      ["attitude", ["hostile", "unfriendly", "indifferent", "friendly", "helpful"], "attitude"], ["reason", "text", "reason"]] },
  { command: "rule_doubt", title: "Doubt", help: "A statement accepted with reservation: was the doubt unfounded? Then its target loses half the loss recorded (R48).",
    fields: [["statement", "text", "statement (id, required)"], ["unfounded", "bool?", "unfounded (required)"]] },
  { command: "set_social_event", title: "Social event", help: "The event of this scene: the organiser's rating (empty: no event), raised by VIP guests.",
    fields: [["rating", "int|null", "rating"], ["organizer", "combatant?", "organiser"], ["vips", "combatants", "VIP guests"],
      ["circle", "text", "circle of society"], ["topic", "text", "topic"], ["encounter", "int", "encounter no."],
      ["last", "bool?", "last of the event"], ["gm_override", "bool?", "below half (GM)"]] },
  { command: "set_social_situation", title: "Situation", help: "A combatant's situation at the event (empty fields keep their value).",
    fields: [["combatant", "combatant", "combatant"], ["familiarity", ["", "known", "few_know", "stranger"], "familiarity"],
      ["race", ["", "prevailing", "not_prevailing", "rare", "unknown_or_dangerous"], "race"], ["subject_rank", "int", "rank in the subject"],
      ["invitation", "bool?", "invitation"], ["knows_host", "bool?", "knows the host"], ["knows_most", "bool?", "knows most present"],
      ["attire", ["", "ordinary", "appropriate", "inappropriate"], "attire"]] },
];

/** The tools of a social scene (shown first only in one). */
const SOCIAL_TOOLS = new Set(["size_argument", "set_attitude", "rule_doubt", "set_social_event", "set_social_situation"]);

/** GM commands with a control of their own (a form above, the map panel): not repeated as
 * bare buttons among the actions. */
const OWN_CONTROLS = new Set([...GM_TOOLS.map((t) => t.command), "set_map", "place_combatant", ...TIMER_COMMANDS]);

/** An effect's changes as written in the form, "target amount" separated by commas: the
 * amount a whole number, or a die ("d6") for a target that adds one. */
export function parseModifiers(text) {
  const out = [];
  for (const part of text.split(",")) {
    const [target, amount] = part.trim().split(/\s+/);
    if (!target || amount === undefined) continue;
    out.push({ target, amount: /^[dD]\d+$/.test(amount) ? amount.toLowerCase() : parseInt(amount, 10) });
  }
  return out;
}

/** The fields of a tool form as the command's payload: numbers as JSON numbers, dotted names
 * nested, empty fields left out. */
export function toolFields(form) {
  const out = {};
  for (const el of form.querySelectorAll("[name]")) {
    const kind = el.dataset.kind;
    if (kind === "combatants") {
      const chosen = [...el.selectedOptions].map((o) => o.value);
      if (chosen.length) out[el.name] = chosen;
      continue;
    }
    if (kind === "modifiers") { // "reflex_defense +2, extra_damage_die d6"
      const mods = parseModifiers(el.value);
      if (mods.length) out[el.name] = mods;
      continue;
    }
    if (kind === "int|null" && el.value === "") { out[el.name] = null; continue; }
    if (el.value === "") continue;
    let value = el.value;
    if (kind === "int" || kind === "step" || kind === "int|null") value = parseInt(value, 10);
    else if (kind === "number") value = Number(value);
    else if (kind === "bool?") value = value === "true";
    if (typeof value === "number" && Number.isNaN(value)) continue;
    const path = el.name.split(".");
    let obj = out;
    for (const key of path.slice(0, -1)) obj = obj[key] ||= {};
    obj[path.at(-1)] = value;
  }
  return out;
}

export function gmView(root, table, conn, dicePanel, token) {
  // what waits for the GM, at the top (attention.js); its sender notes the console's first move
  const strip = attentionStrip(table, conn);
  const run = strip.wrap((type, fields) => conn.command(type, fields));
  // the actions' sender: ending the scene is asked again first (nothing is sent on a no)
  const actionRun = async (type, fields) => {
    if (type === "end_encounter" && !window.confirm(`End the scene${table.name ? ` "${table.name}"` : ""} for everyone? Nobody can act in it after that.`)) return null;
    return run(type, fields);
  };
  const timer = turnTimer(table, run);
  const roster = h("tbody", {});
  const rosterError = h("p", { class: "error", role: "alert" });
  const order = h("ol", { class: "order" });
  const actions = h("div", {});
  const log = h("div", { class: "log", tabindex: 0, role: "region", "aria-label": "Log" });
  const links = h("ul", { class: "links" });
  const tokens = h("ul", { class: "tokens" });
  const tools = h("div", { class: "tools" });
  const mapBox = h("div", { class: "mapbox" });
  const legend = h("ul", { class: "legend", "aria-label": "tokens" });
  const mapError = h("p", { class: "error", role: "alert" });
  const clickMode = h("select", { class: "click-mode", "aria-label": "a click on the map" });
  const modeLabel = h("p", { class: "map-mode", role: "status" });
  const mapText = h("textarea", { class: "map-json", placeholder: "JSON ({\"width\": 8, \"height\": 6, \"blocked\": [[3, 1]], \"walls\": [[[5, 0], [5, 3]]]…}) or a drawing: . floor # blocked ~ difficult = low : fog % darkness ^ pit ! improved cover", spellcheck: "false" });
  const sheets = h("div", { class: "sheets" });
  const socialBox = h("div", {});
  const social = h("section", { hidden: true, class: "wide social-panel", tabindex: 0, "aria-label": "Social scene" }, h("h2", {}, "Social scene"), socialBox);
  const linkError = h("p", { class: "error", role: "alert" });
  const linkNote = h("p", { class: "link-note", role: "status" });
  // the links come from the server's listing (the read API's /read/links), so that every GM
  // tab shows the same ones; a credential that may not list them (a player with view:gm) shows
  // none
  let listed = [];
  let asked = 0;
  async function fetchLinks() {
    const mine = ++asked;
    try {
      const r = await fetch("/read/links", { headers: { Authorization: `Bearer ${token}` } });
      if (mine !== asked) return; // a later listing is on its way
      listed = r.ok ? (await r.json()).links : [];
      if (!r.ok && r.status !== 403) linkError.textContent = (await r.json().catch(() => ({}))).message || `the links could not be read (${r.status})`;
    } catch (err) {
      linkError.textContent = `the links could not be read: ${err.message || err}`;
    }
    renderLinks();
  }
  const guard = (errorEl) => async (type, fields) => {
    errorEl.textContent = "";
    try { return await run(type, fields); } catch (err) {
      errorEl.textContent = errorWords(err);
      errorEl.dataset.code = err.code || "";
      return null;
    }
  };
  const rosterRun = guard(rosterError);
  const mapRun = guard(mapError);
  const linkRun = guard(linkError);

  const spectatorButton = h("button", { type: "button", class: "spectator-link", onclick: async () => {
    await linkRun("issue_spectator_link", { label: "Spectators" });
  } }, "New spectator link");

  const toolsPanel = h("section", { class: "tools-panel" }, h("h2", {}, "Rulings"), tools);
  // undo by the log (R108): the last command taken back, and the players' requests
  const undoBox = h("div", { class: "undo" });
  const undoError = h("p", { class: "error", role: "alert" });
  const undoRun = guard(undoError);
  let undoKey = "";
  function renderUndo() {
    const asked = (table.state && table.state.undo_requests) || [];
    const key = JSON.stringify([table.started, table.ended, asked]);
    if (key === undoKey) return;
    undoKey = key;
    if (!table.started || table.ended) { undoBox.replaceChildren(); return; }
    undoBox.replaceChildren(
      ...asked.map((r) => h("p", { class: "undo-request", dataset: { request: r.request } },
        `${table.nameOf(r.combatant)}'s player asks to take back its last action${r.reason ? ` (${r.reason})` : ""}. `,
        h("button", { type: "button", class: "grant", onclick: () => undoRun("undo", { request: r.request }) }, "Take it back"), " ",
        h("button", { type: "button", class: "refuse", onclick: () => undoRun("refuse_undo", { request: r.request }) }, "Keep it"))),
      h("p", {}, h("button", { type: "button", class: "undo-last", title: "the events stay in the log, struck through; what is done again rolls again",
        onclick: () => undoRun("undo", {}) }, "Undo the last command"), " ",
      h("span", { class: "muted" }, "again to go further back")),
      undoError);
  }
  root.dataset.view = "gm";
  root.replaceChildren(
    strip.el,
    h("section", { class: "wide roster-panel" }, h("h2", {}, "Combatants"),
      h("table", { class: "roster" }, h("thead", {}, h("tr", {}, ...[h("span", { class: "sr-only" }, "Turn"), "Name", "Kind", "Side", "Init.", "Vitals", "Aware", "Visibility", "Player"].map((t) => h("th", {}, t)))), roster),
      rosterError),
    // the map next, the whole width: where everyone stands, before the long lists
    h("section", { class: "wide map-panel" }, h("h2", {}, "Battle map"),
      h("p", {}, h("label", {}, "A click on the map: ", clickMode)), modeLabel, mapBox, legend, mapError,
      h("details", { class: "set-map" }, h("summary", {}, "Set or replace the map"), mapText,
        h("p", {}, h("button", { type: "button", class: "set-map", onclick: async () => {
          const text = mapText.value.trim();
          let map;
          try { map = text.startsWith("{") ? JSON.parse(text) : drawingToMap(text); } catch (err) { mapError.textContent = `not JSON: ${err.message}`; return; }
          const dropped = offTheMap(map);
          if (dropped.length && !window.confirm(`This map takes ${names(dropped)} off the map (${dropped.length > 1 ? "their squares are" : "its square is"} outside it or blocked). Set it all the same?`)) return;
          if (await mapRun("set_map", { map })) mapText.value = "";
        } }, "Set the map"), " ", h("button", { type: "button", class: "remove-map", onclick: () => {
          const placed = [...table.positions.keys()];
          if (placed.length && !window.confirm(`Removing the map takes ${names(placed)} off it. Remove it all the same?`)) return;
          mapRun("set_map", { map: null });
        } }, "Remove the map")))),
    h("section", { class: "order-panel" }, h("h2", {}, "Initiative"), timer.el, order),
    h("section", { class: "actions-panel" }, h("h2", {}, "Actions"), actions, undoBox),
    h("section", { class: "links-panel" }, h("h2", {}, "Links"),
      h("p", {}, spectatorButton, " ", h("span", { class: "muted" }, "invite players from the roster")), linkNote, links, linkError,
      h("h3", {}, "Credentials"), tokens),
    toolsPanel,
    social,
    h("section", { class: "wide sheets-panel" }, h("h2", {}, "Stat blocks and vitals"), sheets),
    h("section", { class: "wide log-panel" }, h("h2", {}, "Log"), dicePanel.el, log));

  const names = (ids) => ids.map((id) => table.nameOf(id)).join(", ");
  /** The placed combatants a new map would take off (the server takes off those that no longer
   * fit: this warns of those whose square is outside the map or blocked, before it is sent). */
  function offTheMap(map) {
    const blocked = new Set((map.blocked || []).map(([x, y]) => `${x},${y}`));
    const width = Number(map.width) || 0, height = Number(map.height) || 0;
    return [...table.positions].filter(([, [x, y]]) => x < 0 || y < 0 || x >= width || y >= height || blocked.has(`${x},${y}`)).map(([id]) => id);
  }

  /** Quick changes of the GM's, each an audited `adjust_combatant` (its reason says it was
   * the GM's quick change): fatigue points (Health) one down or up, and an NPC out of the
   * fight (unconscious, the state the rules have for it) or back. */
  function quickVitals(c) {
    const v = c.vitals;
    if (!v || v.fatigue === null || v.fatigue === undefined || !v.fatigue_max) return [];
    const label = vitalsLabel(table.ruleset);
    const adjust = (fields, what) => rosterRun("adjust_combatant", { combatant: c.id, reason: `the GM's quick change: ${what}`, ...fields });
    const out = [
      h("button", { type: "button", class: "minus", dataset: { combatant: c.id }, "aria-label": `${c.name}: ${label} one down`, disabled: v.fatigue <= 0 || null,
        onclick: () => adjust({ fatigue: v.fatigue - 1 }, `${label} -1`) }, "−"),
      h("span", { class: "points", dataset: { combatant: c.id } }, `${v.fatigue}/${v.fatigue_max}`),
      h("button", { type: "button", class: "plus", dataset: { combatant: c.id }, "aria-label": `${c.name}: ${label} one up`, disabled: v.fatigue >= v.fatigue_max || null,
        onclick: () => adjust({ fatigue: v.fatigue + 1 }, `${label} +1`) }, "+"),
    ];
    const conscious = (v.condition || [])[0] === "active";
    if (c.kind === "npc" && (conscious || (v.condition || [])[0] === "unconscious")) {
      out.push(h("button", { type: "button", class: conscious ? "down" : "up", dataset: { combatant: c.id },
        onclick: () => adjust({ condition: conscious ? "unconscious" : "conscious" }, conscious ? "out of the fight" : "back in the fight") },
        conscious ? "Out of the fight" : "Back in"));
    }
    return out;
  }

  /** Each player character's badge says whether its player is connected, changed in place
   * (the roster is not drawn again for it: a button aimed at stays where it is). */
  function markPresence() {
    for (const badge of roster.querySelectorAll(".badge.presence")) {
      const id = badge.dataset.combatant;
      const playing = presence.filter((s) => s.role === "player" && (s.combatants || []).includes(id))
        .reduce((n, s) => n + s.connections, 0);
      badge.classList.toggle("online", playing > 0);
      badge.textContent = playing ? `● connected${playing > 1 ? ` (${playing})` : ""}` : "○ not connected";
    }
  }

  function renderRoster() {
    const setup = !table.started;
    roster.replaceChildren(...[...table.combatants.values()].map((c) => {
      const init = table.initiative.get(c.id);
      // a second Invite shows the link the character has (no second credential for it)
      const invite = c.kind === "pc" ? h("button", { type: "button", class: "invite", dataset: { combatant: c.id }, onclick: async () => {
        const had = existingInvite(c.id);
        if (had) { showLink(had, `${c.name} already has a link: here it is (revoke it under Credentials for a new one).`); return; }
        await rosterRun("issue_invite", { combatants: [c.id], label: c.name });
      } }, "Invite") : "";
      // who plays it now, on any process of the server (the presence feature; markPresence)
      const online = c.kind === "pc" ? h("span", { class: "badge presence", dataset: { combatant: c.id } }) : "";
      return h("tr", { dataset: { combatant: c.id }, class: c.id === table.current ? "current" : "" },
        h("td", {}, c.id === table.current ? "▶" : ""),
        h("td", {}, c.name, h("span", { class: "muted" }, ` ${c.id}`)),
        h("td", {}, c.kind), h("td", {}, c.side),
        h("td", {}, init ? `${init.total}` : (c.initiative_mod >= 0 ? "+" : "") + c.initiative_mod),
        h("td", { class: "quick" }, ...quickVitals(c)),
        h("td", {}, setup ? h("input", { type: "checkbox", class: "aware", checked: c.aware !== false, dataset: { combatant: c.id }, "aria-label": `${c.name} aware`,
          onchange: (ev) => rosterRun("set_awareness", { combatant: c.id, aware: ev.target.checked }) }) : (c.aware === false ? "unaware" : "aware")),
        h("td", {}, h("button", { type: "button", class: c.hidden ? "reveal" : "hide", dataset: { combatant: c.id },
          onclick: () => rosterRun("set_hidden", { combatant: c.id, hidden: !c.hidden }) }, c.hidden ? "Reveal" : "Hide"),
          c.hidden ? h("span", { class: "badge hidden" }, "hidden") : ""),
        h("td", {}, invite, " ", online));
    }));
  }

  /** The player link listed for this one character alone, not revoked (from /read/links). */
  function existingInvite(cid) {
    return listed.find((l) => l.role === "player" && (l.combatants || []).length === 1 && l.combatants[0] === cid
      && !(table.tokens.get(l.token_id) || {}).revoked);
  }
  /** Bring a listed link into view, selected, with a word on why. */
  function showLink(l, words) {
    linkNote.textContent = words;
    const li = links.querySelector(`li[data-token="${CSS.escape(l.token_id)}"]`);
    for (const old of links.querySelectorAll("li.shown")) old.classList.remove("shown");
    if (!li) return;
    li.classList.add("shown");
    li.scrollIntoView({ block: "center" });
    const input = li.querySelector("input");
    input.focus();
    input.select();
  }

  function renderLinks() {
    const copy = (value, label) => h("button", { type: "button", class: "copy", "aria-label": `copy ${label}`,
      onclick: (ev) => navigator.clipboard?.writeText(value).then(() => { ev.target.textContent = "Copied"; }, () => {}) }, "Copy");
    const named = (what, parts) => h("div", { class: "link-kind" }, h("span", { class: "kind" }, what), h("span", { class: "copy-field" }, ...parts));
    const field = (value, cls, label, title) => [h("input", { type: "text", readonly: true, value, onclick: (ev) => ev.target.select(), class: cls, "aria-label": label, title }), copy(value, label)];
    links.replaceChildren(...listed.filter((l) => l.role !== "gm").map((l) => {
      const label = l.label || (l.combatants.length ? l.combatants.map((c) => table.nameOf(c)).join(", ") : l.role);
      return h("li", { dataset: { token: l.token_id } },
        h("strong", {}, label), " ",
        ...(l.role === "spectator"
          // the three links of a spectator credential, each named by what it opens
          ? [named("Spectator page (live)", field(watchLink(l.token), "link", `${label}: link`)),
            named("Overlay for streaming (transparent background)", field(watchLink(l.token, true), "overlay", `${label}: overlay link for streaming software (transparent background)`, "for streaming software: transparent background")),
            named("Replay (played back 4× as fast)", field(replayLink(l.token), "replay", `${label}: replay link (the encounter played back at 4 times its pace)`, "the encounter played back, 4 times as fast"))]
          : field(tableLink(l.token), "link", `${label}: link`)));
    }));
    tokens.replaceChildren(...[...table.tokens.values()].map((t) => h("li", {},
      `${t.label || t.role} (${t.role}${t.combatants && t.combatants.length ? ": " + t.combatants.map((c) => table.nameOf(c)).join(", ") : ""})`,
      t.revoked ? h("span", { class: "badge" }, "revoked")
        : t.token_id !== table.welcome?.token_id ? [" ", h("button", { type: "button", onclick: () => linkRun("revoke_token", { token_id: t.token_id }) }, "Revoke")] : " (you)")));
  }

  function renderTools() {
    const everyone = [...table.combatants.values()];
    const listed = new Set(table.legal.filter((a) => a.combatant === null || a.combatant === undefined).map((a) => a.action));
    toolsPanel.hidden = !GM_TOOLS.some((tool) => listed.has(tool.command));
    // the override sets the values the ruleset's combatants have, in its words
    const settable = (rulesets.get(table.ruleset) || {}).override_fields;
    const fieldsOf = (tool) => (tool.command !== "adjust_combatant" || !settable ? tool.fields
      : tool.fields.filter(([name]) => name === "combatant" || name === "reason" || settable.includes(name)));
    const vitals = vitalsLabel(table.ruleset);
    const forms = GM_TOOLS.filter((tool) => listed.has(tool.command)).map((tool) => {
      const inputs = fieldsOf(tool).map(([name, kind, text]) => {
        const label = name === "fatigue" || name === "fatigue_max" ? text.replace("fatigue", vitals) : text;
        let input;
        if (kind === "combatants") {
          input = h("select", { name, multiple: true, size: Math.min(4, everyone.length) }, ...everyone.map((c) => h("option", { value: c.id }, c.name)));
        } else if (kind === "combatant" || kind === "combatant?") {
          input = h("select", { name }, kind === "combatant?" ? h("option", { value: "" }, "—") : null,
            ...everyone.map((c) => h("option", { value: c.id }, c.name)));
        } else if (Array.isArray(kind)) {
          input = h("select", { name }, ...kind.map((o) => h("option", { value: o }, o || "—")));
        } else if (kind === "bool?") {
          input = h("select", { name }, h("option", { value: "" }, "—"), h("option", { value: "true" }, "yes"), h("option", { value: "false" }, "no"));
        } else if (kind === "modifiers") {
          input = h("input", { type: "text", name, maxlength: 400, placeholder: "reflex_defense +2" });
        } else if (kind === "int" || kind === "int|null" || kind === "step" || kind === "number") {
          input = h("input", { type: "number", name, step: kind === "number" ? "any" : 1, min: kind === "step" ? 0 : null, max: kind === "step" ? 5 : null,
            required: text.includes("(required)") });
        } else {
          // a field its label says is required is so in the form: the browser asks for it
          input = h("input", { type: "text", name, maxlength: 200, required: text.includes("(required)") });
        }
        input.dataset.kind = Array.isArray(kind) ? "choice" : kind;
        return h("label", { class: "field" }, h("span", {}, label), input);
      });
      const error = h("p", { class: "error", role: "alert" });
      // what was done, until the next use of the form (the log has it in full)
      const done = h("p", { class: "done muted", role: "status" });
      const form = h("form", { class: "tool", dataset: { command: tool.command } },
        h("h3", {}, tool.title), h("p", { class: "muted" }, tool.help),
        h("fieldset", { disabled: table.ended }, h("div", { class: "fields" }, ...inputs), h("button", { type: "submit" }, tool.title)), error, done);
      form.addEventListener("submit", async (ev) => {
        ev.preventDefault();
        done.textContent = "";
        const fields = toolFields(form);
        if (await guard(error)(tool.command, fields)) {
          form.reset();
          const who = fields.combatant ? table.combatants.get(fields.combatant)?.name : null;
          done.textContent = `${tool.title}: done${who ? ` for ${who}` : ""} (see the log)`;
        }
      });
      return form;
    });
    // the social scene's forms only in a social scene: in a fight they wait, folded, for the
    // GM who starts one (a statement, an attitude, the event)
    const social = forms.filter((f) => SOCIAL_TOOLS.has(f.dataset.command));
    const others = forms.filter((f) => !SOCIAL_TOOLS.has(f.dataset.command));
    if (!social.length || socialScene()) { tools.replaceChildren(...others, ...social); return; }
    const folded = h("details", { class: "social-tools", open: socialOpen || null },
      h("summary", {}, "Social scene: statements, attitudes, the event"), ...social);
    folded.addEventListener("toggle", () => { socialOpen = folded.open; });
    tools.replaceChildren(...others, folded);
  }

  /** Whether the scene had started when the modes were last drawn: a placing mode ends with
   * the setup. */
  let wasStarted = null;
  function renderClickMode() {
    const was = wasStarted === false && table.started ? "path" : clickMode.value;
    wasStarted = table.started;
    clickMode.replaceChildren(h("option", { value: "path" }, "picks a square of the acting combatant's move"),
      ...[...table.combatants.values()].map((c) => h("option", { value: `place:${c.id}` }, `places ${c.name} (once)`)),
      ...[...table.positions.keys()].map((id) => h("option", { value: `off:${id}` }, `takes ${table.nameOf(id)} off the map (once, any square)`)));
    clickMode.value = [...clickMode.options].some((o) => o.value === was) ? was : "path";
    showMode();
  }

  /** The map's mode, always said beside it (and on the map's box, `data-mode`). */
  function showMode() {
    const [mode, id] = clickMode.value.split(":");
    mapBox.dataset.mode = mode || "path";
    modeLabel.hidden = !table.map;
    modeLabel.dataset.mode = mode || "path";
    modeLabel.textContent = mode === "place" ? `Map mode: placing ${table.nameOf(id)} — the next click puts it there, then the map picks moves again.`
      : mode === "off" ? `Map mode: taking ${table.nameOf(id)} off the map — the next click does it.`
        : "Map mode: moves — a click picks a square of the acting combatant's move.";
  }
  clickMode.addEventListener("change", showMode);

  // a placing mode is one click: after it the map picks moves again
  const onMapClick = async (x, y) => {
    const [mode, id] = clickMode.value.split(":");
    if (mode === "place" || mode === "off") {
      clickMode.value = "path";
      showMode();
      await mapRun("place_combatant", { combatant: id, at: mode === "place" ? [x, y] : null });
    } else if (!pickSquare(table, x, y)) mapError.textContent = "nobody may move now: choose whom a click places";
  };

  let rosterKey = "";
  /** The credentials connected now, as the server's last `presence` message says. */
  let presence = [];
  let toolsKey = "";
  /** A social scene: one under way (statements, attitudes, the event), or one being set up
   * (not begun, and no battle map); a fight is any other. */
  const socialScene = () => socialShown(table) || (!table.started && !table.map);
  /** Whether the GM opened the social scene's forms in a fight. */
  let socialOpen = false;
  let linksKey = "";
  return {
    update(msg) {
      if (msg.type === "presence") presence = msg.seats || [];
      // setting up, the roster first; once the scene runs, the main loop first (style.css)
      root.dataset.phase = table.started && !table.ended ? "scene" : "setup";
      document.getElementById("subtitle").textContent = subtitle(table);
      const cs = [...table.combatants.values()];
      const key = JSON.stringify([cs.map((c) => [c.id, c.name, c.kind, c.side, c.hidden, c.aware, c.initiative_mod,
        c.vitals && [c.vitals.fatigue, c.vitals.fatigue_max, c.vitals.condition]]),
        [...table.initiative.keys()], table.current, table.started]);
      if (key !== rosterKey) { rosterKey = key; renderRoster(); }
      markPresence();
      const gmTools = table.legal.filter((a) => a.combatant === null || a.combatant === undefined).map((a) => a.action).filter((a) => OWN_CONTROLS.has(a));
      const names = JSON.stringify([cs.map((c) => [c.id, c.name]), table.ended, gmTools, socialScene()]);
      if (names !== toolsKey) { toolsKey = names; renderTools(); }
      // the map panel for a ruleset with a map (the GM may set one), or a map already set;
      // never in a ruleset that keeps no map (Action Time, R103)
      root.querySelector(".map-panel").hidden = !keepsMap(table.ruleset) || !(gmTools.includes("set_map") || table.map);
      renderOrder(order, table);
      timer.update();
      if (msg.type === "legal_actions" || msg.type === "legal_actions_delta") {
        renderActions(actions, table, actionRun, OWN_CONTROLS);
        refreshReach(table, run); // where the acting NPC's move can go, from the server (R106)
        refreshAim(table, run); // whom its attack can reach, from the server (R107)
      }
      if (msg.type === "snapshot" || msg.type === "view") {
        renderUndo();
        social.hidden = !renderSocial(socialBox, table);
        renderClickMode();
        // the acting combatant's token may be dragged while a click picks its move's squares
        // (the map's width for the stylesheet's squares, which fill the panel)
        if (table.map) mapBox.style.setProperty("--w", String(table.map.width)); else mapBox.style.removeProperty("--w");
        renderMap(mapBox, table, onMapClick, { canDrag: () => clickMode.value === "path" });
        renderTokenLegend(legend, table);
        sheets.replaceChildren(...[...table.combatants.keys()].map((id) => renderSheet(table, id)));
      }
      const credentials = JSON.stringify([...table.tokens.values()]);
      if (credentials !== linksKey || msg.type === "welcome") { linksKey = credentials; fetchLinks(); }
      dicePanel.update();
      renderLog(log, table);
      strip.update(msg);
    },
  };
}
