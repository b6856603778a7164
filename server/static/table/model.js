// The encounter as this viewer received it: a snapshot, then the events after it, folded into
// what the views show (names, order, whose turn, conditions, the log). No rules here: the
// server has already redacted what this viewer may not see, and says what it may do in
// legal_actions. Event kinds this file does not know still reach the log, as they are. With
// the view feature (asked for by conn.js) the server keeps the state: each `view` message
// patches it (RFC 6902, applied by the vendored fast-json-patch) and what the views show is
// read from it again, whatever the events' fold made of it; `history` fills the log of a page
// that was just opened with the events before it.

import { applyPatch } from "/table/json-patch.js";

/**
 * The legal actions a legal_actions_delta makes of the list held (`previous`): its items in
 * order, an entry as itself and [start, count] as that many entries of `previous` from start
 * on. Null when it does not apply (a run reaches past the list). clients/view.py's
 * apply_legal_delta does the same.
 */
export function applyLegalDelta(previous, items) {
  const out = [];
  for (const item of items) {
    if (!Array.isArray(item)) { out.push(item); continue; }
    const [start, count] = item;
    if (!(start >= 0 && count >= 1 && start + count <= previous.length)) return null;
    for (let i = start; i < start + count; i++) out.push(previous[i]);
  }
  return out;
}

export class Table {
  constructor() {
    this.reset();
    this.log = []; // {n, at, kind, text, roll?}: n numbers the lines, at is the event's cursor
    this.lines = 0;
    this.legal = [];
    this.turnId = null; // legal_actions.turn_id: sent back as expect_turn with turn actions
    this.legalCursor = null; // the cursor of the last legal_actions (or delta) applied
    this.needsLegal = false; // a delta did not apply: ask for the full list (get_legal_actions)
    this.sending = 0; // turn commands sent and not answered yet: their controls stay disabled
    this.welcome = null;
  }

  reset() {
    this.cursor = null; // of the last event or snapshot applied: sent as hello.cursor on resuming
    this.state = {};
    this.name = "";
    this.ruleset = "";
    this.phase = [];
    this.round = 0;
    this.current = null;
    this.combatants = new Map();
    this.order = [];
    this.initiative = new Map();
    this.flatFooted = new Set();
    this.delaying = new Set();
    this.readied = {};
    this.effects = new Map();
    this.pendingRolls = new Map();
    this.tokens = new Map();
    this.map = null; // the battle map (BattleMap as JSON) or null
    this.positions = new Map(); // combatant -> [x, y], the top-left square of its space
    this.grabs = new Map(); // target -> [grabbers]
    this.atEffects = []; // "Action Time" effects on the combatants this viewer sees
    this.arguments = new Map(); // argument id -> {owner, size, text, perilous} (size null: spent)
    this.attitudes = {}; // holder -> {toward: attitude}
    this.blocking = new Set();
    this.answers = new Map(); // statement id -> {speaker, target, loss}: waiting for an answer
    this.numbers = {}; // combatant -> its defenses and speed as the server computes them now
    this.debateOver = false;
    this.social = null; // {event, standing: {cid: {status, status_parts, access, aura, harmony, discord}}}
    this.needsStanding = false; // the server's standing numbers changed: fetch a snapshot
    this.options = {};
    this.started = false;
    this.ended = false;
    this.endReason = null;
    this.needsSnapshot = false;
  }

  /** An effect began or ended: the server's defenses and speed follow from it, said in a
   *  snapshot (fetched as the standing numbers are, once a burst of such events is over). */
  numbersChanged() {
    if (Object.keys(this.numbers).length) this.needsStanding = true;
  }

  nameOf(id) {
    if (id === null || id === undefined) return "the GM";
    const c = this.combatants.get(id);
    return c ? c.name : id;
  }

  controlled(id) {
    const c = this.combatants.get(id);
    if (c && typeof c.controlled === "boolean") return c.controlled;
    const w = this.welcome;
    return !!w && (w.role === "gm" || (w.scopes || []).includes("command:gm") || (w.combatants || []).includes(id));
  }

  /** Fold a server message; the log entries it added. */
  apply(msg) {
    if (msg.type === "welcome") { this.welcome = msg; return []; }
    if (msg.type === "legal_actions") { this.legal = msg.actions; this.turnId = msg.turn_id ?? null; this.legalCursor = msg.cursor ?? null; return []; }
    if (msg.type === "legal_actions_delta") {
      const legal = msg.base_cursor === this.legalCursor ? applyLegalDelta(this.legal, msg.actions) : null;
      if (legal === null) { this.needsLegal = true; return []; }
      this.legal = legal; this.turnId = msg.turn_id ?? null; this.legalCursor = msg.cursor ?? null;
      return [];
    }
    if (msg.type === "snapshot") { this.fromSnapshot(msg.state, msg.cursor ?? null, msg.reason); return []; }
    if (msg.type === "view") {
      try {
        applyPatch(this.state, msg.patch, false, true);
      } catch {
        this.needsSnapshot = true; // not the state the server patched: start again from one
        return [];
      }
      this.fromState(this.state);
      return [];
    }
    if (msg.type === "history") { this.fromHistory(msg.events); return []; }
    if (msg.type !== "event") return [];
    this.cursor = msg.cursor ?? null;
    const added = this.event(msg.event).map((l) => ({ n: ++this.lines, at: msg.cursor, ts: msg.ts, kind: msg.event.kind, ...l }));
    if (this.viewing()) this.needsSnapshot = this.needsStanding = false; // the view says it
    this.log.push(...added);
    if (this.log.length > 500) this.log.splice(0, this.log.length - 500);
    return added;
  }

