"""Clients of the Stablemaster protocol: a small asyncio client library (``clients.client``)
used by the tests, the benchmark, bots and the terminal client."""
