// The Foundry combat that mirrors a Stablemaster encounter, and the operations that bring a
// Foundry combat there. Pure functions on plain data: no Foundry global is read here.

/** The module's id: its flags' scope and the marker of its own updates. */
export const MODULE_ID = "stablemaster-bridge";

/**
 * @typedef {object} ServerCombatant  A combatant of the server's state (CombatantView).
 * @property {string} id
 * @property {string} name
 * @property {"pc" | "npc"} kind
 * @property {boolean} hidden
 * @property {Record<string, string>} [external_ids]
 * @property {any} [vitals]
 */

/**
 * @typedef {object} ServerState  What the mirror reads of the server's state (SnapshotState).
 * @property {string[]} phase
 * @property {number} round
 * @property {string | null} current
 * @property {ServerCombatant[]} combatants
 * @property {string[]} order
 * @property {Array<{combatant: string, total: number, count: number | null}>} initiative
 * @property {string[]} [out_of_fight]
 * @property {string[]} [flying]
 * @property {boolean} ended
 */

/**
 * @typedef {object} Overlay  What a token shows of its combatant.
 * @property {number | null} fatigue  null: behind the GM's screen (an NPC's) or none
 * @property {number | null} fatigueMax
 * @property {{step: number, persistent: number, crippling: number}} physical
 * @property {{step: number, persistent: number, crippling: number}} mental
 * @property {boolean} unconscious
 * @property {boolean} dead
 * @property {string[]} statuses  Foundry status effect ids: dead, unconscious, prone, fly
 * @property {string} label  the overlay's text
 */

/**
 * @typedef {object} DesiredCombatant  A Foundry Combatant the mirror wants.
 * @property {string} combatant  the server's id
 * @property {string} name
 * @property {string | null} actorId
 * @property {string | null} tokenId
 * @property {number | null} initiative
 * @property {boolean} defeated
 */

/**
 * @typedef {object} DesiredToken  What a token linked to a combatant should show.
 * @property {string} tokenId
 * @property {string} combatant
 * @property {boolean} hidden
 * @property {Overlay | null} overlay  null for a hidden combatant: nothing of it is written
 */

/**
 * @typedef {object} DesiredCombat
 * @property {boolean} started
 * @property {boolean} ended
 * @property {number} round
 * @property {number | null} turn  the index of the current combatant in the sorted turns
 * @property {string | null} current  the server's id of the combatant whose turn Foundry shows
 * @property {DesiredCombatant[]} combatants  sorted as Foundry sorts its turns
 * @property {DesiredToken[]} tokens
 */

/**
 * The Foundry ids a stat block's `external_ids` name: `foundry_actor` and `foundry_token`, or
 * one `foundry` UUID (`Actor.abc`, `Scene.s.Token.def`, `Actor.abc.Token.def`).
 * @param {Record<string, string> | undefined} ids
 * @returns {{actorId: string | null, tokenId: string | null}}
 */
export function foundryIds(ids) {
  ids = ids || {};
  let actorId = ids.foundry_actor || null;
  let tokenId = ids.foundry_token || null;
  if (ids.foundry) {
    const parts = ids.foundry.split(".");
    for (let i = 0; i + 1 < parts.length; i += 2) {
      if (parts[i] === "Actor" && !actorId) actorId = parts[i + 1];
      if (parts[i] === "Token" && !tokenId) tokenId = parts[i + 1];
    }
  }
  return { actorId, tokenId };
}

/**
 * Foundry's order of `combat.turns` (Combat#_sortCombatants): initiative highest first, no
 * initiative last, ties by document id.
 * @template {{initiative: number | null, id?: string}} T
 * @param {T} a
 * @param {T} b
 */
export function foundryTurnOrder(a, b) {
  const ia = typeof a.initiative === "number" ? a.initiative : -Infinity;
  const ib = typeof b.initiative === "number" ? b.initiative : -Infinity;
  return (ib - ia) || ((a.id ?? "") > (b.id ?? "") ? 1 : -1);
}

/**
 * What a token shows: fatigue points (an NPC's never: they are behind the GM's screen, and a
 * token's data reaches every player), the condition tracks, consciousness.
 * @param {ServerCombatant} c
 * @param {{flying?: boolean}} [extra]
 * @returns {Overlay}
 */
