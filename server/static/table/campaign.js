// The campaign page, /campaign/: with a campaign's GM link in the fragment (#token=smc1.…)
// the GM's roster, clock and encounters, shown from the server's `campaign` messages alone (a
// fresh one after every change: the page keeps nothing of its own), and the forms of the
// GM's commands (add_character, adjust_character, advance_clock, begin_encounter), each
// refusal in words under the control that sent it. Without a link: a new campaign (its
// recovery secret shown once) and a lost GM link recovered. A player's campaign link belongs
// in the web table (/table/#token=…): the page sends it there.

import { Connection, anonymous } from "/table/conn.js";
import { h, renderStatus, errorWords, loadRulesets, rulesetTitle, tableLink } from "/table/render.js";
import { characterCard, clockText, copyField, encounterName, hourText, logList } from "/table/roster.js";
import { vitalsLabel, keepsMap, drawingToMap } from "/table/model.js";

const $ = (id) => document.getElementById(id);
const app = $("app");
// the link rides in the fragment, which no request carries: never in a query
const token = new URLSearchParams(location.hash.slice(1)).get("token");

window.addEventListener("hashchange", () => location.reload());
loadRulesets().catch(() => []).then((list) => (token ? openCampaign(token) : landing(list || [])));

// --- a form whose answer shows under its button ----------------------------------------------

/** A form of one command: its fields, a submit button and, under it, the server's refusal in
 *  words (`p.error`, its code in `data-code`) or what was done (`p.done`). `submit()` returns
 *  the command's promise (or throws a problem found before sending, as `{code, message}`);
 *  `then(ack)` says what was done (text or an element). */
function commandForm({ name, fields, button, submit, then }) {
  const error = h("p", { class: "error", role: "alert" });
  const done = h("p", { class: "done", role: "status" });
  const send = h("button", { type: "submit", class: "primary" }, button);
  const form = h("form", { class: "command", dataset: { command: name } }, ...fields,
    h("p", { class: "submit-row" }, send), error, done);
  form.addEventListener("submit", async (ev) => {
    ev.preventDefault();
    error.textContent = done.textContent = "";
    delete error.dataset.code;
    send.disabled = true;
    try {
      const ack = await submit();
      const said = then ? then(ack) : "";
      if (said instanceof Node) done.replaceChildren(said);
      else done.textContent = said || "Done.";
    } catch (err) {
      if (err && err.code) error.dataset.code = err.code;
      error.textContent = errorWords(err);
    } finally {
      send.disabled = false;
    }
  });
  return form;
}

/** A panel of the page: its heading, then what it holds. */
const panel = (cls, title, ...children) => h("section", { class: cls }, h("h2", {}, title), ...children);

const field = (label, input, cls = "field") => h("label", { class: cls }, h("span", {}, label), input);

/** A number typed in a field, or undefined when it is left empty. */
function numberOf(input) {
  const v = input.value.trim();
  return v === "" ? undefined : Number(v);
}

/** JSON typed by a person: its value, or a problem in words naming the field. */
function readJson(text, what) {
  try {
    return JSON.parse(text);
  } catch (err) {
    throw { code: "invalid_json", message: `${what}: not JSON (${err.message})` };
  }
}

const slug = (name) => name.toLowerCase().normalize("NFKD").replace(/[^a-z0-9]+/g, "-").replace(/^-+|-+$/g, "").slice(0, 40);

// --- without a link: a new campaign, a lost GM link ------------------------------------------

