"""Campaigns: the roster, the clock and the encounters of one group, between scenes.

Pure, as the encounter engine is: :mod:`campaign.fold` folds a campaign's log into its state,
:mod:`campaign.decide` turns a GM's command (or an ended encounter) into events, by each
ruleset's rules of time (``encounter.ruleset.TimeRules``), :mod:`campaign.views` says what
each credential sees. The server (``server.campaigns``) stores the log in Redis and carries
the commands over the protocol.
"""
