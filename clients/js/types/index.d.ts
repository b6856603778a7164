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
  Summary,
  View,
  Welcome,
} from "./server-messages.js";
import type { StablemasterClientMessagesProtocol1 } from "./client-messages.js";

export type * as ClientMessages from "./client-messages.js";
export type * as ServerMessages from "./server-messages.js";
export type { Ack, EventMessage, History, LegalAction, LegalActions, LegalActionsDelta, Snapshot, SnapshotState, Summary, View, Welcome };

/** Any message a client sends. */
export type ClientMessage = StablemasterClientMessagesProtocol1;
/** Any message the server sends (a batch is unwrapped before the client's listeners see it). */
export type ServerMessage = StablemasterServerMessagesProtocol1;
/** An `error` message. */
export type { ErrorMessage };

/** An event message as it comes: with the server's `summary` of it when the server sends one
 *  (a summary said by its text alone, with `lean_events`, is made the object `{text}`). */
export type EventMessageWithSummary = Omit<EventMessage, "summary"> & { summary?: Summary | null };

/** A square of the battle map, `[x, y]`. */
export type Square = [number, number];
/** A square a move can end on (`get_reach`): what it costs, and the cheapest path to it, which
 *  `act` takes as `args.path`. */
export interface ReachSquare {
  at: Square;
  /** The squares the move spends to get there. */
  cost: number;
  path: Square[];
}
/** The result of `get_reach` (ruling R106). */
export interface Reach {
  combatant: string;
  action: "move" | "run";
  fly: boolean;
  /** The square it stands on. */
  from: Square;
  /** The squares the move may spend. */
  budget: number;
  squares: ReachSquare[];
}
/** A target `act` would take the action at (`get_aim`): the map's facts, left out while
 *  either of them stands on no map. */
export interface AimOk {
  target: string;
  ok: true;
  /** In squares; null for a melee attack. */
  distance?: number | null;
  /** As the ruleset names it (Dramatic: `none`, `cover`, `improved`). */
  cover?: string;
  /** As the ruleset names it (Dramatic: `none`, `concealment`, `total`). */
  concealment?: string;
  into_melee?: boolean;
}
/** A target `act` would refuse the action at, for where they stand: `why` is the sentence it
 *  would answer (out of reach, no line of effect, beyond the weapon's range). */
export interface AimRefused {
  target: string;
  ok: false;
  why: string;
}
export type AimTarget = AimOk | AimRefused;
/** The result of `get_aim` (ruling R107): one entry per target the legal-action entry lists,
 *  in its order. */
export interface Aim {
  combatant: string;
  action: string;
  targets: AimTarget[];
}
/** The entry of a square in a `get_reach` result, or null when the move cannot end there. */
export function reachOf(reach: Reach, square: Square | readonly number[]): ReachSquare | null;
/** The cheapest path to a square, as `act` takes it (`args.path`), or null when the move
 *  cannot end there. */
export function pathTo(reach: Reach, square: Square | readonly number[]): Square[] | null;
/** The targets of a `get_aim` result split: those the action may be taken at, and the others
 *  with why; `why(target)` is the sentence of one refused (null otherwise). */
export function aimTargets(aim: Aim): { ok: AimOk[]; refused: AimRefused[]; why(target: string): string | null };

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

/** What the client needs of a WebSocket: the browser's (lib DOM), `ws`'s (`@types/ws`) and
 *  Node's global one fit as they are, under `--strict`, with no cast. The client sets the four
 *  handlers itself; their events are typed `any` here because each implementation declares its
 *  own event types (the client reads `data` of a message, `code` and `reason` of a close),
 *  and a handler property of a narrower event would not take theirs. */
export interface WebSocketLike {
  readonly readyState: number;
  send(data: string): void;
  close(code?: number, reason?: string): void;
  onopen: ((ev: any) => any) | null;
  onmessage: ((ev: any) => any) | null;
  onerror: ((ev: any) => any) | null;
  onclose: ((ev: any) => any) | null;
}
/** A WebSocket class: `ws`'s `WebSocket`, the browser's, Node 22's global one. */
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
  /** `get_reach`: where `combatant` can go now (the ack's result). */
  getReach(combatant: string, options?: { action?: "move" | "run"; fly?: boolean }): Promise<Reach>;
  /** `get_aim`: what the map says of each target of `action` by `combatant` now (the ack's result). */
  getAim(combatant: string, action: string, args?: Record<string, unknown>): Promise<Aim>;
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
