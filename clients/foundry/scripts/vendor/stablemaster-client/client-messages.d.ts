// Generated from docs/protocol/client-messages.schema.json by scripts/generate-types.mjs (npm run types); do not edit.
/**
 * Every message a client sends to the Stablemaster server, a JSON object tagged by `type`. The server refuses unknown fields (`invalid_payload`). Protocol version 1. Generated from the message classes by `python -m docgen`; do not edit.
 */
export type StablemasterClientMessagesProtocol1 =
  | Hello
  | Ping
  | GetLegalActions
  | GetSnapshot
  | GetHistory
  | GetReach
  | GetAim
  | Undo
  | RequestUndo
  | RefuseUndo
  | CreateEncounter
  | AddCombatant
  | RemoveCombatant
  | SetHidden
  | SetOptions
  | IssueInvite
  | IssueSpectatorLink
  | IssueIntegrationToken
  | RevokeToken
  | StartEncounter
  | SetAwareness
  | CallPerception
  | AddEffect
  | EndEffect
  | SetMap
  | PlaceCombatant
  | Fall
  | Collide
  | LoadObject
  | SizeArgument
  | SetAttitude
  | RuleDoubt
  | SetSocialEvent
  | SetSocialSituation
  | AdjustCombatant
  | Adjudicate
  | Act
  | SubmitRoll
  | ServerRoll
  | AddDiceEntropy
  | PauseTurnTimer
  | ResumeTurnTimer
  | EndEncounter
  | CreateCampaign
  | RecoverCampaign
  | GetCampaign
  | AddCharacter
  | AdjustCharacter
  | AdvanceClock
  | BeginEncounter;

/**
 * First message on a connection. `versions` lists the protocol versions the client
 * speaks. `token` authenticates (omit it only to call `create_encounter` at once: such a
 * connection that has created no encounter by the hello deadline is closed). `since` is
 * the last `seq` the client has seen: the server then sends exactly the events after it, or
 * a `snapshot` when it cannot; without `since` the client gets a `snapshot`. `digest`
 * is the `digest` of that event (or snapshot): when the log no longer holds it at that seq
 * (the server lost the end of the log and it has grown again since), the answer is a
 * `snapshot` with reason `rewound`.
 * `features` asks for optional behaviour of the connection (the `welcome` lists those
 * granted; names the server does not know are ignored): `batch`, one websocket message per
 * command per connection (a `batch` holding the events the command caused, the new legal
 * actions and the ack, in that order); `legal_delta`, the legal actions as a
 * `legal_actions_delta` against the connection's previous list (a full `legal_actions`
 * still comes after every snapshot, and on `get_legal_actions`); `cursor`, every
 * position (of an event, a snapshot, legal actions, an ack) as an opaque `cursor` instead
 * of a `seq` and `digest`, which count the events behind the GM's screen; `view`, the
 * state this viewer may see kept in step by the server: after the events of each change, a
 * `view` message patches the state the connection holds (the snapshot's `state`), so
 * the client never works a state out of events (`view` brings `batch` with it, so that
 * the events and the patch of one change arrive together); `summaries`, every `event`
 * message (live, replayed on resuming, in a `history`) with a `summary`: the event in
 * words for people, with its numbers itemised, made from the event as this viewer receives
 * it; `legal_changed` (protocol 1.11), legal actions only when this connection's actions
 * change, not when only the turn does (always after a snapshot, on a resume and on
 * `get_legal_actions`): its `expect_turn` is the `turn_id` of the last legal actions it
 * was sent, which the server holds for the current turn as long as it has sent it no other;
 * `batch_head` (protocol 1.11; brings `batch`), what the messages of a change would each
 * repeat said once: `encounter` left out (the connection's, as its `welcome` says), the
 * events' `ts` and the position the change brings the connection to said by their
 * `batch` (see `batch`); `legal_recall` (protocol 1.11; brings `legal_delta`), a
 * delta may name entries by reference to what the connection recalls of a combatant:
 * `[start, count, combatant]`, and names no base (see `legal_actions_delta`);
 * `lean_events` (protocol 1.11; only with `view` and `summaries`), events that say only
 * what the view and their summary do not: their kind, required fields and the ids of the
 * combatants they are about (the dice, roll requests and undo go whole).
 * Without them a connection gets one websocket message per server message, full lists
 * and seqs, and events without words.
 * `cursor` resumes from a cursor (the last one the connection was given, with or without
 * the `cursor` feature on the new connection), in place of `since` and `digest`.
 * `replay` makes the connection a replay of the encounter for this credential (running or
 * ended): a `snapshot` (reason `replay`) as of the round it starts from, then the events
 * after it as this credential received them live, at the pace they came (with `view`, the
 * patches too), and `replay_ended`; such a connection only watches (commands other than
 * `ping` are refused) and never joins the live encounter. Not with `since` or `cursor`.
 * A spectator may instead put its token in the URL: `/ws?spectate=<token>`, with
 * `&features=batch,legal_delta` for the features.
 */
export interface Hello {
  client?: string | null;
  cursor?: string | null;
  digest?: string | null;
  /**
   * @maxItems 16
   */
  features?:
    | []
    | [string]
    | [string, string]
    | [string, string, string]
    | [string, string, string, string]
    | [string, string, string, string, string]
    | [string, string, string, string, string, string]
    | [string, string, string, string, string, string, string]
    | [string, string, string, string, string, string, string, string]
    | [string, string, string, string, string, string, string, string, string]
    | [string, string, string, string, string, string, string, string, string, string]
    | [string, string, string, string, string, string, string, string, string, string, string]
    | [string, string, string, string, string, string, string, string, string, string, string, string]
    | [string, string, string, string, string, string, string, string, string, string, string, string, string]
    | [string, string, string, string, string, string, string, string, string, string, string, string, string, string]
    | [
        string,
        string,
        string,
        string,
        string,
        string,
        string,
        string,
        string,
        string,
        string,
        string,
        string,
        string,
        string
      ]
    | [
        string,
        string,
        string,
        string,
        string,
        string,
        string,
        string,
        string,
        string,
        string,
        string,
        string,
        string,
        string,
        string
      ];
  replay?: Replay | null;
  since?: number | null;
  token?: string | null;
  type: "hello";
  /**
   * @minItems 1
   * @maxItems 16
   */
  versions:
    | [number]
    | [number, number]
    | [number, number, number]
    | [number, number, number, number]
    | [number, number, number, number, number]
    | [number, number, number, number, number, number]
    | [number, number, number, number, number, number, number]
    | [number, number, number, number, number, number, number, number]
    | [number, number, number, number, number, number, number, number, number]
    | [number, number, number, number, number, number, number, number, number, number]
    | [number, number, number, number, number, number, number, number, number, number, number]
    | [number, number, number, number, number, number, number, number, number, number, number, number]
    | [number, number, number, number, number, number, number, number, number, number, number, number, number]
    | [number, number, number, number, number, number, number, number, number, number, number, number, number, number]
    | [
        number,
        number,
        number,
        number,
        number,
        number,
        number,
        number,
        number,
        number,
        number,
        number,
        number,
        number,
        number
      ]
    | [
        number,
        number,
        number,
        number,
        number,
        number,
        number,
        number,
        number,
        number,
        number,
        number,
        number,
        number,
        number,
        number
      ];
}
/**
 * A replay of the encounter (`hello.replay`): from the start of round `from_round` (0:
 * the whole story, from the encounter's creation), at `speed` times the pace it was played
 * at (a pause longer than `max_pause` seconds, once sped up, is cut to it).
 */
export interface Replay {
  from_round?: number;
  max_pause?: number;
  speed?: number;
}
/**
 * Answered by an `ack` (`seq: null`, empty `result`); measures round-trip time.
 * Allowed after a `hello` without a token.
 */
export interface Ping {
  expect_turn?: string | null;
  id: string;
  type: "ping";
}
/**
 * Send this connection's legal actions again, as a full `legal_actions` (before the
 * `ack`), whatever it got before: a client whose list went wrong (a
 * `legal_actions_delta` whose `base` is not the list it holds) starts again from it.
 */
export interface GetLegalActions {
  expect_turn?: string | null;
  id: string;
  type: "get_legal_actions";
}
/**
 * Send this connection's `snapshot` again (reason `asked`, before the `ack`): the
 * encounter as this viewer may see it now. With the `view` feature the patches that follow
 * apply to it.
 */
export interface GetSnapshot {
  expect_turn?: string | null;
  id: string;
  type: "get_snapshot";
}
/**
 * The events this viewer may see before `before` (a position it was given: an event's
 * `seq`, or with the `cursor` feature its `cursor`; none: everything it has been told
 * so far), at most `limit` of them, the latest ones: a `history` message (before the
 * `ack`) holding them as the `event` messages it received live, redacted alike. Page back
 * with the `before` of the answer.
 */
export interface GetHistory {
  before?: number | string | null;
  expect_turn?: string | null;
  id: string;
  limit?: number;
  type: "get_history";
}
/**
 * Where `combatant` can go now with `action` (`move`, or `run`; `fly`: a
 * flying move, R83), worked out by the rules that check the move (ruling R106): answered by
 * an `ack` whose `result` has `combatant`, `action`, `fly`, `from` (its square),
 * `budget` (the squares the move may spend) and `squares`, each square it can end on as
 * `{"at": [x, y], "cost": <squares spent>, "path": [[x, y], ...]}` with the cheapest path
 * to it, which `act` accepts as its `args.path`. Refused (`illegal_action`) unless the
 * action is among the connection's legal actions for the combatant now, and when it stands
 * on no map (or its ruleset keeps none, R103). Added in protocol 1.6.
 */
export interface GetReach {
  action?: "move" | "run";
  combatant: string;
  expect_turn?: string | null;
  fly?: boolean;
  id: string;
  type: "get_reach";
}
/**
 * What the battle map says of each target of `action` by `combatant` now, before it is
 * taken (ruling R107): answered by an `ack` whose `result` has `combatant`, `action`
 * and `targets`, one entry for each target its legal-action entry lists, in its order:
 * `{"target": <id>, "ok": true, "distance": <squares>, "cover": ..., "concealment": ...,
 * "into_melee": <bool>}` when `act` would take it at that target with `args` (the
 * action's other arguments: a weapon, `throw`), or `{"target": <id>, "ok": false, "why":
 * <the sentence act would answer>}` when it would refuse it for where they stand (out of
 * reach, no line of effect, beyond the weapon's range). `distance` is `null` for a melee
 * attack; every field but `target` and `ok` is left out while either of them stands on
 * no map. Refused (`illegal_action`) unless the action is among the connection's legal
 * actions for the combatant now and aims at a target by the map (Dramatic: `attack` and
 * `grab`); `invalid_payload` for `args` the action refuses. Added in protocol 1.7.
 */
