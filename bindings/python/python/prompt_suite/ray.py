"""Ray Data: request bodies (or provider batch lines) for every row of a
dataset, built on Ray's workers, and the provider batch files written from
them. Install with ``pip install prompt-suite[ray]``.

The rows are numbered before ``map_batches`` (a row-index column, by
``from_rows`` or ``number_rows``), so that row ``i`` gets seed ``seed + i``
and, in a provider batch file, the id ``row-<i>``: the output equals
``prompt-suite batch`` on the same rows, line for line, compared in row
order. ::

    import ray
    from prompt_suite.ray import BuildRequests, from_rows, write_batch_files

    ds = from_rows(rows)                                  # numbered in the driver
    built = ds.map_batches(BuildRequests, fn_constructor_kwargs=dict(
        prompt=text, provider="anthropic", format="anthropic-batch", seed=1),
        concurrency=2, batch_format="pyarrow")
    write_batch_files(built, "out/", format="anthropic-batch")

``BuildRequests`` compiles the prompt once per worker. Each output row has
``row`` (the row's index), ``line`` (the JSON text the command line writes
for it) and ``error`` (whether the line is an error record
``{"row": i, "error": {...}}``): a row that fails is kept as its record,
never dropped.
"""

import json
import os
from typing import Any, Dict, Iterable, Iterator, List, Optional, Tuple

from . import Pipeline, _lowlevel

__all__ = [
    "ROW_INDEX",
    "ROW_JSON",
    "BuildRequests",
    "from_rows",
    "number_rows",
    "write_batch_files",
    "batch_file_limits",
]

#: The row-index column ``from_rows`` and ``number_rows`` add.
ROW_INDEX = "__prompt_suite_row__"

#: The column ``from_rows`` keeps each row's JSON text in.
ROW_JSON = "__prompt_suite_json__"

def _pyarrow():
    try:
        import pyarrow
    except ImportError as err:  # pragma: no cover - the [ray] extra has it
        raise ImportError("prompt_suite.ray needs pyarrow: pip install 'prompt-suite[ray]'") from err
    return pyarrow


def _rows_of(batch: Any) -> List[Dict[str, Any]]:
    """The rows of a batch as lists of native Python dicts: a pyarrow
    Table, a pandas DataFrame, or a dict of numpy arrays (or lists).
    numpy and pyarrow scalars become Python's (``int``, ``float``, ...)."""
    pa = _pyarrow()
    if isinstance(batch, pa.Table):
        return batch.to_pylist()
    if isinstance(batch, dict):
        columns = {name: (values.tolist() if hasattr(values, "tolist") else list(values))
                   for name, values in batch.items()}
        count = len(next(iter(columns.values()), []))
        return [{name: values[i] for name, values in columns.items()} for i in range(count)]
    if hasattr(batch, "to_dict") and hasattr(batch, "columns"):  # pandas
        return pa.Table.from_pandas(batch, preserve_index=False).to_pylist()
    raise TypeError(f"a batch must be a pyarrow Table, a pandas DataFrame or a dict of arrays, not {type(batch).__name__}")


def _runs(indices: List[int]) -> Iterator[Tuple[int, int, int]]:
    """Runs of consecutive row indices: (first index, start, end) positions."""
    start = 0
    for i in range(1, len(indices) + 1):
        if i == len(indices) or indices[i] != indices[i - 1] + 1:
            yield indices[start], start, i
            start = i


class BuildRequests:
    """A callable class for ``Dataset.map_batches``: the request body (or
    provider batch line, with ``format``) of every row of a batch.

    The prompt (its text, or a ``Prompt``) is compiled once per worker. The
    rows must carry the row-index column (``from_rows``, ``number_rows``);
    the rest of each row is the row as ``prompt-suite batch`` takes it.
    ``seed`` is the seed of row 0 (required: every worker must use the
    same); ``jobs`` is the threads each worker builds with.
    """

    def __init__(
        self,
        prompt: Any,
        provider: str = "openai",
        format: str = "bodies",
        seed: int = 0,
        params: Optional[Dict[str, Any]] = None,
        id_field: Optional[str] = None,
        jobs: int = 1,
        row_index: str = ROW_INDEX,
    ) -> None:
        if seed is None:
            raise ValueError("BuildRequests needs a seed: every worker must use the same one")
        self._compiled = Pipeline(provider=provider, params=params).compile(prompt)
        self._format = format
        self._seed = seed
        self._id_field = id_field
        self._jobs = jobs
        self._row_index = row_index

    def __call__(self, batch: Any) -> Any:
        pa = _pyarrow()
        rows = _rows_of(batch)
        indices = []
        for row in rows:
            if self._row_index not in row:
                raise KeyError(f"a row has no {self._row_index!r} column: number the rows first (from_rows, number_rows)")
            indices.append(int(row.pop(self._row_index)))
        # Rows made by from_rows carry their JSON line as it is.
        rows = [row[ROW_JSON] if len(row) == 1 and ROW_JSON in row else row for row in rows]
        out_rows: List[int] = []
        lines: List[str] = []
        errors: List[bool] = []
        for first, start, end in _runs(indices):
            built = self._compiled.batch(
                rows[start:end], format=self._format, id_field=self._id_field,
                seed=self._seed, jobs=self._jobs, first_row=first, text=True, tagged=True,
            )
            for row, line, error in built:
                out_rows.append(row)
                lines.append(line)
                errors.append(error)
        return pa.table({
            "row": pa.array(out_rows, pa.int64()),
            "line": pa.array(lines, pa.string()),
            "error": pa.array(errors, pa.bool_()),
        })


