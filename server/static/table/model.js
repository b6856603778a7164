// The encounter as this viewer is shown it, read from what the server says and nothing else:
// the state the package's client (conn.js) holds, the snapshot's with every `view` patch
// applied, and the log, each event's `summary` (the server's words for it, redacted for this
// viewer: the `summaries` feature), live and from `get_history`. No rules and no words of its
// own here: nothing is worked out of an event's fields (its kind picks at most a line's
// look), and an event the page does not know reads as the server wrote it. The client folds
// legal action deltas too: the table is handed full lists.

import { applyLegalDelta } from "/client/legal.js";

/**
 * The legal actions a legal_actions_delta makes of the list held (`previous`): its items in
 * order, an entry as itself and [start, count] as that many entries of `previous` from start
 * on. Null when it does not apply (a run reaches past the list). The package's fold
 * (clients/js/src/legal.js); clients/view.py's apply_legal_delta does the same.
 */
export { applyLegalDelta };

/** How many log lines a page keeps. */
const KEPT = 500;


/** A log line of an event message: its summary's text and parts, or, from a server without
 *  summaries, its kind. */
function lineOf(m) {
  const summary = m.summary || {};
  return { at: m.cursor ?? m.seq ?? null, ts: m.ts, kind: m.event.kind, text: summary.text ?? m.event.kind.replaceAll("_", " "), parts: summary.parts || [], gone: !!m.taken_back };
}

export class Table {
  constructor() {
    this.log = []; // {n, at, ts, kind, text, parts}: n numbers the lines, at is the event's cursor
    this.lines = 0;
    this.legal = [];
    this.turnId = null; // legal_actions.turn_id: sent back as expect_turn with turn actions
    this.legalCursor = null; // the cursor of the last legal_actions (or delta) applied
    this.sending = 0; // turn commands sent and not answered yet: their controls stay disabled
    this.welcome = null;
    this.cursor = null; // of the last event or snapshot applied
    this.clock = null; // the largest event ts - the local time it came at (ms): the one least delayed
    this.fromState({});
  }

  /** The server's clock now, in ms since the epoch: the local clock with the offset the
   *  events' `ts` give (an event's `ts` is the server's time it was sent, so the one that came
   *  quickest gives the largest; a snapshot's `ts` too); the local clock as it is until one has come. */
  serverNow() {
    return Date.now() + (this.clock ?? 0);
  }

  /** The server keeps this connection's state (the view feature was granted). */
  viewing() {
    return !!this.welcome && (this.welcome.features || []).includes("view");
  }

  nameOf(id) {
    if (id === null || id === undefined) return "the GM";
    const c = this.combatants.get(id);
    return c ? c.name : id;
  }

  /** Take in a server message (with the state the connection holds, for a snapshot or a
   *  `view`); the log lines it added. */
  apply(msg, state = null) {
    if (msg.type === "welcome") { this.welcome = msg; return []; }
    if (msg.type === "legal_actions") { this.legal = msg.actions; this.turnId = msg.turn_id ?? null; this.legalCursor = msg.cursor ?? null; return []; }
    if (msg.type === "snapshot") {
      if (typeof msg.ts === "number") this.clock = Math.max(this.clock ?? -Infinity, msg.ts - Date.now());
      this.fromSnapshot(state || msg.state, msg.cursor ?? null, msg.reason);
      return [];
    }
    if (msg.type === "view") { if (state) this.fromState(state); return []; }
    if (msg.type !== "event") return [];
    this.cursor = msg.cursor ?? null;
    if (typeof msg.ts === "number") this.clock = Math.max(this.clock ?? -Infinity, msg.ts - Date.now());
    const line = { n: ++this.lines, ...lineOf(msg) };
    this.log.push(line);
    if (this.log.length > KEPT) this.log.splice(0, this.log.length - KEPT);
    return [line];
  }

  /** The log lines of the events before those received live (a `history` page's events), in
   *  front of them. */
  fromHistory(events) {
    const live = new Set(this.log.map((l) => l.at));
    // what the GM took back since (R108): the server's history marks it
    const gone = new Map(events.filter((m) => m.event).map((m) => [m.cursor ?? m.seq, !!m.taken_back]));
    for (const l of this.log) if (gone.has(l.at)) l.gone = gone.get(l.at);
    const earlier = events.filter((m) => m.event && !live.has(m.cursor ?? m.seq)).map(lineOf);
    this.log = [...earlier, ...this.log].slice(-KEPT);
    this.lines = 0;
    for (const l of this.log) l.n = ++this.lines;
  }

