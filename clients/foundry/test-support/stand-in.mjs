// What the module's tests share: the server the Python side started (STABLEMASTER_URL), an
// encounter with an integration credential, and a stand-in for Foundry's documents (plain
// objects: a combat, its combatants, the scene's tokens, notifications, chat messages, dice)
// that records every Combatant document it was asked to create.
import assert from "node:assert/strict";
import WebSocket from "ws";
import { Client } from "../scripts/vendor/stablemaster-client/index.js";
import { Bridge } from "../scripts/bridge.js";
import { holdBack, MARKER, SCOPES } from "../scripts/intents.js";
import { foundryTurnOrder, MODULE_ID } from "../scripts/mirror.js";
import { struck } from "../scripts/chat.js";

export function serverUrl() {
  const url = process.env.STABLEMASTER_URL;
  assert.ok(url, "STABLEMASTER_URL is not set: run these tests with `.venv/bin/python -m pytest tests/test_foundry_module.py`, which starts a server for them");
  return url;
}

/** The scene: a token per combatant, the lurker's hidden, as the GM placed them. */
export const PARTY = [
  { name: "Twilight Sparkle", id: "twilight", kind: "pc", initiative: 3, external_ids: { foundry_actor: "aTwi", foundry_token: "tTwi" } },
  { name: "Rainbow Dash", id: "dash", kind: "pc", initiative: 5, external_ids: { foundry: "Scene.s1.Token.tDash" } },
  { name: "Diamond Dog", id: "dog", kind: "npc", initiative: 1, stats: { fatigue_points: 12 }, external_ids: { foundry_actor: "aDog", foundry_token: "tDog" } },
  { name: "Lurking Dog", id: "lurker", kind: "npc", initiative: 2, hidden: true, external_ids: { foundry_actor: "aLurk", foundry_token: "tLurk" } },
];

let counter = 0;
const newId = () => `fd${(++counter).toString().padStart(14, "0")}`;

/** Foundry's documents as plain objects, with the hooks' logic the glue runs on them. */
export class StandIn {
  constructor(tokens = PARTY.map((c) => ({ id: c.external_ids.foundry_token || c.external_ids.foundry.split(".").at(-1), name: c.name, hidden: !!c.hidden, flags: {} }))) {
    /** @type {any} */
    this._combat = null;
    this.sceneTokens = tokens;
    /** Every Combatant document ever created, as created. */
    this.created = [];
    this.notifications = [];
    this.chats = [];
    this.rolls = [];
    /** token id -> active status effects */
    this.statuses = new Map();
    /** The updates the combat was given, with their options. */
    this.updates = [];
    this.gate = null;
    /** The faces a physical die shows when Foundry's fulfillment asks for it. */
    this.fulfil = (faces) => Math.ceil(faces / 2);
  }

  combat() { return this._combat; }
  async createCombat(flags) {
    this._combat = { id: newId(), round: 0, turn: null, combatants: [], flags: { [MODULE_ID]: { ...flags } } };
    return this._combat;
  }
  async deleteCombat() { this._combat = null; }
  tokens() { return this.sceneTokens; }
  statusesOf(id) { return [...(this.statuses.get(id) || [])]; }
  notify(level, text) { this.notifications.push({ level, text }); }
  async chat(data) { this.chats.push(data); }
  /** Foundry's clock: five seconds ahead of this machine's, as another server's may be. */
  now() { return Date.now() + 5000; }
  async strike(cursors) {
    const gone = new Set(cursors);
    for (const m of this.chats) if (gone.has(m.flags[MODULE_ID].cursor)) m.content = struck(m.content);
  }

  /** Foundry's dice: each die of the formula through a fulfillment method's handler. */
  async roll(formula) {
    const dice = formula.split(" + ").map((term) => {
      const [n, faces] = term.split("d").map(Number);
      return { faces, number: n, results: Array.from({ length: n }, () => ({ result: this.fulfil(faces), active: true })) };
    });
    this.rolls.push(formula);
    return { formula, dice };
  }

  /** Hold every apply until `release()`: a Foundry slower than the server. */
  hold() { let release; this.gate = new Promise((r) => { release = r; }); return () => { this.gate = null; release(); }; }

