// The server's words and dice at the Foundry table: summaries as chat messages, roll
// requests answered with Foundry's dice. Pure.

const ESCAPES = /** @type {Record<string, string>} */ ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" });

/** Text as HTML. */
export function escapeHtml(/** @type {string} */ text) {
  return String(text).replace(/[&<>"']/g, (ch) => ESCAPES[ch]);
}

/**
 * The chat message (ChatMessage data) of an event message with a `summary`; null without one.
 * @param {{cursor?: string, seq?: number, event: {kind: string}, summary?: {text: string} | unknown}} message
 * @returns {{content: string, speaker: {alias: string}, flags: Record<string, any>} | null}
 */
export function chatMessageFor(message) {
  const summary = /** @type {{text?: unknown} | undefined} */ (message.summary);
  if (!summary || typeof summary.text !== "string" || !summary.text) return null;
  return {
    content: `<p class="stablemaster-summary">${escapeHtml(summary.text)}</p>`,
    speaker: { alias: "Stablemaster" },
    flags: { "stablemaster-bridge": { cursor: message.cursor ?? message.seq ?? null, kind: message.event.kind } },
  };
}

/**
 * The positions (cursors) of the events a page of history marks as taken back by the GM
 * (`taken_back`, an undo: ruling R108).
 * @param {Array<{cursor?: string, seq?: number, taken_back?: boolean}>} events
 * @returns {Array<string | number>}
 */
export function takenBack(events) {
  return events.filter((m) => m.taken_back).map((m) => m.cursor ?? m.seq ?? "").filter((at) => at !== "");
}

/**
 * A summary's chat content struck through: an event the GM took back stays in the chat, as
 * in the server's log.
 * @param {string} content
 */
export function struck(content) {
  return content.startsWith('<p class="stablemaster-summary taken-back">') ? content
    : content.replace('<p class="stablemaster-summary">', '<p class="stablemaster-summary taken-back"><s>').replace(/<\/p>$/, "</s></p>");
}

/**
 * Whether a roll request is the GM's to answer: a request without a combatant (the GM's own,
 * or a hidden combatant's as a `roll` credential sees it) or an NPC's.
 * @param {{combatant: string | null}} request
 * @param {{combatants: Array<{id: string, kind: string}>} | null} state
 */
export function addressedToGM(request, state) {
  if (request.combatant === null) return true;
  const c = state?.combatants.find((x) => x.id === request.combatant);
  return !!c && c.kind === "npc";
}

/**
 * The Foundry roll formula of a request's dice (`[20]` → `1d20`, `[6, 6, 8]` → `2d6 + 1d8`):
 * one term per run of equal dice, in the request's order.
 * @param {number[]} dice  the sides of each die
 */
export function rollFormula(dice) {
  if (!dice.length) throw new Error("the request asks for no dice");
  const terms = [];
  for (let i = 0; i < dice.length;) {
    let n = 1;
    while (i + n < dice.length && dice[i + n] === dice[i]) n++;
    terms.push(`${n}d${dice[i]}`);
    i += n;
  }
  return terms.join(" + ");
}

/**
 * The faces of an evaluated Foundry roll (its `dice`, each `faces` and `results`), in the order
 * of the request's dice: what `submit_roll` sends. Throws when the roll is not those dice.
 * @param {{dice: Array<{faces: number | null | undefined, results: Array<{result: number, active?: boolean, discarded?: boolean}>}>}} roll
 * @param {number[]} dice
 * @returns {number[]}
 */
export function facesFromRoll(roll, dice) {
  const faces = [];
  const sides = [];
  for (const term of roll.dice) {
    for (const r of term.results) {
      if (r.discarded || r.active === false) continue;
      faces.push(r.result);
      sides.push(term.faces);
    }
  }
  if (sides.length !== dice.length || sides.some((s, i) => s !== dice[i])) {
    throw new Error(`the roll has ${sides.map((s) => `d${s}`).join(", ") || "no dice"}, the request asks for ${dice.map((s) => `d${s}`).join(", ")}`);
  }
  if (faces.some((f, i) => !Number.isInteger(f) || f < 1 || f > dice[i])) throw new Error(`faces ${faces.join(", ")} out of range`);
  return faces;
}

/**
 * @typedef {{commitment: string | null, secret: string | null}} DiceSaid  what the chat was
 *   told of the server's dice (ruling R101)
 */

/**
 * The chat messages that tell the table of the server's verifiable dice (ruling R101), from the
 * state's `dice` (so a bridge that joins after the commitment tells it all the same): the
 * commitment, once; once the encounter has ended the secret the server revealed and the
 * command that checks every roll against it. None for dice that are not verifiable (a
 * `dice_seed`: no commitment). `said` is what was told already, and is brought up to date.
 * @param {{commitment?: string | null, secret?: string | null} | null | undefined} dice
 * @param {DiceSaid} said
 * @param {string} check  the check command (`python -m clients.dice_check <url> <token>`)
 * @returns {Array<{content: string, speaker: {alias: string}, flags: Record<string, any>}>}
 */
export function diceMessages(dice, said, check) {
  const out = [];
  const line = (/** @type {string} */ kind, /** @type {string} */ html) => ({
    content: `<p class="stablemaster-dice">${html}</p>`, speaker: { alias: "Stablemaster" },
    flags: { "stablemaster-bridge": { cursor: null, kind } },
  });
  if (dice?.commitment && said.commitment !== dice.commitment) {
    said.commitment = dice.commitment;
    out.push(line("dice_committed", `The server's dice are verifiable: it commits to its secret, SHA-256 <code>${escapeHtml(dice.commitment)}</code> (the secret comes when the encounter ends).`));
  }
  if (dice?.secret && said.secret !== dice.secret) {
    said.secret = dice.secret;
    out.push(line("dice_revealed", `The server reveals the secret of its dice: <code>${escapeHtml(dice.secret)}</code>. Check every roll against the commitment: <code>${escapeHtml(check)}</code>`));
  }
  return out;
}

/** The command that checks the rolls a credential was shown (`clients/dice_check.py`). */
export function diceCheckCommand(/** @type {string} */ url, /** @type {string} */ token) {
  return `python -m clients.dice_check ${url} ${token}`;
}
