"""Host-side tools: console, build and deploy, enrolment, records, MicroPython VM helpers."""
