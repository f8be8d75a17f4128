"""The whole sedimentation loop on a real memory repository: from harvested sessions to an accepted promotion,
through the CLI, the Python API and the MCP server; and the events it leaves in ``gitmem log --events``."""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path
from typing import Any

import pytest

from gitmem.api import MemoryRepo
from tests.agent_helpers import configure_folders
from tests.conftest import ROOT, run_cli
from tests.sediment_helpers import at, reflect, state

SESSIONS = ROOT / "tests" / "fixtures" / "sessions" / "sediment"


def test_harvested_sessions_become_an_accepted_promotion(repo: MemoryRepo) -> None:
    found = repo.sediment_reflect_sessions([SESSIONS / "fixed_failure.jsonl", SESSIONS / "decision_only.jsonl"],
                                           now=at(0))
    by_file = {Path(f.path).name: f for f in found}
    fixed, decided = by_file["fixed_failure.jsonl"], by_file["decision_only.jsonl"]
    assert fixed.likes == 1 and decided.likes == 0          # "Keep this for later." is the person's like
    assert fixed.reflected and fixed.reflected.outcome == "written"
    r = fixed.reflected.reflection
    assert r is not None
    assert r.kind == "error_fix" and r.loop and r.source.startswith("session:")
    assert decided.reflected and decided.reflected.reflection
    assert decided.reflected.reflection.kind == "preference"
    again = repo.sediment_reflect_sessions([SESSIONS / "fixed_failure.jsonl"], now=at(1))
    assert all(f.reflected is None or f.reflected.outcome == "skipped" for f in again)   # one per loop
    rows = {x.id: (x, p) for x, p, _ in repo.sediment_status(at(2)).reflections}
    assert rows[r.id][0].likes == 1 and rows[r.id][1] == 18   # 4 x 2 + 1 like x 10
    [distilled] = repo.sediment_distill(r.id, now=at(3))
    assert distilled.target == "bank/TABOOS.md"
    proposed = repo.sediment_promote(now=at(4))
    assert [p.id for p in proposed] == [r.id]                # the decision (3 x 1.0) waits
    branch = proposed[0].branch
    assert branch
    repo.review_accept(branch, i_am_the_reviewer=True, now=at(5))
    taboos = (Path(repo.root) / "bank" / "TABOOS.md").read_text()
    assert f"({r.id}, 2026-12-01, promoted)" in taboos and taboos.count(r.id) == 1   # the distilled line became the rule
    assert f"{r.id}" in (Path(repo.root) / "bank" / "promotions.md").read_text()
    assert state(repo).approve_streak == 1
    kinds = {e["event_type"] for e in repo.events()}
    assert {"sedimentation.reflect", "sedimentation.distill", "sedimentation.promote"} <= kinds