export interface GetAim {
  action: string;
  args?: {};
  combatant: string;
  expect_turn?: string | null;
  id: string;
  type: "get_aim";
}
/**
 * Take back commands (the GM's; ruling R108): every command after `back_to` (a seq at
 * which a command ended; none: the last command, so that undo after undo goes back one
 * command at a time), or the one a player asked for (`request`, an `undo_requested`'s).
 * Appends `commands_undone`: the events taken back stay in the log, marked, and the
 * encounter is as it was at `back_to` but for the credentials and the server's dice,
 * which roll on (what is done again rolls again). Refused while a hidden combatant's turn
 * runs that the table has not been told of, back into one, back before the scene was
 * created, and after the encounter ended. Added in protocol 1.7.
 */
export interface Undo {
  back_to?: number | null;
  expect_turn?: string | null;
  id: string;
  reason?: string | null;
  request?: string | null;
  type: "undo";
}
/**
 * Ask the GM to take back `combatant`'s last action (a player's, for a combatant it
 * controls; ruling R108): only while that action is the encounter's last command. Appends
 * `undo_requested`, which the GM grants (`undo` with `request`) or refuses
 * (`refuse_undo`). Listed in `legal_actions` while it may be sent. Added in protocol
 * 1.7.
 */
export interface RequestUndo {
  combatant: string;
  expect_turn?: string | null;
  id: string;
  reason?: string | null;
  type: "request_undo";
}
/**
 * Refuse a player's request to undo (the GM's; ruling R108). Added in protocol 1.7.
 */
export interface RefuseUndo {
  expect_turn?: string | null;
  id: string;
  reason?: string | null;
  request: string;
  type: "refuse_undo";
}
/**
 * Create an encounter. The `ack` result holds `encounter` and `gm_token`. Because a
 * retry returns the same GM token, the `id` of this command must be at least 16 characters
 * (use a UUID). `creator_secret`: on a server that creates encounters only for holders of
 * a creator secret (its operator's choice), that secret; without it (or with another) the
 * create is refused with `unauthenticated` (`details.creator_secret`: `missing` or
 * `wrong`). Creates are counted per client address and per creator secret; past the
 * server's quota they get `quota_exceeded`.
 */
export interface CreateEncounter {
  /**
   * @maxItems 200
   */
  combatants?: StatBlock[];
  combatants_yaml?: string | null;
  creator_secret?: string | null;
  expect_turn?: string | null;
  id: string;
  map?: BattleMap | null;
  name: string;
  options?: EncounterOptions;
  /**
   * The ruleset: `dramatic` (MLP Dramatic Systems) or `action_time` (Action Time), or another ruleset the server registers (an unknown one is refused with `invalid_payload`, `details.allowed` listing the server's).
   */
  ruleset?: string;
  type: "create_encounter";
}
/**
 * A combatant as the GM writes it (JSON, or YAML in `create_encounter.combatants_yaml`).
 * `stats` holds the ruleset's statistics: for "MLP Dramatic Systems" abilities, skills,
 * defenses, fatigue points, weapons, damage reduction, feats...; for "Action Time" ability
 * dice such as `{"body": "d8", "mind": "d6"}`, Health, Defense, weapons and spells. Each
 * ruleset's stat block, every field with its description, unit, default and allowed values,
 * is `docs/protocol/stat-block.<ruleset>.schema.json` (for people: `docs/stat-blocks.md`).
 */
export interface StatBlock {
  /**
   * Aware of its opponents when the scene starts (AWARENESS AND SURPRISE; R42); an unaware combatant misses the surprise round ("MLP Dramatic Systems").
   */
  aware?: boolean;
  /**
   * The ids a virtual tabletop gives it, by a name of the integration's choosing (`{"foundry_actor": "Kx8eQmV3tLp2Wn9a", "foundry_token": ...}`; names in lower case, ids as the VTT writes them, at most 10): kept, and returned with the combatant to every viewer who sees it, so that a bridge needs no table of its own.
   */
  external_ids?: {
    [k: string]: string;
  };
  group?: string | null;
  /**
   * Hidden from players and spectators until the GM reveals it (`set_hidden`; R79).
   */
  hidden?: boolean;
  id?: string | null;
  /**
   * The Initiative modifier, added to the d20 ("MLP Dramatic Systems", INITIATIVE). Action Time rolls the Body die and ignores it.
   */
  initiative?: number;
  /**
   * `pc`, a player character (an invite lets a player control it), or `npc`, the GM's.
   */
  kind?: "npc" | "pc";
  /**
   * The combatant's name, as the table shows it.
   */
  name: string;
  position?: never[] | null;
  side?: string | null;
  /**
   * The ruleset's statistics: see `stat-block.dramatic.schema.json` and `stat-block.action_time.schema.json` beside this document.
   */
  stats?: {};
}
/**
 * A battle map of "MLP Dramatic Systems": a grid of squares of 1.5 m (SPEED). A square is
 * `[x, y]`, x from 0 to the right (east), y from 0 downwards (south), as the map is drawn;
 * square `[x, y]` spans grid point `[x, y]` to grid point `[x + 1, y + 1]`, so grid points
 * run from `[0, 0]` to `[width, height]`. Every layer but `width` and `height` may be left
 * out. Blocked squares and walls give total cover and block movement, line of sight and line
 * of effect; diagonal movement past the corner or end of either is refused (DIAGONAL
 * MOVEMENT). A combatant's `position` is the top-left square of its space (Large 2x2, Huge
 * 3x3, Gargantuan 4x4, Colossal 6x6; OCCUPIED SPACE, R63).
 */
export interface BattleMap {
  /**
   * Solid squares: walls, pillars, closed rock (total cover; no movement, no line of sight). A list of squares `[x, y]`.
   */
  blocked?: never[][];
  /**
   * Total concealment: total darkness, thick smoke (CONCEALMENT). A list of squares `[x, y]`.
   */
  darkness?: never[][];
  /**
   * Difficult terrain: rubble, mud, brush; entering a square costs double (DIFFICULT TERRAIN). A list of squares `[x, y]`.
   */
  difficult?: never[][];
  /**
   * Concealment: fog, smoke, dim light, foliage (CONCEALMENT). A list of squares `[x, y]`.
   */
  fog?: never[][];
  /**
   * Squares from north to south, 1 to 1000.
   */
  height: number;
  /**
   * Arrow slits, narrow apertures: improved cover (ruling R65). A list of squares `[x, y]`.
   */
  improved_cover?: never[][];
  /**
   * Low objects: crates, low walls, furniture: cover, except in the own space and adjacent squares; entering costs double (Low Objects and Cover). A list of squares `[x, y]`.
   */
  low?: never[][];
  /**
   * Pits: a creature entering one falls (ruling R66). A list of squares `[x, y]`.
   */
  pits?: never[][];
  /**
   * Thin walls along grid lines, each `[[x1, y1], [x2, y2]]` from grid point to grid point, horizontal or vertical, possibly longer than one square: the squares on either side are open floor, but nothing passes or sees across the wall. At most 20,000 squares' length of wall in all.
   */
  walls?: never[][];
  /**
   * Squares from west to east, 1 to 1000.
   */
  width: number;
}
/**
 * Per-encounter switches, set at creation and changed by the GM with `set_options`.
 *
 * - `manual_rolls`: the GM rolls physical dice for the GM's combatants; the encounter waits
 *   in a *rolling* state with a `roll_requested` event until the faces come in.
 * - `players_roll`: players roll physical dice for their own combatants.
 * - `npc_rolls_public`: players and spectators see the dice of NPC rolls (default: the GM
 *   rolls behind the screen; results that follow from them are public).
 * - `dice_seed`: roll every server die from this seed, so a scenario is reproducible (demos,
 *   tests). Leave unset in play.
 * - The other switches choose between readings of the rule text: see the rulings they name
 *   in docs/rulings.md (`surprise_when_none_aware` R1, `flat_footed_until_regular_turn`
 *   R2, `delay_keeps_flat_footed` R3, `reactions_while_flat_footed` R4,
 *   `ready_costs_standard_action` R8, `recover_in_scene` R18); resolving actions:
 *   `creatures_block_line_of_sight` R9, `prone_helpless_bonuses_stack` R10,
 *   `engage_adds_half_level` R12, `dr_respects_minimum_damage` R13,
 *   `zero_fp_threshold_inclusive`, `zero_fp_overflow_counts`, `zero_fp_single_action`
 *   R14, `condition_half_speed` R15, `prone_crawl_squares` R19,
 *   `squeeze_cost_multiplier` R20, `refined_garment_runs_triple` R21,
 *   `falling_acrobatics_dc`, `falling_acrobatics_reduction_m` R22,
 *   `ram_speed_from_distance`, `ram_needs_attack_roll` R23, `non_dexterous_penalty`
 *   R24, `end_of_scene_recovery` R50; social scenes: `dispute_ends_at_unfriendly` R26,
 *   `white_lie_statement` R28, `social_attack_skill` R76, `aura_gap_band`,
 *   `event_status_boost` R25;
 *   "Action Time": `die_ladder_overflow` R30, `heal_rolls_again`, `heal_self` R33,
 *   `opposed_tie_reroll` R38, `default_speed_yards` R60, `action_time_join_immediately`
 *   R32; hidden turns: `anonymous_hidden_turns`, `screen_count` R99; turn timers:
 *   `turn_seconds`, `turn_warning_seconds`, `turn_expiry` R102.
 */
