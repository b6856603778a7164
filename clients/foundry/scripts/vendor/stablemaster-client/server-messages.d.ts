// Generated from docs/protocol/server-messages.schema.json by scripts/generate-types.mjs (npm run types); do not edit.
/**
 * Every message the Stablemaster server sends to a client, a JSON object tagged by `type`. Clients should ignore fields and message types they do not know: additive changes keep the protocol version. Protocol version 1. Generated from the message classes by `python -m docgen`; do not edit.
 */
export type StablemasterServerMessagesProtocol1 =
  | Welcome
  | Ack
  | Error
  | EventMessage
  | Snapshot
  | View
  | History
  | LegalActions
  | LegalActionsDelta
  | Batch
  | Goodbye
  | ReplayEnded
  | Presence
  | CampaignMessage
  | Moved;
export type ErrorCode =
  | "bad_dice"
  | "bad_json"
  | "conflict"
  | "encounter_full"
  | "encounter_lost"
  | "forbidden"
  | "illegal_action"
  | "internal_error"
  | "invalid_payload"
  | "not_found"
  | "not_your_turn"
  | "quota_exceeded"
  | "rate_limited"
  | "snapshot_unavailable"
  | "stale"
  | "too_large"
  | "unauthenticated"
  | "unavailable"
  | "unknown_type"
  | "unsupported_version";
/**
 * The encounter as this viewer may see it (`snapshot-state.schema.json`).
 */
export type SnapshotState =
  | MLPDramaticSystemsAsTheGMAndAViewGmIntegrationSeesIt
  | MLPDramaticSystemsAsAPlayerOrASpectatorSeesIt
  | ActionTimeAsTheGMAndAViewGmIntegrationSeesIt
  | ActionTimeAsAPlayerOrASpectatorSeesIt
  | AnotherRulesetAsTheGMAndAViewGmIntegrationSeesIt
  | AnotherRulesetAsAPlayerOrASpectatorSeesIt;
export type Attitude = "friendly" | "helpful" | "hostile" | "indifferent" | "unfriendly";
export type Size = "colossal" | "diminutive" | "fine" | "gargantuan" | "huge" | "large" | "medium" | "small" | "tiny";
export type AuraKind = "discord" | "harmony" | "none";
/**
 * When an aura gives its point (one of the table's four rows).
 */
export type AuraTiming = "end" | "every_two_and_end" | "never" | "per_encounter" | "start_and_end";

/**
 * Answer to `hello`: the `protocol` version chosen, the `server` software version
 * and this connection's `session` id. `role` is `null` for an unauthenticated connection
 * (which may only `create_encounter` and `ping`); otherwise `encounter`, `token_id`,
 * `combatants` (those this credential controls) and `scopes` describe the credential,
 * and a `snapshot` (or the missed events) and `legal_actions` follow.
 */
export interface Welcome {
  campaign?: string;
  characters?: string[];
  combatants?: string[];
  encounter?: string | null;
  features?: string[];
  limits: Limits;
  protocol: number;
  role?: ("gm" | "integration" | "player" | "spectator") | null;
  scopes?: ("command:gm" | "command:players" | "roll" | "view:gm" | "view:public")[];
  server: string;
  session: string;
  token_id?: string | null;
  type: "welcome";
}
/**
 * What this server accepts. A message longer than `max_command_bytes` gets
 * `too_large`; a frame over `max_frame_bytes` closes the connection (1009). Each
 * connection may send `commands_per_second` messages on average, `burst` at once; more
 * get `rate_limited`, and a flood closes the connection (1008). A command that would store
 * an event larger than `max_event_bytes` (as JSON) gets `too_large` and changes nothing;
 * a message with objects and arrays nested more than `max_depth` levels deep gets
 * `invalid_payload`.
 */
export interface Limits {
  burst: number;
  commands_per_second: number;
  max_command_bytes: number;
  max_depth: number;
  max_event_bytes: number;
  max_frame_bytes: number;
}
/**
 * A command succeeded. `seq` is the last event of the log this connection is told of once
 * the command is done (`null` for a command outside the encounter, as `ping`): for the
 * GM, the command's last event; for the table, the last it may see (never one behind the GM's
 * screen). The events themselves arrive before the `ack`. With the `cursor` feature
 * `cursor` stands in its place (`seq` is left out). `result` holds what the command
 * returns (see each command). `duplicate` is true when this answers a retried id.
 * With `batch_head` (protocol 1.11), in a `batch` that says its `cursor`, it leaves
 * out its `cursor`, `result` when empty and `duplicate` when false.
 */
export interface Ack {
  cursor?: string | null;
  duplicate?: boolean;
  id: string;
  result?: {};
  seq?: number | null;
  type: "ack";
}
/**
 * A message failed. `id` names the command when it could be read. `code` is one of the
 * error codes (see `protocol.errors`), `message` a readable explanation, `details`
 * optional data (`bad_dice`: the `dice` expected; `illegal_action`: sometimes the
 * `legal` action names).
 */
export interface Error {
  code: ErrorCode;
  details?: {} | null;
  id?: string | null;
  message: string;
  type: "error";
}
/**
 * One event of the encounter's log, redacted for this viewer. `seq` increases by one per
 * event in the log; a viewer may not see every `seq` (redacted events are skipped), but it
 * sees those it may see exactly once and in order. `digest` stands for the log up to this
 * event (it is left out for events stored before digests existed): keep the one of the last
 * event applied and send it with `since` when resuming. With the `cursor` feature the
 * message carries `cursor` instead of `seq` and `digest`. With the `summaries`
 * feature it carries `summary`, the event in words (left out without it). `taken_back:
 * true` marks an event the GM took back since (`commands_undone`, ruling R108): in
 * `history` and in the events replayed on a resume (added in protocol 1.7).
 * With the `batch_head` feature (protocol 1.11) `encounter` is left out (the
 * connection's), and `ts` and `cursor` when the `batch` it comes in says them; with
 * `lean_events` the event says only what the view and the summary do not, and a summary
 * without `parts` is said by its text alone (`"summary": "Rainbow Dash's turn."`).
 */
export interface EventMessage {
  /**
   * A place in the encounter's log as this connection was told it: opaque (compare it, do not parse it); send the last one held as `hello.cursor` to resume.
   */
  cursor?: string;
  digest?: string | null;
  encounter?: string;
  event:
    | EncounterCreated
    | CombatantAdded
    | CombatantRemoved
    | CombatantRevealed
    | CombatantConcealed
    | OptionsChanged
    | RulesetEvent
    | TokenIssued
    | TokenRevoked
    | RollRequested
    | DiceRolled
    | DiceCommitted
    | DiceEntropyAdded
    | DiceRevealed
    | DiceRenewed
    | InitiativeSet
    | CombatantJoined
    | AwarenessSet
    | SceneStarted
    | FlatFooted
    | RoundStarted
    | TurnStarted
    | TurnEnded
    | ScreenMoved
    | CommandsUndone
    | UndoRequested
    | UndoRefused
    | TurnTimerStarted
    | TurnTimerWarned
    | TurnTimerPaused
    | TurnTimerResumed
    | TurnTimerExpired
    | ActionTaken
    | TurnDelayed
    | DelayedTurnRequested
    | OrderChanged
    | ActionReadied
    | ReadiedActionTriggered
    | InterruptEnded
    | ReadiedActionLost
    | EffectStarted
    | EffectEnded
    | CheckMade
    | AttackResolved
    | DamageDealt
    | VitalsChanged
    | GrabChanged
    | ObjectLoaded
    | ArgumentChanged
    | AttitudeChanged
    | BlockingChanged
    | StatementHit
    | StatementAnswered
    | DoubtRuled
    | DebateEnded
    | LieTold
    | SocialEventSet
    | SocialSituationSet
    | StatusBoostEarned
    | AuraPointsChanged
    | Harvested
    | MapSet
    | CombatantPlaced
    | CombatantMoved
    | GmRuling
    | EncounterEnded
    | AtEffectStarted
    | AtEffectEnded
    | AtMoved
    | ItemsReadied;
  seq?: number;
  summary?: string | Summary | null;
  taken_back?: boolean;
  ts?: number;
  type: "event";
}
/**
 * The first event of every encounter: its name, ruleset and options. Only the GM sees it
 * when the options fix a `dice_seed`.
 */
