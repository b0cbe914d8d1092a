import json
import warnings
from pathlib import Path

import pytest

import prompt_suite as ps

ROOT = Path(__file__).resolve().parents[3]
PROMPT = "/// param: model=claude-sonnet-4-5, max_tokens=300, temperature=0.2\nYou are [[ bot ]], a terse assistant. /// per tenant\n\n## user\nHi!\n"


def test_build_matches_the_rust_example():
    body = ps.Pipeline(provider="anthropic").build(PROMPT, context={"state": {"bot": "Penny"}}, seed=7)
    assert json.dumps(body, separators=(",", ":")) == (
        '{"model":"claude-sonnet-4-5","max_tokens":300,"system":"You are Penny, a terse assistant.",'
        '"messages":[{"role":"user","content":[{"type":"text","text":"Hi!"}]}],"temperature":0.2}'
    )


def test_a_bare_dict_context_is_the_state_store():
    p = ps.Pipeline(provider="anthropic")
    assert p.build(PROMPT, context={"bot": "Penny"}, seed=1) == p.build(
        PROMPT, context={"state": {"bot": "Penny"}}, seed=1
    )
    with pytest.raises(ValueError, match="either the state store"):
        p.build(PROMPT, context={"state": {}, "bot": "x"})


@pytest.mark.parametrize("provider", ["openai", "openai-responses", "anthropic", "gemini"])
def test_every_provider_builds_and_agrees_with_the_cli(provider, cli):
    prompt = ROOT / "examples" / "support-bot" / "prompt.txt"
    if not prompt.exists():
        pytest.skip("no examples/support-bot")
    done = cli("build", str(prompt), "--provider", provider, "--param", "model=m-1", "--seed", "3",
               "--error-format", "json")
    pipeline = ps.Pipeline(provider=provider, params={"model": "m-1"})
    if done.returncode == 0:
        assert pipeline.build(ps.Prompt.from_path(prompt), context={}, seed=3) == json.loads(done.stdout)
    else:
        with pytest.raises(ps.PipelineError) as info:
            pipeline.build(ps.Prompt.from_path(prompt), context={}, seed=3)
        assert info.value.kind == json.loads(done.stderr)["error"]["kind"]


def test_tools_and_schema_and_params():
    tools = [{"type": "function", "function": {"name": "get", "parameters": {"type": "object", "properties": {}}}}]
    schema = {"title": "answer", "type": "object", "properties": {"a": {"type": "string"}}}
    p = ps.Pipeline(provider="openai", params={"model": "gpt-4o", "temperature": 0.5}, tools=tools,
                    tool_choice="auto", response_schema=schema)
    body = p.build("## user\nhi", seed=1)
    assert body["tools"][0]["function"]["name"] == "get"
    assert body["tool_choice"] == "auto"
    assert body["temperature"] == 0.5
    assert body["response_format"]["type"] == "json_schema"
    assert body["response_format"]["json_schema"]["name"] == "answer"


def test_notices_are_warnings():
    with pytest.warns(ps.Notice):
        ps.Pipeline(provider="anthropic", params={"model": "m", "max_tokens": 5, "seed": 3}).build("## user\nhi", seed=1)


def test_errors_are_pipeline_errors_placed_in_the_prompt():
    with pytest.raises(ps.PipelineError) as info:
        ps.Pipeline(provider="openai").build("/// param: model=m\n\n## user\n[[ x | y ]]", seed=1)
    err = info.value
    assert err.kind == "syntax_error"
    assert err.line == 4


def test_compiled_prompt_builds_many():
    compiled = ps.Pipeline(provider="anthropic").compile(PROMPT)
    assert compiled.build({"bot": "A"}, seed=1)["system"].startswith("You are A")
    assert compiled.build({"bot": "B"}, seed=1)["system"].startswith("You are B")


def test_transcript_is_flipped_after_the_prompt():
    body = ps.Pipeline(provider="openai", params={"model": "m"}).build(
        "You judge.", transcript=[{"speaker": "ann", "text": "yes"}, {"speaker": "ben", "text": "no"}],
        speaker="ben", seed=1)
    roles = [m["role"] for m in body["messages"]]
    assert roles[0] == "system" and "assistant" in roles


def test_provider_names():
    with pytest.raises(ValueError, match="provider"):
        ps.Pipeline(provider="bard")


def test_flip_segment_comments_convert():
    flipped = ps.flip([{"speaker": "ann", "text": "hi"}, {"speaker": "ben", "text": "yo"}], "ben",
                      system="Be brief.", instruction="Your turn.")
    assert flipped[0] == {"role": "system", "content": "Be brief."}
    assert flipped[-1]["content"].endswith("Your turn.")
    messages = ps.segment("## user\nhi\n\n## assistant\nyo")
    assert [m["role"] for m in messages] == ["user", "assistant"]
    processed = ps.comments.process("/// param: a=1\n/// flow: tavern\nhello /// note")
    assert processed["cleaned"] == "hello"
    assert processed["params"] == {"a": "1"}
    assert processed["flow"] == "tavern"
    stripped = ps.comments.strip_messages([{"role": "user", "content": "hi /// note", "x": 1}])
    assert stripped == [{"role": "user", "content": "hi", "x": 1}]
    body = ps.convert({"model": "m", "max_tokens": 5, "messages": [{"role": "system", "content": "s"},
                                                                     {"role": "user", "content": "hi"}]},
                      provider="anthropic")
    assert body["system"] == "s"


def test_stage_errors_have_their_families():
    with pytest.raises(ps.FlipError) as info:
        ps.flip('[{"speaker": "ann"}]', "ann")
    assert info.value.kind == "missing_columns"
    with pytest.raises(ps.SegmentError) as info:
        ps.Pipeline(role_aliases={"#bad": "user"})
    assert info.value.kind == "invalid_role_alias"
    with pytest.raises(ps.ConvertError):
        ps.convert({"messages": "nope"})
    with pytest.raises(ps.CommentsError):
        ps.comments.strip_messages("{}")
