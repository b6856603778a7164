// A client of the Stablemaster protocol (protocol 1) for browsers and Node: one websocket per
// credential, hello with the versions and features it speaks, commands answered by their ack
// or error, and reconnecting by itself. After a drop it reconnects with an exponential backoff
// (with jitter) and says hello with the last cursor it was given, so it gets exactly the events
// it missed (or a snapshot when the server says so); a command still waiting for its answer is
// sent again with the same id, so it happens once. With the `view` feature it holds the state
// the server keeps for it (the snapshot's, with every `view` patch applied), and asks for a
// fresh snapshot when a patch does not apply.

import { Emitter } from "./emitter.js";
import { applyPatch } from "./patch.js";
import { applyLegalDelta, recallAfter } from "./legal.js";
import { idPrefix, uuid } from "./ids.js";

/** The protocol versions this package speaks. */
export const PROTOCOL_VERSIONS = [1];

/** What hello asks for unless told otherwise: one websocket message per command, legal
 *  actions as deltas, positions as opaque cursors, the state kept by the server, each
 *  event in the server's words, legal actions only when they change (the turn_id held stays
 *  good for expect_turn meanwhile), what a batch's messages repeat said once by the batch,
 *  entries of legal actions seen before named by reference, and events said only as far as
 *  the view and the words do not say them. */
export const DEFAULT_FEATURES = ["batch", "legal_delta", "cursor", "view", "summaries", "legal_changed", "batch_head", "legal_recall", "lean_events"];

/** The close codes after which the client does not reconnect, and why. */
export const FINAL_CLOSE_CODES = {
  1002: "the server does not speak this client's protocol version",
  4001: "the credential was revoked or has expired",
  4003: "the encounter no longer exists on the server",
};

/**
 * A message whole: what its batch says for it (batch_head: an event's `ts`, the `cursor` of a
 * message without a position of its own), the connection's `encounter`, an ack's defaults
 * (`result` {}, `duplicate` false) put back where it leaves them out, and a summary said by its
 * text alone (lean_events) as the object `{text}`.
 * @param {object} m a message, of a batch or alone
 * @param {{ts?: number, cursor?: string}} frame its batch (or the message itself)
 * @param {string | null | undefined} encounter the connection's (its welcome's)
 * @returns {object}
 */
export function wholeMessage(m, frame, encounter) {
  const inBatch = frame !== m;
  const enc = encounter != null && m.encounter === undefined && HEADED.has(m.type);
  const ts = inBatch && frame.ts !== undefined && m.ts === undefined && m.type === "event";
  const cursor = inBatch && frame.cursor !== undefined && m.cursor === undefined && m.seq === undefined &&
    (HEADED.has(m.type) || m.type === "ack");
  const defaults = m.type === "ack" && (m.result === undefined || m.duplicate === undefined);
  const text = m.type === "event" && typeof m.summary === "string"; // lean_events: its text alone
  if (!enc && !ts && !cursor && !defaults && !text) return m;
  const whole = defaults ? { result: {}, duplicate: false, ...m } : { ...m };
  if (text) whole.summary = { text: m.summary };
  if (enc) whole.encounter = encounter;
  if (ts) whole.ts = frame.ts;
  if (cursor) whole.cursor = frame.cursor;
  return whole;
}

/**
 * The messages of a websocket message, each whole (`wholeMessage`).
 * @param {{type: string, messages?: object[], ts?: number, cursor?: string}} frame
 * @param {string | null} [encounter] the connection's (its welcome's)
 * @returns {object[]}
 */
export function unbatch(frame, encounter = null) {
  return frame.type === "batch" ? frame.messages.map((m) => wholeMessage(m, frame, encounter))
    : [wholeMessage(frame, frame, encounter)];
}

/** The messages whose `encounter` (and `cursor`) a batch may say for them (batch_head). */
const HEADED = new Set(["event", "view", "legal_actions", "legal_actions_delta"]);