def test_the_cli_drives_the_loop_with_json(repo: MemoryRepo, capsys: pytest.CaptureFixture[str]) -> None:
    base = ["--repo", str(repo.root)]
    code, out, _ = run_cli(["sediment", "reflect", *base, "--topic", "pinned clock", "--context", "CI flaked",
                            "--approach", "passed --now", "--result", "good", "--score", "5", "--reusable",
                            "pass fixed times to tests", "--kind", "error_fix", "--repeat", "--tag", "testing",
                            "--now", "2026-12-01T10:00:00Z", "--json"], capsys)
    assert code == 0
    rid = json.loads(out)["reflection"]["id"]
    code, out, _ = run_cli(["sediment", "status", *base, "--now", "2026-12-01T10:01:00Z", "--json"], capsys)
    assert code == 0 and json.loads(out)["threshold"] == 15 and json.loads(out)["reflections"][0]["priority"] == 15
    code, out, _ = run_cli(["sediment", "like", rid, *base, "--now", "2026-12-01T10:02:00Z", "--json"], capsys)
    assert code == 0 and json.loads(out)["likes"] == 1
    code, out, _ = run_cli(["sediment", "distill", *base, "--now", "2026-12-01T10:03:00Z", "--json"], capsys)
    assert code == 0 and json.loads(out)[0]["target"] == "bank/TABOOS.md"
    code, out, _ = run_cli(["sediment", "promote", *base, "--now", "2026-12-01T10:04:00Z", "--json"], capsys)
    assert code == 0 and json.loads(out)[0]["branch"] == f"gitmem/review/sediment-{rid}"
    code, out, _ = run_cli(["sediment", "threshold", *base, "--set", "18", "--now", "2026-12-01T10:05:00Z",
                            "--json"], capsys)
    assert code == 0 and json.loads(out) == {"success": True, "old": 15.0, "new": 18.0, "commit": json.loads(out)["commit"],
                                             "threshold": 18.0}
    code, out, _ = run_cli(["sediment", "threshold", *base, "--now", "2026-12-01T10:05:30Z", "--json"], capsys)
    assert code == 0 and json.loads(out)["locked_until"] == "2026-12-01T10:06:00Z"
    code, out, err = run_cli(["sediment", "clear", *base, "--now", "2026-12-01T10:06:00Z"], capsys)
    assert code != 0 and "--confirm" in err
    code, out, _ = run_cli(["sediment", "clear", *base, "--confirm", "--now", "2026-12-01T10:07:00Z", "--json"], capsys)
    assert code == 0 and json.loads(out)["reflections"] == 1
    code, out, _ = run_cli(["log", "--events", *base, "--json"], capsys)
    kinds = {e["event_type"] for e in json.loads(out)}
    assert {"sedimentation.reflect", "sedimentation.distill", "sedimentation.promote",
            "sedimentation.threshold_update", "sedimentation.experience_cleared"} <= kinds
    promote = next(e for e in json.loads(out) if e["event_type"] == "sedimentation.promote" and e.get("promotion"))
    assert promote["promotion"]["trigger"] == "priority_threshold" and promote["guard"]["path_check_passed"] is True
    assert set(promote["performance"]) == {"duration_ms", "bytes_written"} and promote["audit"]["operator"] == "user"


def test_review_reopen_from_the_cli(repo: MemoryRepo, capsys: pytest.CaptureFixture[str]) -> None:
    reflect(repo, 1, kind="process", skill="new_skill")
    rid = repo.sediment_status(at(1)).reflections[0][0].id
    [p] = repo.sediment_promote(rid, operator="user", now=at(2))
    assert p.branch
    code, out, _ = run_cli(["review", "show", p.branch, "--repo", str(repo.root)], capsys)
    assert code == 0 and "human veto: adds a capability" in out
    repo.sediment_expire(at(30))
    code, out, _ = run_cli(["review", "reopen", p.branch, "--repo", str(repo.root), "--now", "2026-12-01T10:31:00Z"],
                           capsys)
    assert code == 0 and "reopened" in out and [r.name for r in repo.reviews()] == [p.branch]


mcp = pytest.mark.skipif(importlib.util.find_spec("mcp") is None, reason="the MCP SDK is not installed")


@mcp
def test_the_mcp_tools_reflect_like_and_read(repo_dir: Path) -> None:
    import anyio
    from mcp import Client

    from gitmem.faces.mcp_server import build_server

    async def main() -> list[Any]:
        async with Client(build_server(repo_dir)) as c:
            made = await c.call_tool("sediment_reflect", {
                "topic": "pinned clock", "context": "CI flaked", "approach": "passed --now", "result": "good",
                "score": 4, "reusable": "pass fixed times to tests", "kind": "error_fix", "tags": ["testing"]})
            rid = made.structured_content["reflection"]["id"]
            liked = await c.call_tool("sediment_like", {"entry_id": rid})
            status = await c.call_tool("sediment_status", {})
            threshold = await c.call_tool("sediment_threshold", {})
            extra = await c.call_tool("sediment_like", {"entry_id": rid, "operator": "agent"})
            bad = await c.call_tool("sediment_reflect", {
                "topic": "x", "context": "y", "approach": "z", "result": "great", "score": 9, "reusable": "w",
                "kind": "error_fix"})
            return [made, liked, status, threshold, extra, bad]
    made, liked, status, threshold, extra, bad = anyio.run(main)
    assert made.structured_content["outcome"] == "written"
    assert liked.structured_content["likes"] == 1
    assert status.structured_content["threshold"] == 15 and status.structured_content["reflections"][0]["priority"] == 18
    assert threshold.structured_content["threshold"] == 15
    assert extra.is_error and "operator" in extra.content[0].text        # an unknown argument is refused
    assert bad.is_error
    assert MemoryRepo.open(repo_dir).sediment_status(at(0)).reflections[0][0].likes == 1


