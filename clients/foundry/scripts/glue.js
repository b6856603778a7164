// The module's wiring into Foundry VTT: settings, hooks, the primary GM's bridge. Everything
// it decides is in the pure modules (mirror.js, intents.js, actors.js, chat.js) and bridge.js;
// this file only reads and writes Foundry's documents.
import { Bridge } from "./bridge.js";
import { MODULE_ID, mirrors } from "./mirror.js";
import { holdBack, MARKER, parseIntegrationLink, primaryGM } from "./intents.js";
import { DEFAULT_MAPPING, parseMapping } from "./actors.js";
import { struck } from "./chat.js";
import { countdown } from "./timer.js";

const SOCKET = `module.${MODULE_ID}`;
const MARK = { [MARKER]: true };

/** @type {Bridge | null} */
let bridge = null;
/** A replay the GM asked for (`api.replay`), or null: the live encounter. @type {{speed: number, from_round: number} | null} */
let replaying = null;

/**
 * The combat that mirrors the encounter (it carries the module's `encounter` flag), or with
 * `replay` the scratch combat a replay plays in (its `replay` flag too).
 * @param {boolean} [replay]
 */
function mirrorCombat(replay = false) {
  return game.combats?.find((c) => mirrors(/** @type {any} */ (c.flags)?.[MODULE_ID], replay)) ?? null;
}

/**
 * The Foundry side of a bridge: the live encounter's combat, or (`replay`) the replay's own.
 * @param {boolean} replay
 * @returns {import("./bridge.js").Table}
 */
function foundryTable(replay) {
  return {
    combat() {
      const c = mirrorCombat(replay);
      if (!c) return null;
      return {
        round: c.round, turn: c.turn ?? null, flags: /** @type {Record<string, any>} */ (c.flags),
        combatants: c.combatants.map((x) => ({
          id: /** @type {string} */ (x.id), actorId: x.actorId ?? null, tokenId: x.tokenId ?? null, name: x.name ?? "",
          initiative: x.initiative ?? null, defeated: !!x.defeated, flags: /** @type {Record<string, any>} */ (x.flags),
        })),
      };
    },
    async createCombat(flags) {
      const data = { scene: canvas?.scene?.id ?? null, active: true, flags: { [MODULE_ID]: flags } };
      await Combat.create(/** @type {any} */ (data), /** @type {any} */ (MARK));
      const made = this.combat();
      if (!made) throw new Error("the combat was not created");
      return made;
    },
    async deleteCombat() {
      await mirrorCombat(replay)?.delete(/** @type {any} */ (MARK));
    },
    async apply(ops, flags) {
      const combat = mirrorCombat(replay);
      if (!combat) return;
      const opts = /** @type {any} */ (MARK);
      if (ops.deleteCombatants.length) await combat.deleteEmbeddedDocuments("Combatant", ops.deleteCombatants, opts);
      const sceneId = canvas?.scene?.id ?? null;
      if (ops.createCombatants.length) {
        await combat.createEmbeddedDocuments("Combatant", /** @type {any} */ (ops.createCombatants.map((d) => ({ ...d, sceneId }))), opts);
      }
      if (ops.updateCombatants.length) await combat.updateEmbeddedDocuments("Combatant", /** @type {any} */ (ops.updateCombatants), opts);
      const update = { ...(ops.updateCombat ?? {}), ...(flags ? { [`flags.${MODULE_ID}`]: flags } : {}) };
      if (Object.keys(update).length) await combat.update(/** @type {any} */ (update), opts);
      const scene = canvas?.scene;
      if (!scene) return;
      if (ops.updateTokens.length) {
        const changes = ops.updateTokens.map(({ _id, hidden, overlay }) => ({
          _id, ...(hidden === undefined ? {} : { hidden }), ...(overlay === undefined ? {} : { [`flags.${MODULE_ID}.overlay`]: overlay }),
        }));
        await scene.updateEmbeddedDocuments("Token", /** @type {any} */ (changes), opts);
      }
      for (const { tokenId, status, active } of ops.statuses) {
        const actor = scene.tokens.get(tokenId)?.actor;
        if (actor && CONFIG.statusEffects.some((e) => e.id === status)) await actor.toggleStatusEffect(status, { active });
      }
    },
    tokens() {
      return canvas?.scene?.tokens.map((t) => ({ id: /** @type {string} */ (t.id), hidden: t.hidden, flags: /** @type {Record<string, any>} */ (t.flags) })) ?? [];
    },
    statusesOf(tokenId) {
      return [...(canvas?.scene?.tokens.get(tokenId)?.actor?.statuses ?? [])];
    },
    notify(level, text) {
      ui.notifications?.[level](text);
    },
    async chat(data) {
      await ChatMessage.create(/** @type {any} */ (data));
    },
    now() {
      return game.time.serverTime;
    },
    async strike(cursors) {
      const gone = new Set(cursors);
      for (const message of game.messages ?? []) {
        const at = /** @type {any} */ (message.flags)?.[MODULE_ID]?.cursor;
        if (at === undefined || !gone.has(at)) continue;
        const content = struck(String(message.content));
        if (content !== message.content) await message.update({ content });
      }
    },
    async roll(formula) {
      // Evaluated through CONFIG.Dice.fulfillment: the method the GM chose for each die
      // (Foundry's digital dice, manual entry, a physical dice module) gives its faces.
      const roll = await new Roll(formula).evaluate({ allowInteractive: true });
      return {
        dice: roll.dice.map((d) => ({
          faces: d.faces,
          results: d.results.map((r) => ({ result: r.result, active: r.active, discarded: !!r.discarded })),
        })),
      };
    },
  };
}

