import json

import pytest

import prompt_suite as ps

PROMPT = "/// param: model=m, max_tokens=5\nYou are [[ bot ]]. [% chance 0.5 %]Odd.[% endchance %]\n\n## user\nHi"


def rows(n):
    for i in range(n):
        yield {"state": {"bot": f"B{i}"}} if i % 97 else {"nope": i}


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