export interface EncounterOptions {
  /**
   * R32: a newcomer rolls at once and acts this round if its place comes after the current turn (else it enters at the start of the next round).
   */
  action_time_join_immediately?: boolean;
  /**
   * R99: the table sees a turn of "someone behind the GM's screen" (`screen` in the order) every round, in which every hidden combatant takes its turn; set before `start_encounter`.
   */
  anonymous_hidden_turns?: boolean;
  /**
   * R25: the row of the harmony/discord table that the missing differences 11 to 14 (and -11 to -14) take: the lower (Small) or the upper (Medium).
   */
  aura_gap_band?: "lower" | "upper";
  /**
   * R15: a creature at step 3 or 4 of the condition track moves at half speed, as in Star Wars Saga Edition.
   */
  condition_half_speed?: boolean;
  /**
   * R9: a creature in the way blocks a shot (else it gives cover).
   */
  creatures_block_line_of_sight?: boolean;
  /**
   * R60: the Speed of a stat block without `speed`, in yards.
   */
  default_speed_yards?: number;
  /**
   * R3: a combatant that delays stays flat-footed until it acts (`false`: flat-footedness ends when its first regular turn comes up).
   */
  delay_keeps_flat_footed?: boolean;
  dice_seed?: number | null;
  /**
   * R30: upgrades beyond d20 and downgrades below d4 are lost (`clamp`), or each adds +1 (or -1) to the face (`modifier`; a face is at least 1).
   */
  die_ladder_overflow?: "clamp" | "modifier";
  /**
   * R26: a debate ends by itself when the attitude reaches unfriendly (`false`: the GM ends it with `end_encounter`).
   */
  dispute_ends_at_unfriendly?: boolean;
  /**
   * R13: a hit that damage reduction lowers below 1 still deals 1.
   */
  dr_respects_minimum_damage?: boolean;
  /**
   * R50: when the scene ends, everyone conscious improves a step on the condition track (`false`: the track is left as it is).
   */
  end_of_scene_recovery?: boolean;
  /**
   * R12: Engage damage adds one-half heroic level (`false`: Strength modifier + weapon damage only).
   */
  engage_adds_half_level?: boolean;
  /**
   * R25: the temporary Social Status an event attended gives.
   */
  event_status_boost?: number;
  /**
   * R22: the Acrobatics DC that reduces a fall (trained only).
   */
  falling_acrobatics_dc?: number;
  /**
   * R22: the meters of a fall that a successful Acrobatics check takes off.
   */
  falling_acrobatics_reduction_m?: number;
  /**
   * R2: aware combatants stay flat-footed through the surprise round until their first regular turn.
   */
  flat_footed_until_regular_turn?: boolean;
  /**
   * R33: a successful Heal rolls the Mind die again for the amount (else the test roll heals).
   */
  heal_rolls_again?: boolean;
  /**
   * R33: a combatant may Heal itself.
   */
  heal_self?: boolean;
  /**
   * The GM rolls physical dice for the NPCs (the GM's combatants): each roll waits for a `submit_roll` (`roll_requested`).
   */
  manual_rolls?: boolean;
  /**
   * R24: the non-dexterous malus of a grab by a creature without hands (`non_dexterous` stat blocks).
   */
  non_dexterous_penalty?: number;
  /**
   * Players and spectators see the dice of NPC rolls (else the GM rolls behind the screen; the results that follow from them are public).
   */
  npc_rolls_public?: boolean;
  /**
   * R38: a tie of an opposed test is always rolled again after the die-size comparison (else it goes to the defender).
   */
  opposed_tie_reroll?: boolean;
  /**
   * Players roll physical dice for their own characters: each roll waits for a `submit_roll` (`roll_requested`).
   */
  players_roll?: boolean;
  /**
   * R19: the squares a prone creature crawls with a move action.
   */
  prone_crawl_squares?: number;
  /**
   * R10: a melee attack on a target both helpless and prone gets +4 (else +2).
   */
  prone_helpless_bonuses_stack?: boolean;
  /**
   * R23: a ram needs a hit (`false`: it always connects).
   */
  ram_needs_attack_roll?: boolean;
  /**
   * R23: a ram's Speed is the distance moved this turn, in squares (the ram's `moved` argument; else the speed of the stat block).
   */
  ram_speed_from_distance?: boolean;
  /**
   * R4: flat-footed and unaware combatants may use reactions (`false`: no reactions either).
   */
  reactions_while_flat_footed?: boolean;
  /**
   * R8: readying also costs the standard action, whatever is readied.
   */
  ready_costs_standard_action?: boolean;
  /**
   * R18: Recover may be used in a dramatic scene.
   */
  recover_in_scene?: boolean;
  /**
   * R21: a Refined Garment runs at three times speed (else four times; an Exclusive Garderobe three).
   */
  refined_garment_runs_triple?: boolean;
  /**
   * The options of a ruleset the server registers beyond the two it ships, by name, as that ruleset declares them (an unknown name or a bad value is refused with `invalid_payload`); `{}` for `dramatic` and `action_time`, whose options are the fields of this object.
   */
  ruleset_options?: {};
  /**
   * R99: the initiative count the GM's screen acts on with `anonymous_hidden_turns` (after the combatants on the same count); changed during the scene, it moves the screen from the next round.
   */
  screen_count?: number;
  /**
   * R76: the skill of a social attack roll (any skill name of the stat blocks).
   */
  social_attack_skill?: string;
  /**
   * R20: what a square costs, times this, when squeezing through a space too narrow.
   */
  squeeze_cost_multiplier?: number;
  /**
   * R1: when nobody is aware, an empty surprise round is recorded and everyone starts flat- footed until its first regular turn.
   */
  surprise_when_none_aware?: boolean;
  /**
   * R102: what a turn timer running out does: `notify` (only `turn_timer_expired`), `end_turn` (the turn ends as if its combatant had ended it) or `delay` (its combatant delays, Dramatic only).
   */
  turn_expiry?: "delay" | "end_turn" | "notify";
  turn_seconds?: number | null;
  /**
   * R102: how many seconds before a turn timer runs out everyone is warned (`turn_timer_warned`); 0, or as many as `turn_seconds` or more: no warning.
   */
  turn_warning_seconds?: number;
  /**
   * R28: the statement a caught white lie leaves: one size smaller (`smaller`) or the lie's own size (`same`).
   */
  white_lie_statement?: "same" | "smaller";
  /**
   * R14: the excess of the hit that reaches 0 fatigue points counts as a loss at 0 (`false`: it is discarded).
   */
  zero_fp_overflow_counts?: boolean;
  /**
   * R14: a creature at 0 fatigue points takes a single action a turn (`false`: it acts normally and is only defenseless).
   */
  zero_fp_single_action?: boolean;
  /**
   * R14: the tiers of a loss at 0 fatigue points start at the threshold and at twice it (else above them).
   */
  zero_fp_threshold_inclusive?: boolean;
}
/**
 * Add a combatant (GM); once the scene has begun it rolls initiative and takes its place
 * in the existing order: in "MLP Dramatic Systems" at once, acting this round if its place
 * is still to come (JOINING A DRAMATIC SCENE, R43), in "Action Time" when the next round
 * starts (R32; at once with `action_time_join_immediately`). Its `stats` are those of
 * the encounter's ruleset. Result: `combatant` (its id).
 */
export interface AddCombatant {
  combatant: StatBlock;
  expect_turn?: string | null;
  id: string;
  type: "add_combatant";
}
/**
 * Remove a combatant from the encounter (GM). When it is the combatant's turn, that turn
 * ends first (and the next combatant's begins, if anyone is left). Its own pending rolls go
 * with it, and so do the statements it made or was told that wait for an answer or for the
 * GM's ruling on a reservation (`answers`, `reservations`); while another's roll that
 * concerns it is pending (an attack on it waiting for dice), the removal is refused
 * (`illegal_action`): settle the roll first.
 */
export interface RemoveCombatant {
  combatant: string;
  expect_turn?: string | null;
  id: string;
  type: "remove_combatant";
}
/**
 * Reveal (`hidden: false`) or hide a combatant from players and spectators.
 */
export interface SetHidden {
  combatant: string;
  expect_turn?: string | null;
  hidden: boolean;
  id: string;
  type: "set_hidden";
}
/**
 * Replace the encounter's options (GM). Every option is set: one left out takes its
 * default.
 */
export interface SetOptions {
  expect_turn?: string | null;
  id: string;
  options: EncounterOptions1;
  type: "set_options";
}
/**
 * Per-encounter switches, set at creation and changed by the GM with `set_options`.
 *
 * - `manual_rolls`: the GM rolls physical dice for the GM's combatants; the encounter waits
 *   in a *rolling* state with a `roll_requested` event until the faces come in.
 * - `players_roll`: players roll physical dice for their own combatants.
 * - `npc_rolls_public`: players and spectators see the dice of NPC rolls (default: the GM
 *   rolls behind the screen; results that follow from them are public).
 * - `dice_seed`: roll every server die from this seed, so a scenario is reproducible (demos,
 *   tests). Leave unset in play.
 * - The other switches choose between readings of the rule text: see the rulings they name
 *   in docs/rulings.md (`surprise_when_none_aware` R1, `flat_footed_until_regular_turn`
 *   R2, `delay_keeps_flat_footed` R3, `reactions_while_flat_footed` R4,
 *   `ready_costs_standard_action` R8, `recover_in_scene` R18); resolving actions:
 *   `creatures_block_line_of_sight` R9, `prone_helpless_bonuses_stack` R10,
 *   `engage_adds_half_level` R12, `dr_respects_minimum_damage` R13,
 *   `zero_fp_threshold_inclusive`, `zero_fp_overflow_counts`, `zero_fp_single_action`
 *   R14, `condition_half_speed` R15, `prone_crawl_squares` R19,
 *   `squeeze_cost_multiplier` R20, `refined_garment_runs_triple` R21,
 *   `falling_acrobatics_dc`, `falling_acrobatics_reduction_m` R22,
 *   `ram_speed_from_distance`, `ram_needs_attack_roll` R23, `non_dexterous_penalty`
 *   R24, `end_of_scene_recovery` R50; social scenes: `dispute_ends_at_unfriendly` R26,
 *   `white_lie_statement` R28, `social_attack_skill` R76, `aura_gap_band`,
 *   `event_status_boost` R25;
 *   "Action Time": `die_ladder_overflow` R30, `heal_rolls_again`, `heal_self` R33,
 *   `opposed_tie_reroll` R38, `default_speed_yards` R60, `action_time_join_immediately`
 *   R32; hidden turns: `anonymous_hidden_turns`, `screen_count` R99; turn timers:
 *   `turn_seconds`, `turn_warning_seconds`, `turn_expiry` R102.
 */
