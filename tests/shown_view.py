"""The table's view with another page turned to: the screens draw whatever
view they are given, so a white-box test of the screens shows an overlay, a
page or a message without pressing buttons (a press would change the game)."""


class Shown:
    """``view`` (table/table_view.py) as it would be with ``overlay`` ("undo",
    "scores", "info", "notice" or ""), ``page`` and ``message`` on screen; None
    keeps the view's own."""

    def __init__(self, view, overlay=None, page=None, message=None):
        self._view = view
        self._overlay = overlay
        self._page = page
        self._message = message

    def __getattr__(self, name):
        return getattr(self._view, name)

    def overlay(self):
        return self._view.overlay() if self._overlay is None else self._overlay

    def page(self):
        return self._view.page() if self._page is None else self._page

    def message(self):
        return self._view.message() if self._message is None else self._message
