// The pages' connection: the package's client (clients/js, stablemaster-client, served at
// /client/) with the pages' words for its statuses. The client does hello, reconnects with a
// backoff and resumes from the last cursor it was given (never a seq: the pages count nothing
// behind the GM's screen, so they send no `since`), sends a command still waiting for its
// answer again with the same id, folds the legal action deltas and keeps the state the
// server patches (the view feature); the pages are handed every server message but the
// answers of their commands, the legal actions always as a full list, each event with the
// server's words for it (the summaries feature).

import { Client, CommandError, DEFAULT_FEATURES } from "/client/index.js";

// Asked for in hello: one websocket message per command (a batch), legal actions as deltas,
// positions as opaque cursors, the state kept by the server (view) and each event in the
// server's words (summaries).
export const FEATURES = [...new Set([...DEFAULT_FEATURES, "summaries", "presence"])];

/** The events before those a page receives live fill its log: asked for once the page has its
 *  first snapshot and nothing in its log yet (opened, reloaded, or joining late). */
export const HISTORY_LINES = 200;

/** The last HISTORY_LINES events before now, as this credential received them: `{events,
 *  before}` (`before` asks for the page before it). */
export function readHistory(conn) {
  return conn.client.history({ limit: HISTORY_LINES });
}

const FINAL = {
  1002: "this server does not speak our protocol version",
  4001: "this link was revoked",
  4003: "this encounter no longer exists on the server",
};

function wsUrl() {
  const proto = location.protocol === "https:" ? "wss" : "ws";
  return `${proto}://${location.host}/ws`;
}

/** A refused command as the pages show it: the server's error ({code, message, details}). */
const answer = (err) => (err instanceof CommandError ? err.reply : err);

export class Connection {
  /**
   * @param {object} o
   * @param {string} [o.token] credential for hello
   * @param {string} [o.spectate] spectator token, sent in the URL
   * @param {(msg: object) => void} o.onMessage every server message but the answers of commands
   * @param {(state: string, detail: string) => void} o.onStatus "connecting", "live", "offline", "closed"
   * @param {{speed?: number, from_round?: number}} [o.replay] watch the encounter played back
   */
  constructor({ token, spectate, onMessage, onStatus, replay }) {
    const client = new Client({ url: wsUrl(), token, spectate, replay, features: FEATURES, client: "stablemaster-table/1" });
    this.client = client;
    client.on("status", (status, detail) => {
      if (status === "offline") onStatus("offline", `reconnecting in ${(detail.retryIn / 1000).toFixed(1)} s`);
      else if (status === "closed") onStatus("closed", FINAL[detail.code] || detail.reason || "");
      else if (status === "connecting" || status === "live") onStatus(status, "");
    });
    client.on("message", (msg) => {
      if (msg.type === "ack" || (msg.type === "error" && msg.id)) return; // a command's answer
      if (msg.type === "legal_actions" || msg.type === "legal_actions_delta") return; // below, folded
      if (msg.type === "view") return; // below, once applied
      onMessage(msg);
    });
    // a patch the client applied (one that did not apply brings a fresh snapshot instead)
    client.on("state", (_state, msg) => { if (msg.type === "view") onMessage(msg); });
    client.on("legal", (actions, msg) => onMessage({
      type: "legal_actions", encounter: msg.encounter, turn_id: msg.turn_id, cursor: msg.cursor, actions,
    }));
  }

  /** The state the server keeps for this connection (the snapshot's, every patch applied). */
  get state() {
    return this.client.state;
  }

  /** The next reconnect's delay (ms, before jitter). */
  get backoff() {
    return this.client.backoff;
  }

  set backoff(ms) {
    this.client.backoff = ms;
  }

  start() {
    this.client.connect().catch(() => {}); // a refused hello says so in the status
  }

  /** Send a command; resolves with its ack, rejects with its error ({code, message}). The
   *  pages send `expect_turn` themselves, with the commands of a turn. */
  command(type, fields = {}) {
    return this.client.command(type, fields, { expectTurn: fields.expect_turn ?? null }).catch((err) => { throw answer(err); });
  }

  /** Drop the connection and come back without a position, for a fresh snapshot. */
  resync() {
    this.client.resync();
  }

  stop() {
    this.client.close();
  }
}

/** A connection without a token: for create_encounter, create_campaign and
 *  recover_campaign. It does not reconnect: a drop fails what waits, and the page says to
 *  try again. */
export function anonymous() {
  const client = new Client({ url: wsUrl(), features: [], client: "stablemaster-table/1" });
  let why = "";
  client.on("status", (status, detail) => {
    if (status !== "offline") return;
    why = detail.reason ? `: ${detail.reason}` : "";
    client.close();
  });
  return client.connect().then(() => ({
    command(type, fields) {
      return client.command(type, fields).catch((err) => {
        throw err.code === "closed" ? { code: "closed", message: `the server closed the connection${why}; try again` } : answer(err);
      });
    },
    close() { client.close(); },
  }), () => Promise.reject({ code: "offline", message: "cannot reach the server" }));
}