/** The commands of a turn: they carry the turn_id last seen as expect_turn. */
const TURN_COMMANDS = new Set(["act", "submit_roll", "server_roll"]);

/** Error codes after which a command is sent again with the same id, after a pause. */
const RETRIED = new Set(["rate_limited", "unavailable", "internal_error"]);

/** A command refused by the server (`code`, `details` as its error says), or not answered
 *  because the client closed (`code` "closed"). */
export class CommandError extends Error {
  constructor(reply) {
    super(`${reply.code}: ${reply.message}`);
    this.name = "CommandError";
    this.code = reply.code;
    this.details = reply.details ?? null;
    this.id = reply.id ?? null;
    this.reply = reply;
  }
}

const clone = (v) => JSON.parse(JSON.stringify(v));

function decode(data) {
  if (typeof data === "string") return data;
  return new TextDecoder().decode(data instanceof ArrayBuffer ? new Uint8Array(data) : data);
}

function pickWebSocket(given) {
  const ws = given || globalThis.WebSocket;
  if (!ws) throw new TypeError("no WebSocket: pass one (in Node: the `ws` package's WebSocket, or the global of Node 22+)");
  return ws;
}

/** The HTTP base of a websocket URL: ws://host:port/ws -> http://host:port */
export function httpBase(url) {
  const u = new URL(url);
  u.protocol = u.protocol === "wss:" ? "https:" : "http:";
  u.pathname = u.pathname.replace(/\/ws\/?$/, "") || "/";
  u.search = "";
  u.hash = "";
  return u.toString().replace(/\/$/, "");
}

export class Client extends Emitter {
  /**
   * @param {object} options
   * @param {string} options.url the server's websocket URL (`ws://127.0.0.1:8765/ws`)
   * @param {string} [options.token] the credential said in hello
   * @param {string} [options.spectate] a spectator token, sent in the URL instead (the server
   *   says hello for it)
   * @param {Function} [options.WebSocket] a WebSocket class (default: the global one)
   * @param {string[]} [options.features] asked for in hello (default DEFAULT_FEATURES; names
   *   the server does not know are ignored, `welcome.features` lists those granted)
   * @param {string} [options.client] the client software's name, said in hello
   * @param {number} [options.backoff] the first reconnect delay in ms (250)
   * @param {number} [options.maxBackoff] the longest (5000)
   * @param {number} [options.retries] resends of a command refused as rate_limited,
   *   unavailable or internal_error (5)
   * @param {Function} [options.fetch] for argsSchema (default: the global fetch)
   * @param {{speed?: number, from_round?: number, max_pause?: number}} [options.replay] watch
   *   the encounter played back instead (`hello.replay`): a snapshot as of that round, the
   *   events at `speed` times their pace, then a `replay_ended` event; a reconnect plays it
   *   again from the start, and commands but `ping` are refused
   */
  constructor({ url, token, spectate, WebSocket, features = DEFAULT_FEATURES, client = "stablemaster-client/0.1",
    backoff = 250, maxBackoff = 5000, retries = 5, fetch, replay } = {}) {
    super();
    if (!url) throw new TypeError("url is required");
    this.url = url;
    this.token = token ?? null;
    this.spectate = spectate ?? null;
    /** A replay's options (`hello.replay`), or null for the live encounter. */
    this.replay = replay ?? null;
    this.features = [...features];
    this.clientName = client;
    this.initialBackoff = backoff;
    this.maxBackoff = maxBackoff;
    /** The next reconnect's delay (before jitter), in ms. */
    this.backoff = backoff;
    this.retries = retries;
    this._WebSocket = pickWebSocket(WebSocket);
    this._fetch = fetch || globalThis.fetch?.bind(globalThis);
    /** "idle", "connecting", "live", "offline" or "closed". */
    this.status = "idle";
    /** The current websocket (null while there is none). */
    this.socket = null;
    /** The last welcome. */
    this.welcome = null;
    /** The state this viewer may see, with the `view` feature: null before the first snapshot. */
    this.state = null;
    /** The last snapshot message. */
    this.snapshotMessage = null;
    /** A campaign link's: the last `campaign` message (its view of the campaign), or null. */
    this.campaign = null;
    /** The legal actions held (each with `action`, `combatant`, `label`, `targets`, `args_schema`...). */
    this.legal = [];
    /** `legal_actions.turn_id`: sent as expect_turn with the commands of a turn. */
    this.turnId = null;
    /** The last cursor given (event, snapshot, view, legal actions, ack): the resume position. */
    this.cursor = null;
    /** Without the `cursor` feature: the last seq and digest applied. */
    this.seq = null;
    this.digest = null;
    /** Patches that did not apply, and legal deltas that did not (each answered by a fresh full copy). */
    this.viewMismatches = 0;
    this.deltaMismatches = 0;
    this._legalAt = null;
    /** legal_recall: what the connection recalls of each combatant's entries. */
    this._recall = new Map();
    this._prefix = idPrefix();
    this._counter = 0;
    this._pending = new Map(); // id -> {message, resolve, reject, tries, settle?}
    this._stopped = false;
    this._fresh = false; // the next hello without a position: a fresh snapshot
    this._live = false;
    this._timer = null;
    this._schemas = new Map();
    this._snapshotAsked = false;
    this._legalAsked = false;
    this._connected = null;
  }

