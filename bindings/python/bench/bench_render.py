"""Renders per second from Python: prompt_suite against jinja2 3.1 and
minijinja (minijinja-py) from the package index, on the bracket benches of
benches/inputs/minijinja-brackets (the same templates in each engine's
spelling, with the same delimiters), in one process; then prompt_suite on
1 and 4 threads (rendering releases the GIL).

    python3 -m pip install jinja2==3.1.* minijinja ./bindings/python
    python3 bindings/python/bench/bench_render.py [SECONDS]
"""

import json
import sys
import threading
import time
from pathlib import Path

import prompt_suite as ps

ROOT = Path(__file__).resolve().parents[3]
INPUTS = ROOT / "benches" / "inputs" / "minijinja-brackets"
SECONDS = float(sys.argv[1]) if len(sys.argv) > 1 else 2.0
DELIMITERS = dict(
    block_start_string="[%", block_end_string="%]",
    variable_start_string="[[", variable_end_string="]]",
    comment_start_string="[#", comment_end_string="#]",
)


def rate(render):
    """Renders per second over SECONDS (after one warm-up render)."""
    render()
    count, start = 0, time.perf_counter()
    while True:
        for _ in range(10):
            render()
        count += 10
        elapsed = time.perf_counter() - start
        if elapsed >= SECONDS:
            return count / elapsed


def threaded_rate(render, threads):
    """Renders per second of `threads` threads rendering at once."""
    counts = [0] * threads
    stop = threading.Event()

    def work(i):
        while not stop.is_set():
            render()
            counts[i] += 1

    workers = [threading.Thread(target=work, args=(i,)) for i in range(threads)]
    start = time.perf_counter()
    for w in workers:
        w.start()
    time.sleep(SECONDS)
    stop.set()
    for w in workers:
        w.join()
    return sum(counts) / (time.perf_counter() - start)


def main():
    state = json.loads((INPUTS / "context.json").read_text())["state"]
    cases = {"preset": (INPUTS / "preset.txt").read_text()}
    prose = (INPUTS / "prose.txt").read_text()
    cases["text-64k"] = (prose * (65536 // len(prose) + 1))[:65536]
    engines = {}
    try:
        import jinja2
        engines["jinja2 " + jinja2.__version__] = lambda src: (
            lambda t: lambda: t.render(**state))(jinja2.Environment(keep_trailing_newline=True, **DELIMITERS)
                                                  .from_string(src.replace("->", "|")))
    except ImportError:
        print("jinja2 not installed: skipped")
    try:
        import minijinja
        version = getattr(minijinja, "__version__", "")
        def mj(src):
            env = minijinja.Environment(keep_trailing_newline=True, **DELIMITERS)
            env.add_template("t", src.replace("->", "|"))
            return lambda: env.render_template("t", **state)
        engines[f"minijinja-py {version}".strip()] = mj
    except ImportError:
        print("minijinja not installed: skipped")
    ours = ps.Environment()
    print(f"{'case':<10} {'engine':<22} {'renders/s':>12} {'vs ours':>8}  output")
    for name, source in cases.items():
        template = ours.compile(source)
        expected = template.render(state=state, seed=0)
        our_rate = rate(lambda: template.render(state=state, seed=0))
        print(f"{name:<10} {'prompt_suite':<22} {our_rate:>12.0f} {1.0:>8.2f}  reference")
        for engine, make in engines.items():
            try:
                render = make(source)
                same = "same" if render() == expected else "DIFFERS"
                r = rate(render)
                print(f"{name:<10} {engine:<22} {r:>12.0f} {r / our_rate:>8.2f}  {same}")
            except Exception as err:  # an engine that cannot take the template
                print(f"{name:<10} {engine:<22} {'-':>12} {'-':>8}  {type(err).__name__}: {err}")
    template = ours.compile(cases["preset"])
    one = threaded_rate(lambda: template.render(state=state, seed=0), 1)
    four = threaded_rate(lambda: template.render(state=state, seed=0), 4)
    print(f"threads: 1 -> {one:.0f} renders/s, 4 -> {four:.0f} renders/s ({four / one:.2f}x)")


if __name__ == "__main__":
    main()
