"""Decay: effective importance, bands, and plan_decay (tiers, bands, caps, never_forget, idempotence)."""

from __future__ import annotations

import dataclasses
import json
import subprocess
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from gitmem.api import MemoryRepo
from gitmem.base import clock, config, state
from gitmem.base.config import Config
from gitmem.base.config import Memory as MemoryConfig
from gitmem.base.config import Tiers
from gitmem.base.model import memory_path
from gitmem.engines import decay
from gitmem.writer.plan import Plan
from tests.conftest import NOW, run_cli

T = clock.parse_time(NOW)
CFG = MemoryConfig()


def commits(repo_dir: Path) -> int:
    return int(subprocess.run(["git", "rev-list", "--count", "HEAD"], cwd=repo_dir, capture_output=True,
                              text=True, check=True).stdout)


# --- arithmetic --------------------------------------------------------------

def test_days_between_counts_whole_days() -> None:
    assert decay.days_between("2026-11-28T00:00:00Z", T) == 1   # a day and a half
    assert decay.days_between(NOW, T) == 0


@pytest.mark.parametrize("stamp", ["", "garbage", "2027-01-01T00:00:00Z"])
def test_days_between_is_zero_when_unparseable_or_in_the_future(stamp: str) -> None:
    assert decay.days_between(stamp, T) == 0.0


def test_effective_of_a_long_term_memory_has_no_weekly_step() -> None:
    assert decay.effective(0.8, "long", NOW, T + timedelta(days=13), CFG) == pytest.approx(0.8 * 0.99 ** 13)


def test_effective_of_a_short_term_memory_loses_a_step_per_whole_week() -> None:
    six = decay.effective(0.8, "short", NOW, T + timedelta(days=6.9), CFG)
    seven = decay.effective(0.8, "short", NOW, T + timedelta(days=7), CFG)
    assert six == pytest.approx(0.8 * 0.99 ** 6)
    assert seven == pytest.approx(0.8 * 0.99 ** 7 * 0.9)


def test_effective_follows_the_configured_rates() -> None:
    cfg = MemoryConfig(decay_base=1.0, decay_rate=0.5, short_term_days=1)
    assert decay.effective(0.8, "short", NOW, T + timedelta(days=3), cfg) == pytest.approx(0.1)
    assert decay.effective(0.8, "long", NOW, T + timedelta(days=3), cfg) == pytest.approx(0.8)


def test_effective_is_clamped_to_the_unit_interval() -> None:
    assert decay.effective(1.7, "long", NOW, T, CFG) == 1.0
    assert decay.effective(-0.2, "long", NOW, T, CFG) == 0.0


def test_effective_with_an_unreadable_last_access_does_not_decay() -> None:
    assert decay.effective(0.6, "short", "not a date", T + timedelta(days=100), CFG) == 0.6


@settings(max_examples=300, deadline=None)
@given(st.floats(0, 1), st.floats(0, 1), st.integers(0, 2000), st.sampled_from(["short", "long"]))
def test_higher_importance_never_decays_below_lower(a: float, b: float, days: int, tier: str) -> None:
    cfg = config.Config().memory
    hi, lo = max(a, b), min(a, b)
    now = T + timedelta(days=days)
    assert decay.effective(hi, tier, NOW, now, cfg) >= decay.effective(lo, tier, NOW, now, cfg)


@given(st.floats(0, 1), st.integers(0, 1000), st.integers(0, 1000), st.sampled_from(["short", "long"]))
def test_effective_never_rises_with_time(base: float, d1: int, d2: int, tier: str) -> None:
    early, late = sorted((d1, d2))
    assert decay.effective(base, tier, NOW, T + timedelta(days=late), CFG) <= \
        decay.effective(base, tier, NOW, T + timedelta(days=early), CFG)


def test_effective_importance_formula() -> None:
    cfg = config.Config().memory
    later = T + timedelta(days=15)
    assert decay.effective(0.8, "long", NOW, later, cfg) == pytest.approx(0.8 * 0.99 ** 15)
    assert decay.effective(0.8, "short", NOW, later, cfg) == pytest.approx(0.8 * 0.99 ** 15 * 0.9 ** 2)


@pytest.mark.parametrize("value, expected", [(1.0, "core"), (0.7, "core"), (0.6999, "active"), (0.4, "active"),
                                             (0.3999, "background"), (0.2, "background"), (0.1999, "fading"),
                                             (0.0, "fading")])