  fromSnapshot(s, cursor, reason) {
    // the server's log went back (it lost its end): what this view got after the snapshot's
    // place (the last line at its cursor) is undone
    const undone = reason === "rewound" || reason === "resume_ahead";
    // after the GM took commands back (R108) the log stays: its last line says so, and the
    // lines taken back are marked from the history
    const tookBack = undone && this.log.length > 0 && this.log.at(-1).kind === "commands_undone" && this.log.at(-1).at === cursor;
    if (undone && !tookBack) {
      const last = this.log.map((l) => l.at).lastIndexOf(cursor);
      if (last >= 0) this.log = this.log.slice(0, last + 1);
    }
    this.cursor = cursor;
    this.fromState(s);
    if (undone && !tookBack) this.log.push({ n: ++this.lines, at: cursor, kind: "snapshot", text: "(the server went back to an earlier point: what came after it is undone)", parts: [] });
    else if (!undone && reason && reason !== "join" && reason !== "asked" && reason !== "replay") this.log.push({ n: ++this.lines, at: cursor, kind: "snapshot", text: "(caught up from a snapshot)", parts: [] });
  }

  /** What the views show, read from the state (a snapshot's, with every patch applied). The
   *  state is the client's: read, never changed. */
  fromState(s) {
    this.state = s;
    this.name = s.name || "";
    this.ruleset = s.ruleset || "";
    this.phase = s.phase || [];
    this.round = s.round || 0;
    this.current = s.current ?? null;
    this.combatants = new Map((s.combatants || []).map((c) => [c.id, c]));
    this.order = s.order || [];
    this.initiative = new Map((s.initiative || []).map((e) => [e.combatant, e]));
    this.flatFooted = new Set(s.flat_footed || []);
    this.delaying = new Set(s.delaying || []);
    this.readied = s.readied || {};
    this.effects = new Map((s.effects || []).map((e) => [e.effect, e]));
    this.pendingRolls = new Map((s.pending_rolls || []).map((p) => [p.request, p]));
    this.tokens = new Map((s.tokens || []).map((t) => [t.token_id, t]));
    this.map = s.map || null; // the battle map (BattleMap as JSON) or null
    this.positions = new Map(Object.entries(s.positions || {})); // combatant -> [x, y], its top-left square
    this.grabs = new Map(Object.entries(s.grabs || {}).filter(([, g]) => g && g.length)); // target -> [grabbers]
    this.atEffects = (s.action_time || {}).effects || []; // "Action Time" effects on the combatants this viewer sees
    this.numbers = s.numbers || (s.action_time || {}).numbers || {}; // combatant -> its defenses and speed now
    this.arguments = new Map(Object.entries(s.arguments || {})); // argument id -> {owner, size, text, perilous}
    this.attitudes = s.attitudes || {}; // holder -> {toward: attitude}
    this.blocking = new Set(s.blocking || []);
    this.answers = new Map(Object.entries(s.answers || {})); // statement id -> {speaker, target, loss}
    this.debateOver = !!s.debate_over;
    this.social = s.social || null; // {event, standing: {cid: {status, status_parts, access, aura, harmony, discord}}}
    this.options = s.options || {};
    this.timer = s.timer || null; // the running turn timer: {number, combatant, deadline, warn_at, remaining}
    this.started = this.phase.length > 0 && this.phase[0] !== "setup";
    this.ended = !!s.ended;
    this.endReason = s.end_reason ?? null;
  }
}

// -- a state's words: effects, conditions, tracks (the rulesets' own words from the server) -----

const CONDITIONS = { fit: "", active: "", unconscious: "unconscious",
  awaiting_check: "awaiting a Constitution check", out_for_scene: "out for the scene", dead: "dead", destroyed: "destroyed" };
const human = (s) => String(s).replaceAll("_", " ");

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

/** A condition chart configuration in words ("" for an active, fit combatant), with the
 *  ruleset's word for fatigue points (an "Action Time" combatant is defenseless at 0 Health). */
export function conditionText(condition, label = "fatigue") {
  const zero = label === "fatigue" ? "0 fatigue points" : `0 ${label}`;
  return (condition || []).map((c) => (c === "defenseless" ? `defenseless (${zero})` : CONDITIONS[c] ?? human(c))).filter(Boolean).join(", ");
}

/** The ruleset's words for a band of the vitals (`vitals.band`, ruling R105): "winded". */
export function bandText(band, ruleset) {
  if (!band) return "";
  const words = (rulesets.get(ruleset) || {}).bands || {};
  return words[band] ?? human(band);
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

/** Whether the ruleset's encounters have a battle map (not Action Time's, ruling R103);
 * true until the server's list has come. */
export function keepsMap(ruleset) {
  return (rulesets.get(ruleset) || {}).map !== false;
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
  parts.push(trackText("physical", v.physical), trackText("mental", v.mental), conditionText(v.condition, label));
  if (v.prone) parts.push("prone");
  if (v.helpless) parts.push("helpless"); // as the server works it out (HELPLESS CONDITION)
  if (v.check_round !== null && v.check_round !== undefined) parts.push(`Constitution check in round ${v.check_round}`);
  return parts.filter(Boolean).join(", ");
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
