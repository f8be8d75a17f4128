"""Tests for gitmem.faces.verbs_recall: recall, index, decay, link, graph, why, consolidate, reflect,
load-core, sync-core, session and harvest run in process."""

from __future__ import annotations

import io
import json
import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import NOW, run_cli

SESSIONS = Path(__file__).parent / "fixtures" / "sessions"
LATER = "2028-06-01T00:00:00Z"
RECORD_KEYS = {"id", "score", "relevance", "content", "type", "domain", "importance", "tier", "band", "path",
               "source_id", "via"}
STEP_KEYS = {"commit", "time", "event", "subject", "author", "trailers"}
PR_TEXTS = ("I prefer small pull requests with one concern each.",
            "Keep pull requests small, one concern per pull request.",
            "Small pull requests with a single concern are preferred.",
            "Please keep each pull request small and focused on one concern.")


def base(repo_dir: Path, now: str = NOW) -> list[str]:
    return ["--repo", str(repo_dir), "--now", now]


def git(repo_dir: Path, *args: str) -> str:
    return subprocess.run(["git", *args], cwd=repo_dir, capture_output=True, text=True, check=True).stdout


def head(repo_dir: Path) -> str:
    return git(repo_dir, "rev-parse", "HEAD").strip()


def one_error(err: str, hint: bool) -> str:
    """The single ``gitmem: error:`` line of ``err``; checks there is a hint line when one is expected."""
    errors = [line for line in err.splitlines() if "error:" in line]
    assert len(errors) == 1, err
    assert any(line.startswith("hint: ") for line in err.splitlines()) == hint, err
    return errors[0]


def remember(repo_dir: Path, capsys: pytest.CaptureFixture[str], text: str, *extra: str) -> None:
    assert run_cli([*base(repo_dir), "remember", text, *extra], capsys)[0] == 0


def run_json(args: list[str], capsys: pytest.CaptureFixture[str]) -> Any:
    code, out, _ = run_cli([*args, "--json"], capsys)
    assert code == 0
    return json.loads(out)


@pytest.fixture
def filled(repo_dir: Path, capsys: pytest.CaptureFixture[str]) -> Path:
    """A repository with two linked project facts and one user preference."""
    remember(repo_dir, capsys, "Alice owns the billing service.", "--id", "alice", "--type", "fact", "--domain", "project")
    remember(repo_dir, capsys, "Deploys happen on Tuesday after standup.", "--id", "deploys", "--type", "fact",
             "--domain", "project")
    remember(repo_dir, capsys, "I prefer pytest over unittest for billing tests.", "--id", "pytest", "--type",
             "preference", "--domain", "user")
    assert run_cli([*base(repo_dir), "link", "alice", "deploys"], capsys)[0] == 0
    return repo_dir


# --------------------------------------------------------------------------- recall