  /** Open the connection; resolves with the first welcome, rejects when the server refuses
   *  the hello or the connection closes for good before it. */
  connect() {
    if (!this._connected) {
      this._connected = new Promise((resolve, reject) => { this._onWelcome = resolve; this._onRefused = reject; });
      this._connected.catch(() => {}); // (who awaits connect() is told; nobody else need be)
      this._open();
    }
    return this._connected;
  }

  /** Stop for good: close the websocket, reject the commands still waiting. */
  close() {
    this._stop("closed by the client");
  }

  /** Drop the connection and come back with a fresh snapshot (hello without a position). */
  resync() {
    this._fresh = true;
    if (this.socket) this.socket.close();
  }

  get live() {
    return this._live;
  }

  /** Whether the server granted a feature (in the last welcome). */
  granted(feature) {
    return !!this.welcome && (this.welcome.features || []).includes(feature);
  }

  // --- the connection ---------------------------------------------------------------------

  _socketUrl() {
    if (!this.spectate) return this.url;
    const u = new URL(this.url);
    u.searchParams.set("spectate", this.spectate);
    if (this.features.length) u.searchParams.set("features", this.features.join(","));
    if (this.replay) {
      u.searchParams.set("replay", String(this.replay.speed ?? 1));
      if (this.replay.from_round) u.searchParams.set("from_round", String(this.replay.from_round));
    }
    const at = this._position();
    if (at.cursor) u.searchParams.set("cursor", at.cursor);
    else if (at.since !== undefined) {
      u.searchParams.set("since", String(at.since));
      if (at.digest) u.searchParams.set("digest", at.digest);
    }
    return u.toString();
  }

  /** Where to resume from: the last cursor, else the last seq and digest; nothing for a fresh start. */
  _position() {
    if (this._fresh || this.replay) return {}; // (a replay starts from its round, always)
    if (this.cursor) return { cursor: this.cursor };
    if (this.seq !== null) return this.digest ? { since: this.seq, digest: this.digest } : { since: this.seq };
    return {};
  }

  _hello() {
    const hello = { type: "hello", versions: PROTOCOL_VERSIONS, client: this.clientName };
    if (this.token) hello.token = this.token;
    if (this.features.length) hello.features = this.features;
    if (this.replay) hello.replay = this.replay;
    return { ...hello, ...this._position() };
  }

  _status(status, detail = {}) {
    this.status = status;
    this.emit("status", status, detail);
  }

