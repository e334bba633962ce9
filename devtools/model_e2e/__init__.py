"""Real coding tasks through the installed xcsh against a small local model."""