def test_recall_human_output_two_lines_per_hit(filled: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = run_cli([*base(filled), "recall", "who owns billing"], capsys)
    lines = out.splitlines()
    assert code == 0 and err == "" and len(lines) % 2 == 0 and lines
    first = lines[0].split("\t")
    assert first[0] == "alice" and float(first[1]) > 0 and first[2:5] == ["fact/project", "0.70", "short/core"]
    assert first[5].startswith("memory/project/") and first[5].endswith("alice.md")
    assert lines[1] == "    Alice owns the billing service."


def test_recall_json_records(filled: Path, capsys: pytest.CaptureFixture[str]) -> None:
    found = run_json([*base(filled), "recall", "billing"], capsys)
    assert found and all(set(r) == RECORD_KEYS for r in found)
    assert {r["id"] for r in found} == {"alice", "pytest"}
    scores = [r["score"] for r in found]
    assert scores == sorted(scores, reverse=True)


def test_recall_k_type_and_domain(filled: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert len(run_json([*base(filled), "recall", "billing", "-k", "1"], capsys)) == 1
    only = run_json([*base(filled), "recall", "billing", "--type", "preference"], capsys)
    assert [r["id"] for r in only] == ["pytest"]
    project = run_json([*base(filled), "recall", "billing", "--domain", "project"], capsys)
    assert [r["id"] for r in project] == ["alice"]


def test_recall_expand_follows_links(filled: Path, capsys: pytest.CaptureFixture[str]) -> None:
    found = run_json([*base(filled), "recall", "who owns billing", "--expand", "--domain", "project"], capsys)
    assert [(r["id"], r["via"]) for r in found] == [("alice", None), ("deploys", "linked from alice")]
    code, out, _ = run_cli([*base(filled), "recall", "who owns billing", "--expand", "--domain", "project"], capsys)
    assert "(linked from alice)" in out


def test_recall_no_match_says_what_was_not_searched(filled: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = run_cli([*base(filled), "recall", "zebra"], capsys)
    assert (code, out) == (0, "")
    assert err == "no memory matches (archived and background memories were not searched: add --all)\n"
    code, out, err = run_cli([*base(filled), "recall", "zebra", "--all"], capsys)
    assert (code, out, err) == (0, "", "no memory matches\n")
    assert run_json([*base(filled), "recall", "zebra"], capsys) == []


def test_recall_archived_only_with_all_or_the_archive_tier(filled: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert run_cli([*base(filled), "forget", "alice"], capsys)[0] == 0
    assert "alice" not in {r["id"] for r in run_json([*base(filled), "recall", "billing"], capsys)}
    everything = run_json([*base(filled), "recall", "billing", "--all"], capsys)
    assert {r["id"]: r["tier"] for r in everything}["alice"] == "archive"
    archived = run_json([*base(filled), "recall", "billing", "--tier", "archive"], capsys)
    assert [r["id"] for r in archived] == ["alice"]


def test_recall_archive_tier_finds_what_decay_archived(filled: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert run_cli([*base(filled, LATER), "decay"], capsys)[0] == 0
    everything = run_json([*base(filled, LATER), "recall", "billing", "--all"], capsys)
    assert {r["id"] for r in everything if r["tier"] == "archive"} == {"alice", "pytest"}
    archived = run_json([*base(filled, LATER), "recall", "billing", "--tier", "archive"], capsys)
    assert {r["id"] for r in archived} == {"alice", "pytest"}


def test_the_cli_and_the_api_read_recall_filters_the_one_way(filled: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """The CLI builds its filters with api.recall.filters, as MemoryRepo.recall (and the MCP tool) does:
    the same flags give the same memories."""
    from gitmem.api import MemoryRepo
    from gitmem.api.recall import filters
    from gitmem.base.clock import parse_time
    from gitmem.base.errors import UsageError

    assert run_cli([*base(filled, LATER), "decay"], capsys)[0] == 0   # archives alice and pytest (see above)
    repo = MemoryRepo.open(filled)
    at = head(filled)   # recalled at a commit: no access is logged, so no call changes the next one's scores
    for flags, kwargs in ((["--tier", "archive"], {"tier": "archive"}), (["--band", "fading"], {"band": "fading"}),
                          (["--all"], {"include_archive": True, "include_background": True}), ([], {})):
        cli = run_json([*base(filled, LATER), "recall", "billing", "--at", at, "--all-projects", *flags], capsys)
        api = repo.recall("billing", at=at, now=parse_time(LATER), **kwargs)
        assert [r["id"] for r in cli] == [r.id for r in api], flags
    archive = filters(tier="archive")
    assert archive.include_archive and archive.include_background   # archived memories have faded: both searched
    fading = filters(band="fading")
    assert fading.include_background and not fading.include_archive
    with pytest.raises(UsageError, match="type"):
        filters(type="nope")


def test_recall_at_a_tag(filled: Path, capsys: pytest.CaptureFixture[str]) -> None:
    git(filled, "tag", "before")
    remember(filled, capsys, "Billing invoices are sent on the first of the month.", "--id", "invoices")
    now = {r["id"] for r in run_json([*base(filled), "recall", "billing invoices"], capsys)}
    then = {r["id"] for r in run_json([*base(filled), "recall", "billing invoices", "--at", "before"], capsys)}
    assert "invoices" in now and "invoices" not in then and then


def test_recall_batch_prints_one_json_line_per_query(filled: Path, capsys: pytest.CaptureFixture[str],
                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr("sys.stdin", io.StringIO("billing\n\n  \ndeploys tuesday\nzebra\n"))
    code, out, _ = run_cli([*base(filled), "recall", "--batch", "-k", "1"], capsys)
    lines = [json.loads(line) for line in out.splitlines()]
    assert code == 0 and [line["query"] for line in lines] == ["billing", "deploys tuesday", "zebra"]
    assert len(lines[0]["results"]) == 1 and lines[1]["results"][0]["id"] == "deploys"
    assert lines[2]["results"] == []


def test_recall_bad_inputs(filled: Path, capsys: pytest.CaptureFixture[str]) -> None:
    for k in ("0", "1001", "-3"):
        code, out, err = run_cli([*base(filled), "recall", "billing", "-k", k], capsys)
        assert code == 2 and out == "" and one_error(err, hint=False) == "gitmem: error: -k must be between 1 and 1000"
    code, _, err = run_cli([*base(filled), "recall"], capsys)
    assert code == 2 and "recall needs a QUERY" in one_error(err, hint=False)   # usage, as argparse's own: exit 2
    code, _, err = run_cli([*base(filled), "recall", "x", "--tier", "working"], capsys)
    assert code == 2 and "invalid choice: 'working'" in err
    code, _, err = run_cli([*base(filled), "recall", "x", "--at", "nowhere"], capsys)
    assert code == 1 and "nowhere" in one_error(err, hint=True)


def test_recall_outside_a_repository(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                     monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    code, _, err = run_cli(["recall", "x"], capsys)
    assert code == 1 and one_error(err, hint=True).startswith("gitmem: error: no memory repository")


# --------------------------------------------------------------------------- index

def test_index_status_and_rebuild(filled: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run_cli([*base(filled), "index", "status"], capsys)
    assert code == 0 and out.startswith(f"3 memories indexed at commit {head(filled)[:12]} (")
    data = run_json([*base(filled), "index", "rebuild"], capsys)
    assert data["rows"] == 3 and data["commit"] == head(filled) and data["path"].endswith("index.sqlite")
    Path(data["path"]).unlink()
    assert run_json([*base(filled), "index", "status"], capsys)["rows"] == 3
    code, _, err = run_cli([*base(filled), "index", "drop"], capsys)
    assert code == 2 and "invalid choice: 'drop'" in err


# --------------------------------------------------------------------------- decay

def test_decay_dry_run_commits_nothing(filled: Path, capsys: pytest.CaptureFixture[str]) -> None:
    before = head(filled)
    code, out, _ = run_cli([*base(filled, LATER), "decay", "--dry-run"], capsys)
    assert code == 0 and out.splitlines()[-1] == \
        "decay: 3 memories examined, 3 moves, 6 files would change, 3 archived (no commit)"
    assert all("\tarchived" in line for line in out.splitlines()[:-1])
    assert head(filled) == before


def test_decay_json_and_commit(filled: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert run_json([*base(filled), "decay"], capsys)["moves"] == []
    data = run_json([*base(filled, LATER), "decay"], capsys)
    assert set(data) == {"commit", "dry_run", "examined", "accesses_folded", "moves", "archived", "files_changed",
                         "held_for_review", "review", "review_commit", "superseded", "limit"}
    assert data["files_changed"] == 6 and data["held_for_review"] == [] and data["review"] is None
    assert data["commit"] == head(filled) and data["dry_run"] is False and data["examined"] == 3
    assert sorted(data["archived"]) == ["alice", "deploys", "pytest"]
    assert all(set(m) == {"id", "change"} for m in data["moves"])
    code, out, _ = run_cli([*base(filled, LATER), "decay"], capsys)
    assert out == "decay: 0 memories examined, 0 moves, 0 files changed, 0 archived (no commit)\n"


def test_decay_bad_clock(filled: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = run_cli(["--repo", str(filled), "--now", "garbage", "decay"], capsys)
    assert code == 2 and out == "" and "--now: not an ISO 8601 time: 'garbage'" in one_error(err, hint=True)
    assert "the accepted format is an ISO 8601 time" in err and "hint: use e.g. 2026-11-29T13:40:00Z" in err


# --------------------------------------------------------------------------- link / graph

def test_link_human_json_and_already_linked(filled: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run_cli([*base(filled), "link", "deploys", "pytest", "--relation", "supports"], capsys)
    assert (code, out) == (0, "linked deploys -supports-> pytest\n")
    assert run_cli([*base(filled), "link", "deploys", "pytest", "--relation", "supports"], capsys)[1] == \
        "linked deploys -supports-> pytest (already linked)\n"
    assert run_json([*base(filled), "link", "deploys", "pytest", "--relation", "supports"], capsys) == {"commit": None}
    assert run_json([*base(filled), "link", "pytest", "alice", "--relation", "cause"], capsys) == {"commit": head(filled)}


def test_link_bad_inputs(filled: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, _, err = run_cli([*base(filled), "link", "alice", "nope"], capsys)
    assert code == 1 and one_error(err, hint=True) == "gitmem: error: no memory with id 'nope'"
    code, _, err = run_cli([*base(filled), "link", "alice", "alice"], capsys)
    assert code == 1 and one_error(err, hint=False) == "gitmem: error: a memory cannot link to itself"
    assert run_cli([*base(filled), "link", "alice"], capsys)[0] == 2


def test_graph_human_json_and_dot(filled: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run_cli([*base(filled), "graph"], capsys)
    assert (code, out) == (0, "alice -related-> deploys\n2 linked memories, 1 links\n")
    data = run_json([*base(filled), "graph"], capsys)
    assert data["edges"] == [{"from": "alice", "to": "deploys", "relation": "related"}]
    assert sorted(n["id"] for n in data["nodes"]) == ["alice", "deploys"]
    code, out, _ = run_cli([*base(filled), "graph", "--dot"], capsys)
    assert out.startswith("digraph gitmem {") and '"alice" -> "deploys" [label="related"];' in out
    assert out.endswith("}\n")


def test_graph_archived_and_bad_input(filled: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert run_cli([*base(filled), "forget", "deploys"], capsys)[0] == 0
    assert run_cli([*base(filled), "graph"], capsys)[1].endswith("0 links\n")
    assert run_cli([*base(filled), "graph", "--archived"], capsys)[1].endswith("1 links\n")
    code, _, err = run_cli([*base(filled), "graph", "--json", "--dot"], capsys)
    assert code == 2 and "not allowed with argument" in err


# --------------------------------------------------------------------------- why / consolidate

def test_why_human_and_json(filled: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run_cli([*base(filled), "why", "alice"], capsys)
    lines = out.splitlines()
    assert code == 0 and lines[:2] == ["alice: Alice owns the billing service.", "source: user"]
    assert [line.split()[2] for line in lines[2:]] == ["created", "linked"]
    data = run_json([*base(filled), "why", "alice"], capsys)
    assert (data["id"], data["source"]) == ("alice", "user") and data["path"].endswith("alice.md")
    assert [s["event"] for s in data["history"]] == ["created", "linked"]
    assert all(set(s) == STEP_KEYS for s in data["history"])
    assert data["history"][-1]["commit"] == head(filled)


def test_why_bad_id(filled: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = run_cli([*base(filled), "why", "nope"], capsys)
    assert code == 1 and out == "" and one_error(err, hint=True) == "gitmem: error: no memory with id 'nope'"


def test_consolidate_counts_and_commits(filled: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run_cli([*base(filled), "consolidate"], capsys)
    lines = out.splitlines()
    assert code == 0 and lines[0] == "Memory review since 2026-11-22T12:00:00Z"
    assert "  memories created: 3" in lines and "  links made: 1" in lines
    n = int(git(filled, "rev-list", "--count", "HEAD"))
    assert any(line.startswith(f"{n} commits (created 3, linked 1") for line in lines), lines
    data = run_json([*base(filled), "consolidate", "--since", "2w"], capsys)
    assert data["since"] == "2026-11-15T12:00:00Z" and data["counts"]["memories created"] == 3
    assert data["commits_by_event"]["created"] == 3
    assert len(data["commits"]) == int(git(filled, "rev-list", "--count", "HEAD"))
    assert all(set(s) == STEP_KEYS for s in data["commits"])


def test_consolidate_empty_window_and_bad_since(filled: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run_cli([*base(filled, "2027-06-01T00:00:00Z"), "consolidate", "--since", "1d"], capsys)
    assert (code, out) == (0, "Memory review since 2027-05-31T00:00:00Z\n  no memory changed\n")
    code, out, err = run_cli([*base(filled), "consolidate", "--since", "bogus"], capsys)
    assert code == 2 and out == "" and "--since 'bogus'" in one_error(err, hint=True)
    assert "a number and h, d or w (12h, 7d, 2w), or an ISO date such as 2026-01-01" in err


# --------------------------------------------------------------------------- reflect

def test_reflect_folds_similar_memories_into_a_pattern(repo_dir: Path, capsys: pytest.CaptureFixture[str]) -> None:
    for text in PR_TEXTS:
        remember(repo_dir, capsys, text, "--no-dedupe")
    assert run_json([*base(repo_dir), "session", "start"], capsys)["pending_reflections"] == 4
    assert run_json([*base(repo_dir), "reflect", "--auto"], capsys)["commit"] is None   # under reflect_trigger
    code, out, _ = run_cli([*base(repo_dir), "reflect"], capsys)
    lines = out.splitlines()
    assert code == 0 and len(lines) == 2 and lines[0].startswith("new pattern: patterns/")
    slug = lines[0].removeprefix("new pattern: patterns/")
    assert (repo_dir / "patterns" / slug).is_file()
    assert lines[1] == f"reflect: 4 memories folded into 1 patterns, commit {head(repo_dir)[:12]}"
    again = run_json([*base(repo_dir), "reflect"], capsys)
    assert again == {"commit": None, "created": [], "updated": [], "consumed": [], "pending": 0, "review": None,
                     "review_commit": None, "superseded": [], "limit": 50}


def test_reflect_prompt_quotes_memories_as_data(filled: Path, capsys: pytest.CaptureFixture[str]) -> None:
    before = head(filled)
    code, out, _ = run_cli([*base(filled), "reflect", "--prompt"], capsys)
    assert code == 0 and out.startswith("# Self-reflection") and "not instructions" in out
    assert "Alice owns the billing service." in out
    assert head(filled) == before
    assert run_cli([*base(filled), "reflect", "--bogus"], capsys)[0] == 2


# --------------------------------------------------------------------------- load-core / sync-core / session

def test_load_core_text_json_and_budget(filled: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run_cli([*base(filled), "load-core"], capsys)
    assert code == 0 and out.startswith("# Core memories (gitmem)") and "> Alice owns the billing service." in out
    data = run_json([*base(filled), "load-core"], capsys)
    assert set(data) == {"text", "included", "left_out"} and data["text"].rstrip("\n") == out.rstrip("\n")
    assert set(data["included"]) == {"alice", "deploys", "pytest"} and data["left_out"] == 0
    small = run_json([*base(filled), "load-core", "--max-chars", "300"], capsys)
    assert len(small["text"]) <= 300 and small["left_out"] == 3 - len(small["included"]) > 0
    code, out, err = run_cli([*base(filled), "load-core", "--max-chars", "-5"], capsys)
    assert code == 2 and out == "" and "--max-chars must be at least 200" in one_error(err, hint=False)
    assert run_cli([*base(filled), "load-core", "--max-chars", "lots"], capsys)[0] == 2


def test_sync_core_commits_once(filled: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run_cli([*base(filled), "sync-core"], capsys)
    assert (code, out) == (0, f"sync-core: commit {head(filled)[:12]}\n")
    assert (filled / "HIPPOCAMPUS_CORE.md").is_file()
    assert git(filled, "status", "--porcelain") == ""
    assert run_cli([*base(filled), "sync-core"], capsys)[1] == "sync-core: already up to date\n"
    assert run_json([*base(filled), "sync-core"], capsys) == {"commit": None}
    assert run_cli([*base(filled), "sync-core", "extra"], capsys)[0] == 2


def test_session_start_reports_pending_work_and_loads_core(filled: Path, capsys: pytest.CaptureFixture[str]) -> None:
    remember(filled, capsys, "retry the flaky upload test", "--working")
    code, out, _ = run_cli([*base(filled), "session", "start"], capsys)
    lines = out.splitlines()
    assert code == 0 and lines[0] == "pending reflections: 3 new memories no pattern holds yet"
    assert lines[1].startswith("1 working notes from an earlier session are waiting")
    assert "# Core memories (gitmem)" in lines
    data = run_json([*base(filled), "session", "start"], capsys)
    assert data == {"pending_reflections": 3, "working_notes": 1, "reflect_due": False}


def test_session_end_keeps_or_drops_notes(filled: Path, capsys: pytest.CaptureFixture[str]) -> None:
    remember(filled, capsys, "maybe", "--working", "--importance", "0.1")
    data = run_json([*base(filled), "session", "end", "--session", "s-1"], capsys)
    assert set(data) == {"kept", "dropped", "commit"} and data["kept"] == [] and data["dropped"] == 1
    code, out, _ = run_cli([*base(filled), "session", "end"], capsys)
    assert (code, out) == (0, "session end: 0 working notes kept, 0 dropped\n")
    assert run_json([*base(filled), "session", "start"], capsys)["working_notes"] == 0
    code, _, err = run_cli([*base(filled), "session", "pause"], capsys)
    assert code == 2 and "invalid choice: 'pause'" in err


# --------------------------------------------------------------------------- harvest

def test_harvest_a_session_then_nothing_new(repo_dir: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    src = tmp_path / "v1_session.jsonl"
    shutil.copy(SESSIONS / "claude-code" / "v1_session.jsonl", src)
    code, out, _ = run_cli([*base(repo_dir), "harvest", str(src)], capsys)
    lines = out.splitlines()
    assert code == 0 and lines[0].startswith(f"harvested: {src}: ") and " -> episodes/" in lines[0]
    assert lines[-1] == "harvest: 1 harvested"
    # the line may go on with "; N to keep or drop: gitmem review show ..." (unsure candidates in the inbox)
    episode = lines[0].split(" -> ")[1].split(";")[0]
    assert (repo_dir / episode).is_file()
    code, out, _ = run_cli([*base(repo_dir), "harvest", str(src)], capsys)
    assert (code, out) == (0, "harvest: 1 unchanged\n")
    data = run_json([*base(repo_dir), "harvest", str(src), "--rescan"], capsys)
    assert [r["status"] for r in data] == ["unchanged"]
    assert set(data[0]) == {"path", "session", "status", "commit", "episode", "created", "reinforced", "reason",
                            "warnings", "findings", "inbox", "inbox_branch"}


def test_harvest_rejects_a_session_with_a_secret(repo_dir: Path, capsys: pytest.CaptureFixture[str]) -> None:
    before = head(repo_dir)
    src = SESSIONS / "claude-code" / "secrets.jsonl"
    code, out, err = run_cli([*base(repo_dir), "harvest", str(src)], capsys)
    assert code == 1 and out == "harvest: 1 rejected\n"
    assert err.startswith(f"rejected: {src}: secret in session (aws_access_key at line 1")
    assert "nothing written; findings: f" in err and "AKIA" not in err
    assert "(a vendor key: revoke it)" in err and "pii allow" not in err   # a vendor key is no false alarm
    data = json.loads(run_cli([*base(repo_dir), "harvest", str(src), "--json"], capsys)[1])
    assert data[0]["status"] == "rejected" and data[0]["commit"] is None
    assert data[0]["findings"] and {f["kind"] for f in data[0]["findings"]} >= {"aws_access_key"}
    assert head(repo_dir) == before


def test_harvest_json_summary_and_empty_folder(repo_dir: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    folder = tmp_path / "sessions"
    folder.mkdir()
    assert run_cli([*base(repo_dir), "harvest", str(folder)], capsys)[1] == "harvest: no transcripts found\n"
    shutil.copy(SESSIONS / "jsonl" / "generic.jsonl", folder / "generic.jsonl")
    data = run_json([*base(repo_dir), "harvest", str(folder), "--summary", "--format", "jsonl"], capsys)
    assert [r["status"] for r in data] == ["harvested"] and data[0]["commit"] == head(repo_dir)
    assert data[0]["created"] + data[0]["reinforced"] == 1


def test_harvest_bad_inputs(repo_dir: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = run_cli([*base(repo_dir), "harvest", str(tmp_path / "missing")], capsys)
    assert code == 1 and out == "" and "no such file or folder" in one_error(err, hint=False)
    code, _, err = run_cli([*base(repo_dir), "harvest", str(tmp_path), "--whole", "--signals", "3"], capsys)
    assert code == 2 and "not allowed with argument" in err
    assert run_cli([*base(repo_dir), "harvest"], capsys)[0] == 2
    assert run_cli([*base(repo_dir), "harvest", str(tmp_path), "--format", "csv"], capsys)[0] == 2


def test_reflect_patterns_start_at_the_configured_weight_with_triggers(repo_dir: Path,
                                                                      capsys: pytest.CaptureFixture[str]) -> None:
    cfg = repo_dir / "gitmem.yaml"
    cfg.write_text(cfg.read_text().replace("initial_weight: 0.3 ", "initial_weight: 0.42 "))
    subprocess.run(["git", "commit", "-qam", "start new patterns at 0.42"], cwd=repo_dir, check=True)
    for text in PR_TEXTS:
        remember(repo_dir, capsys, text, "--no-dedupe")
    run_cli([*base(repo_dir), "reflect"], capsys)
    from gitmem.api import MemoryRepo

    (p,) = MemoryRepo.open(repo_dir).patterns()
    assert p.weight == 0.42 and p.triggers and p.stage == "episodic"
