"""``tapptable sim --web``: the virtual table in the browser.

The unchanged firmware runs on the chip models (host_sim/table.py); a local
page (127.0.0.1 only) shows the table -- the seats with their hands, the
readers with the cards lying on them, the OLED pixel for pixel, the LEDs, the
buzzer, the score sheet and the tricks -- and lets you place and lift cards and
press the three buttons.  ``hub.py`` keeps the cards and the seats,
``server.py`` the page and its WebSocket (aiohttp), ``static/`` the page.
"""


def serve(args):
    """Serve the table until Ctrl+C (``args``: variant, players, mode, seed, lang, port)."""
    from .server import serve as run
    return run(args)