export interface EncounterCreated {
  campaign?: string | null;
  kind: "encounter_created";
  name: string;
  options: EncounterOptions;
  ruleset: string;
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
 * A combatant joined the encounter. Hidden combatants are announced to the GM only;
 * players and spectators who do not control the combatant get its profile with empty
 * `stats`.
 */
export interface CombatantAdded {
  combatant: CombatantProfile;
  kind: "combatant_added";
}
/**
 * A combatant as the encounter records it (the GM's view).
 */
export interface CombatantProfile {
  aware?: boolean;
  external_ids?: {
    [k: string]: string;
  };
  group?: string | null;
  hidden?: boolean;
  id: string;
  initiative_mod: number;
  kind: "npc" | "pc";
  name: string;
  side: string;
  stats?: {};
}
/**
 * A combatant left the encounter (`combatant` is its id); it leaves the initiative order
 * and its pending rolls are dropped.
 */
export interface CombatantRemoved {
  combatant: string;
  kind: "combatant_removed";
}
/**
 * A hidden combatant becomes visible to everyone; `combatant` is its profile (with empty
 * `stats` for players and spectators who do not control it).
 */
export interface CombatantRevealed {
  combatant: CombatantProfile;
  kind: "combatant_revealed";
}
/**
 * The GM hides a combatant again (only the GM is told).
 */
export interface CombatantConcealed {
  combatant: string;
  kind: "combatant_concealed";
}
/**
 * The GM replaced the encounter's options (only the GM is told).
 */
export interface OptionsChanged {
  kind: "options_changed";
  options: EncounterOptions;
}
/**
 * An event of a ruleset the server registers beyond the two it ships: its `name` and
 * its `data`, as that ruleset declares them; `combatant` is whom it is about, and the
 * events of hidden combatants are the GM's (`hidden`). "MLP Dramatic Systems" and "Action
 * Time" have events of their own kinds and never send this one.
 */
export interface RulesetEvent {
  combatant?: string | null;
  data?: {};
  hidden?: boolean;
  kind: "ruleset_event";
  name: string;
  ruleset: string;
}
/**
 * A credential was issued (the GM sees this; the secret itself is never logged).
 * `expires_at`: when it expires (milliseconds since the epoch, server time; `null`:
 * never); from then on it is refused and its connections are closed with 4001.
 */
export interface TokenIssued {
  combatants?: string[];
  expires_at?: number | null;
  kind: "token_issued";
  label?: string | null;
  role: "gm" | "integration" | "player" | "spectator";
  scopes?: ("command:gm" | "command:players" | "roll" | "view:gm" | "view:public")[];
  token_id: string;
}
/**
 * A credential was revoked (the GM sees this); its connections are closed with 4001.
 */
export interface TokenRevoked {
  kind: "token_revoked";
  token_id: string;
}
/**
 * The encounter waits for physical dice.
 *
 * `roller` is `"gm"` or the id of the combatant whose player rolls; `dice` lists the
 * sides of each die to throw, in the order the faces are expected.
 */
export interface RollRequested {
  combatant: string | null;
  context?: {} | null;
  dice: number[];
  expr: string;
  hidden?: boolean;
  kind: "roll_requested";
  purpose: string;
  request: string;
  roller: string;
}
/**
 * A roll and its result. `by` is `server` for a seeded server roll, `gm` or
 * `player` for physical dice entered by hand (then `roll.manual` is true).
 */
export interface DiceRolled {
  by?: "gm" | "player" | "server";
  combatant?: string | null;
  gm_request?: boolean;
  hidden?: boolean;
  kind: "dice_rolled";
  purpose: string;
  request?: string | null;
  roll: Roll;
}
/**
 * A finished roll as it is recorded in an event.
 *
 * `seed` is the seed the server rolled with when the encounter fixed a dice seed (or, in
 * logs from before verifiable dice, every server roll's seed); `place` the roll's place in
 * the encounter's keyed dice streams (`"table:17"`), from which the revealed dice secret
 * gives its faces again (`rules.verifiable_dice`). Both are `None` for physical dice
 * entered by hand, which are marked `manual`. `text` is the readable breakdown, e.g.
 * `1d20 (17) + 3 = 20`.
 */
export interface Roll {
  dice: Die[];
  expr: string;
  manual?: boolean;
  place?: string | null;
  seed?: number | null;
  text: string;
  total: number;
}
/**
 * One die rolled: its number of sides, the face shown, and whether it counts.
 */
export interface Die {
  face: number;
  kept?: boolean;
  sides: number;
}
/**
 * The server's dice are verifiable (ruling R101): `commitment` is the SHA-256 (hex) of
 * the secret every server roll of the encounter is drawn from, published before the first
 * roll; the secret itself comes in `dice_revealed` when the encounter ends. Not sent when
 * the options fix a `dice_seed` (those dice are reproducible, not secret).
 */
export interface DiceCommitted {
  commitment: string;
  kind: "dice_committed";
}
/**
 * A player (`by: player`) or the GM mixed `entropy` into the server's dice
 *     (`add_dice_entropy`): `chain` is the entropy chain after it, SHA-256 (hex) of the chain
 *     before (at first the commitment), a newline and the entropy. Every server roll after it is
 *     drawn with HMAC-SHA256 of `"rolls
 * " + chain`, keyed by the dice secret.
 */
export interface DiceEntropyAdded {
  by: "gm" | "player";
  chain: string;
  entropy: string;
  kind: "dice_entropy_added";
}
/**
 * The encounter is ending (its `encounter_ended` follows) and the server shows the
 * secret its dice were drawn from (`secret`, 32 bytes in hex; ruling R101): its SHA-256 is
 * the `commitment` of `dice_committed`, and with it every server roll of the log can be
 * drawn again.
 */
export interface DiceRevealed {
  kind: "dice_revealed";
  secret: string;
}
/**
 * The server's dice are drawn from a new secret from here on (ruling R117): Redis went
 * back to before the encounter's `dice_revealed` while the encounter ran on, so the secret
 * shown there would go on drawing its dice. `revealed` is that secret (hex), shown again so
 * that the rolls before this event can still be checked against the `commitment` they were
 * drawn under; `commitment` is the SHA-256 (hex) of the new secret, which the server derives
 * from its own secret, the encounter's id and `nonce`, and reveals when the encounter ends.
 * The entropy chain starts again at the new `commitment`; roll places count on.
 */
export interface DiceRenewed {
  commitment: string;
  kind: "dice_renewed";
  nonce: string;
  revealed: string;
}
/**
 * The initiative order, highest first (ties: higher modifier, then roll-off). Viewers
 * who may not see hidden combatants get the order without them.
 */
export interface InitiativeSet {
  entries: InitiativeEntry[];
  kind: "initiative_set";
}
/**
 * One place in the initiative order: the check's `total`, the Initiative `modifier`,
 * the faces of any `rolloff` that broke a tie, and whether the combatant is `hidden`.
 * `count` is the initiative count it acts on now (the total, until a delay or a readied
 * action moves it; rulings R7, R8); `group` the NPC group that rolled together (R6).
 */
export interface InitiativeEntry {
  combatant: string;
  count?: number | null;
  group?: string | null;
  hidden?: boolean;
  modifier: number;
  rolloff?: number[];
  total: number;
}
/**
 * A combatant entered the running scene and took its place in the order: `position` is
 * its index in the order as this viewer sees it (the GM's order counts hidden combatants,
 * everyone else's does not); `public_position` is its index among visible combatants.
 */
export interface CombatantJoined {
  entry: InitiativeEntry;
  kind: "combatant_joined";
  position: number;
  public_position?: number;
}
/**
 * The GM decided whether a combatant is aware of its opponents as the scene starts, or
 * (`in_scene`) whether it is aware of the attacks made on it during the scene: an unaware
 * one loses its Dexterity bonus to Reflex Defense (ruling R82).
 */
export interface AwarenessSet {
  aware: boolean;
  combatant: string;
  in_scene?: boolean;
  kind: "awareness_set";
}
/**
 * The scene begins: with a surprise round (some but not all combatants aware, ruling R1)
 * or straight with round 1. In a scene with a surprise round everyone starts flat-footed.
 */
export interface SceneStarted {
  kind: "scene_started";
  surprise: boolean;
}
/**
 * A combatant becomes (`flat_footed: true`) or stops being flat-footed (FLAT-FOOTED;
 * rulings R2, R3). Computed by the server, never set by hand.
 */
export interface FlatFooted {
  combatant: string;
  flat_footed: boolean;
  hidden?: boolean;
  kind: "flat_footed";
}
/**
 * A new round begins (the first regular round is 1; the surprise round is 0, with
 * `surprise: true`); a `turn_started` follows.
 */
export interface RoundStarted {
  kind: "round_started";
  round: number;
  surprise?: boolean;
}
/**
 * It is `combatant`'s turn. The turns of hidden combatants are shown to the GM only.
 */
export interface TurnStarted {
  combatant: string;
  hidden?: boolean;
  kind: "turn_started";
  round: number;
}
/**
 * `combatant`'s turn is over. The turns of hidden combatants are shown to the GM only.
 */
export interface TurnEnded {
  combatant: string;
  hidden?: boolean;
  kind: "turn_ended";
  round: number;
}
/**
 * With the option `anonymous_hidden_turns`: the GM moved the GM's screen (the turn of
 * "someone behind the GM's screen", `screen` in the order) to the initiative count
 * `count`, from round `round` on (ruling R99).
 */
export interface ScreenMoved {
  count: number;
  kind: "screen_moved";
  round: number;
}
/**
 * The GM took back every command after `back_to` (ruling R108): the events after it, up
 * to this one, stay in the log as history (`get_history` marks them `taken_back`), and
 * the encounter is as it was at `back_to` but for what is never taken back (credentials,
 * the server's dice, which roll on from where they were). Every viewer who was shown any of
 * them gets this event, then a `snapshot` (reason `rewound`). `back_to` and
 * `taken_back` (the seqs taken back) are the GM's; to anyone else they are `null` and
 * `[]`, and `seen` says how many of the events the table was shown. `requested_by`:
 * the combatant whose player asked for it (`request_undo`). Added in protocol 1.7.
 */
export interface CommandsUndone {
  back_to: number | null;
  kind: "commands_undone";
  reason?: string | null;
  requested_by?: string | null;
  seen?: number;
  taken_back?: number[];
}
/**
 * A player asked the GM to take back its combatant's last action (`request_undo`,
 * ruling R108): `request` is what the GM's `undo` (`request`) grants or
 * `refuse_undo` refuses; `back_to` is where the undo would go back to (the GM's; `null`
 * to the player). Seen by the GM and the combatant's player. Added in protocol 1.7.
 */
export interface UndoRequested {
  back_to: number | null;
  combatant: string;
  kind: "undo_requested";
  reason?: string | null;
  request: string;
}
/**
 * The GM refused a player's request to undo (`refuse_undo`, ruling R108). Added in
 * protocol 1.7.
 */
export interface UndoRefused {
  combatant: string;
  kind: "undo_refused";
  reason?: string | null;
  request: string;
}
/**
 * A turn timer runs for `combatant`'s turn (the `turn_seconds` option, ruling R102):
 * it runs out at `deadline` (milliseconds since the Unix epoch, on the server's clock, the
 * clock of the events' `ts`: count down from it against the freshest of them, since an event
 * the GM's screen held arrives later than its `ts`, R96.6), with a warning at `warn_at`
 * (`null`: none). `number` counts the timers of the encounter. Shown to those who see
 * the turn.
 */
export interface TurnTimerStarted {
  combatant: string;
  deadline: number;
  hidden?: boolean;
  kind: "turn_timer_started";
  number: number;
  seconds: number;
  warn_at?: number | null;
}
/**
 * `combatant`'s turn timer runs out at `deadline` (`turn_warning_seconds`, R102).
 */
export interface TurnTimerWarned {
  combatant: string;
  deadline: number;
  hidden?: boolean;
  kind: "turn_timer_warned";
  number: number;
}
/**
 * The GM paused `combatant`'s turn timer with `remaining` milliseconds left (R102).
 */
export interface TurnTimerPaused {
  combatant: string;
  hidden?: boolean;
  kind: "turn_timer_paused";
  number: number;
  remaining: number;
}
/**
 * The GM resumed `combatant`'s turn timer: it runs out at `deadline` now, with a
 * warning at `warn_at` (`null`: none, or already given) (R102).
 */
export interface TurnTimerResumed {
  combatant: string;
  deadline: number;
  hidden?: boolean;
  kind: "turn_timer_resumed";
  number: number;
  warn_at?: number | null;
}
/**
 * `combatant`'s turn timer ran out (R102). `then` is what follows, as
 * `turn_expiry` says: `notify` (nothing more; also when the turn cannot end now, with
 * `why`), `end_turn` (the turn's `turn_ended` follows) or `delay` (a
 * `turn_delayed` follows).
 */
export interface TurnTimerExpired {
  combatant: string;
  hidden?: boolean;
  kind: "turn_timer_expired";
  number: number;
  then: "delay" | "end_turn" | "notify";
  why?: string | null;
}
/**
 * A combatant took an action. `action_type` is standard, move, swift, full_round, free
 * or reaction (Action Time: a major action is `standard`, a minor one `move`); `slot`
 * the slot of the turn's budget it used, as the ruleset names them (Dramatic: `standard`,
 * `move`, `swift`, or `full_round` for all; Action Time: `major`, `minor`; events
 * written before Action Time had its own slots say `standard` and `move`), `null` for
 * free actions and reactions; `progress`/`needed` count the swift actions of an action
 * that needs several (SWIFT ACTIONS), which happens with the last.
 */
export interface ActionTaken {
  action: string;
  action_type: string;
  combatant: string;
  hidden?: boolean;
  kind: "action_taken";
  needed?: number;
  note?: string | null;
  out_of_turn?: boolean;
  progress?: number;
  readied?: boolean;
  round: number;
  slot?: string | null;
  target?: string | null;
}
/**
 * The combatant delays (SPECIAL INITIATIVE ACTIONS: Delay); it takes its turn later in the
 * round, at `until_count` if it named one (ruling R7).
 */
export interface TurnDelayed {
  combatant: string;
  hidden?: boolean;
  kind: "turn_delayed";
  round: number;
  until_count?: number | null;
}
/**
 * A delaying combatant will act right after the current turn (ruling R7): `after` is
 * whose turn that is (`null` for viewers who may not see a hidden combatant's turn).
 */
export interface DelayedTurnRequested {
  after: string | null;
  after_hidden?: boolean;
  combatant: string;
  hidden?: boolean;
  kind: "delayed_turn_requested";
}
/**
 * A combatant moved in the initiative order (a delayed turn, a readied action, a delayer at
 * the end of the round; rulings R7, R8). `position` as in `combatant_joined`.
 */
export interface OrderChanged {
  combatant: string;
  count: number;
  hidden?: boolean;
  kind: "order_changed";
  position: number;
  public_position?: number;
  reason: "delay" | "ready" | "round_end";
}
/**
 * The combatant readied an action against a trigger (SPECIAL INITIATIVE ACTIONS: Ready).
 */
export interface ActionReadied {
  action: string;
  action_type: string;
  combatant: string;
  hidden?: boolean;
  kind: "action_readied";
  round: number;
  trigger: string;
}
/**
 * The trigger occurred: the readied action interrupts `interrupting`'s turn
 * (`null` for viewers who may not see a hidden combatant's turn).
 */
export interface ReadiedActionTriggered {
  combatant: string;
  hidden?: boolean;
  interrupting: string | null;
  interrupting_hidden?: boolean;
  kind: "readied_action_triggered";
}
/**
 * The readied action is resolved (after the last of its dice and their results); the
 * interrupted turn resumes where it was.
 */
export interface InterruptEnded {
  combatant: string;
  hidden?: boolean;
  kind: "interrupt_ended";
}
/**
 * The combatant's next turn came before its readied action was taken (ruling R8).
 */
export interface ReadiedActionLost {
  combatant: string;
  hidden?: boolean;
  kind: "readied_action_lost";
}
/**
 * An effect began on `count` of `round`. One that lasts `rounds` rounds ends just
 * before the same initiative count in round `ends_round` (THE COMBAT ROUND); `until` says
 * when others end (R90).
 */
export interface EffectStarted {
  combatant?: string | null;
  count: number;
  effect: string;
  ends_round: number;
  kind: "effect_started";
  modifiers?: EffectModifier[];
  name: string;
  origin?: string | null;
  origin_hidden?: boolean;
  round: number;
  rounds: number;
  source?: string;
  source_kind?: string;
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
 * An effect ended: its duration ran out, or the GM removed it.
 */
export interface EffectEnded {
  effect: string;
  kind: "effect_ended";
  reason?: "expired" | "removed";
}
/**
 * A check the server rolled and judged: `check` names it (`constitution`,
 * `aid_another`, `distraction`, `break_object`, `acrobatics`, `adjudicated`…),
 * `natural` is the d20, `modifiers` every term added, `dc` the number to reach
 * (equal succeeds). The die itself is in the `dice_rolled` event before it.
 */
export interface CheckMade {
  check: string;
  combatant: string;
  dc: number | null;
  hidden?: boolean;
  kind: "check_made";
  modifiers?: Modifier[];
  natural: number | null;
  section?: string | null;
  success: boolean;
  target?: string | null;
  took_10?: boolean;
  total: number | null;
}
/**
 * One itemised part of a roll, a defense or a damage total: `name` says what it is,
 * `value` is signed, `section` names the rule text's section (and ruling, if any).
 */
export interface Modifier {
  name: string;
  section: string;
  value: number;
}
/**
 * An attack roll against a defense: every modifier itemised, the defense with its parts,
 * and the outcome ("MLP Dramatic Systems", ATTACK ROLL; critical hits and automatic misses,
 * ruling R44). Players and spectators do not see the numbers of an NPC's roll (unless the GM
 * rolls in the open) nor an NPC's defense; they see the modifiers and the outcome.
 */
export interface AttackResolved {
  action: string;
  attacker: string;
  defense?: "defense" | "fortitude" | "reflex" | "will" | "wits";
  defense_parts?: Modifier[] | null;
  defense_secret?: boolean;
  defense_value: number | null;
  die?: string | null;
  hidden?: boolean;
  kind: "attack_resolved";
  modifiers?: Modifier[];
  natural: number | null;
  outcome: "automatic_miss" | "critical" | "hit" | "miss";
  roll_secret?: boolean;
  round: number;
  target: string;
  total: number | null;
  weapon?: string | null;
}
/**
 * Fatigue loss (Health in "Action Time", R29) from a hit or a hazard (DAMAGE; DAMAGE
 * REDUCTION; rulings R12, R13), its fields adding up, no die counted twice: `rolled` (the
 * faces of every die of `dice` added) + the `bonuses` (flat amounts), doubled on a
 * `critical` hit, halved (rounded down) when `halved`, at least 1 (but a fall, R22), is
 * `before_reduction`; less `reduction`, the damage reduction that most benefits the
 * target, it is `loss`, what the target loses. `dice_parts` ("Action Time") itemises
 * what changed the weapon's die and what was rolled beside it: the upgrades and downgrades
 * that made the damage die (the first term of `dice`) and the extra dice of talents and
 * spells (in `dice` and `rolled` already: not to be added again). It does not list the
 * weapon's own die: that is the `damage` of the weapon `attack_resolved.weapon` names,
 * in the attacker's stat block (`stats.weapons` of its entry in a snapshot's
 * `combatants`: the GM's, and a player's for its own combatants); anyone else can take the
 * first term of `dice` back down the die ladder by the steps counted in `dice_parts`,
 * unless an end of the ladder stopped them (R30). A `vitals_changed` event with the
 * consequences follows.
 */
export interface DamageDealt {
  before_reduction: number | null;
  bonuses?: Modifier[];
  critical?: boolean;
  damage?: "mental" | "physical";
  dice: string;
  dice_parts?: Modifier[] | null;
  dice_secret?: boolean;
  halved?: boolean;
  hidden?: boolean;
  kind: "damage_dealt";
  loss: number;
  reduction?: number | null;
  reduction_label?: string | null;
  rolled: number | null;
  source?: string | null;
  target: string;
  types?: string[];
}
/**
 * A combatant's fatigue points, condition tracks, consciousness or stance changed; the
 * event carries the new values (`fatigue` is `null` for viewers who may not see an NPC's
 * fatigue points) and `notes` say why, rule by rule. `condition` is the configuration of
 * the combatant's condition chart: `["active", "fit"]`, `["active", "defenseless"]` (0
 * fatigue points), `["unconscious", "awaiting_check"]`, `["unconscious",
 * "out_for_scene"]`, `["dead"]` or `["destroyed"]`. `helpless`: the HELPLESS
 * CONDITION as attacks read it — bound or asleep (`bound_or_asleep`, the GM's
 * `adjust_combatant.helpless`), unconscious, or at the bottom of a condition track.
 * `check_round`: the round of the next Constitution check of an unconscious combatant
 * (R16).
 */
export interface VitalsChanged {
  bound_or_asleep?: boolean | null;
  cause: string;
  check_round?: number | null;
  combatant: string;
  condition: string[];
  fatigue: number | null;
  fatigue_max: number | null;
  fatigue_secret?: boolean;
  helpless?: boolean;
  hidden?: boolean;
  kind: "vitals_changed";
  mental?: Track | null;
  notes?: string[];
  physical: Track;
  prone?: boolean;
  structure_loss?: number;
}
/**
 * A condition track (ruling R15): `step` 0 (normal) to 5 (bottom: unconscious, or
 * destroyed for objects); `persistent` of those steps cannot be recovered without treatment,
 * `crippling` of those only by the GM (R14.4, R17); `penalty` on checks and defenses.
 */
export interface Track {
  crippling?: number;
  penalty?: number;
  persistent?: number;
  step?: number;
}
/**
 * `grabber` holds `target` (`held: true`: -2 on all its skill rolls, and it cannot
 * move) or lets go (the grab broken, or the grabber out of the fight) (STANDARD ACTIONS:
 * Grab; R55).
 */
export interface GrabChanged {
  grabber: string;
  held: boolean;
  hidden?: boolean;
  kind: "grab_changed";
  target: string;
}
/**
 * An object supports `weight` from `round` and `count` on (Breaking an Object:
 * Strength); 0: the load is off.
 */
export interface ObjectLoaded {
  combatant: string;
  count: number;
  hidden?: boolean;
  kind: "object_loaded";
  round: number;
  weight: number;
}
/**
 * A statement (argument) of `combatant` was sized by the GM, shrank with use or in a
 * Conversation, or came from a caught lie (STATEMENTS; R27, R28, R48). `size` `null`: spent,
 * it cannot be used again.
 */
export interface ArgumentChanged {
  argument: string;
  combatant: string;
  hidden?: boolean;
  kind: "argument_changed";
  perilous?: boolean;
  reason?: string;
  size: string | null;
  text?: string;
}
/**
 * `holder`'s attitude toward `toward` (hostile, unfriendly, indifferent, friendly,
 * helpful; R25), set by the GM or moved by a Dispute or a caught lie (R26, R28).
 */
export interface AttitudeChanged {
  attitude: string;
  hidden?: boolean;
  holder: string;
  kind: "attitude_changed";
  reason?: string;
  toward: string;
}
/**
 * A combatant withdraws from the discussion (Blocking: +5 Wits Defense against every social
 * maneuver, no arguments of its own) or returns to it (R49).
 */
export interface BlockingChanged {
  blocking: boolean;
  combatant: string;
  hidden?: boolean;
  kind: "blocking_changed";
}
/**
 * A Dispute's statement hit `target` for `loss` mental fatigue points: its controller
 * answers (`answer_statement`: accept, accept_with_reservation, refuse); no answer before its
 * next turn refuses (R48).
 */
export interface StatementHit {
  hidden?: boolean;
  kind: "statement_hit";
  loss: number;
  speaker: string;
  statement: string;
  target: string;
}
/**
 * The target answered a statement (R48): `loss` is what it lost now, `recorded` the
 * loss kept for a reservation (half of it applies if the GM rules the doubt unfounded).
 */
export interface StatementAnswered {
  answer: "accept" | "accept_with_reservation" | "refuse";
  hidden?: boolean;
  kind: "statement_answered";
  loss: number;
  recorded?: number;
  statement: string;
  target: string;
}
/**
 * The GM ruled on a statement accepted with reservation (`rule_doubt`; R48): the doubt
 * `unfounded` or not; `loss` is what the target loses for it now (half the recorded loss,
 * rounded down, or 0). A `vitals_changed` event follows a loss.
 */
export interface DoubtRuled {
  hidden?: boolean;
  kind: "doubt_ruled";
  loss: number;
  statement: string;
  target: string;
  unfounded: boolean;
}
/**
 * An attitude reached Unfriendly or lower: no further Dispute or Conversation in this
 * scene (R26).
 */
export interface DebateEnded {
  kind: "debate_ended";
  reason: string;
}
/**
 * A lie against an Empathy check (Creating a Lie; R28): believed, or caught (then each
 * target holds a statement against the liar, and attitudes drop unless it was a white
 * lie).
 */
export interface LieTold {
  believed: boolean;
  deception_total: number | null;
  empathy_total: number | null;
  hidden?: boolean;
  judge: string;
  kind: "lie_told";
  liar: string;
  size: string;
  targets: string[];
  white?: boolean;
}
/**
 * The social event of the scene (`rating: null`: none), with its Event Rating's parts
 * (SOCIAL EVENTS; R25, R71). A hidden `organizer` is shown to the GM only.
 */
export interface SocialEventSet {
  challenge_rating?: number | null;
  circle?: string | null;
  encounter?: number;
  kind: "social_event_set";
  last?: boolean;
  organizer?: string | null;
  organizer_hidden?: boolean;
  parts?: Modifier[];
  rating: number | null;
  topic?: string | null;
}
/**
 * A combatant's situation at the event (R70, R72): the GM's answers to the tables.
 */
export interface SocialSituationSet {
  attire?: string;
  combatant: string;
  familiarity?: string;
  hidden?: boolean;
  invitation?: boolean | null;
  kind: "social_situation_set";
  knows_host?: boolean;
  knows_most?: boolean;
  race?: string;
  subject_rank?: number | null;
}
/**
 * At the end of a qualifying event a character's temporary status in its circle rises
 * (SOCIAL EVENTS; R25, R70): `bonus` is the boost now (at most half the unmodified status;
 * it decays a point a week). The GM carries it into the stat block's `social.temporary`.
 */
export interface StatusBoostEarned {
  bonus: number;
  circle: string;
  combatant: string;
  hidden?: boolean;
  kind: "status_boost_earned";
}
/**
 * A combatant's Aura of Harmony or Discord gave a point (SOCIAL ACCESS RATING; R73):
 * `harmony` and `discord` are the points it holds now.
 */
export interface AuraPointsChanged {
  combatant: string;
  discord: number;
  harmony: number;
  hidden?: boolean;
  kind: "aura_points_changed";
  reason: string;
}
/**
 * A harvest roll after a successful Profession check (STANDARD ACTIONS: Harvest; R54):
 * the dice, the check's bonus (+1 per 5 over the DC), doubling after a natural 20, damage
 * reduction, and the `resources` gained (one unit per point).
 */
export interface Harvested {
  bonus: number;
  combatant: string;
  dice: string;
  doubled?: boolean;
  hidden?: boolean;
  kind: "harvested";
  reduction?: number;
  resource: string;
  resources: number;
  rolled: number;
  target?: string | null;
}
/**
 * The encounter's battle map (`null`: none; the GM states ranges, cover and
 * concealment with each attack).
 */
export interface MapSet {
  kind: "map_set";
  map: BattleMap | null;
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
 * A combatant was put on the map (`at`: the top-left square of its space) or taken off
 * (`null`) by the GM.
 */
export interface CombatantPlaced {
  at: never[] | null;
  combatant: string;
  hidden?: boolean;
  kind: "combatant_placed";
}
/**
 * A combatant moved along `path` (the squares entered, in order), spending `cost` of
 * the `budget` squares its move allowed (MOVE ACTIONS: Move, FULL-ROUND ACTIONS: Run;
 * DIAGONAL MOVEMENT, DIFFICULT TERRAIN; rulings R19-R21, R68, R78). `falls`: the path ends
 * in a pit (R66; the GM resolves the fall).
 */
export interface CombatantMoved {
  budget: number;
  combatant: string;
  cost: number;
  falls?: boolean;
  hidden?: boolean;
  kind: "combatant_moved";
  mode?: "crawl" | "fly" | "move" | "run";
  path: never[][];
  speed_modifiers?: Modifier[];
}
/**
 * The GM adjudicated an action or overrode a value, with a reason (audited). `changes`
 * lists what was set (`{"field": "fatigue", "value": 3}`); the consequences follow as
 * their own events. `fatigue_secret`: the combatant's fatigue points (Health) are behind
 * the GM's screen (an NPC's): a viewer that does not control it gets `changes` without the
 * `fatigue` and `fatigue_max` entries, as its `vitals_changed` comes without the points
 * (ruling R105; added in protocol 1.6, before which they were shown).
 */
export interface GmRuling {
  changes?: {}[];
  combatant?: string | null;
  description: string;
  fatigue_secret?: boolean;
  hidden?: boolean;
  kind: "gm_ruling";
  reason?: string | null;
  ruling: "adjudicated" | "override";
}
/**
 * The scene is over: pending rolls are dropped, and the only command still accepted is
 * `revoke_token`.
 */
export interface EncounterEnded {
  kind: "encounter_ended";
  reason?: string | null;
}
/**
 * "Action Time": a lasting modifier begins (Defend, Guard Up, Aim, All-Out Attack's
 * penalty, Stand Firm, Press the Attack, and the marks "struck in melee this turn" and
 * "healed"). `effect.holder` holds it; `target` is what it modifies (`defense`,
 * `test_steps`, `attack_steps`, `damage_steps`, `stand_firm`, `pursuit`, `struck`,
 * `healed`); `source_kind` and `source` are its identity for the stacking rule (R61);
 * `expiry` says when it ends (`end_of_round`, `start_of_next_turn:<id>`, `next_action`,
 * `until_removed`). An earlier instance of the very same thing from the same `origin` on
 * the same holder is replaced (R51).
 */
export interface AtEffectStarted {
  effect: Effect;
  hidden?: boolean;
  kind: "at_effect_started";
  origin_hidden?: boolean;
}
/**
 * A lasting modifier on `holder`. `origin` is the combatant whose action, talent or
 * spell created it; `detail` carries what some effects need (the prepared action, the
 * pursued enemy).
 */
export interface Effect {
  detail?: string;
  expiry: string;
  holder: string;
  origin?: string;
  source: string;
  source_kind: string;
  target: string;
  value: number;
}
/**
 * "Action Time": an effect ended: at the start of a turn, at the end of the round, used up
 * (Aim, a pursuit), cleared by damage (the healed mark, R33) or by falling to 0 Health.
 */
export interface AtEffectEnded {
  effect: Effect;
  hidden?: boolean;
  kind: "at_effect_ended";
  origin_hidden?: boolean;
  reason: "damage" | "out_of_fight" | "round_end" | "turn_start" | "used";
}
/**
 * "Action Time": a combatant moved `yards` of at most `max_yards` (Move, Run, Charge,
 * a pursuit, a Skirmish stunt), with the reason for the limit. The server keeps no map: the
 * mover declares whom it moves `away_from` (Press the Attack, R37).
 */
export interface AtMoved {
  action: string;
  away_from?: string[];
  combatant: string;
  hidden?: boolean;
  kind: "at_moved";
  max_yards: number;
  reason: string;
  yards: number;
}
/**
 * "Action Time", Ready: an item drawn and/or one stowed; `in_hoof` is what the combatant
 * now holds (weapons by name, `bandages`).
 */
export interface ItemsReadied {
  combatant: string;
  drawn?: string | null;
  hidden?: boolean;
  in_hoof: string[];
  kind: "items_readied";
  stowed?: string | null;
}
/**
 * An event in words: `text`, one or more sentences for people, naming combatants as
 * this viewer's state does (a combatant the event does not name for this viewer is
 * "someone unseen"); `parts`, the numbers in `text` itemised (empty: none worth
 * listing). Both say exactly what the event as this viewer receives it says, no more.
 */
export interface Summary {
  parts?: SummaryPart[];
  text: string;
}
/**
 * One itemised number (or die) of a summary: `label` says what it is (`"d20"`,
 * `"Strength"`, `"total"`, `"Reflex Defense"`, `"loss"`), `value` is the number,
 * signed as the event gives it (a modifier `-2`), or a text where a die is named
 * (`"2d6"`).
 */
export interface SummaryPart {
  label: string;
  value: number | string;
}
/**
 * The whole encounter as this viewer may see it, as of `seq`, and the `digest` of the
 * log at `seq` (`null` for a log without one). Sent after `hello` without `since`,
 * when the server cannot replay from `since` (`reason`), and, unasked, when the server
 * finds that the log went back (`rewound`): everything received after this `seq` is void;
 * after the GM took commands back (`commands_undone`, R108), also `rewound`: the
 * encounter is this snapshot's state.
 * With the `cursor` feature `cursor` stands for `seq` and `digest` (both left out).
 * `ts` is when the server sent it (milliseconds since the epoch, the clock of the events'
 * `ts` and of a turn timer's `deadline`; left out in a replay's).
 */
export interface Snapshot {
  /**
   * A place in the encounter's log as this connection was told it: opaque (compare it, do not parse it); send the last one held as `hello.cursor` to resume.
   */
  cursor?: string;
  digest?: string | null;
  encounter: string;
  reason: "asked" | "join" | "replay" | "resume_ahead" | "resume_gap" | "rewound" | "unverified";
  seq?: number;
  state: SnapshotState;
  ts?: number;
  type: "snapshot";
}
/**
 * A snapshot's `state` in an encounter of `dramatic` (MLP Dramatic Systems), as the GM (and a `view:gm` integration) sees it. The encounter as the GM (and a `view:gm` integration) sees it: everything, hidden combatants included, with every option and credential.
 */
export interface MLPDramaticSystemsAsTheGMAndAViewGmIntegrationSeesIt {
  /**
   * The statements that hit and wait for their target's answer, by id (R48).
   */
  answers: {
    [k: string]: AnswerView;
  };
  /**
   * The statements of the visible combatants, by id (STATEMENTS).
   */
  arguments: {
    [k: string]: ArgumentView;
  };
  /**
   * Attitudes: holder -> toward -> attitude (R25).
   */
  attitudes: {
    [k: string]: {
      [k: string]: Attitude;
    };
  };
  /**
   * The combatants Blocking (R49).
   */
  blocking: string[];
  /**
   * The combatants this viewer sees.
   */
  combatants: CombatantView[];
  /**
   * When the encounter was created (ms since the epoch).
   */
  created_ts: number;
  /**
   * Whose turn it is (`null` between turns, or when that combatant is hidden from this viewer); `screen` while the GM's screen takes its turn (R99: for a player or spectator, whoever acts behind it).
   */
  current: string | null;
  /**
   * Whether Dispute and Conversation are over for this scene (R26).
   */
  debate_over: boolean;
  /**
   * The combatants delaying their turn (R7).
   */
  delaying: string[];
  /**
   * The verifiable dice (R101; `null`: the dice are not verifiable, with a `dice_seed`).
   */
  dice: DiceView | null;
  /**
   * The effects running on the scene and on the combatants this viewer sees (R90).
   */
  effects: EffectView[];
  /**
   * Why it ended (`end_encounter.reason`).
   */
  end_reason: string | null;
  /**
   * Whether the scene is over.
   */
  ended: boolean;
  /**
   * The combatants flat-footed now.
   */
  flat_footed: string[];
  /**
   * The combatants in the air after a flying move (R83), there for all to see.
   */
  flying: string[];
  /**
   * Grabbed combatants and who grabs them (Grab), as far as this viewer sees them.
   */
  grabs: {
    [k: string]: string[];
  };
  /**
   * The encounter's id.
   */
  id: string;
  /**
   * The initiative entries of the combatants, in the order's order (the screen has none: its count is `options.screen_count` once its round begins).
   */
  initiative: InitiativeEntry1[];
  /**
   * The battle map (`battle-map.schema.json`; `null`: none).
   */
  map: BattleMap1 | null;
  /**
   * The encounter's name.
   */
  name: string;
  /**
   * Each combatant's numbers as the rules compute them now, by id, for the combatants whose `stats` this viewer sees (the GM: all; a player: its own).
   */
  numbers: {
    [k: string]: NumbersView;
  };
  options: EncounterOptions1;
  /**
   * The initiative order, highest first (combatant ids); with anonymous hidden turns also `screen`, the GM's screen, at its count (R99: the GM's order lists the combatants who act in its turn right after it).
   */
  order: string[];
  /**
   * The states of a conscious combatant's `vitals.condition` that put it out of the fight in this ruleset ("Action Time": `["defenseless"]`, 0 Health, R29; "MLP Dramatic Systems": `[]`); a combatant not `active` is out of it in every ruleset.
   */
  out_of_fight: string[];
  /**
   * The roll requests waiting for dice: all of them for the GM; for the others those of the visible player characters, and the GM's to a `roll` integration.
   */
  pending_rolls: PendingRollView[];
  /**
   * The statechart's configuration (docs/statecharts.md): `["setup"]`, `["rolling_initiative"]`, a running scene (a parallel state: `"phase"` holds `"surprise_round"` or `"regular_rounds"`; `"rounds"` holds `"round"`, `"turn"` and either `"acting"` with the turn's budget state `"fresh"`, `"underway"` or `"spent"`, or `"interrupted"` while a readied action is resolved), or `["ended"]`. Test membership, not order.
   */
  phase: string[];
  /**
   * The top-left square `[x, y]` of each placed combatant, by id.
   */
  positions: {
    /**
     * @minItems 2
     * @maxItems 2
     */
    [k: string]: never[];
  };
  /**
   * Readied actions by combatant: all of them for the GM, a player's own combatants'.
   */
  readied: {
    [k: string]: ReadiedView;
  };
  /**
   * The statements accepted with reservation that wait for the GM's ruling on the doubt (`rule_doubt`), by id, `loss` the one recorded: half of it if the doubt is unfounded (R48).
   */
  reservations: {
    [k: string]: AnswerView;
  };
  /**
   * The round: 0 before the first and during the surprise round.
   */
  round: number;
  /**
   * Its ruleset (`dramatic`, `action_time`...).
   */
  ruleset: "dramatic";
  /**
   * The social event and each visible combatant's standing at it; `null` outside social play.
   */
  social: SocialView | null;
  /**
   * The turn timer of the running turn (R102; `null`: none runs).
   */
  timer: TimerView | null;
  /**
   * Every credential of the encounter.
   */
  tokens: TokenView[];
  /**
   * The running turn (`null`: none, or a hidden combatant's); the screen's, `combatant` `screen` and its budget untouched, for a player or spectator while it runs (R99).
   */
  turn: TurnView | null;
  /**
   * The combatants unaware of the attacks made on them during the scene (`awareness_set` with `in_scene`; R82): the GM's call.
   */
  unaware: string[];
  /**
   * The players' requests to undo waiting for the GM (R108): all of them for the GM, a player's own to the player. Added in protocol 1.7.
   */
  undo_requests: UndoRequestView[];
}
/**
 * A statement that hit and waits for its target's answer, or for the GM's ruling on the doubt of its target's reservation (R48).
 */
export interface AnswerView {
  /**
   * What it costs the target if it does not answer (a reservation's: the loss recorded).
   */
  loss: number;
  /**
   * Who made it (`null`: a hidden speaker).
   */
  speaker: string | null;
  /**
   * Who answers it.
   */
  target: string;
}
/**
 * A statement a combatant can use in a social maneuver (STATEMENTS).
 */
export interface ArgumentView {
  /**
   * The combatant whose statement it is.
   */
  owner: string;
  /**
   * A perilous statement (R28).
   */
  perilous: boolean;
  /**
   * Its size (`tiny` ... `large`); `null` once spent.
   */
  size: string | null;
  /**
   * What it says.
   */
  text: string;
}
/**
 * A combatant as the encounter records it (`combatant_added`), with what this viewer may do with it and its vitals.
 */
export interface CombatantView {
  /**
   * Aware of its opponents when the scene starts (AWARENESS AND SURPRISE; R42).
   */
  aware: boolean;
  /**
   * Whether this credential may act for it.
   */
  controlled: boolean;
  /**
   * The ids a virtual tabletop gave it in its stat block (`external_ids`), by name; `{}` when none.
   */
  external_ids: {
    [k: string]: string;
  };
  /**
   * The NPC group that rolls one initiative with it (R6, R39), if any.
   */
  group: string | null;
  /**
   * Hidden from players and spectators (R79): only the GM sees a hidden combatant.
   */
  hidden: boolean;
  /**
   * Its id in commands and events.
   */
  id: string;
  /**
   * The Initiative modifier of its stat block.
   */
  initiative_mod: number;
  /**
   * `pc`, a player character, or `npc`, the GM's.
   */
  kind: "npc" | "pc";
  /**
   * Its name, as the table shows it.
   */
  name: string;
  /**
   * Its side: combatants of one side are allies.
   */
  side: string;
  /**
   * The size of its space on the map ("MLP Dramatic Systems": `medium`, `large`...), there for all to see; `null` in a ruleset without sizes.
   */
  size: string | null;
  /**
   * The ruleset's statistics, as the stat block gives them (`stat-block.<ruleset>.schema.json`): for the GM, and for a player its own combatants'; `{}` for the others.
   */
  stats: {};
  vitals?: VitalsView;
}
/**
 * Its vitals; left out for a combatant without any (a ruleset that keeps none).
 */
export interface VitalsView {
  /**
   * How the fatigue points (Health) stand, for every viewer, also where `fatigue` is `null` (R105): `full`, `above_half`, `half_or_less` (one-half or less, the line of Second Lunch), `none` (0); `null` without a maximum. The ruleset's words for each are in `GET /table/rulesets.json` (`bands`). Added in protocol 1.6.
   */
  band: ("above_half" | "full" | "half_or_less" | "none") | null;
  /**
   * Bound or asleep: the GM's part of helplessness (`adjust_combatant.helpless`).
   */
  bound_or_asleep: boolean;
  /**
   * The round of the Constitution check an unconscious combatant awaits (R16), if any.
   */
  check_round: number | null;
  /**
   * The configuration of the combatant's condition chart (docs/statecharts.md): `["active", "fit"]`, `["active", "defenseless"]`, `["unconscious", "awaiting_check"]`, `["unconscious", "out_for_scene"]`, `["dead"]`, `["destroyed"]`. Test membership, not order.
   */
  condition: string[];
  /**
   * Fatigue points now (Health in "Action Time"); `null` for an NPC of the GM's, to a viewer that does not control it (behind the GM's screen).
   */
  fatigue: number | null;
  /**
   * Fatigue points at full (maximum Health); `null` as `fatigue` is.
   */
  fatigue_max: number | null;
  /**
   * HELPLESS CONDITION as attacks count it: bound or asleep, unconscious, or at the bottom of a condition track.
   */
  helpless: boolean;
  /**
   * The mental condition track; `null` for objects.
   */
  mental: Track1 | null;
  physical: Track2;
  /**
   * Prone.
   */
  prone: boolean;
  /**
   * Second Lunch taken in this encounter (never twice in one, SWIFT ACTIONS).
   */
  second_lunch: boolean;
  /**
   * An object's running structure loss (Destructive Harvest, R46).
   */
  structure_loss: number;
}
/**
 * A condition track (ruling R15): `step` 0 (normal) to 5 (bottom: unconscious, or destroyed for objects); `persistent` of those steps cannot be recovered without treatment, `crippling` of those only by the GM (R14.4, R17); `penalty` on checks and defenses.
 */
export interface Track1 {
  crippling: number;
  penalty: number;
  persistent: number;
  step: number;
}
/**
 * A condition track (ruling R15): `step` 0 (normal) to 5 (bottom: unconscious, or destroyed for objects); `persistent` of those steps cannot be recovered without treatment, `crippling` of those only by the GM (R14.4, R17); `penalty` on checks and defenses.
 */
export interface Track2 {
  crippling: number;
  penalty: number;
  persistent: number;
  step: number;
}
/**
 * The encounter's verifiable dice (R101; docs/protocol.md "Verifiable server dice").
 */
export interface DiceView {
  /**
   * The entropy chain as it stands: the commitment, then each piece of entropy taken in (`dice_entropy_added`).
   */
  chain: string;
  /**
   * The SHA-256 (hex) of the secret the server's dice are drawn from (`dice_committed`).
   */
  commitment: string;
  /**
   * How many pieces of entropy the dice have taken in.
   */
  entropy: number;
  /**
   * The secrets (hex) of earlier commitments, oldest first, each shown again when the dice were renewed (`dice_renewed`, R117: Redis went back to before their `dice_revealed`); absent when the dice were never renewed.
   */
  renewed?: string[];
  /**
   * The secret (hex), once shown at the end (`dice_revealed`); `null` before.
   */
  secret: string | null;
}
/**
 * A running effect, as the `effect_started` event that started it gives it (without `kind`); an `origin` this viewer may not see is `null`, and the effect's `source` empty (ruling R97: it goes by its name).
 */
export interface EffectView {
  /**
   * The combatant it is on (`null`: the scene).
   */
  combatant: string | null;
  /**
   * The initiative count it began on.
   */
  count: number;
  /**
   * Its id.
   */
  effect: string;
  /**
   * The round in which it ends, just before the same count (THE COMBAT ROUND).
   */
  ends_round: number;
  /**
   * What it changes (R90).
   */
  modifiers: EffectModifier1[];
  /**
   * Its name.
   */
  name: string;
  /**
   * The combatant whose talent, spell or action it is (`null`: none, or one hidden from this viewer).
   */
  origin: string | null;
  /**
   * `origin` is a hidden combatant.
   */
  origin_hidden: boolean;
  /**
   * The round it began in.
   */
  round: number;
  /**
   * The rounds it lasts (with `until: rounds`).
   */
  rounds: number;
  /**
   * The thing it comes from (empty: `name`; always empty for an `origin` this viewer may not see, R97).
   */
  source: string;
  /**
   * What sort of thing that is.
   */
  source_kind: string;
  /**
   * How long it lasts (R90).
   */
  until: "end_of_round" | "ended" | "rounds" | "scene" | "start_of_next_turn";
}
/**
 * What an effect changes and by how much: a number (a bonus or penalty; for the `*_steps` targets of "Action Time", upgrades + and downgrades -), or a die (`"d6"`) for a target that adds a die.
 */
export interface EffectModifier1 {
  amount: number | string;
  /**
   * What the modifier changes: a target the ruleset lists (docs/actions.md, "Effects"), or gm:<name>, a quantity the GM names and reads (ruling R90).
   */
  target: string;
}
/**
 * One place in the initiative order: the check's `total`, the Initiative `modifier`, the faces of any `rolloff` that broke a tie, and whether the combatant is `hidden`. `count` is the initiative count it acts on now (the total, until a delay or a readied action moves it; rulings R7, R8); `group` the NPC group that rolled together (R6).
 */
export interface InitiativeEntry1 {
  combatant: string;
  count: number | null;
  group: string | null;
  hidden: boolean;
  modifier: number;
  rolloff: number[];
  total: number;
}
/**
 * A battle map of "MLP Dramatic Systems": a grid of squares of 1.5 m (SPEED). A square is `[x, y]`, x from 0 to the right (east), y from 0 downwards (south), as the map is drawn; square `[x, y]` spans grid point `[x, y]` to grid point `[x + 1, y + 1]`, so grid points run from `[0, 0]` to `[width, height]`. Every layer but `width` and `height` may be left out. Blocked squares and walls give total cover and block movement, line of sight and line of effect; diagonal movement past the corner or end of either is refused (DIAGONAL MOVEMENT). A combatant's `position` is the top-left square of its space (Large 2x2, Huge 3x3, Gargantuan 4x4, Colossal 6x6; OCCUPIED SPACE, R63).
 */
export interface BattleMap1 {
  /**
   * Solid squares: walls, pillars, closed rock (total cover; no movement, no line of sight). A list of squares `[x, y]`.
   */
  blocked: never[][];
  /**
   * Total concealment: total darkness, thick smoke (CONCEALMENT). A list of squares `[x, y]`.
   */
  darkness: never[][];
  /**
   * Difficult terrain: rubble, mud, brush; entering a square costs double (DIFFICULT TERRAIN). A list of squares `[x, y]`.
   */
  difficult: never[][];
  /**
   * Concealment: fog, smoke, dim light, foliage (CONCEALMENT). A list of squares `[x, y]`.
   */
  fog: never[][];
  /**
   * Squares from north to south, 1 to 1000.
   */
  height: number;
  /**
   * Arrow slits, narrow apertures: improved cover (ruling R65). A list of squares `[x, y]`.
   */
  improved_cover: never[][];
  /**
   * Low objects: crates, low walls, furniture: cover, except in the own space and adjacent squares; entering costs double (Low Objects and Cover). A list of squares `[x, y]`.
   */
  low: never[][];
  /**
   * Pits: a creature entering one falls (ruling R66). A list of squares `[x, y]`.
   */
  pits: never[][];
  /**
   * Thin walls along grid lines, each `[[x1, y1], [x2, y2]]` from grid point to grid point, horizontal or vertical, possibly longer than one square: the squares on either side are open floor, but nothing passes or sees across the wall. At most 20,000 squares' length of wall in all.
   */
  walls: never[][];
  /**
   * Squares from west to east, 1 to 1000.
   */
  width: number;
}
/**
 * A combatant's numbers as the rules compute them now.
 */
export interface NumbersView {
  defenses: DefensesView;
  /**
   * The same for a flying move (R83); `null` without a fly speed.
   */
  fly_speed: number | null;
  /**
   * The speed a move counts, in squares: effects and the condition track included (SPEED; R15, R90).
   */
  speed: number;
  /**
   * The effects' modifiers on speed (R90, R92).
   */
  speed_modifiers: Modifier1[];
}
/**
 * The four defenses, itemised.
 */
export interface DefensesView {
  fortitude: DefenseView;
  reflex: DefenseView;
  will: DefenseView;
  wits: DefenseView;
}
/**
 * A defense as the next attack reads it, every part itemised as `attack_resolved.defense_parts` is.
 */
export interface DefenseView {
  /**
   * Its parts.
   */
  parts: Modifier1[];
  /**
   * The defense.
   */
  total: number;
}
/**
 * One itemised part of a roll, a defense or a damage total: `name` says what it is, `value` is signed, `section` names the rule text's section (and ruling, if any).
 */
export interface Modifier1 {
  name: string;
  section: string;
  value: number;
}
/**
 * Every option of the encounter (`options.<ruleset>.schema.json`).
 */
export interface EncounterOptions1 {
  /**
   * R32: a newcomer rolls at once and acts this round if its place comes after the current turn (else it enters at the start of the next round).
   */
  action_time_join_immediately: boolean;
  /**
   * R99: the table sees a turn of "someone behind the GM's screen" (`screen` in the order) every round, in which every hidden combatant takes its turn; set before `start_encounter`.
   */
  anonymous_hidden_turns: boolean;
  /**
   * R25: the row of the harmony/discord table that the missing differences 11 to 14 (and -11 to -14) take: the lower (Small) or the upper (Medium).
   */
  aura_gap_band: "lower" | "upper";
  /**
   * R15: a creature at step 3 or 4 of the condition track moves at half speed, as in Star Wars Saga Edition.
   */
  condition_half_speed: boolean;
  /**
   * R9: a creature in the way blocks a shot (else it gives cover).
   */
  creatures_block_line_of_sight: boolean;
  /**
   * R60: the Speed of a stat block without `speed`, in yards.
   */
  default_speed_yards: number;
  /**
   * R3: a combatant that delays stays flat-footed until it acts (`false`: flat-footedness ends when its first regular turn comes up).
   */
  delay_keeps_flat_footed: boolean;
  dice_seed: number | null;
  /**
   * R30: upgrades beyond d20 and downgrades below d4 are lost (`clamp`), or each adds +1 (or -1) to the face (`modifier`; a face is at least 1).
   */
  die_ladder_overflow: "clamp" | "modifier";
  /**
   * R26: a debate ends by itself when the attitude reaches unfriendly (`false`: the GM ends it with `end_encounter`).
   */
  dispute_ends_at_unfriendly: boolean;
  /**
   * R13: a hit that damage reduction lowers below 1 still deals 1.
   */
  dr_respects_minimum_damage: boolean;
  /**
   * R50: when the scene ends, everyone conscious improves a step on the condition track (`false`: the track is left as it is).
   */
  end_of_scene_recovery: boolean;
  /**
   * R12: Engage damage adds one-half heroic level (`false`: Strength modifier + weapon damage only).
   */
  engage_adds_half_level: boolean;
  /**
   * R25: the temporary Social Status an event attended gives.
   */
  event_status_boost: number;
  /**
   * R22: the Acrobatics DC that reduces a fall (trained only).
   */
  falling_acrobatics_dc: number;
  /**
   * R22: the meters of a fall that a successful Acrobatics check takes off.
   */
  falling_acrobatics_reduction_m: number;
  /**
   * R2: aware combatants stay flat-footed through the surprise round until their first regular turn.
   */
  flat_footed_until_regular_turn: boolean;
  /**
   * R33: a successful Heal rolls the Mind die again for the amount (else the test roll heals).
   */
  heal_rolls_again: boolean;
  /**
   * R33: a combatant may Heal itself.
   */
  heal_self: boolean;
  /**
   * The GM rolls physical dice for the NPCs (the GM's combatants): each roll waits for a `submit_roll` (`roll_requested`).
   */
  manual_rolls: boolean;
  /**
   * R24: the non-dexterous malus of a grab by a creature without hands (`non_dexterous` stat blocks).
   */
  non_dexterous_penalty: number;
  /**
   * Players and spectators see the dice of NPC rolls (else the GM rolls behind the screen; the results that follow from them are public).
   */
  npc_rolls_public: boolean;
  /**
   * R38: a tie of an opposed test is always rolled again after the die-size comparison (else it goes to the defender).
   */
  opposed_tie_reroll: boolean;
  /**
   * Players roll physical dice for their own characters: each roll waits for a `submit_roll` (`roll_requested`).
   */
  players_roll: boolean;
  /**
   * R19: the squares a prone creature crawls with a move action.
   */
  prone_crawl_squares: number;
  /**
   * R10: a melee attack on a target both helpless and prone gets +4 (else +2).
   */
  prone_helpless_bonuses_stack: boolean;
  /**
   * R23: a ram needs a hit (`false`: it always connects).
   */
  ram_needs_attack_roll: boolean;
  /**
   * R23: a ram's Speed is the distance moved this turn, in squares (the ram's `moved` argument; else the speed of the stat block).
   */
  ram_speed_from_distance: boolean;
  /**
   * R4: flat-footed and unaware combatants may use reactions (`false`: no reactions either).
   */
  reactions_while_flat_footed: boolean;
  /**
   * R8: readying also costs the standard action, whatever is readied.
   */
  ready_costs_standard_action: boolean;
  /**
   * R18: Recover may be used in a dramatic scene.
   */
  recover_in_scene: boolean;
  /**
   * R21: a Refined Garment runs at three times speed (else four times; an Exclusive Garderobe three).
   */
  refined_garment_runs_triple: boolean;
  /**
   * The options of a ruleset the server registers beyond the two it ships, by name, as that ruleset declares them (an unknown name or a bad value is refused with `invalid_payload`); `{}` for `dramatic` and `action_time`, whose options are the fields of this object.
   */
  ruleset_options: {};
  /**
   * R99: the initiative count the GM's screen acts on with `anonymous_hidden_turns` (after the combatants on the same count); changed during the scene, it moves the screen from the next round.
   */
  screen_count: number;
  /**
   * R76: the skill of a social attack roll (any skill name of the stat blocks).
   */
  social_attack_skill: string;
  /**
   * R20: what a square costs, times this, when squeezing through a space too narrow.
   */
  squeeze_cost_multiplier: number;
  /**
   * R1: when nobody is aware, an empty surprise round is recorded and everyone starts flat- footed until its first regular turn.
   */
  surprise_when_none_aware: boolean;
  /**
   * R102: what a turn timer running out does: `notify` (only `turn_timer_expired`), `end_turn` (the turn ends as if its combatant had ended it) or `delay` (its combatant delays, Dramatic only).
   */
  turn_expiry: "delay" | "end_turn" | "notify";
  turn_seconds: number | null;
  /**
   * R102: how many seconds before a turn timer runs out everyone is warned (`turn_timer_warned`); 0, or as many as `turn_seconds` or more: no warning.
   */
  turn_warning_seconds: number;
  /**
   * R28: the statement a caught white lie leaves: one size smaller (`smaller`) or the lie's own size (`same`).
   */
  white_lie_statement: "same" | "smaller";
  /**
   * R14: the excess of the hit that reaches 0 fatigue points counts as a loss at 0 (`false`: it is discarded).
   */
  zero_fp_overflow_counts: boolean;
  /**
   * R14: a creature at 0 fatigue points takes a single action a turn (`false`: it acts normally and is only defenseless).
   */
  zero_fp_single_action: boolean;
  /**
   * R14: the tiers of a loss at 0 fatigue points start at the threshold and at twice it (else above them).
   */
  zero_fp_threshold_inclusive: boolean;
}
/**
 * A roll the encounter waits for (physical dice), as its `roll_requested` event gives it to this viewer.
 */
export interface PendingRollView {
  /**
   * The combatant it is rolled for (`null` to a viewer that does not see it).
   */
  combatant: string | null;
  /**
   * The server's bookkeeping of the roll: the GM's only (`null` for the others).
   */
  context: {} | null;
  /**
   * The sides of each die to roll.
   */
  dice: number[];
  /**
   * The dice to roll, as `1d20+3`.
   */
  expr: string;
  /**
   * What the roll is for (`initiative`, `attack`...).
   */
  purpose: string;
  /**
   * The request id `submit_roll` answers.
   */
  request: string;
  /**
   * Who rolls: `gm`, or a combatant id.
   */
  roller: string;
}
/**
 * An action readied (`ready`, R8), waiting for its trigger.
 */
export interface ReadiedView {
  /**
   * The action readied.
   */
  action: string;
  /**
   * The kind of action it is (`standard`, `move`...).
   */
  action_type: string;
  /**
   * The round it was readied in.
   */
  round: number;
  /**
   * What it waits for, in the player's words.
   */
  trigger: string;
}
/**
 * The social event and each visible combatant's standing at it.
 */
export interface SocialView {
  /**
   * The social event (`null`: none).
   */
  event: SocialEventView | null;
  /**
   * Each visible combatant's, by id.
   */
  standing: {
    [k: string]: StandingView;
  };
}
/**
 * The social event of the scene, as the `social_event_set` event gives it (without `kind`): its Event Rating and its parts (SOCIAL EVENTS; R25, R71).
 */
export interface SocialEventView {
  /**
   * Its challenge rating, if the GM gave one.
   */
  challenge_rating: number | null;
  /**
   * The social circle the event is held in.
   */
  circle: string | null;
  /**
   * Which encounter of the event this is (from 1).
   */
  encounter: number;
  /**
   * Whether it is the event's last encounter.
   */
  last: boolean;
  /**
   * The organiser (`null`: none, or one hidden from this viewer).
   */
  organizer: string | null;
  /**
   * The organiser is a hidden combatant.
   */
  organizer_hidden: boolean;
  /**
   * The rating's parts, itemised.
   */
  parts: Modifier1[];
  /**
   * The Event Rating (`null`: no event).
   */
  rating: number | null;
  /**
   * Its topic.
   */
  topic: string | null;
}
/**
 * A combatant's standing at the scene's event (SOCIAL SYSTEMS; R25, R70-R73).
 */
export interface StandingView {
  /**
   * Social Access Rating at the event (R72); `null` without an event.
   */
  access: number | null;
  /**
   * The aura of harmony or discord the gap to the Event Rating makes (R25, R73); `null` without an event.
   */
  aura: Aura | null;
  /**
   * Discord points.
   */
  discord: number;
  /**
   * Harmony points.
   */
  harmony: number;
  /**
   * Social Status, with the situation the GM set (R70).
   */
  status: number;
  /**
   * Its parts, itemised.
   */
  status_parts: Modifier1[];
}
/**
 * An Aura of Harmony or Discord: `level` 1 (difference 1 to 5) to 4 (21 and more), 0 for none; `argument`: the size of the argument it makes (Tiny .. Large).
 */
export interface Aura {
  argument: Size | null;
  difference: number;
  kind: AuraKind;
  level: number;
  timing: AuraTiming;
}
/**
 * The running turn timer (the `turn_seconds` option, R102).
 */
export interface TimerView {
  /**
   * Whose turn it counts.
   */
  combatant: string;
  /**
   * When it runs out, in milliseconds since the Unix epoch on the server's clock (the `ts` of the messages is the same clock); `null` while the GM has paused it.
   */
  deadline: number | null;
  /**
   * Which timer of the encounter it is (they are counted).
   */
  number: number;
  /**
   * While paused, the milliseconds it has left; `null` while it runs.
   */
  remaining: number | null;
  /**
   * When everyone is warned (`turn_timer_warned`); `null`: no warning to come.
   */
  warn_at: number | null;
}
/**
 * A credential of the encounter (its secret is not here).
 */
export interface TokenView {
  /**
   * The combatants a player's credential acts for.
   */
  combatants: string[];
  /**
   * When it expires (ms since the epoch, server time), or `null`.
   */
  expires_at: number | null;
  /**
   * The GM's label for it.
   */
  label: string | null;
  /**
   * Revoked (`revoke_token`).
   */
  revoked: boolean;
  /**
   * What it is: the GM's, a player's, a spectator's, an integration's.
   */
  role: "gm" | "integration" | "player" | "spectator";
  /**
   * An integration's scopes.
   */
  scopes: ("command:gm" | "command:players" | "roll" | "view:gm" | "view:public")[];
  /**
   * Its id (`revoke_token`).
   */
  token_id: string;
}
/**
 * The turn being taken: whose, what is left of its budget, whether a readied action interrupts it.
 */
export interface TurnView {
  /**
   * Whether the combatant has done anything this turn.
   */
  acted: boolean;
  /**
   * Each slot of the turn's budget in its ruleset's words ("MLP Dramatic Systems": `standard`, `move`, `swift`; "Action Time": `major`, `minor`...), and whether it is still free.
   */
  budget: {
    [k: string]: boolean;
  };
  /**
   * Whose turn it is.
   */
  combatant: string;
  /**
   * Where in the order the combatant stood when it left the order during its own turn (it died): the next turn is planned from there.
   */
  gone_at: number | null;
  /**
   * The combatant whose readied action interrupts the turn now (`null`: none, or one hidden from this viewer).
   */
  interrupted_by: string | null;
}
/**
 * A player's request to undo its combatant's last action, waiting for the GM (R108).
 */
export interface UndoRequestView {
  /**
   * The seq the undo would go back to: the GM's (`null` for the player).
   */
  back_to: number | null;
  /**
   * Whose action it would take back.
   */
  combatant: string;
  /**
   * The player's reason.
   */
  reason: string | null;
  /**
   * The request id `undo` (`request`) and `refuse_undo` take.
   */
  request: string;
}
/**
 * A snapshot's `state` in an encounter of `dramatic` (MLP Dramatic Systems), as a player or a spectator sees it. The encounter as a player or a spectator sees it: no hidden combatant, nor its place in the order, its turn, its effects or its rolls; `stats` empty and an NPC's `fatigue` `null` for the combatants it does not control; two of the options.
 */
export interface MLPDramaticSystemsAsAPlayerOrASpectatorSeesIt {
  /**
   * The statements that hit and wait for their target's answer, by id (R48).
   */
  answers: {
    [k: string]: AnswerView;
  };
  /**
   * The statements of the visible combatants, by id (STATEMENTS).
   */
  arguments: {
    [k: string]: ArgumentView;
  };
  /**
   * Attitudes: holder -> toward -> attitude (R25).
   */
  attitudes: {
    [k: string]: {
      [k: string]: Attitude;
    };
  };
  /**
   * The combatants Blocking (R49).
   */
  blocking: string[];
  /**
   * The combatants this viewer sees.
   */
  combatants: CombatantView[];
  /**
   * When the encounter was created (ms since the epoch).
   */
  created_ts: number;
  /**
   * Whose turn it is (`null` between turns, or when that combatant is hidden from this viewer); `screen` while the GM's screen takes its turn (R99: for a player or spectator, whoever acts behind it).
   */
  current: string | null;
  /**
   * Whether Dispute and Conversation are over for this scene (R26).
   */
  debate_over: boolean;
  /**
   * The combatants delaying their turn (R7).
   */
  delaying: string[];
  /**
   * The verifiable dice (R101; `null`: the dice are not verifiable, with a `dice_seed`).
   */
  dice: DiceView | null;
  /**
   * The effects running on the scene and on the combatants this viewer sees (R90).
   */
  effects: EffectView[];
  /**
   * Why it ended (`end_encounter.reason`).
   */
  end_reason: string | null;
  /**
   * Whether the scene is over.
   */
  ended: boolean;
  /**
   * The combatants flat-footed now.
   */
  flat_footed: string[];
  /**
   * The combatants in the air after a flying move (R83), there for all to see.
   */
  flying: string[];
  /**
   * Grabbed combatants and who grabs them (Grab), as far as this viewer sees them.
   */
  grabs: {
    [k: string]: string[];
  };
  /**
   * The encounter's id.
   */
  id: string;
  /**
   * The initiative entries of the combatants, in the order's order (the screen has none: its count is `options.screen_count` once its round begins).
   */
  initiative: InitiativeEntry1[];
  /**
   * The battle map (`battle-map.schema.json`; `null`: none).
   */
  map: BattleMap1 | null;
  /**
   * The encounter's name.
   */
  name: string;
  /**
   * Each combatant's numbers as the rules compute them now, by id, for the combatants whose `stats` this viewer sees (the GM: all; a player: its own).
   */
  numbers: {
    [k: string]: NumbersView;
  };
  options: PublicOptions;
  /**
   * The initiative order, highest first (combatant ids); with anonymous hidden turns also `screen`, the GM's screen, at its count (R99: the GM's order lists the combatants who act in its turn right after it).
   */
  order: string[];
  /**
   * The states of a conscious combatant's `vitals.condition` that put it out of the fight in this ruleset ("Action Time": `["defenseless"]`, 0 Health, R29; "MLP Dramatic Systems": `[]`); a combatant not `active` is out of it in every ruleset.
   */
  out_of_fight: string[];
  /**
   * The roll requests waiting for dice: all of them for the GM; for the others those of the visible player characters, and the GM's to a `roll` integration.
   */
  pending_rolls: PendingRollView[];
  /**
   * The statechart's configuration (docs/statecharts.md): `["setup"]`, `["rolling_initiative"]`, a running scene (a parallel state: `"phase"` holds `"surprise_round"` or `"regular_rounds"`; `"rounds"` holds `"round"`, `"turn"` and either `"acting"` with the turn's budget state `"fresh"`, `"underway"` or `"spent"`, or `"interrupted"` while a readied action is resolved), or `["ended"]`. Test membership, not order.
   */
  phase: string[];
  /**
   * The top-left square `[x, y]` of each placed combatant, by id.
   */
  positions: {
    /**
     * @minItems 2
     * @maxItems 2
     */
    [k: string]: never[];
  };
  /**
   * Readied actions by combatant: all of them for the GM, a player's own combatants'.
   */
  readied: {
    [k: string]: ReadiedView;
  };
  /**
   * The statements accepted with reservation that wait for the GM's ruling on the doubt (`rule_doubt`), by id, `loss` the one recorded: half of it if the doubt is unfounded (R48).
   */
  reservations: {
    [k: string]: AnswerView;
  };
  /**
   * The round: 0 before the first and during the surprise round.
   */
  round: number;
  /**
   * Its ruleset (`dramatic`, `action_time`...).
   */
  ruleset: "dramatic";
  /**
   * The social event and each visible combatant's standing at it; `null` outside social play.
   */
  social: SocialView | null;
  /**
   * The turn timer of the running turn (R102; `null`: none runs).
   */
  timer: TimerView | null;
  /**
   * The running turn (`null`: none, or a hidden combatant's); the screen's, `combatant` `screen` and its budget untouched, for a player or spectator while it runs (R99).
   */
  turn: TurnView | null;
  /**
   * The players' requests to undo waiting for the GM (R108): all of them for the GM, a player's own to the player. Added in protocol 1.7.
   */
  undo_requests: UndoRequestView[];
}
/**
 * The options a player or spectator is told (`options.<ruleset>.schema.json`).
 */
export interface PublicOptions {
  /**
   * Anonymous hidden turns (R99): the order holds `screen`, the turn of "someone behind the GM's screen" (only with the option: absent, it is off).
   */
  anonymous_hidden_turns?: boolean;
  /**
   * Players and spectators see the dice of NPC rolls.
   */
  npc_rolls_public: boolean;
  /**
   * Players roll physical dice for their own characters.
   */
  players_roll: boolean;
  /**
   * The initiative count the GM's screen acts on from the next round (R99; only with `anonymous_hidden_turns`).
   */
  screen_count?: number;
}
/**
 * A snapshot's `state` in an encounter of `action_time` (Action Time), as the GM (and a `view:gm` integration) sees it. The encounter as the GM (and a `view:gm` integration) sees it: everything, hidden combatants included, with every option and credential.
 */
export interface ActionTimeAsTheGMAndAViewGmIntegrationSeesIt {
  action_time: AtStateView;
  /**
   * Empty unless the ruleset fills it (its part of the view: see its `state`).
   */
  answers: {};
  /**
   * Empty unless the ruleset fills it (its part of the view: see its `state`).
   */
  arguments: {};
  /**
   * Empty unless the ruleset fills it (its part of the view: see its `state`).
   */
  attitudes: {};
  /**
   * Empty unless the ruleset fills it (its part of the view: see its `state`).
   *
   * @maxItems 0
   */
  blocking: [];
  /**
   * The combatants this viewer sees.
   */
  combatants: CombatantView[];
  /**
   * When the encounter was created (ms since the epoch).
   */
  created_ts: number;
  /**
   * Whose turn it is (`null` between turns, or when that combatant is hidden from this viewer); `screen` while the GM's screen takes its turn (R99: for a player or spectator, whoever acts behind it).
   */
  current: string | null;
  /**
   * Empty unless the ruleset fills it (its part of the view: see its `state`).
   */
  debate_over: false;
  /**
   * The combatants delaying their turn (R7).
   */
  delaying: string[];
  /**
   * The verifiable dice (R101; `null`: the dice are not verifiable, with a `dice_seed`).
   */
  dice: DiceView | null;
  /**
   * The effects running on the scene and on the combatants this viewer sees (R90).
   */
  effects: EffectView[];
  /**
   * Why it ended (`end_encounter.reason`).
   */
  end_reason: string | null;
  /**
   * Whether the scene is over.
   */
  ended: boolean;
  /**
   * The combatants flat-footed now.
   */
  flat_footed: string[];
  /**
   * Empty unless the ruleset fills it (its part of the view: see its `state`).
   *
   * @maxItems 0
   */
  flying: [];
  /**
   * Empty unless the ruleset fills it (its part of the view: see its `state`).
   */
  grabs: {
    [k: string]: string[];
  };
  /**
   * The encounter's id.
   */
  id: string;
  /**
   * The initiative entries of the combatants, in the order's order (the screen has none: its count is `options.screen_count` once its round begins).
   */
  initiative: InitiativeEntry1[];
  /**
   * The battle map (`battle-map.schema.json`; `null`: none).
   */
  map: BattleMap1 | null;
  /**
   * The encounter's name.
   */
  name: string;
  options: EncounterOptions2;
  /**
   * The initiative order, highest first (combatant ids); with anonymous hidden turns also `screen`, the GM's screen, at its count (R99: the GM's order lists the combatants who act in its turn right after it).
   */
  order: string[];
  /**
   * The states of a conscious combatant's `vitals.condition` that put it out of the fight in this ruleset ("Action Time": `["defenseless"]`, 0 Health, R29; "MLP Dramatic Systems": `[]`); a combatant not `active` is out of it in every ruleset.
   */
  out_of_fight: string[];
  /**
   * The roll requests waiting for dice: all of them for the GM; for the others those of the visible player characters, and the GM's to a `roll` integration.
   */
  pending_rolls: PendingRollView[];
  /**
   * The statechart's configuration (docs/statecharts.md): `["setup"]`, `["rolling_initiative"]`, a running scene (a parallel state: `"phase"` holds `"surprise_round"` or `"regular_rounds"`; `"rounds"` holds `"round"`, `"turn"` and either `"acting"` with the turn's budget state `"fresh"`, `"underway"` or `"spent"`, or `"interrupted"` while a readied action is resolved), or `["ended"]`. Test membership, not order.
   */
  phase: string[];
  /**
   * The top-left square `[x, y]` of each placed combatant, by id.
   */
  positions: {
    /**
     * @minItems 2
     * @maxItems 2
     */
    [k: string]: never[];
  };
  /**
   * Readied actions by combatant: all of them for the GM, a player's own combatants'.
   */
  readied: {
    [k: string]: ReadiedView;
  };
  /**
   * The round: 0 before the first and during the surprise round.
   */
  round: number;
  /**
   * Its ruleset (`dramatic`, `action_time`...).
   */
  ruleset: "action_time";
  /**
   * Empty unless the ruleset fills it (its part of the view: see its `state`).
   */
  social: null;
  /**
   * The turn timer of the running turn (R102; `null`: none runs).
   */
  timer: TimerView | null;
  /**
   * Every credential of the encounter.
   */
  tokens: TokenView[];
  /**
   * The running turn (`null`: none, or a hidden combatant's); the screen's, `combatant` `screen` and its budget untouched, for a player or spectator while it runs (R99).
   */
  turn: TurnView | null;
  /**
   * The combatants unaware of the attacks made on them during the scene (`awareness_set` with `in_scene`; R82): the GM's call.
   */
  unaware: string[];
  /**
   * The players' requests to undo waiting for the GM (R108): all of them for the GM, a player's own to the player. Added in protocol 1.7.
   */
  undo_requests: UndoRequestView[];
}
/**
 * "Action Time"'s effects, what the combatants hold, and their numbers.
 */
export interface AtStateView {
  /**
   * The lasting modifiers running on the combatants this viewer sees, each as `at_effect_started.effect` gives it (the table sees every stance; an `origin` hidden from this viewer is `""`).
   */
  effects: Effect1[];
  /**
   * What each combatant holds (weapons by name, `bandages`), by id: the GM's all, a player's its own.
   */
  in_hoof: {
    [k: string]: string[];
  };
  /**
   * Each combatant's numbers, by id, for the combatants whose `stats` this viewer sees (the GM: all; a player: its own).
   */
  numbers: {
    [k: string]: AtNumbersView;
  };
}
/**
 * A lasting modifier on `holder`. `origin` is the combatant whose action, talent or spell created it; `detail` carries what some effects need (the prepared action, the pursued enemy).
 */
export interface Effect1 {
  detail: string;
  expiry: string;
  holder: string;
  origin: string;
  source: string;
  source_kind: string;
  target: string;
  value: number;
}
/**
 * A combatant's numbers as the rules compute them now (R29, R60, R90).
 */
export interface AtNumbersView {
  /**
   * The Defense attacks read, with its effects stacked as R61 (R29); `null` for a stat block without one.
   */
  defense: number | null;
  /**
   * Its effects, itemised.
   */
  defense_modifiers: DefenseModifierView[];
  /**
   * Speed as a move counts it, with its effects.
   */
  speed: number;
  /**
   * Its effects, itemised.
   */
  speed_modifiers: SpeedModifierView[];
}
/**
 * An effect on Defense as the stacking rule used it (R61).
 */
export interface DefenseModifierView {
  /**
   * Whether it counts: an effect of the very same source counts once.
   */
  counted: boolean;
  /**
   * Its source.
   */
  name: string;
  /**
   * Why it does not count (empty when it does).
   */
  note: string;
  /**
   * What it adds (0 when it is not counted).
   */
  value: number;
}
/**
 * An effect on Speed (R60, R90).
 */
export interface SpeedModifierView {
  /**
   * Its source.
   */
  name: string;
  /**
   * What it adds, in yards.
   */
  value: number;
}
/**
 * Every option of the encounter (`options.<ruleset>.schema.json`).
 */
export interface EncounterOptions2 {
  /**
   * R32: a newcomer rolls at once and acts this round if its place comes after the current turn (else it enters at the start of the next round).
   */
  action_time_join_immediately: boolean;
  /**
   * R99: the table sees a turn of "someone behind the GM's screen" (`screen` in the order) every round, in which every hidden combatant takes its turn; set before `start_encounter`.
   */
  anonymous_hidden_turns: boolean;
  /**
   * R25: the row of the harmony/discord table that the missing differences 11 to 14 (and -11 to -14) take: the lower (Small) or the upper (Medium).
   */
  aura_gap_band: "lower" | "upper";
  /**
   * R15: a creature at step 3 or 4 of the condition track moves at half speed, as in Star Wars Saga Edition.
   */
  condition_half_speed: boolean;
  /**
   * R9: a creature in the way blocks a shot (else it gives cover).
   */
  creatures_block_line_of_sight: boolean;
  /**
   * R60: the Speed of a stat block without `speed`, in yards.
   */
  default_speed_yards: number;
  /**
   * R3: a combatant that delays stays flat-footed until it acts (`false`: flat-footedness ends when its first regular turn comes up).
   */
  delay_keeps_flat_footed: boolean;
  dice_seed: number | null;
  /**
   * R30: upgrades beyond d20 and downgrades below d4 are lost (`clamp`), or each adds +1 (or -1) to the face (`modifier`; a face is at least 1).
   */
  die_ladder_overflow: "clamp" | "modifier";
  /**
   * R26: a debate ends by itself when the attitude reaches unfriendly (`false`: the GM ends it with `end_encounter`).
   */
  dispute_ends_at_unfriendly: boolean;
  /**
   * R13: a hit that damage reduction lowers below 1 still deals 1.
   */
  dr_respects_minimum_damage: boolean;
  /**
   * R50: when the scene ends, everyone conscious improves a step on the condition track (`false`: the track is left as it is).
   */
  end_of_scene_recovery: boolean;
  /**
   * R12: Engage damage adds one-half heroic level (`false`: Strength modifier + weapon damage only).
   */
  engage_adds_half_level: boolean;
  /**
   * R25: the temporary Social Status an event attended gives.
   */
  event_status_boost: number;
  /**
   * R22: the Acrobatics DC that reduces a fall (trained only).
   */
  falling_acrobatics_dc: number;
  /**
   * R22: the meters of a fall that a successful Acrobatics check takes off.
   */
  falling_acrobatics_reduction_m: number;
  /**
   * R2: aware combatants stay flat-footed through the surprise round until their first regular turn.
   */
  flat_footed_until_regular_turn: boolean;
  /**
   * R33: a successful Heal rolls the Mind die again for the amount (else the test roll heals).
   */
  heal_rolls_again: boolean;
  /**
   * R33: a combatant may Heal itself.
   */
  heal_self: boolean;
  /**
   * The GM rolls physical dice for the NPCs (the GM's combatants): each roll waits for a `submit_roll` (`roll_requested`).
   */
  manual_rolls: boolean;
  /**
   * R24: the non-dexterous malus of a grab by a creature without hands (`non_dexterous` stat blocks).
   */
  non_dexterous_penalty: number;
  /**
   * Players and spectators see the dice of NPC rolls (else the GM rolls behind the screen; the results that follow from them are public).
   */
  npc_rolls_public: boolean;
  /**
   * R38: a tie of an opposed test is always rolled again after the die-size comparison (else it goes to the defender).
   */
  opposed_tie_reroll: boolean;
  /**
   * Players roll physical dice for their own characters: each roll waits for a `submit_roll` (`roll_requested`).
   */
  players_roll: boolean;
  /**
   * R19: the squares a prone creature crawls with a move action.
   */
  prone_crawl_squares: number;
  /**
   * R10: a melee attack on a target both helpless and prone gets +4 (else +2).
   */
  prone_helpless_bonuses_stack: boolean;
  /**
   * R23: a ram needs a hit (`false`: it always connects).
   */
  ram_needs_attack_roll: boolean;
  /**
   * R23: a ram's Speed is the distance moved this turn, in squares (the ram's `moved` argument; else the speed of the stat block).
   */
  ram_speed_from_distance: boolean;
  /**
   * R4: flat-footed and unaware combatants may use reactions (`false`: no reactions either).
   */
  reactions_while_flat_footed: boolean;
  /**
   * R8: readying also costs the standard action, whatever is readied.
   */
  ready_costs_standard_action: boolean;
  /**
   * R18: Recover may be used in a dramatic scene.
   */
  recover_in_scene: boolean;
  /**
   * R21: a Refined Garment runs at three times speed (else four times; an Exclusive Garderobe three).
   */
  refined_garment_runs_triple: boolean;
  /**
   * The options of a ruleset the server registers beyond the two it ships, by name, as that ruleset declares them (an unknown name or a bad value is refused with `invalid_payload`); `{}` for `dramatic` and `action_time`, whose options are the fields of this object.
   */
  ruleset_options: {};
  /**
   * R99: the initiative count the GM's screen acts on with `anonymous_hidden_turns` (after the combatants on the same count); changed during the scene, it moves the screen from the next round.
   */
  screen_count: number;
  /**
   * R76: the skill of a social attack roll (any skill name of the stat blocks).
   */
  social_attack_skill: string;
  /**
   * R20: what a square costs, times this, when squeezing through a space too narrow.
   */
  squeeze_cost_multiplier: number;
  /**
   * R1: when nobody is aware, an empty surprise round is recorded and everyone starts flat- footed until its first regular turn.
   */
  surprise_when_none_aware: boolean;
  /**
   * R102: what a turn timer running out does: `notify` (only `turn_timer_expired`), `end_turn` (the turn ends as if its combatant had ended it) or `delay` (its combatant delays, Dramatic only).
   */
  turn_expiry: "delay" | "end_turn" | "notify";
  turn_seconds: number | null;
  /**
   * R102: how many seconds before a turn timer runs out everyone is warned (`turn_timer_warned`); 0, or as many as `turn_seconds` or more: no warning.
   */
  turn_warning_seconds: number;
  /**
   * R28: the statement a caught white lie leaves: one size smaller (`smaller`) or the lie's own size (`same`).
   */
  white_lie_statement: "same" | "smaller";
  /**
   * R14: the excess of the hit that reaches 0 fatigue points counts as a loss at 0 (`false`: it is discarded).
   */
  zero_fp_overflow_counts: boolean;
  /**
   * R14: a creature at 0 fatigue points takes a single action a turn (`false`: it acts normally and is only defenseless).
   */
  zero_fp_single_action: boolean;
  /**
   * R14: the tiers of a loss at 0 fatigue points start at the threshold and at twice it (else above them).
   */
  zero_fp_threshold_inclusive: boolean;
}
/**
 * A snapshot's `state` in an encounter of `action_time` (Action Time), as a player or a spectator sees it. The encounter as a player or a spectator sees it: no hidden combatant, nor its place in the order, its turn, its effects or its rolls; `stats` empty and an NPC's `fatigue` `null` for the combatants it does not control; two of the options.
 */
export interface ActionTimeAsAPlayerOrASpectatorSeesIt {
  action_time: AtStateView1;
  /**
   * Empty unless the ruleset fills it (its part of the view: see its `state`).
   */
  answers: {};
  /**
   * Empty unless the ruleset fills it (its part of the view: see its `state`).
   */
  arguments: {};
  /**
   * Empty unless the ruleset fills it (its part of the view: see its `state`).
   */
  attitudes: {};
  /**
   * Empty unless the ruleset fills it (its part of the view: see its `state`).
   *
   * @maxItems 0
   */
  blocking: [];
  /**
   * The combatants this viewer sees.
   */
  combatants: CombatantView[];
  /**
   * When the encounter was created (ms since the epoch).
   */
  created_ts: number;
  /**
   * Whose turn it is (`null` between turns, or when that combatant is hidden from this viewer); `screen` while the GM's screen takes its turn (R99: for a player or spectator, whoever acts behind it).
   */
  current: string | null;
  /**
   * Empty unless the ruleset fills it (its part of the view: see its `state`).
   */
  debate_over: false;
  /**
   * The combatants delaying their turn (R7).
   */
  delaying: string[];
  /**
   * The verifiable dice (R101; `null`: the dice are not verifiable, with a `dice_seed`).
   */
  dice: DiceView | null;
  /**
   * The effects running on the scene and on the combatants this viewer sees (R90).
   */
  effects: EffectView[];
  /**
   * Why it ended (`end_encounter.reason`).
   */
  end_reason: string | null;
  /**
   * Whether the scene is over.
   */
  ended: boolean;
  /**
   * The combatants flat-footed now.
   */
  flat_footed: string[];
  /**
   * Empty unless the ruleset fills it (its part of the view: see its `state`).
   *
   * @maxItems 0
   */
  flying: [];
  /**
   * Empty unless the ruleset fills it (its part of the view: see its `state`).
   */
  grabs: {
    [k: string]: string[];
  };
  /**
   * The encounter's id.
   */
  id: string;
  /**
   * The initiative entries of the combatants, in the order's order (the screen has none: its count is `options.screen_count` once its round begins).
   */
  initiative: InitiativeEntry1[];
  /**
   * The battle map (`battle-map.schema.json`; `null`: none).
   */
  map: BattleMap1 | null;
  /**
   * The encounter's name.
   */
  name: string;
  options: PublicOptions1;
  /**
   * The initiative order, highest first (combatant ids); with anonymous hidden turns also `screen`, the GM's screen, at its count (R99: the GM's order lists the combatants who act in its turn right after it).
   */
  order: string[];
  /**
   * The states of a conscious combatant's `vitals.condition` that put it out of the fight in this ruleset ("Action Time": `["defenseless"]`, 0 Health, R29; "MLP Dramatic Systems": `[]`); a combatant not `active` is out of it in every ruleset.
   */
  out_of_fight: string[];
  /**
   * The roll requests waiting for dice: all of them for the GM; for the others those of the visible player characters, and the GM's to a `roll` integration.
   */
  pending_rolls: PendingRollView[];
  /**
   * The statechart's configuration (docs/statecharts.md): `["setup"]`, `["rolling_initiative"]`, a running scene (a parallel state: `"phase"` holds `"surprise_round"` or `"regular_rounds"`; `"rounds"` holds `"round"`, `"turn"` and either `"acting"` with the turn's budget state `"fresh"`, `"underway"` or `"spent"`, or `"interrupted"` while a readied action is resolved), or `["ended"]`. Test membership, not order.
   */
  phase: string[];
  /**
   * The top-left square `[x, y]` of each placed combatant, by id.
   */
  positions: {
    /**
     * @minItems 2
     * @maxItems 2
     */
    [k: string]: never[];
  };
  /**
   * Readied actions by combatant: all of them for the GM, a player's own combatants'.
   */
  readied: {
    [k: string]: ReadiedView;
  };
  /**
   * The round: 0 before the first and during the surprise round.
   */
  round: number;
  /**
   * Its ruleset (`dramatic`, `action_time`...).
   */
  ruleset: "action_time";
  /**
   * Empty unless the ruleset fills it (its part of the view: see its `state`).
   */
  social: null;
  /**
   * The turn timer of the running turn (R102; `null`: none runs).
   */
  timer: TimerView | null;
  /**
   * The running turn (`null`: none, or a hidden combatant's); the screen's, `combatant` `screen` and its budget untouched, for a player or spectator while it runs (R99).
   */
  turn: TurnView | null;
  /**
   * The players' requests to undo waiting for the GM (R108): all of them for the GM, a player's own to the player. Added in protocol 1.7.
   */
  undo_requests: UndoRequestView[];
}
/**
 * "Action Time"'s effects, what the combatants hold, and their numbers.
 */
export interface AtStateView1 {
  /**
   * The lasting modifiers running on the combatants this viewer sees, each as `at_effect_started.effect` gives it (the table sees every stance; an `origin` hidden from this viewer is `""`).
   */
  effects: Effect1[];
  /**
   * What each combatant holds (weapons by name, `bandages`), by id: the GM's all, a player's its own.
   */
  in_hoof: {
    [k: string]: string[];
  };
  /**
   * Each combatant's numbers, by id, for the combatants whose `stats` this viewer sees (the GM: all; a player: its own).
   */
  numbers: {
    [k: string]: AtNumbersView;
  };
}
/**
 * The options a player or spectator is told (`options.<ruleset>.schema.json`).
 */
export interface PublicOptions1 {
  /**
   * Anonymous hidden turns (R99): the order holds `screen`, the turn of "someone behind the GM's screen" (only with the option: absent, it is off).
   */
  anonymous_hidden_turns?: boolean;
  /**
   * Players and spectators see the dice of NPC rolls.
   */
  npc_rolls_public: boolean;
  /**
   * Players roll physical dice for their own characters.
   */
  players_roll: boolean;
  /**
   * The initiative count the GM's screen acts on from the next round (R99; only with `anonymous_hidden_turns`).
   */
  screen_count?: number;
}
/**
 * A snapshot's `state` in an encounter of a ruleset the server registers beyond those above, as the GM (and a `view:gm` integration) sees it: the protocol's fields; the ruleset's parts are not described here. The encounter as the GM (and a `view:gm` integration) sees it: everything, hidden combatants included, with every option and credential.
 */
export interface AnotherRulesetAsTheGMAndAViewGmIntegrationSeesIt {
  /**
   * Empty unless the ruleset fills it (its part of the view: see its `state`).
   */
  answers: {
    [k: string]: unknown;
  };
  /**
   * Empty unless the ruleset fills it (its part of the view: see its `state`).
   */
  arguments: {
    [k: string]: unknown;
  };
  /**
   * Empty unless the ruleset fills it (its part of the view: see its `state`).
   */
  attitudes: {
    [k: string]: unknown;
  };
  /**
   * Empty unless the ruleset fills it (its part of the view: see its `state`).
   */
  blocking: {
    [k: string]: unknown;
  };
  /**
   * The combatants this viewer sees.
   */
  combatants: CombatantView[];
  /**
   * When the encounter was created (ms since the epoch).
   */
  created_ts: number;
  /**
   * Whose turn it is (`null` between turns, or when that combatant is hidden from this viewer); `screen` while the GM's screen takes its turn (R99: for a player or spectator, whoever acts behind it).
   */
  current: string | null;
  /**
   * Empty unless the ruleset fills it (its part of the view: see its `state`).
   */
  debate_over: {
    [k: string]: unknown;
  };
  /**
   * The combatants delaying their turn (R7).
   */
  delaying: string[];
  /**
   * The verifiable dice (R101; `null`: the dice are not verifiable, with a `dice_seed`).
   */
  dice: DiceView | null;
  /**
   * The effects running on the scene and on the combatants this viewer sees (R90).
   */
  effects: EffectView[];
  /**
   * Why it ended (`end_encounter.reason`).
   */
  end_reason: string | null;
  /**
   * Whether the scene is over.
   */
  ended: boolean;
  /**
   * The combatants flat-footed now.
   */
  flat_footed: string[];
  /**
   * Empty unless the ruleset fills it (its part of the view: see its `state`).
   */
  flying: {
    [k: string]: unknown;
  };
  /**
   * Empty unless the ruleset fills it (its part of the view: see its `state`).
   */
  grabs: {
    [k: string]: unknown;
  };
  /**
   * The encounter's id.
   */
  id: string;
  /**
   * The initiative entries of the combatants, in the order's order (the screen has none: its count is `options.screen_count` once its round begins).
   */
  initiative: InitiativeEntry1[];
  /**
   * The battle map (`battle-map.schema.json`; `null`: none).
   */
  map: BattleMap1 | null;
  /**
   * The encounter's name.
   */
  name: string;
  options: EncounterOptions3;
  /**
   * The initiative order, highest first (combatant ids); with anonymous hidden turns also `screen`, the GM's screen, at its count (R99: the GM's order lists the combatants who act in its turn right after it).
   */
  order: string[];
  /**
   * The states of a conscious combatant's `vitals.condition` that put it out of the fight in this ruleset ("Action Time": `["defenseless"]`, 0 Health, R29; "MLP Dramatic Systems": `[]`); a combatant not `active` is out of it in every ruleset.
   */
  out_of_fight: string[];
  /**
   * The roll requests waiting for dice: all of them for the GM; for the others those of the visible player characters, and the GM's to a `roll` integration.
   */
  pending_rolls: PendingRollView[];
  /**
   * The statechart's configuration (docs/statecharts.md): `["setup"]`, `["rolling_initiative"]`, a running scene (a parallel state: `"phase"` holds `"surprise_round"` or `"regular_rounds"`; `"rounds"` holds `"round"`, `"turn"` and either `"acting"` with the turn's budget state `"fresh"`, `"underway"` or `"spent"`, or `"interrupted"` while a readied action is resolved), or `["ended"]`. Test membership, not order.
   */
  phase: string[];
  /**
   * The top-left square `[x, y]` of each placed combatant, by id.
   */
  positions: {
    /**
     * @minItems 2
     * @maxItems 2
     */
    [k: string]: never[];
  };
  /**
   * Readied actions by combatant: all of them for the GM, a player's own combatants'.
   */
  readied: {
    [k: string]: ReadiedView;
  };
  /**
   * The round: 0 before the first and during the surprise round.
   */
  round: number;
  /**
   * Its ruleset (`dramatic`, `action_time`...).
   */
  ruleset: string;
  /**
   * Empty unless the ruleset fills it (its part of the view: see its `state`).
   */
  social: {
    [k: string]: unknown;
  };
  /**
   * The turn timer of the running turn (R102; `null`: none runs).
   */
  timer: TimerView | null;
  /**
   * Every credential of the encounter.
   */
  tokens: TokenView[];
  /**
   * The running turn (`null`: none, or a hidden combatant's); the screen's, `combatant` `screen` and its budget untouched, for a player or spectator while it runs (R99).
   */
  turn: TurnView | null;
  /**
   * The combatants unaware of the attacks made on them during the scene (`awareness_set` with `in_scene`; R82): the GM's call.
   */
  unaware: string[];
  /**
   * The players' requests to undo waiting for the GM (R108): all of them for the GM, a player's own to the player. Added in protocol 1.7.
   */
  undo_requests: UndoRequestView[];
}
/**
 * Every option of the encounter (`options.<ruleset>.schema.json`).
 */
export interface EncounterOptions3 {
  /**
   * R32: a newcomer rolls at once and acts this round if its place comes after the current turn (else it enters at the start of the next round).
   */
  action_time_join_immediately: boolean;
  /**
   * R99: the table sees a turn of "someone behind the GM's screen" (`screen` in the order) every round, in which every hidden combatant takes its turn; set before `start_encounter`.
   */
  anonymous_hidden_turns: boolean;
  /**
   * R25: the row of the harmony/discord table that the missing differences 11 to 14 (and -11 to -14) take: the lower (Small) or the upper (Medium).
   */
  aura_gap_band: "lower" | "upper";
  /**
   * R15: a creature at step 3 or 4 of the condition track moves at half speed, as in Star Wars Saga Edition.
   */
  condition_half_speed: boolean;
  /**
   * R9: a creature in the way blocks a shot (else it gives cover).
   */
  creatures_block_line_of_sight: boolean;
  /**
   * R60: the Speed of a stat block without `speed`, in yards.
   */
  default_speed_yards: number;
  /**
   * R3: a combatant that delays stays flat-footed until it acts (`false`: flat-footedness ends when its first regular turn comes up).
   */
  delay_keeps_flat_footed: boolean;
  dice_seed: number | null;
  /**
   * R30: upgrades beyond d20 and downgrades below d4 are lost (`clamp`), or each adds +1 (or -1) to the face (`modifier`; a face is at least 1).
   */
  die_ladder_overflow: "clamp" | "modifier";
  /**
   * R26: a debate ends by itself when the attitude reaches unfriendly (`false`: the GM ends it with `end_encounter`).
   */
  dispute_ends_at_unfriendly: boolean;
  /**
   * R13: a hit that damage reduction lowers below 1 still deals 1.
   */
  dr_respects_minimum_damage: boolean;
  /**
   * R50: when the scene ends, everyone conscious improves a step on the condition track (`false`: the track is left as it is).
   */
  end_of_scene_recovery: boolean;
  /**
   * R12: Engage damage adds one-half heroic level (`false`: Strength modifier + weapon damage only).
   */
  engage_adds_half_level: boolean;
  /**
   * R25: the temporary Social Status an event attended gives.
   */
  event_status_boost: number;
  /**
   * R22: the Acrobatics DC that reduces a fall (trained only).
   */
  falling_acrobatics_dc: number;
  /**
   * R22: the meters of a fall that a successful Acrobatics check takes off.
   */
  falling_acrobatics_reduction_m: number;
  /**
   * R2: aware combatants stay flat-footed through the surprise round until their first regular turn.
   */
  flat_footed_until_regular_turn: boolean;
  /**
   * R33: a successful Heal rolls the Mind die again for the amount (else the test roll heals).
   */
  heal_rolls_again: boolean;
  /**
   * R33: a combatant may Heal itself.
   */
  heal_self: boolean;
  /**
   * The GM rolls physical dice for the NPCs (the GM's combatants): each roll waits for a `submit_roll` (`roll_requested`).
   */
  manual_rolls: boolean;
  /**
   * R24: the non-dexterous malus of a grab by a creature without hands (`non_dexterous` stat blocks).
   */
  non_dexterous_penalty: number;
  /**
   * Players and spectators see the dice of NPC rolls (else the GM rolls behind the screen; the results that follow from them are public).
   */
  npc_rolls_public: boolean;
  /**
   * R38: a tie of an opposed test is always rolled again after the die-size comparison (else it goes to the defender).
   */
  opposed_tie_reroll: boolean;
  /**
   * Players roll physical dice for their own characters: each roll waits for a `submit_roll` (`roll_requested`).
   */
  players_roll: boolean;
  /**
   * R19: the squares a prone creature crawls with a move action.
   */
  prone_crawl_squares: number;
  /**
   * R10: a melee attack on a target both helpless and prone gets +4 (else +2).
   */
  prone_helpless_bonuses_stack: boolean;
  /**
   * R23: a ram needs a hit (`false`: it always connects).
   */
  ram_needs_attack_roll: boolean;
  /**
   * R23: a ram's Speed is the distance moved this turn, in squares (the ram's `moved` argument; else the speed of the stat block).
   */
  ram_speed_from_distance: boolean;
  /**
   * R4: flat-footed and unaware combatants may use reactions (`false`: no reactions either).
   */
  reactions_while_flat_footed: boolean;
  /**
   * R8: readying also costs the standard action, whatever is readied.
   */
  ready_costs_standard_action: boolean;
  /**
   * R18: Recover may be used in a dramatic scene.
   */
  recover_in_scene: boolean;
  /**
   * R21: a Refined Garment runs at three times speed (else four times; an Exclusive Garderobe three).
   */
  refined_garment_runs_triple: boolean;
  /**
   * The options of a ruleset the server registers beyond the two it ships, by name, as that ruleset declares them (an unknown name or a bad value is refused with `invalid_payload`); `{}` for `dramatic` and `action_time`, whose options are the fields of this object.
   */
  ruleset_options: {};
  /**
   * R99: the initiative count the GM's screen acts on with `anonymous_hidden_turns` (after the combatants on the same count); changed during the scene, it moves the screen from the next round.
   */
  screen_count: number;
  /**
   * R76: the skill of a social attack roll (any skill name of the stat blocks).
   */
  social_attack_skill: string;
  /**
   * R20: what a square costs, times this, when squeezing through a space too narrow.
   */
  squeeze_cost_multiplier: number;
  /**
   * R1: when nobody is aware, an empty surprise round is recorded and everyone starts flat- footed until its first regular turn.
   */
  surprise_when_none_aware: boolean;
  /**
   * R102: what a turn timer running out does: `notify` (only `turn_timer_expired`), `end_turn` (the turn ends as if its combatant had ended it) or `delay` (its combatant delays, Dramatic only).
   */
  turn_expiry: "delay" | "end_turn" | "notify";
  turn_seconds: number | null;
  /**
   * R102: how many seconds before a turn timer runs out everyone is warned (`turn_timer_warned`); 0, or as many as `turn_seconds` or more: no warning.
   */
  turn_warning_seconds: number;
  /**
   * R28: the statement a caught white lie leaves: one size smaller (`smaller`) or the lie's own size (`same`).
   */
  white_lie_statement: "same" | "smaller";
  /**
   * R14: the excess of the hit that reaches 0 fatigue points counts as a loss at 0 (`false`: it is discarded).
   */
  zero_fp_overflow_counts: boolean;
  /**
   * R14: a creature at 0 fatigue points takes a single action a turn (`false`: it acts normally and is only defenseless).
   */
  zero_fp_single_action: boolean;
  /**
   * R14: the tiers of a loss at 0 fatigue points start at the threshold and at twice it (else above them).
   */
  zero_fp_threshold_inclusive: boolean;
}
/**
 * A snapshot's `state` in an encounter of a ruleset the server registers beyond those above, as a player or a spectator sees it: the protocol's fields; the ruleset's parts are not described here. The encounter as a player or a spectator sees it: no hidden combatant, nor its place in the order, its turn, its effects or its rolls; `stats` empty and an NPC's `fatigue` `null` for the combatants it does not control; two of the options.
 */
export interface AnotherRulesetAsAPlayerOrASpectatorSeesIt {
  /**
   * Empty unless the ruleset fills it (its part of the view: see its `state`).
   */
  answers: {
    [k: string]: unknown;
  };
  /**
   * Empty unless the ruleset fills it (its part of the view: see its `state`).
   */
  arguments: {
    [k: string]: unknown;
  };
  /**
   * Empty unless the ruleset fills it (its part of the view: see its `state`).
   */
  attitudes: {
    [k: string]: unknown;
  };
  /**
   * Empty unless the ruleset fills it (its part of the view: see its `state`).
   */
  blocking: {
    [k: string]: unknown;
  };
  /**
   * The combatants this viewer sees.
   */
  combatants: CombatantView[];
  /**
   * When the encounter was created (ms since the epoch).
   */
  created_ts: number;
  /**
   * Whose turn it is (`null` between turns, or when that combatant is hidden from this viewer); `screen` while the GM's screen takes its turn (R99: for a player or spectator, whoever acts behind it).
   */
  current: string | null;
  /**
   * Empty unless the ruleset fills it (its part of the view: see its `state`).
   */
  debate_over: {
    [k: string]: unknown;
  };
  /**
   * The combatants delaying their turn (R7).
   */
  delaying: string[];
  /**
   * The verifiable dice (R101; `null`: the dice are not verifiable, with a `dice_seed`).
   */
  dice: DiceView | null;
  /**
   * The effects running on the scene and on the combatants this viewer sees (R90).
   */
  effects: EffectView[];
  /**
   * Why it ended (`end_encounter.reason`).
   */
  end_reason: string | null;
  /**
   * Whether the scene is over.
   */
  ended: boolean;
  /**
   * The combatants flat-footed now.
   */
  flat_footed: string[];
  /**
   * Empty unless the ruleset fills it (its part of the view: see its `state`).
   */
  flying: {
    [k: string]: unknown;
  };
  /**
   * Empty unless the ruleset fills it (its part of the view: see its `state`).
   */
  grabs: {
    [k: string]: unknown;
  };
  /**
   * The encounter's id.
   */
  id: string;
  /**
   * The initiative entries of the combatants, in the order's order (the screen has none: its count is `options.screen_count` once its round begins).
   */
  initiative: InitiativeEntry1[];
  /**
   * The battle map (`battle-map.schema.json`; `null`: none).
   */
  map: BattleMap1 | null;
  /**
   * The encounter's name.
   */
  name: string;
  options: PublicOptions2;
  /**
   * The initiative order, highest first (combatant ids); with anonymous hidden turns also `screen`, the GM's screen, at its count (R99: the GM's order lists the combatants who act in its turn right after it).
   */
  order: string[];
  /**
   * The states of a conscious combatant's `vitals.condition` that put it out of the fight in this ruleset ("Action Time": `["defenseless"]`, 0 Health, R29; "MLP Dramatic Systems": `[]`); a combatant not `active` is out of it in every ruleset.
   */
  out_of_fight: string[];
  /**
   * The roll requests waiting for dice: all of them for the GM; for the others those of the visible player characters, and the GM's to a `roll` integration.
   */
  pending_rolls: PendingRollView[];
  /**
   * The statechart's configuration (docs/statecharts.md): `["setup"]`, `["rolling_initiative"]`, a running scene (a parallel state: `"phase"` holds `"surprise_round"` or `"regular_rounds"`; `"rounds"` holds `"round"`, `"turn"` and either `"acting"` with the turn's budget state `"fresh"`, `"underway"` or `"spent"`, or `"interrupted"` while a readied action is resolved), or `["ended"]`. Test membership, not order.
   */
  phase: string[];
  /**
   * The top-left square `[x, y]` of each placed combatant, by id.
   */
  positions: {
    /**
     * @minItems 2
     * @maxItems 2
     */
    [k: string]: never[];
  };
  /**
   * Readied actions by combatant: all of them for the GM, a player's own combatants'.
   */
  readied: {
    [k: string]: ReadiedView;
  };
  /**
   * The round: 0 before the first and during the surprise round.
   */
  round: number;
  /**
   * Its ruleset (`dramatic`, `action_time`...).
   */
  ruleset: string;
  /**
   * Empty unless the ruleset fills it (its part of the view: see its `state`).
   */
  social: {
    [k: string]: unknown;
  };
  /**
   * The turn timer of the running turn (R102; `null`: none runs).
   */
  timer: TimerView | null;
  /**
   * The running turn (`null`: none, or a hidden combatant's); the screen's, `combatant` `screen` and its budget untouched, for a player or spectator while it runs (R99).
   */
  turn: TurnView | null;
  /**
   * The players' requests to undo waiting for the GM (R108): all of them for the GM, a player's own to the player. Added in protocol 1.7.
   */
  undo_requests: UndoRequestView[];
}
/**
 * The options a player or spectator is told (`options.<ruleset>.schema.json`).
 */
export interface PublicOptions2 {
  /**
   * Anonymous hidden turns (R99): the order holds `screen`, the turn of "someone behind the GM's screen" (only with the option: absent, it is off).
   */
  anonymous_hidden_turns?: boolean;
  /**
   * Players and spectators see the dice of NPC rolls.
   */
  npc_rolls_public: boolean;
  /**
   * Players roll physical dice for their own characters.
   */
  players_roll: boolean;
  /**
   * The initiative count the GM's screen acts on from the next round (R99; only with `anonymous_hidden_turns`).
   */
  screen_count?: number;
}
/**
 * With the `view` feature: the change to the state this viewer may see, as a JSON Patch
 * (RFC 6902) against the state the connection holds (its last snapshot's `state` with every
 * patch since applied), in order. After it the state is exactly the snapshot's `state` a new
 * connection of the same credential would get at `seq` (`cursor`): the position of the
 * last event before it. Sent after the events of a change, in the same batch, only when the
 * viewer's state changed; on a resume, after the events replayed (or a snapshot instead,
 * when the patches since the position resumed from are no longer kept). A patch never
 * replaces the whole state, nor a whole combatant when one of its fields changed.
 * With `batch_head` `encounter` is left out (the connection's), and `cursor` when the
 * `batch` it comes in says it.
 */
export interface View {
  /**
   * A place in the encounter's log as this connection was told it: opaque (compare it, do not parse it); send the last one held as `hello.cursor` to resume.
   */
  cursor?: string;
  encounter?: string;
  patch: PatchOperation[];
  seq?: number;
  type: "view";
}
/**
 * One operation of a JSON Patch (RFC 6902): `add` (a key of an object, or an entry of a
 * list at an index, the entries after it moving up), `remove` (no `value`) or
 * `replace`, at `path` (a JSON Pointer, RFC 6901, into the state).
 */
export interface PatchOperation {
  op: "add" | "remove" | "replace";
  path: string;
  value?: unknown;
}
/**
 * The answer to `get_history`: `events` (oldest first) as this viewer received them
 * live, or would have; `before`, the position to ask for the page before this one (`null`:
 * there is nothing older this viewer may see, the log's start or the oldest event it still
 * holds).
 */
export interface History {
  before?: number | string | null;
  encounter: string;
  events: EventMessage[];
  type: "history";
}
/**
 * What this connection may do now, sent whenever it changes (always after a snapshot):
 * whenever the actions change, and whenever the turn changes while there are any.
 * `turn_id` names the current turn (or interrupt): it changes exactly when a turn starts,
 * is interrupted or resumes (at the table, a turn it sees: a hidden combatant's turn changes
 * nothing). Send it as `expect_turn` with a command meant for this turn. `seq` (with the
 * `cursor` feature, `cursor` instead) is the position of the state they are of.
 * With the `legal_changed` feature (protocol 1.11) they come only when the actions change.
 * With `batch_head` `encounter` is left out (the connection's), and `cursor` when the
 * `batch` it comes in says it.
 */
export interface LegalActions {
  actions: LegalAction[];
  /**
   * A place in the encounter's log as this connection was told it: opaque (compare it, do not parse it); send the last one held as `hello.cursor` to resume.
   */
  cursor?: string;
  encounter?: string;
  seq?: number;
  turn_id: string;
  type: "legal_actions";
}
/**
 * An action a combatant (or the GM, `combatant: null`) may take now. `action` names
 * the command (`start_encounter`, `end_encounter`, `submit_roll`) or the `act`
 * action (`end_turn`), for any combatant the connection controls, on its turn or not (free
 * actions, reactions, `trigger_ready`). For `submit_roll`, `targets` holds the roll
 * request id and `label` what is rolled (`initiative: 1d20+3`). For an `act` action,
 * `targets` lists whom it may be aimed at (`args.target`; an action aimed at someone is
 * left out while there is nobody), and `optional_target: true` says it may also be taken
 * without a target. `options` lists, by argument name, the values an `act` argument may
 * take where they are few: the weapons of an attack, the statements of a Dispute, the
 * answers to a statement, the actions `ready` may ready. `args_schema` names the JSON
 * Schema of the entry's arguments (an `act` action's `args`, or the fields of another
 * command but `type`, `id` and `expect_turn`): `dramatic.attack`,
 * `command.submit_roll`. The server serves it at `GET /schemas/args/<id>.json` (all of
 * them: `GET /schemas/args.json`; published as `docs/protocol/args-schemas.json`), so a
 * client can draw a form for any entry without knowing the ruleset. `cost` says what an
 * `act` action costs in its ruleset's words (the slot of the turn's budget, as the turn's
 * `budget` names it: `standard`, `move`, `swift`, `full_round`, or `free`,
 * `reaction`; Action Time `major`, `minor`, `free`); left out for the turn's own
 * moves (`end_turn`, `delay`) and for commands. `group` sorts the entries for people:
 * `attack`, `movement`, `social`, `support`, `items`, `turn`, `other`, and for
 * the GM's commands `scene` and for a roll asked for `dice` (`cost` and `group` were
 * added in protocol 1.6). Fields without a value are left out.
 */
export interface LegalAction {
  action: string;
  args_schema?: string | null;
  combatant?: string | null;
  cost?: string | null;
  group?: string | null;
  label?: string | null;
  optional_target?: boolean;
  options?: {
    [k: string]: string[];
  } | null;
  targets?: string[] | null;
}
/**
 * The connection's new legal actions, as a change to the list it holds (with the
 * `legal_delta` feature; sent when and where a `legal_actions` would be). `base` is
 * the `seq` of the `legal_actions` or `legal_actions_delta` it applies to (the last
 * one the connection got). The new list is `actions` read in order: an entry is itself;
 * `[start, count]` stands for `count` entries of the previous list from index
 * `start` on, unchanged. Every entry of the new list is there, in its place; an entry of
 * the previous list that no run names is gone. `turn_id` is as in `legal_actions`.
 * Entries are compared whole (an entry of the previous list with any field changed is
 * sent again), so a client applies a delta without knowing what the entries mean. A client
 * whose list is not at `base` asks for the full list (`get_legal_actions`). With the
 * `cursor` feature `cursor` and `base_cursor` stand for `seq` and `base`.
 * With `batch_head` `encounter` is left out (the connection's), and `cursor` when the
 * `batch` it comes in says it.
 * With the `legal_recall` feature (protocol 1.11) an item may also be `[start, count,
 * combatant]`: `count` entries, from index `start` on, of what the connection recalls
 * of `combatant`. It recalls, for each combatant, its entries of the last list that a
 * delta replaced by one in which they were not the same (in order, as they were); a full
 * `legal_actions` empties what it recalls. Such a delta names no `base`: it applies to
 * the list the connection last received.
 */
export interface LegalActionsDelta {
  actions: ((never[] & (number | string)[]) | LegalAction)[];
  base?: number;
  /**
   * A place in the encounter's log as this connection was told it: opaque (compare it, do not parse it); send the last one held as `hello.cursor` to resume.
   */
  base_cursor?: string;
  /**
   * A place in the encounter's log as this connection was told it: opaque (compare it, do not parse it); send the last one held as `hello.cursor` to resume.
   */
  cursor?: string;
  encounter?: string;
  seq?: number;
  turn_id: string;
  type: "legal_actions_delta";
}
/**
 * Several server messages in one websocket message (with the `batch` feature): what
 * was ready for the connection at once, in the order it would have been sent one by one;
 * after a command, the events it caused, the new legal actions and its `ack`. A message
 * that leaves alone is sent unwrapped; a batch holds no batch.
 * With the `batch_head` feature (protocol 1.11) a batch may say `ts` and `cursor` once
 * for its messages: an `event` of it without `ts` has the batch's `ts`; an `event`,
 * `view`, `legal_actions`, `legal_actions_delta` or `ack` of it without a `cursor`
 * (or `seq`) is at the batch's `cursor`; such a message comes in a batch even when it is
 * alone. (`encounter` is not said: it is the connection's.)
 */
export interface Batch {
  /**
   * A place in the encounter's log as this connection was told it: opaque (compare it, do not parse it); send the last one held as `hello.cursor` to resume.
   */
  cursor?: string;
  messages: (
    | Welcome
    | Ack
    | Error
    | EventMessage
    | Snapshot
    | View
    | History
    | LegalActions
    | LegalActionsDelta
    | Goodbye
    | CampaignMessage
    | Moved
  )[];
  ts?: number;
  type: "batch";
}
/**
 * The server is about to close this connection. `reconnect` says whether to reconnect
 * (to any process) and resume with `since`.
 */
export interface Goodbye {
  reason: string;
  reconnect: boolean;
  type: "goodbye";
}
/**
 * A campaign as this credential sees it (`protocol.campaign`'s view, R113): to a campaign
 * link outside a running encounter, after its `welcome`, after each change to the
 * campaign, and in answer to `get_campaign`. `seq`: the campaign log's position.
 */
export interface CampaignMessage {
  campaign: string;
  seq: number;
  state: CampaignView;
  type: "campaign";
}
/**
 * The campaign as one credential sees it (R113): the GM all of it with its links; a
 * player its own characters in full, the others as a table would, and the encounters its
 * characters were in.
 */
export interface CampaignView {
  characters: CharacterView[];
  clock: Clock;
  encounters: EncounterView[];
  id: string;
  /**
   * The last lines of the campaign's log this credential may read (a rest that healed and one that did not, and why; a day or a week passing; what an encounter gave back), oldest first.
   */
  log?: LogEntry[];
  /**
   * The characters this credential plays.
   */
  mine: string[];
  name: string;
  role: "gm" | "player";
  ruleset: string;
}
/**
 * A character of the roster. Everyone sees who it is, whether it lives and is conscious,
 * how its fatigue points stand (R105's bands) and the encounter it is in; the GM, and the
 * player of the character, see the rest.
 */
export interface CharacterView {
  /**
   * How its fatigue points (Health) stand: `full`, `above_half`, `half_or_less`, `none`; `null` without a maximum.
   */
  band: ("above_half" | "full" | "half_or_less" | "none") | null;
  /**
   * `false` while it is unconscious: an encounter left it so (its Constitution check failed, or the GM made it so), and it starts the next one unconscious (R16, R113); absent from servers before protocol 1.13, which read as `true`.
   */
  conscious?: boolean;
  /**
   * The running encounter it is in (R113), if any.
   */
  encounter: string | null;
  /**
   * Fatigue points now (Health in "Action Time").
   */
  fatigue?: number | null;
  /**
   * Fatigue points at full.
   */
  fatigue_max?: number | null;
  /**
   * The hour of its last Natural Healing (R110), if any.
   */
  healed_at?: number | null;
  /**
   * Its id: its combatant id in every encounter of the campaign.
   */
  id: string;
  /**
   * What it carries.
   */
  items?: Item[];
  /**
   * `pc`, a player's; `npc`, the GM's.
   */
  kind: "npc" | "pc";
  /**
   * `alive` or `dead`.
   */
  life: "alive" | "dead";
  /**
   * GM only: its player's campaign link (`smc1.…`), for the web table's `/table/#token=<link>`; `null` for an NPC.
   */
  link?: string | null;
  /**
   * The day `lunches` count for.
   */
  lunch_day?: number;
  /**
   * Second Lunches caught on `lunch_day` (R109).
   */
  lunches?: number;
  /**
   * Second Lunches caught today, by the clock (`lunches` when `lunch_day` is today, else 0; R109).
   */
  lunches_today?: number;
  /**
   * The mental condition track.
   */
  mental?: Track | null;
  name: string;
  physical?: Track3;
  /**
   * Its stat block's `stats` (as `create_encounter` takes them).
   */
  stats?: {};
  /**
   * Its temporary Social Status (R111).
   */
  status?: StatusBoost[];
}
/**
 * Something a character carries, and how many (Goods & Services): the GM's record.
 */
export interface Item {
  count?: number;
  name: string;
}
/**
 * A condition track (ruling R15): `step` 0 (normal) to 5 (bottom: unconscious, or
 * destroyed for objects); `persistent` of those steps cannot be recovered without treatment,
 * `crippling` of those only by the GM (R14.4, R17); `penalty` on checks and defenses.
 */
export interface Track3 {
  crippling?: number;
  penalty?: number;
  persistent?: number;
  step?: number;
}
/**
 * Temporary Social Status (SOCIAL EVENTS; R25, R70): `bonus` counts in `circle` (or
 * everywhere, `null`); `since` is the hour it was earned or last faded (it fades a point a
 * week after that, R111); `source` what it came from.
 */
export interface StatusBoost {
  bonus: number;
  circle?: string | null;
  since?: number;
  source?: string;
}
/**
 * The in-game clock: `hour` since the campaign began, the `day` it falls on (from 1)
 * and the `time` of day (0-23).
 */
export interface Clock {
  day: number;
  hour: number;
  time: number;
}
/**
 * An encounter begun from the campaign.
 */
export interface EncounterView {
  /**
   * The clock's hour when it began.
   */
  begun_at: number;
  characters: string[];
  /**
   * GM only: the encounter's GM credential (`sm1.…`).
   */
  gm_link?: string | null;
  id: string;
  name: string;
  /**
   * GM only: the characters resting through the scene (R112).
   */
  rested?: string[];
  /**
   * Not written back yet: it runs (or ended a moment ago).
   */
  running: boolean;
  /**
   * The last seq of its log when its results were written back; `null` while it runs.
   */
  written_back: number | null;
}
/**
 * A line of the campaign's log, in words: what a change was and by which rule.
 */
export interface LogEntry {
  /**
   * The characters it is about (`[]`: the whole campaign).
   */
  characters?: string[];
  /**
   * Told to the GM only.
   */
  gm_only?: boolean;
  /**
   * The clock's hour then.
   */
  hour: number;
  /**
   * The campaign event it tells of.
   */
  seq: number;
  text: string;
}
/**
 * To a campaign link's connection: its character is now in another encounter, which the
 * GM began (a link stays in an encounter that ended until then, its log to read). The
 * server closes the connection after it (code 4004): connect again with the same link,
 * without a cursor, to reach it.
 */
export interface Moved {
  campaign: string;
  characters: string[];
  encounter: string;
  type: "moved";
}
/**
 * A replay (`hello.replay`) has shown everything: `events` is how many event messages
 * it sent after its snapshot. The connection stays open (say `hello` on a new one to watch
 * again); it receives nothing more.
 */
export interface ReplayEnded {
  encounter: string;
  events: number;
  type: "replay_ended";
}
/**
 * Who is connected to the encounter now, on every process that serves it (with the
 * `presence` feature): sent after joining and whenever it changes (looked at about once a
 * second; a connection of a process that died counts for up to 30 s more). A GM credential
 * is told every credential connected, with its token id and label (the `/read/links`
 * listing names them); anyone else only the players' credentials, by the combatants it sees
 * that they play. Added in protocol 1.6.
 */
export interface Presence {
  encounter: string;
  seats: PresenceSeat[];
  type: "presence";
}
/**
 * A credential with connections open now: its `role`, the `combatants` it plays and
 * how many `connections` it has; to a GM also its `token_id` and `label`.
 */
export interface PresenceSeat {
  combatants?: string[];
  connections: number;
  label?: string | null;
  role: "gm" | "integration" | "player" | "spectator";
  token_id?: string | null;
}
