"""Setting Companion up at a table: where to put the camera (and, later, checks and installs)."""