  _open() {
    if (this._stopped) return;
    this._timer = null;
    this._status("connecting");
    let ws;
    try {
      ws = new this._WebSocket(this._socketUrl());
    } catch (err) {
      this._reconnect({ code: 1006, reason: String(err && err.message) });
      return;
    }
    this.socket = ws;
    this._helloSent = null;
    ws.onopen = () => {
      if (this.socket !== ws || this.spectate) return; // the server says hello for a spectator link
      this._helloSent = this._hello();
      ws.send(JSON.stringify(this._helloSent));
    };
    ws.onmessage = (m) => {
      if (this.socket !== ws) return;
      const frame = JSON.parse(decode(m.data));
      for (const m of frame.type === "batch" ? frame.messages : [frame]) {
        this._receive(wholeMessage(m, frame, this.welcome?.encounter)); // (the welcome may come first in it)
      }
      this.emit("frame", frame);
    };
    ws.onerror = () => {}; // a close follows
    ws.onclose = (e) => {
      if (this.socket !== ws) return;
      this.socket = null;
      this._live = false;
      if (this._stopped) return;
      const final = FINAL_CLOSE_CODES[e.code];
      if (final) { this._stop(final, e.code); return; }
      this._reconnect({ code: e.code, reason: e.reason });
    };
  }

  _reconnect(detail) {
    const wait = Math.min(this.backoff, this.maxBackoff) * (0.75 + Math.random() / 2);
    this.backoff = Math.min(this.backoff * 2, this.maxBackoff);
    this._status("offline", { ...detail, retryIn: wait });
    this._timer = setTimeout(() => this._open(), wait);
  }

  _stop(reason, code = null, cause = null) {
    if (this._stopped) return;
    this._stopped = true;
    this._live = false;
    clearTimeout(this._timer);
    const ws = this.socket;
    this.socket = null;
    if (ws && ws.readyState <= 1) ws.close();
    const error = new CommandError({ code: "closed", message: reason, details: code === null ? null : { close_code: code } });
    for (const p of this._pending.values()) { clearTimeout(p.timer); p.reject(error); }
    this._pending.clear();
    if (this._onRefused) { this._onRefused(cause || error); this._onWelcome = this._onRefused = null; }
    this._status("closed", { reason, code });
  }

  _send(message) {
    const ws = this.socket;
    if (!this._live || !ws || ws.readyState !== 1) return false;
    ws.send(JSON.stringify(message));
    return true;
  }

  // --- what the server sends --------------------------------------------------------------

