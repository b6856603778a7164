// One credential's websocket to the server: hello, commands answered by ack or error, and
// reconnecting by itself. After a drop it reconnects with a backoff and says hello with
// `cursor` (the last cursor it was given), so it gets exactly the events it missed, or a
// snapshot when the server's log is no longer the one it saw; a command still waiting for its
// answer is sent again with the same id, so it happens once (its answer may wait: the ack of a
// command that hands the turn to someone behind the GM's screen comes with what follows).

/** A random UUID (v4); crypto.randomUUID needs a secure context, getRandomValues does not. */
export function uuid() {
  const b = crypto.getRandomValues(new Uint8Array(16));
  b[6] = (b[6] & 0x0f) | 0x40;
  b[8] = (b[8] & 0x3f) | 0x80;
  const h = [...b].map((x) => x.toString(16).padStart(2, "0")).join("");
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20)}`;
}

// Asked for in hello: one websocket message per command (a batch), legal actions as deltas,
// positions as opaque cursors (a seq would count the events behind the GM's screen), and the
// state kept by the server (view: a patch of it after each change).
export const FEATURES = ["batch", "legal_delta", "cursor", "view"];

/** The events before those a page receives live fill its log: asked for once the page has its
 *  first snapshot and nothing in its log yet (opened, reloaded, or joining late). */
export const HISTORY_LINES = 200;

const FINAL = {
  1002: "this server does not speak our protocol version",
  4001: "this link was revoked",
  4003: "this encounter no longer exists on the server",
};

export class Connection {
  /**
   * @param {object} o
   * @param {string} [o.token] credential for hello
   * @param {string} [o.spectate] spectator token, sent in the URL
   * @param {(msg: object) => void} o.onMessage every server message but acks and errors of commands
   * @param {(state: string, detail: string) => void} o.onStatus "connecting", "live", "offline", "closed"
   * @param {() => (string|null)} o.cursor the last cursor applied (null: none)
   */
  constructor({ token, spectate, onMessage, onStatus, cursor }) {
    this.token = token;
    this.spectate = spectate;
    this.onMessage = onMessage;
    this.onStatus = onStatus;
    this.cursor = cursor;
    this.pending = new Map(); // id -> {message, resolve, reject}
    this.prefix = Math.random().toString(36).slice(2, 10);
    this.counter = 0;
    this.backoff = 250;
    this.ws = null;
    this.live = false;
    this.stopped = false;
    this.fresh = false; // next hello without since: ask for a snapshot
  }

  url() {
    const proto = location.protocol === "https:" ? "wss" : "ws";
    const q = new URLSearchParams();
    if (this.spectate) {
      q.set("spectate", this.spectate);
      q.set("features", FEATURES.join(","));
      const cursor = this.cursor();
      if (cursor && !this.fresh) q.set("cursor", cursor);
    }
    const query = q.toString();
    return `${proto}://${location.host}/ws${query ? "?" + query : ""}`;
  }

  start() {
    if (this.stopped) return;
    this.onStatus("connecting", "");
    const ws = new WebSocket(this.url());
    this.ws = ws;
    ws.onopen = () => {
      if (this.spectate) return; // the server says hello for a spectator link
      const hello = { type: "hello", versions: [1], token: this.token, client: "stablemaster-table/1", features: FEATURES };
      const cursor = this.cursor();
      if (cursor && !this.fresh) hello.cursor = cursor;
      ws.send(JSON.stringify(hello));
    };
    ws.onmessage = (m) => {
      const msg = JSON.parse(m.data);
      if (msg.type !== "batch") { this.receive(msg); return; }
      for (const inner of msg.messages) this.receive(inner);
    };
    ws.onclose = (e) => {
      if (this.ws !== ws) return;
      this.live = false;
      if (this.stopped) return;
      if (FINAL[e.code]) {
        this.stopped = true;
        this.onStatus("closed", FINAL[e.code]);
        return;
      }
      const wait = Math.min(this.backoff, 5000) * (0.75 + Math.random() / 2);
      this.backoff = Math.min(this.backoff * 2, 5000);
      this.onStatus("offline", `reconnecting in ${(wait / 1000).toFixed(1)} s`);
      setTimeout(() => this.start(), wait);
    };
  }

  receive(msg) {
    if ((msg.type === "ack" || msg.type === "error") && msg.id && this.pending.has(msg.id)) {
      const p = this.pending.get(msg.id);
      this.pending.delete(msg.id);
      if (msg.type === "ack") p.resolve(msg); else p.reject(msg);
      return;
    }
    if (msg.type === "welcome") {
      this.live = true;
      this.fresh = false;
      this.backoff = 250;
      this.onStatus("live", "");
      this.onMessage(msg);
      for (const p of this.pending.values()) this.ws.send(JSON.stringify(p.message)); // same ids
      return;
    }
    if (msg.type === "error" && !this.live) {
      // hello refused (unknown or revoked token): do not hammer the server with it
      this.stopped = true;
      this.onStatus("closed", `${msg.code}: ${msg.message}`);
      this.ws.close();
    }
    this.onMessage(msg);
  }

  /** Send a command; resolves with its ack, rejects with its error ({code, message}). */
  command(type, fields = {}) {
    const id = type === "create_encounter" ? uuid() : `${this.prefix}-${++this.counter}`;
    const message = { type, id, ...fields };
    return new Promise((resolve, reject) => {
      this.pending.set(id, { message, resolve, reject });
      if (this.live && this.ws.readyState === WebSocket.OPEN) this.ws.send(JSON.stringify(message));
    });
  }

  /** Drop the connection and come back without since, for a fresh snapshot. */
  resync() {
    this.fresh = true;
    if (this.ws) this.ws.close();
  }

  stop() {
    this.stopped = true;
    if (this.ws) this.ws.close();
  }
}

/** A connection without a token: for create_encounter. */
export function anonymous() {
  return new Promise((resolve, reject) => {
    const proto = location.protocol === "https:" ? "wss" : "ws";
    const ws = new WebSocket(`${proto}://${location.host}/ws`);
    const waiting = new Map();
    ws.onopen = () => ws.send(JSON.stringify({ type: "hello", versions: [1], client: "stablemaster-table/1" }));
    ws.onerror = () => reject({ code: "offline", message: "cannot reach the server" });
    // closed before an answer (the hello deadline, the server going away): say so
    ws.onclose = (ev) => {
      for (const [, rej] of waiting.values()) rej({ code: "closed", message: `the server closed the connection${ev.reason ? `: ${ev.reason}` : ""}; try again` });
      waiting.clear();
    };
    ws.onmessage = (m) => {
      const msg = JSON.parse(m.data);
      if (msg.type === "welcome") {
        resolve({
          command(type, fields) {
            const id = uuid();
            return new Promise((res, rej) => {
              waiting.set(id, [res, rej]);
              ws.send(JSON.stringify({ type, id, ...fields }));
            });
          },
          close() { ws.close(); },
        });
      } else if (msg.id && waiting.has(msg.id)) {
        const [res, rej] = waiting.get(msg.id);
        waiting.delete(msg.id);
        (msg.type === "ack" ? res : rej)(msg);
      }
    };
  });
}