  /** The server keeps this connection's state (the view feature was granted). */
  viewing() {
    return !!this.welcome && (this.welcome.features || []).includes("view");
  }

  /** The log lines of events before those received live (get_history), in front of them:
   *  worked out on a copy of the table, so that the state shown stays the server's. */
  fromHistory(events) {
    const scratch = new Table();
    scratch.welcome = this.welcome;
    scratch.fromSnapshot(JSON.parse(JSON.stringify(this.state)), this.cursor, "join");
    const live = new Set(this.log.map((l) => l.at));
    const earlier = [];
    for (const m of events) {
      if (live.has(m.cursor)) continue;
      for (const l of scratch.event(m.event)) earlier.push({ at: m.cursor, ts: m.ts, kind: m.event.kind, ...l });
    }
    this.log = [...earlier, ...this.log].slice(-500);
    this.lines = 0;
    for (const l of this.log) l.n = ++this.lines;
  }

  fromSnapshot(s, cursor, reason) {
    // the server's log went back (it lost its end): what this view got after the snapshot's
    // place (the last line at its cursor) is undone
    const undone = reason === "rewound" || reason === "resume_ahead";
    let log = this.log;
    if (undone) {
      const last = log.map((l) => l.at).lastIndexOf(cursor);
      log = last >= 0 ? log.slice(0, last + 1) : log;
    }
    this.reset();
    this.log = log;
    this.cursor = cursor;
    // a copy: the view's patches change it in place
    this.fromState(JSON.parse(JSON.stringify(s)));
    if (undone) this.log.push({ n: ++this.lines, at: cursor, kind: "snapshot", text: "(the server went back to an earlier point: what came after it is undone)" });
    else if (reason && reason !== "join" && reason !== "asked") this.log.push({ n: ++this.lines, at: cursor, kind: "snapshot", text: "(caught up from a snapshot)" });
  }

  /** What the views show, read from the state as a snapshot has it. */
  fromState(s) {
    const { cursor, log, lines, legal, turnId, legalCursor, welcome } = this;
    this.reset();
    Object.assign(this, { cursor, log, lines, legal, turnId, legalCursor, welcome });
    this.state = s;
    this.name = s.name;
    this.ruleset = s.ruleset;
    this.phase = s.phase || [];
    this.round = s.round;
    this.current = s.current;
    for (const c of s.combatants || []) this.combatants.set(c.id, { ...c });
    this.order = [...(s.order || [])];
    for (const e of s.initiative || []) this.initiative.set(e.combatant, e);
    this.flatFooted = new Set(s.flat_footed || []);
    this.delaying = new Set(s.delaying || []);
    this.readied = s.readied || {};
    for (const e of s.effects || []) this.effects.set(e.effect, e);
    for (const p of s.pending_rolls || []) this.pendingRolls.set(p.request, p);
    for (const t of s.tokens || []) this.tokens.set(t.token_id, t);
    this.map = s.map || null;
    this.positions = new Map(Object.entries(s.positions || {}));
    this.grabs = new Map(Object.entries(s.grabs || {}).filter(([, g]) => g && g.length));
    this.atEffects = [...((s.action_time || {}).effects || [])];
    this.numbers = s.numbers || (s.action_time || {}).numbers || {};
    this.arguments = new Map(Object.entries(s.arguments || {}));
    this.attitudes = JSON.parse(JSON.stringify(s.attitudes || {}));
    this.blocking = new Set(s.blocking || []);
    this.answers = new Map(Object.entries(s.answers || {}));
    this.debateOver = !!s.debate_over;
    this.social = s.social ? JSON.parse(JSON.stringify(s.social)) : null;
    this.options = s.options || {};
    this.started = this.phase.length > 0 && this.phase[0] !== "setup";
    this.ended = !!s.ended;
    this.endReason = s.end_reason;
  }

  drop(id) {
    this.order = this.order.filter((c) => c !== id);
    if (this.current === id) this.current = null;
  }

  place(id, position) {
    this.drop(id);
    this.order.splice(Math.min(position, this.order.length), 0, id);
  }

