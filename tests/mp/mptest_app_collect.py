# When the table's idle job collects the garbage during a deal (table/app.py
# ``_collect``), inside real MicroPython on the fake board (host_sim/vm/).
# mp-heapsize: 1m
#
# While a card is awaited a collection (25-60 ms on the Pico) would hold the
# card up: the garbage waits for a finished trick's clearing (or a nearly full
# heap).  While a menu is up -- the auction -- no card is awaited: the
# dealing's and the menus' garbage is collected then, before the first card.
# Not applicable where there is no gc.mem_alloc() (CPython collects by itself).
import gc

from mpcheck import not_applicable

try:                     # inside MicroPython: host_sim/vm/ is on the path
    from app_session import Script
except ImportError:  # CPython: the package's module
    from host_sim.vm.app_session import Script


def _watched(script):
    """The idle job's answers from now on, with what the table waited for:
    [(what it did, a menu up, a card awaited outside a clearing), ...]."""
    dev = script.dev
    app = dev.app
    k = dev.names.index("idle")
    idle, period = dev.jobs[k]
    seen = []

    def watched():
        done = app.idle_work()
        tv = app.view
        engine = tv.engine()
        awaited = (tv.mode() == "play" and engine is not None and engine.expects() == "card"
                   and not tv.menu_size() and not tv.clearing())
        seen.append((done, tv.menu_size() > 0, awaited))

    dev.jobs[k] = (watched, period)
    del idle
    return seen


def test_the_dealings_garbage_goes_in_the_auction_not_while_a_card_is_awaited():
    if getattr(gc, "mem_alloc", None) is None or gc.mem_alloc() < 0:
        not_applicable("no gc.mem_alloc() on this port")
    s = Script("tapp_modern", 4)
    s.setup()
    seen = _watched(s)
    s.deal()                              # every card over the centre reader
    s.dev.run(1500)                       # the auction's first idle moments
    before = -1
    cards = 0
    for _ in range(60):
        s.sync()
        table = s.dev.app.view
        expects = table.engine().expects()
        if table.menu_size():
            s.choose()                    # the auction: a menu up
        elif expects == "discard":
            s.discard()
        elif expects == "card" and cards < 8:
            if before < 0:
                before = len(seen)        # from the first card on: a card is awaited
            s.play_card()
            cards += 1
        else:
            break
    in_menu = [done for done, menu, _ in seen if menu]
    assert "collect" in in_menu, seen
    awaited = [done for done, _, card in seen[before:] if card]
    assert cards == 8 and awaited and "collect" not in awaited, (cards, seen[before:])
