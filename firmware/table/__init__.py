"""The device application: table state machine, card presence, screens, journal."""
