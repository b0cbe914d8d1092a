"""Rows per second of a batch built through Ray Data on a local cluster of 1
and 2 workers (bound to 127.0.0.1), beside the same rows through
``prompt_suite.batch`` in the process and ``prompt-suite batch``, on a light
prompt (a few microseconds a row) and a heavy one (a loop: over 100 us a
row). Ray's start is timed apart; every run's lines are checked equal to
the command line's.

    PROMPT_SUITE_CLI=target/release/prompt-suite python3 bindings/python/bench/bench_ray.py [ROWS]
"""

import os

# Read by Ray when it is imported: keep it on loopback.
os.environ.pop("RAY_ADDRESS", None)
os.environ["RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER"] = "0"
os.environ["RAY_USAGE_STATS_ENABLED"] = "0"

import json
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import prompt_suite as ps

ROWS = int(sys.argv[1]) if len(sys.argv) > 1 else 10_000
CLI = os.environ.get("PROMPT_SUITE_CLI", "prompt-suite")

LIGHT = "/// param: model=claude-sonnet-4-5, max_tokens=64\nYou are [[ bot ]].\n\n## user\n[[ question ]]\n"
HEAVY = (
    "/// param: model=claude-sonnet-4-5, max_tokens=64\nYou are [[ bot ]].\n"
    "[% for i in range(300) %][% if i % 7 == 3 %][[ i ]]:[[ question -> upper ]] [% endif %][% endfor %]\n\n"
    "## user\n[[ question ]]\n"
)


def rows():
    for i in range(ROWS):
        yield {"state": {"bot": f"Bot {i % 13}", "question": f"Question {i}?"}}


def cli_lines(prompt, jobs, folder):
    (folder / "p.txt").write_text(prompt)
    with open(folder / "rows.jsonl", "w") as out:
        for row in rows():
            out.write(json.dumps(row, separators=(",", ":")) + "\n")
    start = time.perf_counter()
    done = subprocess.run([CLI, "batch", str(folder / "p.txt"), "--rows", str(folder / "rows.jsonl"),
                           "--provider", "anthropic", "--seed", "1", "--jobs", str(jobs)],
                          capture_output=True, check=True)
    return time.perf_counter() - start, done.stdout.decode().splitlines()


def main():
    import ray
    from prompt_suite.ray import BuildRequests, from_rows

    start = time.perf_counter()
    ray.init(num_cpus=2, include_dashboard=False, _node_ip_address="127.0.0.1",
             _temp_dir=tempfile.mkdtemp(prefix="ray-"), log_to_driver=False, configure_logging=False)
    ray.data.DataContext.get_current().execution_options.preserve_order = True
    ray.data.DataContext.get_current().enable_progress_bars = False
    print(f"ray {ray.__version__}: start {time.perf_counter() - start:.2f} s; {ROWS} rows; {os.cpu_count()} CPUs")
    print(f"{'prompt':<6} {'how':<28} {'seconds':>8} {'rows/s':>10}")
    with tempfile.TemporaryDirectory() as tmp:
        for name, prompt in [("light", LIGHT), ("heavy", HEAVY)]:
            for jobs in (1, 2):
                seconds, expected = cli_lines(prompt, jobs, Path(tmp))
                print(f"{name:<6} {f'prompt-suite batch --jobs {jobs}':<28} {seconds:>8.2f} {ROWS / seconds:>10.0f}")
            for jobs in (1, 2):
                start = time.perf_counter()
                got = list(ps.batch(prompt, rows(), provider="anthropic", seed=1, jobs=jobs, text=True))
                seconds = time.perf_counter() - start
                assert got == expected
                print(f"{name:<6} {f'prompt_suite.batch jobs={jobs}':<28} {seconds:>8.2f} {ROWS / seconds:>10.0f}")
            for workers in (1, 2):
                start = time.perf_counter()
                built = from_rows(rows(), rows_per_block=ROWS // 8).map_batches(
                    BuildRequests, fn_constructor_kwargs=dict(prompt=prompt, provider="anthropic", seed=1),
                    concurrency=workers, num_cpus=1, batch_size=ROWS // 8, batch_format="pyarrow")
                got = [row["line"] for row in built.iter_rows()]
                seconds = time.perf_counter() - start
                assert got == expected
                print(f"{name:<6} {f'ray map_batches, {workers} worker(s)':<28} {seconds:>8.2f} {ROWS / seconds:>10.0f}")
    ray.shutdown()


if __name__ == "__main__":
    main()
