"""Driver numbers for ``tapptable bench``: bus traffic of the real drivers
running against the register-level chip models (host_sim)."""
from host_sim.board import display_rig, poll_cost, reader_rig
from host_sim.mfrc522_model import Tag

UID7 = bytes.fromhex("04a1b2c3d4e580")
UID4 = bytes.fromhex("de ad be ef")


def reader_rows():
    """(name, counts) per kind of poll of one reader, and a 6-reader cycle."""
    rig = reader_rig(6)
    rows = [("idle poll", poll_cost(rig, 0))]
    rig.chips[0].place(Tag(UID7))
    rows.append(("new 7-byte card", poll_cost(rig, 0)))
    rows.append(("7-byte card present", poll_cost(rig, 0)))
    rig.chips[1].place(Tag(UID4))
    rows.append(("new 4-byte card", poll_cost(rig, 1)))
    rows.append(("4-byte card present", poll_cost(rig, 1)))
    for i in range(2, 5):
        rig.chips[i].place(Tag(bytes((4, i, i, i, i, i, 0x80))))
    for i in range(6):               # make every card known before measuring
        poll_cost(rig, i)
    cycle = {"transactions": 0, "bytes": 0, "reg_accesses": 0, "us": 0.0, "wall_us": 0.0}
    for i in range(6):
        d = poll_cost(rig, i)
        for k in cycle:
            cycle[k] += d[k]
    rows.append(("6 readers, 5 cards", cycle))
    return rows


def display_rows():
    bus, model, oled = display_rig()
    rows = []
    for name, draw in (
            ("full update", lambda: oled.fill(1)),
            ("one text line", lambda: oled.text("Anna: S10", 0, 16, 0)),
            ("no change", lambda: None)):
        bus.reset_counts()
        draw()
        oled.show()
        rows.append((name, bus.transactions, bus.bytes))
    return rows


def print_driver_bench():
    print("MFRC522 driver against the chip model (emulated 1 MHz SPI, 10 us per transaction;")
    print("virtual time includes the 5 ms field settle after switching the antenna on)")
    print("%-22s %12s %10s %12s %12s %12s" % (
        "poll", "transactions", "SPI bytes", "reg access", "virtual us", "host us"))
    for name, d in reader_rows():
        print("%-22s %12d %10d %12d %12.0f %12.0f" % (
            name, d["transactions"], d["bytes"], d["reg_accesses"], d["us"], d["wall_us"]))
    print()
    print("SSD1306 driver against the display model (I2C payload bytes incl. control bytes)")
    print("%-22s %12s %10s" % ("update", "transactions", "bytes"))
    for name, tr, by in display_rows():
        print("%-22s %12d %10d" % (name, tr, by))
