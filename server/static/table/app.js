// The web table: /table/ without a token creates an encounter; /table/#token=<token> opens
// the GM console or the player's view, whichever the token's role is. Spectator links open
// the overlay (/watch?spectate=<token>, with the link's &replay= and &from_round=, a replay).
// A player's campaign link (smc1.…) opens the encounter its character is in, or a waiting
// screen until the GM begins one; when the server says the link has moved on (`moved`), the
// page starts again with it, fresh, in the new encounter. A campaign's GM link opens the campaign page (/campaign/).

import { Connection, anonymous, readHistory } from "/table/conn.js";
import { Table, drawingToMap, keepsMap, readEncounterFile } from "/table/model.js";
import { h, renderStatus, renderOrder, renderLog, renderSheet, renderActions, renderMap, renderTokenLegend, renderSocial, pickSquare, refreshReach, refreshAim, subtitle, loadRulesets, rulesetTitle, rulesets } from "/table/render.js";
import { gmView } from "/table/gm.js";
import { turnTimer } from "/table/clock.js";
import { diceLine, addEntropy } from "/table/dice.js";
import { characterCard, clockText, hourText, logList } from "/table/roster.js";
import { optionControls, statBlockEditor } from "/table/setup.js";
import { lastOutcome, focusKeeper, turnCall, readiedPrompt, skipLinks, firstControl } from "/table/play.js";

const $ = (id) => document.getElementById(id);
const app = $("app");
const hash = new URLSearchParams(location.hash.slice(1));
const query = new URLSearchParams(location.search);
const token = hash.get("token") || query.get("token");
const spectate = hash.get("spectate") || query.get("spectate");

// a spectator link opens the overlay, with what it asks of it (a replay: &replay=, &from_round=)
if (spectate) {
  const watch = new URLSearchParams({ spectate });
  for (const name of ["replay", "from_round"]) {
    const value = hash.get(name) || query.get(name);
    if (value) watch.set(name, value);
  }
  location.replace(`/watch?${watch}`);
}
else if (token) join(token);
else landing();

window.addEventListener("hashchange", () => location.reload());

function join(tok) {
  // the rulesets' titles and words first (the page names none of its own); without them the
  // page still works, with the rulesets' names
  loadRulesets().catch(() => {}).then(() => joinNow(tok));
}

function joinNow(tok) {
  const table = new Table();
  let view = null;
  let place; // a campaign link's: the encounter its view shows (null: the waiting screen)
  let gone = false; // this connection gave way to a fresh one
  const status = $("status");
  const dicePanel = diceLine(table, tok);
  // a campaign link somewhere else now: a fresh start with it (a new connection, no cursor,
  // an empty log), which the server joins to where its character is
  const again = () => { gone = true; conn.stop(); joinNow(tok); };
  const conn = new Connection({
    token: tok,
    onStatus: (state, detail) => {
      if (gone) return;
      renderStatus(status, state, detail);
      if (state === "closed" && !view) app.replaceChildren(h("section", { class: "wide" }, h("h2", {}, "Cannot join"), h("p", {}, detail)));
    },
    onMessage: (msg) => {
      if (gone) return;
      if (msg.type === "moved") { again(); return; }
      if (msg.type === "welcome" && msg.campaign !== undefined) {
        if (msg.role === "gm" && !msg.encounter) { location.replace(`/campaign/#token=${encodeURIComponent(tok)}`); return; }
        const now = msg.encounter || null;
        if (view && place !== now) { again(); return; } // (it reconnected to another place)
        place = now;
        if (!view && now === null) view = waitingView(app);
      }
      const empty = table.log.length === 0;
      table.apply(msg, conn.state);
      // the log again after the GM took commands back: the server marks what is taken back
      const undone = msg.type === "event" && msg.event.kind === "commands_undone";
      if ((msg.type === "snapshot" && empty) || undone) {
        readHistory(conn).then((page) => {
          table.fromHistory(page.events);
          if (view) view.update(msg);
        }).catch(() => {});
      }
      if (msg.type === "welcome") {
        if (msg.role === "spectator") { location.replace(`/watch?spectate=${encodeURIComponent(tok)}`); return; }
        if (!view) view = msg.role === "gm" || (msg.scopes || []).includes("view:gm") ? gmView(app, table, conn, dicePanel, tok) : playerView(app, table, conn, dicePanel);
      }
      if (view && (msg.type === "snapshot" || msg.type === "view")) addEntropy(conn, table);
      if (view) view.update(msg);
      if (view && (msg.type === "snapshot" || msg.type === "view")) {
        document.title = view.title ? view.title() : `${table.name} — Stablemaster`;
        $("title").textContent = table.name;
      }
    },
  });
  window.stablemaster = { conn, table };
  conn.start();
}