  /** Log lines for one event, after folding it. */
  event(e) {
    const n = (id) => this.nameOf(id);
    const line = (text, extra = {}) => [{ text, ...extra }];
    switch (e.kind) {
      case "encounter_created":
        this.name = e.name; this.ruleset = e.ruleset; this.options = e.options || this.options;
        return line(`Encounter “${e.name}” created`);
      case "combatant_added": case "combatant_revealed": {
        const c = e.combatant;
        const before = this.combatants.get(c.id);
        this.combatants.set(c.id, { ...(before || {}), ...c, controlled: before ? before.controlled : undefined });
        if (e.kind === "combatant_revealed") {
          if (this.started && !this.ended && !this.order.includes(c.id)) this.needsSnapshot = true;
          return line(`${c.name} is revealed!`, { reveal: c.id });
        }
        return line(`${c.name} joins the encounter`);
      }
      case "combatant_removed": {
        const text = `${n(e.combatant)} leaves the encounter`;
        this.combatants.delete(e.combatant); this.drop(e.combatant); this.positions.delete(e.combatant);
        return line(text);
      }
      case "combatant_concealed": {
        const c = this.combatants.get(e.combatant);
        if (c) c.hidden = true;
        return line(`${n(e.combatant)} is hidden again`);
      }
      case "options_changed": this.options = e.options; return line("Options changed");
      case "token_issued":
        this.tokens.set(e.token_id, { token_id: e.token_id, role: e.role, combatants: e.combatants, scopes: e.scopes, label: e.label, revoked: false });
        return line(`A ${e.role} link was issued${e.label ? ` (${e.label})` : ""}`);
      case "token_revoked": {
        const t = this.tokens.get(e.token_id);
        if (t) t.revoked = true;
        return line(`A link was revoked${t && t.label ? ` (${t.label})` : ""}`);
      }
      case "roll_requested":
        this.pendingRolls.set(e.request, e);
        return line(`Waiting for ${e.roller === "gm" ? "the GM" : n(e.roller)} to roll ${e.expr} (${human(e.purpose)}${e.combatant ? " for " + n(e.combatant) : ""})`);
      case "dice_rolled":
        if (e.request) this.pendingRolls.delete(e.request);
        return line(`${e.combatant ? n(e.combatant) : "The GM"} rolls ${human(e.purpose)}`, { roll: e.roll, by: e.by });
      case "initiative_set":
        this.order = e.entries.map((x) => x.combatant);
        this.initiative = new Map(e.entries.map((x) => [x.combatant, x]));
        return line("Initiative: " + e.entries.map((x) => `${n(x.combatant)} ${x.total}`).join(", "));
      case "combatant_joined":
        this.place(e.entry.combatant, e.position);
        this.initiative.set(e.entry.combatant, e.entry);
        return line(`${n(e.entry.combatant)} joins the order at ${e.entry.total}`);
      case "awareness_set": {
        const c = this.combatants.get(e.combatant);
        if (c) c.aware = e.aware;
        return line(`${n(e.combatant)} is ${e.aware ? "aware" : "unaware"}`);
      }
      case "scene_started":
        this.started = true;
        this.phase = ["scene"];
        return line(e.surprise ? "The scene begins with a surprise round!" : "The scene begins");
      case "flat_footed":
        if (e.flat_footed) this.flatFooted.add(e.combatant); else this.flatFooted.delete(e.combatant);
        return line(`${n(e.combatant)} is ${e.flat_footed ? "flat-footed" : "no longer flat-footed"}`);
      case "round_started":
        this.round = e.round;
        return line(e.surprise ? "— surprise round —" : `— round ${e.round} —`, { round: true });
      case "turn_started":
        this.current = e.combatant;
        this.delaying.delete(e.combatant);
        return line(`${n(e.combatant)}'s turn`, { turn: e.combatant });
      case "turn_ended":
        if (this.current === e.combatant) this.current = null;
        return line(`${n(e.combatant)} ends the turn`);
      case "action_taken": {
        let text = `${n(e.combatant)}: ${e.action.replaceAll("_", " ")}`;
        if (e.target) text += ` → ${n(e.target)}`;
        if (e.needed > 1) text += ` (${e.progress}/${e.needed})`;
        if (e.note) text += ` — ${e.note}`;
        return line(text);
      }
      case "turn_delayed":
        this.delaying.add(e.combatant);
        return line(`${n(e.combatant)} delays${e.until_count != null ? ` until count ${e.until_count}` : ""}`);
      case "delayed_turn_requested": return line(`${n(e.combatant)} will act next`);
      case "order_changed": this.place(e.combatant, e.position); return [];
      case "action_readied":
        this.readied[e.combatant] = e;
        return line(`${n(e.combatant)} readies ${e.action.replaceAll("_", " ")}: ${e.trigger}`);
      case "readied_action_triggered": return line(`${n(e.combatant)}'s readied action interrupts!`);
      case "interrupt_ended": delete this.readied[e.combatant]; return line(`${n(e.combatant)}'s readied action is resolved`);
      case "readied_action_lost": delete this.readied[e.combatant]; return line(`${n(e.combatant)}'s readied action lapses`);
      case "effect_started":
        this.effects.set(e.effect, e);
        this.numbersChanged();
        return line(`${effectText(e)}${e.combatant ? " on " + n(e.combatant) : ""} (${effectLasts(e)})`);
      case "effect_ended": {
        const effect = this.effects.get(e.effect);
        this.effects.delete(e.effect);
        this.numbersChanged();
        return line(`${effect ? effect.name : "An effect"} ends`);
      }
      case "vitals_changed": {
        const c = this.combatants.get(e.combatant);
        if (c) {
          const v = { ...(c.vitals || {}) };
          for (const f of ["fatigue", "fatigue_max", "physical", "mental", "condition", "prone", "helpless", "check_round"]) v[f] = e[f] ?? null;
          c.vitals = v;
        }
        return line(describe(e, n, this.ruleset), { vitals: e.combatant });
      }
      case "grab_changed": {
        const grabbers = (this.grabs.get(e.target) || []).filter((g) => g !== e.grabber);
        if (e.held) grabbers.push(e.grabber);
        if (grabbers.length) this.grabs.set(e.target, grabbers); else this.grabs.delete(e.target);
        return line(describe(e, n, this.ruleset));
      }
      case "map_set": this.map = e.map || null; return line(describe(e, n, this.ruleset));
      case "combatant_placed": case "combatant_moved": {
        const at = e.kind === "combatant_placed" ? e.at : (e.path || []).at(-1);
        if (at) this.positions.set(e.combatant, at); else this.positions.delete(e.combatant);
        return line(describe(e, n, this.ruleset));
      }
      case "at_effect_started": this.atEffects.push(e.effect); this.numbersChanged(); return line(describe(e, n, this.ruleset));
      case "at_effect_ended": {
        this.numbersChanged();
        const key = JSON.stringify(e.effect);
        const i = this.atEffects.findIndex((x) => JSON.stringify(x) === key);
        if (i >= 0) this.atEffects.splice(i, 1);
        return line(describe(e, n, this.ruleset));
      }
      case "argument_changed":
        if (!this.social && !this.arguments.size) this.needsStanding = true; // social play begins
        this.arguments.set(e.argument, { owner: e.combatant, size: e.size, text: e.text || "", perilous: !!e.perilous });
        return line(describe(e, n, this.ruleset));
      case "attitude_changed":
        (this.attitudes[e.holder] ||= {})[e.toward] = e.attitude;
        return line(describe(e, n, this.ruleset));
      case "blocking_changed":
        if (e.blocking) this.blocking.add(e.combatant); else this.blocking.delete(e.combatant);
        return line(describe(e, n, this.ruleset));
      case "statement_hit":
        this.answers.set(e.statement, { speaker: e.speaker, target: e.target, loss: e.loss });
        return line(describe(e, n, this.ruleset));
      case "statement_answered": {
        const pending = this.answers.get(e.statement);
        this.answers.delete(e.statement);
        return line(describe({ ...e, speaker: pending ? pending.speaker : null }, n));
      }
      case "debate_ended": this.debateOver = true; return line(describe(e, n, this.ruleset));
      case "social_event_set": {
        const { kind, ...event } = e;
        this.social = { ...(this.social || { standing: {} }), event: e.rating === null ? null : event };
        this.needsStanding = true; // status, access and auras follow from it on the server
        return line(describe(e, n, this.ruleset));
      }
      case "social_situation_set": this.needsStanding = true; return line(describe(e, n, this.ruleset));
      case "aura_points_changed": {
        const st = this.social && this.social.standing[e.combatant];
        if (st) { st.harmony = e.harmony; st.discord = e.discord; }
        return line(describe(e, n, this.ruleset));
      }
      case "lie_told":
        return line(describe(e, n, this.ruleset), { detail: e });
      case "attack_resolved": case "damage_dealt": case "check_made": case "gm_ruling":
      case "at_moved": case "items_readied":
        return line(describe(e, n, this.ruleset), { detail: e });
      case "encounter_ended":
        this.ended = true; this.endReason = e.reason; this.current = null; this.phase = ["ended"];
        this.pendingRolls.clear();
        return line(`The scene ends.${e.reason ? " " + e.reason : ""}`);
      default: {
        // a kind this client does not know yet: say what it says; a profile it carries updates
        // that combatant (fatigue, conditions, position…)
        if (e.combatant && typeof e.combatant === "object" && e.combatant.id) {
          const c = this.combatants.get(e.combatant.id);
          if (c) Object.assign(c, e.combatant);
        }
        const fields = Object.entries(e).filter(([k]) => k !== "kind")
          .map(([k, v]) => `${k}: ${typeof v === "string" ? (this.combatants.has(v) ? n(v) : v) : JSON.stringify(v)}`);
        return line(`${e.kind.replaceAll("_", " ")}${fields.length ? " — " + fields.join(", ") : ""}`);
      }
    }
  }
}

