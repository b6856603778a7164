// The API of stablemaster-client. The protocol's messages are declared in
// client-messages.d.ts and server-messages.d.ts, generated from the published schemas.

import type {
  Ack,
  CampaignMessage,
  Error as ErrorMessage,
  EventMessage,
  Goodbye,
  History,
  LegalAction,
  LegalActions,
  LegalActionsDelta,
  Moved,
  ReplayEnded,
  Snapshot,
  SnapshotState,
  StablemasterServerMessagesProtocol1,
  View,
  Welcome,
} from "./server-messages.js";
import type { StablemasterClientMessagesProtocol1 } from "./client-messages.js";

export type * as ClientMessages from "./client-messages.js";
export type * as ServerMessages from "./server-messages.js";
export type { Ack, EventMessage, History, LegalAction, LegalActions, LegalActionsDelta, Snapshot, SnapshotState, View, Welcome };

/** Any message a client sends. */
export type ClientMessage = StablemasterClientMessagesProtocol1;
/** Any message the server sends (a batch is unwrapped before the client's listeners see it). */
export type ServerMessage = StablemasterServerMessagesProtocol1;
/** An `error` message. */
export type { ErrorMessage };

/** An event message as it comes: with the server's `summary` of it when the server sends one. */
export type EventMessageWithSummary = EventMessage & { summary?: unknown };

/** The protocol versions this package speaks. */
export const PROTOCOL_VERSIONS: number[];
/** `batch`, `legal_delta`, `cursor`, `view`, `summaries`, `legal_changed`, `batch_head`, `legal_recall`, `lean_events`. */
export const DEFAULT_FEATURES: string[];
/** The messages of a websocket message, each whole: an event's `ts` and the `cursor` of the
 *  messages without a position that a batch says, and the connection's `encounter`, put
 *  back in those that leave them out (`batch_head`). */
export function unbatch(frame: { type: string; messages?: object[]; ts?: number; cursor?: string }, encounter?: string | null): object[];
/** A message whole: what its batch (`frame`) says for it and the connection's `encounter`
 *  put back where it leaves them out. */
export function wholeMessage(m: object, frame: { ts?: number; cursor?: string }, encounter?: string | null): object;
/** The close codes after which the client does not reconnect (1002, 4001, 4003), and why. */
export const FINAL_CLOSE_CODES: Record<number, string>;

/** What the client needs of a WebSocket: the browser's, `ws`'s and Node's global one fit. */
export interface WebSocketLike {
  readonly readyState: number;
  send(data: string): void;
  close(code?: number, reason?: string): void;
  onopen: ((ev: any) => any) | null;
  onmessage: ((ev: { data: any }) => any) | null;
  onerror: ((ev: any) => any) | null;
  onclose: ((ev: { code: number; reason: string }) => any) | null;
}
export type WebSocketClass = new (url: string) => WebSocketLike;

export interface ClientOptions {
  /** The server's websocket URL (`ws://127.0.0.1:8765/ws`). */
  url: string;
  /** The credential said in `hello`. */
  token?: string;
  /** A spectator token, sent in the URL instead (the server says hello for it). */
  spectate?: string;
  /** Default: the global WebSocket. */
  WebSocket?: WebSocketClass;
  /** Asked for in hello (default DEFAULT_FEATURES: batch, legal_delta, cursor, view, summaries, legal_changed, batch_head, legal_recall, lean_events). */
  features?: string[];
  /** The client software's name, said in hello. */
  client?: string;
  /** The first reconnect delay, in ms (250); doubled after each failure. */
  backoff?: number;
  /** The longest reconnect delay, in ms (5000). */
  maxBackoff?: number;
  /** Resends (same id) of a command refused as `rate_limited`, `unavailable` or `internal_error` (5). */
  retries?: number;
  /** For argsSchema (default: the global fetch). */
  fetch?: (url: string) => Promise<{ ok: boolean; status: number; json(): Promise<any> }>;
  /** Watch the encounter played back instead (`hello.replay`): a snapshot as of `from_round`,
   *  the events at `speed` times their pace, then `replay_ended`; commands but `ping` are
   *  refused, and a reconnect plays it again from the start. */
  replay?: { speed?: number; from_round?: number; max_pause?: number };
}

export type Status = "idle" | "connecting" | "live" | "offline" | "closed";

export interface StatusDetail {
  session?: string;
  code?: number | null;
  reason?: string;
  /** offline: the delay before the next attempt, in ms. */
  retryIn?: number;
}

export interface CommandOptions {
  /** The turn the command is meant for (default for act, submit_roll, server_roll: the turn_id last seen); null: none. */
  expectTurn?: string | null;
}

/** A command refused by the server, or not answered because the client closed (`code` "closed"). */
export class CommandError extends Error {
  constructor(reply: { code: string; message: string; details?: unknown; id?: string | null });
  code: string;
  details: any;
  id: string | null;
  reply: { code: string; message: string; details?: unknown; id?: string | null };
}

export interface RollRequest {
  /** The request id `submit_roll` answers. */
  request: string;
  combatant: string | null;
  label?: string | null;
  /** From the state's pending_rolls, when the state holds the request. */
  expr?: string;
  dice?: number[];
  purpose?: string;
  entry: LegalAction;
}

export interface HistoryPage {
  events: EventMessage[];
  /** Ask again with it for the page before this one; null: nothing older. */
  before: number | string | null;
}