export interface EncounterOptions1 {
  /**
   * R32: a newcomer rolls at once and acts this round if its place comes after the current turn (else it enters at the start of the next round).
   */
  action_time_join_immediately?: boolean;
  /**
   * R99: the table sees a turn of "someone behind the GM's screen" (`screen` in the order) every round, in which every hidden combatant takes its turn; set before `start_encounter`.
   */
  anonymous_hidden_turns?: boolean;
  /**
   * R25: the row of the harmony/discord table that the missing differences 11 to 14 (and -11 to -14) take: the lower (Small) or the upper (Medium).
   */
  aura_gap_band?: "lower" | "upper";
  /**
   * R15: a creature at step 3 or 4 of the condition track moves at half speed, as in Star Wars Saga Edition.
   */
  condition_half_speed?: boolean;
  /**
   * R9: a creature in the way blocks a shot (else it gives cover).
   */
  creatures_block_line_of_sight?: boolean;
  /**
   * R60: the Speed of a stat block without `speed`, in yards.
   */
  default_speed_yards?: number;
  /**
   * R3: a combatant that delays stays flat-footed until it acts (`false`: flat-footedness ends when its first regular turn comes up).
   */
  delay_keeps_flat_footed?: boolean;
  dice_seed?: number | null;
  /**
   * R30: upgrades beyond d20 and downgrades below d4 are lost (`clamp`), or each adds +1 (or -1) to the face (`modifier`; a face is at least 1).
   */
  die_ladder_overflow?: "clamp" | "modifier";
  /**
   * R26: a debate ends by itself when the attitude reaches unfriendly (`false`: the GM ends it with `end_encounter`).
   */
  dispute_ends_at_unfriendly?: boolean;
  /**
   * R13: a hit that damage reduction lowers below 1 still deals 1.
   */
  dr_respects_minimum_damage?: boolean;
  /**
   * R50: when the scene ends, everyone conscious improves a step on the condition track (`false`: the track is left as it is).
   */
  end_of_scene_recovery?: boolean;
  /**
   * R12: Engage damage adds one-half heroic level (`false`: Strength modifier + weapon damage only).
   */
  engage_adds_half_level?: boolean;
  /**
   * R25: the temporary Social Status an event attended gives.
   */
  event_status_boost?: number;
  /**
   * R22: the Acrobatics DC that reduces a fall (trained only).
   */
  falling_acrobatics_dc?: number;
  /**
   * R22: the meters of a fall that a successful Acrobatics check takes off.
   */
  falling_acrobatics_reduction_m?: number;
  /**
   * R2: aware combatants stay flat-footed through the surprise round until their first regular turn.
   */
  flat_footed_until_regular_turn?: boolean;
  /**
   * R33: a successful Heal rolls the Mind die again for the amount (else the test roll heals).
   */
  heal_rolls_again?: boolean;
  /**
   * R33: a combatant may Heal itself.
   */
  heal_self?: boolean;
  /**
   * The GM rolls physical dice for the NPCs (the GM's combatants): each roll waits for a `submit_roll` (`roll_requested`).
   */
  manual_rolls?: boolean;
  /**
   * R24: the non-dexterous malus of a grab by a creature without hands (`non_dexterous` stat blocks).
   */
  non_dexterous_penalty?: number;
  /**
   * Players and spectators see the dice of NPC rolls (else the GM rolls behind the screen; the results that follow from them are public).
   */
  npc_rolls_public?: boolean;
  /**
   * R38: a tie of an opposed test is always rolled again after the die-size comparison (else it goes to the defender).
   */
  opposed_tie_reroll?: boolean;
  /**
   * Players roll physical dice for their own characters: each roll waits for a `submit_roll` (`roll_requested`).
   */
  players_roll?: boolean;
  /**
   * R19: the squares a prone creature crawls with a move action.
   */
  prone_crawl_squares?: number;
  /**
   * R10: a melee attack on a target both helpless and prone gets +4 (else +2).
   */
  prone_helpless_bonuses_stack?: boolean;
  /**
   * R23: a ram needs a hit (`false`: it always connects).
   */
  ram_needs_attack_roll?: boolean;
  /**
   * R23: a ram's Speed is the distance moved this turn, in squares (the ram's `moved` argument; else the speed of the stat block).
   */
  ram_speed_from_distance?: boolean;
  /**
   * R4: flat-footed and unaware combatants may use reactions (`false`: no reactions either).
   */
  reactions_while_flat_footed?: boolean;
  /**
   * R8: readying also costs the standard action, whatever is readied.
   */
  ready_costs_standard_action?: boolean;
  /**
   * R18: Recover may be used in a dramatic scene.
   */
  recover_in_scene?: boolean;
  /**
   * R21: a Refined Garment runs at three times speed (else four times; an Exclusive Garderobe three).
   */
  refined_garment_runs_triple?: boolean;
  /**
   * The options of a ruleset the server registers beyond the two it ships, by name, as that ruleset declares them (an unknown name or a bad value is refused with `invalid_payload`); `{}` for `dramatic` and `action_time`, whose options are the fields of this object.
   */
  ruleset_options?: {};
  /**
   * R99: the initiative count the GM's screen acts on with `anonymous_hidden_turns` (after the combatants on the same count); changed during the scene, it moves the screen from the next round.
   */
  screen_count?: number;
  /**
   * R76: the skill of a social attack roll (any skill name of the stat blocks).
   */
  social_attack_skill?: string;
  /**
   * R20: what a square costs, times this, when squeezing through a space too narrow.
   */
  squeeze_cost_multiplier?: number;
  /**
   * R1: when nobody is aware, an empty surprise round is recorded and everyone starts flat- footed until its first regular turn.
   */
  surprise_when_none_aware?: boolean;
  /**
   * R102: what a turn timer running out does: `notify` (only `turn_timer_expired`), `end_turn` (the turn ends as if its combatant had ended it) or `delay` (its combatant delays, Dramatic only).
   */
  turn_expiry?: "delay" | "end_turn" | "notify";
  turn_seconds?: number | null;
  /**
   * R102: how many seconds before a turn timer runs out everyone is warned (`turn_timer_warned`); 0, or as many as `turn_seconds` or more: no warning.
   */
  turn_warning_seconds?: number;
  /**
   * R28: the statement a caught white lie leaves: one size smaller (`smaller`) or the lie's own size (`same`).
   */
  white_lie_statement?: "same" | "smaller";
  /**
   * R14: the excess of the hit that reaches 0 fatigue points counts as a loss at 0 (`false`: it is discarded).
   */
  zero_fp_overflow_counts?: boolean;
  /**
   * R14: a creature at 0 fatigue points takes a single action a turn (`false`: it acts normally and is only defenseless).
   */
  zero_fp_single_action?: boolean;
  /**
   * R14: the tiers of a loss at 0 fatigue points start at the threshold and at twice it (else above them).
   */
  zero_fp_threshold_inclusive?: boolean;
}
/**
 * A player credential bound to these combatants (GM). Result: `token`, `token_id`,
 * `role` (`player`). With `expires_in` (seconds) the credential expires then: it is
 * refused at `hello` and its connections are closed (4001); the result's `expires_at`
 * says when (milliseconds since the epoch, server time).
 */
export interface IssueInvite {
  /**
   * @minItems 1
   * @maxItems 20
   */
  combatants:
    | [string]
    | [string, string]
    | [string, string, string]
    | [string, string, string, string]
    | [string, string, string, string, string]
    | [string, string, string, string, string, string]
    | [string, string, string, string, string, string, string]
    | [string, string, string, string, string, string, string, string]
    | [string, string, string, string, string, string, string, string, string]
    | [string, string, string, string, string, string, string, string, string, string]
    | [string, string, string, string, string, string, string, string, string, string, string]
    | [string, string, string, string, string, string, string, string, string, string, string, string]
    | [string, string, string, string, string, string, string, string, string, string, string, string, string]
    | [string, string, string, string, string, string, string, string, string, string, string, string, string, string]
    | [
        string,
        string,
        string,
        string,
        string,
        string,
        string,
        string,
        string,
        string,
        string,
        string,
        string,
        string,
        string
      ]
    | [
        string,
        string,
        string,
        string,
        string,
        string,
        string,
        string,
        string,
        string,
        string,
        string,
        string,
        string,
        string,
        string
      ]
    | [
        string,
        string,
        string,
        string,
        string,
        string,
        string,
        string,
        string,
        string,
        string,
        string,
        string,
        string,
        string,
        string,
        string
      ]
    | [
        string,
        string,
        string,
        string,
        string,
        string,
        string,
        string,
        string,
        string,
        string,
        string,
        string,
        string,
        string,
        string,
        string,
        string
      ]
    | [
        string,
        string,
        string,
        string,
        string,
        string,
        string,
        string,
        string,
        string,
        string,
        string,
        string,
        string,
        string,
        string,
        string,
        string,
        string
      ]
    | [
        string,
        string,
        string,
        string,
        string,
        string,
        string,
        string,
        string,
        string,
        string,
        string,
        string,
        string,
        string,
        string,
        string,
        string,
        string,
        string
      ];
  expect_turn?: string | null;
  expires_in?: number | null;
  id: string;
  label?: string | null;
  type: "issue_invite";
}
/**
 * A read-only credential that may ride in an overlay URL (GM). Result: `token`,
 * `token_id`, `role` (`spectator`), `path` (`/ws?spectate=<token>`). With
 * `expires_in` (seconds) the link expires then, as an invite does (`expires_at`).
 */
export interface IssueSpectatorLink {
  expect_turn?: string | null;
  expires_in?: number | null;
  id: string;
  label?: string | null;
  type: "issue_spectator_link";
}
/**
 * A credential for a VTT or bot with explicit scopes (GM). Result: `token`,
 * `token_id`, `role` (`integration`). With `expires_in` (seconds) it expires then,
 * as an invite does (`expires_at`).
 */
