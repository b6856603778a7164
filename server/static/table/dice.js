// Verifiable server dice (ruling R101) as the pages show them: a line with the server's
// commitment to its dice secret while the encounter runs, and once it has ended the secret it
// revealed, with the command that checks every roll against them, read from the state's
// `dice` (the server keeps it: the page folds no event). A player's page adds entropy of its
// own to the dice once an encounter.

import { h } from "/table/render.js";

function wsUrl() {
  return `${location.protocol === "https:" ? "wss" : "ws"}://${location.host}/ws`;
}

/** The "Dice: verifiable" line: `{el, update()}`; hidden while no commitment is known (dice
 *  fixed by a seed are not verifiable). `token` is the page's credential, for the check. */
export function diceLine(table, token) {
  const el = h("p", { class: "dice-line muted", hidden: true });
  let shown = "";
  const update = () => {
    const dice = (table.state && table.state.dice) || { commitment: null, secret: null };
    const key = `${dice.commitment}|${dice.secret}|${table.ended}`;
    if (key === shown) return;
    shown = key;
    el.hidden = !dice.commitment && !dice.secret;
    if (dice.secret) {
      el.dataset.state = "revealed";
      el.replaceChildren("Dice: verifiable. Secret revealed: ", h("code", { class: "secret" }, dice.secret),
        ". Check every roll: ", h("code", { class: "check" }, `python -m clients.dice_check ${wsUrl()} ${token}`));
    } else if (dice.commitment) {
      el.dataset.state = "committed";
      el.replaceChildren("Dice: verifiable. Commitment ", h("code", { class: "commitment", title: dice.commitment }, `${dice.commitment.slice(0, 12)}…`),
        table.ended ? " (no secret revealed)" : " (the secret comes when the encounter ends)");
    }
  };
  return { el, update };
}

/** Whether this page has added its entropy yet (page load), and the mark it leaves per
 *  encounter (localStorage) so that a reload sends none again. */
let entropySent = false;
const entropyKey = (encounter) => `stablemaster:entropy:${encounter}`;

/** A player's page: 16 random bytes (hex) into the server's dice, once, while the state says
 *  the encounter has not ended; a refusal (dice fixed by a seed, the most taken) is ignored. */
export function addEntropy(conn, table) {
  const encounter = table.welcome && table.welcome.encounter;
  if (entropySent || !encounter || table.welcome.role !== "player" || !table.state.phase || table.ended) return;
  entropySent = true;
  try {
    if (localStorage.getItem(entropyKey(encounter))) return;
    localStorage.setItem(entropyKey(encounter), String(Date.now()));
  } catch {
    return; // no storage: the page could not tell a reload from the first visit
  }
  const bytes = crypto.getRandomValues(new Uint8Array(16));
  const entropy = [...bytes].map((b) => b.toString(16).padStart(2, "0")).join("");
  conn.command("add_dice_entropy", { entropy }).catch(() => {});
}