/** A player's campaign link while none of its characters is in a running encounter: its
 *  characters as the `campaign` messages show them, until the server moves the link on. */
function waitingView(root) {
  const clock = h("p", { class: "muted" });
  const heading = h("h2", {}, "Your character");
  const cards = h("div", { class: "cards" });
  const earlier = h("ul", { class: "encounters" });
  const earlierPanel = h("section", { class: "wide", hidden: true }, h("h2", {}, "Earlier encounters"), earlier);
  const logBox = h("div", { class: "log-box" });
  root.replaceChildren(
    h("section", { class: "wide waiting", role: "status" }, "Waiting for the GM to begin an encounter: this page joins it by itself."),
    h("section", { class: "wide" }, heading, clock, cards),
    earlierPanel,
    h("section", { class: "wide" }, h("h2", {}, "The campaign's log"), logBox));
  return {
    update(msg) {
      if (msg.type !== "campaign") return;
      const view = msg.state;
      const mine = view.characters.filter((c) => view.mine.includes(c.id));
      $("title").textContent = view.name;
      document.title = `${view.name} — Stablemaster`;
      $("subtitle").textContent = `player · ${rulesetTitle(view.ruleset)} · waiting for an encounter`;
      heading.textContent = mine.length > 1 ? "Your characters" : "Your character";
      clock.textContent = `The campaign's clock: ${clockText(view.clock)}.`;
      cards.replaceChildren(...mine.map((c) => characterCard(view, c)));
      earlierPanel.hidden = !view.encounters.length;
      logBox.replaceChildren(logList(view));
      earlier.replaceChildren(...view.encounters.map((e) => h("li", { dataset: { encounter: e.id } },
        h("strong", {}, e.name), ` — begun on ${hourText(e.begun_at)}${e.running ? " (running)" : ""}`)));
    },
  };
}

/** The messages after which the player's map is drawn again. */
const REDRAWN = new Set(["snapshot", "view", "legal_actions", "legal_actions_delta"]);

