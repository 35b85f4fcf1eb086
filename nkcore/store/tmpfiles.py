"""Temporary files of writes: made ``flock``-ed while written, and swept once their writer died (``kill -9``)."""

from __future__ import annotations

import contextlib
import math
import os
import tempfile
import threading
import time
from collections.abc import Iterator
from pathlib import Path

__all__ = ["STALE_TMP_S", "SWEEP_EVERY_S", "SWEEP_MAX", "TMP_GRACE_S", "TMP_SUFFIX", "sweep", "tmp_file"]

TMP_SUFFIX = ".tmp"
STALE_TMP_S = 3600.0  # a temporary file this old was left by a crashed write, locked or not
TMP_GRACE_S = 10.0  # an unlocked temporary file this old belongs to a writer that died (a live one holds its lock)
SWEEP_EVERY_S = 30.0  # a listing sweeps its folder at most this often per process (a put always does)
SWEEP_MAX = 200  # and at most this many files are looked at per sweep

try:
    import fcntl as _fcntl
except ImportError:  # not POSIX: temporary files are swept by age only
    _fcntl = None  # type: ignore[assignment]

_SWEPT: dict[str, float] = {}  # folder -> when this process last swept it
_SWEPT_LOCK = threading.Lock()


@contextlib.contextmanager
def tmp_file(folder: Path, prefix: str) -> Iterator[str]:
    """A new temporary file in ``folder`` (``<prefix>*.tmp``), exclusively ``flock``-ed while the block runs, so a
    sweep knows a live write's file from one whose writer died; removed at the end unless moved away."""
    fd, tmp = tempfile.mkstemp(dir=folder, prefix=prefix, suffix=TMP_SUFFIX)
    try:
        if _fcntl is not None:
            with contextlib.suppress(OSError):  # a filesystem without locks: the sweep goes by age there
                _fcntl.flock(fd, _fcntl.LOCK_EX | _fcntl.LOCK_NB)
        yield tmp
    finally:
        os.close(fd)  # releases the lock
        with contextlib.suppress(FileNotFoundError):
            os.unlink(tmp)


def _abandoned(path: Path, now: float) -> bool:
    """Whether the temporary file ``path`` was left by a write that died: unlocked (its writer gone) and
    :data:`TMP_GRACE_S` old, or older than :data:`STALE_TMP_S` whatever its lock says."""
    age = now - path.stat().st_mtime
    if age > STALE_TMP_S:
        return True
    if age <= TMP_GRACE_S or _fcntl is None:
        return False
    fd = os.open(path, os.O_RDONLY)
    try:
        _fcntl.flock(fd, _fcntl.LOCK_EX | _fcntl.LOCK_NB)
    except OSError:
        return False  # locked: a live write (or a filesystem without locks)
    finally:
        os.close(fd)
    return True


def sweep(folder: Path, pattern: str, force: bool = False) -> int:
    """Remove the temporary files of writes that died (:func:`_abandoned`), never a live write's; at most every
    :data:`SWEEP_EVERY_S` seconds per folder (unless ``force``) and :data:`SWEEP_MAX` files. The number removed."""
    now = time.time()
    key = f"{folder}\0{pattern}"
    with _SWEPT_LOCK:
        if not force and now - _SWEPT.get(key, -math.inf) < SWEEP_EVERY_S:
            return 0
        _SWEPT[key] = now
    removed = 0
    with contextlib.suppress(OSError):
        for i, tmp in enumerate(folder.glob(pattern)):
            if i >= SWEEP_MAX:
                break
            with contextlib.suppress(OSError):
                if _abandoned(tmp, now):
                    tmp.unlink()
                    removed += 1
    return removed
