"""ZIP archives read under the limits (an inspect_ai ``.eval`` log is one): the entries counted from the end record
before they are listed, every entry name a plain relative name, and every entry inflated in 1 MiB steps under the
unpacked-size and ratio caps that gzip has, never trusting the sizes the archive declares.

Reference: PKWARE APPNOTE.TXT 6.3 (end of central directory record 4.3.16, zip64 end record 4.3.14 and locator
4.3.15, local file header 4.3.7, compression methods 0 stored, 8 deflate, 93 zstd).
"""

from __future__ import annotations

import io
import struct
import zipfile
import zlib
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass

from nkcore.common import limits
from nkcore.io.checks import fail, limit, limit_hint, size_text

__all__ = ["Archive", "entry_count", "open_archive", "plain_name"]

_EOCD = b"PK\x05\x06"
_ZIP64_LOCATOR = b"PK\x06\x07"
_ZIP64_EOCD = b"PK\x06\x06"
_LOCAL = b"PK\x03\x04"
_STEP = 1 << 20


def entry_count(data: bytes) -> int | None:
    """The number of entries an archive's end record declares (zip64 when the record says 0xFFFF), or None when
    no end record is found. Read before the central directory is listed (a listing costs ~400 bytes an entry).

    >>> buf = io.BytesIO(); z = zipfile.ZipFile(buf, "w"); z.writestr("a.json", "{}"); z.close()
    >>> entry_count(buf.getvalue())
    1
    """
    tail_start = max(0, len(data) - (22 + 65535))
    at = data.rfind(_EOCD, tail_start)
    if at < 0 or at + 22 > len(data):
        return None
    (total,) = struct.unpack_from("<H", data, at + 10)
    if total != 0xFFFF:
        return int(total)
    loc = at - 20
    if loc < 0 or data[loc : loc + 4] != _ZIP64_LOCATOR:
        return int(total)
    (offset,) = struct.unpack_from("<Q", data, loc + 8)
    if offset + 56 > len(data) or data[offset : offset + 4] != _ZIP64_EOCD:
        return None
    (total64,) = struct.unpack_from("<Q", data, offset + 32)
    return int(total64)


def plain_name(entry: str) -> bool:
    """Whether an entry name is a plain relative name: not absolute, no drive, no backslash, no ``.`` / ``..`` /
    empty part, no control character (a directory's trailing ``/`` allowed).

    >>> [plain_name(n) for n in ("samples/a_epoch_1.json", "samples/../../x.json", "/etc/x", "C:x", "a//b", "d/")]
    [True, False, False, False, False, True]
    """
    if not entry or entry.startswith("/") or "\\" in entry or any(ord(c) < 32 or ord(c) == 127 for c in entry):
        return False
    parts = entry.removesuffix("/").split("/")
    return all(p not in ("", ".", "..") for p in parts) and ":" not in parts[0]


@dataclass(slots=True)
class Archive:
    """An archive's entries by name (the last of a repeated name, as ``zipfile`` resolves it) and what is left of
    its unpacked-size budget: min(``unpacked_bytes``, ``gzip_ratio`` x the archive's size)."""

    name: str
    data: bytes
    entries: dict[str, zipfile.ZipInfo]
    budget: int
    ratio_bound: bool

    def read(self, entry: str) -> bytes:
        """The entry's bytes, inflated in 1 MiB steps; refused past its declared size (a damaged or hostile
        archive), past the archive's unpacked-size budget, on a CRC mismatch, encryption or an unknown method."""
        info = self.entries[entry]
        what = f"entry {entry}"
        if info.flag_bits & 0x1:
            raise fail(self.name, f"{what} is encrypted: upload the log inspect_ai wrote")
        body = self._compressed(info)
        out = bytearray()
        declared = info.file_size
        for block in _inflate(body, info.compress_type, self.name, what):
            out += block
            if len(out) > declared:
                raise fail(
                    self.name,
                    f"{what} unpacks to more than the {declared:,} bytes the archive declares: the archive is damaged",
                )
            if len(out) > self.budget:
                self._over()
        if zlib.crc32(out) != info.CRC:
            raise fail(self.name, f"{what} is damaged (its CRC-32 does not match): upload the log inspect_ai wrote")
        self.budget -= len(out)
        return bytes(out)

    def _compressed(self, info: zipfile.ZipInfo) -> memoryview:
        at = info.header_offset
        head = self.data[at : at + 30]
        if len(head) < 30 or head[:4] != _LOCAL:
            raise fail(self.name, f"entry {info.filename} has no local header: the archive is damaged")
        name_len, extra_len = struct.unpack_from("<HH", head, 26)
        start = at + 30 + name_len + extra_len
        if start + info.compress_size > len(self.data):
            raise fail(self.name, f"entry {info.filename} runs past the end of the archive: the archive is truncated")
        return memoryview(self.data)[start : start + info.compress_size]

    def _over(self) -> None:
        if self.ratio_bound:
            lim = limits.LIMITS["gzip_ratio"]
            raise fail(
                self.name,
                f"the archive unpacks to more than {limits.get('gzip_ratio'):,} {lim.unit} "
                f"({size_text(len(self.data))} packed); the limit is {limits.get('gzip_ratio'):,} {lim.unit} "
                f"(server setting {lim.env}): {lim.hint}",
            )
        raise fail(
            self.name,
            f"the archive's content is over the size limit of {size_text(limits.get('unpacked_bytes'))}"
            f"{limit_hint('unpacked_bytes')}",
        )


