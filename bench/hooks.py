"""What gitmem's hooks add to a person's whole `git commit` in a memory repository.

Three copies of one memory repository, committed to in turn:

- ``none``:      no hooks installed;
- ``framework``: gitmem's checks through the pre-commit framework
                 (templates/.pre-commit-config.yaml, ``gitmem hook all``) and the
                 plain commit-msg script: what `gitmem init` installed before;
- ``gitmem``:    what `gitmem init` installs now: its own light pre-commit and
                 commit-msg scripts (``python -I -m gitmem hook staged`` / ``msg``).

Scenarios: 1 and 10 new memory files; 10 files touching every check (8
memories, a Layer 2 update of CLAUDE.md, a small append to a bank file); a
commit with no memory file (README.md). Each timed commit is undone
(``git reset --hard HEAD~1``) so every run sees the same repository. The
figure that matters is gitmem minus none, a whole `git commit` with and
without the hooks: goal <= 150 ms.

Run from the project root, bytecode compiled as an install has it:
    env -u PYTHONDONTWRITEBYTECODE python -m compileall -q gitmem
    python bench/hooks.py [--runs 15] [--before CHECKOUT]
``--before`` adds a variant ``before``: the hooks `gitmem init` of another checkout
(an earlier commit, extracted with ``git archive``, its bytecode compiled) installs,
timed in the same run.
It needs git and pre-commit (>= 4.4) and imports gitmem from this checkout.
"""

from __future__ import annotations

import argparse
import os
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
TEMPLATES = ROOT / "templates"
VARIANTS = ("none", "framework", "gitmem")
CPU_MS: list[float] = []   # CPU time of the last timed commit (git and its hooks), appended by timed_commit


def memory_doc(i: int, stamp: int) -> str:
    """A memory of typical size (~1 KB) with front matter, nothing to strip."""
    body = " ".join(f"The build of service {i} needed the cache warmed before the integration tests ran;"
                    for _ in range(6))
    return (f"---\nid: m-2026-11-29-{stamp:03d}{i:03d}\ntype: fact\ndomain: project\ntier: short\n"
            f"band: active\nimportance: 0.7\ncreated: 2026-11-29T13:40:00Z\n"
            f"last_accessed: 2026-11-29T13:40:00Z\nreinforced: 0\nkeywords: [build, cache, tests]\n"
            f"source: session:5d1c#L{120 + i}\n---\n\n{body}\n")


def scenario_files(name: str, repo: Path, stamp: int) -> dict[str, str]:
    if name == "1 memory file":
        return {f"memory/project/m-{stamp}-0.md": memory_doc(0, stamp)}
    if name == "10 memory files":
        return {f"memory/project/m-{stamp}-{i}.md": memory_doc(i, stamp) for i in range(10)}
    if name == "10 files, every check":
        files = {f"memory/project/m-{stamp}-{i}.md": memory_doc(i, stamp) for i in range(8)}
        claude = (repo / "CLAUDE.md").read_text()
        files["CLAUDE.md"] = claude.replace("_No patterns yet.", f"- pattern-{stamp} (weight 0.5)\n_No patterns yet.")
        files["bank/MEMORY.md"] = (repo / "bank/MEMORY.md").read_text() + f"- lesson {stamp}\n"
        return files
    if name == "no memory file":
        return {"README.md": f"My memory, revision {stamp}.\n"}
    raise ValueError(name)


SCENARIOS = ("1 memory file", "10 memory files", "10 files, every check", "no memory file")


def environment(tmp: Path) -> dict[str, str]:
    """Isolated git and pre-commit, gitmem from this checkout, bytecode cached as an install has it."""
    home, bin_dir = tmp / "home", tmp / "bin"
    home.mkdir()
    bin_dir.mkdir()
    (home / ".gitconfig").write_text("[user]\n\tname = Bench\n\temail = bench@example.com\n")
    launcher = bin_dir / "gitmem"  # what pip's console script does
    launcher.write_text(f"#!{sys.executable}\nimport sys\nfrom gitmem.faces.cli import main\nsys.exit(main())\n")
    launcher.chmod(0o755)
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE" and not k.startswith("GITMEM_")}
    env.update(HOME=str(home), GIT_CONFIG_GLOBAL=str(home / ".gitconfig"), GIT_CONFIG_NOSYSTEM="1",
               PRE_COMMIT_HOME=str(tmp / "pre-commit"), PYTHONPYCACHEPREFIX=str(tmp / "pycache"),
               PYTHONPATH=str(ROOT),
               PATH=os.pathsep.join([str(bin_dir), os.path.dirname(sys.executable), os.environ["PATH"]]))
    return env


