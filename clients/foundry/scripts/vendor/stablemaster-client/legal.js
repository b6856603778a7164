// Legal actions sent as deltas (the `legal_delta` feature): the new list is the delta's items
// in order, an entry standing for itself and [start, count] for that many entries of the list
// held, from index start on. With `legal_recall`, [start, count, combatant] stands for that
// many entries of what the connection recalls of the combatant (`recallAfter` keeps it).

/**
 * The list a `legal_actions_delta` makes of `previous`, or null when it does not apply (a
 * run reaches past the list): then ask for the full list (`get_legal_actions`).
 * @param {object[]} previous
 * @param {Array<object | [number, number] | [number, number, string]>} items
 * @param {Map<string, object[]>} [recall] what is recalled of each combatant (`legal_recall`)
 * @returns {object[] | null}
 */
export function applyLegalDelta(previous, items, recall = new Map()) {
  const out = [];
  for (const item of items) {
    if (!Array.isArray(item)) { out.push(item); continue; }
    const [start, count, combatant] = item;
    const held = item.length === 3 ? recall.get(combatant) ?? [] : previous;
    if (!(Number.isInteger(start) && Number.isInteger(count) && start >= 0 && count >= 1 && start + count <= held.length)) return null;
    for (let i = start; i < start + count; i++) out.push(held[i]);
  }
  return out;
}

/**
 * What a connection with `legal_recall` recalls once a delta made `current` of `previous`:
 * for each combatant whose entries are not the same in both, its entries of `previous` (a
 * full `legal_actions` recalls nothing: start again from an empty Map).
 * @param {object[]} previous
 * @param {object[]} current
 * @param {Map<string, object[]>} recall
 * @returns {Map<string, object[]>}
 */
export function recallAfter(previous, current, recall) {
  const groups = (entries) => {
    const out = new Map();
    for (const e of entries) {
      if (e.combatant === null || e.combatant === undefined) continue;
      if (!out.has(e.combatant)) out.set(e.combatant, []);
      out.get(e.combatant).push(e);
    }
    return out;
  };
  const same = (a, b) => a !== undefined && a.length === b.length &&
    a.every((e, i) => e === b[i] || JSON.stringify(e) === JSON.stringify(b[i]));
  const before = groups(previous);
  const after = groups(current);
  let next = recall;
  for (const [c, entries] of before) {
    if (same(after.get(c), entries)) continue;
    if (next === recall) next = new Map(recall);
    next.set(c, entries);
  }
  return next;
}
