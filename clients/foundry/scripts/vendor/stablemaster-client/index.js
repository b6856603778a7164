// stablemaster-client: the JavaScript client of the Stablemaster protocol.
export { Client, CommandError, DEFAULT_FEATURES, FINAL_CLOSE_CODES, PROTOCOL_VERSIONS, httpBase, unbatch, wholeMessage } from "./client.js";
export { applyPatch, parsePointer, PatchError } from "./patch.js";
export { applyLegalDelta, recallAfter } from "./legal.js";
export { uuid } from "./ids.js";
export { Emitter } from "./emitter.js";
export { aimTargets, pathTo, reachOf } from "./map.js";
