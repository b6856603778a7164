// The GM console: the roster (awareness, hide and reveal, invites), links for players and
// spectators, the scene's flow and every legal action, rulings, the order and the log.

import { h, renderOrder, renderLog, renderActions, subtitle, tableLink, watchLink } from "/table/render.js";

// GM rulings: adjudicate an action the rules leave open, override a result, each with a
// reason. The server does not offer these commands yet; each form turns on by itself once the
// server lists its command among the GM's legal actions, and sends that command with the
// fields below (add or rename fields here when the protocol defines them).
export const GM_TOOLS = [
  { command: "adjudicate", title: "Adjudicate", help: "Rule on an action the rules leave to the GM.",
    fields: [["combatant", "combatant"], ["ruling", "text"], ["reason", "text"]] },
  { command: "override", title: "Override", help: "Change a result the server worked out.",
    fields: [["combatant", "combatant"], ["change", "text"], ["reason", "text"]] },
];

export function gmView(root, table, conn) {
  const run = (type, fields) => conn.command(type, fields);
  const roster = h("tbody", {});
  const rosterError = h("p", { class: "error", role: "alert" });
  const order = h("ol", { class: "order" });
  const actions = h("div", {});
  const log = h("div", { class: "log" });
  const links = h("ul", { class: "links" });
  const tokens = h("ul", { class: "tokens" });
  const tools = h("div", { class: "tools" });
  const linkError = h("p", { class: "error", role: "alert" });
  const storeKey = () => `stablemaster:links:${table.welcome?.encounter}`;
  const issued = () => JSON.parse(sessionStorage.getItem(storeKey()) || "[]");
  const remember = (item) => {
    sessionStorage.setItem(storeKey(), JSON.stringify([...issued().filter((x) => x.token_id !== item.token_id), item]));
  };
  const guard = (errorEl) => async (type, fields) => {
    errorEl.textContent = "";
    try { return await run(type, fields); } catch (err) { errorEl.textContent = `${err.code || ""}: ${err.message || err}`; return null; }
  };
  const rosterRun = guard(rosterError);
  const linkRun = guard(linkError);

  const spectatorButton = h("button", { type: "button", class: "spectator-link", onclick: async () => {
    const ack = await linkRun("issue_spectator_link", { label: "spectators" });
    if (ack) { remember({ token_id: ack.result.token_id, label: "Spectators", url: watchLink(ack.result.token), overlay: watchLink(ack.result.token, true) }); renderLinks(); }
  } }, "New spectator link");

  root.replaceChildren(
    h("section", { class: "wide roster-panel" }, h("h2", {}, "Combatants"),
      h("table", { class: "roster" }, h("thead", {}, h("tr", {}, ...["", "Name", "Kind", "Side", "Init.", "Aware", "Visibility", "Player"].map((t) => h("th", {}, t)))), roster),
      rosterError),
    h("section", {}, h("h2", {}, "Initiative"), order),
    h("section", { class: "actions-panel" }, h("h2", {}, "Actions"), actions),
    h("section", { class: "links-panel" }, h("h2", {}, "Links"),
      h("p", {}, spectatorButton, " ", h("span", { class: "muted" }, "invite players from the roster")), links, linkError,
      h("h3", {}, "Credentials"), tokens),
    h("section", { class: "tools-panel" }, h("h2", {}, "Rulings"), tools),
    h("section", { class: "wide" }, h("h2", {}, "Log"), log));

  function renderRoster() {
    const setup = !table.started;
    roster.replaceChildren(...[...table.combatants.values()].map((c) => {
      const init = table.initiative.get(c.id);
      const invite = c.kind === "pc" ? h("button", { type: "button", class: "invite", dataset: { combatant: c.id }, onclick: async () => {
        const ack = await rosterRun("issue_invite", { combatants: [c.id], label: c.name });
        if (ack) { remember({ token_id: ack.result.token_id, label: c.name, url: tableLink(ack.result.token) }); renderLinks(); }
      } }, "Invite") : "";
      return h("tr", { dataset: { combatant: c.id }, class: c.id === table.current ? "current" : "" },
        h("td", {}, c.id === table.current ? "▶" : ""),
        h("td", {}, c.name, h("span", { class: "muted" }, ` ${c.id}`)),
        h("td", {}, c.kind), h("td", {}, c.side),
        h("td", {}, init ? `${init.total}` : (c.initiative_mod >= 0 ? "+" : "") + c.initiative_mod),
        h("td", {}, setup ? h("input", { type: "checkbox", class: "aware", checked: c.aware !== false, dataset: { combatant: c.id },
          onchange: (ev) => rosterRun("set_awareness", { combatant: c.id, aware: ev.target.checked }) }) : (c.aware === false ? "unaware" : "aware")),
        h("td", {}, h("button", { type: "button", class: c.hidden ? "reveal" : "hide", dataset: { combatant: c.id },
          onclick: () => rosterRun("set_hidden", { combatant: c.id, hidden: !c.hidden }) }, c.hidden ? "Reveal" : "Hide"),
          c.hidden ? h("span", { class: "badge hidden" }, "hidden") : ""),
        h("td", {}, invite));
    }));
  }

  function renderLinks() {
    links.replaceChildren(...issued().map((l) => h("li", { dataset: { token: l.token_id } },
      h("strong", {}, l.label), " ",
      h("input", { type: "text", readonly: true, value: l.url, onclick: (ev) => ev.target.select(), class: "link" }),
      l.overlay ? h("input", { type: "text", readonly: true, value: l.overlay, onclick: (ev) => ev.target.select(), class: "overlay", title: "for streaming software: transparent background" }) : "")));
    tokens.replaceChildren(...[...table.tokens.values()].map((t) => h("li", {},
      `${t.label || t.role} (${t.role}${t.combatants && t.combatants.length ? ": " + t.combatants.map((c) => table.nameOf(c)).join(", ") : ""})`,
      t.revoked ? h("span", { class: "badge" }, "revoked")
        : t.token_id !== table.welcome?.token_id ? [" ", h("button", { type: "button", onclick: () => linkRun("revoke_token", { token_id: t.token_id }) }, "Revoke")] : " (you)")));
  }

  function renderTools() {
    const offered = new Set(table.legal.filter((a) => a.combatant === null || a.combatant === undefined).map((a) => a.action));
    tools.replaceChildren(...GM_TOOLS.map((tool) => {
      const on = offered.has(tool.command);
      const inputs = tool.fields.map(([name, kind]) => kind === "combatant"
        ? h("select", { name }, ...[...table.combatants.values()].map((c) => h("option", { value: c.id }, c.name)))
        : h("input", { type: "text", name, placeholder: name, maxlength: 200 }));
      const error = h("p", { class: "error", role: "alert" });
      const form = h("form", { class: "tool", dataset: { command: tool.command } },
        h("h3", {}, tool.title), h("p", { class: "muted" }, tool.help + (on ? "" : " (not offered by this server yet)")),
        h("fieldset", { disabled: !on }, ...inputs, h("button", { type: "submit" }, tool.title)), error);
      form.addEventListener("submit", async (ev) => {
        ev.preventDefault();
        const fields = Object.fromEntries(inputs.filter((i) => i.value).map((i) => [i.name, i.value]));
        await guard(error)(tool.command, fields);
      });
      return form;
    }));
  }

  let rosterKey = "";
  return {
    update(msg) {
      document.getElementById("subtitle").textContent = subtitle(table);
      const key = JSON.stringify([[...table.combatants.values()], [...table.initiative.keys()], table.current, table.started]);
      if (key !== rosterKey) { rosterKey = key; renderRoster(); }
      renderOrder(order, table);
      if (msg.type === "legal_actions") { renderActions(actions, table, run); renderTools(); }
      if (msg.type === "snapshot" || (msg.type === "event" && msg.event.kind.startsWith("token_")) || msg.type === "welcome") renderLinks();
      renderLog(log, table);
    },
  };
}
