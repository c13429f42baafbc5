"""The screens' pages, one module each, imported when first shown (table/screens.py).

A page module has a ``Page`` class: ``start(s, fresh)`` takes what its rows
share from the table's view once per change (``s``: the Screens, with
``s.w`` the row writer of table/rows.py, ``s.table`` and ``s.view``),
``key(s, r)`` names what row ``r`` shows as a small int (-1: write it
anyway), ``row(s, r)`` writes row ``r`` whole.  The parts several pages
show (the header, a seat's name, the last trick's winner, a broken duty)
are in ``parts.py``, the payments and balances in ``money.py``.
"""
