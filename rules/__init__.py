"""Pure game rules: state, roles, steps, resolution and win checks (no I/O, no clock)."""