def from_rows(rows: Iterable[Dict[str, Any]], rows_per_block: int = 10_000) -> Any:
    """A Ray dataset of ``rows`` (dicts), numbered in the driver: the
    row-index column is added as the blocks are made. Each row is kept as
    its JSON text (one string column), so that rows of any shape share one
    schema and reach the batch exactly as a rows file would."""
    import ray

    pa = _pyarrow()
    tables = []
    indices: List[int] = []
    texts: List[str] = []
    for i, row in enumerate(rows):
        indices.append(i)
        texts.append(json.dumps(row, ensure_ascii=False, separators=(",", ":")))
        if len(indices) == rows_per_block:
            tables.append(pa.table({ROW_INDEX: pa.array(indices, pa.int64()), ROW_JSON: pa.array(texts, pa.string())}))
            indices, texts = [], []
    if indices or not tables:
        tables.append(pa.table({ROW_INDEX: pa.array(indices, pa.int64()), ROW_JSON: pa.array(texts, pa.string())}))
    return ray.data.from_arrow(tables)


def number_rows(ds: Any) -> Any:
    """``ds`` with the row-index column: row ``i`` of the dataset, in its
    order, gets ``i`` (a positional zip with ``ray.data.range``)."""
    import ray

    index = ray.data.range(ds.count()).rename_columns({"id": ROW_INDEX})
    return ds.zip(index)


def batch_file_limits(format: str) -> Tuple[Optional[int], Optional[int]]:
    """The most requests and bytes one provider batch file may hold."""
    return _lowlevel.batch_file_limits(format)


def _lines_in_order(built: Any) -> Iterator[Tuple[int, str, bool]]:
    # Row order: the dataset's own (preserve_order is set for the run, so
    # no sort stage competes with the workers for CPUs); checked.
    if hasattr(built, "iter_rows"):
        import ray

        ray.data.DataContext.get_current().execution_options.preserve_order = True
        built = built.iter_rows()
    last = -1
    for item in built:
        row = int(item["row"])
        if row <= last:
            raise ValueError(f"rows out of order: {row} after {last}")
        last = row
        yield row, item["line"], bool(item["error"])


def write_batch_files(
    built: Any,
    directory: str,
    format: str,
    max_requests: Optional[int] = None,
    max_bytes: Optional[int] = None,
) -> Dict[str, Any]:
    """Writes the requests of ``built`` (the output of ``BuildRequests``,
    a dataset or an iterable of its rows) in row order into numbered
    provider batch files in ``directory`` (``requests-0001.jsonl``, or
    ``.json`` for Anthropic's one document), each within the provider's
    limits (``batch_file_limits``; ``max_requests`` and ``max_bytes`` lower
    them), and the error records into ``errors.jsonl``. Returns
    ``{"files": [...], "requests": n, "errors": n}``."""
    limit_requests, limit_bytes = batch_file_limits(format)
    if max_requests is not None:
        limit_requests = min(max_requests, limit_requests or max_requests)
    if max_bytes is not None:
        limit_bytes = min(max_bytes, limit_bytes or max_bytes)
    document = format == "anthropic-batch"
    head, tail = (b'{"requests":[', b"\n]}\n") if document else (b"", b"")
    os.makedirs(directory, exist_ok=True)
    files: List[str] = []
    state = {"file": None, "requests": 0, "bytes": 0}
    total = {"requests": 0, "errors": 0}

    def close() -> None:
        if state["file"] is not None:
            state["file"].write(tail)
            state["file"].close()
            state["file"] = None

    def open_next() -> None:
        close()
        name = os.path.join(directory, f"requests-{len(files) + 1:04d}.{'json' if document else 'jsonl'}")
        files.append(name)
        state["file"] = open(name, "wb")
        state["file"].write(head)
        state["requests"], state["bytes"] = 0, len(head) + len(tail)

    with open(os.path.join(directory, "errors.jsonl"), "wb") as errors:
        for _, line, is_error in _lines_in_order(built):
            data = line.encode()
            if is_error:
                errors.write(data + b"\n")
                total["errors"] += 1
                continue
            piece = (b"\n" if document else b"") + data + (b"" if document else b"\n")
            size = len(piece) + (1 if document and state["requests"] else 0)
            full = state["file"] is not None and (
                (limit_requests is not None and state["requests"] >= limit_requests)
                or (limit_bytes is not None and state["bytes"] + size > limit_bytes)
            )
            if state["file"] is None or full:
                open_next()
                size = len(piece)
            if document and state["requests"]:
                state["file"].write(b",")
            state["file"].write(piece)
            state["requests"] += 1
            state["bytes"] += size
            total["requests"] += 1
        close()
    return {"files": files, **total}
