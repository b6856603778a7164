// The bridge: the primary GM's connections to the server (the integration credential's, and a
// spectator's: what the table may see), the Foundry combat kept as the server says, the
// tracker's controls sent as commands, the summaries to the chat, the GM's roll requests
// answered with Foundry's dice, the server's verifiable dice told in the chat. As a replay it
// only watches: the table's connection plays the encounter back, and the combat and the chat
// follow it. It touches Foundry only through a `Table` (glue.js makes one of Foundry's
// documents; the tests one of plain objects).
import { Client, CommandError } from "./vendor/stablemaster-client/index.js";
import { combatOperations, desiredCombat, MODULE_ID, nothingToDo, replayOperations } from "./mirror.js";
import { commandFor } from "./intents.js";
import { addressedToGM, chatMessageFor, diceCheckCommand, diceMessages, facesFromRoll, rollFormula, takenBack } from "./chat.js";
import { statBlockFromToken } from "./actors.js";
import { timerFlags } from "./timer.js";

/**
 * @typedef {import("./mirror.js").MirrorCombat} MirrorCombat
 * @typedef {import("./mirror.js").MirrorToken} MirrorToken
 * @typedef {import("./mirror.js").Operations} Operations
 * @typedef {import("./intents.js").Intent} Intent
 */

/**
 * @typedef {object} Table  The Foundry side, as the bridge uses it.
 * @property {() => MirrorCombat | null} combat  the combat that mirrors the encounter, if any
 *   (for a replay, the replay's own combat: `mirrors(flags, true)`)
 * @property {(flags: Record<string, unknown>) => Promise<MirrorCombat>} createCombat
 * @property {() => Promise<void>} deleteCombat  (marked as the module's own)
 * @property {(ops: Operations, flags: Record<string, unknown> | null) => Promise<void>} apply
 *   apply the operations, each update marked as the module's own; `flags` (when not null)
 *   go in the combat's `flags.stablemaster-bridge`
 * @property {() => MirrorToken[]} tokens  the scene's tokens
 * @property {(tokenId: string) => string[]} statusesOf  the status effects a token shows
 * @property {(level: "info" | "warn" | "error", text: string) => void} notify
 * @property {(data: Record<string, unknown>) => Promise<void>} chat
 * @property {(cursors: Array<string | number>) => Promise<void>} strike  the chat messages
 *   of these events (their `flags.stablemaster-bridge.cursor`) struck through: taken back
 * @property {() => number} now  Foundry's time (ms): game.time.serverTime, the same clock on
 *   every Foundry client
 * @property {(formula: string) => Promise<{dice: Array<{faces: number | null | undefined, results: Array<{result: number, active?: boolean, discarded?: boolean}>}>}>} roll
 *   evaluate a roll with Foundry's dice (its CONFIG.Dice.fulfillment method)
 */

/**
 * @typedef {object} BridgeOptions
 * @property {string} url
 * @property {string} token  the integration credential (command:gm, view:gm, roll)
 * @property {Table} table
 * @property {import("./vendor/stablemaster-client/index.js").WebSocketClass} [WebSocket]
 * @property {boolean} [answerRolls]  answer the GM's roll requests with Foundry's dice (true)
 * @property {string | null} [publicToken]  a spectator credential: what the table sees, for
 *   the Foundry documents and the chat (issued with the integration credential when null)
 * @property {((token: string) => void | Promise<void>) | null} [keepPublicToken]  where a new one is kept
 * @property {boolean} [chat]  send the summaries to the chat (true)
 * @property {{speed?: number, from_round?: number, max_pause?: number} | null} [replay]  play
 *   the encounter back instead (`hello.replay` on the table's connection: from the start of
 *   round `from_round`, at `speed` times its pace): the chat and a combat of the replay's own
 *   follow it (the table's `combat` is then that one: its flags carry `replay: true`), the
 *   scene's tokens are left as they are; no command is sent and no roll answered
 */

