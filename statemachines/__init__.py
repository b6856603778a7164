"""Statecharts (python-statemachine) that decide *when* things may happen in an encounter.

Each chart's configuration is persisted with the encounter (``EncounterState.chart``) and
restored for every decision. Chart class names are unique in the process on purpose: the
library caches callback signatures by class name.
"""