  _receive(msg) {
    if (typeof msg.cursor === "string") this.cursor = msg.cursor;
    const kind = msg.type;
    if ((kind === "ack" || kind === "error") && msg.id && this._pending.has(msg.id)) {
      this._answer(msg);
      this.emit("message", msg);
      return;
    }
    switch (kind) {
      case "welcome":
        this.welcome = msg;
        this._live = true;
        this._fresh = false;
        this.backoff = this.initialBackoff;
        this._snapshotAsked = this._legalAsked = false;
        this._status("live", { session: msg.session });
        this.emit("welcome", msg);
        if (this._onWelcome) { this._onWelcome(msg); this._onWelcome = this._onRefused = null; }
        for (const p of this._pending.values()) if (!p.timer) this._send(p.message); // the same ids
        break;
      case "snapshot":
        this.snapshotMessage = msg;
        this.state = clone(msg.state);
        if (msg.seq !== undefined) { this.seq = msg.seq; this.digest = msg.digest ?? null; }
        this._snapshotAsked = false;
        this.emit("snapshot", msg);
        this.emit("state", this.state, msg);
        break;
      case "view":
        if (this.state === null) { this._askSnapshot(); break; }
        try {
          applyPatch(this.state, msg.patch);
        } catch {
          this.viewMismatches += 1;
          this._askSnapshot(); // not the state the server patched: start again from one
          break;
        }
        if (msg.seq !== undefined) this.seq = msg.seq;
        this.emit("state", this.state, msg);
        break;
      case "event":
        if (msg.seq !== undefined && (this.seq === null || msg.seq > this.seq)) { this.seq = msg.seq; this.digest = msg.digest ?? null; }
        this.emit("event", msg);
        if (msg.event && msg.event.kind === "roll_requested") this.emit("roll", msg.event, msg);
        break;
      case "legal_actions":
        this._recall = new Map(); // (a full list recalls nothing)
        this._legal(msg.actions, msg);
        break;
      case "legal_actions_delta": {
        // (with legal_recall a delta names no base: it applies to the list last received)
        const base = "base_cursor" in msg ? msg.base_cursor : "base" in msg ? msg.base : this._legalAt;
        const actions = base === this._legalAt ? applyLegalDelta(this.legal, msg.actions, this._recall) : null;
        if (actions === null) { this.deltaMismatches += 1; this._askLegal(); break; }
        this._recall = recallAfter(this.legal, actions, this._recall);
        this._legal(actions, msg);
        break;
      }
      case "history":
        this._history = msg;
        this.emit("history", msg);
        break;
      case "goodbye":
        this.emit("goodbye", msg);
        break;
      case "replay_ended":
        this.emit("replay_ended", msg);
        break;
      case "campaign": // a campaign link's view of its campaign (R113)
        this.campaign = msg;
        this.emit("campaign", msg);
        break;
      case "moved":
        // a campaign link whose character went into another encounter: the server closes
        // (4004) and the client comes back with the same link, fresh, in that encounter
        this._fresh = true;
        this.cursor = null;
        this.seq = this.digest = null;
        this.emit("moved", msg);
        break;
      case "error":
        if (!this._live) {
          const position = this.spectate ? !this._fresh && !!(this.cursor || this.seq !== null) : !!(this._helloSent && (this._helloSent.cursor || this._helloSent.since !== undefined));
          if (msg.code === "invalid_payload" && position) {
            // a position this server does not take: start again from a snapshot
            this._fresh = true;
            if (this.spectate) this.socket.close(); // the link again, without it
            else {
              this._helloSent = this._hello();
              this.socket.send(JSON.stringify(this._helloSent));
            }
          } else {
            // hello refused: do not hammer the server with it
            const refused = new CommandError(msg);
            this.emit("error", refused);
            this._stop(`${msg.code}: ${msg.message}`, null, refused);
          }
        } else this.emit("error", new CommandError(msg));
        break;
      default:
        break;
    }
    this.emit("message", msg);
  }

  _legal(actions, msg) {
    this.legal = actions;
    this.turnId = msg.turn_id ?? null;
    this._legalAt = msg.cursor ?? msg.seq ?? null;
    this._legalAsked = false;
    this.emit("legal", this.legal, msg);
  }

  _askSnapshot() {
    if (this._snapshotAsked) return;
    this._snapshotAsked = true;
    this.command("get_snapshot").catch(() => {});
  }

  _askLegal() {
    if (this._legalAsked) return;
    this._legalAsked = true;
    this.command("get_legal_actions").catch(() => {});
  }

  _answer(msg) {
    const p = this._pending.get(msg.id);
    if (msg.type === "error" && RETRIED.has(msg.code) && p.tries < this.retries) {
      p.tries += 1;
      // the same id again, after a pause: a retry of a command that went through answers with its outcome
      p.timer = setTimeout(() => { p.timer = null; this._send(p.message); }, 250 * 2 ** p.tries);
      return;
    }
    this._pending.delete(msg.id);
    if (msg.type === "ack") p.resolve(p.settle ? p.settle(msg) : msg);
    else p.reject(new CommandError(msg));
  }

  // --- commands ---------------------------------------------------------------------------

