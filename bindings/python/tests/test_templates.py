import threading

import pytest

import prompt_suite as ps


def test_version_is_the_workspace_version():
    cargo = (ps_root := __import__("pathlib").Path(__file__).resolve().parents[3] / "Cargo.toml").read_text()
    assert f'version = "{ps.__version__}"' in cargo


def test_render_with_state_local_global_and_seed():
    env = ps.Environment()
    tpl = env.compile("[[ name ]] [[ L.mood ]] [[ G.day ]]")
    assert tpl.render(state={"name": "Ann"}, local={"mood": "calm"}, global_={"day": 3}) == "Ann calm 3"


def test_module_render_takes_state_as_keywords():
    assert ps.render("Hi [[ name ]]", seed=None, name="Ann") == "Hi Ann"


def test_outcome_has_writes_effects_ranges_and_seed():
    tpl = ps.Environment().compile('[% set visits = visits + 1 %]é [[ who ]]![% qr "next" %]')
    out = tpl.render_outcome(state={"visits": 1, "who": "Ünïcode"}, seed=7)
    assert out.output == "é Ünïcode!"
    assert out.writes == [{"scope": "state", "name": "visits", "value": 2}]
    assert out.effects == [{"kind": "qr", "name": "next"}]
    # Ranges are str indices (code points), not bytes.
    assert out.data_ranges == [(2, 9)]
    start, end = out.data_ranges[0]
    assert out.output[start:end] == "Ünïcode"
    assert out.seed == 7


def test_a_seed_reproduces_a_render_and_none_draws_one():
    tpl = ps.Environment().compile(
        "[% weighted %][% choice 1 %]a[% endchoice %][% choice 1 %]b[% endchoice %][% endweighted %]"
    )
    drawn = tpl.render_outcome()
    assert 0 <= drawn.seed < 2**53
    assert tpl.render(seed=drawn.seed) == drawn.output
    assert {tpl.render(seed=s) for s in range(64)} == {"a", "b"}


def test_host_filter_test_and_function_in_python():
    env = ps.Environment()
    env.add_filter("shout", lambda s, times=1: s.upper() + "!" * times)
    env.add_test("short", lambda s: len(s) < 4)
    env.add_function("pair", lambda a, b: [a, b])
    tpl = env.compile("[[ name -> shout(times=2) ]] [[ name is short ]] [[ pair(1, none) -> tojson ]]")
    assert tpl.render(state={"name": "Ann"}) == 'ANN!! true [1, null]'


def test_a_filter_that_raises_fails_the_render():
    env = ps.Environment()

    def boom(value):
        raise ValueError("no " + value)

    env.add_filter("boom", boom)
    with pytest.raises(ps.TemplateError) as info:
        env.compile("[[ 'x' -> boom ]]").render()
    assert info.value.kind == "invalid_operation"
    assert "no x" in info.value.message


def test_named_templates_for_include():
    env = ps.Environment()
    env.add_template("sig.txt", "-- [[ name ]]")
    assert env.compile("Bye.\n[% include 'sig.txt' %]").render(state={"name": "Ann"}) == "Bye.\n-- Ann"


def test_options():
    env = ps.Environment(trim_blocks=True, strict=True)
    assert env.compile("[% if true %]\nyes[% endif %]").render() == "yes"
    with pytest.raises(ps.TemplateError) as info:
        env.compile("[[ missing ]]").render()
    assert info.value.kind == "undefined_error"


def test_syntax_error_has_kind_position_and_diagnostic():
    with pytest.raises(ps.TemplateError) as info:
        ps.Environment().compile("ok\n[[ x | upper ]]")
    err = info.value
    assert isinstance(err, ps.Error)
    assert (err.kind, err.line, err.column, err.snippet) == ("syntax_error", 2, 6, "|")
    assert str(err).startswith("error[syntax_error]: ")
    assert "2:6" in str(err)


