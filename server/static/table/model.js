// The encounter as this viewer received it: a snapshot, then the events after it, folded into
// what the views show (names, order, whose turn, conditions, the log). No rules here: the
// server has already redacted what this viewer may not see, and says what it may do in
// legal_actions. Event kinds this file does not know still reach the log, as they are.

export class Table {
  constructor() {
    this.reset();
    this.log = []; // {seq, kind, text, roll?}
    this.legal = [];
    this.welcome = null;
  }

  reset() {
    this.seq = 0;
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
    this.options = {};
    this.started = false;
    this.ended = false;
    this.endReason = null;
    this.needsSnapshot = false;
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
    if (msg.type === "legal_actions") { this.legal = msg.actions; return []; }
    if (msg.type === "snapshot") { this.fromSnapshot(msg.state, msg.seq, msg.reason); return []; }
    if (msg.type !== "event" || msg.seq <= this.seq) return [];
    this.seq = msg.seq;
    const added = this.event(msg.event).map((l) => ({ seq: msg.seq, ts: msg.ts, kind: msg.event.kind, ...l }));
    this.log.push(...added);
    if (this.log.length > 500) this.log.splice(0, this.log.length - 500);
    return added;
  }

  fromSnapshot(s, seq, reason) {
    const log = this.log;
    this.reset();
    this.log = log;
    this.state = s;
    this.seq = seq;
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
    this.options = s.options || {};
    this.started = this.phase.length > 0 && this.phase[0] !== "setup";
    this.ended = !!s.ended;
    this.endReason = s.end_reason;
    if (reason && reason !== "join") this.log.push({ seq, kind: "snapshot", text: "(caught up from a snapshot)" });
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
        this.combatants.delete(e.combatant); this.drop(e.combatant);
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
        return line(`Waiting for ${e.roller === "gm" ? "the GM" : n(e.roller)} to roll ${e.expr} (${e.purpose}${e.combatant ? " for " + n(e.combatant) : ""})`);
      case "dice_rolled":
        if (e.request) this.pendingRolls.delete(e.request);
        return line(`${e.combatant ? n(e.combatant) : "The GM"} rolls ${e.purpose}`, { roll: e.roll, by: e.by });
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
        return line(`${e.name}${e.combatant ? " on " + n(e.combatant) : ""} (${e.rounds} rounds)`);
      case "effect_ended": {
        const effect = this.effects.get(e.effect);
        this.effects.delete(e.effect);
        return line(`${effect ? effect.name : "An effect"} ends`);
      }
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
