"""Finding the board in a camera frame and turning it into a top-down image (game-agnostic)."""
