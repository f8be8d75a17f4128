"""Tests for recall (gitmem.engines.recall ranks, gitmem.store.current opens the index, gitmem.api.recall logs the
hits): search over the derived index and the access log, in real repositories."""

from __future__ import annotations

import json
import subprocess
import sys
from datetime import datetime, timedelta, timezone
from pathlib import Path
from typing import Any

import pytest

from gitmem.api.recall import ACCESS_LOG, recall_at, recall_many
from gitmem.base.errors import ArgumentError, NotARepoError
from gitmem.engines import recall
from gitmem.store.current import open_index
from gitmem.store import refresh
from gitmem.store.index import ROWS_VERSION, Filters

NOW = datetime(2026, 11, 29, 12, 0, tzinfo=timezone.utc)


def remember(repo: Any, text: str, minutes: int = 0, **kw: Any) -> str:
    return str(repo.remember(text, now=NOW + timedelta(minutes=minutes), dedupe=False, **kw).id)


def access_log(repo_dir: Path) -> list[dict[str, str]]:
    path = repo_dir / ".git" / "gitmem" / ACCESS_LOG
    if not path.exists():
        return []
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]


def test_recall_empty_repo(repo_dir: Path) -> None:
    assert recall_at(repo_dir, "anything at all", now=NOW) == []


def test_recall_finds_a_memory_and_logs_the_hit(repo: Any, repo_dir: Path) -> None:
    mid = remember(repo, "The staging database runs on port 5432")
    remember(repo, "Lunch is at noon on Fridays", minutes=1)
    found = recall_at(repo_dir, "staging database port", now=NOW + timedelta(hours=1))
    assert [r.id for r in found][:1] == [mid]
    assert found[0].content == "The staging database runs on port 5432"
    assert 0 < found[0].relevance <= 1.0
    assert access_log(repo_dir) == [{"id": mid, "at": "2026-11-29T13:00:00Z"}]


def test_recall_without_log_leaves_no_trace(repo: Any, repo_dir: Path) -> None:
    remember(repo, "the build runs nightly")
    assert recall_at(repo_dir, "nightly build", now=NOW, log=False)
    assert access_log(repo_dir) == []


def test_recall_finds_inflected_and_accented_forms(repo: Any, repo_dir: Path) -> None:
    mid = remember(repo, "Réunion à l'école: the researchers presented generalizations")
    for question in ("reunion ecole", "researching generalization", "RÉUNION"):
        assert [r.id for r in recall_at(repo_dir, question, now=NOW, log=False)] == [mid], question


def test_recall_of_stop_words_only_is_empty(repo: Any, repo_dir: Path) -> None:
    remember(repo, "what was that about")
    assert recall_at(repo_dir, "what was that", now=NOW) == []
    assert access_log(repo_dir) == []


def test_recall_at_a_past_commit_sees_the_past_and_logs_nothing(repo: Any, repo_dir: Path) -> None:
    first = remember(repo, "kubernetes cluster in eu-west")
    past = repo.head
    remember(repo, "kubernetes cluster moved to us-east", minutes=5)
    found = recall_at(repo_dir, "kubernetes cluster", at=past, now=NOW)
    assert [r.id for r in found] == [first]
    assert access_log(repo_dir) == []


def test_recall_filters_by_type(repo: Any, repo_dir: Path) -> None:
    fact = remember(repo, "the deploy script lives in tools", type="fact")
    remember(repo, "I prefer deploy scripts in bash", type="preference", minutes=1)
    found = recall_at(repo_dir, "deploy script", found_by=Filters(type="fact"), now=NOW, log=False)
    assert [r.id for r in found] == [fact]


def test_expand_adds_linked_memories_one_hop_out(repo: Any, repo_dir: Path) -> None:
    a = remember(repo, "the payments service uses postgres")
    b = remember(repo, "backups run every night at two", minutes=1)
    repo.link(a, b, now=NOW + timedelta(minutes=2))
    plain = recall_at(repo_dir, "payments service", now=NOW, log=False)
    expanded = recall_at(repo_dir, "payments service", now=NOW, log=False, expand=True)
    assert [r.id for r in plain] == [a]
    assert [r.id for r in expanded] == [a, b]
    assert expanded[1].via == f"linked from {a}"
    assert expanded[1].score == 0.0


