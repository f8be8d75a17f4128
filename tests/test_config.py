"""gitmem.yaml: defaults, validation, the template, the JSON cache."""

from __future__ import annotations

from pathlib import Path

import pytest

from gitmem.base import clock
from gitmem.base import config
from gitmem.base.errors import ConfigError
from tests.conftest import ROOT, run_cli


def test_template_holds_every_default_with_a_comment() -> None:
    text = (ROOT / "templates" / "gitmem.yaml").read_text()
    assert text == config.render_template()
    checked = config.check_text(text)
    assert checked.problems == () and checked.warnings == ()
    assert checked.config == config.Config()
    for name, _, _ in config.fields_table():
        leaf = name.rsplit(".", 1)[-1]
        line = next(l for l in text.splitlines() if l.strip().startswith(leaf + ":"))
        assert "#" in line, name


def test_out_of_range_values_are_named_with_value_and_range() -> None:
    checked = config.check_text("memory:\n  decay_base: 2\nsediment:\n  threshold: 40\nhebbian:\n  atrophy_weeks: 1.5\n")
    found = {p.field: p for p in checked.problems}
    assert set(found) == {"memory.decay_base", "sediment.threshold", "hebbian.atrophy_weeks"}
    assert "[10, 30]" in str(found["sediment.threshold"]) and "40" in str(found["sediment.threshold"])


def test_unknown_keys_warn_and_tiers_must_be_ordered() -> None:
    checked = config.check_text("memory:\n  colour: blue\n  tiers:\n    core: 0.3\n    active: 0.4\n")
    assert any("memory.colour" in w for w in checked.warnings)
    assert any(p.field == "memory.tiers" for p in checked.problems)


def test_yaml_syntax_error_names_the_line() -> None:
    with pytest.raises(ConfigError) as info:
        config.check_text("memory:\n  decay_base: [1,\n")
    assert "gitmem.yaml:" in str(info.value)


def test_load_rejects_invalid_and_caches_valid(repo_dir: Path) -> None:
    cfg = config.load(repo_dir)
    assert cfg.memory.decay_base == 0.99
    assert (repo_dir / ".git" / "gitmem" / "config.json").exists()
    (repo_dir / "gitmem.yaml").write_text("memory:\n  decay_base: 0.95\n")
    assert config.load(repo_dir).memory.decay_base == 0.95
    (repo_dir / "gitmem.yaml").write_text("memory:\n  decay_base: 7\n")
    with pytest.raises(ConfigError):
        config.load(repo_dir)


def test_check_config_cli_exit_codes(repo_dir: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run_cli(["--repo", str(repo_dir), "check", "config"], capsys)
    assert code == 0 and "ok" in out
    (repo_dir / "gitmem.yaml").write_text("memory:\n  forget_threshold: -1\n  bogus: 1\n")
    code, out, err = run_cli(["--repo", str(repo_dir), "check", "config"], capsys)
    assert code == 1
    assert "memory.forget_threshold" in out and "-1" in out and "[0.0, 1.0]" in out
    assert "memory.bogus" in err


def test_clock_from_env(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("GITMEM_NOW", "2026-01-02T03:04:05Z")
    assert clock.now().isoformat() == "2026-01-02T03:04:05+00:00"
    assert clock.now("2025-05-05").year == 2025
