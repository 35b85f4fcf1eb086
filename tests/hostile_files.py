"""Hostile files for the readers' bounds, made on demand (never committed): small files that parse into many values,
archives that lie about their sizes or names, logs with impossible epochs. Each maker takes a size, so the tests use
small ones (with the limits lowered) and ``benchmarks/bench_limits.py`` the issue's full-size ones.
"""

from __future__ import annotations

import io
import json
import struct
import zipfile
import zlib

HEADER: dict[str, object] = {
    "version": 2,
    "status": "success",
    "eval": {"created": "2024-01-01T00:00:00+00:00", "task": "t", "dataset": {}, "model": "mockllm/m", "config": {}},
}


def sample(case: int, epoch: int = 1, value: str = "C", **extra: object) -> dict[str, object]:
    """A minimal inspect_ai sample that inspect_ai's EvalSample accepts."""
    return {
        "id": f"c{case}",
        "epoch": epoch,
        "input": "q",
        "target": "1",
        "scores": {"match": {"value": value, "answer": "1"}},
        **extra,
    }


def eval_zip(entries: dict[str, bytes], method: int = zipfile.ZIP_DEFLATED) -> bytes:
    """A ZIP archive (an inspect_ai ``.eval``) of the given entries."""
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", compression=method) as zf:
        for name, content in entries.items():
            zf.writestr(name, content)
    return buf.getvalue()


def eval_log(samples: list[dict[str, object]], header: dict[str, object] | None = None) -> bytes:
    """An ``.eval`` archive of a header and one entry per sample (named as inspect_ai names them)."""
    entries = {"header.json": json.dumps(header or HEADER).encode()}
    for i, s in enumerate(samples):
        entries[f"samples/{s['id']}_epoch_{s['epoch']}_{i}.json"] = json.dumps(s).encode()
    return eval_zip(entries)


def eval_empty_dicts_in_metadata(n: int) -> bytes:
    """One sample whose metadata holds ``n`` empty objects (the issue: 60 million in 2.2 MB took 4.7 GB)."""
    body = json.dumps(sample(0))[:-1].encode() + b', "metadata": {"pad": [' + b"{}," * (n - 1) + b"{}]}}"
    return eval_zip({"header.json": json.dumps(HEADER).encode(), "samples/c0_epoch_1.json": body})


def eval_integer_header(n: int) -> bytes:
    """A header holding ``n`` integers (the issue: a 150 MB header took 1.1 GB)."""
    head = json.dumps(HEADER)[:-1].encode() + b', "metadata": {"pad": [' + b"1," * (n - 1) + b"1]}}"
    return eval_zip({"header.json": head, "samples/c0_epoch_1.json": json.dumps(sample(0)).encode()})


