"""Skill sedimentation's regression cases, in the seed's categories, on real memory repositories with fixed clocks:
parameter validation, sandbox, amplitude, promotion logic, frequency monitoring, TTL, concurrency."""

from __future__ import annotations

import threading
from collections.abc import Callable
from pathlib import Path

import pytest

from gitmem.api import MemoryRepo
from gitmem.base.config import Sediment, check_text
from gitmem.base.errors import CheckFailed, NotFoundError, SecurityError, UsageError, ValidationError
from gitmem.engines.sediment import distill, entry, guard, priority, threshold
from gitmem.engines.sediment.entry import Reflection
from gitmem.guards import amplitude
from gitmem.writer.plan import Plan
from tests.sediment_helpers import T0, at, head, reflect, state
from gitmem.api.promotions import Proposed
from gitmem.api.sediment import Reflected

from gitmem.base.config import TypeWeights


def branch_of(p: Proposed) -> str:
    """The review branch of a promotion that was proposed (None only when it was not)."""
    assert p.branch, p.reason
    return p.branch


def reflection_of(r: Reflected) -> Reflection:
    """The entry a reflect wrote or queued (None only when it skipped)."""
    assert r.reflection is not None, r.reason
    return r.reflection


def route_of(r: Reflection) -> distill.Route:
    """Where distill sends ``r`` when every target exists."""
    route = distill.route(r, lambda p: True)
    assert route is not None
    return route


def sample(**over: object) -> Reflection:
    values: dict[str, object] = dict(id="r-0123456789", at="2026-12-01T10:00:00Z", topic="t", context="c",
                                     approach="a", result="good", score=5, reusable="u", tags=("#experience",),
                                     kind="error_fix")
    values.update(over)
    return Reflection(**values)  # type: ignore[arg-type]


# --- parameter validation (the entry guard) ------------------------------------------------------

@pytest.mark.parametrize("given, says", [
    (guard.Input(threshold=9), "threshold=9 is outside [10, 30]"),
    (guard.Input(threshold=31), "threshold=31 is outside [10, 30]"),
    (guard.Input(threshold=float("nan")), "threshold=nan"),
    (guard.Input(threshold=True), "threshold=True"),
    (guard.Input(ttl_hours=0), "ttl_hours=0 must be > 0"),
    (guard.Input(ttl_hours=-1), "ttl_hours=-1 must be > 0"),
    (guard.Input(skill="deploy-tool"), "skill name 'deploy-tool'"),
    (guard.Input(skill="x" * 65), "is not 1-64"),
    (guard.Input(skill="déploiement"), "skill name"),
    (guard.Input(skill=""), "skill name ''"),
    (guard.Input(content_bytes=1_048_577), "over the limit of 1048576"),
    (guard.Input(content_bytes=-1), "content of -1 bytes"),
    (guard.Input(required=(("topic", "  "),)), "topic is required and empty"),
    (guard.Input(required=(("context", None),)), "context is required and empty"),
])
def test_the_entry_guard_refuses(given: guard.Input, says: str) -> None:
    found = guard.problems(given)
    assert len(found) == 1 and says in found[0]


@pytest.mark.parametrize("given", [guard.Input(threshold=10), guard.Input(threshold=30), guard.Input(ttl_hours=0.5),
                                   guard.Input(skill="a"), guard.Input(skill="A_1" * 21 + "x"),
                                   guard.Input(content_bytes=1_048_576)])
def test_the_entry_guard_passes_the_edges(given: guard.Input) -> None:
    assert guard.problems(given) == []


def test_one_error_lists_every_problem_and_nothing_is_written(repo: MemoryRepo) -> None:
    before = head(repo)
    with pytest.raises(ValidationError) as info:
        repo.sediment_reflect(topic="", context="c", approach="a", result="great", score=6, reusable=" ",
                              kind="magic", skill="no spaces please", now=T0)
    message = info.value.message
    for part in ("topic is required", "reusable is required", "score=6", "result='great'", "kind='magic'",
                 "skill name 'no spaces please'"):
        assert part in message
    assert head(repo) == before


