"""The rulesets, each one declaration (``RULESET``) that the neutral engine interprets
(``encounter.ruleset``)."""
