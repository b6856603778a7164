"""The encounter as data: state, the fold that builds it from events, the decider that turns a
command into events, and the per-viewer views. Pure: no I/O, no clock, no randomness of its own
(the decider is handed the time, an id source and a dice roller)."""
