// Raspberry Pi Pico with a 256 KiB ROMFS partition (mounted at /rom) below the filesystem
#define MICROPY_HW_BOARD_NAME                   "Raspberry Pi Pico"
#define MICROPY_HW_FLASH_STORAGE_BYTES          (1408 * 1024)
#define MICROPY_HW_ROMFS_BYTES                  (256 * 1024)