// -- readable lines for the resolution events (clients/view.py says the same) -----------------

const VERBS = { dispute: "disputes", conversation: "argues with", attack: "attacks", grab: "tries to grab", ram: "rams", break_object: "strikes at",
  melee_attack: "attacks (melee)", ranged_attack: "shoots at", all_out_attack: "goes all out against", charge: "charges" };
const OUTCOMES = { hit: "HIT", critical: "CRITICAL HIT", miss: "MISS", automatic_miss: "AUTOMATIC MISS (natural 1)" };
const CONDITIONS = { fit: "", active: "", defenseless: "defenseless (0 fatigue points)", unconscious: "unconscious",
  awaiting_check: "awaiting a Constitution check", out_for_scene: "out for the scene", dead: "dead", destroyed: "destroyed" };
const human = (s) => String(s).replaceAll("_", " ");
const plain = (v) => (v === true ? "yes" : v === false ? "no" : String(v));

/** An effect as the table shows it: its name and what it changes ("Shield: reflex defense
 * +2"), ruling R90. */
export function effectText(e) {
  const mods = (e.modifiers || []).map((m) => `${m.target.replaceAll("_", " ")} ${typeof m.amount === "number" && m.amount >= 0 ? "+" : ""}${m.amount}`);
  return mods.length ? `${e.name}: ${mods.join(", ")}` : e.name;
}