def test_check_config_refuses_ttl_zero_and_a_bad_skill_name() -> None:
    checked = check_text("sediment:\n  ttl_hours: 0\n  skills: [deploy, 'bad name']\n  veto_timeout_minutes: 0\n")
    found = {p.field: p for p in checked.problems}
    assert set(found) == {"sediment.ttl_hours", "sediment.skills", "sediment.veto_timeout_minutes"}
    assert found["sediment.skills"].value == "bad name"
    assert check_text("sediment:\n  ttl_hours: 1\n  skills: [deploy_tool]\n").problems == ()


def test_threshold_set_out_of_range_is_refused_and_writes_nothing(repo: MemoryRepo) -> None:
    before = head(repo)
    for value in (9.5, 31, float("nan")):
        with pytest.raises(ValidationError, match="outside \\[10, 30\\]"):
            repo.sediment_set_threshold(value, now=T0)
    assert head(repo) == before


# --- sandbox -------------------------------------------------------------------------------------

@pytest.mark.parametrize("path", ["../bank/x.md", "bank/../gitmem.yaml", "/etc/passwd", "C:/x/bank.md",
                                  "bank\\x.md", "bank//x.md", "memory/user/x.md", "gitmem.yaml",
                                  "skills/a/../../CLAUDE.md", "bank/x\x00.md", ""])
def test_a_target_outside_bank_and_skills_is_refused(path: str) -> None:
    with pytest.raises(SecurityError):
        guard.check_target(path)


@pytest.mark.parametrize("path", ["bank/TABOOS.md", "bank/days/2026-12-01.md", "skills/deploy/SKILL.md"])
def test_targets_inside_pass(path: str) -> None:
    assert guard.check_target(path) == path and guard.in_scope(path)


def test_a_symlinked_folder_in_bank_is_refused_by_the_write_path(repo: MemoryRepo, tmp_path: Path) -> None:
    import subprocess

    outside = tmp_path / "elsewhere"
    outside.mkdir()
    (outside / "ops.md").write_text("# ops\n")
    (Path(repo.root) / "bank" / "characters").symlink_to(outside)
    subprocess.run(["git", "add", "bank/characters"], cwd=repo.root, check=True)
    subprocess.run(["git", "commit", "-qm", "a link", "--no-verify"], cwd=repo.root, check=True)
    made = reflect(repo, 1, kind="preference", role="ops", repeat=False)
    repo2 = MemoryRepo.open(repo.root)
    with pytest.raises(SecurityError, match="symlink"):   # a promotion would add the role's file through it
        repo2.sediment_promote(made.reflection.id, operator="user", now=at(5))
    assert (outside / "ops.md").read_text() == "# ops\n" and repo2.reviews() == []
    [done] = repo2.sediment_distill(made.reflection.id, now=at(6))   # distill takes the day file instead
    assert done.target == "bank/days/2026-12-01.md" and sorted(p.name for p in outside.iterdir()) == ["ops.md"]


@pytest.mark.parametrize("path", ["gitmem.yaml", "CLAUDE.md", ".pre-commit-config.yaml",
                                  "skills/skill_sedimentation/SKILL.md", ".gitmem/hooks.yaml"])
def test_the_anchors_are_refused_to_any_sedimentation_write(repo: MemoryRepo, path: str) -> None:
    # gitmem.yaml and the hook setup are outside the allowed folders too: the sandbox refuses them first
    with pytest.raises(SecurityError, match="anchors|outside the allowed folders"):
        repo.writer.write(lambda parent: Plan({path: b"threshold: 10\n"}, "s", "sedimentation.promote"), T0)
    plan: Plan[None] = Plan({path: b"x\n"}, "s", "review.accept", approved_by="P <p@example.com>",
                trailers=(("Gitmem-Review", "gitmem/review/sediment-r-0000000000"),))
    with pytest.raises(SecurityError, match="anchors|outside the allowed folders"):
        repo.writer.write(lambda parent: plan, T0)


def test_a_role_name_with_a_path_in_it_is_refused(repo: MemoryRepo) -> None:
    with pytest.raises(ValidationError, match="role '../../gitmem'"):
        reflect(repo, 1, role="../../gitmem")


