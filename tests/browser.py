"""Chromium for the browser tests (Debian's, driven by Playwright: it downloads no browser):
one per test module (``browser``) and the pages a test opens in it, closed after the test,
which fails when a page raised an error or missed a file (``pages``)."""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Any

import pytest

CHROMIUM = "/usr/bin/chromium"


class Pages:
    def __init__(self, browser: Any) -> None:
        self.browser, self.contexts, self.errors = browser, [], []

    async def open(self, url: str, init: str = "", size: tuple[int, int] = (1280, 900)) -> Any:
        context = await self.browser.new_context(viewport={"width": size[0], "height": size[1]})
        self.contexts.append(context)
        page = await context.new_page()
        page.on("pageerror", lambda e: self.errors.append(str(e)))
        # nothing a page loads is missing
        page.on("response", lambda r: self.errors.append(f"{r.status} {r.url}")
                if r.status == 404 else None)
        if init:
            await page.add_init_script(init)
        await page.goto(url)
        return page


@pytest.fixture(scope="module")
async def browser() -> AsyncIterator[Any]:
    # Playwright starts Chromium with a fresh, temporary user-data-dir of its own.
    from playwright.async_api import async_playwright

    async with async_playwright() as p:
        browser = await p.chromium.launch(
            executable_path=CHROMIUM,
            args=["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic",
                  "--no-first-run", "--disable-background-networking",
                  "--disable-component-update", "--disable-sync"])
        yield browser
        await browser.close()


@pytest.fixture
async def pages(browser: Any) -> AsyncIterator[Pages]:
    opened = Pages(browser)
    yield opened
    for context in opened.contexts:
        await context.close()
    assert not opened.errors, opened.errors