/** Start or stop the bridge: only the primary GM's client connects. */
async function elect() {
  const users = game.users?.map((u) => ({ id: /** @type {string} */ (u.id), isGM: u.isGM, active: u.active })) ?? [];
  const mine = primaryGM(users) === game.user?.id;
  if (!mine) {
    bridge?.stop();
    bridge = null;
    return;
  }
  if (bridge) return;
  // a replay's combat left from before a reload: the replay ended with it
  if (!replaying) await mirrorCombat(true)?.delete(/** @type {any} */ (MARK));
  const link = /** @type {string} */ (game.settings.get(MODULE_ID, "link"));
  if (!link) {
    ui.notifications?.info("Stablemaster: paste the integration link in the module's settings to connect.");
    return;
  }
  try {
    const { url, token } = parseIntegrationLink(link);
    const publicToken = /** @type {string} */ (game.settings.get(MODULE_ID, "publicToken")) || null;
    bridge = new Bridge({
      url, token, table: foundryTable(replaying !== null), publicToken,
      answerRolls: /** @type {boolean} */ (game.settings.get(MODULE_ID, "answerRolls")),
      keepPublicToken: async (t) => { await game.settings.set(MODULE_ID, "publicToken", t); },
      replay: replaying,
    });
    await bridge.start();
  } catch (e) {
    bridge?.stop();
    bridge = null;
    ui.notifications?.error(`Stablemaster: ${/** @type {Error} */ (e).message}`);
  }
}

/**
 * Play the encounter back in the combat tracker and the chat, from the start of round
 * `from_round` (0: the whole story) at `speed` times the pace it was played at (a replay of
 * the table's connection: it only watches), in a combat of its own: the live encounter's
 * combat and the scene's tokens stay as they are. `live()`, or deleting the replay's combat,
 * goes back to the live encounter.
 * @param {{speed?: number, from_round?: number}} [options]
 */
async function replay({ speed = 4, from_round = 0 } = {}) {
  bridge?.stop();
  bridge = null;
  await mirrorCombat(true)?.delete(/** @type {any} */ (MARK));
  replaying = { speed, from_round };
  await elect();
  return bridge;
}

/** Back to the live encounter, after a replay: the replay's combat goes. */
async function live() {
  bridge?.stop();
  bridge = null;
  replaying = null;
  await elect();  // the replay's combat goes there
  await mirrorCombat(false)?.activate();
  return bridge;
}

/** The mapping the GM set, or the default one. */
function mapping() {
  try {
    return parseMapping(/** @type {string} */ (game.settings.get(MODULE_ID, "mapping")));
  } catch (e) {
    ui.notifications?.warn(`Stablemaster: the mapping: ${/** @type {Error} */ (e).message}; the default one is used`);
    return DEFAULT_MAPPING;
  }
}

/** Add the selected tokens (or these) to the encounter as combatants. */
async function addTokens(tokens = canvas?.tokens?.controlled.map((t) => t.document) ?? []) {
  if (!bridge) throw new Error("the bridge runs on the primary GM's client only");
  const pairs = tokens.map((t) => ({
    actor: t.actor ? { id: /** @type {string} */ (t.actor.id), name: t.actor.name, hasPlayerOwner: t.actor.hasPlayerOwner, system: t.actor.system } : null,
    token: { id: /** @type {string} */ (t.id), name: t.name, hidden: t.hidden, actorId: t.actorId },
  }));
  return bridge.addTokens(pairs, mapping());
}

/**
 * An intent from the tracker: the primary GM's bridge sends it; another client passes it on
 * (Foundry's socket). A player may ask only to end the turn of a combatant it owns.
 * @param {import("./intents.js").Intent} intent
 * @param {string} userId
 */
function forward(intent, userId) {
  if (bridge) {
    const user = game.users?.get(userId);
    if (!user?.isGM) {
      const current = mirrorCombat()?.combatant;
      if (intent !== "next" || !current?.actor?.testUserPermission(user ?? /** @type {any} */ (null), "OWNER")) return;
    }
    bridge.intent(intent);
  } else {
    game.socket?.emit(SOCKET, { intent, user: game.user?.id });
  }
}

