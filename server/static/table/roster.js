// A campaign as the server sends it (a `campaign` message's `state`: protocol.campaign's
// CampaignView), shown: the in-game clock, a character of the roster as a card, an encounter
// begun from it. The campaign page (the GM's) and the web table's waiting screen (a player's,
// before the GM begins an encounter) show it with these; nothing here works anything out of
// what the server did not say.

import { h, fatigueBar } from "/table/render.js";
import { bandText, vitalsLabel } from "/table/model.js";

const two = (n) => String(n).padStart(2, "0");

/** The clock as the server gives it (`{hour, day, time}`): "Day 3, 14:00". */
export function clockText(clock) {
  return clock ? `Day ${clock.day}, ${two(clock.time)}:00` : "";
}

/** An hour of the campaign (hours since it began: hour 0 is day 1, 00:00) in the clock's
 *  words. */
export function hourText(hour) {
  if (hour === null || hour === undefined) return "";
  return `day ${Math.floor(hour / 24) + 1}, ${two(hour % 24)}:00`;
}

/** A condition track (R15, R17) in words: "step 2/5 (-2), 2 persistent, 1 crippling". */
export function trackWords(t) {
  if (t === null || t === undefined) return "none";
  if (!t.step && !t.persistent && !t.crippling) return "normal";
  let text = `step ${t.step}/5 (${t.penalty >= 0 ? "+" : ""}${t.penalty})`;
  if (t.persistent) text += `, ${t.persistent} persistent`;
  if (t.crippling) text += `, ${t.crippling} crippling`;
  return text;
}

/** Temporary Social Status (R111) in words: "+2 in canterlot (the gala; since day 1, 08:00)". */
export function statusWords(list) {
  if (!list || !list.length) return "none";
  return list.map((s) => {
    const where = s.circle ? ` in ${s.circle}` : " everywhere";
    const why = [s.source, s.since ? `since ${hourText(s.since)}` : ""].filter(Boolean).join("; ");
    return `+${s.bonus}${where}${why ? ` (${why})` : ""}`;
  }).join(", ");
}

export function itemsWords(list) {
  if (!list || !list.length) return "none";
  return list.map((i) => `${i.name} × ${i.count}`).join(", ");
}

/** The name of an encounter of the campaign (its id, when the view does not list it). */
export function encounterName(view, id) {
  const e = (view.encounters || []).find((x) => x.id === id);
  return e ? e.name : id;
}

/** A character of the roster as the credential sees it: in full (the GM; a player, its own)
 *  with every value the server sends, or as a table would (name, kind, life, how its fatigue
 *  points stand). `extra`: elements put at the card's foot (the GM's player link). */
export function characterCard(view, c, extra = []) {
  const label = vitalsLabel(view.ruleset);
  const full = c.fatigue !== undefined;
  const badges = [h("span", { class: "badge" }, c.kind === "pc" ? "player character" : "NPC")];
  if (c.life === "dead") badges.push(h("span", { class: "badge consciousness dead" }, "dead"));
  if (c.encounter) badges.push(h("span", { class: "badge in-encounter" }, `in ${encounterName(view, c.encounter)}`));
  const rows = [];
  if (full) {
    // the bar says the points (a character without a maximum: the number alone)
    rows.push([label, fatigueBar(c, label) || String(c.fatigue ?? "—")]);
    rows.push(["physical track", trackWords(c.physical)]);
    rows.push(["mental track", trackWords(c.mental)]);
    rows.push(["Second Lunches today", String(c.lunches_today ?? 0)]);
    rows.push(["natural healing", c.healed_at === null || c.healed_at === undefined ? "not yet" : `last on ${hourText(c.healed_at)}`]);
    rows.push(["temporary status", statusWords(c.status)]);
    rows.push(["items", itemsWords(c.items)]);
  } else if (c.band) {
    rows.push([label, bandText(c.band, view.ruleset)]);
  }
  rows.push(["life", c.life]);
  rows.push(["encounter", c.encounter ? encounterName(view, c.encounter) : "none"]);
  return h("article", { class: "character", dataset: { character: c.id } },
    h("h3", {}, c.name, " ", h("span", { class: "muted cid" }, `(${c.id})`)),
    h("p", { class: "badges" }, ...badges),
    h("table", { class: "kv" }, h("tbody", {}, ...rows.map(([k, v]) => h("tr", { dataset: { field: k } }, h("th", { scope: "row" }, k), h("td", {}, v))))),
    ...extra);
}

/** The campaign's log as the server words it (the view's `log`: what each change was and by
 *  which rule, a rest that did not heal and why), newest first. */
export function logList(view) {
  const lines = [...(view.log || [])].reverse();
  if (!lines.length) return h("p", { class: "muted" }, "Nothing has happened yet.");
  return h("ol", { class: "campaign-log", reversed: true },
    ...lines.map((l) => h("li", { dataset: { seq: l.seq } }, h("span", { class: "muted" }, `${hourText(l.hour)}: `), l.text)));
}

/** A read-only link field with a button that copies it. */
export function copyField(value, label, cls = "link") {
  const input = h("input", { type: "text", readonly: true, value, class: cls, "aria-label": label, onclick: (ev) => ev.target.select() });
  const button = h("button", { type: "button", class: "copy", "aria-label": `copy ${label}`,
    onclick: () => navigator.clipboard?.writeText(value).then(() => { button.textContent = "Copied"; }, () => { input.select(); }) }, "Copy");
  return h("span", { class: "copy-field" }, input, button);
}