def test_expand_skips_an_archived_link(repo: Any, repo_dir: Path) -> None:
    a = remember(repo, "the payments service uses postgres")
    b = remember(repo, "postgres version eleven, retired", minutes=1)
    repo.link(a, b, now=NOW + timedelta(minutes=2))
    repo.forget(b, now=NOW + timedelta(minutes=3))
    expanded = recall_at(repo_dir, "payments service", now=NOW, log=False, expand=True)
    assert [r.id for r in expanded] == [a]


def test_recall_many_answers_every_question_over_one_index(repo: Any, repo_dir: Path) -> None:
    tabs = remember(repo, "I prefer tabs for indentation")
    port = remember(repo, "the api listens on port 8080", minutes=1)
    questions = ["tabs indentation", "api port", "nothing matches zebra"]
    answers = dict(recall_many(repo_dir, questions, 10, Filters(), None, False, NOW))
    assert list(answers) == questions
    assert [r.id for r in answers["tabs indentation"]] == [tabs]
    assert [r.id for r in answers["api port"]] == [port]
    assert answers["nothing matches zebra"] == []
    assert [e["id"] for e in access_log(repo_dir)] == [tabs, port]


def test_recalled_record_is_plain_json(repo: Any, repo_dir: Path) -> None:
    remember(repo, "the wiki lives on confluence")
    (hit,) = recall_at(repo_dir, "wiki confluence", now=NOW, log=False)
    record = hit.to_json()
    assert set(record) == {"id", "score", "relevance", "content", "type", "domain", "importance", "tier",
                           "band", "path", "source_id", "via"}
    json.dumps(record)
    assert record["score"] == round(hit.score, 4)


def test_not_a_repository(tmp_path: Path) -> None:
    with pytest.raises(NotARepoError):
        recall_at(tmp_path, "anything", now=NOW)


def test_open_index_rebuilds_rows_of_another_version(repo: Any, repo_dir: Path) -> None:
    remember(repo, "rows made by an older gitmem")
    ix = open_index(repo_dir)
    ix.set_meta("schema", "2")
    ix.close()
    ix = open_index(repo_dir)
    try:
        assert ix.get_meta("schema") == ROWS_VERSION
        assert ix.count() == 1
    finally:
        ix.close()


def test_an_index_built_by_the_previous_layout_is_rebuilt(repo: Any, repo_dir: Path) -> None:
    import sqlite3

    from gitmem.base import state

    mid = remember(repo, "We went camping yesterday")
    remember(repo, "Camping gear list: tent, stove, camping mats", minutes=1)
    open_index(repo_dir).close()
    db = sqlite3.connect(state.index_path(repo_dir))   # as the previous gitmem left it: no dated column, schema 3, rows 4
    db.execute("ALTER TABLE memory DROP COLUMN dated")
    db.execute("UPDATE meta SET value = '3' WHERE key = 'gitmem.store.index.schema'")
    db.execute("UPDATE meta SET value = '4' WHERE key = 'schema'")
    db.commit()
    db.close()
    found = recall_at(repo_dir, "When did we go camping?", now=NOW, log=False)
    assert [r.id for r in found][:1] == [mid]


def test_open_index_follows_a_new_commit(repo: Any, repo_dir: Path) -> None:
    remember(repo, "before")
    open_index(repo_dir).close()
    remember(repo, "after, in a new commit", minutes=1)
    ix = open_index(repo_dir)
    try:
        assert ix.count() == 2
        assert ix.get_meta("commit") == repo.head
    finally:
        ix.close()


def test_open_index_replaces_a_corrupt_file(repo: Any, repo_dir: Path) -> None:
    remember(repo, "survives")
    path = refresh.index_file(repo.git)
    path.write_bytes(b"garbage, not sqlite")
    ix = open_index(repo_dir)
    try:
        assert ix.count() == 1
    finally:
        ix.close()