export class Bridge {
  /** @param {BridgeOptions} options */
  constructor(options) {
    this.table = options.table;
    this.answerRolls = options.answerRolls ?? true;
    this.wantChat = options.chat ?? true;
    this.publicToken = options.publicToken ?? null;
    this.keepPublicToken = options.keepPublicToken ?? null;
    this.replay = options.replay ?? null;
    /** Whether the replay has ended (`replay_ended`). */
    this.replayed = false;
    /** What the chat was told of the server's dice. @type {import("./chat.js").DiceSaid} */
    this.diceSaid = { commitment: null, secret: null };
    this.client = new Client({ url: options.url, token: options.token, WebSocket: options.WebSocket, client: "stablemaster-bridge/0.1.0" });
    /** The table's view (a spectator's connection): what Foundry's documents may show. @type {Client | null} */
    this.view = null;
    this.WebSocket = options.WebSocket;
    /** @type {Promise<void>} */
    this._sync = Promise.resolve();
    this._dirty = false;
    this._running = false;
    /** @type {Set<string>} */
    this._answering = new Set();
    /** @type {Array<() => void>} */
    this._off = [];
    /** The server's clock less the local one (ms), from the `ts` of what it sent: the one
     * least delayed gives the largest (null before anything came). @type {number | null} */
    this.clock = null;
    /** The timer's flags, and the server's timer they were made from. */
    this._timer = /** @type {{key: string, flags: import("./timer.js").TimerFlags | null}} */ ({ key: "null", flags: null });
    /** The refusals and failures the table was told of: the words, and the server's code. */
    this.refusals = /** @type {Array<{text: string, code: string | null}>} */ ([]);
  }

  /** Connect both connections, and mirror. */
  async start() {
    const welcome = await this.client.connect();
    try {
      await this._openView(!this.publicToken);
    } catch (e) {
      // a spectator credential of another encounter, or revoked: a new one
      if (!(e instanceof CommandError) || e.code !== "unauthenticated") throw e;
      await this._openView(true);
    }
    if (!this.replay) {
      this._off.push(this.client.on("state", () => { this.sync(); this._rolls(); }));
      this._off.push(this.client.on("legal", () => { this.sync(); this._rolls(); }));
    }
    this.sync();
    this._rolls();
    return welcome;
  }

  /** @param {boolean} issue  issue a new spectator credential first */
  async _openView(issue) {
    if (issue) {
      const ack = await this.client.command("issue_spectator_link", { label: "Foundry VTT table" });
      this.publicToken = /** @type {{token: string}} */ (ack.result).token;
      await this.keepPublicToken?.(this.publicToken);
    }
    const view = new Client({ url: this.client.url, spectate: /** @type {string} */ (this.publicToken), WebSocket: this.WebSocket, client: "stablemaster-bridge/0.1.0 table", replay: this.replay ?? undefined });
    this.view = view;
    const tick = (/** @type {{ts?: unknown}} */ m) => {
      if (typeof m.ts === "number") this.clock = Math.max(this.clock ?? -Infinity, m.ts - Date.now());
    };
    this._off.push(view.on("snapshot", tick));
    this._off.push(view.on("event", (m) => {
      tick(m);
      // (the dice's own lines come from the state, below: the commitment, and the secret
      // with how to check it)
      const dice = m.event.kind === "dice_committed" || m.event.kind === "dice_revealed";
      const data = this.wantChat && !dice ? chatMessageFor(m) : null;
      if (data) this.table.chat(data).catch((e) => this._tell("error", `chat: ${e.message}`));
      // the GM took commands back (R108): their lines in the chat struck, as the server's
      // history marks them
      if (this.wantChat && m.event.kind === "commands_undone") {
        view.history({ limit: 200 })
          .then((page) => this.table.strike(takenBack(page.events)))
          .catch((e) => this._tell("error", `chat: ${e.message}`));
      }
    }));
    this._off.push(view.on("state", () => { this.sync(); this._dice(); }));
    this._off.push(view.on("replay_ended", () => {
      this.replayed = true;
      this.table.notify("info", "Stablemaster: the replay is over");
    }));
    try {
      await view.connect();
    } catch (e) {
      view.close();
      throw e;
    }
    return view;
  }

  /** The server's verifiable dice in the chat (R101), as the table's state says them. */
  _dice() {
    if (!this.wantChat || !this.view?.state) return;
    const check = diceCheckCommand(this.client.url, /** @type {string} */ (this.publicToken));
    for (const data of diceMessages(/** @type {any} */ (this.view.state).dice, this.diceSaid, check)) {
      this.table.chat(data).catch((e) => this._tell("error", `chat: ${e.message}`));
    }
  }

  /** Stop for good: both connections closed. */
  stop() {
    for (const off of this._off.splice(0)) off();
    this.client.close();
    this.view?.close();
  }

  /** Bring Foundry to the server's state (again, until nothing changes meanwhile). */
  sync() {
    this._dirty = true;
    if (!this._running) {
      this._running = true;
      this._sync = this._drain().finally(() => { this._running = false; });
    }
    return this._sync;
  }

  /** Resolves once Foundry shows the state last received. */
  settled() {
    return this._sync;
  }

  async _drain() {
    while (this._dirty) {
      this._dirty = false;
      try {
        await this._syncOnce();
      } catch (e) {
        this._tell("error", `mirroring the encounter: ${/** @type {Error} */ (e).message}`);
      }
    }
  }

