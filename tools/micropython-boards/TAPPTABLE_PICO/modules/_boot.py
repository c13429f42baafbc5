# The Tapp table's boot: littlefs on the FS part of the storage, mounted at /.
# The journal's area above it (tapptable_board.JOURNAL_*) is never mounted or
# formatted here: only the table's journal code writes it.
import rp2
import tapptable_board as layout
import vfs

flash = rp2.Flash(start=layout.FS_START, len=layout.FS_LEN)
try:
    root = vfs.VfsLfs2(flash, progsize=256)
except OSError:
    # blank or unreadable: a new board gets an empty filesystem
    vfs.VfsLfs2.mkfs(flash, progsize=256)
    root = vfs.VfsLfs2(flash, progsize=256)
vfs.mount(root, "/")
del vfs, rp2, layout, flash, root
