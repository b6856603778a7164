// JSON Patch (RFC 6902), applied in place: the `view` messages of the protocol patch the state
// a connection holds with `add`, `remove` and `replace`; `move`, `copy` and `test` are applied
// too, for completeness. A patch that does not apply throws a PatchError, the document left
// as the operations before the failing one made it: the client then asks for a fresh
// snapshot rather than trust it.

/** A patch that does not apply to the document held. */
export class PatchError extends Error {
  /** @param {string} message @param {number} index @param {object} operation */
  constructor(message, index, operation) {
    super(`operation ${index} (${operation && operation.op} ${operation && operation.path}): ${message}`);
    this.name = "PatchError";
    this.index = index;
    this.operation = operation;
  }
}

/** The reference tokens of a JSON Pointer (RFC 6901). */
export function parsePointer(pointer) {
  if (pointer === "") return [];
  if (typeof pointer !== "string" || pointer[0] !== "/") throw new TypeError(`not a JSON Pointer: ${pointer}`);
  return pointer.slice(1).split("/").map((t) => t.replace(/~1/g, "/").replace(/~0/g, "~"));
}

const isContainer = (v) => v !== null && typeof v === "object";

function arrayIndex(array, token, forAdd) {
  if (forAdd && token === "-") return array.length;
  if (!/^(0|[1-9][0-9]*)$/.test(token)) throw new TypeError(`not an array index: ${token}`);
  const i = Number(token);
  if (i > array.length || (!forAdd && i === array.length)) throw new TypeError(`index ${i} out of range`);
  return i;
}

/** The container and the last token of `path`; throws when a container on the way is missing. */
function locate(doc, path) {
  const tokens = parsePointer(path);
  if (!tokens.length) return { parent: null, key: null };
  let node = doc;
  for (const token of tokens.slice(0, -1)) {
    if (Array.isArray(node)) node = node[arrayIndex(node, token, false)];
    else if (isContainer(node) && Object.prototype.hasOwnProperty.call(node, token)) node = node[token];
    else throw new TypeError(`no ${token} on the way to ${path}`);
    if (!isContainer(node)) throw new TypeError(`${path}: not a container on the way`);
  }
  return { parent: node, key: tokens[tokens.length - 1] };
}

function get(doc, path) {
  const { parent, key } = locate(doc, path);
  if (parent === null) return doc;
  if (Array.isArray(parent)) return parent[arrayIndex(parent, key, false)];
  if (!Object.prototype.hasOwnProperty.call(parent, key)) throw new TypeError(`nothing at ${path}`);
  return parent[key];
}

const clone = (v) => (isContainer(v) ? JSON.parse(JSON.stringify(v)) : v);

function equal(a, b) {
  if (a === b) return true;
  if (!isContainer(a) || !isContainer(b) || Array.isArray(a) !== Array.isArray(b)) return false;
  const ka = Object.keys(a), kb = Object.keys(b);
  return ka.length === kb.length && ka.every((k) => Object.prototype.hasOwnProperty.call(b, k) && equal(a[k], b[k]));
}

function add(doc, path, value) {
  const { parent, key } = locate(doc, path);
  if (parent === null) throw new TypeError("the whole document cannot be replaced in place");
  if (Array.isArray(parent)) parent.splice(arrayIndex(parent, key, true), 0, value);
  else parent[key] = value;
}

function remove(doc, path) {
  const { parent, key } = locate(doc, path);
  if (parent === null) throw new TypeError("the whole document cannot be removed");
  const value = get(doc, path);
  if (Array.isArray(parent)) parent.splice(arrayIndex(parent, key, false), 1);
  else delete parent[key];
  return value;
}

/** The value at `path`, which must exist, becomes `value` where it is (a member keeps its
 *  place among the object's members: a page that lists them keeps their order). */
function replace(doc, path, value) {
  get(doc, path);
  const { parent, key } = locate(doc, path);
  if (parent === null) throw new TypeError("the whole document cannot be replaced in place");
  parent[Array.isArray(parent) ? arrayIndex(parent, key, false) : key] = value;
}

/**
 * Apply `patch` (a list of operations) to `doc` in place and return `doc`.
 * @param {object} doc a JSON object or array (the root itself is never replaced)
 * @param {Array<{op: string, path: string, value?: unknown, from?: string}>} patch
 */
export function applyPatch(doc, patch) {
  if (!Array.isArray(patch)) throw new PatchError("a patch is a list of operations", -1, null);
  patch.forEach((op, i) => {
    try {
      switch (op.op) {
        case "add": add(doc, op.path, clone(op.value)); break;
        case "remove": remove(doc, op.path); break;
        case "replace": replace(doc, op.path, clone(op.value)); break;
        case "move": {
          if (op.path.startsWith(op.from + "/")) throw new TypeError("cannot move a value into itself");
          add(doc, op.path, remove(doc, op.from));
          break;
        }
        case "copy": add(doc, op.path, clone(get(doc, op.from))); break;
        case "test": if (!equal(get(doc, op.path), op.value)) throw new TypeError("test failed"); break;
        default: throw new TypeError(`unknown operation ${op.op}`);
      }
    } catch (err) {
      throw new PatchError(err.message, i, op);
    }
  });
  return doc;
}
