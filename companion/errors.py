"""The errors a user can see.

Every failure that reaches the command line or the page is a ``CompanionError`` whose message is
one line saying what is wrong and what to do about it; the CLI prints it and exits non-zero, the
service shows it and keeps running.  Anything else escaping is a bug.
"""

from __future__ import annotations


class CompanionError(Exception):
    """A problem the user can fix; ``str(err)`` is the one-line message to show."""


class InputError(CompanionError):
    """A file or request the program was given is unreadable or malformed."""


class ProfileError(CompanionError):
    """A calibration profile is missing, malformed, or belongs to another game or camera."""


class VisionError(CompanionError):
    """The camera image could not be turned into a board state."""


class BoardNotFoundError(VisionError):
    """No board (or not the calibrated board) is visible in the image."""


class SourceError(CompanionError):
    """A frame source (camera, video, folder) cannot be opened or has stopped delivering."""


class StoreError(CompanionError):
    """The game log cannot be opened or written (read-only disk, disk full, damaged file)."""
