"""What a connected console costs the heap, on MicroPython's unix port.

The table plays a whole deal (host_sim/vm/app_session.py: the app's jobs on
the fake board, the journal in its flash area) with a console client asking
``status`` every 3 s, as the bench's client does on the emulated Pico
(docs/benchmarks.md).  Every byte the console job allocates is garbage the
table collects later, so it is counted (``micropython.mem_total``, 64-bit):
the live events and answers go straight into the console's output buffer
(table/console_out.py), and the console's step allocates nothing while
nothing happens.  Before that buffer, such a deal cost the console some
550 KB; about 160 KB now (the status answers' dicts and the journal lines
read back make most of it).
"""
from tools import mpvm

SCRIPT = r'''
import micropython
from app_session import Script
T = micropython.mem_total


class In:
    data = b""

    def readinto(self, buf):
        if not self.data:
            return None
        n = min(len(buf), len(self.data))
        buf[:n] = self.data[:n]
        self.data = self.data[n:]
        return n


class Out:
    bytes = 0
    lines = 0

    def write(self, b):
        self.bytes += len(b)
        self.lines += bytes(b).count(b"\n")
        return len(b)


s = Script("tapp_modern", 4)
s.setup()
app = s.dev.app
from table.console import Console
cin = In()
out = Out()
app.set_console(Console(app, cin, out))
s.dev.run(1000)
got = [0, 0, 0]            # bytes allocated by the console job; statuses asked; idle steps
asked = [0]


def console_step(step=app.poll_console):
    now = s.dev.clock.now
    if now - asked[0] >= 3000:
        asked[0] = now
        got[1] += 1
        cin.data = b'{"id":%d,"cmd":"status"}\n' % got[1]
    t = T()
    step()
    got[0] += T() - t


k = s.dev.names.index("console")
s.dev.jobs[k] = (console_step, s.dev.jobs[k][1])
s.play_on()
s.dev.run(3000)            # the next deal's dealing screen, its events said
cin.data = b""
asked[0] = s.dev.clock.now + 10 ** 9
idle = 0


def idle_step():
    t = T()
    app.poll_console()
    return T() - t


for _ in range(50):        # a second of console steps while nothing happens
    s.dev.clock.now += 20
    idle += idle_step()
print("@", got[0], got[1], out.lines, out.bytes, idle)
'''


def test_a_connected_console_makes_little_garbage_in_a_deal():
    r = mpvm.run_unix(SCRIPT, heapsize="2m", timeout=900, extra_path=["host_sim/vm"])
    assert r.returncode == 0, r.stderr[-3000:]
    line = [x for x in r.stdout.splitlines() if x.startswith("@ ")][-1]
    allocated, asked, lines, sent, idle = map(int, line.split()[1:])
    print("console: %d bytes allocated in a deal, %d statuses, %d lines (%d bytes) out"
          % (allocated, asked, lines, sent))
    assert asked >= 5 and lines >= 100 + asked, line          # the deal was watched and asked
    assert allocated < 200_000, line                          # 553 KB before the output buffer
    assert allocated < 1_500 * lines, line
    assert idle == 0, line                                    # nothing happening: nothing made
