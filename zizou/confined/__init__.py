"""Every project file zizou reads or writes: resolved strictly, then opened by file descriptor.

Neither the model nor the repository it works in is trusted. A clone can ship symlinks
(`lnk -> ../outside`, `loop -> loop`, `.zizou -> ~/.ssh`), and a command the model runs can swap
a directory for a symlink between a check and an open. So `resolve` walks a path component by
component from the real root, expanding each symlink itself (a link that leaves the root, or a
loop, is refused), and every read and write walks the directories again by fd, each opened with
O_NOFOLLOW relative to its parent's fd: what was checked is what gets opened. Any failure, an
OSError included, is a PathError whose message names the path. POSIX only (dir_fd, O_NOFOLLOW).
"""

from __future__ import annotations

from zizou.confined._fd import (
    Listed,
    atomic_write,
    make_dirs,
    open_dir_fd,
    open_file,
    read_bytes,
    read_fd,
    read_head,
    scandir,
    stat,
    sweep_staged,
)
from zizou.confined._handle import PathHandle, open_handle
from zizou.confined._resolve import (
    MAX_DEPTH,
    MAX_HOPS,
    check_text,
    failure,
    read_link,
    real_root,
    relative,
    resolve,
    resolve_unasked,
)

__all__ = [
    "MAX_DEPTH",
    "MAX_HOPS",
    "Listed",
    "PathHandle",
    "atomic_write",
    "check_text",
    "failure",
    "make_dirs",
    "open_dir_fd",
    "open_file",
    "open_handle",
    "read_bytes",
    "read_fd",
    "read_head",
    "read_link",
    "real_root",
    "relative",
    "resolve",
    "resolve_unasked",
    "scandir",
    "stat",
    "sweep_staged",
]