  async _syncOnce() {
    const state = this.view?.state;
    const gm = this.client.state;
    if (!state || !gm) return;
    // (a replay shows what the table was shown then: the GM's state is of now)
    const desired = desiredCombat(/** @type {any} */ (state), /** @type {any} */ (this.replay ? state : gm));
    let combat = this.table.combat();
    if (desired.ended) {
      if (combat) await this.table.deleteCombat();
      return;
    }
    const shown = { encounter: state.id, turnId: this.replay ? null : this.client.turnId, current: desired.current, timer: this._timerFlags(/** @type {any} */ (state).timer), ...(this.replay ? { replay: true } : {}) };
    if (!combat) combat = await this.table.createCombat(shown);
    const all = combatOperations(combat, desired, this.table.tokens(), (id) => this.table.statusesOf(id));
    const ops = this.replay ? replayOperations(all) : all;
    const flags = combat.flags?.[MODULE_ID] || {};
    const flagsChanged = flags.turnId !== shown.turnId || flags.current !== shown.current || flags.encounter !== shown.encounter
      || JSON.stringify(flags.timer ?? null) !== JSON.stringify(shown.timer);
    if (nothingToDo(ops) && !flagsChanged) return;
    await this.table.apply(ops, flagsChanged || ops.updateCombat ? shown : null);
  }

  /**
   * The turn timer's flags (R102): made again only when the server's timer changes, so that
   * the clocks' jitter does not update the combat.
   * @param {any} timer  the state's `timer`
   */
  _timerFlags(timer) {
    const key = JSON.stringify(timer ?? null);
    if (key !== this._timer.key) {
      const serverNow = Date.now() + (this.clock ?? 0);
      this._timer = { key, flags: timerFlags(timer ?? null, serverNow, this.table.now()) };
    }
    return this._timer.flags;
  }

  /**
   * A control of the tracker (held back by preUpdateCombat): sent to the server as the
   * matching command, meant for the turn the tracker showed. A refusal is told at the table,
   * and Foundry is brought back to the server's state.
   * @param {Intent} intent
   */
  async intent(intent) {
    const combat = this.table.combat();
    const flags = combat?.flags?.[MODULE_ID] || {};
    const command = commandFor(intent, { turnId: flags.turnId ?? null, current: flags.current ?? null }, this.client.state);
    if (this.replay) {
      this._tell("warn", "a replay only watches: the tracker's controls send nothing");
    } else if ("refuse" in command) {
      this._tell("warn", command.refuse);
    } else {
      try {
        await this.client.command(command.type, command.fields, { expectTurn: command.expectTurn });
      } catch (e) {
        if (!(e instanceof CommandError)) throw e;
        this._tell("warn", `the server refused: ${e.reply.message}`, e.code);
      }
    }
    await this.sync();
  }

  /**
   * Add combatants for tokens of the scene (`add_combatant`), each stat block made by the
   * mapping. Resolves with the new combatants' ids.
   * @param {Array<{actor: import("./actors.js").ActorLike | null, token: import("./actors.js").TokenLike}>} pairs
   * @param {Record<string, string | {value: unknown}>} [mapping]
   */
  async addTokens(pairs, mapping) {
    const ids = [];
    for (const { actor, token } of pairs) {
      try {
        const ack = await this.client.command("add_combatant", { combatant: statBlockFromToken(actor, token, mapping) });
        ids.push(/** @type {{combatant: string}} */ (ack.result).combatant);
      } catch (e) {
        if (!(e instanceof CommandError)) throw e;
        this._tell("warn", `${token.name}: the server refused: ${e.reply.message}`);
      }
    }
    return ids;
  }

  /** Answer the GM's roll requests with Foundry's dice. */
  _rolls() {
    if (!this.answerRolls || this.replay) return;
    for (const request of this.client.rollRequests) {
      if (this._answering.has(request.request) || !request.dice || !addressedToGM(request, /** @type {any} */ (this.client.state))) continue;
      this._answering.add(request.request);
      const dice = request.dice;
      this.table.roll(rollFormula(dice))
        .then((roll) => this.client.submitRoll(request.request, facesFromRoll(roll, dice), { expectTurn: null }))
        .catch((e) => {
          this._answering.delete(request.request);
          this._tell("warn", `roll ${request.purpose ?? request.request}: ${e instanceof CommandError ? e.reply.message : e.message}`);
        });
    }
  }

  /**
   * @param {"info" | "warn" | "error"} level
   * @param {string} text
   * @param {string | null} [code]
   */
  _tell(level, text, code = null) {
    this.refusals.push({ text, code });
    this.table.notify(level, `Stablemaster: ${text}`);
  }
}
