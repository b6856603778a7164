// The rule numbers in the server's words ("… against Reflex Defense (R26)."): the summaries are
// shared with the SSE feed, the Foundry module and the package, so the server's text stays as
// it is and the table's player pages show it without them, the numbers kept for a tooltip.

/** A parenthesis that cites a ruling: "(R26)", "(ruling R67.5)", "(R93: the name as the text
 *  writes it)", "(Major Actions: HEAL, R33)". */
const CITATION = /\s*\((?:[^()]*?[,;:] )?(?:rulings? )?R\d+(?:\.\d+)?(?:[,;:][^()]*)?\)/g;

/** The text without its rule citations, and the citations (without their parentheses). */
export function withoutRules(text) {
  const rules = [];
  const shown = String(text ?? "").replace(CITATION, (m) => { rules.push(m.trim().slice(1, -1)); return ""; });
  return { text: shown, rules };
}

/** "Rules: R26, R48" for a tooltip; "" when none. */
export function rulesNote(rules) {
  return rules.length ? `Rules: ${rules.join("; ")}` : "";
}
