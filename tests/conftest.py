"""Shared test set-up: this folder is on the import path, so test files can
use the helpers in gameplay.py."""