  /**
   * Send a command; resolves with its ack, rejects with a CommandError (its `code` and
   * `details`). Each gets a fresh id; after a reconnect it is sent again with the same id.
   * `act`, `submit_roll` and `server_roll` carry the turn_id last seen as `expect_turn`
   * (`options.expectTurn`: another one, or null for none).
   * @param {string} type
   * @param {object} [fields]
   * @param {{expectTurn?: string | null}} [options]
   */
  command(type, fields = {}, options = {}) {
    return this._command(type, fields, options, null);
  }

  _command(type, fields, { expectTurn } = {}, settle) {
    if (this._stopped) return Promise.reject(new CommandError({ code: "closed", message: "the client is closed" }));
    const id = type === "create_encounter" || type === "create_campaign" ? uuid() : `${this._prefix}-${++this._counter}`;
    const message = { type, id, ...fields };
    if (TURN_COMMANDS.has(type) && !("expect_turn" in fields)) {
      const turn = expectTurn === undefined ? this.turnId : expectTurn;
      if (turn) message.expect_turn = turn;
    }
    return new Promise((resolve, reject) => {
      this._pending.set(id, { message, resolve, reject, tries: 0, timer: null, settle });
      this._send(message);
    });
  }

  /** Commands sent whose answer has not come yet. */
  get unanswered() {
    return this._pending.size;
  }

  /**
   * Do what a legal_actions entry offers, with `args` (built from its `args_schema`): an
   * `act` for a combatant's action, else the command the schema names (`command.<type>`;
   * `args` are its fields, a roll request's `request` taken from the entry's targets).
   */
  perform(entry, args = {}, options = {}) {
    const schema = entry.args_schema || "";
    if (schema.startsWith("command.")) {
      const type = schema.slice("command.".length);
      const fields = { ...args };
      if ((type === "submit_roll" || type === "server_roll") && fields.request === undefined && entry.targets) fields.request = entry.targets[0];
      return this.command(type, fields, options);
    }
    return this.act(entry.combatant, entry.action, args, options);
  }

  /** `act`: an action of a combatant, with its arguments (the target among them). */
  act(combatant, action, args = {}, options = {}) {
    return this.command("act", { combatant, action, args }, options);
  }

  /** Answer a roll request with the faces of physical dice, in the order of its dice. */
  submitRoll(request, faces, options = {}) {
    return this.command("submit_roll", { request, faces }, options);
  }

  /** Let the server roll a request after all. */
  serverRoll(request, options = {}) {
    return this.command("server_roll", { request }, options);
  }

  /** A fresh snapshot (reason `asked`); resolves with the snapshot message. */
  getSnapshot() {
    return this._command("get_snapshot", {}, {}, () => this.snapshotMessage);
  }

  /**
   * `get_reach` (ruling R106): where `combatant` can go now with `action` (`move` or `run`;
   * `fly`: a flying move). Resolves with the ack's result: `from`, `budget` and `squares`,
   * each `{at, cost, path}` (`pathTo(reach, [x, y])` is the path `act` takes to a square).
   */
  getReach(combatant, { action = "move", fly = false } = {}) {
    return this._command("get_reach", { combatant, action, fly }, {}, (ack) => ack.result);
  }

  /**
   * `get_aim` (ruling R107): what the map says of each target of `action` by `combatant` now,
   * with `args` its other arguments (a weapon...). Resolves with the ack's result: `targets`,
   * each `{target, ok, ...}` (`aimTargets(aim)` splits them, with why each refused one is).
   */
  getAim(combatant, action, args = {}) {
    return this._command("get_aim", { combatant, action, args }, {}, (ack) => ack.result);
  }

  /**
   * A page of history: the events this viewer may see before `before` (a cursor or seq; none:
   * up to now), at most `limit`, oldest first. Resolves with `{events, before}`: ask again
   * with that `before` for the page before it (`null`: nothing older).
   */
  history({ before = null, limit = 100 } = {}) {
    const fields = { limit };
    if (before !== null && before !== undefined) fields.before = before;
    return this._command("get_history", fields, {}, () => {
      const h = this._history;
      return { events: h ? h.events : [], before: h ? h.before : null };
    });
  }

