"""Chip drivers: display, buttons, LEDs, buzzer, NFC readers. Buses are injected."""