/** How long an effect lasts, in words (R90). */
export function effectLasts(e) {
  switch (e.until || "rounds") {
    case "rounds": return `${e.rounds} round${e.rounds === 1 ? "" : "s"}, until round ${e.ends_round}`;
    case "start_of_next_turn": return "until its holder's next turn";
    case "end_of_round": return "until the end of the round";
    case "scene": return "the scene";
    default: return "until ended";
  }
}

export const signed = (v) => (v >= 0 ? `+${v}` : `-${-v}`);

/** Itemised modifiers: "+6 Ranged skill -2 into melee". */
export const terms = (mods) => (mods || []).map((m) => `${signed(m.value)} ${m.name}`).join(" ");

/** A condition chart configuration in words ("" for an active, fit combatant). */
export function conditionText(condition) {
  return (condition || []).map((c) => CONDITIONS[c] ?? human(c)).filter(Boolean).join(", ");
}

export function trackText(name, t) {
  if (!t || !t.step) return "";
  let text = `${name} track step ${t.step}/5 (${signed(t.penalty || 0)})`;
  if (t.persistent) text += `, ${t.persistent} persistent`;
  if (t.crippling) text += `, ${t.crippling} crippling`;
  return text;
}

/** The rulesets the server plays, by name (``/table/rulesets.json``): title, what they call
 * fatigue points (``vitals``), the values the GM's override may set (``override_fields``). */
export const rulesets = new Map();

/** Fill ``rulesets`` from the server; the list, in the server's order. */
export async function loadRulesets() {
  const list = (await (await fetch("/table/rulesets.json")).json()).rulesets;
  for (const r of list) rulesets.set(r.name, r);
  return list;
}

/** The ruleset's word for fatigue points ("fatigue" until the server's list has come). */
export function vitalsLabel(ruleset) {
  return (rulesets.get(ruleset) || {}).vitals || "fatigue";
}

/** Fatigue (or what the ruleset calls it), tracks, consciousness and stance, as far as this
 * viewer may see them. */
export function vitalsText(v, label = "fatigue") {
  const parts = [];
  if (v.fatigue !== null && v.fatigue !== undefined) parts.push(`${label} ${v.fatigue}/${v.fatigue_max}`);
  parts.push(trackText("physical", v.physical), trackText("mental", v.mental), conditionText(v.condition));
  if (v.prone) parts.push("prone");
  if (v.helpless) parts.push("helpless"); // as the server works it out (HELPLESS CONDITION)
  if (v.check_round !== null && v.check_round !== undefined) parts.push(`Constitution check in round ${v.check_round}`);
  return parts.filter(Boolean).join(", ");
}