def test_a_hand_made_sediment_review_reaching_outside_its_target_is_refused(repo: MemoryRepo) -> None:
    made = reflect(repo, 1)
    [proposed] = repo.sediment_promote(now=at(2))
    branch = branch_of(proposed)
    tip = repo.git.tip(branch)
    forged: Plan[None] = Plan({"bank/TABOOS.md": b"# Taboos\n- x\n", "memory/user/m-evil.md": b"---\nid: m-evil\n---\nx\n"},
                  "more", "other.event", auto=True,
                  trailers=(("Gitmem-Review", branch), ("Gitmem-Sediment-Id", reflection_of(made).id),
                            ("Gitmem-Sediment-Target", "bank/TABOOS.md")))
    repo.writer.write(lambda parent: forged if parent == tip else None, at(3), branch=branch)
    with pytest.raises(CheckFailed, match="outside a sediment review's scope") as info:
        repo.review_accept(branch, i_am_the_reviewer=True, now=at(4))
    assert any("memory/user/m-evil.md" in p for p in info.value.problems)
    shown = repo.review_show(branch)
    assert any("memory/user/m-evil.md" in p and "OUTSIDE ITS SCOPE" in p for p in shown.paths)


# --- amplitude -----------------------------------------------------------------------------------

def test_a_reflection_fits_the_floor_in_one_commit(repo: MemoryRepo) -> None:
    done = reflect(repo, 1)
    assert done.outcome == "written" and done.deferred == ()
    assert entry.render(done.reflection).count("\n") == 10


def test_exactly_five_percent_passes_and_more_is_split() -> None:
    assert not amplitude.exceeds(100, 105, 0.05, 0)
    assert amplitude.exceeds(100, 106, 0.05, 0)


def _small_floor(repo: MemoryRepo, lines: int) -> MemoryRepo:
    cfg = Path(repo.root) / "gitmem.yaml"
    text = cfg.read_text()
    start = text.index("  amplitude_floor_lines:")
    end = text.index("\n", start)
    cfg.write_text(text[:start] + f"  amplitude_floor_lines: {lines}" + text[end:])
    import subprocess

    subprocess.run(["git", "commit", "-qam", "floor", "--no-verify"], cwd=repo.root, check=True)
    return MemoryRepo.open(repo.root)


def test_a_larger_write_is_split_queued_and_applied_later_nothing_dropped(repo: MemoryRepo) -> None:
    from gitmem.writer import pending

    repo = _small_floor(repo, 4)
    done = reflect(repo, 1)
    assert done.outcome == "queued" and done.deferred == ("bank/reflections.md",)
    queue = Path(repo.root) / ".gitmem" / "pending" / "bank" / "reflections.md"
    assert queue.exists()
    assert repo.sediment_status(at(1)).queue == ("bank/reflections.md",)
    for n in range(5):   # later runs apply one batch each
        repo.writer.write(pending.planner(repo.git), at(2 + n))
    assert not queue.exists()
    [back] = [r for r in entry.parse((Path(repo.root) / "bank" / "reflections.md").read_text())]
    assert back == done.reflection


def test_a_new_day_file_has_no_amplitude_limit(repo: MemoryRepo) -> None:
    made = reflect(repo, 1, kind="preference", role="release_manager", repeat=False)
    [done] = repo.sediment_distill(made.reflection.id, now=at(2))
    assert done.target == "bank/days/2026-12-01.md" and done.deferred == ()
    assert "check for" in (Path(repo.root) / done.target).read_text()


def test_the_sandbox_runs_before_the_amplitude_check(repo: MemoryRepo) -> None:
    big = b"".join(b"line %d\n" % i for i in range(500))
    plan: Plan[None] = Plan({"bank/TABOOS.md": big, "../escape.md": b"x\n"}, "s", "sedimentation.distill", auto=True)
    with pytest.raises(SecurityError):
        repo.writer.write(lambda parent: plan, T0)
    with pytest.raises(CheckFailed, match="automated write may grow"):
        repo.writer.write(lambda parent: Plan({"bank/TABOOS.md": b"changed\n" + big}, "s", "sedimentation.distill",
                                              auto=True), T0)