def test_band_boundaries_belong_to_the_upper_band(value: float, expected: str) -> None:
    assert decay.band(value, CFG) == expected


def test_band_reads_the_configured_tiers() -> None:
    cfg = MemoryConfig(tiers=Tiers(core=0.9, active=0.5, background=0.05))
    assert [decay.band(v, cfg) for v in (0.95, 0.8, 0.1, 0.01)] == ["core", "active", "background", "fading"]


@given(st.floats(0, 1), st.floats(0, 1))
def test_band_is_monotone(a: float, b: float) -> None:
    order = ["fading", "background", "active", "core"]
    lo, hi = sorted((a, b))
    assert order.index(decay.band(lo, CFG)) <= order.index(decay.band(hi, CFG))


# --- the access log ------------------------------------------------------------

def _records(*paths: Path) -> list[dict[str, Any]]:
    """The access logs' records as decay's use case reads them (a torn line skipped)."""
    return [r for path in paths for r in state.read(path)]


def test_latest_access_keeps_the_latest_per_id_over_several_logs(tmp_path: Path) -> None:
    one, two = tmp_path / "a.jsonl", tmp_path / "b.jsonl"
    one.write_text("\n".join(json.dumps(r) for r in [
        {"id": "m-1", "at": "2026-11-01T00:00:00Z"}, {"id": "m-1", "at": "2026-11-05T00:00:00Z"},
        {"id": "m-2", "at": "2026-11-02T00:00:00Z"}]) + "\n")
    two.write_text("\n".join(json.dumps(r) for r in [
        {"id": "m-1", "at": "2026-11-03T00:00:00Z"}, {"id": "m-2", "at": "2026-11-20T00:00:00Z"}]) + "\n")
    assert decay.latest_access(_records(one, two, tmp_path / "missing.jsonl"), T) == {
        "m-1": "2026-11-05T00:00:00Z", "m-2": "2026-11-20T00:00:00Z"}


def test_latest_access_ignores_the_future_junk_and_torn_lines(tmp_path: Path) -> None:
    log = tmp_path / "access.jsonl"
    log.write_text("\n".join([
        json.dumps({"id": "m-1", "at": "2026-11-01T00:00:00Z"}),
        json.dumps({"id": "m-1", "at": "2027-01-01T00:00:00Z"}),     # after now: a replay must not see it
        json.dumps({"id": 5, "at": "2026-11-02T00:00:00Z"}),
        json.dumps({"id": "m-2", "at": None}),
        json.dumps({"id": "m-3", "at": "yesterday"}),
        '{"id": "m-4", "at": "2026-11-0',
    ]))
    assert decay.latest_access(_records(log), T) == {"m-1": "2026-11-01T00:00:00Z"}


def test_latest_access_of_no_logs_is_empty() -> None:
    assert decay.latest_access(_records(), T) == {}


# --- plan_decay against a real repository ----------------------------------------

def _doc(mid: str, importance: float, *, tier: str = "short", band: str = "active", reinforced: int = 0,
         last: str = NOW, domain: str = "user") -> tuple[str, bytes]:
    text = (f"---\nid: {mid}\ntype: fact\ndomain: {domain}\ntier: {tier}\nband: {band}\nimportance: {importance}\n"
            f"created: '{NOW}'\nlast_accessed: '{last}'\nreinforced: {reinforced}\nkeywords: []\nsource: test\n"
            f"---\nmemory {mid}\n")
    folder = "archive" if tier == "archive" else "memory"
    return f"{folder}/{domain}/{memory_path(domain, mid).split('/')[2]}/{mid}.md", text.encode()


def _seed(repo: MemoryRepo, *docs: tuple[str, bytes]) -> str:
    assert docs, "something to seed"
    w = repo.writer.write(lambda parent: Plan[None](dict(docs), "seed", "test.seed"), T)
    assert w.commit is not None
    return w.commit


def _plan(repo: MemoryRepo, now: datetime, cfg: Config | None = None,
          accesses: dict[str, str] | None = None) -> tuple[dict[str, bytes | None], list[decay.Move], int]:
    head = repo.head
    assert head is not None
    return decay.plan_decay(repo.git, head, cfg or Config(), now, accesses or {})


def _moves(moves: list[decay.Move]) -> dict[str, list[str]]:
    out: dict[str, list[str]] = {}
    for m in moves:
        out.setdefault(m.id, []).append(m.change)
    return out