function playerView(root, table, conn, dicePanel) {
  const banner = h("section", { class: "banner", hidden: true, role: "status" });
  // the stat sheet folds away (open at first where the screen has room for it)
  const sheetFold = h("details", { class: "sheets", open: window.innerWidth >= 700 || null },
    h("summary", {}, h("h2", {}, "Your character")));
  const sheets = h("section", { class: "sheet-panel" }, sheetFold);
  const sheetBox = h("div", {});
  sheetFold.append(sheetBox);
  const order = h("ol", { class: "order" });
  const timer = turnTimer(table);
  const actions = h("div", { class: "action-list" });
  const actionsTitle = h("h2", { tabindex: -1 }, "Actions");
  // the focus stays on the control that acted (the first of the turn when that one is gone)
  const focus = focusKeeper(actions, () => firstControl(actions) || actionsTitle, actionsTitle);
  // what the player's last command did, in the server's words (its summaries)
  const outcome = lastOutcome(table, conn, focus);
  const call = turnCall();
  const readied = readiedPrompt(table, conn, actions);
  // a request to take back an action, waiting for the GM (R108)
  const undoWait = h("p", { class: "undo-waiting muted", role: "status" });
  const log = h("div", { class: "log", tabindex: 0, role: "region", "aria-label": "Log" });
  const map = h("section", { hidden: true, class: "map-panel" }, h("h2", {}, "Map"),
    h("p", { class: "muted map-help" }, "On your turn the squares your move can reach are shaded, with their cost: drag your token to one to move there, or click one (arrow keys and Enter) for the cheapest way, or the squares one by one; then Move or Run."));
  const mapBox = h("div", { class: "mapbox" });
  const legend = h("ul", { class: "legend", "aria-label": "tokens" });
  // under the map: the move along the squares picked, and back to the actions (a keyboard's
  // way: Tab from the map)
  const moveNote = h("span", { class: "map-move-note", role: "status" });
  const moveButton = h("button", { type: "button", id: "map-move", class: "map-move", onclick: () => {
    const mover = table.legal.find((a) => a.action === "move" && table.positions.has(a.combatant));
    const form = mover && actions.querySelector(`form.act[data-action="move"][data-combatant="${CSS.escape(mover.combatant)}"]`);
    moveNote.textContent = form ? "" : "No move to send now.";
    if (form) { focus.remember(moveButton); form.requestSubmit(); }
  } }, "Move along the path");
  const toActions = () => { const el = firstControl(actions) || actionsTitle; el.focus(); };
  const mapMove = h("div", { class: "map-move-row" }, moveButton,
    h("a", { href: "#", class: "to-actions", onclick: (ev) => { ev.preventDefault(); toActions(); } }, "To the actions"), moveNote);
  map.append(mapBox, mapMove, legend);
  const social = h("section", { hidden: true, class: "wide social-panel", tabindex: 0, "aria-label": "Social scene" }, h("h2", {}, "Social scene"));
  const socialBox = h("div", {});
  social.append(socialBox);
  // Enter on a target (any choice of an action's form) sends that action
  actions.addEventListener("keydown", (ev) => {
    const form = ev.key === "Enter" && ev.target.tagName === "SELECT" && ev.target.closest("form.act");
    if (!form) return;
    ev.preventDefault();
    form.requestSubmit();
  });
  const toMap = () => {
    const sq = mapBox.querySelector('.map .sq[tabindex="0"]');
    if (sq && !map.hidden) sq.focus(); else toActions();
  };
  document.querySelector("body > nav.skip-links")?.remove();
  document.body.prepend(skipLinks(toMap, toActions));
  root.dataset.view = "player";
  // the turn first (the actions under the banner), then the map under the order, in the
  // column beside them: a square clicked and its Move button on one screen; the sheet after
  // (on a phone: the turn, the last action's outcome, the map, then the actions)
  root.replaceChildren(banner, readied.el, outcome.el,
    h("section", { class: "actions-panel" }, actionsTitle, actions, undoWait, call.el),
    h("div", { class: "column" }, h("section", {}, h("h2", {}, "Initiative"), timer.el, order), map),
    sheets, social,
    h("section", { class: "wide" }, h("h2", {}, "Log"), dicePanel.el, log));
  const run = outcome.send;
  let turnSeen; // the player's turn the page last saw begin (undefined: none seen yet)
  const title = () => (table.current && (table.welcome?.combatants || []).includes(table.current) && !table.ended
    ? "Your turn — Stablemaster" : `${table.name} — Stablemaster`);
  return {
    title,
    update(msg) {
      $("subtitle").textContent = subtitle(table);
      const mine = (table.welcome?.combatants || []);
      const acting = table.current && mine.includes(table.current) && !table.ended;
      banner.hidden = !(acting || table.ended || table.current);
      banner.textContent = table.ended ? `The scene is over.${table.endReason ? " " + table.endReason : ""}`
        : acting ? `Your turn: ${table.nameOf(table.current)}` : table.current ? `${table.nameOf(table.current)}'s turn` : "";
      banner.className = `banner${acting ? " mine" : " quiet"}`;
      banner.dataset.current = table.current || "";
      banner.dataset.mine = acting ? "1" : "";
      mapMove.hidden = !acting; // (the move under the map: on the player's turn)
      // the tab's title and the call, when the player's turn comes
      const turn = acting ? `${table.current}|${table.round}|${table.state?.turn?.number ?? ""}` : null;
      if (turn && turnSeen !== undefined && turn !== turnSeen) call.ring(table.nameOf(table.current));
      if (table.state && table.welcome) turnSeen = turn;
      if (table.name) document.title = title();
      sheetBox.replaceChildren(...mine.map((id) => renderSheet(table, id)));
      renderOrder(order, table);
      timer.update();
      const asked = (table.state && table.state.undo_requests) || [];
      undoWait.textContent = asked.map((r) => `You asked the GM to take back ${table.nameOf(r.combatant)}'s last action: waiting for the answer.`).join(" ");
      if (msg.type === "legal_actions" || msg.type === "legal_actions_delta") {
        renderActions(actions, table, run);
        focus.restore(); // (drawn anew: the focus back on the control that acted, if it fell)
        readied.update();
        moveButton.setAttribute("aria-disabled", table.legal.some((a) => a.action === "move" && table.positions.has(a.combatant)) ? "false" : "true");
        refreshReach(table, run); // where the move can go, from the server (R106)
        refreshAim(table, run); // whom the attack can reach, from the server (R107)
      }
      // no map panel in a ruleset that keeps no map (Action Time, R103); drawn again when
      // the state or the legal actions change, not for every message (a square being clicked
      // stays where it is while an event or a presence message comes in)
      if (REDRAWN.has(msg.type)) {
        map.hidden = !keepsMap(table.ruleset) || !renderMap(mapBox, table, (x, y) => pickSquare(table, x, y));
        renderTokenLegend(legend, table);
      }
      social.hidden = !renderSocial(socialBox, table);
      dicePanel.update();
      renderLog(log, table, 200, { hideRules: true });
    },
  };
}

