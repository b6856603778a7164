// A stat block from a Foundry actor and token, by a mapping the GM may edit. Pure.

/**
 * The default mapping: a stat block's field (a dotted path: `name`, `initiative`,
 * `stats.fatigue_points`...) to where its value is read (a dotted path into `{actor, token}`),
 * or `{"value": …}` for a value as it is. A path that names nothing leaves the field out.
 * @type {Record<string, string | {value: unknown}>}
 */
export const DEFAULT_MAPPING = {
  name: "token.name",
  initiative: "actor.system.attributes.init.mod",
  "stats.fatigue_points": "actor.system.attributes.hp.max",
};

/**
 * @param {unknown} root
 * @param {string} path
 */
function read(root, path) {
  /** @type {any} */
  let node = root;
  for (const key of path.split(".")) {
    if (node === null || node === undefined) return undefined;
    node = node[key];
  }
  return node;
}

/**
 * @param {Record<string, any>} target
 * @param {string} path
 * @param {unknown} value
 */
function write(target, path, value) {
  const keys = path.split(".");
  let node = target;
  for (const key of keys.slice(0, -1)) node = node[key] ??= {};
  node[keys[keys.length - 1]] = value;
}

/**
 * Check a mapping the GM typed (JSON text or an object).
 * @param {string | Record<string, unknown>} mapping
 * @returns {Record<string, string | {value: unknown}>}
 */
export function parseMapping(mapping) {
  const parsed = typeof mapping === "string" ? JSON.parse(mapping || "{}") : mapping;
  if (!parsed || typeof parsed !== "object" || Array.isArray(parsed)) throw new Error("the mapping is a JSON object");
  for (const [field, source] of Object.entries(parsed)) {
    const ok = typeof source === "string" || (source && typeof source === "object" && "value" in source);
    if (!ok) throw new Error(`mapping ${field}: a path ("actor.system…") or {"value": …}`);
  }
  return /** @type {Record<string, string | {value: unknown}>} */ (parsed);
}

/**
 * @typedef {object} ActorLike
 * @property {string} id
 * @property {string} name
 * @property {boolean} [hasPlayerOwner]
 * @property {unknown} [system]
 */
/**
 * @typedef {object} TokenLike
 * @property {string} id
 * @property {string} name
 * @property {boolean} hidden
 * @property {string | null} [actorId]
 */

/**
 * The stat block of a token on the scene: the mapped fields, `kind` (`pc` for an actor a
 * player owns), `hidden` as the token is, and `external_ids` naming the actor and the token.
 * @param {ActorLike | null} actor
 * @param {TokenLike} token
 * @param {Record<string, string | {value: unknown}>} [mapping]
 * @returns {Record<string, any>}
 */
export function statBlockFromToken(actor, token, mapping = DEFAULT_MAPPING) {
  /** @type {Record<string, any>} */
  const block = {
    name: token.name || actor?.name || "Unnamed",
    kind: actor?.hasPlayerOwner ? "pc" : "npc",
    hidden: !!token.hidden,
    stats: {},
    external_ids: { foundry_token: token.id, ...(actor ? { foundry_actor: actor.id } : {}) },
  };
  const root = { actor, token };
  for (const [field, source] of Object.entries(mapping)) {
    const value = typeof source === "string" ? read(root, source) : source.value;
    if (value === undefined || value === null || value === "") continue;
    write(block, field, typeof value === "string" && /^-?\d+$/.test(value) ? Number(value) : value);
  }
  return block;
}