def _inflate(body: memoryview, method: int, name: str, what: str) -> Iterator[bytes]:
    """The entry's bytes in steps of at most 1 MiB (stored, deflate, zstd); DataError for other methods."""
    if method == zipfile.ZIP_STORED:
        for i in range(0, len(body), _STEP):
            yield bytes(body[i : i + _STEP])
        return
    try:
        if method == zipfile.ZIP_DEFLATED:
            d = zlib.decompressobj(-15)
            pending = bytes(body)
            while not d.eof:  # zlib may hold output after the input is all consumed: drain it too
                block = d.decompress(pending, _STEP)
                pending = d.unconsumed_tail
                if block:
                    yield block
                elif not pending:
                    break
            return
        if method == 93:  # zstd, as inspect_ai writes it
            import zstandard

            reader = zstandard.ZstdDecompressor().stream_reader(io.BytesIO(bytes(body)), read_across_frames=True)
            while block := reader.read(_STEP):
                yield block
            return
    except (zlib.error, ValueError, OSError) as exc:
        raise fail(name, f"{what} is damaged ({exc}): upload the log inspect_ai wrote") from None
    except Exception as exc:  # zstandard raises its own ZstdError
        raise fail(name, f"{what} is damaged ({type(exc).__name__}: {exc}): upload the log inspect_ai wrote") from None
    raise fail(name, f"{what} uses compression method {method}, which is not read: upload the log inspect_ai wrote")


def open_archive(data: bytes, name: str) -> Archive:
    """The archive's entries, after its entry count (``archive_entries``, from the end record) and every entry
    name are checked; its unpacked-size budget is min(``unpacked_bytes``, ``gzip_ratio`` x its size).

    >>> buf = io.BytesIO(); z = zipfile.ZipFile(buf, "w"); z.writestr("header.json", "{}"); z.close()
    >>> open_archive(buf.getvalue(), "x.eval").read("header.json")
    b'{}'
    """
    count = entry_count(data)
    if count is None:
        raise fail(name, "not a readable archive (no end of central directory record): upload the log inspect_ai wrote")
    limit(name, "archive_entries", count, "the archive")
    try:
        infos = zipfile.ZipFile(io.BytesIO(data)).infolist()
    except Exception as exc:  # zipfile raises several unrelated types for a damaged archive
        raise fail(name, f"not a readable archive ({exc}): upload the log inspect_ai wrote") from None
    limit(name, "archive_entries", len(infos), "the archive")
    bad = next((i.filename for i in infos if not plain_name(i.filename)), None)
    if bad is not None:
        raise fail(
            name,
            f"the archive has an entry named {bad[:200]!r}, not a plain relative name: upload the log inspect_ai wrote",
        )
    declared = sum(i.file_size for i in infos)  # refused early when the sizes declared are over: then checked
    limit(name, "unpacked_bytes", declared, "the archive")  # again as the entries inflate (declared sizes can lie)
    ratio_cap = limits.get("gzip_ratio") * max(len(data), 1)
    if declared > ratio_cap:
        lim = limits.LIMITS["gzip_ratio"]
        raise fail(
            name,
            f"the archive unpacks to {declared / max(len(data), 1):,.0f} {lim.unit}; the limit is "
            f"{limits.get('gzip_ratio'):,} (server setting {lim.env}): {lim.hint}",
        )
    cap = min(limits.get("unpacked_bytes"), ratio_cap)
    twice = sorted(n for n, k in Counter(i.filename for i in infos).items() if k > 1)
    if twice:  # zipfile would read the last silently: which one the tool meant is unknown
        shown = ", ".join(twice[:3]) + (" ..." if len(twice) > 3 else "")
        raise fail(name, f"the archive holds {shown} more than once: upload the file the tool wrote, unedited")
    entries = {i.filename: i for i in infos}
    return Archive(name, data, entries, cap, cap == ratio_cap and ratio_cap < limits.get("unpacked_bytes"))