function landing(rulesetList) {
  $("title").textContent = "Stablemaster campaign";
  $("subtitle").textContent = "new campaign";
  $("status").hidden = true;
  document.title = "New campaign — Stablemaster";

  const name = h("input", { type: "text", name: "name", required: true, maxlength: 120, value: "New campaign", autocomplete: "off" });
  const ruleset = h("select", { name: "ruleset" }, ...(rulesetList.length ? rulesetList : [{ name: "dramatic", title: "dramatic" }])
    .map((r) => h("option", { value: r.name }, r.title)));
  // asked for only when the server creates campaigns for holders of its creator secret
  const secret = h("input", { type: "password", name: "creator_secret", autocomplete: "off", spellcheck: "false" });
  const secretBox = h("p", { class: "creator-secret", hidden: true }, field("Creator secret (ask whoever runs this server)", secret));
  const created = h("div", { class: "kept", hidden: true });
  const createForm = commandForm({
    name: "create_campaign", button: "Create the campaign",
    fields: [h("p", { class: "fields" }, field("Name", name), field("Ruleset", ruleset)), secretBox],
    submit: async () => {
      const fields = { name: name.value.trim(), ruleset: ruleset.value };
      if (!secretBox.hidden && secret.value.trim()) fields.creator_secret = secret.value.trim();
      const ack = await once("create_campaign", fields).catch((err) => {
        if (err.code === "unauthenticated" && err.details?.creator_secret) {
          secretBox.hidden = false;
          secret.focus();
        }
        throw err;
      });
      showKept(created, ack.result, false);
      createForm.hidden = true; // (made: a second click would make another)
      return ack;
    },
  });
  const createPanel = panel("create-panel", "New campaign", createForm, created);

  const campaignId = h("input", { type: "text", name: "campaign", required: true, autocomplete: "off", spellcheck: "false", pattern: "[a-z0-9]{6,32}" });
  const recovery = h("input", { type: "password", name: "recovery_secret", required: true, autocomplete: "off", spellcheck: "false" });
  const recovered = h("div", { class: "kept", hidden: true });
  const recoverForm = commandForm({
    name: "recover_campaign", button: "Recover the GM link",
    fields: [h("p", { class: "muted" }, "With the campaign id and the recovery secret shown when the campaign was made: a new GM link and a new recovery secret. The old link and the old secret stop working."),
      h("p", { class: "fields" }, field("Campaign id", campaignId), field("Recovery secret", recovery))],
    submit: async () => {
      const ack = await once("recover_campaign", { campaign: campaignId.value.trim(), recovery_secret: recovery.value.trim() });
      recovery.value = "";
      showKept(recovered, ack.result, true);
      recoverForm.hidden = true;
      return ack;
    },
  });
  const recoverPanel = panel("recover-panel", "Recover a lost GM link", recoverForm, recovered);

  const link = h("input", { type: "text", name: "link", autocomplete: "off", spellcheck: "false" });
  const openForm = h("form", { class: "command", onsubmit: (ev) => {
    ev.preventDefault();
    const v = link.value.trim();
    const tok = v.includes("#") ? new URLSearchParams(v.split("#")[1]).get("token") || "" : v;
    if (tok) location.hash = `token=${encodeURIComponent(tok)}`;
  } }, h("p", { class: "fields" }, field("Campaign link", link)), h("p", {}, h("button", { type: "submit" }, "Open")));

  app.replaceChildren(createPanel, recoverPanel,
    h("section", {}, h("h2", {}, "Open a campaign"), openForm,
      h("p", {}, "An encounter on its own, with no campaign: ", h("a", { href: "/table/" }, "the web table"), ".")));
}

/** A command on a connection without a token, which is then closed. */
async function once(type, fields) {
  const anon = await anonymous();
  try {
    return await anon.command(type, fields);
  } finally {
    anon.close();
  }
}

/** What create_campaign or recover_campaign gave, shown once: the campaign id, the recovery
 *  secret to keep and the GM link; the campaign opens once the GM says the secret is kept. */