# --- promotion logic -----------------------------------------------------------------------------

def test_priority_of_exactly_15_promotes(repo: MemoryRepo) -> None:
    made = reflect(repo, 1, score=5, kind="error_fix", repeat=True)   # 5 x 2 + 5
    [p] = repo.sediment_promote(now=at(2))
    assert p.priority == 15 and p.branch == f"gitmem/review/sediment-{made.reflection.id}"


def test_priority_of_exactly_14_waits(repo: MemoryRepo) -> None:
    made = reflect(repo, 1, score=2, kind="error_fix", repeat=False)   # 2 x 2 + 10
    repo.sediment_like(made.reflection.id, now=at(1))
    assert repo.sediment_status(at(2)).reflections[0][1] == 14
    assert repo.sediment_promote(now=at(2)) == [] and repo.reviews() == []


def test_a_like_adds_ten_and_stacks(repo: MemoryRepo) -> None:
    made = reflect(repo, 1, score=1, kind="routine", repeat=False)   # 0.5
    rid = made.reflection.id
    repo.sediment_like(rid, now=at(1))
    assert repo.sediment_promote(now=at(2)) == []                     # 10.5
    repo.sediment_like(rid, now=at(3))
    [p] = repo.sediment_promote(now=at(4))                              # 20.5
    assert p.priority == 20.5 and "2 like(s) x 10" in p.formula


@pytest.mark.parametrize("kind, value", [("error_fix", 8.0), ("process", 6.0), ("preference", 4.0), ("routine", 2.0)])
def test_the_type_weights(kind: str, value: float) -> None:
    assert priority.priority(sample(kind=kind, score=4), TypeWeights()).value == value


def test_a_person_asking_promotes_below_the_threshold(repo: MemoryRepo) -> None:
    made = reflect(repo, 1, score=1, kind="routine", repeat=False)
    [p] = repo.sediment_promote(made.reflection.id, operator="user", now=at(2))
    assert p.branch and p.priority == 0.5
    assert "user_request" in repo.review_show(p.branch).semantic[0]


def test_a_reflection_is_proposed_once(repo: MemoryRepo) -> None:
    reflect(repo, 1)
    assert len(repo.sediment_promote(now=at(2))) == 1
    assert repo.sediment_promote(now=at(3)) == []
    assert len(repo.reviews()) == 1


def test_accept_writes_the_rule_logs_it_and_counts_an_approval(repo: MemoryRepo) -> None:
    made = reflect(repo, 1)
    [p] = repo.sediment_promote(now=at(2))
    reflect(repo, 2)   # main moves on: the rule is written into the target as it stands then
    repo.review_accept(branch_of(p), i_am_the_reviewer=True, now=at(4))
    taboos = (Path(repo.root) / "bank" / "TABOOS.md").read_text()
    assert f"- Rule: check for flaky clock test early (1) ({made.reflection.id}, 2026-12-01, promoted)" in taboos
    log = (Path(repo.root) / "bank" / "promotions.md").read_text()
    assert f"**Source**: reflections.md [2026-12-01] {made.reflection.id}" in log
    assert "**Trigger**: priority_threshold" in log and "= 15" in log and "## System metadata" in log
    assert state(repo).approve_streak == 1 and repo.reviews() == []


def test_a_new_skill_is_a_capability_under_the_human_veto(repo: MemoryRepo) -> None:
    reflect(repo, 1, kind="process", skill="release_checklist", score=5, repeat=True)   # 7.5 + 5
    made = repo.sediment_status(at(1)).reflections[0][0]
    [p] = repo.sediment_promote(made.id, operator="user", now=at(2))
    assert p.flags == ("capability",) and p.target == "skills/release_checklist/SKILL.md"
    shown = repo.review_show(branch_of(p))
    assert any("adds a capability" in s and "2026-12-01T10:12:00Z" in s for s in shown.semantic)
    repo.review_accept(branch_of(p), i_am_the_reviewer=True, now=at(3))
    assert "## Rules" in (Path(repo.root) / "skills" / "release_checklist" / "SKILL.md").read_text()