def sh(cwd: Path, env: dict[str, str], *args: str) -> None:
    subprocess.run(args, cwd=cwd, env=env, check=True, capture_output=True)


def make_repo(path: Path, env: dict[str, str], variant: str, before: str | None = None) -> None:
    path.mkdir()
    sh(path, env, "git", "init", "-q", "-b", "main")
    for name in ("CLAUDE.md", "gitmem.yaml"):
        shutil.copy(TEMPLATES / name, path / name)
    (path / "bank").mkdir()
    (path / "bank/MEMORY.md").write_text("# Memory\n\n" + "".join(f"- lesson {i}\n" for i in range(60)))
    (path / "memory/project").mkdir(parents=True)
    for i in range(50):
        (path / f"memory/project/m-old-{i}.md").write_text(memory_doc(i, 999))
    shutil.copy(TEMPLATES / ".pre-commit-config.yaml", path / ".pre-commit-config.yaml")
    sh(path, env, "git", "add", "-A")
    sh(path, env, "git", "commit", "-q", "-m", "init")
    if variant == "none":
        return
    if variant == "before":   # that checkout's install_git_hooks writes hooks that import that checkout
        code = (f"import sys; sys.path.insert(0, {os.path.abspath(str(before))!r}); from pathlib import Path\n"
                "try:\n    from gitmem.api.initrepo import install_git_hooks\n"
                "except ImportError:   # a checkout from before the module moved out of the engines\n"
                "    from gitmem.engines.initrepo import install_git_hooks\n"
                f"install_git_hooks(Path({str(path)!r}))")
        sh(Path(tempfile.gettempdir()), env, sys.executable, "-c", code)
        return
    from gitmem.api.initrepo import install_git_hooks

    install_git_hooks(path)   # the commit-msg script, and git config gitmem.python
    if variant == "framework":
        (path / ".git" / "hooks" / "pre-commit").unlink()
        sh(path, env, sys.executable, "-m", "pre_commit", "install")


def timed_commit(repo: Path, env: dict[str, str], files: dict[str, str]) -> float:
    for name, text in files.items():
        (repo / name).parent.mkdir(parents=True, exist_ok=True)
        (repo / name).write_text(text)
    sh(repo, env, "git", "add", "-A")
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    done = subprocess.run(["git", "commit", "-q", "-m", "bench"], cwd=repo, env=env, capture_output=True, text=True)
    elapsed = (time.perf_counter() - start) * 1000
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    CPU_MS.append((after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime) * 1000)
    if done.returncode != 0:
        raise SystemExit(f"commit failed in {repo.name}:\n{done.stdout}{done.stderr}")
    sh(repo, env, "git", "reset", "-q", "--hard", "HEAD~1")
    return elapsed


def sample_ms(env: dict[str, str], cwd: Path, commands: dict[str, list[str]], runs: int) -> dict[str, list[float]]:
    """Wall times of each command, the commands interleaved run by run."""
    times: dict[str, list[float]] = {name: [] for name in commands}
    for _ in range(runs):
        for name, args in commands.items():
            start = time.perf_counter()
            subprocess.run(args, cwd=cwd, env=env, capture_output=True)
            times[name].append((time.perf_counter() - start) * 1000)
    return times


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=15, help="timed commits per scenario and variant")
    parser.add_argument("--before", metavar="CHECKOUT", help="also time the hooks of this checkout, in the same run")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="gitmem-bench-") as tmp_name:
        tmp = Path(tmp_name)
        env = environment(tmp)
        repos = {v: tmp / v for v in VARIANTS + (("before",) if args.before else ())}
        for variant, path in repos.items():
            make_repo(path, env, variant, args.before)
        results: dict[tuple[str, str], list[float]] = {}
        cpu: dict[tuple[str, str], list[float]] = {}
        for scenario in SCENARIOS:
            for run in range(args.runs + 2):  # two warm-up runs: pycache, config cache
                for variant, path in repos.items():  # interleaved, so drift hits all alike
                    ms = timed_commit(path, env, scenario_files(scenario, path, run))
                    if run >= 2:
                        results.setdefault((scenario, variant), []).append(ms)
                        cpu.setdefault((scenario, variant), []).append(CPU_MS[-1])
        report_commits(results, args.runs)
        print("\nthe same commits in CPU time (git and its hooks; what a loaded machine does not inflate), median ms:\n")
        report_commits(cpu, args.runs)
        report_processes(env, repos["gitmem"], args.runs * 3)
    return 0