Hooks.once("init", () => {
  game.settings.register(MODULE_ID, "link", {
    name: "STABLEMASTER.link.name", hint: "STABLEMASTER.link.hint",
    scope: "client", config: true, type: String, default: "", onChange: () => { bridge?.stop(); bridge = null; elect(); },
  });
  game.settings.register(MODULE_ID, "mapping", {
    name: "STABLEMASTER.mapping.name", hint: "STABLEMASTER.mapping.hint",
    scope: "world", config: true, type: String, default: JSON.stringify(DEFAULT_MAPPING),
  });
  game.settings.register(MODULE_ID, "answerRolls", {
    name: "STABLEMASTER.rolls.name", hint: "STABLEMASTER.rolls.hint",
    scope: "client", config: true, type: Boolean, default: true,
  });
  game.settings.register(MODULE_ID, "publicToken", { scope: "client", config: false, type: String, default: "" });
});

Hooks.once("ready", () => {
  const module = game.modules?.get(MODULE_ID);
  if (module) Object.assign(module, { api: { addTokens, replay, live, get bridge() { return bridge; } } });
  game.socket?.on(SOCKET, (/** @type {{intent: import("./intents.js").Intent, user: string}} */ message) => {
    if (bridge && message?.intent) forward(message.intent, message.user);
  });
  elect();
});

// Foundry says userConnected with `connected` false when a user leaves: the same check.
Hooks.on("userConnected", () => { elect(); });

Hooks.on("preUpdateCombat", (/** @type {Combat} */ combat, /** @type {Record<string, unknown>} */ changes, /** @type {Record<string, unknown>} */ options, /** @type {string} */ userId) => {
  if (!combat.getFlag(MODULE_ID, "encounter")) return true;
  const verdict = holdBack({ round: combat.round, turn: combat.turn }, /** @type {any} */ (changes), /** @type {any} */ (options));
  if (verdict.allow) return true;
  forward(verdict.intent, userId);
  return false;
});

Hooks.on("preDeleteCombat", (/** @type {Combat} */ combat, /** @type {Record<string, unknown>} */ options, /** @type {string} */ userId) => {
  if (!combat.getFlag(MODULE_ID, "encounter") || /** @type {any} */ (options)[MARKER]) return true;
  if (combat.getFlag(MODULE_ID, "replay")) return true; // closing a replay: see deleteCombat
  forward("end", userId);
  return false;
});

// A replay's combat deleted by hand (not by the module): back to the live encounter.
Hooks.on("deleteCombat", (/** @type {Combat} */ combat, /** @type {Record<string, unknown>} */ options) => {
  if (!/** @type {any} */ (options)[MARKER] && combat.getFlag(MODULE_ID, "replay") && replaying) live();
});

// The module's own updates carry options.stablemaster and are never sent back; any other
// change of round or turn that got through is undone by mirroring the server again.
Hooks.on("updateCombat", (/** @type {Combat} */ combat, /** @type {Record<string, unknown>} */ changes, /** @type {Record<string, unknown>} */ options) => {
  if (/** @type {any} */ (options)[MARKER] || !combat.getFlag(MODULE_ID, "encounter")) return;
  if ("round" in changes || "turn" in changes) bridge?.sync();
});

// Fires on every client; the primary GM's checks that Foundry still shows the server's turn.
Hooks.on("combatTurnChange", (/** @type {Combat} */ combat) => {
  if (bridge && combat.getFlag(MODULE_ID, "encounter")) bridge.sync();
});

// The overlay: fatigue points, condition tracks, consciousness under the token.
Hooks.on("refreshToken", (/** @type {Token} */ token) => {
  const overlay = /** @type {{label?: string} | undefined} */ (token.document.getFlag(MODULE_ID, "overlay"));
  const holder = /** @type {PIXI.Container & {stablemaster?: PIXI.Text}} */ (/** @type {unknown} */ (token));
  if (!overlay?.label) {
    holder.stablemaster?.destroy();
    delete holder.stablemaster;
    return;
  }
  if (!holder.stablemaster) holder.stablemaster = holder.addChild(new PIXI.Text("", { fontSize: 14, fill: "#ffffff", stroke: "#000000", strokeThickness: 3 }));
  holder.stablemaster.text = overlay.label;
  holder.stablemaster.position.set(0, token.h + 2);
});

// The turn timer (R102) in the combat tracker, for everyone: the countdown from the mirrored
// combat's flags, on Foundry's clock, brought up to date every second.
function showTimer() {
  // the timer of the combat the tracker shows: the live encounter's, or a replay's
  const viewed = game.combat?.getFlag(MODULE_ID, "encounter") ? game.combat : mirrorCombat();
  const shown = countdown(/** @type {any} */ (viewed?.getFlag(MODULE_ID, "timer")) ?? null, game.time.serverTime);
  const tracker = document.querySelector("#combat");
  if (!tracker) return;
  let el = /** @type {HTMLElement | null} */ (tracker.querySelector(".stablemaster-timer"));
  if (!shown) { el?.remove(); return; }
  if (!el) {
    el = document.createElement("p");
    el.className = "stablemaster-timer";
    el.setAttribute("role", "timer");
    tracker.prepend(el);
  }
  el.textContent = `Turn timer: ${shown.text}`;
  el.style.color = shown.warning ? "#c0392b" : "";
}
Hooks.on("renderCombatTracker", () => { showTimer(); });
Hooks.once("ready", () => { setInterval(showTimer, 1000); });