def test_rewriting_an_existing_rule_and_adding_a_dependency_are_marked(repo: MemoryRepo) -> None:
    import subprocess

    taboos = Path(repo.root) / "bank" / "TABOOS.md"
    taboos.write_text(taboos.read_text() + "- never deploy on a friday afternoon\n")
    subprocess.run(["git", "commit", "-qam", "a rule", "--no-verify"], cwd=repo.root, check=True)
    reflect(repo, 1, reusable="never deploy on a friday afternoon at all", tags=("dependency",))
    [p] = MemoryRepo.open(repo.root).sediment_promote(now=at(2))
    assert p.flags == ("rewrite", "dependency")


def test_a_persons_rejection_is_a_veto(repo: MemoryRepo) -> None:
    reflect(repo, 1)
    [p] = repo.sediment_promote(now=at(2))
    repo.review_reject(branch_of(p), "not general", i_am_the_reviewer=True, now=at(3))
    assert state(repo).veto_streak == 1
    assert repo.git.refs("refs/gitmem/rejected/" + branch_of(p))
    assert repo.sediment_promote(now=at(4)) == []   # never proposed again


# --- frequency monitoring (the adaptive threshold) ----------------------------------------------

def _log(*lines: str) -> list[str]:
    return [f"2026-12-01T{hm}:00Z {rest}" for hm, rest in (line.split(" ", 1) for line in lines)]


def test_three_proposals_within_an_hour_raise_it_to_20_for_the_next_hour() -> None:
    cfg = Sediment()
    lines = _log("10:00 propose a", "10:20 propose b", "10:40 propose c")
    assert threshold.current(lines, cfg, at(39)).value == 15
    assert threshold.current(lines, cfg, at(40)).value == 20
    assert threshold.current(lines, cfg, at(99)).value == 20
    assert threshold.current(lines, cfg, at(100)).value == 15
    assert threshold.current(_log("10:00 propose a", "10:30 propose b", "11:01 propose c"), cfg, at(62)).value == 15


def test_three_vetoes_in_a_row_raise_it_by_two_permanently_on_a_real_repository(repo: MemoryRepo) -> None:
    for n in range(3):
        reflect(repo, n, now=at(10 * n))
        [p] = repo.sediment_promote(now=at(10 * n + 1))
        repo.review_reject(branch_of(p), "no", i_am_the_reviewer=True, now=at(10 * n + 2))
    s = state(repo)
    assert s.threshold == 17 and s.veto_streak == 0
    status = repo.sediment_status(at(200)).threshold
    assert status.value == 17 and status.history[-1].reason == "3 vetoes in a row"
    assert '"to": 17' in (Path(repo.root) / "bank" / "promotions.md").read_text()


def test_ten_approvals_in_a_row_lower_it_by_two_and_a_veto_breaks_a_streak() -> None:
    cfg = Sediment()
    approvals = [f"2026-12-01T10:{m:02d}:00Z approve b{m}" for m in range(10)]
    assert threshold.current(approvals, cfg, at(30)).base == 13
    broken = approvals[:9] + ["2026-12-01T10:09:30Z veto x", "2026-12-01T10:10:00Z approve y"]
    t = threshold.current(broken, cfg, at(30))
    assert t.base == 15 and t.approve_streak == 1 and t.veto_streak == 0


def test_a_manual_override_wins_and_locks_automatic_changes_for_60_seconds() -> None:
    cfg = Sediment()
    locked = _log("10:00 set 20 user") + ["2026-12-01T10:00:10Z veto a", "2026-12-01T10:00:20Z veto b",
                                          "2026-12-01T10:00:30Z veto c"]
    t = threshold.current(locked, cfg, at(5))
    assert t.value == 20 and t.veto_streak == 0
    later = _log("10:00 set 20 user", "10:02 veto a", "10:03 veto b", "10:04 veto c")
    assert threshold.current(later, cfg, at(5)).value == 22
    burst_then_set = _log("10:00 propose a", "10:01 propose b", "10:02 propose c", "10:03 set 12 user")
    assert threshold.current(burst_then_set, cfg, at(10)).value == 12


