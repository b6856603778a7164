"""The Stablemaster server: websockets in front, Redis behind, the encounter engine between."""

__version__ = "0.1.0"
