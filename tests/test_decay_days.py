"""Decay counts whole days since the last access (DESIGN.md section 5)."""

from __future__ import annotations

from datetime import timedelta

import pytest

from gitmem.api import MemoryRepo
from gitmem.base.clock import parse_time
from gitmem.base.config import Memory as MemoryConfig
from gitmem.engines import decay

T = parse_time("2026-11-29T12:00:00Z")


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

    from conftest import run_cli

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