export interface IssueIntegrationToken {
  expect_turn?: string | null;
  expires_in?: number | null;
  id: string;
  label?: string | null;
  /**
   * @minItems 1
   * @maxItems 5
   */
  scopes:
    | ["command:gm" | "command:players" | "roll" | "view:gm" | "view:public"]
    | [
        "command:gm" | "command:players" | "roll" | "view:gm" | "view:public",
        "command:gm" | "command:players" | "roll" | "view:gm" | "view:public"
      ]
    | [
        "command:gm" | "command:players" | "roll" | "view:gm" | "view:public",
        "command:gm" | "command:players" | "roll" | "view:gm" | "view:public",
        "command:gm" | "command:players" | "roll" | "view:gm" | "view:public"
      ]
    | [
        "command:gm" | "command:players" | "roll" | "view:gm" | "view:public",
        "command:gm" | "command:players" | "roll" | "view:gm" | "view:public",
        "command:gm" | "command:players" | "roll" | "view:gm" | "view:public",
        "command:gm" | "command:players" | "roll" | "view:gm" | "view:public"
      ]
    | [
        "command:gm" | "command:players" | "roll" | "view:gm" | "view:public",
        "command:gm" | "command:players" | "roll" | "view:gm" | "view:public",
        "command:gm" | "command:players" | "roll" | "view:gm" | "view:public",
        "command:gm" | "command:players" | "roll" | "view:gm" | "view:public",
        "command:gm" | "command:players" | "roll" | "view:gm" | "view:public"
      ];
  type: "issue_integration_token";
}
/**
 * Revoke a credential (GM); its open connections are closed (4001) on every process. A
 * credential cannot revoke itself.
 */
export interface RevokeToken {
  expect_turn?: string | null;
  id: string;
  token_id: string;
  type: "revoke_token";
}
/**
 * Roll initiative for everyone and begin round 1 (COMBAT SEQUENCE, step 2).
 */
export interface StartEncounter {
  expect_turn?: string | null;
  id: string;
  type: "start_encounter";
}
/**
 * Before the scene starts: whether a combatant is aware of its opponents (AWARENESS AND
 * SURPRISE; a surprise round happens when some but not all are aware, ruling R1). During
 * the scene: whether it is aware of the attacks made on it (R82).
 */
export interface SetAwareness {
  aware: boolean;
  combatant: string;
  expect_turn?: string | null;
  id: string;
  type: "set_awareness";
}
/**
 * Perception checks (1d20 + `stats.perception`) for these combatants (all when empty),
 * before the scene or during it (ruling R82); each combatant's dice, physical ones asked for
 * (R80). With `dc`, each becomes aware when its check meets the DC (before the scene: of
 * its opponents, R42; during it: of the attacks it tries to notice), unaware when it does
 * not; without, the GM reads the results (`check_made`). `concealment`: what they try to
 * notice is concealed (-5) or totally concealed (-10) (CONCEALMENT). Noticing is a
 * sight-based check (ruling R67.5): against total concealment it is made, at -10.
 */
export interface CallPerception {
  /**
   * @maxItems 200
   */
  combatants?: string[];
  concealment?: "concealment" | "none" | "total";
  dc?: number | null;
  expect_turn?: string | null;
  id: string;
  take_10?: boolean;
  type: "call_perception";
}
/**
 * An effect on `combatant` (none: a note on the scene). `until` says how long it lasts
 * (ruling R90): `rounds` (the default) `rounds` rounds from the current turn's initiative
 * count, ending just before that count `rounds` rounds later (THE COMBAT ROUND);
 * `start_of_next_turn` of the combatant holding it; `end_of_round`; `scene`; `ended`
 * (until `end_effect`). `modifiers` are what it changes, each a target the ruleset lists
 * (docs/actions.md, "Effects") and an amount; they count in every later computation, stacked
 * by the ruleset's rule (R91, R92), and the itemised modifiers of every result name the
 * effect. `source` is the thing it comes from (default: `name`) and `source_kind` what
 * sort of thing that is: the stacking rules read them (two Champions' Rally: one source, counted
 * once). `origin`: the combatant whose talent, spell or action it is.
 */
export interface AddEffect {
  combatant?: string | null;
  expect_turn?: string | null;
  id: string;
  /**
   * @maxItems 20
   */
  modifiers?:
    | []
    | [EffectModifier]
    | [EffectModifier, EffectModifier]
    | [EffectModifier, EffectModifier, EffectModifier]
    | [EffectModifier, EffectModifier, EffectModifier, EffectModifier]
    | [EffectModifier, EffectModifier, EffectModifier, EffectModifier, EffectModifier]
    | [EffectModifier, EffectModifier, EffectModifier, EffectModifier, EffectModifier, EffectModifier]
    | [EffectModifier, EffectModifier, EffectModifier, EffectModifier, EffectModifier, EffectModifier, EffectModifier]
    | [
        EffectModifier,
        EffectModifier,
        EffectModifier,
        EffectModifier,
        EffectModifier,
        EffectModifier,
        EffectModifier,
        EffectModifier
      ]
    | [
        EffectModifier,
        EffectModifier,
        EffectModifier,
        EffectModifier,
        EffectModifier,
        EffectModifier,
        EffectModifier,
        EffectModifier,
        EffectModifier
      ]
    | [
        EffectModifier,
        EffectModifier,
        EffectModifier,
        EffectModifier,
        EffectModifier,
        EffectModifier,
        EffectModifier,
        EffectModifier,
        EffectModifier,
        EffectModifier
      ]
    | [
        EffectModifier,
        EffectModifier,
        EffectModifier,
        EffectModifier,
        EffectModifier,
        EffectModifier,
        EffectModifier,
        EffectModifier,
        EffectModifier,
        EffectModifier,
        EffectModifier
      ]
    | [
        EffectModifier,
        EffectModifier,
        EffectModifier,
        EffectModifier,
        EffectModifier,
        EffectModifier,
        EffectModifier,
        EffectModifier,
        EffectModifier,
        EffectModifier,
        EffectModifier,
        EffectModifier
      ]
    | [
        EffectModifier,
        EffectModifier,
        EffectModifier,
        EffectModifier,
        EffectModifier,
        EffectModifier,
        EffectModifier,
        EffectModifier,
        EffectModifier,
        EffectModifier,
        EffectModifier,
        EffectModifier,
        EffectModifier
      ]
    | [
        EffectModifier,
        EffectModifier,
        EffectModifier,
        EffectModifier,
        EffectModifier,
        EffectModifier,
        EffectModifier,
        EffectModifier,
        EffectModifier,
        EffectModifier,
        EffectModifier,
        EffectModifier,
        EffectModifier,
        EffectModifier
      ]
    | [
        EffectModifier,
        EffectModifier,
        EffectModifier,
        EffectModifier,
        EffectModifier,
        EffectModifier,
        EffectModifier,
        EffectModifier,
        EffectModifier,
        EffectModifier,
        EffectModifier,
        EffectModifier,
        EffectModifier,
        EffectModifier,
        EffectModifier
      ]
    | [
        EffectModifier,
        EffectModifier,
        EffectModifier,
        EffectModifier,
        EffectModifier,
        EffectModifier,
        EffectModifier,
        EffectModifier,
        EffectModifier,
        EffectModifier,
        EffectModifier,
        EffectModifier,
        EffectModifier,
        EffectModifier,
        EffectModifier,
        EffectModifier
      ]
    | [
        EffectModifier,
        EffectModifier,
        EffectModifier,
        EffectModifier,
        EffectModifier,
        EffectModifier,
        EffectModifier,
        EffectModifier,
        EffectModifier,
        EffectModifier,
        EffectModifier,
        EffectModifier,
        EffectModifier,
        EffectModifier,
        EffectModifier,
        EffectModifier,
        EffectModifier
      ]
    | [
        EffectModifier,
        EffectModifier,
        EffectModifier,
        EffectModifier,
        EffectModifier,
        EffectModifier,
        EffectModifier,
        EffectModifier,
        EffectModifier,
        EffectModifier,
        EffectModifier,
        EffectModifier,
        EffectModifier,
        EffectModifier,
        EffectModifier,
        EffectModifier,
        EffectModifier,
        EffectModifier
      ]
    | [
        EffectModifier,
        EffectModifier,
        EffectModifier,
        EffectModifier,
        EffectModifier,
        EffectModifier,
        EffectModifier,
        EffectModifier,
        EffectModifier,
        EffectModifier,
        EffectModifier,
        EffectModifier,
        EffectModifier,
        EffectModifier,
        EffectModifier,
        EffectModifier,
        EffectModifier,
        EffectModifier,
        EffectModifier
      ]
    | [
        EffectModifier,
        EffectModifier,
        EffectModifier,
        EffectModifier,
        EffectModifier,
        EffectModifier,
        EffectModifier,
        EffectModifier,
        EffectModifier,
        EffectModifier,
        EffectModifier,
        EffectModifier,
        EffectModifier,
        EffectModifier,
        EffectModifier,
        EffectModifier,
        EffectModifier,
        EffectModifier,
        EffectModifier,
        EffectModifier
      ];
  name: string;
  origin?: string | null;
  rounds?: number | null;
  source?: string | null;
  source_kind?:
    "concealment" | "condition" | "cover" | "feat" | "gm" | "item" | "species" | "spell" | "stunt" | "talent";
  type: "add_effect";
  until?: "end_of_round" | "ended" | "rounds" | "scene" | "start_of_next_turn";
}
/**
 * What an effect changes and by how much: a number (a bonus or penalty; for the
 * `*_steps` targets of "Action Time", upgrades + and downgrades -), or a die (`"d6"`) for
 * a target that adds a die.
 */
export interface EffectModifier {
  amount: number | string;
  /**
   * What the modifier changes: a target the ruleset lists (docs/actions.md, "Effects"), or gm:<name>, a quantity the GM names and reads (ruling R90).
   */
  target: string;
}
/**
 * End an effect before its time (the id from its `effect_started` event).
 */
export interface EndEffect {
  effect: string;
  expect_turn?: string | null;
  id: string;
  type: "end_effect";
}
/**
 * Give the encounter a battle map, replace it, or (`map: null`) take it away (GM).
 * Squares of 1.5 m; see `BattleMap` for walls, low objects, difficult terrain, fog and
 * darkness. Combatants keep their positions; one that no longer fits is taken off the map.
 */
export interface SetMap {
  expect_turn?: string | null;
  id: string;
  map: BattleMap | null;
  type: "set_map";
}
/**
 * Put a combatant on the battle map with the top-left square of its space at `at`, or
 * take it off (`at: null`) (GM).
 */
