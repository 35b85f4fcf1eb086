"""What a user reads when the store cannot be used: read-only, full, unreachable, without credentials, or not
answering within its deadline (one plain sentence each, naming what happened to the data and what to do)."""

from __future__ import annotations

import contextlib
import errno
from collections.abc import Iterator

from nkcore.errors import DataError
from nkcore.store.backends import NoCredentials, TimedOut, Unreachable

__all__ = ["ENV_VAR", "StoreUnreachable", "no_credentials", "storage_fault", "storage_faults", "unreachable"]

ENV_VAR = "NKP_DATA_DIR"


class StoreUnreachable(DataError):
    """The dataset store (an object store under ``$NKP_DATA_DIR``) cannot be used now: it did not answer, or this
    server has no credentials for it; nothing in it was changed."""


_READ_ONLY = frozenset({errno.EACCES, errno.EPERM, errno.EROFS})
_FULL = frozenset({errno.ENOSPC, errno.EDQUOT, errno.EFBIG})


def storage_fault(exc: OSError, action: str = "save datasets") -> DataError | None:
    """The user-facing DataError for a store that is read-only, full or unreachable, or None for any other OSError.

    >>> import errno
    >>> str(storage_fault(OSError(errno.ENOSPC, "No space left on device"))).split(";")[0]
    'the server cannot save datasets: its data folder is full'
    >>> type(storage_fault(ConnectionRefusedError("refused"))).__name__
    'StoreUnreachable'
    >>> storage_fault(OSError(errno.EIO, "I/O error")) is None
    True
    """
    if action == "save datasets":
        outcome = "the dataset was not stored; earlier datasets are unaffected"
    else:
        outcome = "nothing was deleted" if action.startswith("delete") else "nothing was changed"
    if isinstance(exc, TimedOut):
        if action == "save datasets":
            outcome = "the dataset may not be stored (a reader sees all of it or none of it)"
        elif action.startswith("delete"):
            outcome = "the deletion may not have finished"
        else:
            outcome = "the change may not be saved"
        return StoreUnreachable(f"the server cannot {action}: {_no_answer(exc, outcome)}")
    if isinstance(exc, ConnectionError | TimeoutError):
        return StoreUnreachable(
            f"the server cannot {action}: its dataset store is unreachable; {outcome} (check ${ENV_VAR}, the store's "
            f"endpoint and the network; {exc})"
        )
    if isinstance(exc, FileNotFoundError) and action == "save datasets":  # an object store's missing bucket
        return DataError(
            f"the server cannot {action}: its data store does not exist; {outcome} (create the bucket or folder "
            f"that ${ENV_VAR} names)"
        )
    if isinstance(exc, NoCredentials):
        return StoreUnreachable(f"the server cannot {action}: {no_credentials(exc)}; {outcome}")
    if isinstance(exc, PermissionError) or exc.errno in _READ_ONLY:
        state, fix = "read-only", f"make ${ENV_VAR} writable by the server"
    elif exc.errno in _FULL:
        state, fix = "full", f"free some space in ${ENV_VAR}"
    else:
        return None
    return DataError(f"the server cannot {action}: its data folder is {state}; {outcome} ({fix})")


@contextlib.contextmanager
def storage_faults(action: str = "save datasets") -> Iterator[None]:
    """Turn a read-only, full or unreachable store into :func:`storage_fault`'s DataError; other errors pass."""
    try:
        yield
    except OSError as exc:
        err = storage_fault(exc, action)
        if err is None:
            raise
        raise err from None


def no_credentials(exc: NoCredentials) -> str:
    return (
        f"it has no credentials for its dataset store (give the server credentials for ${ENV_VAR}: "
        f"AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY, an AWS profile or an instance role; {exc})"
    )


def _no_answer(exc: TimedOut, outcome: str) -> str:
    """The plain sentence for a store that did not answer within its deadline."""
    return (
        f"the dataset store did not answer within {exc.seconds:g} s, so {outcome}; nothing stored is lost; try again "
        f"once it answers (check ${ENV_VAR}, the store's endpoint and the network)"
    )


def unreachable(exc: Unreachable) -> StoreUnreachable:
    if isinstance(exc, TimedOut):
        return StoreUnreachable(_no_answer(exc, "stored datasets cannot be read now"))
    return StoreUnreachable(
        f"the dataset store is unreachable, so stored datasets cannot be read now; nothing in it was changed, and "
        f"links to them work again once it answers (check ${ENV_VAR}, the store's endpoint and the network; {exc})"
    )