def test_memories_in_their_right_band_change_nothing(repo: MemoryRepo) -> None:
    _seed(repo, _doc("m-a", 0.5), _doc("m-b", 0.8, band="core", tier="long"))
    changes, moves, examined = _plan(repo, T)
    assert changes == {} and moves == [] and examined == 2


def test_an_empty_repository_examines_nothing(repo: MemoryRepo) -> None:
    assert _plan(repo, T) == ({}, [], 0)


def test_time_moves_a_memory_down_a_band(repo: MemoryRepo) -> None:
    path, data = _doc("m-a", 0.75, band="core", tier="long")
    _seed(repo, (path, data))
    changes, moves, _ = _plan(repo, T + timedelta(days=10))
    assert _moves(moves) == {"m-a": ["band core -> active"]}
    assert set(changes) == {path}
    assert b"band: active" in (changes[path] or b"")
    assert b"importance: 0.75" in (changes[path] or b"")     # the stored base never changes


def test_reinforced_twice_moves_short_to_long(repo: MemoryRepo) -> None:
    _seed(repo, _doc("m-a", 0.5, reinforced=2), _doc("m-b", 0.5, reinforced=1))
    _, moves, _ = _plan(repo, T)
    assert _moves(moves) == {"m-a": ["tier short -> long"]}


def test_a_memory_a_pattern_was_built_from_moves_to_long_term(repo: MemoryRepo) -> None:
    pattern = b"---\nslug: p\nsources: [m-a]\n---\n# A pattern\n"
    _seed(repo, _doc("m-a", 0.5), _doc("m-b", 0.5), ("patterns/p.md", pattern))
    _, moves, _ = _plan(repo, T)
    assert _moves(moves) == {"m-a": ["tier short -> long"]}


def test_a_forgotten_short_term_memory_is_archived(repo: MemoryRepo) -> None:
    path, data = _doc("m-a", 0.3)
    _seed(repo, (path, data))
    changes, moves, _ = _plan(repo, T + timedelta(days=30))
    assert _moves(moves)["m-a"][0].startswith("archived (forgotten")
    archived = memory_path("user", "m-a", archived=True)
    assert changes[path] is None and b"tier: archive" in (changes[archived] or b"")


def test_long_term_memories_are_not_forgotten_by_the_threshold(repo: MemoryRepo) -> None:
    _seed(repo, _doc("m-a", 0.3, tier="long", band="background"))
    _, moves, _ = _plan(repo, T + timedelta(days=3000))
    assert _moves(moves) == {"m-a": ["band background -> fading"]}


def test_never_forget_protects_from_the_threshold_and_the_caps(repo: MemoryRepo) -> None:
    _seed(repo, _doc("m-a", 0.95, band="core"), _doc("m-b", 0.92, band="core"), _doc("m-c", 0.5))
    cfg = Config(memory=MemoryConfig(max_short_term=1))
    _, moves, _ = _plan(repo, T + timedelta(days=400), cfg)
    archived = {m.id for m in moves if m.change.startswith("archived")}
    assert archived == {"m-c"}


def test_caps_archive_the_weakest_first(repo: MemoryRepo) -> None:
    _seed(repo, *(_doc(f"m-{i}", imp, tier="long", band="active") for i, imp in enumerate([0.45, 0.5, 0.55, 0.6])))
    cfg = Config(memory=MemoryConfig(max_long_term=2))
    _, moves, _ = _plan(repo, T, cfg)
    assert {m.id: m.change for m in moves} == {"m-0": "archived (over max_long_term)",
                                               "m-1": "archived (over max_long_term)"}


def test_caps_break_ties_by_id(repo: MemoryRepo) -> None:
    _seed(repo, _doc("m-b", 0.5), _doc("m-a", 0.5), _doc("m-c", 0.5))
    _, moves, _ = _plan(repo, T, Config(memory=MemoryConfig(max_short_term=2)))
    assert [m.id for m in moves] == ["m-a"]


def test_an_access_refreshes_the_memory_but_never_moves_it_back(repo: MemoryRepo) -> None:
    path, data = _doc("m-a", 0.5, last="2026-11-20T00:00:00Z")
    _seed(repo, (path, data))
    changes, _, _ = _plan(repo, T, accesses={"m-a": "2026-11-25T00:00:00Z"})
    assert b"2026-11-25T00:00:00Z" in (changes[path] or b"")
    changes, _, _ = _plan(repo, T, accesses={"m-a": "2026-11-01T00:00:00Z"})
    assert changes == {}