export interface PlaceCombatant {
  at: never[] | null;
  combatant: string;
  expect_turn?: string | null;
  id: string;
  type: "place_combatant";
}
/**
 * A combatant falls `meters` (GM): Acrobatics first if it is trained, then 1d20+20
 * against its Fortitude Defense for full or half damage, and it lands prone (Flying: Falling
 * Damage; ruling R22). The faller's dice, physical ones asked for stage by stage (R80); one
 * untrained in Acrobatics makes no Acrobatics check (R84). A fall that counts under 3 m
 * deals no damage and rolls no falling roll (R98).
 */
export interface Fall {
  combatant: string;
  expect_turn?: string | null;
  id: string;
  /**
   * How far it falls, more than 0: a fall of 0 m is no fall (R98).
   */
  meters: number;
  type: "fall";
}
/**
 * Two movers run into each other (GM): no roll to hit; each takes both speeds + the other's
 * Strength modifier + the other's size damage (Flying Basic Maneuver: Collision; R23). A
 * side flying (`first_flying`, `second_flying`, or in the air after a flying move)
 * counts its fly speed (R83). The size damage is the other side's dice, physical ones asked
 * for (R80).
 */
export interface Collide {
  expect_turn?: string | null;
  first: string;
  first_flying?: boolean;
  id: string;
  second: string;
  second_flying?: boolean;
  type: "collide";
}
/**
 * An object now supports `weight` (in the unit of its stat block's `load_limit`; 0
 * takes the load off) (GM). Beyond its heavy load it moves a step down the track at once and
 * again each round on the same initiative count; beyond twice its heavy load it is destroyed
 * (Breaking an Object: Strength; R15).
 */
export interface LoadObject {
  combatant: string;
  expect_turn?: string | null;
  id: string;
  type: "load_object";
  weight: number;
}
/**
 * Give `combatant` a statement of `size` (GM; STATEMENTS: "The scale of a statement is
 * determined by the stable master"), or resize one (`argument`: its id). The ack's result
 * holds the `argument` id to use in `dispute` and `conversation`.
 */
export interface SizeArgument {
  argument?: string | null;
  combatant: string;
  expect_turn?: string | null;
  id: string;
  perilous?: boolean;
  size: ("colossal" | "diminutive" | "fine" | "gargantuan" | "huge" | "large" | "medium" | "small" | "tiny") | null;
  text?: string;
  type: "size_argument";
}
/**
 * Set `holder`'s attitude toward `toward` (GM; R25).
 */
export interface SetAttitude {
  attitude: "friendly" | "helpful" | "hostile" | "indifferent" | "unfriendly";
  expect_turn?: string | null;
  holder: string;
  id: string;
  reason?: string | null;
  toward: string;
  type: "set_attitude";
}
/**
 * The GM rules on the doubt of a statement its target accepted with reservation
 * (STATEMENTS: "half the fatigue loss is still caused should the doubt turn out to have
 * been unfounded"; ruling R48): `unfounded` — the target loses half the recorded loss,
 * rounded down, as mental fatigue (its damage threshold counts, R45; its attitude does not
 * change, R77); founded — nothing. `statement` names it (`statement_answered.statement`,
 * the view's `reservations`); either way the reservation is settled. Result: `loss`.
 */
export interface RuleDoubt {
  expect_turn?: string | null;
  id: string;
  statement: string;
  type: "rule_doubt";
  unfounded: boolean;
}
/**
 * The social event this scene is part of (GM; SOCIAL EVENTS, SOCIAL ACCESS RATING): the
 * `organizer` (a combatant) chooses a `rating` — at most its Social Status, normally at
 * least half of it (`gm_override` allows lower; R25) — that VIP guests (`vips`) raise
 * (R71). `circle` is the circle of society (temporary status counts there), `topic` the
 * event's subject; `encounter` counts this scene within the event and `last` says it
 * ends the event (for the aura points, R73, and the temporary status boosts, R25).
 * `challenge_modifier`: how demanding the party's goal is; the challenge rating is the
 * Event Rating plus it. `rating: null` ends the event.
 */
export interface SetSocialEvent {
  challenge_modifier?: number;
  circle?: string | null;
  encounter?: number;
  expect_turn?: string | null;
  gm_override?: boolean;
  id: string;
  last?: boolean;
  organizer?: string | null;
  rating: number | null;
  topic?: string | null;
  type: "set_social_event";
  /**
   * @maxItems 50
   */
  vips?: string[];
}
/**
 * A combatant's situation at the event (GM; the situation table of SOCIAL STATUS and the
 * influencing effects of SOCIAL ACCESS RATING; R70, R72). Fields left out keep their value.
 */
export interface SetSocialSituation {
  attire?: ("appropriate" | "inappropriate" | "ordinary") | null;
  combatant: string;
  expect_turn?: string | null;
  familiarity?: ("few_know" | "known" | "stranger") | null;
  id: string;
  invitation?: boolean | null;
  knows_host?: boolean | null;
  knows_most?: boolean | null;
  race?: ("not_prevailing" | "prevailing" | "rare" | "unknown_or_dangerous") | null;
  subject_rank?: number | null;
  type: "set_social_situation";
}
/**
 * Override a combatant's values (GM), with a `reason` that everyone who sees the
 * combatant sees (audited as a `gm_ruling`). Fields left out are unchanged. `condition`
 * sets consciousness directly (`unconscious` makes it prone; `conscious` revives an
 * unconscious combatant, never a dead one). Steps count down the track, 0 (normal) to 5
 * (rulings R15, R17; `*_crippling` clears or sets crippling steps, R14.4); a step of 5
 * makes a conscious creature unconscious and prone (its Constitution check to come, R16) and
 * an object destroyed, unless `condition` is given, which wins (R15). `helpless`:
 * bound or asleep (HELPLESS CONDITION; the vitals' `bound_or_asleep`: an unconscious
 * combatant, or one at the bottom of a track, stays helpless whatever this says). A ruleset
 * without some of these values refuses them (`invalid_payload`, `details.allowed` naming
 * the values it has): Action Time's combatants have `fatigue` (their Health),
 * `fatigue_max`, `prone` and `condition`.
 */
export interface AdjustCombatant {
  combatant: string;
  condition?: ("conscious" | "dead" | "destroyed" | "unconscious") | null;
  expect_turn?: string | null;
  fatigue?: number | null;
  fatigue_max?: number | null;
  helpless?: boolean | null;
  id: string;
  mental_crippling?: number | null;
  mental_persistent?: number | null;
  mental_step?: number | null;
  physical_crippling?: number | null;
  physical_persistent?: number | null;
  physical_step?: number | null;
  prone?: boolean | null;
  reason: string;
  type: "adjust_combatant";
}
/**
 * An action the rules do not list, adjudicated by the GM: the GM states the check — a
 * d20 (the combatant's dice, or the GM's without one; physical ones asked for, R80; or 10
 * with `take_10`, R81) plus `modifier` against `dc` (equal succeeds) — and what success
 * and failure do to `target` (default: `combatant`). Without `dc` nothing is rolled and
 * `on_success` applies. Everyone who sees the combatants sees the ruling, the roll and the
 * outcome, as at the table.
 */
export interface Adjudicate {
  combatant?: string | null;
  dc?: number | null;
  description: string;
  expect_turn?: string | null;
  id: string;
  modifier?: number;
  on_failure?: AdjudicatedOutcome;
  on_success?: AdjudicatedOutcome;
  take_10?: boolean;
  target?: string | null;
  type: "adjudicate";
}
/**
 * What an adjudicated action does to its target: a fatigue loss (resolved with damage
 * reduction left out, then thresholds and the condition track as for any loss, R14), steps
 * down a track, healing, falling prone or standing.
 */
export interface AdjudicatedOutcome {
  fatigue_loss?: number;
  heal?: number;
  loss_kind?: "mental" | "physical";
  persistent?: boolean;
  prone?: boolean | null;
  steps?: number;
}
/**
 * Take an action for a combatant. `action` is one of the names the server listed in
 * `legal_actions`; `args` holds that action's arguments, as the JSON Schema of the
 * ruleset's actions describes them (`docs/protocol/actions.<ruleset>.schema.json`). An
 * argument the action does not take, or one of the wrong type, is refused with
 * `invalid_payload` naming it (`details.field`; for an unknown one `details.allowed`
 * lists the action's arguments).
 */
export interface Act {
  action: string;
  args?: {};
  combatant: string;
  expect_turn?: string | null;
  id: string;
  type: "act";
}
/**
 * Answer a `roll_requested` event with the faces of physical dice, in the order of its
 * `dice` list; or, with `take_10` and no faces, take 10 on the d20 check it asks for,
 * where the check allows it (ruling R81: not to aid another, not on the Constitution check,
 * not on an attack roll).
 */
export interface SubmitRoll {
  expect_turn?: string | null;
  /**
   * @minItems 1
   * @maxItems 100
   */
  faces?: [number, ...number[]];
  id: string;
  request: string;
  take_10?: boolean;
  type: "submit_roll";
}
/**
 * Let the server roll a pending request (the GM for any request, a player for its own).
 */
export interface ServerRoll {
  expect_turn?: string | null;
  id: string;
  request: string;
  type: "server_roll";
}
/**
 * Mix `entropy` (any text, 1 to 64 characters: a client sends random bytes, as hex say)
 * into the server's dice (ruling R101): every server roll after it is drawn with a key that
 * depends on it, so the server could not have chosen its dice secret, committed to in
 * `dice_committed`, to give them. A player or the GM may send it while the encounter runs,
 * at most 64 times an encounter in all; a `dice_entropy_added` event tells everyone.
 */
export interface AddDiceEntropy {
  entropy: string;
  expect_turn?: string | null;
  id: string;
  type: "add_dice_entropy";
}
/**
 * The GM stops the running turn timer (ruling R102): a `turn_timer_paused` with the time
 * left, until `resume_turn_timer`. Refused when no timer runs.
 */
export interface PauseTurnTimer {
  expect_turn?: string | null;
  id: string;
  type: "pause_turn_timer";
}
/**
 * The GM starts the paused turn timer again with the time it had left (R102): a
 * `turn_timer_resumed` with the new deadline. Refused when no timer is paused.
 */