def report_commits(results: dict[tuple[str, str], list[float]], runs: int) -> None:
    # The median is the typical commit; the minimum estimates the work itself
    # when other processes share the machine (noise only ever adds time).
    med = {key: statistics.median(values) for key, values in results.items()}
    low = {key: min(values) for key, values in results.items()}
    print(f"git commit, {runs} interleaved runs (ms): median of each variant; added = minus none (median, min)\n")
    variants = list(dict.fromkeys(v for _, v in results))
    before = "before" in variants
    print(f"{'scenario':<24}" + "".join(f"{v:>10}" for v in variants)
          + f"{'framework+':>11}" + (f"{'before+':>9}" if before else "") + f"{'gitmem+':>9}{'min':>7}{'ratio':>7}   goal")
    for scenario in SCENARIOS:
        none = med[scenario, "none"]
        print(f"{scenario:<24}" + "".join(f"{med[scenario, v]:10.1f}" for v in variants)
              + f"{med[scenario, 'framework'] - none:+11.1f}"
              + (f"{med[scenario, 'before'] - none:+9.1f}" if before else "") + f"{med[scenario, 'gitmem'] - none:+9.1f}"
              + f"{low[scenario, 'gitmem'] - low[scenario, 'none']:+7.1f}"
              + f"{med[scenario, 'gitmem'] / none:7.1f}   <= +150")
    print("\nframework+ / gitmem+ = that variant's whole commit minus a hookless one; ratio = gitmem / none")


def report_processes(env: dict[str, str], repo: Path, runs: int) -> None:
    """The hook processes alone: what pre-commit runs in place of the no-op's `true`.

    The framework's own work is the same in both configs, so this is the added
    time without the framework's noise, and the import breakdown says where it goes.
    """
    py = sys.executable
    commands: dict[str, list[str]] = {
        "true (the no-op)": ["true"],
        "python -c pass": [py, "-c", "pass"],
        "import gitmem.faces.cli (package + cli)": [py, "-c", "import gitmem.faces.cli"],
        "  + gitmem.faces.githooks": [py, "-c", "import gitmem.faces.cli, gitmem.faces.githooks"],
        "  + gitmem.guards.pii": [py, "-c", "import gitmem.faces.cli, gitmem.faces.githooks, gitmem.guards.pii"],
        "  + first pii.scan (patterns compiled)":
            [py, "-c", "import gitmem.faces.cli, gitmem.faces.githooks, gitmem.guards.pii as p; p.scan('a')"],
        "pre-commit script (hook staged, all above staged)": [str(repo / ".git" / "hooks" / "pre-commit")],
    }
    # the commit-msg hook of a person's commit: the message scanned for secrets, no layer check
    message = repo / ".git" / "BENCH_MSG"
    message.write_text("update the memory\n\nA plain message with no trailer.\n")
    times = sample_ms(env, repo, {"gitmem hook msg (commit-msg, a person's message)":
                                  ["gitmem", "hook", "msg", str(message)]}, runs)
    staged: dict[str, dict[str, str]] = {}
    for scenario in ("1 memory file", "10 memory files", "10 files, every check"):
        staged[scenario] = scenario_files(scenario, repo, 900)
        commands[f"gitmem hook all: {scenario}"] = ["gitmem", "hook", "all", *staged[scenario]]
    for files in staged.values():
        for name, text in files.items():
            (repo / name).write_text(text)
    sh(repo, env, "git", "add", "-A")
    times = {**sample_ms(env, repo, commands, runs), **times}
    sh(repo, env, "git", "reset", "-q", "--hard", "HEAD")
    med = {name: statistics.median(values) for name, values in times.items()}
    low = {name: min(values) for name, values in times.items()}
    base, base_low = med["true (the no-op)"], low["true (the no-op)"]
    print(f"\nhook processes alone, {runs} interleaved runs (ms); added = minus `true`\n")
    print(f"{'':<46}{'median':>8}{'min':>8}{'added':>8}{'min':>8}")
    for name in times:
        print(f"{name:<46}{med[name]:8.1f}{low[name]:8.1f}{med[name] - base:+8.1f}{low[name] - base_low:+8.1f}")


if __name__ == "__main__":
    sys.exit(main())