def test_values_past_the_memory_limit_are_refused_before_they_are_built():
    # Two million slots are 144 MB as values, over the 128 MiB limit: refused
    # by the count, before one is made, naming the argument.
    tpl = ps.Environment().compile("[[ x -> length ]]")
    with pytest.raises(ps.TemplateError) as info:
        tpl.render(state={"x": [None] * 2_000_000})
    assert info.value.kind == "memory_limit"
    assert "state['x'] would take more than the memory limit of 134217728 bytes" in str(info.value)
    # Deep inside, the path says where the count passed the limit.
    with pytest.raises(ps.TemplateError, match=r"global_\['g'\]\[1\] would take"):
        tpl.render(global_={"g": ["x" * (100 << 20), "y" * (30 << 20)]})
    assert tpl.render(state={"x": [None] * 1000}).output == "1000"


def test_values_that_are_not_json_like_name_their_path():
    tpl = ps.Environment().compile("[[ a ]]")
    with pytest.raises(TypeError, match=r"state\['a'\]\[2\] is of type object"):
        tpl.render(state={"a": [1, 2, object()]})
    with pytest.raises(TypeError, match=r"keys must be str"):
        tpl.render(state={1: "x"})
    with pytest.raises(ValueError, match="64-bit"):
        tpl.render(state={"a": 2**70})
    with pytest.raises(ValueError, match="float"):
        tpl.render(state={"a": float("nan")})
    loop = []
    loop.append(loop)
    with pytest.raises(ValueError, match="nested deeper"):
        tpl.render(state={"a": loop})


def test_values_come_back_native():
    out = ps.Environment().compile("[% set x = {'a': [1, 2.5, true, none, 'é']} %]").render_outcome()
    assert out.writes[0]["value"] == {"a": [1, 2.5, True, None, "é"]}
    assert type(out.writes[0]["value"]["a"][0]) is int


def test_jinja_syntax_and_profile():
    env = ps.Environment(syntax="jinja", profile="jinja2")
    assert (env.syntax, env.profile) == ("jinja", "jinja2")
    assert env.compile("{{ x | upper }} {{ [1, 'a'] }} {{ none }}").render(state={"x": "hi"}) == "HI [1, 'a'] None"
    with pytest.raises(ps.TemplateError) as info:
        ps.Environment(syntax="jinja").compile("{{ x -> upper }}")
    assert info.value.kind == "syntax_error"


def test_unknown_syntax_and_profile_are_value_errors():
    with pytest.raises(ValueError, match="syntax"):
        ps.Environment(syntax="mustache")
    with pytest.raises(ValueError, match="profile"):
        ps.Environment(profile="django")


def test_templates_render_from_many_threads():
    tpl = ps.Environment().compile("[% for i in range(n) %][[ i ]],[% endfor %]")
    expected = tpl.render(state={"n": 200})
    results = []

    def work():
        for _ in range(20):
            results.append(tpl.render(state={"n": 200}))

    threads = [threading.Thread(target=work) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert results == [expected] * 80


def test_state_history_follows_the_chat():
    tpl = ps.Environment().compile("[% set n = (n -> default(0)) + 1 %][[ n ]]")
    history = ps.StateHistory()
    for message in range(3):
        out = tpl.render_outcome(state=history.state_at(message), seed=0)
        history.record(message, out)
    assert history.state_at(3) == {"n": 3}
    # A new swipe of message 1 starts empty: its write is gone.
    assert history.swipe(1) == 1
    assert history.state_at(2) == {"n": 1}
    history.select(1, 0)
    assert history.state_at(2) == {"n": 2}
    history.delete(2)
    assert len(history) == 2
    history.truncate(1)
    restored = ps.StateHistory.from_json(history.to_json())
    assert restored.state_at(1) == {"n": 1}
    with pytest.raises(ps.TemplateError) as info:
        history.state_at(5)
    assert info.value.kind == "message_out_of_range"
    with pytest.raises(ps.TemplateError) as info:
        ps.StateHistory.from_json('{"messages": [1]}')
    assert info.value.kind == "invalid_history"