export interface ResumeTurnTimer {
  expect_turn?: string | null;
  id: string;
  type: "resume_turn_timer";
}
/**
 * End the scene; narrative time resumes (COMBAT SEQUENCE, step 5). The unconscious roll
 * their Constitution checks and everyone conscious improves a step (R16, R50); with
 * `rest: true` the party then rests eight hours (Natural Healing: all fatigue points and
 * the whole track back, except with a persistent condition, R17).
 */
export interface EndEncounter {
  expect_turn?: string | null;
  id: string;
  reason?: string | null;
  rest?: boolean;
  type: "end_encounter";
}
/**
 * Found a campaign (on a connection without a token, as `create_encounter`): its name
 * and ruleset. The `ack`'s `result` holds `campaign`, the GM's `gm_token` (the
 * campaign's GM link: `smc1.<campaign>.<token id>.<secret>`), its `token_id` and the
 * `recovery_secret` that recovers a lost GM link (`recover_campaign`): it is shown here
 * and nowhere else, keep it. `id` (at least 16 characters, random) names the campaign: a
 * retry with the same id and payload answers the same; another payload is a `conflict`.
 * Creator secrets apply as to `create_encounter`.
 */
export interface CreateCampaign {
  creator_secret?: string | null;
  expect_turn?: string | null;
  id: string;
  name: string;
  /**
   * The ruleset: `dramatic` (MLP Dramatic Systems) or `action_time` (Action Time), or another ruleset the server registers (an unknown one is refused with `invalid_payload`, `details.allowed` listing the server's).
   */
  ruleset?: string;
  type: "create_campaign";
}
/**
 * A lost GM link (on a connection without a token): the campaign and its recovery secret.
 * The `ack`'s `result`: a new `gm_token` and a new `recovery_secret` (each shown
 * once); the old GM link stops working (`gm_recovered`, R114). A wrong secret is
 * `unauthenticated`.
 */
export interface RecoverCampaign {
  campaign: string;
  expect_turn?: string | null;
  id: string;
  recovery_secret: string;
  type: "recover_campaign";
}
/**
 * On a campaign link: the campaign as this credential sees it, as a `campaign`
 * message, before the `ack`.
 */
export interface GetCampaign {
  expect_turn?: string | null;
  id: string;
  type: "get_campaign";
}
/**
 * GM of a campaign: a character joins the roster, from its stat block (as
 * `create_encounter` takes one; `kind: pc`). A player character gets its player's link,
 * one for the whole campaign (R113): the `ack`'s `result.token`; an NPC (`kind: npc`)
 * gets none.
 */
export interface AddCharacter {
  character: StatBlock;
  expect_turn?: string | null;
  id: string;
  type: "add_character";
}
/**
 * GM of a campaign: set what a character carries between scenes (a treatment that takes a
 * persistent condition away, a day's Second Lunches, temporary status, items), with a
 * reason, audited as a `character_changed` event. Only the values named change; refused
 * while the character is in a running encounter (the encounter's `adjust_combatant` is
 * for that). `fatigue: null` is not "leave it": leave it out; `full: true` sets the
 * fatigue points (Health) to full.
 */
export interface AdjustCharacter {
  character: string;
  expect_turn?: string | null;
  fatigue?: number | null;
  full?: boolean;
  id: string;
  items?: ItemInput[] | null;
  life?: ("alive" | "dead") | null;
  lunches_today?: number | null;
  mental_crippling?: number | null;
  mental_persistent?: number | null;
  mental_step?: number | null;
  physical_crippling?: number | null;
  physical_persistent?: number | null;
  physical_step?: number | null;
  reason: string;
  status?:
    | []
    | [StatusBoostInput]
    | [StatusBoostInput, StatusBoostInput]
    | [StatusBoostInput, StatusBoostInput, StatusBoostInput]
    | [StatusBoostInput, StatusBoostInput, StatusBoostInput, StatusBoostInput]
    | [StatusBoostInput, StatusBoostInput, StatusBoostInput, StatusBoostInput, StatusBoostInput]
    | [StatusBoostInput, StatusBoostInput, StatusBoostInput, StatusBoostInput, StatusBoostInput, StatusBoostInput]
    | [
        StatusBoostInput,
        StatusBoostInput,
        StatusBoostInput,
        StatusBoostInput,
        StatusBoostInput,
        StatusBoostInput,
        StatusBoostInput
      ]
    | [
        StatusBoostInput,
        StatusBoostInput,
        StatusBoostInput,
        StatusBoostInput,
        StatusBoostInput,
        StatusBoostInput,
        StatusBoostInput,
        StatusBoostInput
      ]
    | [
        StatusBoostInput,
        StatusBoostInput,
        StatusBoostInput,
        StatusBoostInput,
        StatusBoostInput,
        StatusBoostInput,
        StatusBoostInput,
        StatusBoostInput,
        StatusBoostInput
      ]
    | [
        StatusBoostInput,
        StatusBoostInput,
        StatusBoostInput,
        StatusBoostInput,
        StatusBoostInput,
        StatusBoostInput,
        StatusBoostInput,
        StatusBoostInput,
        StatusBoostInput,
        StatusBoostInput
      ]
    | [
        StatusBoostInput,
        StatusBoostInput,
        StatusBoostInput,
        StatusBoostInput,
        StatusBoostInput,
        StatusBoostInput,
        StatusBoostInput,
        StatusBoostInput,
        StatusBoostInput,
        StatusBoostInput,
        StatusBoostInput
      ]
    | [
        StatusBoostInput,
        StatusBoostInput,
        StatusBoostInput,
        StatusBoostInput,
        StatusBoostInput,
        StatusBoostInput,
        StatusBoostInput,
        StatusBoostInput,
        StatusBoostInput,
        StatusBoostInput,
        StatusBoostInput,
        StatusBoostInput
      ]
    | [
        StatusBoostInput,
        StatusBoostInput,
        StatusBoostInput,
        StatusBoostInput,
        StatusBoostInput,
        StatusBoostInput,
        StatusBoostInput,
        StatusBoostInput,
        StatusBoostInput,
        StatusBoostInput,
        StatusBoostInput,
        StatusBoostInput,
        StatusBoostInput
      ]
    | [
        StatusBoostInput,
        StatusBoostInput,
        StatusBoostInput,
        StatusBoostInput,
        StatusBoostInput,
        StatusBoostInput,
        StatusBoostInput,
        StatusBoostInput,
        StatusBoostInput,
        StatusBoostInput,
        StatusBoostInput,
        StatusBoostInput,
        StatusBoostInput,
        StatusBoostInput
      ]
    | [
        StatusBoostInput,
        StatusBoostInput,
        StatusBoostInput,
        StatusBoostInput,
        StatusBoostInput,
        StatusBoostInput,
        StatusBoostInput,
        StatusBoostInput,
        StatusBoostInput,
        StatusBoostInput,
        StatusBoostInput,
        StatusBoostInput,
        StatusBoostInput,
        StatusBoostInput,
        StatusBoostInput
      ]
    | [
        StatusBoostInput,
        StatusBoostInput,
        StatusBoostInput,
        StatusBoostInput,
        StatusBoostInput,
        StatusBoostInput,
        StatusBoostInput,
        StatusBoostInput,
        StatusBoostInput,
        StatusBoostInput,
        StatusBoostInput,
        StatusBoostInput,
        StatusBoostInput,
        StatusBoostInput,
        StatusBoostInput,
        StatusBoostInput
      ]
    | [
        StatusBoostInput,
        StatusBoostInput,
        StatusBoostInput,
        StatusBoostInput,
        StatusBoostInput,
        StatusBoostInput,
        StatusBoostInput,
        StatusBoostInput,
        StatusBoostInput,
        StatusBoostInput,
        StatusBoostInput,
        StatusBoostInput,
        StatusBoostInput,
        StatusBoostInput,
        StatusBoostInput,
        StatusBoostInput,
        StatusBoostInput
      ]
    | [
        StatusBoostInput,
        StatusBoostInput,
        StatusBoostInput,
        StatusBoostInput,
        StatusBoostInput,
        StatusBoostInput,
        StatusBoostInput,
        StatusBoostInput,
        StatusBoostInput,
        StatusBoostInput,
        StatusBoostInput,
        StatusBoostInput,
        StatusBoostInput,
        StatusBoostInput,
        StatusBoostInput,
        StatusBoostInput,
        StatusBoostInput,
        StatusBoostInput
      ]
    | [
        StatusBoostInput,
        StatusBoostInput,
        StatusBoostInput,
        StatusBoostInput,
        StatusBoostInput,
        StatusBoostInput,
        StatusBoostInput,
        StatusBoostInput,
        StatusBoostInput,
        StatusBoostInput,
        StatusBoostInput,
        StatusBoostInput,
        StatusBoostInput,
        StatusBoostInput,
        StatusBoostInput,
        StatusBoostInput,
        StatusBoostInput,
        StatusBoostInput,
        StatusBoostInput
      ]
    | [
        StatusBoostInput,
        StatusBoostInput,
        StatusBoostInput,
        StatusBoostInput,
        StatusBoostInput,
        StatusBoostInput,
        StatusBoostInput,
        StatusBoostInput,
        StatusBoostInput,
        StatusBoostInput,
        StatusBoostInput,
        StatusBoostInput,
        StatusBoostInput,
        StatusBoostInput,
        StatusBoostInput,
        StatusBoostInput,
        StatusBoostInput,
        StatusBoostInput,
        StatusBoostInput,
        StatusBoostInput
      ]
    | null;
  type: "adjust_character";
}
export interface ItemInput {
  count?: number;
  name: string;
}
/**
 * Temporary Social Status (R25, R111): `bonus` in `circle` (left out: everywhere).
 */
export interface StatusBoostInput {
  bonus: number;
  circle?: string | null;
  source?: string;
}
/**
 * GM of a campaign: move the in-game clock on (hours, days and weeks add up). With
 * `rest: true` the characters rest through it, which needs at least eight hours: each gets
 * Natural Healing or a `healing_refused` saying why (R110). Passing midnight renews the
 * per-day uses (R109); each week takes a point off temporary status (R111). Refused while an
 * encounter of the campaign runs: its scene's time is its own.
 */
