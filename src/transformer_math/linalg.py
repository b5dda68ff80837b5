"""Linear algebra from the definitions."""
