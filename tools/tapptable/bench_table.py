"""The table's answer times on the virtual clock (``tapptable bench``).

Measured on the simulator's board (chip models, bus timing of the real driver):

* a card placed on the reader of the seat on turn -> accepted (in the journal):
  bus and settle time, debounce and the arbiter included;
* a card placed on another seat's reader -> the table reacts (a refusal);
* how long one step of each job holds the loop (the asyncio "hog" figure; the
  display's I2C time is computed from the bytes sent at 400 kHz);
* the readers' field duty and what keeping fields on would cost in supply current.
"""
import statistics

from host_sim.table import AutoPlayers, VirtualTable

I2C_HZ = 400000
FIELD_MA = 60            # MFRC522 with the antenna driving (datasheet ITVDD, typical)
IDLE_MA = 10             # field off, analog part on


class _Timed:
    """Wrap the app's jobs to record how long each step held the loop."""

    def __init__(self, table):
        self.table = table
        self.worst = {}
        sched = table.scheduler
        sched.jobs = [(name, self._wrap(name, step), period)
                      for name, step, period in sched.jobs]

    def _wrap(self, name, step):
        clock = self.table.board.clock
        i2c = self.table.board.i2c

        def timed():
            t0 = clock.now_us
            b0 = i2c.wire_bytes
            step()
            spent = clock.now_us - t0
            # the I2C model keeps no time: 9 clocks a byte at 400 kHz
            spent += (i2c.wire_bytes - b0) * 9 * 1e6 / I2C_HZ
            if spent > self.worst.get(name, 0):
                self.worst[name] = spent
        return timed


def measure(deals=2, seed=3, fields_on=False):
    """Latency and hog figures over ``deals`` deals of Tapp at the virtual table."""
    table = VirtualTable("wuerttemberg", 3, fields_on=fields_on)
    timed = _Timed(table)
    players = AutoPlayers(table, seed=seed, illegal_once=False)
    on_turn = []
    other = []
    view = table.view

    def watch(t):
        tv = t.app.view
        if t.view.expects() != "card" or tv.menu_size() or tv.clearing():
            return
        seat = t.view.turn()
        card = players.shadow.view.legal_cards()
        if not card:
            return
        # another seat's reader first: the table must notice (a refusal) quickly
        players.sync()
        others = [s for s in t.view.active_seats() if s != seat and not t.tags[s]]
        if not others:
            return
        victim = others[0]
        stray = players.shadow.view.hand(victim)
        if stray and not tv.refused(victim):
            t0 = t.scheduler.now_ms()
            t.place(victim, stray[0], wait=False)
            if t.wait_until(lambda: tv.refused(victim), 1000, 1):
                other.append(t.scheduler.now_ms() - t0)
            t.lift(victim)

    for k in range(deals):
        if k:
            players.next_deal()
        players.sync()
        if table.app.view.mode() == "dealing":
            players.deal_cards()
        while table.app.view.mode() == "play":
            players.sync()
            watch(table)
            if table.view.expects() == "card" and not table.app.view.menu_size():
                before = (view.trick_number(), view.trick_size())
                seat = view.turn()
                card = players.shadow.view.legal_cards()[0]
                t0 = table.scheduler.now_ms()
                table.place(seat, card, wait=False)
                table.wait_until(lambda b=before: (view.trick_number(), view.trick_size()) != b
                                 or not view.in_deal(), 2000, 1)
                on_turn.append(table.scheduler.now_ms() - t0)
                if view.trick_size() == 0:
                    table.wait(300)
                    for s in view.active_seats():
                        table.lift(s, wait=False)
                    for s in view.active_seats():
                        table.lift(s)
            elif table.app.view.menu_size():
                players.choose()
            elif table.view.expects() == "discard":
                players.discard()
            else:
                table.wait(50)
    readers = table.board.readers.n
    duty = 2.0 / readers        # two fields on at a time, the seat on turn's and one other
                                # (a sweep's moments with all on are left out of the average)
    return {
        "on_turn_ms": on_turn, "other_ms": other, "hog_us": timed.worst,
        "readers": readers,
        "fields_switched_ma": readers * (IDLE_MA + (FIELD_MA - IDLE_MA) * duty),
        "fields_on_ma": readers * FIELD_MA,
    }


def print_table_bench(quick=False):
    print("The table on the virtual clock (chip models, real drivers and app)")
    for fields_on in (False, True):
        _print_one(measure(deals=1 if quick else 3, fields_on=fields_on), fields_on)


def _print_one(m, fields_on):
    on = m["on_turn_ms"]
    other = m["other_ms"]
    print(" fields %s:" % ("kept on (board setting fields_on)" if fields_on
                          else "switched per poll (default)"))
    print("  card on the on-turn seat's reader -> accepted: median %.0f ms, max %.0f ms "
          "(%d cards; goal 50 ms)" % (statistics.median(on), max(on), len(on)))
    if other:
        print("  card on another seat's reader -> noticed (refused): median %.0f ms, "
              "max %.0f ms (%d; goal 150 ms)" % (statistics.median(other), max(other),
                                                len(other)))
    print("  longest step per job (ms; goal: no step over 10 ms): " + ", ".join(
        "%s %.1f" % (k, v / 1000) for k, v in sorted(m["hog_us"].items())))
    print("  reader supply, %d readers: ~%d mA (%d mA a reader with its field on)%s" % (
        m["readers"], m["fields_on_ma"] if fields_on else m["fields_switched_ma"],
        FIELD_MA, "" if fields_on else "; ~%d mA while a new card's sweep has every "
        "field on (some 10-15 ms a card)" % m["fields_on_ma"]))