  /** Every page of history, newest page first, until there is nothing older. */
  async *historyPages({ limit = 100, before = null } = {}) {
    let at = before;
    for (;;) {
      const page = await this.history({ before: at, limit });
      yield page;
      if (page.before === null || page.before === undefined || !page.events.length) return;
      at = page.before;
    }
  }

  // --- what the connection may do ---------------------------------------------------------

  /** The legal actions of one combatant (null: the GM's own). */
  actionsFor(combatant) {
    return this.legal.filter((a) => (a.combatant ?? null) === combatant);
  }

  /**
   * The roll requests this connection may answer: one per `submit_roll` entry of its legal
   * actions, with what the state says of it (`expr`, `dice`, `purpose`) when it holds one.
   */
  get rollRequests() {
    const pending = new Map(((this.state && this.state.pending_rolls) || []).map((p) => [p.request, p]));
    return this.legal.filter((a) => a.action === "submit_roll").map((a) => {
      const request = (a.targets || [])[0];
      return { ...(pending.get(request) || {}), request, combatant: a.combatant ?? null, label: a.label, entry: a };
    });
  }

  /**
   * The JSON Schema of an entry's arguments (`args_schema`), fetched once from the server
   * (`/schemas/args/<id>.json`).
   * @param {string | {args_schema: string}} entryOrId
   */
  argsSchema(entryOrId) {
    const id = typeof entryOrId === "string" ? entryOrId : entryOrId.args_schema;
    if (!this._schemas.has(id)) {
      if (!this._fetch) return Promise.reject(new TypeError("no fetch: pass one"));
      const got = this._fetch(`${httpBase(this.url)}/schemas/args/${encodeURIComponent(id)}.json`).then((r) => {
        if (!r.ok) throw new Error(`schema ${id}: HTTP ${r.status}`);
        return r.json();
      });
      got.catch(() => this._schemas.delete(id));
      this._schemas.set(id, got);
    }
    return this._schemas.get(id);
  }

  /** Resolves once `predicate(client)` holds, checked now, after every message and every
   *  change of status; rejects when the client closes first, or after `timeout` ms. */
  waitFor(predicate, { timeout = 10000 } = {}) {
    return new Promise((resolve, reject) => {
      if (predicate(this)) { resolve(this); return; }
      const done = (fn, v) => { off(); offClosed(); clearTimeout(timer); fn(v); };
      const off = this.on("message", () => { if (predicate(this)) done(resolve, this); });
      const offClosed = this.on("status", (s, d) => {
        if (predicate(this)) done(resolve, this);
        else if (s === "closed") done(reject, new CommandError({ code: "closed", message: d.reason }));
      });
      const timer = setTimeout(() => done(reject, new Error(`waitFor: not within ${timeout} ms`)), timeout);
    });
  }

  /**
   * Create an encounter on a connection without a token, and close it. Resolves with the
   * ack's result (`encounter`, `gm_token`, `token_id`, `role`).
   * @param {{url: string, WebSocket?: Function, client?: string}} connection
   * @param {object} fields create_encounter's fields (`name`, `ruleset`, `combatants`...)
   */
  /**
   * Found a campaign on a connection without a token, and close it. Resolves with the ack's
   * result: `campaign`, `gm_token` (the campaign's GM link), `recovery_secret` (shown once).
   */
  static async createCampaign({ url, WebSocket, client }, fields) {
    const c = new Client({ url, WebSocket, client, features: [] });
    try {
      await c.connect();
      return (await c.command("create_campaign", fields)).result;
    } finally {
      c.close();
    }
  }

  static async createEncounter({ url, WebSocket, client }, fields) {
    const c = new Client({ url, WebSocket, client, features: [] });
    try {
      await c.connect();
      return (await c.command("create_encounter", fields)).result;
    } finally {
      c.close();
    }
  }
}
