"""The compact rules engine: pure, deterministic, shared by device and host.

Nothing here reads a clock, a file or a pin (docs/design.md, principle 1). A deal is
the fold of its docs/record-format.md events over a Session (principle 2).
"""
