"""The documents generated from the code: the protocol's JSON Schemas and AsyncAPI document,
the references for people (``docs/actions.md``, ``docs/stat-blocks.md``) and the generated
regions of ``docs/protocol.md`` (``docgen.docs``), the schemas of what a GM writes and the
stat-block reference (``docgen.reference``). ``python -m docgen`` writes them, ``python -m
docgen --check`` checks them.

It sits above every other package: it reads the message classes, each registered ruleset's
declaration and the server's default limits, and nothing imports it.
"""