def eval_minimal_samples(n: int, epochs: int = 1) -> bytes:
    """``n`` minimal samples (cases x epochs): the CPU of one entry per sample (500,000 took 89 s)."""
    per_epoch = max(n // epochs, 1)
    return eval_log([sample(c, e) for e in range(1, epochs + 1) for c in range(per_epoch)])


def eval_lying_sizes(declared: int, real: int) -> bytes:
    """An archive whose header.json declares ``declared`` bytes and inflates to ``real`` (the issue: 1,000 bytes
    declared, 1 GB inflated, refused only after 2.2 GB)."""
    content = b" " * real
    packed = zlib.compress(content, 9)[2:-4]  # raw deflate
    name = b"header.json"
    crc = zlib.crc32(content)
    local = struct.pack("<4sHHHHHIIIHH", b"PK\x03\x04", 20, 0, 8, 0, 0, crc, len(packed), declared, len(name), 0)
    central = struct.pack(
        "<4sHHHHHHIIIHHHHHII",
        b"PK\x01\x02",
        20,
        20,
        0,
        8,
        0,
        0,
        crc,
        len(packed),
        declared,
        len(name),
        0,
        0,
        0,
        0,
        0,
        0,
    )
    body = local + name + packed
    directory = central + name
    end = struct.pack("<4sHHHHIIH", b"PK\x05\x06", 0, 0, 1, 1, len(directory), len(body), 0)
    return body + directory + end


def eval_named(entry: str) -> bytes:
    """An archive with a sample entry named ``entry`` (e.g. ``samples/../../../x.json``) besides a plain one."""
    one = json.dumps(sample(0)).encode()
    return eval_zip({"header.json": json.dumps(HEADER).encode(), "samples/c0_epoch_1.json": one, entry: one})


def eval_epochs(epochs: list[int]) -> bytes:
    """One case logged at the given epochs (-5 and 10**12 were kept)."""
    return eval_log([sample(0, e) for e in epochs])


def lm_eval_line(doc_id: int, pad: int = 0, acc: float = 1.0) -> bytes:
    """One lm-eval ``--log_samples`` line whose ``doc`` holds ``pad`` empty objects."""
    doc = b'{"q": "x", "pad": [' + b",".join([b"{}"] * pad) + b"]}"
    rest = json.dumps({"target": "A", "resps": [["A"]], "filtered_resps": ["A"], "metrics": ["acc"], "acc": acc})
    return b'{"doc_id": %d, "doc": %s, %s\n' % (doc_id, doc, rest[1:].encode())


def lm_eval_padded(lines: int, pad: int) -> bytes:
    """``lines`` lm-eval lines, each ``doc`` padded with ``pad`` ``{}`` (the issue: 190 lines x 330,000 took
    4.9 GB)."""
    return b"".join(lm_eval_line(i, pad) for i in range(lines))


def promptfoo_empty_dicts(n: int) -> bytes:
    """A promptfoo results.json whose results list holds ``n`` empty objects (the issue: 60 million, 4.7 GB)."""
    return b'{"evalId": "e", "results": {"version": 3, "results": [' + b"{}," * (n - 1) + b"{}]}}"


def jsonl_padded_cells(lines: int, pad: int) -> bytes:
    """A JSON Lines table whose rows each carry a cell of ``pad`` empty objects."""
    return b"".join(b'{"item": %d, "label": "a", "x": [%s]}\n' % (i, b",".join([b"{}"] * pad)) for i in range(lines))


def eval_padded_samples(n: int, pad: int) -> bytes:
    """``n`` samples, each entry holding ``pad`` empty objects in its metadata: every entry under the JSON-values
    limit, all of them together over it (counted per entry, they added up unbounded)."""
    return eval_log([sample(c, 1, metadata={"pad": [{}] * pad}) for c in range(n)])


def jsonl_flat_rows(rows: int, columns: int) -> bytes:
    """A JSON Lines ratings table of ``rows`` flat rows (item, rater, label and more columns): 2 x columns values a
    line, so a million rows of four columns passed the JSON-values limit though the row limit allows them."""
    extra = "".join(f', "c{j}": {j}' for j in range(columns - 3))
    return "".join(
        f'{{"item": "i{i // 2}", "rater": "r{i % 2}", "label": "L{i % 3}"{extra}}}\n' for i in range(rows)
    ).encode()


def ratings_csv(rows: int, labels: int = 10) -> bytes:
    """A ratings CSV of ``rows`` rows, two raters per item, ``labels`` labels (1,000,000 rows took 1.6 GB in
    ``data``: Krippendorff's alpha built an items x labels x labels array)."""
    return b"item,rater,label\n" + b"".join(
        b"i%d,r%d,L%d\n" % (i // 2, i % 2, (i * 7919) % labels) for i in range(rows)
    )


def samples_csv(cases: int, per_case: int, seed: int = 0) -> bytes:
    """A raw-samples CSV: ``cases`` x ``per_case`` samples, each case with its own difficulty (Beta(1.5, 0.6)) and
    1-5 wrong answers with Dirichlet(0.5) weights, so nearly every case has its own answer-group sizes (2,000 x 500
    took 65 s in ``vote``: one exact computation per distinct group sizes)."""
    import numpy as np

    rng = np.random.default_rng(seed)
    p = rng.beta(1.5, 0.6, size=cases)
    n_wrong = rng.integers(1, 6, size=cases)
    out = [b"case,sample,answer,gold\n"]
    for c in range(cases):
        right = rng.random(per_case) < p[c]
        wrong = rng.choice(int(n_wrong[c]), size=per_case, p=rng.dirichlet(np.full(int(n_wrong[c]), 0.5)))
        out.append(
            b"".join(b"%d,%d,%s,g\n" % (c, s + 1, b"g" if right[s] else b"w%d" % wrong[s]) for s in range(per_case))
        )
    return b"".join(out)


def parquet_repeated_text(rows: int, chars: int) -> bytes:
    """A Parquet ratings file whose rater column holds one text of ``chars`` characters in every row: stored once
    in a dictionary page, so 465 KB (200,000 rows x 20,000 characters) decoded to 4 GB and took 6 GB."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    table = pa.table(
        {"item": pa.array(range(rows)), "rater": pa.array(["r" * chars] * rows), "label": ["a", "b"] * (rows // 2)}
    )
    buf = io.BytesIO()
    pq.write_table(table, buf, compression="zstd")
    return buf.getvalue()


def samples_distinct_answers(cases: int, per_case: int, gold_counts: int = 40) -> bytes:
    """Raw samples where every wrong answer is different (free-form answers): case c has 1 + c % ``gold_counts``
    gold samples and one-sample answer groups for the rest, the most work for the exact vote curve (one
    computation per distinct gold count) and for first-n counts over many distinct answers."""
    out = [b"case,sample,answer,gold\n"]
    for c in range(cases):
        gold = 1 + c % gold_counts
        for s in range(per_case):
            answer = b"g" if s < gold else b"a%d_%d" % (c, s)
            out.append(b"%d,%d,%s,g\n" % (c, s + 1, answer))
    return b"".join(out)
