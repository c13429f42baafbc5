// The Tapp table's board: a Raspberry Pi Pico (RP2040, 2 MiB flash).
// Flash: MicroPython, then 256 KiB of ROMFS at 0x60000 (the table's bytecode,
// mounted at /rom), then the 1408 KiB storage at 0xA0000, which the frozen
// _boot.py splits into littlefs and the journal's own area (tapptable_board.py).
#define MICROPY_HW_BOARD_NAME                   "Tapp table (Raspberry Pi Pico)"
#define MICROPY_HW_FLASH_STORAGE_BYTES          (1408 * 1024)
#define MICROPY_HW_ROMFS_BYTES                  (256 * 1024)
