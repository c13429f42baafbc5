"""Phases of a deal (shared by the steps before play and the trick engine)."""
HANDS = 0      # strict mode: waiting for hands to be scanned
AUCTION = 1
EXCHANGE = 2   # declarer picks up the talon and discards
DECLARE = 3    # declarer names the contract or the trump
RUFER = 4      # declarer calls a card (tapp_modern Rufer)
PLAY = 5
DONE = 6

PHASE_NAMES = ("hands", "auction", "exchange", "declare", "rufer", "play", "done")