def test_a_fresh_index_is_searched_without_importing_pygit2(repo: Any, repo_dir: Path) -> None:
    remember(repo, "the release train leaves on thursdays")
    open_index(repo_dir).close()  # brings the index to HEAD
    code = (
        "import sys; from pathlib import Path; from gitmem.api.recall import recall_at; "
        f"found = recall_at(Path({str(repo_dir)!r}), 'release train', log=False); "
        "print(len(found), 'pygit2' in sys.modules)"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    count, pygit2_loaded = out.stdout.split()
    assert count == "1"
    assert pygit2_loaded == "False"


def test_k_limits_the_hits(repo: Any, repo_dir: Path) -> None:
    for i in range(5):
        remember(repo, f"deploy note number {i} about the pipeline", minutes=i)
    assert len(recall_at(repo_dir, "deploy pipeline", k=2, now=NOW, log=False)) == 2
    with pytest.raises(ArgumentError):   # -k outside 1..1000 is a usage error before anything is opened
        recall_at(repo_dir, "deploy pipeline", k=0, now=NOW, log=False)


def test_archived_memories_come_back_only_when_asked(repo: Any, repo_dir: Path) -> None:
    mid = remember(repo, "the legacy cron server in the basement")
    repo.forget(mid, now=NOW + timedelta(minutes=1))
    assert recall_at(repo_dir, "legacy cron server", now=NOW, log=False) == []
    found = recall_at(repo_dir, "legacy cron server", found_by=Filters(include_archive=True), now=NOW, log=False)
    assert [(r.id, r.tier) for r in found] == [(mid, "archive")]


def test_recall_at_a_tag(repo: Any, repo_dir: Path) -> None:
    mid = remember(repo, "release train leaves on thursdays")
    subprocess.run(["git", "-C", str(repo_dir), "tag", "v1"], check=True)
    repo.forget(mid, now=NOW + timedelta(minutes=1))
    assert [r.id for r in recall_at(repo_dir, "release train", at="v1", now=NOW)] == [mid]
    assert recall_at(repo_dir, "release train", now=NOW, log=False) == []


def test_a_detached_head_recalls_what_is_checked_out(repo: Any, repo_dir: Path) -> None:
    first = remember(repo, "the first office was in lyon")
    past = repo.head
    remember(repo, "the office moved to paris", minutes=1)
    subprocess.run(["git", "-C", str(repo_dir), "checkout", "-q", "--detach", past], check=True)
    assert [r.id for r in recall_at(repo_dir, "office", now=NOW, log=False)] == [first]


def test_hits_are_ordered_by_score(repo: Any, repo_dir: Path) -> None:
    remember(repo, "python packaging with uv", importance=0.9)
    remember(repo, "python packaging with pip and venv, python packaging notes", minutes=1, importance=0.5)
    remember(repo, "unrelated lunch plans", minutes=2)
    found = recall_at(repo_dir, "python packaging", now=NOW, log=False)
    assert len(found) == 2
    assert found[0].score >= found[1].score
    assert max(r.relevance for r in found) == 1.0


# --- never_forget (DESIGN.md section 5): always recalled by default, whatever its band ---

LATER = NOW + timedelta(days=400)


def _faded(repo: Any, text: str, importance: float) -> str:
    mid = str(repo.remember(text, importance=importance, now=NOW, dedupe=False).id)
    return mid


@pytest.mark.parametrize("importance, shown", [(0.95, True), (0.9, True), (1.0, True), (0.89, False), (0.5, False)])
def test_default_recall_keeps_a_never_forget_memory_whatever_its_band(
        repo: Any, repo_dir: Path, importance: float, shown: bool) -> None:
    mid = _faded(repo, "The vault recovery phrase lives in the blue notebook", importance)
    repo.decay(now=LATER)
    m = repo.show(mid)
    # the band still follows the formula; under never_forget, decay archives it
    assert m.tier == ("short" if shown else "archive") and m.band in ("background", "fading")
    found = [r.id for r in recall_at(repo_dir, "vault recovery phrase", now=LATER, log=False)]
    assert (mid in found) is shown
    assert (mid in [r.id for r in repo.recall("blue notebook", now=LATER)]) is shown


def test_never_forget_follows_the_config_without_a_new_commit(repo: Any, repo_dir: Path) -> None:
    config = repo_dir / "gitmem.yaml"
    text = config.read_text()
    config.write_text(text.replace("never_forget: 0.9", "never_forget: 0.55"))
    assert "never_forget: 0.55" in config.read_text()
    repo = type(repo).open(repo_dir)   # decay reads the config the repository was opened with
    low = _faded(repo, "Grandmother's birthday is on the ninth of March", 0.6)
    repo.decay(now=LATER)   # not archived: 0.6 is at or above this clone's never_forget
    assert repo.show(low).band in ("background", "fading")
    assert [r.id for r in recall_at(repo_dir, "grandmother birthday", now=LATER, log=False)] == [low]
    config.write_text(text + "\n")   # back to 0.9, no commit: the index notices the file changed
    assert recall_at(repo_dir, "grandmother birthday", now=LATER, log=False) == []


def test_never_forget_does_not_bring_back_what_a_person_archived(repo: Any, repo_dir: Path) -> None:
    mid = _faded(repo, "The old office door code was changed", 0.95)
    repo.forget(mid, now=NOW)
    assert recall_at(repo_dir, "office door code", now=LATER, log=False) == []
    assert [r.id for r in recall_at(repo_dir, "office door code", 10, Filters(include_archive=True), now=LATER,
                                        log=False)] == [mid]


def test_naming_a_band_still_narrows_to_that_band(repo: Any, repo_dir: Path) -> None:
    mid = _faded(repo, "The allergy list is pinned on the fridge", 0.95)
    repo.decay(now=LATER)
    band = repo.show(mid).band
    other = "core" if band != "core" else "active"
    assert recall_at(repo_dir, "allergy fridge", 10, Filters(band=other), now=LATER, log=False) == []
    assert [r.id for r in recall_at(repo_dir, "allergy fridge", 10, Filters(band=band, include_background=True),
                                        now=LATER, log=False)] == [mid]


def test_cli_recall_shows_a_never_forget_memory_in_the_background(repo: Any, repo_dir: Path,
                                                                   capsys: pytest.CaptureFixture[str]) -> None:
    from tests.conftest import run_cli

    mid = _faded(repo, "Always sign releases with the hardware key", 0.92)
    repo.decay(now=LATER)
    code, out, _ = run_cli(["--repo", str(repo_dir), "--now", "2028-01-03T12:00:00Z", "recall", "--json",
                            "hardware key releases"], capsys)
    assert code == 0 and [r["id"] for r in json.loads(out)] == [mid]


# --- episodes: their own result type, after the memories, never in their place ---


def claude_session(path: Path, session: str, title: str | None, request: str, outcome: str,
                   files: tuple[str, ...] = (), cwd: str = "/home/dev/shop", timestamps: bool = True) -> Path:
    """A small Claude Code transcript: a title, one request, file edits, one closing reply."""
    recs: list[dict[str, Any]] = []

    def add(rec: dict[str, Any], n: int) -> None:
        rec.update({"sessionId": session, "cwd": cwd, "uuid": f"{session}-{n}", "isSidechain": False})
        if timestamps:
            rec["timestamp"] = f"2026-10-05T09:00:{n:02d}Z"
        recs.append(rec)

    if title:
        recs.append({"type": "ai-title", "aiTitle": title, "sessionId": session})
    add({"type": "user", "message": {"role": "user", "content": request}}, 1)
    for i, f in enumerate(files):
        add({"type": "assistant", "message": {"role": "assistant", "content": [
            {"type": "tool_use", "id": f"t{i}", "name": "Edit",
             "input": {"file_path": f, "old_string": "a", "new_string": "b"}}]}}, 2 + i)
    add({"type": "assistant", "message": {"role": "assistant", "content": [{"type": "text", "text": outcome}]}}, 40)
    path.write_text("\n".join(json.dumps(r) for r in recs) + "\n")
    return path


SESSIONS = [
    ("s-invoices", "Migrate invoices to Postgres", "please move the invoices table off MySQL",
     "The migration script now copies invoices in batches of 500", ("src/billing/invoice_store.py",)),
    ("s-navbar", "Fix the sticky navigation bar", "the navbar jumps when scrolling on Safari",
     "Replaced the scroll listener with position sticky and an IntersectionObserver", ("web/components/Navbar.vue",)),
    ("s-flaky", None, "why does test_checkout fail one run in ten",
     "The checkout test raced the payment webhook; it now waits on the queue drain",
     ("tests/test_checkout.py", "shop/payments/webhook_listener.py")),
    ("s-tailscale", "Expose the dev box over Tailscale", "how do I reach my dev box from the train",
     "Tailscale serve now publishes port 8080 to the tailnet only", ()),
]


@pytest.fixture
def harvested(repo: Any, tmp_path: Path) -> dict[str, str]:
    paths = [claude_session(tmp_path / f"{sid}.jsonl", sid, title, req, out, files)
             for sid, title, req, out, files in SESSIONS]
    results = repo.harvest(paths, fmt="claude-code", signals=0, now=NOW)
    assert all(r.status == "harvested" for r in results)
    return {r.session_id: r.episode for r in results}


@pytest.mark.parametrize("query, session", [
    ("migrate invoices postgres", "s-invoices"),              # title
    ("sticky navigation bar", "s-navbar"),                    # title
    ("payment webhook queue drain", "s-flaky"),               # outcome, no title
    ("IntersectionObserver scroll listener", "s-navbar"),     # outcome
    ("invoice_store.py", "s-invoices"),                       # a file touched
    ("webhook_listener", "s-flaky"),                          # a file touched, without its folder
    ("Navbar.vue", "s-navbar"),
    ("tailnet port 8080", "s-tailscale"),
])
def test_recall_finds_an_episode_by_title_outcome_and_files(repo_dir: Path, harvested: dict[str, str],
                                                            query: str, session: str) -> None:
    found = recall_at(repo_dir, query, 5, Filters(type="episode"), now=NOW, log=False)
    assert found and found[0].path == harvested[session], query
    assert all(r.type == "episode" for r in found)
    alongside = recall_at(repo_dir, query, now=NOW, log=False)
    assert harvested[session] in [r.path for r in alongside if r.type == "episode"]


def test_episodes_never_take_a_memorys_place_in_the_top_k(repo: Any, repo_dir: Path, harvested: dict[str, str]) -> None:
    ids = [remember(repo, f"The invoices table migration step {n} copies invoices to Postgres", minutes=n)
           for n in range(4)]
    for k in (1, 2, 4):
        found = recall_at(repo_dir, "migrate invoices postgres", k, now=NOW, log=False)
        memories = [r for r in found if r.type != "episode"]
        assert len(memories) == k and {r.id for r in memories} <= set(ids)
        assert [r.type for r in found[:k]] == [r.type for r in memories]    # memories first, all k of them
        assert [r.path for r in found[k:]] == [harvested["s-invoices"]][:min(k, recall.EPISODES_ALONGSIDE)]


def test_at_most_a_few_episodes_come_alongside_but_type_episode_takes_k(repo_dir: Path,
                                                                        harvested: dict[str, str]) -> None:
    query = "invoices navbar checkout tailscale"
    alongside = recall_at(repo_dir, query, 10, now=NOW, log=False)
    assert len(alongside) == recall.EPISODES_ALONGSIDE
    assert len(recall_at(repo_dir, query, 10, Filters(type="episode"), now=NOW, log=False)) == 4


def test_a_memory_filter_keeps_episodes_out(repo: Any, repo_dir: Path, harvested: dict[str, str]) -> None:
    remember(repo, "Invoices migrate to Postgres next quarter", domain="project")
    for filters in (Filters(type="fact"), Filters(domain="project"), Filters(tier="short"), Filters(band="core")):
        assert all(r.type != "episode" for r in recall_at(repo_dir, "invoices postgres", 10, filters,
                                                            now=NOW, log=False)), filters


def test_episodes_are_not_logged_as_memory_accesses_nor_loaded_as_core(repo: Any, repo_dir: Path,
                                                                      harvested: dict[str, str]) -> None:
    assert recall_at(repo_dir, "sticky navigation bar", now=NOW)
    assert access_log(repo_dir) == []
    index = open_index(repo_dir)
    try:
        assert index.count() == 0 and index.has_type("episode")
    finally:
        index.close()
    assert all(item.type != "episode" for item in repo.core_items())


def test_the_index_follows_episodes_added_and_removed(repo: Any, repo_dir: Path, tmp_path: Path,
                                                      harvested: dict[str, str]) -> None:
    assert recall_at(repo_dir, "tailnet", 3, Filters(type="episode"), now=NOW, log=False)
    subprocess.run(["git", "rm", "-q", harvested["s-tailscale"]], cwd=repo_dir, check=True)
    subprocess.run(["git", "commit", "-q", "--no-verify", "-m", "drop an episode"], cwd=repo_dir, check=True)
    assert recall_at(repo_dir, "tailnet", 3, Filters(type="episode"), now=NOW, log=False) == []
    late = claude_session(tmp_path / "late.jsonl", "s-late", "Rotate the kafka certificates", "certs expire friday",
                          "Kafka brokers now load certificates from the vault", ("ops/kafka/certs.tf",))
    repo.harvest([late], fmt="claude-code", signals=0, now=NOW)
    assert [r.type for r in recall_at(repo_dir, "kafka certificates", now=NOW, log=False)] == ["episode"]


def test_cli_recall_type_episode(repo_dir: Path, harvested: dict[str, str], capsys: pytest.CaptureFixture[str]) -> None:
    from tests.conftest import run_cli

    code, out, _ = run_cli(["--repo", str(repo_dir), "--now", "2026-11-29T12:00:00Z", "recall", "--type", "episode",
                            "--json", "sticky navbar"], capsys)
    assert code == 0 and [(r["type"], r["path"]) for r in json.loads(out)][:1] == [("episode", harvested["s-navbar"])]
    code, out, _ = run_cli(["--repo", str(repo_dir), "recall", "sticky navbar"], capsys)
    assert code == 0 and out.startswith("episode\t") and harvested["s-navbar"] in out


# --- projects: memories carry the project they came from; recall keeps to one ---


def _git(cwd: Path, *args: str) -> None:
    subprocess.run(["git", *args], cwd=cwd, check=True, capture_output=True)


@pytest.fixture
def projects(repo: Any, plain_git_repo: Path, linked_worktree: Path, tmp_path: Path) -> dict[str, Any]:
    """Two project repositories (one with a remote holding credentials, one without) and memories of each."""
    _git(plain_git_repo, "remote", "add", "origin", "https://dev:tok3n@github.com/Acme/Shop.git")
    other = tmp_path / "billing"
    other.mkdir()
    _git(other, "init", "-q")
    sub = plain_git_repo / "services" / "cart"
    sub.mkdir(parents=True)
    ids = {
        "shop": remember(repo, "The deploy script runs make release on the build host", domain="project",
                         project=str(sub)),
        "billing": remember(repo, "The deploy script uploads invoices before the build host restarts",
                            domain="project", project=str(other)),
        "user": remember(repo, "The person wants deploy summaries in Chinese on the build host", domain="user",
                         project=str(plain_git_repo)),
        "legacy": remember(repo, "The build host deploy takes ten minutes", domain="project"),
    }
    return {"ids": ids, "shop": plain_git_repo, "sub": sub, "worktree": linked_worktree, "billing": other}


QUERY = "deploy build host"


def _found(repo_dir: Path, **kw: Any) -> set[str]:
    return {r.id for r in recall_at(repo_dir, QUERY, 10, now=NOW, log=False, **kw)}


def test_a_project_memory_carries_its_project_and_a_user_memory_stays_global(repo: Any, projects: dict[str, Any]) -> None:
    ids = projects["ids"]
    shop = repo.show(ids["shop"])
    assert (shop.project, shop.project_name) == ("github.com/acme/shop", "main")
    billing = repo.show(ids["billing"])
    assert billing.project.startswith("path:") and billing.project_name == "billing"
    assert repo.show(ids["user"]).project is None and repo.show(ids["legacy"]).project is None


@pytest.mark.parametrize("where, expected", [
    ("shop", {"shop", "user", "legacy"}),
    ("sub", {"shop", "user", "legacy"}),          # a subfolder is its repository's project
    ("worktree", {"shop", "user", "legacy"}),     # so is a linked work tree
    ("billing", {"billing", "user", "legacy"}),
])
def test_recall_keeps_to_the_project_of_the_working_folder(repo_dir: Path, projects: dict[str, Any],
                                                            where: str, expected: set[str]) -> None:
    ids = projects["ids"]
    assert _found(repo_dir, here=projects[where]) == {ids[name] for name in expected}


def test_outside_a_known_project_recall_sees_every_project(repo_dir: Path, projects: dict[str, Any],
                                                          tmp_path: Path) -> None:
    unknown = tmp_path / "unknown"
    unknown.mkdir()
    _git(unknown, "init", "-q")
    everything = set(projects["ids"].values())
    assert _found(repo_dir, here=unknown) == everything
    assert _found(repo_dir, here=tmp_path) == everything          # not a git repository at all
    assert _found(repo_dir, here=repo_dir) == everything          # the memory repository itself
    assert _found(repo_dir) == everything


@pytest.mark.parametrize("project, expected", [
    ("github.com/acme/shop", {"shop", "user", "legacy"}),
    ("main", {"shop", "user", "legacy"}),
    ("billing", {"billing", "user", "legacy"}),
    ("nothing-by-that-name", {"user", "legacy"}),
])
def test_a_named_project_scopes_recall(repo: Any, repo_dir: Path, projects: dict[str, Any],
                                       project: str, expected: set[str]) -> None:
    ids = projects["ids"]
    assert _found(repo_dir, found_by=Filters(project=project)) == {ids[name] for name in expected}
    assert {r.id for r in repo.recall(QUERY, project=project, here=projects["billing"], now=NOW)} == \
        {ids[name] for name in expected}


def test_cli_recall_project_flags(repo_dir: Path, projects: dict[str, Any], capsys: pytest.CaptureFixture[str],
                                  monkeypatch: pytest.MonkeyPatch) -> None:
    from tests.conftest import run_cli

    ids = projects["ids"]
    monkeypatch.chdir(projects["sub"])
    base = ["--repo", str(repo_dir), "recall", "--json", QUERY]

    def got(*flags: str) -> set[str]:
        code, out, _ = run_cli(base + list(flags), capsys)
        assert code == 0
        return {r["id"] for r in json.loads(out)}

    assert got() == {ids["shop"], ids["user"], ids["legacy"]}
    assert got("--all-projects") == set(ids.values())
    assert got("--project", "billing") == {ids["billing"], ids["user"], ids["legacy"]}
    assert got("--project", str(projects["billing"])) == {ids["billing"], ids["user"], ids["legacy"]}
    code, _, err = run_cli(base + ["--project", "billing", "--all-projects"], capsys)
    assert code == 2 and "not allowed with" in err


def test_the_remote_credentials_never_reach_a_memory(repo: Any, repo_dir: Path, projects: dict[str, Any]) -> None:
    text = (repo_dir / repo.show(projects["ids"]["shop"]).path).read_text()
    assert "project: github.com/acme/shop" in text and "tok3n" not in text and "dev:" not in text


def test_a_project_memory_is_not_reinforced_by_another_projects(repo: Any, projects: dict[str, Any]) -> None:
    text = "The staging database listens on port 6543"
    a = repo.remember(text, domain="project", project=str(projects["shop"]), now=NOW)
    b = repo.remember(text, domain="project", project=str(projects["billing"]), now=NOW)
    c = repo.remember(text, domain="project", project=str(projects["worktree"]), now=NOW)
    assert (a.action, b.action, c.action) == ("created", "created", "reinforced")
    assert c.id == a.id


@pytest.mark.slow
def test_real_sessions_are_found_by_their_title_and_outcome(repo: Any, repo_dir: Path) -> None:
    """Hold-out: every corpus session, each looked for by its episode's title and by the first words of its outcome."""
    from tests.conftest import bench_transcripts, corpora

    from gitmem.store import documents

    repo.harvest(bench_transcripts(), now=NOW)
    asked = found = 0
    for path in sorted((repo_dir / "episodes").rglob("*.md")):
        rel = path.relative_to(repo_dir).as_posix()
        meta, body = documents.split(rel, path.read_text(encoding="utf-8"))
        outcome = body.split("Outcome: ", 1)[1].split("\n")[0] if "Outcome: " in body else ""
        for query in (str(meta.get("title") or ""), " ".join(outcome.split()[:8])):
            if not query or query.startswith("No conversation"):
                continue
            asked += 1
            top = recall_at(repo_dir, query, 3, Filters(type="episode"), now=NOW, log=False)
            found += bool(top) and top[0].path == rel
    assert asked >= sum(c.queries for c in corpora()) and found / asked >= 0.9, (found, asked)


def test_a_project_name_is_stripped_of_pii(repo: Any, tmp_path: Path) -> None:
    folder = tmp_path / "jean.dupont@gmail.com"
    folder.mkdir()
    _git(folder, "init", "-q")
    r = repo.remember("The mail filters live in sieve scripts", domain="project", project=str(folder), now=NOW)
    assert r.memory.project.startswith("path:") and r.memory.project_name == "[EMAIL]"
    assert "dupont" not in repr(repo.show(r.id))