/** One readable line for a resolution event: every die, every modifier by name. */
export function describe(e, n, ruleset = null) {
  switch (e.kind) {
    case "attack_resolved": {
      let head = e.action === "fall" ? `${n(e.attacker)} falls` : `${n(e.attacker)} ${VERBS[e.action] || human(e.action)} ${n(e.target)}`;
      if (e.weapon) head += ` with ${e.weapon}`;
      const natural = e.natural ?? "(behind the GM screen)";
      const mods = terms(e.modifiers);
      let text = `${head}: ${e.die || "d20"} ${natural}${mods ? " " + mods : ""}`;
      if (e.total !== null && e.total !== undefined) text += ` = ${e.total}`;
      const defense = (e.defense || "reflex").replace(/^./, (c) => c.toUpperCase());
      if (e.defense_value !== null && e.defense_value !== undefined) {
        text += ` vs ${defense} ${e.defense_value}`;
        const parts = (e.defense_parts || []).filter((p) => p.value);
        if (parts.length) text += ` (${parts.map((p) => `${p.name} ${p.value}`).join(", ")})`;
      } else text += ` vs ${defense}`;
      return `${text} → ${OUTCOMES[e.outcome] || e.outcome}`;
    }
    case "damage_dealt": {
      const source = e.source ? ` from ${n(e.source)}` : "";
      const rolled = e.rolled !== null && e.rolled !== undefined ? `rolled ${e.rolled}` : "(behind the GM screen)";
      let text = `${n(e.target)} takes ${e.damage || "physical"} damage${source}: ${e.dice} ${rolled}`;
      const bonuses = terms(e.bonuses);
      if (bonuses) text += " " + bonuses;
      if (e.critical) text += " x2 critical";
      if (e.halved) text += " halved";
      if (e.before_reduction !== null && e.before_reduction !== undefined) text += ` = ${e.before_reduction}`;
      if (e.reduction) text += ` - ${e.reduction_label || "DR"} ${e.reduction}`;
      return `${text} → loses ${e.loss}${e.types && e.types.length ? ` (${e.types.join(", ")})` : ""}`;
    }
    case "vitals_changed": {
      const status = vitalsText(e, vitalsLabel(ruleset));
      return `${n(e.combatant)}: ${(e.notes || []).join("; ")}${status ? ` [${status}]` : ""}`;
    }
    case "check_made": {
      let text = `${e.combatant ? n(e.combatant) : "The GM"}: ${human(e.check)} check: d20 ${e.natural ?? "(behind the GM screen)"}`;
      const mods = terms(e.modifiers);
      if (mods) text += " " + mods;
      if (e.total !== null && e.total !== undefined) text += ` = ${e.total}`;
      if (e.dc !== null && e.dc !== undefined) text += ` vs DC ${e.dc}`;
      text += ` → ${e.success ? "success" : "failure"}`;
      if (e.target) text += ` (${n(e.target)})`;
      return text;
    }
    case "grab_changed":
      return e.held ? `${n(e.grabber)} grabs ${n(e.target)}: it is held (-2, cannot move)` : `${n(e.grabber)} no longer holds ${n(e.target)}`;
    case "map_set":
      return e.map ? `The GM sets a battle map (${e.map.width}x${e.map.height} squares)` : "The GM takes the battle map away";
    case "combatant_placed":
      return e.at ? `${n(e.combatant)} is placed at (${e.at[0]},${e.at[1]})` : `${n(e.combatant)} is taken off the map`;
    case "combatant_moved": {
      const verb = { run: "runs", crawl: "crawls" }[e.mode] || "moves";
      const path = e.path.map(([x, y]) => `(${x},${y})`).join(" → ");
      return `${n(e.combatant)} ${verb} ${path}: ${e.cost} of ${e.budget} squares${e.falls ? " — and falls into a pit!" : ""}`;
    }
    case "gm_ruling": {
      let text;
      if (e.ruling === "override") {
        const label = vitalsLabel(ruleset);
        const field = (f) => ({ fatigue: label, fatigue_max: `${label} max` })[f] || human(f || "");
        const changes = (e.changes || []).map((c) => `${field(c.field)} ${plain(c.value)}`).join(", ");
        text = `GM override: ${e.description}${changes ? ` (${changes})` : ""}`;
      } else {
        const values = Object.fromEntries((e.changes || []).map((c) => [c.field, c.value]));
        text = `GM adjudicates: ${e.description}`;
        if (values.dc !== null && values.dc !== undefined) text += ` (d20 ${signed(Number(values.modifier || 0))} vs DC ${values.dc})`;
      }
      return text + (e.reason ? ` — reason: ${e.reason}` : "");
    }
    case "at_effect_started": case "at_effect_ended": {
      const f = e.effect;
      const what = `${f.source} (${human(f.target)} ${signed(f.value)})`;
      return e.kind === "at_effect_started" ? `${n(f.holder)}: ${what} begins` : `${n(f.holder)}: ${what} ends (${human(e.reason)})`;
    }
    case "at_moved": {
      let text = `${n(e.combatant)} ${human(e.action)}: ${e.yards} of ${e.max_yards} yards (${e.reason})`;
      if (e.away_from && e.away_from.length) text += ` away from ${e.away_from.map(n).join(", ")}`;
      return text;
    }
    case "items_readied": {
      const bits = [];
      if (e.drawn) bits.push(`draws ${e.drawn}`);
      if (e.stowed) bits.push(`stows ${e.stowed}`);
      return `${n(e.combatant)} ${bits.join(" and ") || "readies"}; holds ${(e.in_hoof || []).join(", ") || "nothing"}`;
    }
    case "argument_changed": {
      const what = `${n(e.combatant)}'s statement${e.text ? ` “${e.text}”` : ""} (${e.argument})`;
      const why = e.reason ? ` (${e.reason})` : "";
      return e.size ? `${what}: ${e.size}${e.perilous ? ", perilous" : ""}${why}` : `${what} is spent${why}`;
    }
    case "attitude_changed":
      return `${n(e.holder)} is now ${e.attitude} toward ${n(e.toward)}${e.reason ? ` (${e.reason})` : ""}`;
    case "blocking_changed":
      return e.blocking ? `${n(e.combatant)} blocks: withdraws from the discussion (+5 Wits Defense, no arguments)`
        : `${n(e.combatant)} stops blocking and returns to the discussion`;
    case "statement_hit":
      return `${n(e.speaker)}'s statement hits ${n(e.target)} for ${e.loss} mental fatigue: ${n(e.target)} answers (accept, accept with reservation or refuse)`;
    case "statement_answered": {
      const whose = e.speaker ? `${n(e.speaker)}'s statement` : "the statement";
      if (e.answer === "accept") return `${n(e.target)} accepts ${whose}: no loss`;
      if (e.answer === "accept_with_reservation") return `${n(e.target)} accepts ${whose} with reservation: no loss now, ${e.recorded} kept for the GM`;
      return `${n(e.target)} refuses ${whose}: loses ${e.loss} mental fatigue`;
    }
    case "debate_ended": return `The debate is over: ${e.reason}`;
    case "lie_told": {
      const to = (e.targets || []).map(n).join(", ");
      const dec = e.deception_total ?? "(behind the GM screen)", emp = e.empathy_total ?? "(behind the GM screen)";
      return `${n(e.liar)} lies to ${to} (${e.size}${e.white ? ", a white lie" : ""}): Deception ${dec} vs Empathy ${emp} (${n(e.judge)}) → ${e.believed ? "believed" : "CAUGHT"}`;
    }
    case "social_event_set": {
      if (e.rating === null || e.rating === undefined) return "The social event is over";
      let text = `Social event: Event Rating ${e.rating}`;
      const parts = terms(e.parts);
      if (parts) text += ` (${parts})`;
      const bits = [];
      if (e.organizer) bits.push(`organised by ${n(e.organizer)}`);
      if (e.circle) bits.push(`circle: ${e.circle}`);
      if (e.topic) bits.push(`topic: ${e.topic}`);
      bits.push(`encounter ${e.encounter ?? 1}${e.last === false ? "" : " (the last)"}`);
      return `${text}; ${bits.join(", ")}`;
    }
    case "social_situation_set": return `${n(e.combatant)}'s situation at the event: ${situationText(e)}`;
    case "aura_points_changed": return `${n(e.combatant)}: ${e.reason} → Harmony ${e.harmony}, Discord ${e.discord}`;
    default: return human(e.kind);
  }
}