export interface ClientEvents {
  status: (status: Status, detail: StatusDetail) => void;
  welcome: (welcome: Welcome) => void;
  snapshot: (snapshot: Snapshot) => void;
  state: (state: SnapshotState, message: Snapshot | View) => void;
  event: (message: EventMessageWithSummary) => void;
  roll: (event: Extract<EventMessage["event"], { kind: "roll_requested" }>, message: EventMessage) => void;
  legal: (actions: LegalAction[], message: LegalActions | LegalActionsDelta) => void;
  history: (history: History) => void;
  goodbye: (goodbye: Goodbye) => void;
  replay_ended: (ended: ReplayEnded) => void;
  /** A campaign link's view of its campaign (outside encounters, and the GM's always). */
  campaign: (campaign: CampaignMessage) => void;
  /** A campaign link's character went into another encounter: the client reconnects there
   *  by itself, fresh (a new welcome and snapshot follow). */
  moved: (moved: Moved) => void;
  error: (error: CommandError) => void;
  message: (message: ServerMessage) => void;
  frame: (frame: ServerMessage) => void;
}

export class Emitter<Events extends { [K in keyof Events]: (...args: any[]) => void } = { [name: string]: (...args: any[]) => void }> {
  on<K extends keyof Events & string>(name: K, fn: Events[K]): () => void;
  once<K extends keyof Events & string>(name: K, fn: Events[K]): () => void;
  off<K extends keyof Events & string>(name: K, fn: Events[K]): void;
  emit<K extends keyof Events & string>(name: K, ...args: Parameters<Events[K]>): void;
}

export class Client extends Emitter<ClientEvents> {
  constructor(options: ClientOptions);
  readonly url: string;
  readonly token: string | null;
  readonly spectate: string | null;
  readonly replay: { speed?: number; from_round?: number; max_pause?: number } | null;
  readonly features: string[];
  status: Status;
  /** The current websocket (null while there is none). */
  readonly socket: WebSocketLike | null;
  readonly welcome: Welcome | null;
  /** With the `view` feature: the state this viewer may see, kept in step by the server. Do not change it. */
  readonly state: SnapshotState | null;
  readonly snapshotMessage: Snapshot | null;
  /** A campaign link's: the last `campaign` message, or null. */
  readonly campaign: CampaignMessage | null;
  readonly legal: LegalAction[];
  readonly turnId: string | null;
  /** The last cursor given: where a reconnect resumes. */
  readonly cursor: string | null;
  readonly seq: number | null;
  readonly digest: string | null;
  /** The next reconnect's delay before jitter, in ms. */
  backoff: number;
  readonly viewMismatches: number;
  readonly deltaMismatches: number;
  readonly live: boolean;
  /** Commands sent whose answer has not come yet. */
  readonly unanswered: number;
  /** The roll requests this connection may answer (its `submit_roll` entries). */
  readonly rollRequests: RollRequest[];

  /** Open the connection; resolves with the first welcome. */
  connect(): Promise<Welcome>;
  /** Stop for good. */
  close(): void;
  /** Drop the connection and come back with a fresh snapshot. */
  resync(): void;
  granted(feature: string): boolean;

  command(type: string, fields?: Record<string, unknown>, options?: CommandOptions): Promise<Ack>;
  perform(entry: LegalAction, args?: Record<string, unknown>, options?: CommandOptions): Promise<Ack>;
  act(combatant: string, action: string, args?: Record<string, unknown>, options?: CommandOptions): Promise<Ack>;
  submitRoll(request: string, faces: number[], options?: CommandOptions): Promise<Ack>;
  serverRoll(request: string, options?: CommandOptions): Promise<Ack>;
  getSnapshot(): Promise<Snapshot>;
  history(options?: { before?: number | string | null; limit?: number }): Promise<HistoryPage>;
  historyPages(options?: { before?: number | string | null; limit?: number }): AsyncGenerator<HistoryPage, void, void>;

  actionsFor(combatant: string | null): LegalAction[];
  argsSchema(entryOrId: LegalAction | string): Promise<Record<string, any>>;
  waitFor(predicate: (client: Client) => boolean, options?: { timeout?: number }): Promise<Client>;

  /** Create an encounter on a connection without a token; the ack's result. */
  static createEncounter(
    connection: { url: string; WebSocket?: WebSocketClass; client?: string },
    fields: Record<string, unknown>,
  ): Promise<{ encounter: string; gm_token: string; token_id: string; role: "gm" }>;
  /** Found a campaign on a connection without a token; the ack's result (the recovery
   *  secret is shown there only). */
  static createCampaign(
    connection: { url: string; WebSocket?: WebSocketClass; client?: string },
    fields: { name: string; ruleset?: string; creator_secret?: string },
  ): Promise<{ campaign: string; gm_token: string; token_id: string; role: "gm"; page: string;
    recovery_secret: string }>;
}

/** The HTTP base of a websocket URL (ws://host:port/ws -> http://host:port). */
export function httpBase(url: string): string;

export interface PatchOperation {
  op: "add" | "remove" | "replace" | "move" | "copy" | "test";
  path: string;
  value?: unknown;
  from?: string;
}
export class PatchError extends Error {
  index: number;
  operation: PatchOperation | null;
}
/** Apply a JSON Patch (RFC 6902) in place; returns the document. */
export function applyPatch<T extends object>(doc: T, patch: PatchOperation[]): T;
export function parsePointer(pointer: string): string[];
/** The list a legal_actions_delta makes of the list held (and, with legal_recall, of what is
 *  recalled of each combatant), or null when it does not apply. */
export function applyLegalDelta(previous: LegalAction[], items: Array<LegalAction | [number, number] | [number, number, string]>,
  recall?: Map<string, LegalAction[]>): LegalAction[] | null;
/** What a connection with legal_recall recalls once a delta made `current` of `previous`. */
export function recallAfter(previous: LegalAction[], current: LegalAction[],
  recall: Map<string, LegalAction[]>): Map<string, LegalAction[]>;
/** A random UUID (v4). */
export function uuid(): string;
