import json

import pytest

import prompt_suite as ps

PROMPT = "/// param: model=m, max_tokens=5\nYou are [[ bot ]]. [% chance 0.5 %]Odd.[% endchance %]\n\n## user\nHi"


def rows(n):
    for i in range(n):
        yield {"state": {"bot": f"B{i}"}} if i % 97 else {"state": i}


@pytest.mark.parametrize(
    "provider,format",
    [("openai", "bodies"), ("openai", "openai-batch"), ("anthropic", "anthropic-batch"), ("gemini", "gemini-batch")],
)
def test_batch_equals_the_cli(provider, format, cli, tmp_path):
    n = 1000
    got = list(ps.batch(PROMPT, rows(n), provider=provider, format=format, seed=11, jobs=2))
    (tmp_path / "p.txt").write_text(PROMPT)
    (tmp_path / "rows.jsonl").write_text("".join(json.dumps(r, separators=(",", ":"), ensure_ascii=False) + "\n" for r in rows(n)))
    args = ["batch", str(tmp_path / "p.txt"), "--rows", str(tmp_path / "rows.jsonl"), "--provider", provider,
            "--seed", "11", "--jobs", "2"]
    if format != "bodies":
        args += ["--format", format, "--errors", str(tmp_path / "errors.jsonl")]
    done = cli(*args)
    assert done.returncode in (0, 1), done.stderr.decode()
    if format == "anthropic-batch":
        expected = json.loads(done.stdout)["requests"]
    else:
        expected = [json.loads(line) for line in done.stdout.splitlines()]
    requests = [line for line in got if "error" not in line or "row" not in line]
    errors = [line for line in got if "row" in line and "error" in line]
    if format == "bodies":
        assert got == expected
    else:
        assert requests == expected
        on_file = [json.loads(line) for line in (tmp_path / "errors.jsonl").read_text().splitlines()]
        assert errors == on_file
    assert len(got) == n


def test_one_item_per_row_in_order_with_error_records():
    got = list(ps.batch(PROMPT, rows(300), provider="anthropic", format="anthropic-batch", seed=1, jobs=3))
    assert len(got) == 300
    for i, item in enumerate(got):
        if i % 97:
            assert item["custom_id"] == f"row-{i}"
        else:
            assert item["row"] == i and item["error"]["kind"] == "invalid_json"


def test_id_field_and_seeds_per_row():
    got = list(ps.batch(PROMPT, [{"id": "a", "state": {"bot": "x"}}, {"id": "a", "state": {"bot": "y"}}],
                        provider="openai", format="openai-batch", id_field="id", seed=5))
    assert got[0]["custom_id"] == "a"
    assert got[1]["error"]["kind"] == "duplicate_id"


def test_rows_that_are_not_json_like_raise_after_the_rows_before():
    it = ps.batch(PROMPT, [{"state": {"bot": "x"}}, {"state": {"bot": object()}}], provider="anthropic", seed=1)
    with pytest.raises(TypeError, match=r"rows\[1\]\['state'\]\['bot'\]"):
        list(it)


def test_bad_arguments_are_value_errors():
    with pytest.raises(ValueError, match="format"):
        ps.batch(PROMPT, [], format="csv")
    with pytest.raises(ValueError):
        list(ps.batch(PROMPT, [{}], provider="gemini", format="openai-batch"))


def test_a_batch_streams_and_can_be_left():
    def endless():
        i = 0
        while True:
            yield {"state": {"bot": i}}
            i += 1

    it = ps.batch(PROMPT, endless(), provider="anthropic", seed=0)
    first = [next(it) for _ in range(3)]
    assert all("messages" in body for body in first)
    del it


def test_shards_numbered_from_their_first_row_equal_the_whole_batch():
    compiled = ps.Pipeline(provider="anthropic").compile(PROMPT)
    all_rows = list(rows(500))
    whole = list(compiled.batch(all_rows, format="anthropic-batch", seed=3, text=True))
    shards = []
    for start in range(0, 500, 128):
        shards += compiled.batch(all_rows[start:start + 128], format="anthropic-batch", seed=3,
                                 first_row=start, text=True, jobs=2)
    assert shards == whole
    assert all(isinstance(line, str) for line in whole)
    assert json.loads(whole[97])["row"] == 97


def test_str_rows_are_json_lines():
    text_rows = ['{"state":{"bot":"A"}}', '{"state": {"bot": "B"}}']
    got = list(ps.batch(PROMPT, text_rows, provider="anthropic", seed=1))
    assert [body["system"].split(".")[0] for body in got] == ["You are A", "You are B"]
    with pytest.raises(ValueError, match=r"rows\[0\] is a str with a line break"):
        list(ps.batch(PROMPT, ['{"state":\n{}}'], provider="anthropic", seed=1))


def test_batch_file_limits_are_the_providers():
    from prompt_suite import _lowlevel

    assert _lowlevel.batch_file_limits("openai-batch") == (50_000, 200_000_000)
    assert _lowlevel.batch_file_limits("anthropic-batch") == (100_000, 256_000_000)
    assert _lowlevel.batch_file_limits("gemini-batch") == (None, 2_000_000_000)


def test_ray_helpers_without_ray(tmp_path):
    pytest.importorskip("pyarrow")
    from prompt_suite.ray import ROW_INDEX, ROW_JSON, BuildRequests, write_batch_files
    import pyarrow as pa

    build = BuildRequests(PROMPT, provider="anthropic", format="anthropic-batch", seed=3)
    texts = [json.dumps(r, separators=(",", ":")) for r in rows(300)]
    table = pa.table({ROW_INDEX: list(range(300)), ROW_JSON: texts})
    out = build(table).to_pylist()
    expected = list(ps.batch(PROMPT, texts, provider="anthropic", format="anthropic-batch", seed=3, text=True))
    assert [o["line"] for o in out] == expected
    summary = write_batch_files(out, str(tmp_path), format="anthropic-batch", max_requests=100)
    assert summary["errors"] == 4 and summary["requests"] == 296 and len(summary["files"]) == 3
    requests = [r for f in summary["files"] for r in json.loads(open(f).read())["requests"]]
    assert [r["custom_id"] for r in requests] == [json.loads(l)["custom_id"] for l in expected if '"custom_id"' in l]


def test_tagged_lines_are_the_clis_lines_unframed(cli, tmp_path):
    """`tagged=True` gives prompt-pipeline's row lines as they are: the
    request lines of the CLI's Anthropic document (without its framing) and
    the lines of its errors file, each with its row and kind."""
    n = 300
    got = list(ps.batch(PROMPT, rows(n), provider="anthropic", format="anthropic-batch", seed=4, text=True, tagged=True))
    assert [row for row, _, _ in got] == list(range(n))
    (tmp_path / "p.txt").write_text(PROMPT)
    (tmp_path / "rows.jsonl").write_text("".join(json.dumps(r, separators=(",", ":")) + "\n" for r in rows(n)))
    done = cli("batch", str(tmp_path / "p.txt"), "--rows", str(tmp_path / "rows.jsonl"), "--provider", "anthropic",
               "--format", "anthropic-batch", "--seed", "4", "--errors", str(tmp_path / "errors.jsonl"))
    assert done.returncode in (0, 1), done.stderr.decode()
    document = done.stdout.decode()
    requests = [line for _, line, error in got if not error]
    assert document == '{"requests":[\n' + ",\n".join(requests) + "\n]}\n"
    records = [line for _, line, error in got if error]
    assert (tmp_path / "errors.jsonl").read_text() == "".join(line + "\n" for line in records)
    assert len(records) == 4
