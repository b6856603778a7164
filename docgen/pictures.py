"""The pictures of the docs, made from a scripted scene: ``python -m docgen.pictures``.

Starts a server of its own (embedded Redis in a temporary folder, a free port), creates the
shipped example "Ponies vs. Diamond Dogs" with its battle map and a dice seed, hands out a
player link per pony and a spectator link, starts the scene and plays it (the GM's commands,
from the Python client) until a pony's turn, with a Diamond Dog worn down. Then Chromium (the
browser tests' own) takes:

- ``gm-console.png``: the GM console at 1366x768 (the first screen of it);
- ``player-laptop.png``: that pony's page on its turn at 1366x768, the squares its move
  reaches shaded;
- ``player-phone.png``: the same page at 390x844;
- ``overlay-1080p.png``: the spectator overlay with ``&size=1080p`` at 1920x1080.

They go to ``docs/pictures/`` (``--out`` elsewhere); the README and ``docs/clients.md`` show
them. Needs Chromium at ``/usr/bin/chromium`` and Playwright, which ``python3 dev.py test``
installs.
"""

from __future__ import annotations

import argparse
import asyncio
import tempfile
from pathlib import Path
from typing import Any

from clients.client import Client
from server import web
from server.app import Server
from server.config import Settings

CHROMIUM = "/usr/bin/chromium"
EXAMPLE = "dramatic-ponies-vs-diamond-dogs.yaml"
#: The pictures, each with its page and its size.
SHOTS = ("gm-console.png", "player-laptop.png", "player-phone.png", "overlay-1080p.png")
LAPTOP, PHONE, STREAM = (1366, 768), (390, 844), (1920, 1080)


async def scene(url: str) -> dict[str, Any]:
    """The scripted scene: the links, and the pony whose turn it is."""
    example = next(e for e in web.examples() if e["file"] == EXAMPLE)
    anon = await Client.open(url)
    await anon.hello()
    created = (await anon.command(
        "create_encounter", name=example["name"], ruleset=example["ruleset"],
        combatants_yaml=web.example_text(EXAMPLE), map=example["map"],
        options={**(example["options"] or {}), "dice_seed": 11}))["result"]
    await anon.close()
    gm = await Client.open(url)
    await gm.hello(created["gm_token"])
    state = gm.snapshot["state"] if gm.snapshot else {}
    links: dict[str, str] = {}
    for c in state.get("combatants", []):
        if c["hidden"]:
            await gm.command("set_hidden", combatant=c["id"], hidden=False)
        if c["kind"] == "pc":
            invite = await gm.command("issue_invite", combatants=[c["id"]], label=c["name"])
            links[c["id"]] = invite["result"]["token"]
    spectator = (await gm.command("issue_spectator_link", label="stream"))["result"]["token"]
    await gm.command("start_encounter")
    pony = next(iter(links))
    for _ in range(40):  # the GM ends turns until the first pony's (dice: the server's)
        await gm.wait_for(lambda m: m["type"] == "legal_actions")
        pending = [a for a in gm.legal if a["action"] == "server_roll"]
        if pending:
            await gm.command("server_roll", request=pending[0]["targets"][0])
            continue
        acting = [a["combatant"] for a in gm.legal if a["action"] == "end_turn"]
        if acting and acting[0] == pony:
            break
        if acting:
            await gm.command("act", combatant=acting[0], action="end_turn",
                             expect_turn=gm.turn_id)
    dogs = [c for c in state.get("combatants", []) if c["kind"] == "npc"]
    if dogs:  # a dog worn down: the table sees it winded, not its points (R105)
        top = dogs[0]["vitals"]["fatigue_max"]
        await gm.command("adjust_combatant", combatant=dogs[0]["id"], fatigue=max(1, top // 3),
                         reason="a fall into the mill race")
    return {"gm": created["gm_token"], "pony": pony, "player": links[pony],
            "spectator": spectator, "client": gm}


async def take(out: Path) -> list[Path]:
    from playwright.async_api import async_playwright

    out.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory() as data:
        srv = Server(Settings(host="127.0.0.1", port=0, data_dir=Path(data)))
        await srv.start()
        base = f"http://127.0.0.1:{srv.settings.port}"
        made: list[Path] = []
        try:
            played = await scene(f"ws://127.0.0.1:{srv.settings.port}/ws")
            async with async_playwright() as p:
                browser = await p.chromium.launch(
                    executable_path=CHROMIUM, args=["--headless", "--no-sandbox",
                                                    "--disable-gpu", "--no-first-run"])

                async def shot(name: str, link: str, size: tuple[int, int], ready: str) -> None:
                    context = await browser.new_context(
                        viewport={"width": size[0], "height": size[1]})
                    page = await context.new_page()
                    await page.goto(link)
                    await page.wait_for_selector(ready, timeout=15_000)
                    await page.wait_for_timeout(400)  # (the history and the reach come in)
                    await page.screenshot(path=out / name)
                    made.append(out / name)
                    await context.close()

                player = f"{base}/table/#token={played['player']}"
                await shot("gm-console.png", f"{base}/table/#token={played['gm']}", LAPTOP,
                           ".roster-panel tr[data-combatant]")
                await shot("player-laptop.png", player, LAPTOP, ".map .sq.reach")
                await shot("player-phone.png", player, PHONE, ".budget .slot")
                await shot("overlay-1080p.png",
                           f"{base}/watch?spectate={played['spectator']}&size=1080p", STREAM,
                           "#legend li")
                await browser.close()
            await played["client"].close()
        finally:
            await srv.stop()
    return made


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m docgen.pictures",
                                     description=__doc__.split("\n\n")[0])
    parser.add_argument("--out", type=Path, default=Path("docs/pictures"),
                        help="the folder the pictures go to (docs/pictures)")
    args = parser.parse_args(argv)
    for path in asyncio.run(take(args.out)):
        print(f"wrote {path}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
