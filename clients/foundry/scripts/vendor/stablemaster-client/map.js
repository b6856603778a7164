// What the battle map says, read off the answers of `get_reach` (ruling R106) and `get_aim`
// (ruling R107): the path `act` takes to a square, and each target with whether the action
// may be taken at it and, if not, why. `client.getReach` and `client.getAim` send the commands.

/**
 * The `get_reach` entry of a square (`{at, cost, path}`), or null when the move cannot end
 * there.
 * @param {{squares: Array<{at: number[], cost: number, path: number[][]}>}} reach a get_reach result
 * @param {number[]} square `[x, y]`
 */
export function reachOf(reach, square) {
  const [x, y] = square;
  return reach.squares.find((s) => s.at[0] === x && s.at[1] === y) ?? null;
}

/**
 * The cheapest path to a square, as `act` takes it (`args.path`), or null when the move
 * cannot end there.
 * @param {{squares: Array<{at: number[], cost: number, path: number[][]}>}} reach a get_reach result
 * @param {number[]} square `[x, y]`
 */
export function pathTo(reach, square) {
  const found = reachOf(reach, square);
  return found ? found.path.map((s) => [s[0], s[1]]) : null;
}

/**
 * The targets of a `get_aim` answer in its order, split: `ok`, those the action may be taken
 * at (with the map's `distance`, `cover`, `concealment`, `into_melee` where both stand on the
 * map), and `refused`, the others with `why` (the sentence `act` would answer); `why(target)`
 * is that sentence for one target, null for one the action may be taken at or that is not
 * listed.
 * @param {{targets: Array<{target: string, ok: boolean, why?: string}>}} aim a get_aim result
 */
export function aimTargets(aim) {
  const ok = aim.targets.filter((t) => t.ok);
  const refused = aim.targets.filter((t) => !t.ok);
  const why = (target) => refused.find((t) => t.target === target)?.why ?? null;
  return { ok, refused, why };
}