def test_malformed_memory_files_are_skipped(repo: MemoryRepo) -> None:
    _seed(repo, _doc("m-a", 0.5), ("memory/user/broken.md", b"---\nid: [unclosed\n---\nx\n"))
    changes, moves, examined = _plan(repo, T)
    assert examined == 1 and changes == {} and moves == []


@pytest.mark.parametrize("days", [0, 3, 8, 20, 45, 400])
def test_a_second_run_with_the_same_clock_changes_nothing(repo: MemoryRepo, days: int) -> None:
    _seed(repo, _doc("m-a", 0.95, band="core"), _doc("m-b", 0.75, band="core", tier="long"),
          _doc("m-c", 0.5, reinforced=3), _doc("m-d", 0.3), _doc("m-e", 0.45, tier="long"))
    now = T + timedelta(days=days)
    changes, _, _ = _plan(repo, now)
    if changes:
        repo.writer.write(lambda parent: Plan(changes, "decay", "test.decay", auto=True), now)
    again, moves, _ = _plan(repo, now)
    assert again == {} and moves == []


def test_moves_are_frozen_and_the_report_lists_the_archived() -> None:
    move = decay.Move("m-a", "band core -> active")
    with pytest.raises(dataclasses.FrozenInstanceError):
        move.id = "x"  # type: ignore[misc]  # assigning a frozen field is the case under test
    report = decay.DecayReport(None, True, 3, 0, (move, decay.Move("m-b", "archived (forgotten)")))
    assert report.archived == ("m-b",)


# --- through the repository --------------------------------------------------------

def test_decay_is_one_commit_and_idempotent(repo: MemoryRepo, repo_dir: Path) -> None:
    keep = repo.remember("Remember: production database backups run at 02:00 UTC", now=T)     # 0.9: never forgotten
    fade = repo.remember("someone mentioned a new coffee place", importance=0.45, now=T)
    later = T + timedelta(days=40)
    before = commits(repo_dir)
    report = repo.decay(now=later)
    assert commits(repo_dir) == before + 1 and report.commit
    assert fade.id in report.archived and keep.id not in report.archived
    assert repo.show(fade.id).tier == "archive"
    assert repo.show(keep.id).band != "core"
    assert repo.decay(now=later).commit is None
    assert commits(repo_dir) == before + 1
    msg = subprocess.run(["git", "log", "-1", "--format=%B"], cwd=repo_dir, capture_output=True, text=True).stdout
    assert "Gitmem-Auto: true" in msg and "Gitmem-Event: memory.decay" in msg
    assert "Gitmem-Now: 2027-01-08T12:00:00Z" in msg


def test_decay_dry_run_commits_nothing(repo: MemoryRepo, repo_dir: Path) -> None:
    repo.remember("a passing remark", importance=0.3, now=T)
    before = commits(repo_dir)
    report = repo.decay(now=T + timedelta(days=90), dry_run=True)
    assert report.dry_run and report.moves and report.commit is None
    assert commits(repo_dir) == before


def test_decay_folds_access_log_and_promotes_reinforced(repo: MemoryRepo) -> None:
    a = repo.remember("the staging database runs on port 5432", now=T)
    repo.remember("The staging database runs on port 5432!", now=T)
    repo.remember("staging database: runs on port 5432", now=T)
    assert repo.show(a.id).reinforced == 2
    used = T + timedelta(days=20)
    repo.recall("staging database port", now=used)
    repo.decay(now=used + timedelta(days=1))
    m = repo.show(a.id)
    assert m.tier == "long" and m.last_accessed.startswith((used).strftime("%Y-%m-%d"))


def test_decay_caps_archive_lowest_first(repo_dir: Path) -> None:
    text = (repo_dir / "gitmem.yaml").read_text().replace("max_short_term: 100", "max_short_term: 2")
    (repo_dir / "gitmem.yaml").write_text(text)
    subprocess.run(["git", "commit", "-qam", "cap"], cwd=repo_dir, check=True)
    repo = MemoryRepo.open(repo_dir)
    ids = [repo.remember(f"note number {i} about topic {i * 7}", importance=imp, now=T).id
           for i, imp in enumerate([0.5, 0.6, 0.7, 0.95])]
    report = repo.decay(now=T)
    assert set(report.archived) == {ids[0], ids[1]}


