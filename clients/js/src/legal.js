// Legal actions sent as deltas (the `legal_delta` feature): the new list is the delta's items
// in order, an entry standing for itself and [start, count] for that many entries of the list
// held, from index start on.

/**
 * The list a `legal_actions_delta` makes of `previous`, or null when it does not apply (a
 * run reaches past the list): then ask for the full list (`get_legal_actions`).
 * @param {object[]} previous
 * @param {Array<object | [number, number]>} items
 * @returns {object[] | null}
 */
export function applyLegalDelta(previous, items) {
  const out = [];
  for (const item of items) {
    if (!Array.isArray(item)) { out.push(item); continue; }
    const [start, count] = item;
    if (!(Number.isInteger(start) && Number.isInteger(count) && start >= 0 && count >= 1 && start + count <= previous.length)) return null;
    for (let i = start; i < start + count; i++) out.push(previous[i]);
  }
  return out;
}
