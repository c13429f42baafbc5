"""Buttons, seat LEDs and buzzer drivers (firmware/drivers/) against host_sim/pins.py.

Buttons: emulated pins pressed and released on a fake clock, with contact
bounce. LEDs: the WS2812 byte stream (GRB) decoded back into colours per seat.
Buzzer: the PWM model's record of frequency and duty over time.
"""

from __future__ import annotations

import pytest

from drivers import buttons, buzzer, leds
from host_sim.pins import ButtonPin, FakeClock, NeoPixelModel, Pin, PWMModel, WS2812Decoder

# ---------------------------------------------------------------- buttons


def pad_and_pins(**kw):
    clock = FakeClock(1000)
    pins = [ButtonPin(n) for n in ("prev", "next", "ok")]
    pad = buttons.ButtonPad(*pins, ticks_ms=clock, **kw)
    return clock, pins, pad


def run(clock: FakeClock, pad: buttons.ButtonPad, ms: int, step: int = 1) -> list[str]:
    """Poll every ``step`` ms for ``ms`` ms; return the event names seen."""
    out = []
    for _ in range(ms // step):
        clock.advance_ms(step)
        ev = pad.poll()
        if ev:
            out.append(buttons.EVENT_NAMES[ev])
    return out


def test_short_press() -> None:
    clock, (prev, nxt, ok), pad = pad_and_pins()
    assert run(clock, pad, 50) == []
    ok.press()
    assert run(clock, pad, 100) == []  # nothing until released
    ok.release()
    assert run(clock, pad, 50) == ["ok"]
    assert run(clock, pad, 1000) == []


def test_long_press_fires_once_while_held() -> None:
    clock, (prev, nxt, ok), pad = pad_and_pins(long_ms=700)
    nxt.press()
    events = []
    for t in range(1, 1500):
        clock.advance_ms(1)
        ev = pad.poll()
        if ev:
            events.append((t, buttons.EVENT_NAMES[ev]))
    # the press is confirmed 20 ms after the level settled (first poll, t=1) and
    # counts from then: LONG 700 ms after t=1
    assert events == [(701, "next_long")]
    nxt.release()
    assert run(clock, pad, 100) == []  # no short press after a long one


def test_bounce_shorter_than_debounce_is_ignored() -> None:
    clock, (prev, nxt, ok), pad = pad_and_pins(debounce_ms=20)
    seen: list[int] = []

    def poll() -> None:
        ev = pad.poll()
        if ev:
            seen.append(ev)

    # a glitch: 5 ms of chatter that ends released again
    prev.bounce(clock, final_pressed=False, pattern_ms=(2, 1, 1, 1), poll=poll)
    assert run(clock, pad, 100) == [] and seen == []
    # a real press with 7 ms of bounce, then a release with bounce
    prev.bounce(clock, final_pressed=True, pattern_ms=(1, 3, 2, 1), poll=poll)
    assert run(clock, pad, 200) == [] and seen == []
    prev.bounce(clock, final_pressed=False, pattern_ms=(2, 2, 3), poll=poll)
    assert [buttons.EVENT_NAMES[e] for e in seen] + run(clock, pad, 50) == ["prev"]


def test_release_acts_quicker_than_a_press_and_its_late_bounce_is_no_new_press() -> None:
    """A short press acts when let go: the release counts after RELEASE_MS
    open (5 ms, the BOM switch's bounce), a press only after DEBOUNCE_MS closed
    -- so a switch bouncing longer than RELEASE_MS after its release gives no
    second press, and a short open while held is no release."""
    clock, (prev, nxt, ok), pad = pad_and_pins()
    assert buttons.RELEASE_MS < buttons.DEBOUNCE_MS
    ok.press()
    assert run(clock, pad, buttons.DEBOUNCE_MS - 1) == []     # not yet a press
    assert run(clock, pad, 100) == []
    ok.release()
    ok.press()                               # a 3 ms open while held: no release
    assert run(clock, pad, 3) == []
    ok.release()
    ok.press()
    ok.release()
    assert run(clock, pad, buttons.RELEASE_MS) == []
    assert run(clock, pad, 1) == ["ok"]      # RELEASE_MS after a sample saw it open
    # bounces after the release, each closed shorter than DEBOUNCE_MS: no new press
    for _ in range(3):
        ok.press()
        assert run(clock, pad, buttons.DEBOUNCE_MS - 2) == []
        ok.release()
        assert run(clock, pad, 7) == []
    assert run(clock, pad, 500) == []


def test_press_shorter_than_debounce_is_ignored() -> None:
    clock, (prev, nxt, ok), pad = pad_and_pins(debounce_ms=20)
    ok.press()
    assert run(clock, pad, 15) == []
    ok.release()
    assert run(clock, pad, 100) == []


def test_button_held_at_start_up_gives_no_event() -> None:
    clock = FakeClock()
    pin = ButtonPin("ok")
    pin.press()
    b = buttons.Button(pin, clock)
    got = []
    for _ in range(1000):
        clock.advance_ms(2)
        got.append(b.poll())
    pin.release()
    for _ in range(50):
        clock.advance_ms(2)
        got.append(b.poll())
    assert set(got) == {buttons.NONE}
    pin.press()
    for _ in range(20):
        clock.advance_ms(2)
        b.poll()
    pin.release()
    for _ in range(20):
        clock.advance_ms(2)
        got.append(b.poll())
    assert got.count(buttons.SHORT) == 1


WRAP_MS = 1 << 30   # time.ticks_ms() wraps here on the device; so does the simulator's clock


@pytest.mark.parametrize("before_wrap_ms", [1, 10, 300, 699])
def test_presses_across_the_tick_counter_wrap(before_wrap_ms: int) -> None:
    # a press that starts just before the counter wraps to 0 and ends after it
    clock = FakeClock(WRAP_MS - before_wrap_ms)
    pins = [ButtonPin(n) for n in ("prev", "next", "ok")]
    pad = buttons.ButtonPad(*pins, ticks_ms=clock, long_ms=700)
    assert clock() == WRAP_MS - before_wrap_ms   # the counter, not yet wrapped
    pins[2].press()
    assert run(clock, pad, 100) == []
    pins[2].release()
    assert run(clock, pad, 50) == ["ok"]
    pins[1].press()
    assert run(clock, pad, 800) == ["next_long"]   # once, 700 ms after the press
    assert clock() < WRAP_MS // 2               # the counter did wrap meanwhile


def test_tone_sequence_across_the_tick_counter_wrap() -> None:
    # without a wrap-safe difference, a note started before the wrap would
    # either never end or end at once
    for start in (WRAP_MS - 5, WRAP_MS - 150, WRAP_MS - 419):
        bz, pwm = play(buzzer.REJECT, poll_ms=1, start_ms=start)
        wrapped = [(t - start, ms, f) for t, ms, f in pwm.tones()]
        assert wrapped == play(buzzer.REJECT, poll_ms=1)[1].tones()
        assert not bz.playing


def test_simultaneous_events_are_kept_for_the_next_poll() -> None:
    clock, (prev, nxt, ok), pad = pad_and_pins()
    prev.press()
    ok.press()
    run(clock, pad, 30)
    prev.release()
    ok.release()
    # both releases are confirmed at the same poll: one event per poll, none lost
    assert run(clock, pad, 25) == ["prev", "ok"]
    assert pad.poll() == buttons.NONE


def test_single_button_active_high_and_pin_irq_model() -> None:
    clock = FakeClock()
    pin = Pin("x", Pin.IN, Pin.PULL_DOWN)
    edges: list[int] = []
    pin.irq(lambda p: edges.append(p.value()), Pin.IRQ_RISING)
    b = buttons.Button(pin, clock, active_low=False, debounce_ms=10, long_ms=300)
    pin.drive(1)
    assert edges == [1]
    for _ in range(50):
        clock.advance_ms(1)
        assert b.poll() == buttons.NONE
    pin.drive(0)
    got = []
    for _ in range(20):
        clock.advance_ms(1)
        got.append(b.poll())
    assert got.count(buttons.SHORT) == 1 and edges == [1]


def latched_pad(**kw):
    """A pad whose pins' interrupts note the edges (as boards/common.py wires it)."""
    clock, pins, pad = pad_and_pins(**kw)
    pad.latch_edges(Pin.IRQ_FALLING | Pin.IRQ_RISING)
    return clock, pins, pad


def test_press_between_two_samples_is_kept_by_the_edges() -> None:
    """A loop step longer than the tap: the samples never see the button down;
    the interrupts' edges give the press at the next sample, once."""
    clock, (prev, nxt, ok), pad = latched_pad()
    assert run(clock, pad, 30) == []
    nxt.press()
    clock.advance_ms(80)            # one long step: no sample while it is down
    nxt.release()
    clock.advance_ms(150)
    assert pad.poll() == buttons.NEXT_SHORT
    assert run(clock, pad, 200) == []


def test_press_sampled_once_is_kept_by_the_edges() -> None:
    """One sample saw it down (not yet settled), the next saw it up: the press
    is not lost, and it is not counted twice."""
    clock, (prev, nxt, ok), pad = latched_pad()
    ok.press()
    clock.advance_ms(5)
    assert pad.poll() == buttons.NONE
    clock.advance_ms(60)
    ok.release()
    clock.advance_ms(100)
    assert pad.poll() == buttons.OK_SHORT
    assert run(clock, pad, 100) == []


@pytest.mark.parametrize("latch", [False, True])
def test_edges_add_nothing_to_a_press_the_samples_took(latch: bool) -> None:
    """Sampled often, with contact bounce at both ends: one event per press,
    the same as without interrupts."""
    clock, (prev, nxt, ok), pad = latched_pad() if latch else pad_and_pins()
    got: list[str] = []

    def poll() -> None:
        got.append(buttons.EVENT_NAMES[pad.poll()])
    prev.bounce(clock, True, poll=poll)
    got += run(clock, pad, 100)
    prev.bounce(clock, False, poll=poll)
    got += run(clock, pad, 100)
    assert [g for g in got if g != "none"] == ["prev"]


def test_a_release_counts_from_its_edge_not_from_the_sample_that_saw_it() -> None:
    """Sampled every 10 ms (the Pico's loop): with the edges noted, the first
    sample RELEASE_MS after the contact opened gives the press; polled
    alone, the release counts from the sample that saw it: one sample later."""
    after = {}
    for latch in (False, True):
        clock, (prev, nxt, ok), pad = latched_pad() if latch else pad_and_pins()
        ok.press()
        assert run(clock, pad, 100, step=10) == []
        clock.advance_ms(3)
        ok.release()
        clock.advance_ms(buttons.RELEASE_MS + 2)   # the first sample after the release
        waited = buttons.RELEASE_MS + 2
        while pad.poll() != buttons.OK_SHORT:
            assert waited < 100
            clock.advance_ms(10)
            waited += 10
        after[latch] = waited
        assert run(clock, pad, 100) == []
    assert after == {True: buttons.RELEASE_MS + 2, False: buttons.RELEASE_MS + 12}


def test_a_glitch_between_samples_is_no_press() -> None:
    """Down for less than the debounce time between two samples: nothing."""
    clock, (prev, nxt, ok), pad = latched_pad()
    prev.press()
    clock.advance_ms(5)
    prev.release()
    clock.advance_ms(100)
    assert run(clock, pad, 100) == []


def test_a_long_press_between_samples_is_long() -> None:
    clock, (prev, nxt, ok), pad = latched_pad(long_ms=700)
    ok.press()
    clock.advance_ms(800)
    ok.release()
    clock.advance_ms(10)
    assert pad.poll() == buttons.OK_LONG
    assert run(clock, pad, 100) == []


def test_button_held_at_start_up_and_released_between_samples() -> None:
    """Held while the pad was made: its release edge alone is no press."""
    clock = FakeClock(1000)
    pins = [ButtonPin(n) for n in ("prev", "next", "ok")]
    pins[2].press()
    pad = buttons.ButtonPad(*pins, ticks_ms=clock)
    pad.latch_edges(Pin.IRQ_FALLING | Pin.IRQ_RISING)
    clock.advance_ms(50)
    pins[2].release()
    clock.advance_ms(50)
    assert run(clock, pad, 100) == []


# ---------------------------------------------------------------- WS2812 seat LEDs


def test_seat_colours_decoded_from_the_wire() -> None:
    np = NeoPixelModel(Pin("led", Pin.OUT), 5)
    sl = leds.SeatLeds(np, 5, brightness=255)
    sl.set_all(leds.IDLE)
    sl.set(0, leds.TURN)
    sl.set(2, leds.REFUSED)
    sl.set(4, leds.WINNER)
    assert sl.show()
    assert np.colours == [(0, 0, 255), (40, 40, 40), (255, 0, 0), (40, 40, 40), (255, 180, 0)]
    # GRB on the wire: red (255, 0, 0) at seat 2 is bytes 00 ff 00
    assert bytes(np.buf[6:9]) == b"\x00\xff\x00"
    assert not sl.show()  # nothing changed: no write
    assert np.writes == 1 and np.decoder.bytes == 15
    print(f"\nseat LEDs: {np.writes} write of {np.decoder.bytes} bytes for 5 seats")


def test_brightness_scaling() -> None:
    np = NeoPixelModel(None, 3)
    sl = leds.SeatLeds(np, 3, brightness=64)
    sl.set(1, leds.PLAYED)
    sl.show()
    assert np.colours[1] == (0, 255 * 64 // 255, 0)
    assert np.colours[0] == (0, 0, 0)
    sl.set_brightness(128)
    assert sl.show()
    assert np.colours[1] == (0, 128, 0)
    sl.set_brightness(0)
    sl.show()
    assert np.colours == [(0, 0, 0)] * 3
    assert len(leds.STATE_NAMES) == len(leds.COLOURS)


def test_decoder_grb_order() -> None:
    d = WS2812Decoder(2)
    d.feed(bytes([1, 2, 3, 4, 5, 6, 7]))  # a trailing byte goes to no LED
    assert d.colours == [(2, 1, 3), (5, 4, 6)]


# ---------------------------------------------------------------- buzzer


def play(seq: tuple[int, ...], poll_ms: int = 5, until: int = 2000, start_ms: int = 0):
    clock = FakeClock(start_ms)
    # the buzzer reads the wrapping counter; the model logs unwrapped time
    pwm = PWMModel(Pin("bz", Pin.OUT), lambda: clock.now)
    bz = buzzer.Buzzer(pwm, clock)
    clock.advance_ms(100)
    bz.play(seq)
    while clock.now < start_ms + 100 + until:
        clock.advance_ms(poll_ms)
        if not bz.update():
            break
    clock.advance_ms(50)
    return bz, pwm


@pytest.mark.parametrize("name", sorted(buzzer.SOUNDS))
def test_tone_sequences(name: str) -> None:
    seq = buzzer.SOUNDS[name]
    bz, pwm = play(seq, poll_ms=1)
    notes = [(f, ms) for f, ms in zip(seq[::2], seq[1::2], strict=True)]
    got = pwm.tones()
    assert got[0][2] == 0  # silent before
    assert got[-1][2] == 0 and not pwm.sounding and not bz.playing  # silent after
    played = [(f, ms) for _, ms, f in got[1:-1]]
    assert played == [(f, ms) for f, ms in notes], got
    assert got[1][0] == 100  # starts at once


def test_trick_won_arpeggio() -> None:
    bz, pwm = play(buzzer.TRICK_WON, poll_ms=10)
    assert [(t, f) for t, _, f in pwm.tones()] == [
        (0, 0), (100, 1047), (170, 1319), (240, 1568), (360, 0)]
    assert all(d == 32768 for _, _, d in pwm.log[1:-1] if d)


def test_slow_polling_catches_up() -> None:
    # polled every 100 ms, notes shorter than that are skipped over without drift
    bz, pwm = play(buzzer.REJECT, poll_ms=100)
    assert pwm.tones()[-1][0] == 100 + 500  # ended at the first poll after 420 ms
    assert not bz.playing


def test_mute_and_stop() -> None:
    clock = FakeClock()
    pwm = PWMModel(None, clock)
    bz = buzzer.Buzzer(pwm, clock)
    bz.muted = True
    bz.play(buzzer.ACCEPT)
    assert not pwm.sounding and bz.playing
    bz.muted = False
    bz.play(buzzer.ERROR)
    assert pwm.sounding and pwm.freq() == 200
    clock.advance_ms(10)
    bz.stop()
    assert not pwm.sounding and not bz.update()