def test_cli_decay_now_and_env(repo_dir: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> None:
    run_cli(["--repo", str(repo_dir), "--now", NOW, "remember", "minor detail", "--importance", "0.3"], capsys)
    monkeypatch.setenv("GITMEM_NOW", "2027-03-01T00:00:00Z")
    code, out, _ = run_cli(["--repo", str(repo_dir), "decay", "--json"], capsys)
    assert code == 0 and json.loads(out)["archived"]


# --- whole days (DESIGN.md section 5), effective importance shown, never_forget in load-core ---

@pytest.mark.parametrize("delta, days", [
    (timedelta(0), 0), (timedelta(minutes=1), 0), (timedelta(hours=23, minutes=59), 0),
    (timedelta(days=1), 1), (timedelta(days=1, hours=23), 1), (timedelta(days=30), 30),
    (timedelta(minutes=-5), 0),
])
def test_days_are_whole_days(delta: timedelta, days: int) -> None:
    assert decay.days_between("2026-11-29T12:00:00Z", T + delta) == days


def test_an_unreadable_stamp_is_day_zero() -> None:
    assert decay.days_between("not a time", T) == 0
    assert decay.days_between("", T) == 0


def test_a_core_fact_stays_core_for_the_rest_of_its_first_day(repo: MemoryRepo) -> None:
    r = repo.remember("The billing service owns the invoices table", importance=0.7, now=T)
    assert r.memory.band == "core"
    repo.decay(now=T + timedelta(minutes=1))
    assert repo.show(r.id).band == "core"
    repo.decay(now=T + timedelta(days=1, minutes=1))
    assert repo.show(r.id).band == "active"


def test_effective_importance_follows_whole_days_and_weeks() -> None:
    cfg = MemoryConfig()
    assert decay.effective(0.8, "long", "2026-11-29T12:00:00Z", T + timedelta(days=6, hours=23), cfg) == \
        pytest.approx(0.8 * 0.99 ** 6)
    assert decay.effective(0.8, "short", "2026-11-29T12:00:00Z", T + timedelta(days=7), cfg) == \
        pytest.approx(0.8 * 0.99 ** 7 * 0.9)


def test_show_and_list_report_the_effective_importance(repo: MemoryRepo, capsys: pytest.CaptureFixture[str]) -> None:
    import json

    from tests.conftest import run_cli

    r = repo.remember("The nightly backup runs at 02:00 UTC", importance=0.8, now=T)
    root = str(repo.root)
    code, out, _ = run_cli(["--repo", root, "--now", "2026-12-09T12:00:00Z", "show", r.id, "--json"], capsys)
    shown = json.loads(out)
    assert code == 0 and shown["importance"] == 0.8
    assert shown["effective_importance"] == pytest.approx(0.8 * 0.99 ** 10 * 0.9, abs=1e-4)
    code, out, _ = run_cli(["--repo", root, "--now", "2026-12-09T12:00:00Z", "list", "--json"], capsys)
    listed = {m["id"]: m for m in json.loads(out)}
    assert listed[r.id]["effective_importance"] == shown["effective_importance"]
    code, out, _ = run_cli(["--repo", root, "--now", "2026-12-09T12:00:00Z", "list"], capsys)
    assert "0.80 -> 0.65" in out


def test_a_never_forget_memory_fades_in_band_but_stays_in_load_core(repo: MemoryRepo) -> None:
    r = repo.remember("My daughter is allergic to peanuts", importance=0.95, now=T)
    repo.decay(now=T + timedelta(days=400))
    m = repo.show(r.id)
    assert m.tier != "archive" and m.band in ("background", "fading")
    assert r.id in [item.id for item in repo.core_items()]
    assert r.id in repo.load_core().text


@pytest.mark.parametrize("extra, kept_as", [("x: !!set {a, b}", ""), ("\"my key\": 1", "\"my key\": 1"),
                                            ("? [a, b]\n: 1", "[a, b]: 1")])
def test_decay_skips_a_file_it_cannot_rewrite_and_says_so(repo: MemoryRepo, repo_dir: Path, extra: str, kept_as: str,
                                                          capsys: pytest.CaptureFixture[str]) -> None:
    kept = repo.remember("the staging database listens on port 5432", importance=0.2, now=T).id
    path = memory_path("project", "m-odd")
    (repo_dir / path).parent.mkdir(parents=True, exist_ok=True)
    (repo_dir / path).write_text("---\nid: m-odd\ntier: short\nband: core\nimportance: 0.1\n"
                                 "created: 2026-01-01T00:00:00Z\nlast_accessed: 2026-01-01T00:00:00Z\n"
                                 f"{extra}\n---\nan odd hand-written memory\n")
    subprocess.run(["git", "add", "-A"], cwd=repo_dir, check=True)
    subprocess.run(["git", "commit", "-qm", "hand-written"], cwd=repo_dir, check=True)
    later = (T + timedelta(days=60)).isoformat().replace("+00:00", "Z")
    code, out, err = run_cli(["--repo", str(repo_dir), "--now", later, "decay"], capsys)
    assert code == 0, err
    if "set" in extra:   # no writer can keep that value: the file is left as it is, and the run says so
        assert f"warning: skipped unreadable file {path}: cannot be rewritten" in err
    else:                # a person's own key survives the rewrite
        moved = repo_dir / memory_path("project", "m-odd", archived=True)   # forgotten: archived, key and all
        assert "warning" not in err and kept_as in moved.read_text()
    assert repo.show(kept).band != "core"   # the other memories decayed all the same


def test_decays_line_rewrite_gives_the_bytes_of_the_full_rendering(repo: MemoryRepo) -> None:
    """Decay replaces only the changed scalar lines of files as gitmem wrote them (issue 13 item 1):
    every file it writes equals what the full rendering (or a person's file's round-trip) gives."""
    from gitmem.store import documents

    mems = [repo.remember(f"note {i} about kafka partition lag {i}", importance=0.3 + (i % 7) / 10, now=T) for i in range(24)]
    hand = _doc("m-hand", 0.35, last=NOW)
    hand = hand[0], hand[1].replace(b"band: active\n", b"band: active  # a note a person wrote\n")
    _seed(repo, hand)
    head = repo.head
    assert head is not None
    changes, moves, examined = _plan(repo, T + timedelta(days=60))
    assert examined == len(mems) + 1 and moves
    shaped = 0
    for old_path, data in changes.items():
        if data is None:
            continue
        mid = old_path.rsplit("/", 1)[1].removesuffix(".md")
        source = next(p for p, d in changes.items() if d is None and p.endswith(f"/{mid}.md")) if old_path.startswith("archive/") else old_path
        text = repo.git.read(source, head)
        assert text is not None
        old, is_shaped = documents.read_memory_shaped(source, text)
        shaped += is_shaped
        new = documents.read_memory(old_path, data).with_(path=old.path)
        assert data.decode() == documents.rewrite_memory(source, text.decode(), old, new)   # the slow way
    assert shaped >= len(mems)   # the quick way was taken for gitmem's own files
    assert b"# a note a person wrote" in (changes[memory_path("user", "m-hand", archived=True)] or b"")


@pytest.mark.parametrize("where", ["body", "front matter"])
def test_a_secret_planted_in_a_file_that_decay_moves_is_still_refused(repo: MemoryRepo, repo_dir: Path, where: str) -> None:
    """A file a person committed past the hooks was never scanned: decay's rewrite of it (only its
    tier line changes on the way to archive/) is scanned whole, and the secret refuses the commit."""
    from gitmem.base.errors import SecretError

    token = "ghp_" + "R8nV2cX5zL1qW7eT4yU9iO3pA6sD0fGhJkMb"
    path, data = _doc("m-planted", 0.2, last=NOW)
    data = data.replace(b"memory m-planted\n", f"memory m-planted {token}\n".encode()) if where == "body" else \
        data.replace(b"source: test\n", f"source: test\nnote: {token}\n".encode())
    (repo_dir / path).parent.mkdir(parents=True, exist_ok=True)
    (repo_dir / path).write_bytes(data)
    subprocess.run(["git", "add", path], cwd=repo_dir, check=True)
    subprocess.run(["git", "commit", "-q", "--no-verify", "-m", "by hand"], cwd=repo_dir, check=True)
    head = subprocess.run(["git", "rev-parse", "HEAD"], cwd=repo_dir, capture_output=True, text=True).stdout
    with pytest.raises(SecretError):
        MemoryRepo.open(repo_dir).decay(now=T + timedelta(days=400))
    assert subprocess.run(["git", "rev-parse", "HEAD"], cwd=repo_dir, capture_output=True, text=True).stdout == head
