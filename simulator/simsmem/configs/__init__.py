"""Built-in architecture configs (YAML), shipped as package data; ``configs/`` at the repo root links here."""