export interface AdvanceClock {
  days?: number;
  expect_turn?: string | null;
  hours?: number;
  id: string;
  reason?: string | null;
  rest?: boolean;
  type: "advance_clock";
  weeks?: number;
}
/**
 * GM of a campaign: an encounter of the roster's `characters` (each in no other running
 * encounter, R113), with `npcs` besides, each character starting as the campaign keeps it
 * (fatigue points, condition tracks, the day's Second Lunches, temporary status). The
 * `ack`'s `result`: `encounter`, its GM link `gm_token`; each character's player
 * reaches it by the campaign link. `rested`: characters who spend the whole scene resting
 * (one step more up each track when it is written back, R112). When the encounter ends, its
 * results are written back to the campaign (`encounter_written_back`).
 */
export interface BeginEncounter {
  /**
   * @minItems 1
   * @maxItems 50
   */
  characters: [string, ...string[]];
  expect_turn?: string | null;
  id: string;
  map?: BattleMap | null;
  name: string;
  /**
   * @maxItems 150
   */
  npcs?: StatBlock[];
  options?: EncounterOptions2;
  /**
   * @maxItems 50
   */
  rested?: string[];
  type: "begin_encounter";
}
/**
 * Per-encounter switches, set at creation and changed by the GM with `set_options`.
 *
 * - `manual_rolls`: the GM rolls physical dice for the GM's combatants; the encounter waits
 *   in a *rolling* state with a `roll_requested` event until the faces come in.
 * - `players_roll`: players roll physical dice for their own combatants.
 * - `npc_rolls_public`: players and spectators see the dice of NPC rolls (default: the GM
 *   rolls behind the screen; results that follow from them are public).
 * - `dice_seed`: roll every server die from this seed, so a scenario is reproducible (demos,
 *   tests). Leave unset in play.
 * - The other switches choose between readings of the rule text: see the rulings they name
 *   in docs/rulings.md (`surprise_when_none_aware` R1, `flat_footed_until_regular_turn`
 *   R2, `delay_keeps_flat_footed` R3, `reactions_while_flat_footed` R4,
 *   `ready_costs_standard_action` R8, `recover_in_scene` R18); resolving actions:
 *   `creatures_block_line_of_sight` R9, `prone_helpless_bonuses_stack` R10,
 *   `engage_adds_half_level` R12, `dr_respects_minimum_damage` R13,
 *   `zero_fp_threshold_inclusive`, `zero_fp_overflow_counts`, `zero_fp_single_action`
 *   R14, `condition_half_speed` R15, `prone_crawl_squares` R19,
 *   `squeeze_cost_multiplier` R20, `refined_garment_runs_triple` R21,
 *   `falling_acrobatics_dc`, `falling_acrobatics_reduction_m` R22,
 *   `ram_speed_from_distance`, `ram_needs_attack_roll` R23, `non_dexterous_penalty`
 *   R24, `end_of_scene_recovery` R50; social scenes: `dispute_ends_at_unfriendly` R26,
 *   `white_lie_statement` R28, `social_attack_skill` R76, `aura_gap_band`,
 *   `event_status_boost` R25;
 *   "Action Time": `die_ladder_overflow` R30, `heal_rolls_again`, `heal_self` R33,
 *   `opposed_tie_reroll` R38, `default_speed_yards` R60, `action_time_join_immediately`
 *   R32; hidden turns: `anonymous_hidden_turns`, `screen_count` R99; turn timers:
 *   `turn_seconds`, `turn_warning_seconds`, `turn_expiry` R102.
 */
export interface EncounterOptions2 {
  /**
   * R32: a newcomer rolls at once and acts this round if its place comes after the current turn (else it enters at the start of the next round).
   */
  action_time_join_immediately?: boolean;
  /**
   * R99: the table sees a turn of "someone behind the GM's screen" (`screen` in the order) every round, in which every hidden combatant takes its turn; set before `start_encounter`.
   */
  anonymous_hidden_turns?: boolean;
  /**
   * R25: the row of the harmony/discord table that the missing differences 11 to 14 (and -11 to -14) take: the lower (Small) or the upper (Medium).
   */
  aura_gap_band?: "lower" | "upper";
  /**
   * R15: a creature at step 3 or 4 of the condition track moves at half speed, as in Star Wars Saga Edition.
   */
  condition_half_speed?: boolean;
  /**
   * R9: a creature in the way blocks a shot (else it gives cover).
   */
  creatures_block_line_of_sight?: boolean;
  /**
   * R60: the Speed of a stat block without `speed`, in yards.
   */
  default_speed_yards?: number;
  /**
   * R3: a combatant that delays stays flat-footed until it acts (`false`: flat-footedness ends when its first regular turn comes up).
   */
  delay_keeps_flat_footed?: boolean;
  dice_seed?: number | null;
  /**
   * R30: upgrades beyond d20 and downgrades below d4 are lost (`clamp`), or each adds +1 (or -1) to the face (`modifier`; a face is at least 1).
   */
  die_ladder_overflow?: "clamp" | "modifier";
  /**
   * R26: a debate ends by itself when the attitude reaches unfriendly (`false`: the GM ends it with `end_encounter`).
   */
  dispute_ends_at_unfriendly?: boolean;
  /**
   * R13: a hit that damage reduction lowers below 1 still deals 1.
   */
  dr_respects_minimum_damage?: boolean;
  /**
   * R50: when the scene ends, everyone conscious improves a step on the condition track (`false`: the track is left as it is).
   */
  end_of_scene_recovery?: boolean;
  /**
   * R12: Engage damage adds one-half heroic level (`false`: Strength modifier + weapon damage only).
   */
  engage_adds_half_level?: boolean;
  /**
   * R25: the temporary Social Status an event attended gives.
   */
  event_status_boost?: number;
  /**
   * R22: the Acrobatics DC that reduces a fall (trained only).
   */
  falling_acrobatics_dc?: number;
  /**
   * R22: the meters of a fall that a successful Acrobatics check takes off.
   */
  falling_acrobatics_reduction_m?: number;
  /**
   * R2: aware combatants stay flat-footed through the surprise round until their first regular turn.
   */
  flat_footed_until_regular_turn?: boolean;
  /**
   * R33: a successful Heal rolls the Mind die again for the amount (else the test roll heals).
   */
  heal_rolls_again?: boolean;
  /**
   * R33: a combatant may Heal itself.
   */
  heal_self?: boolean;
  /**
   * The GM rolls physical dice for the NPCs (the GM's combatants): each roll waits for a `submit_roll` (`roll_requested`).
   */
  manual_rolls?: boolean;
  /**
   * R24: the non-dexterous malus of a grab by a creature without hands (`non_dexterous` stat blocks).
   */
  non_dexterous_penalty?: number;
  /**
   * Players and spectators see the dice of NPC rolls (else the GM rolls behind the screen; the results that follow from them are public).
   */
  npc_rolls_public?: boolean;
  /**
   * R38: a tie of an opposed test is always rolled again after the die-size comparison (else it goes to the defender).
   */
  opposed_tie_reroll?: boolean;
  /**
   * Players roll physical dice for their own characters: each roll waits for a `submit_roll` (`roll_requested`).
   */
  players_roll?: boolean;
  /**
   * R19: the squares a prone creature crawls with a move action.
   */
  prone_crawl_squares?: number;
  /**
   * R10: a melee attack on a target both helpless and prone gets +4 (else +2).
   */
  prone_helpless_bonuses_stack?: boolean;
  /**
   * R23: a ram needs a hit (`false`: it always connects).
   */
  ram_needs_attack_roll?: boolean;
  /**
   * R23: a ram's Speed is the distance moved this turn, in squares (the ram's `moved` argument; else the speed of the stat block).
   */
  ram_speed_from_distance?: boolean;
  /**
   * R4: flat-footed and unaware combatants may use reactions (`false`: no reactions either).
   */
  reactions_while_flat_footed?: boolean;
  /**
   * R8: readying also costs the standard action, whatever is readied.
   */
  ready_costs_standard_action?: boolean;
  /**
   * R18: Recover may be used in a dramatic scene.
   */
  recover_in_scene?: boolean;
  /**
   * R21: a Refined Garment runs at three times speed (else four times; an Exclusive Garderobe three).
   */
  refined_garment_runs_triple?: boolean;
  /**
   * The options of a ruleset the server registers beyond the two it ships, by name, as that ruleset declares them (an unknown name or a bad value is refused with `invalid_payload`); `{}` for `dramatic` and `action_time`, whose options are the fields of this object.
   */
  ruleset_options?: {};
  /**
   * R99: the initiative count the GM's screen acts on with `anonymous_hidden_turns` (after the combatants on the same count); changed during the scene, it moves the screen from the next round.
   */
  screen_count?: number;
  /**
   * R76: the skill of a social attack roll (any skill name of the stat blocks).
   */
  social_attack_skill?: string;
  /**
   * R20: what a square costs, times this, when squeezing through a space too narrow.
   */
  squeeze_cost_multiplier?: number;
  /**
   * R1: when nobody is aware, an empty surprise round is recorded and everyone starts flat- footed until its first regular turn.
   */
  surprise_when_none_aware?: boolean;
  /**
   * R102: what a turn timer running out does: `notify` (only `turn_timer_expired`), `end_turn` (the turn ends as if its combatant had ended it) or `delay` (its combatant delays, Dramatic only).
   */
  turn_expiry?: "delay" | "end_turn" | "notify";
  turn_seconds?: number | null;
  /**
   * R102: how many seconds before a turn timer runs out everyone is warned (`turn_timer_warned`); 0, or as many as `turn_seconds` or more: no warning.
   */
  turn_warning_seconds?: number;
  /**
   * R28: the statement a caught white lie leaves: one size smaller (`smaller`) or the lie's own size (`same`).
   */
  white_lie_statement?: "same" | "smaller";
  /**
   * R14: the excess of the hit that reaches 0 fatigue points counts as a loss at 0 (`false`: it is discarded).
   */
  zero_fp_overflow_counts?: boolean;
  /**
   * R14: a creature at 0 fatigue points takes a single action a turn (`false`: it acts normally and is only defenseless).
   */
  zero_fp_single_action?: boolean;
  /**
   * R14: the tiers of a loss at 0 fatigue points start at the threshold and at twice it (else above them).
   */
  zero_fp_threshold_inclusive?: boolean;
}