function showKept(box, result, recovered) {
  const gmLink = `${location.origin}${result.page || `/campaign/#token=${encodeURIComponent(result.gm_token)}`}`;
  const kept = h("input", { type: "checkbox", name: "kept" });
  const open = h("button", { type: "button", class: "primary open-campaign", disabled: true,
    onclick: () => { location.hash = `token=${encodeURIComponent(result.gm_token)}`; } }, "Open the campaign");
  kept.addEventListener("change", () => { open.disabled = !kept.checked; });
  // the heading takes the focus from the form it replaces (a keyboard, a screen reader are there)
  const heading = h("h3", { tabindex: -1 }, recovered ? "Your new GM link" : "Your campaign is made");
  box.hidden = false;
  box.replaceChildren(
    heading,
    h("p", { class: "keep-note" }, h("strong", {}, "Keep the recovery secret now."),
      " It is shown this once and never again. With it and the campaign id you get a new GM link if you lose this one",
      recovered ? " (the old link and the old secret no longer work)." : "."),
    h("div", { class: "kept-fields" },
      field("Campaign id", copyField(result.campaign, "campaign id", "campaign-id")),
      field("Recovery secret", copyField(result.recovery_secret, "recovery secret", "recovery-secret")),
      h("p", { class: "secret-text" }, h("span", { class: "sr-only" }, "The recovery secret in full: "), h("code", {}, result.recovery_secret)),
      field("GM link (private: it opens the campaign as its GM)", copyField(gmLink, "GM link", "gm-link"))),
    h("p", {}, h("label", { class: "flag" }, kept, " I have kept the recovery secret somewhere safe")),
    h("p", {}, open));
  heading.focus();
}

// --- with a link: the GM's campaign --------------------------------------------------------

function openCampaign(tok) {
  let view = null;
  const conn = new Connection({
    token: tok,
    onStatus: (state, detail) => {
      renderStatus($("status"), state, detail);
      if (state === "closed" && !view) {
        app.replaceChildren(h("section", { class: "wide" }, h("h2", {}, "Cannot open the campaign"), h("p", {}, detail),
          h("p", {}, "A lost GM link is recovered with the campaign's recovery secret: ", h("a", { href: "/campaign/" }, "recover it"), ".")));
      }
    },
    onMessage: (msg) => {
      if (msg.type === "welcome") {
        // a player's campaign link, or an encounter's link: the web table's
        if (msg.role !== "gm" || !msg.campaign) { location.replace(`/table/#token=${encodeURIComponent(tok)}`); return; }
        if (!view) view = gmView(conn);
      }
      if (msg.type === "campaign" && view) view.update(msg);
    },
  });
  window.stablemaster = { conn, campaign: null };
  conn.start();
}

