"""The bring-up self-test (OK held at power-up, or the console's ``selftest``).

Apart from ``table/``: on the Pico these modules are .mpy files on the
filesystem, loaded into RAM only when the self-test runs, not in the ROMFS
image, which the playing table's bytecode fills (tools/tapptable/deploy.py
``ON_FILESYSTEM``).
"""