  async apply(ops, flags) {
    if (this.gate) await this.gate;
    const c = this._combat;
    c.combatants = c.combatants.filter((x) => !ops.deleteCombatants.includes(x.id));
    for (const data of ops.createCombatants) {
      const doc = structuredClone({ id: newId(), ...data });
      this.created.push(doc);
      c.combatants.push(doc);
    }
    for (const { _id, ...change } of ops.updateCombatants) Object.assign(c.combatants.find((x) => x.id === _id), change);
    const update = { ...(ops.updateCombat || {}), ...(flags ? { flags: { [MODULE_ID]: flags } } : {}) };
    if (Object.keys(update).length) this.updateCombat(update, { [MARKER]: true });
    for (const { _id, hidden, overlay } of ops.updateTokens) {
      const t = this.sceneTokens.find((x) => x.id === _id);
      if (hidden !== undefined) t.hidden = hidden;
      if (overlay !== undefined) t.flags = { ...t.flags, [MODULE_ID]: { overlay } };
    }
    for (const { tokenId, status, active } of ops.statuses) {
      const set = this.statuses.get(tokenId) || new Set();
      if (active) set.add(status); else set.delete(status);
      this.statuses.set(tokenId, set);
    }
  }

  /** Combat#update with preUpdateCombat as glue.js wires it: held back unless marked. */
  updateCombat(changes, options = {}) {
    const c = this._combat;
    const verdict = holdBack(c, changes, options);
    this.updates.push({ changes, options, allowed: verdict.allow });
    if (!verdict.allow) return verdict.intent;
    const { flags, ...rest } = changes;
    Object.assign(c, rest);
    if (flags) c.flags = { ...c.flags, [MODULE_ID]: { ...c.flags[MODULE_ID], ...flags[MODULE_ID] } };
    return null;
  }

  /** combat.turns: the combatants as Foundry sorts them. */
  turns() { return [...this._combat.combatants].sort(foundryTurnOrder); }
  /** The server's ids of the sorted turns. */
  turnIds() { return this.turns().map((x) => x.flags[MODULE_ID].combatant); }
  /** The server's id of the combatant whose turn the combat shows. */
  shownCurrent() { const c = this._combat; return c.turn === null ? null : this.turnIds()[c.turn]; }
}


/** An encounter, its GM's client, an integration credential and a bridge on a stand-in. */
export async function newScene(t, { combatants = PARTY, options = {}, chat = true } = {}) {
  const url = serverUrl();
  const created = await Client.createEncounter({ url, WebSocket }, { name: "Foundry test", combatants, options });
  const gm = new Client({ url, token: created.gm_token, WebSocket });
  await gm.connect();
  const integration = (await gm.command("issue_integration_token", { scopes: SCOPES, label: "Foundry VTT" })).result.token;
  const foundry = new StandIn();
  const bridge = new Bridge({ url, token: integration, table: foundry, WebSocket, chat });
  t.after(() => { bridge.stop(); gm.close(); });
  await bridge.start();
  return { gm, bridge, foundry, integration };
}

/** Resolves once Foundry shows what the server last said and `predicate(table's view, GM's
 *  state)` holds; with the table's view (the state Foundry mirrors). */
export async function mirrored(bridge, predicate = () => true, timeout = 20000) {
  const deadline = Date.now() + timeout;
  for (;;) {
    await bridge.settled();
    const view = bridge.view?.state;
    const gm = bridge.client.state;
    if (view && gm && predicate(view, gm)) {
      await bridge.settled();
      return view;
    }
    if (Date.now() > deadline) assert.fail("the mirror never got there");
    await new Promise((r) => setTimeout(r, 20));
  }
}

/** The GM's console ends the turns of hidden combatants until a visible one's turn runs
 *  (while a hidden combatant acts, the table is told nothing of it). */
export async function pastHiddenTurns(gm) {
  for (let i = 0; i < 12; i++) {
    await gm.waitFor((c) => c.state.current !== null && c.legal.some((a) => a.action === "end_turn"));
    const current = gm.state.combatants.find((c) => c.id === gm.state.current);
    if (!current.hidden) return;
    await gm.act(current.id, "end_turn", {}, { expectTurn: null });
  }
  assert.fail("only hidden turns");
}

/** The party with nobody hidden. */
export const SEEN = PARTY.map((c) => ({ ...c, hidden: false }));

/** The Foundry user's click: Combat#update({round, turn}) from the tracker. */
export async function click(foundry, bridge, changes) {
  const intent = foundry.updateCombat(changes, {});
  assert.ok(intent, `the change ${JSON.stringify(changes)} was not held back`);
  await bridge.intent(intent);
  return intent;
}