/** The GM's answers to the situation tables, in words. */
export function situationText(e) {
  const bits = [human(e.familiarity || "known"), `race ${human(e.race || "prevailing")}`];
  if (e.subject_rank !== null && e.subject_rank !== undefined) bits.push(`rank in the subject ${e.subject_rank}`);
  if (e.invitation === true) bits.push("invited");
  else if (e.invitation === false) bits.push("no invitation");
  if (e.knows_host) bits.push("knows the host");
  if (e.knows_most) bits.push("knows most present");
  bits.push(`attire ${human(e.attire || "ordinary")}`);
  return bits.join(", ");
}

/** The characters of a map drawing and the BattleMap layer each stands for (the format of
 * BattleMap.from_ascii; letters and digits are open floor). */
export const DRAWING = { "#": "blocked", "~": "difficult", "=": "low", ":": "fog", "%": "darkness", "^": "pits", "!": "improved_cover" };

/** A map drawn in text as the `map` of set_map (the server checks it). */
export function drawingToMap(text, walls = []) {
  const rows = text.split("\n").map((l) => l.replace(/\s+/g, "")).filter(Boolean);
  const map = { width: Math.max(0, ...rows.map((r) => r.length)), height: rows.length, walls };
  rows.forEach((row, y) => [...row].forEach((ch, x) => {
    if (DRAWING[ch]) (map[DRAWING[ch]] ||= []).push([x, y]);
  }));
  return map;
}

/** One YAML scalar as written in an encounter file: true/false/null, a number, a quoted or a
 *  plain string (a trailing ` # comment` dropped). */