function gmView(conn) {
  const run = (type, fields) => conn.command(type, fields);
  let current = null; // the last campaign message's state
  const clockNow = h("p", { class: "clock-now", "aria-live": "polite" });
  const encounterList = h("ul", { class: "encounters" });
  const cards = h("div", { class: "cards" });
  const rosterEmpty = h("p", { class: "muted" }, "No characters yet: add one below.");

  // advance_clock
  const hours = h("input", { type: "number", name: "hours", min: 0, max: 8784, inputmode: "numeric" });
  const days = h("input", { type: "number", name: "days", min: 0, max: 366, inputmode: "numeric" });
  const weeks = h("input", { type: "number", name: "weeks", min: 0, max: 52, inputmode: "numeric" });
  const rest = h("input", { type: "checkbox", name: "rest" });
  const clockReason = h("input", { type: "text", name: "reason", maxlength: 80 });
  const clockForm = commandForm({
    name: "advance_clock", button: "Advance the clock",
    fields: [h("h3", {}, "Advance the clock"), h("p", { class: "fields" }, field("Hours", hours), field("Days", days), field("Weeks", weeks)),
      h("p", {}, h("label", { class: "flag" }, rest, " The characters rest through it (at least 8 hours: Natural Healing, R110)")),
      h("p", { class: "fields" }, field("Reason (optional)", clockReason))],
    submit: () => {
      const fields = {};
      for (const [k, input] of [["hours", hours], ["days", days], ["weeks", weeks]]) {
        const n = numberOf(input);
        if (n !== undefined) fields[k] = n;
      }
      if (rest.checked) fields.rest = true;
      if (clockReason.value.trim()) fields.reason = clockReason.value.trim();
      return run("advance_clock", fields);
    },
    then: () => {
      for (const input of [hours, days, weeks, clockReason]) input.value = "";
      rest.checked = false;
      return `The clock reads ${clockText(current.clock)}.`;
    },
  });
  const clockPanel = panel("clock-panel", "Clock", clockNow, clockForm);
  const logBox = h("div", { class: "log-box", "aria-live": "polite" });

  // add_character
  const cName = h("input", { type: "text", name: "name", required: true, maxlength: 80, autocomplete: "off" });
  const cId = h("input", { type: "text", name: "id", required: true, maxlength: 40, pattern: "[a-z0-9][a-z0-9_-]{0,39}", autocomplete: "off", spellcheck: "false" });
  let idTyped = false;
  cName.addEventListener("input", () => { if (!idTyped) cId.value = slug(cName.value); });
  cId.addEventListener("input", () => { idTyped = cId.value !== ""; });
  const cKind = h("select", { name: "kind" }, h("option", { value: "pc" }, "player character"), h("option", { value: "npc" }, "NPC (the GM's)"));
  const cInit = h("input", { type: "number", name: "initiative", min: -50, max: 50, value: "0", inputmode: "numeric" });
  const cStats = h("textarea", { name: "stats", class: "short", spellcheck: "false" });
  const addForm = commandForm({
    name: "add_character", button: "Add the character",
    fields: [h("p", { class: "fields" }, field("Name", cName), field("Id (in every encounter)", cId), field("Kind", cKind), field("Initiative modifier", cInit)),
      field("Stats (JSON; optional, see the stat block docs)", cStats, "field block")],
    submit: () => {
      const character = { name: cName.value.trim(), id: cId.value.trim(), kind: cKind.value };
      const init = numberOf(cInit);
      if (init !== undefined) character.initiative = init;
      if (cStats.value.trim()) character.stats = readJson(cStats.value, "Stats");
      return run("add_character", { character });
    },
    then: (ack) => {
      const added = cName.value.trim();
      for (const input of [cName, cId, cStats]) input.value = "";
      cInit.value = "0";
      idTyped = false;
      return ack.result.token ? `${added} joined the roster: the player's link is on the card.` : `${added} joined the roster.`;
    },
  });

  // begin_encounter
  const eName = h("input", { type: "text", name: "name", required: true, maxlength: 120, autocomplete: "off" });
  const picks = h("div", { class: "picks" });
  const npcs = h("textarea", { name: "npcs", class: "short", spellcheck: "false", placeholder: '[{"name": "Diamond Dog", "id": "dog", "kind": "npc", "initiative": 1}]' });
  // the encounter's battle map (none in a ruleset that keeps none, R103): JSON, or drawn in text
  const eMap = h("textarea", { name: "map", class: "short map-json", spellcheck: "false", placeholder: "battle map (optional): JSON, or a drawing — . floor # blocked ~ difficult = low : fog % darkness ^ pit ! improved cover" });
  const eMapField = field("Battle map (JSON, or drawn in text; optional)", eMap, "field block");
  const beginForm = commandForm({
    name: "begin_encounter", button: "Begin the encounter",
    fields: [h("p", { class: "fields" }, field("Name", eName)),
      h("fieldset", { class: "pick" }, h("legend", {}, "Characters (and who rests through the scene, R112)"), picks),
      field("NPCs besides (JSON: a list of stat blocks; optional)", npcs, "field block"), eMapField],
    submit: () => {
      const chosen = [...picks.querySelectorAll("input[name=take]:checked")].map((i) => i.value);
      const rested = [...picks.querySelectorAll("input[name=rested]:checked")].map((i) => i.value);
      const fields = { name: eName.value.trim(), characters: chosen };
      if (rested.length) fields.rested = rested;
      if (npcs.value.trim()) fields.npcs = readJson(npcs.value, "NPCs");
      const drawn = eMapField.hidden ? "" : eMap.value.trim();
      if (drawn) fields.map = drawn.startsWith("{") ? readJson(drawn, "Battle map") : drawingToMap(drawn);
      return run("begin_encounter", fields);
    },
    then: (ack) => {
      eName.value = npcs.value = eMap.value = "";
      for (const i of picks.querySelectorAll("input")) i.checked = false;
      return h("span", {}, "The encounter is ready: ", h("a", { href: `/table/#token=${encodeURIComponent(ack.result.gm_token)}`, class: "open-encounter" }, "open it in the web table as GM"), ".");
    },
  });

  // adjust_character
  const aWho = h("select", { name: "character", required: true });
  const aReason = h("input", { type: "text", name: "reason", required: true, maxlength: 200, autocomplete: "off" });
  const aFatigue = h("input", { type: "number", name: "fatigue", min: 0, inputmode: "numeric", class: "points" });
  const aFull = h("input", { type: "checkbox", name: "full" });
  // the ruleset's word for fatigue points ("Health" in Action Time), once the campaign is known
  const fatigueWord = h("span", {}, "Fatigue points now");
  const fullWord = h("span", {}, "fatigue points back to full");
  const track = (kind) => Object.fromEntries(["step", "persistent", "crippling"].map((k) => [k, h("input", { type: "number", name: `${kind}_${k}`, min: 0, max: 5, inputmode: "numeric" })]));
  const aPhysical = track("physical");
  const aMental = track("mental");
  const aLife = h("select", { name: "life" }, h("option", { value: "" }, "as it is"), h("option", { value: "alive" }, "alive"), h("option", { value: "dead" }, "dead"));
  const aLunches = h("input", { type: "number", name: "lunches_today", min: 0, max: 20, inputmode: "numeric" });
  const aStatus = h("textarea", { name: "status", class: "tiny", spellcheck: "false" });
  const aSetStatus = h("input", { type: "checkbox", name: "set_status" });
  const aItems = h("textarea", { name: "items", class: "tiny", spellcheck: "false" });
  const aSetItems = h("input", { type: "checkbox", name: "set_items" });
  aStatus.addEventListener("input", () => { aSetStatus.checked = true; });
  aItems.addEventListener("input", () => { aSetItems.checked = true; });
  const trackFields = (title, t) => h("fieldset", { class: "track" }, h("legend", {}, title),
    h("p", { class: "fields" }, field("Step (0-5)", t.step), field("Persistent", t.persistent), field("Crippling", t.crippling)));
  const adjustForm = commandForm({
    name: "adjust_character", button: "Adjust the character",
    fields: [h("p", { class: "muted" }, "Only what you fill in changes; a character in a running encounter is adjusted there."),
      h("p", { class: "fields" }, field("Character", aWho), field("Reason", aReason)),
      h("p", { class: "fields" }, field(fatigueWord, aFatigue), h("label", { class: "flag" }, aFull, " ", fullWord), field("Second Lunches today", aLunches), field("Life", aLife)),
      trackFields("Physical track", aPhysical), trackFields("Mental track", aMental),
      h("fieldset", { class: "lists" }, h("legend", {}, "Temporary status and items"),
        field("Temporary status, one a line: +2 canterlot (no circle: everywhere)", aStatus, "field block"),
        h("p", {}, h("label", { class: "flag" }, aSetStatus, " set the temporary status to this list (empty: none)")),
        field("Items, one a line: 3 × rope", aItems, "field block"),
        h("p", {}, h("label", { class: "flag" }, aSetItems, " set the items to this list (empty: none)")))],
    submit: () => {
      const fields = { character: aWho.value, reason: aReason.value.trim() };
      const fatigue = numberOf(aFatigue);
      if (fatigue !== undefined) fields.fatigue = fatigue;
      if (aFull.checked) fields.full = true;
      for (const [kind, t] of [["physical", aPhysical], ["mental", aMental]]) {
        for (const [k, input] of Object.entries(t)) {
          const n = numberOf(input);
          if (n !== undefined) fields[`${kind}_${k}`] = n;
        }
      }
      if (aLife.value) fields.life = aLife.value;
      const lunches = numberOf(aLunches);
      if (lunches !== undefined) fields.lunches_today = lunches;
      if (aSetStatus.checked) fields.status = readStatus(aStatus.value);
      if (aSetItems.checked) fields.items = readItems(aItems.value);
      return run("adjust_character", fields);
    },
    then: () => {
      const who = aWho.selectedOptions[0]?.textContent || aWho.value;
      for (const input of [aReason, aFatigue, aLunches, ...Object.values(aPhysical), ...Object.values(aMental)]) input.value = "";
      aFull.checked = aSetStatus.checked = aSetItems.checked = false;
      aLife.value = "";
      fillAdjust(true);
      return `${who} is adjusted.`;
    },
  });

  /** The adjust form's hints from the chosen character as the server last sent it: each
   *  number's placeholder its value now; the lists, which are set whole, filled in (again
   *  when `lists`, or when the GM has not edited them). */
  function fillAdjust(lists) {
    const c = (current?.characters || []).find((x) => x.id === aWho.value);
    if (!c) return;
    aFatigue.placeholder = c.fatigue_max ? `now ${c.fatigue}/${c.fatigue_max}` : "";
    aLunches.placeholder = `now ${c.lunches}`;
    for (const [t, now] of [[aPhysical, c.physical], [aMental, c.mental]]) {
      for (const [k, input] of Object.entries(t)) {
        input.placeholder = now ? `now ${now[k]}` : "no track";
        input.disabled = !now;
      }
    }
    if (lists || !aSetStatus.checked) aStatus.value = (c.status || []).map((s) => `+${s.bonus}${s.circle ? ` ${s.circle}` : ""}`).join("\n");
    if (lists || !aSetItems.checked) aItems.value = (c.items || []).map((i) => `${i.count} × ${i.name}`).join("\n");
  }
  aWho.addEventListener("change", () => { aSetStatus.checked = aSetItems.checked = false; fillAdjust(true); });

  app.replaceChildren(clockPanel,
    panel("encounters-panel", "Encounters", encounterList),
    panel("log-panel", "Log", logBox),
    panel("wide roster-cards", "Roster", rosterEmpty, cards),
    panel("form-panel add-panel", "Add a character", addForm),
    panel("form-panel begin-panel", "Begin an encounter", beginForm),
    panel("form-panel adjust-panel", "Adjust a character", adjustForm));

  function renderPicks(view) {
    const was = new Map([...picks.querySelectorAll("input")].map((i) => [`${i.name}:${i.value}`, i.checked]));
    picks.replaceChildren(...view.characters.map((c) => {
      const busy = c.encounter ? ` (in ${encounterName(view, c.encounter)})` : "";
      const take = h("input", { type: "checkbox", name: "take", value: c.id, disabled: !!c.encounter, checked: !c.encounter && was.get(`take:${c.id}`) });
      const rests = h("input", { type: "checkbox", name: "rested", value: c.id, disabled: !!c.encounter, checked: !c.encounter && was.get(`rested:${c.id}`), "aria-label": `${c.name} rests through the scene` });
      return h("div", { class: "pick-row", dataset: { character: c.id } },
        h("label", { class: "flag" }, take, ` ${c.name}`, h("span", { class: "muted" }, busy)),
        h("label", { class: "flag" }, rests, " rests"));
    }));
    if (!view.characters.length) picks.append(h("p", { class: "muted" }, "The roster is empty."));
  }

  function renderWho(view) {
    const chosen = aWho.value;
    aWho.replaceChildren(...view.characters.map((c) => h("option", { value: c.id }, c.name)));
    if (view.characters.some((c) => c.id === chosen)) aWho.value = chosen;
    fillAdjust(aWho.value !== chosen);
  }

  function renderEncounters(view) {
    const sorted = [...view.encounters].sort((a, b) => (b.running - a.running) || (b.begun_at - a.begun_at));
    encounterList.replaceChildren(...sorted.map((e) => {
      const who = e.characters.map((id) => (view.characters.find((c) => c.id === id) || { name: id }).name).join(", ");
      const rested = (e.rested || []).map((id) => (view.characters.find((c) => c.id === id) || { name: id }).name);
      return h("li", { class: e.running ? "running" : "written-back", dataset: { encounter: e.id } },
        h("strong", {}, e.name), " ",
        h("span", { class: `badge ${e.running ? "running" : "done"}` }, e.running ? "running" : "written back"),
        h("p", {}, `Begun on ${hourText(e.begun_at)}, with ${who || "no characters of the roster"}${rested.length ? `; resting through it: ${rested.join(", ")}` : ""}.`),
        e.running && e.gm_link
          ? h("p", {}, h("a", { href: `/table/#token=${encodeURIComponent(e.gm_link)}`, class: "open-encounter" }, `Open ${e.name} in the web table as GM`))
          : h("p", { class: "muted" }, `Its results are in the roster (written back at its event ${e.written_back}).`));
    }));
    if (!sorted.length) encounterList.append(h("li", { class: "muted" }, "None yet: begin one below, from the roster."));
  }

  return {
    update(msg) {
      const view = msg.state;
      current = view;
      window.stablemaster.campaign = view;
      $("title").textContent = view.name;
      document.title = `${view.name} — Stablemaster campaign`;
      $("subtitle").textContent = `GM · ${rulesetTitle(view.ruleset)} · ${clockText(view.clock)}`;
      clockNow.textContent = clockText(view.clock);
      const vitals = vitalsLabel(view.ruleset);
      eMapField.hidden = !keepsMap(view.ruleset);
      fatigueWord.textContent = vitals === "fatigue" ? "Fatigue points now" : `${vitals} now`;
      fullWord.textContent = vitals === "fatigue" ? "fatigue points back to full" : `${vitals} back to full`;
      clockNow.dataset.hour = view.clock.hour;
      rosterEmpty.hidden = view.characters.length > 0;
      cards.replaceChildren(...view.characters.map((c) => characterCard(view, c, c.link
        ? [h("div", { class: "player-link" }, field(`${c.name}'s player link`, copyField(tableLink(c.link), `${c.name}: player link`)))]
        : [])));
      renderEncounters(view);
      logBox.replaceChildren(logList(view));
      renderPicks(view);
      renderWho(view);
    },
  };
}

/** The temporary status list typed one a line ("+2 canterlot high society"; no circle:
 *  everywhere), as adjust_character takes it. */
function readStatus(text) {
  return text.split("\n").map((l) => l.trim()).filter(Boolean).map((line) => {
    const m = line.match(/^\+?(\d+)\s*(.*)$/);
    if (!m) throw { code: "invalid_status", message: `Temporary status: "${line}" is not a bonus and a circle (+2 canterlot)` };
    return m[2].trim() ? { bonus: Number(m[1]), circle: m[2].trim() } : { bonus: Number(m[1]) };
  });
}

/** The items typed one a line ("3 × rope", "rope × 3" or "rope"), as adjust_character takes
 *  them. */
function readItems(text) {
  return text.split("\n").map((l) => l.trim()).filter(Boolean).map((line) => {
    const before = line.match(/^(\d+)\s*[×x*]?\s+(.+)$/);
    if (before) return { name: before[2].trim(), count: Number(before[1]) };
    const after = line.match(/^(.+?)\s*[×x*]\s*(\d+)$/);
    if (after) return { name: after[1].trim(), count: Number(after[2]) };
    return { name: line, count: 1 };
  });
}