async function landing() {
  $("title").textContent = "Stablemaster";
  $("subtitle").textContent = "new encounter";
  $("status").hidden = true;
  const name = h("input", { type: "text", name: "name", required: true, maxlength: 120, value: "New encounter" });
  const ruleset = h("select", { name: "ruleset" });
  try {
    ruleset.replaceChildren(...(await loadRulesets()).map((r) => h("option", { value: r.name }, r.title)));
  } catch (err) {
    ruleset.replaceChildren(h("option", { value: "" }, `no rulesets: ${err}`));
  }
  const text = h("textarea", { name: "statblocks", placeholder: "combatants:\n  - {name: Twilight Sparkle, kind: pc, initiative: 3}\n  - {name: Diamond Dog, kind: npc, initiative: 1}", spellcheck: "false" });
  const upload = h("input", { type: "file", accept: ".yaml,.yml,.json,application/json,text/yaml" });
  const error = h("p", { class: "error", role: "alert" });
  const mapText = h("textarea", { name: "map", class: "map-json", placeholder: "battle map (optional): JSON, or a drawing — . floor # blocked ~ difficult = low : fog % darkness ^ pit ! improved cover", spellcheck: "false" });
  // the battle map's field, only for a ruleset whose encounters have one (none in Action
  // Time: the server keeps no map there, ruling R103)
  const mapField = h("div", { class: "map-field" },
    h("p", {}, h("label", {}, "Battle map (JSON, or drawn in text; optional)")), mapText);
  const syncMap = () => {
    mapField.hidden = !keepsMap(ruleset.value);
    if (mapField.hidden) mapText.value = "";
  };
  ruleset.addEventListener("change", syncMap);
  syncMap();
  const optionsText = h("textarea", { name: "options", class: "map-json", placeholder: 'more encounter options (optional), JSON: {"players_roll": true}', spellcheck: "false" });
  // the usual options as controls (merged over the JSON's, which stays for the rest)
  const optionForm = optionControls();
  const fillOptions = (o) => {
    optionForm.fill(o);
    optionsText.value = Object.keys(o || {}).length ? JSON.stringify(o) : "";
  };
  const fileNotes = h("p", { class: "file-notes muted", role: "status" });
  // Asked for only when the server says it creates encounters for holders of its creator
  // secret (an error for the first create without it).
  const secret = h("input", { type: "password", name: "creator_secret", autocomplete: "off", spellcheck: "false" });
  const secretNote = h("span", { class: "muted" });
  const secretBox = h("p", { class: "creator-secret", hidden: true }, h("label", {}, "Creator secret ", secret), " ", secretNote);
  // An encounter file (a shipped example's format) fills the other fields; the form says what
  // it took from the file and what it leaves out.
  const readFile = (map = undefined) => {
    const file = readEncounterFile(text.value);
    const took = [];
    if (file.name) { name.value = file.name; took.push("name"); }
    if (rulesets.has(file.ruleset)) { ruleset.value = file.ruleset; took.push("ruleset"); }
    const battleMap = map !== undefined ? map : file.map;
    syncMap();
    if (battleMap && !mapField.hidden) { mapText.value = JSON.stringify(battleMap); took.push("map"); }
    if (file.options) { fillOptions(file.options); took.push("options"); }
    const notes = [];
    if (took.length) notes.push(`From the file: ${took.join(", ")} (below), and the combatants.`);
    const ignored = [...file.ignored];
    if (battleMap && mapField.hidden) ignored.push(`map (${rulesetTitle(ruleset.value)} has no battle map, ruling R103)`);
    if (ignored.length) notes.push(`Not used: ${ignored.join("; ")}.`);
    if (file.problems.length) notes.push(`Not read: ${file.problems.join("; ")}.`);
    fileNotes.textContent = notes.join(" ");
    fileNotes.dataset.ignored = ignored.map((x) => x.split(" ")[0]).join(",");
    fileNotes.dataset.took = took.join(",");
  };
  // the stat blocks by form (drawn from the ruleset's published schema), or as YAML or JSON
  const editor = statBlockEditor();
  const formPanel = h("div", { class: "sb-panel", id: "sb-form-panel" }, editor.el);
  const yamlPanel = h("div", { class: "sb-panel", id: "sb-yaml-panel", hidden: true },
    h("p", { class: "muted" }, "A whole encounter file (the shipped examples' format), or a list of stat blocks, in YAML or JSON."), text);
  const tab = (label, panel, cls) => h("button", { type: "button", class: `sb-tab ${cls}`, "aria-controls": panel.id, onclick: () => showTab(panel) }, label);
  const tabs = [tab("Form", formPanel, "form-tab"), tab("YAML or JSON (advanced)", yamlPanel, "yaml-tab")];
  const showTab = (panel) => {
    for (const p of [formPanel, yamlPanel]) p.hidden = p !== panel;
    for (const t of tabs) t.setAttribute("aria-pressed", String(t.getAttribute("aria-controls") === panel.id));
  };
  showTab(formPanel);
  const byForm = () => !formPanel.hidden;
  editor.load(ruleset.value);
  ruleset.addEventListener("change", () => editor.load(ruleset.value)); // (another ruleset's fields)
  upload.addEventListener("change", async () => { if (upload.files[0]) { text.value = await upload.files[0].text(); showTab(yamlPanel); readFile(); } });
  text.addEventListener("change", () => readFile());
  const examples = h("div", { class: "examples" }, h("p", { class: "muted" }, "Loading the examples…"));
  const form = h("form", {},
    h("p", {}, h("label", {}, "Name ", name), " ", h("label", {}, "Ruleset ", ruleset)),
    h("p", {}, h("label", {}, "Upload an encounter file or stat blocks (YAML or JSON): ", upload)),
    h("div", { class: "sb-tabs", role: "group", "aria-label": "Stat blocks" }, h("span", {}, "Stat blocks: "), ...tabs),
    formPanel, yamlPanel,
    fileNotes,
    mapField,
    optionForm.el,
    h("p", {}, h("label", {}, "More options (JSON; optional: the controls above win over it)")),
    optionsText,
    secretBox,
    h("p", {}, h("button", { type: "submit", class: "primary" }, "Create the encounter")),
    error);
  const joinBox = h("input", { type: "text", placeholder: "a table link or a token" });
  app.replaceChildren(
    h("section", {}, h("h2", {}, "Create an encounter"), form),
    h("section", {}, h("h2", {}, "Shipped examples"), examples,
      h("h2", {}, "Join"), h("form", { onsubmit: (ev) => {
        ev.preventDefault();
        const v = joinBox.value.trim();
        location.hash = v.includes("#") ? v.split("#")[1] : v.includes("spectate=") ? `spectate=${v.split("spectate=")[1]}` : `token=${v}`;
      } }, joinBox, " ", h("button", { type: "submit" }, "Join"))));
  form.addEventListener("submit", async (ev) => {
    ev.preventDefault();
    error.textContent = "";
    delete error.dataset.code;
    let anon = null;
    try {
      const fields = { name: name.value.trim(), ruleset: ruleset.value };
      if (byForm()) {
        const blocks = editor.check(); // every problem at its field, nothing sent
        if (!blocks) return;
        fields.combatants = blocks;
      } else fields.combatants_yaml = text.value;
      const drawn = mapField.hidden ? "" : mapText.value.trim();
      if (drawn) fields.map = drawn.startsWith("{") ? JSON.parse(drawn) : drawingToMap(drawn);
      const options = optionsText.value.trim();
      const chosen = { ...(options ? JSON.parse(options) : {}), ...optionForm.read() };
      if (Object.keys(chosen).length) fields.options = chosen;
      if (!secretBox.hidden && secret.value.trim()) fields.creator_secret = secret.value.trim();
      anon = await anonymous();
      const ack = await anon.command("create_encounter", fields);
      location.hash = `token=${encodeURIComponent(ack.result.gm_token)}`;
    } catch (err) {
      const asked = err.code === "unauthenticated" && err.details?.creator_secret;
      if (asked) {
        secretBox.hidden = false;
        secret.focus();
        secretNote.textContent = "this server creates encounters only for holders of its creator secret: ask whoever runs it";
        error.dataset.code = `creator_secret_${asked}`;
        error.textContent = asked === "wrong"
          ? "That is not this server's creator secret. Check it and create again."
          : "This server asks for its creator secret to create an encounter. Enter it above and create again.";
      } else {
        if (err.code) error.dataset.code = err.code;
        error.textContent = err.message || String(err);
      }
    } finally {
      if (anon) anon.close();
    }
  });
  try {
    const list = (await (await fetch("/table/examples.json")).json()).examples;
    examples.replaceChildren(...list.map((ex) => h("label", {},
      h("input", { type: "radio", name: "example", value: ex.file, onchange: async () => {
        name.value = ex.name;
        ruleset.value = ex.ruleset;
        text.value = await (await fetch(`/table/examples/${ex.file}`)).text();
        showTab(yamlPanel);
        mapText.value = "";
        fillOptions(ex.options || {});
        readFile(ex.map);
        syncMap();
      } }), ` ${ex.name} `, h("span", { class: "muted" }, `(${rulesetTitle(ex.ruleset)}; ${ex.combatants.length} combatants) ${ex.description}`))));
  } catch (err) {
    examples.replaceChildren(h("p", { class: "error" }, `No examples: ${err}`));
  }
}