export function tokenOverlay(c, extra = {}) {
  const v = c.vitals || {};
  const condition = v.condition || ["active"];
  const track = (/** @type {any} */ t) => ({ step: t?.step ?? 0, persistent: t?.persistent ?? 0, crippling: t?.crippling ?? 0 });
  const dead = condition.includes("dead") || condition.includes("destroyed");
  const unconscious = condition.includes("unconscious");
  const fatigue = c.kind === "npc" ? null : (v.fatigue ?? null);
  const fatigueMax = c.kind === "npc" ? null : (v.fatigue_max ?? null);
  const statuses = [];
  if (dead) statuses.push("dead");
  if (unconscious) statuses.push("unconscious");
  if (v.prone) statuses.push("prone");
  if (extra.flying) statuses.push("fly");
  const physical = track(v.physical);
  const mental = track(v.mental);
  const words = [];
  if (fatigue !== null) words.push(`FP ${fatigue}${fatigueMax !== null ? `/${fatigueMax}` : ""}`);
  if (physical.step) words.push(`Physical ${physical.step}/5`);
  if (mental.step) words.push(`Mental ${mental.step}/5`);
  if (dead) words.push("dead");
  else if (unconscious) words.push("unconscious");
  return { fatigue, fatigueMax, physical, mental, unconscious, dead, statuses, label: words.join(" · ") };
}

/**
 * The Foundry combat that mirrors the encounter as the table sees it (`view`: the public
 * view, a spectator's state), since every Foundry document reaches every player: a hidden
 * combatant gets no Combatant (Foundry's own `hidden` only hides the display; the document
 * would still reach every player), and while a hidden combatant acts unseen the combat shows
 * what the table was told. The GM's state (`gm`) names the hidden combatants, whose tokens
 * are hidden and carry nothing of them. The order is the server's: the
 * combatants in it get initiatives that Foundry sorts into that order (the server's count,
 * lowered by hundredths where counts tie), the others none (last). `turn` is the index of
 * the current combatant in those sorted turns (null while nobody visible acts).
 * @param {ServerState} state  the table's view
 * @param {{combatants: ServerCombatant[]}} [gm]  the GM's state (default: `state`)
 * @returns {DesiredCombat}
 */
export function desiredCombat(state, gm = state) {
  const phase = state.phase || [];
  const started = !state.ended && !phase.includes("setup") && !phase.includes("rolling_initiative");
  const visible = state.combatants.filter((c) => !c.hidden);
  const byId = new Map(visible.map((c) => [c.id, c]));
  const counts = new Map((state.initiative || []).map((e) => [e.combatant, e.count ?? e.total]));
  /** @type {Map<string, number>} */
  const initiative = new Map();
  let previous = Infinity;
  for (const id of state.order || []) {
    if (!byId.has(id)) continue; // the GM's screen, or a hidden combatant
    let value = counts.get(id) ?? previous - 1;
    if (!(value < previous)) value = Math.round((previous - 0.01) * 100) / 100;
    initiative.set(id, value);
    previous = value;
  }
  const outOfFight = state.out_of_fight || [];
  const flying = new Set(state.flying || []);
  /** @type {DesiredCombatant[]} */
  const combatants = visible.map((c) => {
    const { actorId, tokenId } = foundryIds(c.external_ids);
    /** @type {string[]} */
    const condition = c.vitals?.condition || ["active"];
    return {
      combatant: c.id, name: c.name, actorId, tokenId,
      initiative: initiative.get(c.id) ?? null,
      defeated: !condition.includes("active") || condition.some((s) => outOfFight.includes(s)),
    };
  });
  combatants.sort((a, b) => foundryTurnOrder({ initiative: a.initiative, id: a.combatant }, { initiative: b.initiative, id: b.combatant }));
  const current = started && state.current && initiative.has(state.current) ? state.current : null;
  const turn = current === null ? null : combatants.findIndex((c) => c.combatant === current);
  /** @type {DesiredToken[]} */
  const tokens = [];
  for (const c of visible) {
    const { tokenId } = foundryIds(c.external_ids);
    if (tokenId) tokens.push({ tokenId, combatant: c.id, hidden: false, overlay: tokenOverlay(c, { flying: flying.has(c.id) }) });
  }
  for (const c of gm.combatants) {
    const { tokenId } = foundryIds(c.external_ids);
    if (tokenId && (c.hidden || !byId.has(c.id))) tokens.push({ tokenId, combatant: c.id, hidden: true, overlay: null });
  }
  return { started, ended: !!state.ended, round: started ? Math.max(1, state.round) : 0, turn, current, combatants, tokens };
}

/**
 * @typedef {object} MirrorCombatant  A Foundry Combatant as the diff reads it.
 * @property {string} id
 * @property {string | null} [actorId]
 * @property {string | null} [tokenId]
 * @property {string} [name]
 * @property {number | null} initiative
 * @property {boolean} [defeated]
 * @property {Record<string, any>} [flags]
 */

/**
 * @typedef {object} MirrorCombat  A Foundry Combat as the diff reads it.
 * @property {number} round
 * @property {number | null} turn
 * @property {MirrorCombatant[]} combatants
 * @property {Record<string, any>} [flags]
 */

/**
 * @typedef {object} MirrorToken  A Foundry token as the diff reads it.
 * @property {string} id
 * @property {boolean} hidden
 * @property {Record<string, any>} [flags]
 */

