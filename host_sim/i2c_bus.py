"""An emulated I2C bus with the API of MicroPython's ``machine.I2C``.

Devices attach at a 7-bit address and implement ``i2c_write(data: bytes)``
(one write transaction, without the address byte) and optionally
``i2c_read(n) -> bytes``. A transaction to an address with no device raises
``OSError(19)`` (ENODEV), as on the device when nothing ACKs; ``nack(addr)`` makes an
attached device stop acknowledging in the same way.

The bus counts transactions and payload bytes (``stats()``); ``wire_bytes``
adds the address byte of each transaction, which is what the wire carries.
"""

from __future__ import annotations

import errno
from collections.abc import Iterable
from typing import Protocol


class I2CDevice(Protocol):
    def i2c_write(self, data: bytes) -> None: ...


class I2CBus:
    def __init__(self, freq: int = 400_000) -> None:
        self.freq = freq
        self.devices: dict[int, object] = {}
        self.transactions = 0
        self.bytes = 0  # payload bytes written and read
        self.write_bytes = 0
        self.read_bytes = 0
        self.log: list[tuple[str, int, bytes]] | None = None  # set to [] to record
        self.silent: set[int] = set()  # attached devices that do not ACK (nack())

    # ---------------------------------------------------------- set-up and counters

    def attach(self, addr: int, device: object) -> object:
        self.devices[addr] = device
        return device

    def nack(self, addr: int, on: bool = True) -> None:
        """Make the device at ``addr`` stop acknowledging (a loose wire, a dead module):
        it stays attached, but every transaction to it raises ``OSError`` (ENODEV)
        and ``scan()`` leaves it out, until ``nack(addr, False)``."""
        if on:
            self.silent.add(addr)
        else:
            self.silent.discard(addr)

    def reset_counts(self) -> None:
        self.transactions = self.bytes = self.write_bytes = self.read_bytes = 0
        if self.log is not None:
            self.log.clear()

    @property
    def wire_bytes(self) -> int:
        return self.bytes + self.transactions

    def stats(self) -> dict[str, int]:
        return {"transactions": self.transactions, "bytes": self.bytes,
                "wire_bytes": self.wire_bytes}

    def _device(self, addr: int):
        dev = self.devices.get(addr)
        if dev is None or addr in self.silent:
            raise OSError(errno.ENODEV, "no I2C device at 0x%02x" % addr)
        return dev

    def _write(self, addr: int, data: bytes) -> int:
        dev = self._device(addr)
        self.transactions += 1
        self.bytes += len(data)
        self.write_bytes += len(data)
        if self.log is not None:
            self.log.append(("w", addr, data))
        dev.i2c_write(data)
        return len(data) + 1  # ACKs: address byte + each data byte

    def _read(self, addr: int, n: int) -> bytes:
        dev = self._device(addr)
        self.transactions += 1
        self.bytes += n
        self.read_bytes += n
        reader = getattr(dev, "i2c_read", None)
        data = bytes(reader(n)) if reader is not None else bytes(n)
        if self.log is not None:
            self.log.append(("r", addr, data))
        return data

    # ---------------------------------------------------------- machine.I2C API

    def scan(self) -> list[int]:
        return sorted(a for a in self.devices if a not in self.silent)

    def writeto(self, addr: int, buf, stop: bool = True) -> int:
        return self._write(addr, bytes(buf))

    def writevto(self, addr: int, vector: Iterable, stop: bool = True) -> int:
        return self._write(addr, b"".join(bytes(b) for b in vector))

    def readfrom(self, addr: int, nbytes: int, stop: bool = True) -> bytes:
        return self._read(addr, nbytes)

    def readfrom_into(self, addr: int, buf, stop: bool = True) -> None:
        data = self._read(addr, len(buf))
        buf[:] = data

    def writeto_mem(self, addr: int, memaddr: int, buf, *, addrsize: int = 8) -> None:
        self._write(addr, _memaddr(memaddr, addrsize) + bytes(buf))

    def readfrom_mem(self, addr: int, memaddr: int, nbytes: int, *, addrsize: int = 8) -> bytes:
        self._write(addr, _memaddr(memaddr, addrsize))
        return self._read(addr, nbytes)

    def readfrom_mem_into(self, addr: int, memaddr: int, buf, *, addrsize: int = 8) -> None:
        self._write(addr, _memaddr(memaddr, addrsize))
        buf[:] = self._read(addr, len(buf))


def _memaddr(memaddr: int, addrsize: int) -> bytes:
    return memaddr.to_bytes(addrsize // 8, "big")
