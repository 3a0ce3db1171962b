"""Companion: a camera referee for physical board games."""

__version__ = "0.1.0"