/**
 * @typedef {object} Operations  What to apply to Foundry, in this order.
 * @property {string[]} deleteCombatants  Combatant ids
 * @property {Array<Record<string, any>>} createCombatants  Combatant data
 * @property {Array<Record<string, any>>} updateCombatants  with `_id`
 * @property {{round: number, turn: number | null} | null} updateCombat
 * @property {Array<{_id: string, hidden?: boolean, overlay?: Overlay | null}>} updateTokens
 *   `overlay` goes in the token's `flags.stablemaster-bridge.overlay`
 * @property {Array<{tokenId: string, status: string, active: boolean}>} statuses
 */

/** The server's combatant id a Foundry Combatant mirrors (its flag), if any. */
export function mirroredId(/** @type {{flags?: Record<string, any>}} */ doc) {
  return doc.flags?.[MODULE_ID]?.combatant ?? null;
}

const WATCHED_STATUSES = ["dead", "unconscious", "prone", "fly"];

/**
 * The operations that make `combat` (and the scene's `tokens`) what `desired` says. A
 * Combatant that mirrors nobody the server shows (a combatant hidden again, removed, or one
 * added by hand in Foundry) is deleted.
 * @param {MirrorCombat} combat
 * @param {DesiredCombat} desired
 * @param {MirrorToken[]} [tokens]
 * @param {(tokenId: string) => string[]} [statusesOf]  the status effects a token shows now
 * @returns {Operations}
 */
export function combatOperations(combat, desired, tokens = [], statusesOf = () => []) {
  const wanted = new Map(desired.combatants.map((d) => [d.combatant, d]));
  const have = new Map();
  const deleteCombatants = [];
  for (const doc of combat.combatants) {
    const id = mirroredId(doc);
    if (id === null || !wanted.has(id) || have.has(id)) deleteCombatants.push(doc.id);
    else have.set(id, doc);
  }
  const createCombatants = [];
  const updateCombatants = [];
  for (const d of desired.combatants) {
    const doc = have.get(d.combatant);
    if (!doc) {
      createCombatants.push({
        name: d.name, actorId: d.actorId, tokenId: d.tokenId, initiative: d.initiative,
        defeated: d.defeated, hidden: false, flags: { [MODULE_ID]: { combatant: d.combatant } },
      });
      continue;
    }
    /** @type {Record<string, any>} */
    const change = {};
    if (doc.initiative !== d.initiative) change.initiative = d.initiative;
    if (!!doc.defeated !== d.defeated) change.defeated = d.defeated;
    if (doc.name !== d.name) change.name = d.name;
    if (Object.keys(change).length) updateCombatants.push({ _id: doc.id, ...change });
  }
  const turn = desired.turn;
  const updateCombat = combat.round !== desired.round || combat.turn !== turn ? { round: desired.round, turn } : null;
  const byToken = new Map(tokens.map((t) => [t.id, t]));
  const updateTokens = [];
  const statuses = [];
  for (const want of desired.tokens) {
    const token = byToken.get(want.tokenId);
    if (!token) continue;
    /** @type {{_id: string, hidden?: boolean, overlay?: Overlay | null}} */
    const change = { _id: token.id };
    if (token.hidden !== want.hidden) change.hidden = want.hidden;
    const shown = token.flags?.[MODULE_ID]?.overlay ?? null;
    if (JSON.stringify(shown) !== JSON.stringify(want.overlay)) change.overlay = want.overlay;
    if (Object.keys(change).length > 1) updateTokens.push(change);
    if (want.overlay) {
      const now = new Set(statusesOf(token.id));
      for (const status of WATCHED_STATUSES) {
        const active = want.overlay.statuses.includes(status);
        if (active !== now.has(status)) statuses.push({ tokenId: token.id, status, active });
      }
    }
  }
  return { deleteCombatants, createCombatants, updateCombatants, updateCombat, updateTokens, statuses };
}

/**
 * Whether a combat (its `flags.stablemaster-bridge`) is the one a bridge writes: the live
 * encounter's, or (`replay`) the scratch combat a replay plays in, so that a replay never
 * writes over the live encounter's combat.
 * @param {Record<string, any> | null | undefined} flags
 * @param {boolean} replay
 */
export function mirrors(flags, replay) {
  return !!flags?.encounter && !!flags.replay === replay;
}

/**
 * The operations a replay applies: the combat's only. The scene's tokens (hidden, overlays)
 * and their status effects are the live encounter's, and a replay leaves them as they are.
 * @param {Operations} ops
 * @returns {Operations}
 */
export function replayOperations(ops) {
  return { ...ops, updateTokens: [], statuses: [] };
}

/** Whether there is nothing to apply. */
export function nothingToDo(/** @type {Operations} */ ops) {
  return !ops.deleteCombatants.length && !ops.createCombatants.length && !ops.updateCombatants.length
    && !ops.updateCombat && !ops.updateTokens.length && !ops.statuses.length;
}