def test_the_threshold_stays_within_10_and_30_and_a_default_rejection_is_no_veto() -> None:
    cfg = Sediment()
    many = [f"2026-12-01T1{h}:{m:02d}:00Z veto v{h}{m}" for h in range(3) for m in range(30)]
    assert threshold.current(many, cfg, at(600)).base == 30
    ups = [f"2026-12-01T1{h}:{m:02d}:00Z approve v{h}{m}" for h in range(3) for m in range(50)]
    assert threshold.current(ups, cfg, at(600)).base == 10
    expired = _log("10:00 expire a", "10:01 expire b", "10:02 expire c")
    t = threshold.current(expired, cfg, at(5))
    assert t.base == 15 and t.veto_streak == 0


def test_two_clones_logs_merge_by_union_and_replay_the_same(repo: MemoryRepo) -> None:
    from gitmem.store import enginestate

    a = enginestate.EngineState(decisions=tuple(_log("10:00 veto a", "10:02 veto c")))
    b = enginestate.EngineState(decisions=tuple(_log("10:01 veto b")))
    merged = enginestate.merge(None, a, b)
    assert threshold.current(merged.decisions, Sediment(), at(5)).base == 17


# --- TTL -----------------------------------------------------------------------------------------

def _deviation(repo: MemoryRepo, minutes: float, topic: str = "drifted from the goal") -> Reflected:
    made: Reflected = reflect(repo, 1, now=at(minutes), topic=topic, deviation=True, kind="routine", repeat=False)
    return made


def test_a_deviation_is_not_written_twice_within_24_hours(repo: MemoryRepo) -> None:
    assert _deviation(repo, 0).outcome == "written"
    again = _deviation(repo, 23 * 60)
    assert again.outcome == "skipped" and again.reason.startswith("ttl:")
    assert len(repo.sediment_status(at(23 * 60)).reflections) == 1


def test_after_24_hours_the_same_deviation_is_written_again(repo: MemoryRepo) -> None:
    _deviation(repo, 0)
    assert _deviation(repo, 24 * 60).outcome == "written"


def test_another_deviation_topic_is_not_held_by_the_ttl(repo: MemoryRepo) -> None:
    _deviation(repo, 0)
    assert _deviation(repo, 60, topic="lost sight of the user's question").outcome == "written"


def test_the_ttl_follows_the_configuration() -> None:
    first = sample(deviation=True, topic="Drifted  From the goal", at="2026-12-01T10:00:00Z")
    second = sample(deviation=True, topic="drifted from the goal")
    assert entry.within_ttl(second, [first], at(47 * 60), 48) == first
    assert entry.within_ttl(second, [first], at(48 * 60), 48) is None
    assert entry.within_ttl(sample(), [first], at(1), 48) is None   # not a deviation: no TTL


def test_a_repeat_within_the_ttl_is_a_guard_event(repo: MemoryRepo) -> None:
    _deviation(repo, 0)
    _deviation(repo, 60)
    kinds = [e["event_type"] for e in repo.events() if e.get("origin") == "local"]
    assert kinds[-1] == "sedimentation.guard_triggered"


# --- concurrency ---------------------------------------------------------------------------------

def _threads(work: list) -> list[BaseException]:   # type: ignore[type-arg]
    errors: list[BaseException] = []

    def run(fn: Callable[[], object]) -> None:
        try:
            fn()
        except BaseException as exc:   # noqa: BLE001 - reported below
            errors.append(exc)
    threads = [threading.Thread(target=run, args=(fn,)) for fn in work]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    return errors


def test_ten_threads_promoting_at_once_lose_nothing(repo: MemoryRepo) -> None:
    ids = [reflect(repo, n, now=at(n)).reflection.id for n in range(10)]
    root = repo.root
    errors = _threads([lambda i=i: MemoryRepo.open(root).sediment_promote(i, now=at(20)) for i in ids])
    assert errors == []
    again = MemoryRepo.open(root)
    assert sorted(r.name for r in again.reviews()) == sorted(f"gitmem/review/sediment-{i}" for i in ids)
    assert len([line for line in state(again).decisions if " propose " in line]) == 10
    assert all(r.promoted for r, _, _ in again.sediment_status(at(21)).reflections)


