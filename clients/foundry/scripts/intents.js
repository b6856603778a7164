// What the people at the Foundry table ask for, in the server's words: the primary GM's
// client, the integration link, the combat tracker's controls as commands. Pure functions.

/**
 * @typedef {{id: string, isGM: boolean, active: boolean}} UserLike
 */

/**
 * The one client that talks to the server: the active GM with the lowest user id (checked
 * again whenever a user connects or disconnects). null: no GM is connected.
 * @param {Iterable<UserLike>} users
 * @returns {string | null}
 */
export function primaryGM(users) {
  let best = null;
  for (const u of users) if (u.isGM && u.active && (best === null || u.id < best)) best = u.id;
  return best;
}

/**
 * The server's websocket URL and the credential in an integration link: `ws(s)://host/ws#token=…`,
 * or a page of the server's (`http(s)://host/…#token=…`, the token in the fragment or the query).
 * @param {string} link
 * @returns {{url: string, token: string}}
 */
export function parseIntegrationLink(link) {
  let parsed;
  try {
    parsed = new URL(String(link).trim());
  } catch {
    throw new Error("the integration link is not a URL");
  }
  const fragment = new URLSearchParams(parsed.hash.replace(/^#/, ""));
  const token = fragment.get("token") || parsed.searchParams.get("token");
  if (!token) throw new Error("the integration link holds no token (…#token=sm1.…)");
  const scheme = { "http:": "ws:", "https:": "wss:", "ws:": "ws:", "wss:": "wss:" }[parsed.protocol];
  if (!scheme) throw new Error(`the integration link's scheme ${parsed.protocol} is neither ws(s) nor http(s)`);
  return { url: `${scheme}//${parsed.host}/ws`, token };
}

/** The integration link of a server URL and a token. */
export function integrationLink(/** @type {string} */ url, /** @type {string} */ token) {
  return `${url}#token=${encodeURIComponent(token)}`;
}

/** The scopes the module's credential needs. */
export const SCOPES = ["command:gm", "view:gm", "roll"];

/**
 * @typedef {"start" | "next" | "previous" | "end"} Intent
 */

/**
 * What a change of the combat's round or turn asks for (Foundry's tracker: Begin Combat,
 * Next Turn, Previous Turn, Next and Previous Round), or null when it changes neither.
 * @param {{round: number, turn: number | null}} combat  the combat before the change
 * @param {{round?: number, turn?: number | null}} changes
 * @returns {Intent | null}
 */
export function intentOf(combat, changes) {
  if (!("round" in changes) && !("turn" in changes)) return null;
  const round = changes.round ?? combat.round;
  const turn = "turn" in changes ? changes.turn ?? null : combat.turn;
  if (round === combat.round && turn === combat.turn) return null;
  if (combat.round === 0 && round > 0) return "start";
  if (round > combat.round || (round === combat.round && (turn ?? -1) > (combat.turn ?? -1))) return "next";
  return "previous";
}

/**
 * @typedef {object} Shown  What the Foundry combat showed when the control was used (its flags).
 * @property {string | null} turnId  the server's turn id it mirrors
 * @property {string | null} current  the server's id of the combatant whose turn it showed
 */

/**
 * @typedef {{type: string, fields: Record<string, unknown>, expectTurn: string | null}} Command
 * @typedef {{refuse: string}} Refusal
 */

/**
 * The command an intent sends: `start_encounter`; `end_turn` for the combatant whose turn the
 * tracker showed, meant for that turn (`expect_turn`: a click on a turn that is over is refused
 * as `stale` and changes nothing); `end_encounter`. Going back a turn is not a thing the
 * server does: refused here.
 * @param {Intent} intent
 * @param {Shown} shown
 * @param {{current: string | null} | null} state  the server's state held
 * @returns {Command | Refusal}
 */
export function commandFor(intent, shown, state) {
  switch (intent) {
    case "start":
      return { type: "start_encounter", fields: {}, expectTurn: shown.turnId };
    case "next": {
      const combatant = shown.current ?? state?.current ?? null;
      if (!combatant) return { refuse: "no turn is running to end" };
      return { type: "act", fields: { combatant, action: "end_turn", args: {} }, expectTurn: shown.turnId };
    }
    case "end":
      return { type: "end_encounter", fields: { reason: "ended at the Foundry table" }, expectTurn: null };
    default:
      return { refuse: "Stablemaster runs the turns: there is no going back a turn or a round" };
  }
}

/** The key of Foundry's update options that marks the module's own updates (never echoed). */
export const MARKER = "stablemaster";

/**
 * `preUpdateCombat`: what to do with a change of the mirrored combat. The module's own
 * updates (marked `options.stablemaster`) go through; a change of round or turn made by
 * someone at the table is held back and becomes an intent, sent to the server, whose answer
 * alone moves the combat; any other change (a tracker setting) goes through.
 * @param {{round: number, turn: number | null}} combat
 * @param {{round?: number, turn?: number | null}} changes
 * @param {Record<string, unknown>} options
 * @returns {{allow: true} | {allow: false, intent: Intent}}
 */
export function holdBack(combat, changes, options) {
  if (options && options[MARKER]) return { allow: true };
  const intent = intentOf(combat, changes);
  return intent === null ? { allow: true } : { allow: false, intent };
}
