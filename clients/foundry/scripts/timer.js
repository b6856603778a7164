// The server's turn timer (ruling R102) at the Foundry table: carried in the mirrored combat's
// flags on Foundry's own clock (game.time.serverTime, the same on every Foundry client), and
// the countdown the combat tracker shows. Pure.

/**
 * @typedef {object} TimerFlags  The turn timer as the combat's flags carry it.
 * @property {number} number  which timer of the encounter (a new one: a new turn)
 * @property {string} combatant  whose turn it counts
 * @property {number | null} deadline  when it runs out, on Foundry's clock (ms); null: paused
 * @property {number | null} warnAt  when everyone is warned, on Foundry's clock; null: no warning
 * @property {number | null} remaining  while paused, the ms it has left
 */

/**
 * The server's `timer` (the snapshot state's) as the combat's flags carry it: its times moved
 * from the server's clock to Foundry's. `serverNow` is the server's time now as the bridge
 * reckons it (the events' `ts`), `foundryNow` Foundry's.
 * @param {{number: number, combatant: string, deadline: number | null, warn_at: number | null, remaining: number | null} | null | undefined} timer
 * @param {number} serverNow
 * @param {number} foundryNow
 * @returns {TimerFlags | null}
 */
export function timerFlags(timer, serverNow, foundryNow) {
  if (!timer) return null;
  const shift = Math.round(foundryNow - serverNow);
  return {
    number: timer.number,
    combatant: timer.combatant,
    deadline: timer.deadline === null ? null : timer.deadline + shift,
    warnAt: timer.warn_at === null ? null : timer.warn_at + shift,
    remaining: timer.remaining ?? null,
  };
}

/**
 * What the tracker shows of the timer at Foundry's time `now`: "1:05 left", "0:40 left
 * (paused)", and whether the warning time has passed; null without a timer.
 * @param {TimerFlags | null | undefined} flags
 * @param {number} now
 * @returns {{text: string, warning: boolean} | null}
 */
export function countdown(flags, now) {
  if (!flags) return null;
  const paused = flags.deadline === null;
  const left = paused ? (flags.remaining ?? 0) : Math.max(0, /** @type {number} */ (flags.deadline) - now);
  const seconds = Math.ceil(left / 1000);
  const text = `${Math.floor(seconds / 60)}:${String(seconds % 60).padStart(2, "0")} left`;
  return { text: paused ? `${text} (paused)` : text, warning: !paused && flags.warnAt !== null && now >= flags.warnAt };
}
