"""prompt_suite.ray on a local Ray of two workers, on loopback only.

Runs when PROMPT_SUITE_RAY_TESTS=1 (`cargo xtask test` installs Ray and
sets it; `PROMPT_SUITE_RAY=0` leaves it out); skipped, visibly, otherwise.
Ray binds the machine's other address unless told: it reads
RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER when it is imported, and with it off it
keeps `_node_ip_address="127.0.0.1"` (with it on, Ray 2.60 replaces that
address by the machine's and binds every interface). So it is set below,
before Ray is imported, and checked; the test fails if any process of the
tree listens or connects beyond loopback.
"""

import os

os.environ.pop("RAY_ADDRESS", None)
os.environ["RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER"] = "0"
os.environ["RAY_USAGE_STATS_ENABLED"] = "0"

import json
import signal
import socket
import struct
from pathlib import Path

import pytest

import prompt_suite as ps

pytestmark = pytest.mark.skipif(
    os.environ.get("PROMPT_SUITE_RAY_TESTS") != "1",
    reason="Ray tests need PROMPT_SUITE_RAY_TESTS=1 (PROMPT_SUITE_RAY=1 cargo xtask test)",
)

ROWS = 100_000
TIME_LIMIT = 900  # seconds: a hang fails the test instead of the run

PROMPT = """/// param: model=claude-sonnet-4-5, max_tokens=64
You are [[ bot ]]. [% chance 0.5 %]Be brief.[% endchance %]

## user
[[ question ]]
"""


def rows():
    for i in range(ROWS):
        if i % 1000 == 7:
            yield {"state": "typo"}  # an error row (a store that is not an object), kept as its record
        else:
            yield {"state": {"bot": f"Bot {i % 13}", "question": f"Question {i}?"}}


def children(pid):
    """Every process below `pid`, from /proc."""
    parents = {}
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                stat = (entry / "stat").read_text()
            except OSError:
                continue
            parents.setdefault(int(stat.rsplit(")", 1)[1].split()[1]), []).append(int(entry.name))
    found, todo = [], [pid]
    while todo:
        for child in parents.get(todo.pop(), []):
            found.append(child)
            todo.append(child)
    return found


def inet_sockets():
    """inode -> (local address, remote address) of every TCP and UDP socket."""
    table = {}
    for name, family in [("tcp", socket.AF_INET), ("tcp6", socket.AF_INET6), ("udp", socket.AF_INET), ("udp6", socket.AF_INET6)]:
        try:
            lines = Path(f"/proc/net/{name}").read_text().splitlines()[1:]
        except OSError:
            continue
        for line in lines:
            fields = line.split()
            table[fields[9]] = (decode(fields[1], family), decode(fields[2], family))
    return table


def decode(address, family):
    host, port = address.split(":")
    raw = bytes.fromhex(host)
    if family == socket.AF_INET:
        ip = socket.inet_ntop(family, struct.pack("<I", int(host, 16)))
    else:
        ip = socket.inet_ntop(family, b"".join(struct.pack("<I", word) for word in struct.unpack(">4I", raw)))
    return ip, int(port, 16)


def off_loopback(pids):
    """The sockets of `pids` bound or connected beyond loopback."""
    table = inet_sockets()
    loopback = {"127.0.0.1", "::1", "::ffff:127.0.0.1"}
    unbound = {"0.0.0.0", "::"}
    bad = []
    for pid in pids:
        try:
            fds = list(Path(f"/proc/{pid}/fd").iterdir())
        except OSError:
            continue
        for fd in fds:
            try:
                target = os.readlink(fd)
            except OSError:
                continue
            if not target.startswith("socket:["):
                continue
            inode = target[8:-1]
            if inode not in table:
                continue  # a Unix socket
            (local, _), (remote, remote_port) = table[inode]
            if local not in loopback or (remote not in loopback and not (remote in unbound and remote_port == 0)):
                bad.append((pid, table[inode]))
    return bad


@pytest.fixture(scope="module")
def local_ray(tmp_path_factory):
    ray = pytest.importorskip("ray")
    from ray._private import ray_constants

    # Read when Ray was imported: true here means Ray was imported before
    # this module set it, and would bind beyond loopback.
    assert not ray_constants.ENABLE_RAY_CLUSTER, "Ray was imported before RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER=0"
    temp = tmp_path_factory.mktemp("ray")
    ray.init(
        num_cpus=2,
        include_dashboard=False,
        _node_ip_address="127.0.0.1",
        _temp_dir=str(temp),
        log_to_driver=False,
        configure_logging=False,
    )
    ray.data.DataContext.get_current().execution_options.preserve_order = True
    yield ray
    ray.shutdown()


def test_ray_output_equals_the_cli_on_loopback(local_ray, cli, tmp_path):
    from prompt_suite.ray import BuildRequests, from_rows, write_batch_files

    def timeout(signum, frame):
        raise TimeoutError(f"the Ray run took more than {TIME_LIMIT} s")

    signal.signal(signal.SIGALRM, timeout)
    signal.alarm(TIME_LIMIT)
    try:
        built = from_rows(rows(), rows_per_block=5_000).map_batches(
            BuildRequests,
            fn_constructor_kwargs=dict(prompt=PROMPT, provider="anthropic", format="anthropic-batch", seed=42),
            concurrency=2,
            num_cpus=1,
            batch_size=5_000,
            batch_format="pyarrow",
        )
        summary = write_batch_files(built, str(tmp_path / "ray"), format="anthropic-batch", max_requests=40_000)
        bad = off_loopback(children(os.getpid()) + [os.getpid()])
    finally:
        signal.alarm(0)
    assert not bad, f"sockets beyond loopback: {bad}"
    assert summary["errors"] == ROWS // 1000
    assert summary["requests"] == ROWS - ROWS // 1000
    assert len(summary["files"]) == 3

    (tmp_path / "p.txt").write_text(PROMPT)
    with open(tmp_path / "rows.jsonl", "w") as out:
        for row in rows():
            out.write(json.dumps(row, ensure_ascii=False, separators=(",", ":")) + "\n")
    done = cli("batch", str(tmp_path / "p.txt"), "--rows", str(tmp_path / "rows.jsonl"), "--provider", "anthropic",
               "--format", "anthropic-batch", "--seed", "42", "--errors", str(tmp_path / "errors.jsonl"),
               "-o", str(tmp_path / "cli.json"))
    assert done.returncode in (0, 1), done.stderr.decode()
    expected = json.loads((tmp_path / "cli.json").read_text())["requests"]
    got = [request for name in summary["files"] for request in json.loads(Path(name).read_text())["requests"]]
    assert got == expected
    assert (tmp_path / "ray" / "errors.jsonl").read_text() == (tmp_path / "errors.jsonl").read_text()