@mcp
def test_the_mcp_sediment_tools_declare_their_parameters(repo_dir: Path) -> None:
    import anyio
    from mcp import Client

    from gitmem.faces.mcp_server import build_server

    async def main() -> Any:
        async with Client(build_server(repo_dir)) as c:
            return {t.name: t for t in (await c.list_tools()).tools}
    tools = anyio.run(main)
    reflect_tool = tools["sediment_reflect"].input_schema
    assert reflect_tool["properties"]["kind"]["enum"] == ["error_fix", "process", "preference", "routine"]
    assert reflect_tool["properties"]["result"]["enum"] == ["good", "bad", "neutral"]
    assert all(p.get("description") for p in reflect_tool["properties"].values())
    assert tools["sediment_status"].annotations.read_only_hint is True
    assert tools["sediment_like"].annotations.read_only_hint is False
    assert not any("accept" in name or "promote" in name for name in tools)   # a person decides promotions


def test_the_harvest_job_proposes_a_reflection_from_a_session_that_fixed_a_failure(repo: MemoryRepo,
                                                                                   tmp_path: Path) -> None:
    folder = tmp_path / "sessions"
    folder.mkdir()
    (folder / "fixed_failure.jsonl").write_bytes((SESSIONS / "fixed_failure.jsonl").read_bytes())
    repo = _reopened(repo, folder)
    run = repo.run_job("harvest", now=at(0))
    assert run.ok, run.summary
    proposed = run.details["reflections"]
    assert isinstance(proposed, list) and len(proposed) == 1
    rid = proposed[0]
    assert "reflection(s) proposed for sedimentation" in run.summary
    [(row, _, _)] = repo.sediment_status(at(1)).reflections
    assert row.id == rid and row.kind == "error_fix" and row.likes == 1   # the transcript's "keep this for later"
    again = repo.run_job("harvest", now=at(2))                             # nothing new: nothing proposed twice
    assert "reflections" not in again.details and len(repo.sediment_status(at(3)).reflections) == 1


def test_any_job_run_rejects_an_overdue_marked_promotion_by_default(repo: MemoryRepo) -> None:
    reflect(repo, 1, kind="process", skill="new_skill")                # a new skill: a capability, marked
    rid = repo.sediment_status(at(1)).reflections[0][0].id
    [p] = repo.sediment_promote(rid, operator="user", now=at(2))
    assert p.branch and [r.name for r in repo.reviews()] == [p.branch]
    early = repo.run_job("weights", now=at(5))                         # within veto_timeout_minutes (10)
    assert "expired" not in early.details and [r.name for r in repo.reviews()] == [p.branch]
    late = repo.run_job("weights", now=at(20))
    assert late.details["expired"] == [p.branch]
    assert repo.reviews() == [] and repo.git.refs("refs/gitmem/rejected/" + p.branch)
    assert state(repo).veto_streak == 0                                # a default rejection is no person's veto


def _reopened(repo: MemoryRepo, folder: Path) -> MemoryRepo:
    """``repo`` reopened with ``folder`` as its session folder."""
    configure_folders(repo.root, [folder])
    return MemoryRepo.open(repo.root)
