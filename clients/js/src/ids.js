// Command ids: a random prefix per client plus a counter, and fresh UUIDs (v4) for
// create_encounter, whose id must be unique everywhere.

/** Random bytes: crypto.getRandomValues (browsers, Node 19+; randomUUID would need a secure
 *  context), else Math.random (Node 18 has no global crypto): ids need to be unique, not secret. */
function randomBytes(n) {
  const c = globalThis.crypto;
  if (c && typeof c.getRandomValues === "function") return c.getRandomValues(new Uint8Array(n));
  return Uint8Array.from({ length: n }, () => Math.floor(Math.random() * 256));
}

/** A random UUID (v4). */
export function uuid() {
  const b = randomBytes(16);
  b[6] = (b[6] & 0x0f) | 0x40;
  b[8] = (b[8] & 0x3f) | 0x80;
  const h = [...b].map((x) => x.toString(16).padStart(2, "0")).join("");
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20)}`;
}

/** A prefix for a client's command ids: 8 random hex digits. */
export function idPrefix() {
  return uuid().slice(0, 8);
}