def test_ten_threads_promoting_the_same_reflection_open_one_review(repo: MemoryRepo) -> None:
    rid = reflect(repo, 1).reflection.id
    root = repo.root
    assert _threads([lambda: MemoryRepo.open(root).sediment_promote(rid, now=at(5)) for _ in range(10)]) == []
    assert [r.name for r in MemoryRepo.open(root).reviews()] == [f"gitmem/review/sediment-{rid}"]
    assert len([line for line in state(repo).decisions if " propose " in line]) == 1


def test_ten_threads_reflecting_at_once_keep_every_entry(repo: MemoryRepo) -> None:
    root = repo.root
    assert _threads([lambda n=n: reflect(MemoryRepo.open(root), n, now=at(1)) for n in range(10)]) == []
    assert len(entry.parse((Path(root) / "bank" / "reflections.md").read_text())) == 10


def test_ten_threads_liking_at_once_count_ten_likes(repo: MemoryRepo) -> None:
    rid = reflect(repo, 1).reflection.id
    root = repo.root
    assert _threads([lambda: MemoryRepo.open(root).sediment_like(rid, now=at(2)) for _ in range(10)]) == []
    assert MemoryRepo.open(root).sediment_status(at(3)).reflections[0][0].likes == 10


def test_decisions_and_reads_at_once(repo: MemoryRepo) -> None:
    for n in range(4):
        reflect(repo, n, now=at(n))
    root = repo.root
    proposed = MemoryRepo.open(root).sediment_promote(now=at(10))
    def rejecting(branch: str) -> Callable[[], object]:
        return lambda: MemoryRepo.open(root).review_reject(branch, "no", i_am_the_reviewer=True, now=at(11))

    work = [rejecting(branch_of(p)) for p in proposed]
    work += [lambda: MemoryRepo.open(root).sediment_status(at(11)) for _ in range(4)]
    assert _threads(work) == []
    assert len([line for line in state(repo).decisions if " veto " in line]) == 4
    assert MemoryRepo.open(root).sediment_status(at(12)).threshold.base == 17


# --- distill routing, clear, veto timeout ----------------------------------------------------------

def test_distill_routes_by_kind(repo: MemoryRepo) -> None:
    import subprocess

    skill = Path(repo.root) / "skills" / "deploy" / "SKILL.md"
    skill.parent.mkdir(parents=True)
    skill.write_text("# deploy\n")
    subprocess.run(["git", "add", "-A"], cwd=repo.root, check=True)
    subprocess.run(["git", "commit", "-qm", "skill", "--no-verify"], cwd=repo.root, check=True)
    repo = MemoryRepo.open(repo.root)
    reflect(repo, 1, kind="error_fix")
    reflect(repo, 2, kind="process", skill="deploy")
    reflect(repo, 3, kind="process", skill="unknown_skill")
    reflect(repo, 4, kind="preference", tags=("testing",), repeat=False)
    done = {d.target or d.reason[:5] for d in repo.sediment_distill(now=at(10))}
    assert done == {"bank/TABOOS.md", "skills/deploy/SKILL.md", "skill", "bank/MEMORY.md"}
    assert "## Testing" in (Path(repo.root) / "bank" / "MEMORY.md").read_text()
    assert not (Path(repo.root) / "skills" / "unknown_skill").exists()


def test_insert_puts_a_rule_at_the_end_of_its_section() -> None:
    text = "# Memory\n\n## Testing\n\n- old one\n\n## Other\n\n- x\n"
    r = sample(kind="preference", tags=("#experience", "#preference", "#testing"), reusable="new one")
    out = distill.insert(text, route_of(r), r)
    assert out == "# Memory\n\n## Testing\n\n- old one\n- new one (r-0123456789, 2026-12-01)\n\n## Other\n\n- x\n"


