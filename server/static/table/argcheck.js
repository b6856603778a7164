// Checks a command's arguments against the JSON Schema the server publishes for its
// `legal_actions` entry (`args_schema`; all of them at GET /schemas/args.json) before anything
// is sent: each problem in words, with the argument it is about. The server checks again (a
// page out of date, a hand-written client): this only spares a person a round trip and a
// refusal that reads like a validator. It reads the part of JSON Schema those schemas use:
// type, enum, const, minimum, maximum, exclusiveMinimum, exclusiveMaximum, minLength,
// maxLength, pattern, items, prefixItems, minItems, maxItems, properties, required,
// additionalProperties, anyOf and $ref into the schema's own $defs.

let loaded = null;

/** The server's argument schemas by id (fetched once; `{}` when they cannot be had, and then
 * nothing is checked here). */
export function argSchemas() {
  if (!loaded) {
    loaded = fetch("/schemas/args.json").then((r) => (r.ok ? r.json() : {})).catch(() => ({}));
  }
  return loaded;
}

const TYPE_WORDS = { integer: "a whole number", number: "a number", string: "text", boolean: "yes or no",
  array: "a list", object: "a set of named values", null: "nothing" };

function typeOf(value) {
  if (value === null) return "null";
  if (Array.isArray(value)) return "array";
  if (typeof value === "number") return Number.isInteger(value) ? "integer" : "number";
  return typeof value; // string, boolean, object
}

function typeOk(type, value) {
  const got = typeOf(value);
  return got === type || (type === "number" && got === "integer");
}

const wordsOf = (types) => [...new Set(types.map((t) => TYPE_WORDS[t] || t))].join(" or ");
const itemWords = (n) => `${n} item${n === 1 ? "" : "s"}`;
const charWords = (n) => `${n} character${n === 1 ? "" : "s"}`;

function resolve(schema, root) {
  while (schema && schema.$ref) {
    const name = schema.$ref.replace(/^#\/\$defs\//, "");
    schema = (root.$defs || {})[name];
  }
  return schema || {};
}

function check(schema, value, where, root, out) {
  schema = resolve(schema, root);
  const name = where || "the arguments";
  if (schema.anyOf) {
    const tries = schema.anyOf.map((alt) => { const found = []; check(alt, value, where, root, found); return found; });
    if (tries.some((found) => !found.length)) return;
    // the alternative of the value's type says what is wrong; without one, the types allowed
    const same = schema.anyOf.findIndex((alt) => { const r = resolve(alt, root); return r.type && [].concat(r.type).some((t) => typeOk(t, value)); });
    if (same >= 0) { out.push(...tries[same]); return; }
    const types = schema.anyOf.flatMap((alt) => [].concat(resolve(alt, root).type || []));
    out.push({ field: where, text: `${name} must be ${wordsOf(types)}` });
    return;
  }
  if (schema.type) {
    const types = [].concat(schema.type);
    if (!types.some((t) => typeOk(t, value))) {
      out.push({ field: where, text: `${name} must be ${wordsOf(types)}` });
      return;
    }
  }
  if ("const" in schema && value !== schema.const) out.push({ field: where, text: `${name} must be ${schema.const}` });
  if (schema.enum && !schema.enum.includes(value)) {
    out.push({ field: where, text: `${name} must be one of: ${schema.enum.join(", ")}` });
    return;
  }
  if (typeof value === "number") {
    if (schema.minimum !== undefined && value < schema.minimum) out.push({ field: where, text: `${name} must be at least ${schema.minimum}` });
    if (schema.maximum !== undefined && value > schema.maximum) out.push({ field: where, text: `${name} must be at most ${schema.maximum}` });
    if (schema.exclusiveMinimum !== undefined && value <= schema.exclusiveMinimum) out.push({ field: where, text: `${name} must be more than ${schema.exclusiveMinimum}` });
    if (schema.exclusiveMaximum !== undefined && value >= schema.exclusiveMaximum) out.push({ field: where, text: `${name} must be less than ${schema.exclusiveMaximum}` });
  }
  if (typeof value === "string") {
    const length = [...value].length; // characters (code points), as JSON Schema and the server count
    if (schema.minLength !== undefined && length < schema.minLength) {
      out.push({ field: where, text: schema.minLength === 1 ? `${name} is needed` : `${name} must be at least ${charWords(schema.minLength)} long` });
    }
    if (schema.maxLength !== undefined && length > schema.maxLength) out.push({ field: where, text: `${name} must be at most ${charWords(schema.maxLength)} long` });
    if (schema.pattern && !new RegExp(schema.pattern, "u").test(value)) out.push({ field: where, text: `${name} is not written as it should be` });
  }
  if (Array.isArray(value)) {
    if (schema.minItems !== undefined && value.length < schema.minItems) out.push({ field: where, text: `${name} must list at least ${itemWords(schema.minItems)}` });
    if (schema.maxItems !== undefined && value.length > schema.maxItems) out.push({ field: where, text: `${name} must list at most ${itemWords(schema.maxItems)}` });
    const first = schema.prefixItems || [];
    value.forEach((item, i) => {
      const each = i < first.length ? first[i] : schema.items;
      if (each === false) out.push({ field: `${where}[${i}]`, text: `${name} must list at most ${itemWords(first.length)}` });
      else if (each && each !== true) check(each, item, `${where}[${i}]`, root, out);
    });
  }
  if (typeOf(value) === "object") {
    const props = schema.properties || {};
    for (const field of schema.required || []) {
      if (!(field in value)) out.push({ field: where ? `${where}.${field}` : field, text: `${where ? `${where}.${field}` : field} is needed` });
    }
    for (const [field, item] of Object.entries(value)) {
      const path = where ? `${where}.${field}` : field;
      if (field in props) check(props[field], item, path, root, out);
      else if (schema.additionalProperties === false) {
        const takes = Object.keys(props);
        out.push({ field: path, text: `${path} is not an argument here (${takes.length ? `it takes ${takes.join(", ")}` : "it takes none"})` });
      } else if (schema.additionalProperties && typeof schema.additionalProperties === "object") {
        check(schema.additionalProperties, item, path, root, out);
      }
    }
  }
}

/** The problems of `value` against `schema`, in words: `[{field, text}]`, none when it fits. */
export function argProblems(schema, value) {
  const out = [];
  if (schema) check(schema, value, "", schema, out);
  return out;
}
