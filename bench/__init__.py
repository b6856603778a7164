"""Load generator and benchmark for the Stablemaster server (``python -m bench``)."""
