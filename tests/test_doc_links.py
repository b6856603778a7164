"""What the docs and the server's words point a reader to is there: every relative link of the
documentation (``docs/``, the READMEs) names a file that exists, and a heading of it where the
link names one; and every HTTP request the server's words or the docs name (``GET
/read/tickets`` in an error, say) is answered by its route with that method, on a real server:
not ``404``, not ``405``."""

from __future__ import annotations

import ast
import asyncio
import json
import re
from pathlib import Path

import orjson

from server.app import Server
from tests.conftest import ROOT

#: The documentation whose links are checked.
DOCS = [*sorted((ROOT / "docs").rglob("*.md")), ROOT / "README.md",
        ROOT / "clients" / "js" / "README.md", ROOT / "clients" / "foundry" / "README.md"]
#: The packages whose strings (errors, docstrings) may name an HTTP request.
PACKAGES = ["server", "campaign", "protocol", "encounter", "clients", "rules", "rulesets",
            "statemachines", "docgen"]

FENCE = re.compile(r"^(```|~~~).*?^\1[^\n]*$", re.S | re.M)
TARGET = re.compile(r"\]\(([^)\s]+)")
REQUEST = re.compile(r"\b(GET|POST|PUT|PATCH|DELETE) +(/[^\s`'\"),;:]*)")


def _prose(text: str) -> str:
    """Markdown without its code: fenced blocks and inline code spans."""
    return re.sub(r"`[^`\n]*`", "", FENCE.sub("", text))


def _anchors(page: Path) -> set[str]:
    """The anchors of a page's headings, as GitHub makes them (lower case, punctuation but
    hyphens dropped, spaces made hyphens, a repeated one numbered), and its explicit ones."""
    text = FENCE.sub("", page.read_text(encoding="utf-8"))
    out: set[str] = set()
    for heading in re.findall(r"^#{1,6} +(.+?) *#*$", text, flags=re.M):
        base = re.sub(r"[^\w\- ]", "", heading.replace("`", "").strip().lower())
        base = base.replace(" ", "-")
        anchor, n = base, 0
        while anchor in out:
            n += 1
            anchor = f"{base}-{n}"
        out.add(anchor)
    out.update(re.findall(r'<a (?:name|id)="([^"]+)"', text))
    return out


def broken_links(pages: list[Path]) -> list[str]:
    """Each relative link of ``pages`` whose file is missing, or whose anchor is not a
    heading of it."""
    broken: list[str] = []
    for page in pages:
        for target in TARGET.findall(_prose(page.read_text(encoding="utf-8"))):
            if re.match(r"[a-z][a-z0-9+.-]*:", target):
                continue  # https:, mailto: ...
            path, _, anchor = target.partition("#")
            linked = page.parent / path if path else page
            where = f"{page.relative_to(ROOT) if page.is_relative_to(ROOT) else page}: {target}"
            if not linked.exists():
                broken.append(f"{where} (no such file)")
            elif anchor and linked.suffix == ".md" and anchor not in _anchors(linked):
                broken.append(f"{where} (no such heading)")
    return broken


def test_every_relative_link_of_the_docs_resolves() -> None:
    assert len(DOCS) > 10
    assert broken_links(DOCS) == []


def test_the_link_check_reports_a_missing_file_and_a_missing_heading(tmp_path: Path) -> None:
    (tmp_path / "other.md").write_text("# Other page\n\n## A part of it\n", encoding="utf-8")
    page = tmp_path / "page.md"
    page.write_text("# Page\n\nSee [it](other.md#a-part-of-it), [here](#page), "
                    "[gone](protocol/snapshot.schema.json) and [this](other.md#no-part), "
                    "not `[code](nowhere.md)`.\n```\n[fenced](nowhere.md)\n```\n",
                    encoding="utf-8")
    broken = broken_links([page])
    assert len(broken) == 2, broken
    assert broken[0].endswith("protocol/snapshot.schema.json (no such file)")
    assert broken[1].endswith("other.md#no-part (no such heading)")


def named_requests() -> dict[tuple[str, str], list[str]]:
    """Every HTTP request (method, path) named in the packages' strings and in the docs, with
    where."""
    found: dict[tuple[str, str], list[str]] = {}
    for package in PACKAGES:
        for module in sorted((ROOT / package).rglob("*.py")):
            for node in ast.walk(ast.parse(module.read_text(encoding="utf-8"))):
                if isinstance(node, ast.Constant) and isinstance(node.value, str):
                    for method, path in REQUEST.findall(node.value):
                        found.setdefault((method, path), []).append(
                            f"{module.relative_to(ROOT)}:{node.lineno}")
    for page in DOCS:
        for method, path in REQUEST.findall(page.read_text(encoding="utf-8")):
            found.setdefault((method, path), []).append(str(page.relative_to(ROOT)))
    return found


async def request(server: Server, method: str, path: str) -> tuple[int, bytes]:
    """One request without a credential, over a plain socket: its status and body."""
    reader, writer = await asyncio.open_connection("127.0.0.1", server.settings.port)
    writer.write(f"{method} {path} HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: 0\r\n"
                 "Connection: close\r\n\r\n".encode())
    raw = await asyncio.wait_for(reader.read(), 10)
    writer.close()
    top, _, body = raw.partition(b"\r\n\r\n")
    return int(top.split()[1]), body


async def test_every_http_method_named_is_the_one_its_route_answers(server: Server) -> None:
    named = named_requests()
    assert ("GET", "/read/tickets") in named and ("GET", "/healthz") in named
    assert any("read_api.py" in where for where in named["GET", "/read/tickets"])
    schema_id = next(k for k in json.loads(
        (ROOT / "docs" / "protocol" / "args-schemas.json").read_text()) if k != "$comment")
    wrong: list[str] = []
    for (method, path), where in sorted(named.items()):
        concrete = re.sub(r"<id>", schema_id, path.partition("?")[0])
        status, _ = await request(server, method, concrete)
        if status in (404, 405, 501):
            wrong.append(f"{method} {path} answers {status} (named in {', '.join(where)})")
    assert wrong == []
    # which the check would see: the read API answers GET alone
    status, body = await request(server, "POST", "/read/tickets")
    assert status == 405 and b"GET" in body


async def test_a_stream_without_a_ticket_is_told_how_to_get_one(server: Server) -> None:
    status, body = await request(server, "GET", "/read/stream")
    message = orjson.loads(body)
    assert status == 401, message
    text = json.dumps(message)
    method, path = REQUEST.search(text.replace("?ticket=", "")).groups()  # type: ignore[union-attr]
    assert (method, path) == ("GET", "/read/tickets"), text
    assert (await request(server, method, path))[0] == 401  # it asks for the credential
