"""The drift check at commit time: a real `git commit` through the installed hooks."""

from __future__ import annotations

from pathlib import Path

from tests.test_githooks import commit, env, git, memrepo, needs_pre_commit, output, write  # noqa: F401  fixtures

RULES = "".join(f"- Rule {i}: always check the {w} before deploying the service.\n"
                for i, w in enumerate(["tests", "logs", "metrics", "alerts", "backups", "runbook"]))


def with_rules(root: Path, env: dict[str, str], rules: str) -> None:
    text = (root / "CLAUDE.md").read_text()
    start = text.index("<!-- gitmem:layer 1 core -->\n") + len("<!-- gitmem:layer 1 core -->\n")
    end = text.index("<!-- /gitmem:layer -->", start)
    write(root, "CLAUDE.md", text[:start] + rules + text[end:])


@needs_pre_commit
def test_a_commit_drifting_far_from_the_snapshot_is_refused(memrepo: Path, env: dict[str, str]) -> None:  # noqa: F811
    with_rules(memrepo, env, RULES)
    assert commit(memrepo, env, "my rules", {"GITMEM_ALLOW_GROWTH": "1"}).returncode == 0
    git(memrepo, env, "tag", "-a", "gitmem/snapshot/2026-11", "-m", "snapshot")
    with_rules(memrepo, env, RULES.replace("the logs", "the error logs"))
    assert commit(memrepo, env, "a small edit").returncode == 0
    with_rules(memrepo, env, "- Bake sourdough at 250 degrees.\n- Feed the rye starter twice daily.\n"
                             "- Knead gently and rest the dough overnight.\n- Buy flour on mondays.\n"
                             "- Clean the oven monthly.\n- Share loaves with neighbours.\n")
    done = commit(memrepo, env, "a new life")
    assert done.returncode != 0
    text = output(done)
    assert "gitmem-drift: CLAUDE.md: Layers 1+2 have cosine" in text and "gitmem check drift --pin" in text


@needs_pre_commit
def test_no_baseline_means_no_drift_failure(memrepo: Path, env: dict[str, str]) -> None:  # noqa: F811
    with_rules(memrepo, env, "- Bake sourdough at 250 degrees.\n")
    assert commit(memrepo, env, "anything goes before a baseline").returncode == 0, "no snapshot, no pin"


@needs_pre_commit
def test_a_pinned_baseline_is_what_the_hook_compares_with(memrepo: Path, env: dict[str, str]) -> None:  # noqa: F811
    with_rules(memrepo, env, RULES)
    assert commit(memrepo, env, "my rules", {"GITMEM_ALLOW_GROWTH": "1"}).returncode == 0
    pinned = git(memrepo, env, "rev-parse", "HEAD").strip()
    write(memrepo, ".gitmem/state.yaml", f"format: 1\ndrift_baseline: {pinned}  # pinned\n")
    assert commit(memrepo, env, "pin the baseline").returncode == 0
    with_rules(memrepo, env, "- Bake sourdough at 250 degrees.\n- Feed the rye starter twice daily.\n")
    done = commit(memrepo, env, "drift away")
    assert done.returncode != 0 and "to the pinned baseline" in output(done)