function yamlScalar(raw) {
  let text = raw.trim();
  const quoted = text.match(/^(["'])(.*)\1$/);
  if (quoted) return quoted[2];
  text = text.replace(/\s+#.*$/, "").trim();
  if (text === "true") return true;
  if (text === "false") return false;
  if (text === "null" || text === "~" || text === "") return null;
  if (/^-?\d+$/.test(text)) return Number(text);
  return text;
}

/** A flow value written in JSON's own syntax (`[[7, 0], [7, 1]]`, `{"a": 1}`) or a flow
 *  mapping of scalars (`{players_roll: true, dice_seed: 7}`); undefined when neither. */
function flowValue(text) {
  try { return JSON.parse(text); } catch { /* not JSON */ }
  const m = text.trim().match(/^\{(.*)\}$/);
  if (!m) return undefined;
  const out = {};
  for (const part of m[1].split(",")) {
    if (!part.trim()) continue;
    const kv = part.match(/^\s*([\w-]+)\s*:\s*(.*)$/);
    if (!kv || /[[\]{}]/.test(kv[2])) return undefined;
    out[kv[1]] = yamlScalar(kv[2]);
  }
  return out;
}

/** The top-level keys of a YAML document: each with what follows it on its line and the
 *  indented lines below it. */
function yamlSections(text) {
  const sections = new Map();
  let current = null;
  for (const line of text.split(/\r?\n/)) {
    const top = line.match(/^([A-Za-z_][\w-]*):(.*)$/);
    if (top) {
      current = { inline: top[2].replace(/\s+#.*$/, "").trim(), lines: [] };
      sections.set(top[1], current);
    } else if (current && (/^\s/.test(line) || line === "")) {
      current.lines.push(line);
    } else if (!/^\s*(#|$)/.test(line)) {
      current = null;
    }
  }
  return sections;
}

/** The keys of an indented block (`  key: value`), one level deep: each with its inline
 *  value and the lines indented below it. */
function blockEntries(lines) {
  const indent = Math.min(...lines.filter((l) => l.trim() && !l.trim().startsWith("#")).map((l) => l.match(/^\s*/)[0].length));
  const out = new Map();
  let current = null;
  for (const line of lines) {
    if (!line.trim() || line.trim().startsWith("#")) { if (current) current.lines.push(line); continue; }
    const depth = line.match(/^\s*/)[0].length;
    const kv = line.slice(indent).match(/^([\w-]+):(.*)$/);
    if (depth === indent && kv) {
      current = { inline: kv[2].replace(/\s+#.*$/, "").trim(), lines: [] };
      out.set(kv[1], current);
    } else if (current && depth > indent) {
      current.lines.push(line);
    } else {
      return null; // a list or something else this reader does not follow
    }
  }
  return out;
}

/** What the web table's form takes from an encounter file (the format of the shipped
 *  examples, docs/stat-blocks.md "Encounter files"), YAML or JSON: its `name`, `ruleset`,
 *  `options` and `map` (a map as JSON or drawn in text), with `ignored` naming, and saying
 *  why, each part the form does not use. The whole text goes to the server as
 *  `combatants_yaml`, which reads its `combatants`. */
export function readEncounterFile(text) {
  const out = { ignored: [], problems: [] };
  const trimmed = (text || "").trim();
  if (!trimmed) return out;
  let data = null;
  if (trimmed.startsWith("{")) {
    try { data = JSON.parse(trimmed); } catch (err) { out.problems.push(`not JSON: ${err.message}`); return out; }
  }
  if (trimmed.startsWith("[")) return out; // a list of stat blocks
  const sections = data ? new Map(Object.entries(data).map(([k, v]) => [k, { value: v }])) : yamlSections(text);
  for (const [key, sec] of sections) {
    const value = "value" in sec ? sec.value : undefined;
    if (key === "combatants") continue;
    if (key === "name" || key === "ruleset") {
      const v = value !== undefined ? value : yamlScalar(sec.inline);
      if (typeof v === "string" && v) out[key] = v;
      else out.problems.push(`${key}: not read (write it on one line)`);
    } else if (key === "options") {
      let v = value;
      if (v === undefined && sec.inline) v = flowValue(sec.inline);
      if (v === undefined && !sec.inline) {
        const entries = blockEntries(sec.lines);
        if (entries && [...entries.values()].every((e) => !e.lines.some((l) => l.trim() && !l.trim().startsWith("#")))) {
          v = Object.fromEntries([...entries].map(([k, e]) => [k, yamlScalar(e.inline)]));
        }
      }
      if (v && typeof v === "object" && !Array.isArray(v)) out.options = v;
      else out.problems.push("options: not read (write each option as `name: value` on its own line, or as JSON)");
    } else if (key === "map") {
      let v = value;
      if (v === undefined && sec.inline) v = flowValue(sec.inline);
      if (v === undefined && !sec.inline) {
        const entries = blockEntries(sec.lines);
        if (entries && entries.has("drawing")) {
          const drawing = entries.get("drawing");
          const rows = drawing.inline === "|" || drawing.inline === "|-" ? drawing.lines.join("\n") : drawing.inline;
          const walls = entries.has("walls") ? flowValue(entries.get("walls").inline) : [];
          if (Array.isArray(walls)) v = { drawing: rows, walls };
        } else if (entries) {
          const built = {};
          for (const [k, e] of entries) {
            const item = e.inline ? flowValue(e.inline) ?? yamlScalar(e.inline) : undefined;
            if (item === undefined) { built.unreadable = true; break; }
            built[k] = item;
          }
          if (!built.unreadable) v = built;
        }
      }
      if (v && typeof v === "object" && "drawing" in v) {
        try { out.map = drawingToMap(String(v.drawing), v.walls || []); } catch (err) { out.problems.push(`map: ${err.message}`); }
      } else if (v && typeof v === "object") {
        out.map = v;
      } else {
        out.problems.push("map: not read (write it as JSON, or as `drawing: |` with the rows below it): paste it in the battle map box");
      }
    } else if (key === "description") {
      out.ignored.push("description (shown in the list of examples only)");
    } else if (key === "social") {
      out.ignored.push("social (the event, each one's situation and statement: set them from the GM console once the encounter exists)");
    } else {
      out.ignored.push(`${key} (not a part of an encounter file)`);
    }
  }
  return out;
}