def test_clear_needs_confirm_and_is_one_revertible_commit(repo: MemoryRepo) -> None:
    import subprocess

    reflect(repo, 1, kind="process", skill="deploy")
    reflect(repo, 2)
    [p] = [x for x in repo.sediment_promote(now=at(5)) if x.id]
    repo.review_accept(branch_of(p), i_am_the_reviewer=True, now=at(6))
    with pytest.raises(UsageError, match="second confirmation"):
        repo.sediment_clear(confirm=False, now=at(7))
    done = repo.sediment_clear("deploy", cascade=True, confirm=True, now=at(8))
    assert done.reflections == 1 and done.promotions == 0
    done = repo.sediment_clear(cascade=True, confirm=True, now=at(9))
    assert done.reflections == 1 and done.promotions == 1
    assert entry.parse((Path(repo.root) / "bank" / "reflections.md").read_text()) == []
    subprocess.run(["git", "revert", "--no-edit", done.commit or ""], cwd=repo.root, check=True, capture_output=True)
    assert len(entry.parse((Path(repo.root) / "bank" / "reflections.md").read_text())) == 1
    assert any(e["event_type"] == "sedimentation.experience_cleared" for e in repo.events())


def test_a_marked_promotion_expires_into_a_default_rejection_that_reopen_undoes(repo: MemoryRepo) -> None:
    reflect(repo, 1, kind="process", skill="new_skill")
    rid = repo.sediment_status(at(1)).reflections[0][0].id
    [p] = repo.sediment_promote(rid, operator="user", now=at(2))
    assert repo.sediment_expire(at(11)) == []
    assert repo.sediment_expire(at(12)) == [p.branch]
    assert repo.reviews() == [] and repo.git.refs("refs/gitmem/rejected/" + branch_of(p))
    assert "Gitmem-Veto: expired" in repo.git.commit(head(repo)).message
    assert state(repo).veto_streak == 0
    assert repo.review_reopen(branch_of(p), now=at(13)) == branch_of(p)
    assert [r.name for r in repo.reviews()] == [p.branch]
    assert repo.sediment_expire(at(22)) == []          # the timeout starts again at the reopening
    repo.review_reject(branch_of(p), "no", i_am_the_reviewer=True, now=at(14))
    with pytest.raises(UsageError, match="rejected by a person"):
        repo.review_reopen(branch_of(p), now=at(15))


def test_an_unmarked_promotion_never_expires(repo: MemoryRepo) -> None:
    reflect(repo, 1)
    repo.sediment_promote(now=at(2))
    assert repo.sediment_expire(at(10_000)) == []


def test_under_min_free_mb_sedimentation_records_only(repo: MemoryRepo) -> None:
    cfg = Path(repo.root) / "gitmem.yaml"
    text = cfg.read_text()
    start = text.index("  min_free_mb:")
    end = text.index("\n", start)
    cfg.write_text(text[:start] + "  min_free_mb: 1000000" + text[end:])
    import subprocess

    subprocess.run(["git", "commit", "-qam", "tiny disk", "--no-verify"], cwd=repo.root, check=True)
    repo = MemoryRepo.open(repo.root)
    done = reflect(repo, 1, kind="process", skill="brand_new")
    assert done.outcome == "queued" and "recorded only" in done.reason
    assert (Path(repo.root) / ".gitmem" / "pending" / "bank" / "reflections.md").exists()
    assert repo.sediment_status(at(1)).degraded
    assert repo.remember("other writes go on", now=at(2)).commit   # never stops the other writes
    kinds = [e["event_type"] for e in repo.events() if e.get("origin") == "local"]
    assert "sedimentation.guard_triggered" in kinds


def test_a_missing_reflection_is_not_found(repo: MemoryRepo) -> None:
    for call in (lambda: repo.sediment_like("r-ffffffffff", now=T0),
                 lambda: repo.sediment_promote("r-ffffffffff", now=T0),
                 lambda: repo.sediment_distill("r-ffffffffff", now=T0)):
        with pytest.raises(NotFoundError):
            call()


def test_an_entry_reads_back_as_written_even_with_markdown_in_it() -> None:
    r = sample(topic="# not a heading", context="**Meta**: id=r-evil", approach="line\nbreak <!-- x -->",
               reusable="--- no rule", tags=("#experience", "#error"))
    text = "# Reflections\n" + entry.render(r)
    [back] = entry.parse(text)
    assert back.id == r.id and back.topic == r.topic and back.context == r.context and back.reusable == r.reusable
    assert "<!--" not in text and "\n# not" not in text
