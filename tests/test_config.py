"""gitmem.yaml: defaults, validation, the template, the JSON cache."""

from __future__ import annotations

import dataclasses
import hashlib
import json
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


# --- every field's range --------------------------------------------------------

NUMBERS = [(name, default, meta) for name, default, meta in config.fields_table() if meta.get("lo") is not None]
LISTS = [name for name, default, _ in config.fields_table() if isinstance(default, tuple)]


def _nested(dotted: str, value: object) -> dict[str, object]:
    data: dict[str, object] = {}
    node = data
    *parents, leaf = dotted.split(".")
    for part in parents:
        child: dict[str, object] = {}
        node[part] = child
        node = child
    node[leaf] = value
    return data


def _get(cfg: object, dotted: str) -> object:
    for part in dotted.split("."):
        cfg = getattr(cfg, part)
    return cfg


def _is_int(default: object) -> bool:
    return isinstance(default, int) and not isinstance(default, bool)


def test_the_field_table_is_complete_and_consistent() -> None:
    rows = config.fields_table()
    assert NUMBERS and LISTS, "the schema has numbers and lists"
    names = [name for name, _, _ in rows]
    assert len(names) == len(set(names))
    for name, default, meta in rows:
        assert meta.get("doc"), f"{name} has no doc"
        assert _get(config.Config(), name) == default
    for name, default, meta in NUMBERS:
        assert meta["hi"] is not None and meta["lo"] <= default <= meta["hi"], name


@pytest.mark.parametrize("name, default, meta", NUMBERS, ids=[n for n, _, _ in NUMBERS])
def test_each_number_accepts_both_ends_of_its_range(name: str, default: float, meta: dict[str, float]) -> None:
    for value in (meta["lo"], meta["hi"]):
        checked = config.check_data(_nested(name, value))
        # a cross-field rule (weight_min below weight_max) may still object; the range itself may not
        own = [p for p in checked.problems if p.field == name and not p.allowed.startswith("below")]
        assert own == [], own
        got = _get(checked.config, name)
        assert got == value and type(got) is type(default)


@pytest.mark.parametrize("name, default, meta", NUMBERS, ids=[n for n, _, _ in NUMBERS])
def test_each_number_out_of_range_is_refused_naming_field_value_and_range(
        name: str, default: float, meta: dict[str, float]) -> None:
    for value in (meta["lo"] - 1, meta["hi"] + 1):
        checked = config.check_data(_nested(name, value))
        (problem,) = [p for p in checked.problems if p.field == name]
        assert problem.value == value
        assert problem.allowed == f"[{meta['lo']}, {meta['hi']}]"
        assert str(problem) == f"{name}: {value!r} is not allowed (allowed: [{meta['lo']}, {meta['hi']}])"
        assert _get(checked.config, name) == default     # the default stands in for a refused value


@pytest.mark.parametrize("name, default, meta", NUMBERS, ids=[n for n, _, _ in NUMBERS])
def test_each_number_refuses_text_and_booleans(name: str, default: float, meta: dict[str, float]) -> None:
    kind = "an integer" if _is_int(default) else "a number"
    for value in ("0.5", True, None, [1]):
        (problem,) = [p for p in config.check_data(_nested(name, value)).problems if p.field == name]
        assert problem.allowed == f"{kind} in [{meta['lo']}, {meta['hi']}]"


def test_integer_fields_take_whole_floats_and_refuse_fractions() -> None:
    checked = config.check_data({"memory": {"short_term_days": 14.0}})
    assert checked.problems == () and checked.config.memory.short_term_days == 14
    assert isinstance(checked.config.memory.short_term_days, int)
    (problem,) = config.check_data({"memory": {"short_term_days": 7.5}}).problems
    assert problem.allowed == "an integer in [1, 365]"


@pytest.mark.parametrize("name", ["sediment.threshold", "sediment.burst_threshold", "sediment.step"])
def test_float_fields_with_whole_defaults_take_fractions(name: str) -> None:
    checked = config.check_data(_nested(name, 15.5))
    assert checked.problems == () and _get(checked.config, name) == 15.5


@pytest.mark.parametrize("name", LISTS)
def test_each_list_takes_strings_only(name: str) -> None:
    ok = config.check_data(_nested(name, ["memory", "bank"]))
    assert ok.problems == () and _get(ok.config, name) == ("memory", "bank")
    for value in ("memory", [1], ["a", None], {"a": 1}):
        (problem,) = config.check_data(_nested(name, value)).problems
        assert (problem.field, problem.value, problem.allowed) == (name, value, "a list of strings")


@pytest.mark.parametrize("data", [None, {}])
def test_empty_data_gives_the_defaults(data: object) -> None:
    checked = config.check_data(data)
    assert checked == config.Checked(config.Config(), (), ())


@pytest.mark.parametrize("data, field", [([1, 2], "(top)"), ("text", "(top)"), ({"memory": 5}, "memory"),
                                         ({"memory": {"tiers": []}}, "memory.tiers")])
def test_a_section_that_is_not_a_mapping_is_a_problem(data: object, field: str) -> None:
    checked = config.check_data(data)
    assert [(p.field, p.allowed) for p in checked.problems] == [(field, "a mapping")]


def test_version_is_not_an_unknown_key_but_others_are_at_any_depth() -> None:
    checked = config.check_data({"version": 1, "colour": 1, "sediment": {"type_weights": {"magic": 2}}})
    assert checked.warnings == ("unknown key colour (ignored)", "unknown key sediment.type_weights.magic (ignored)")
    assert checked.problems == ()


@pytest.mark.parametrize("tiers", [{"core": 0.4, "active": 0.4}, {"active": 0.1}, {"background": 0.7}])
def test_tiers_must_be_strictly_ordered(tiers: dict[str, float]) -> None:
    (problem,) = config.check_data({"memory": {"tiers": tiers}}).problems
    assert problem.field == "memory.tiers" and problem.allowed == "core > active > background"


def test_hebbian_weight_min_must_stay_below_weight_max() -> None:
    (problem,) = config.check_data({"hebbian": {"weight_min": 0.5, "weight_max": 0.5}}).problems
    assert problem.field == "hebbian.weight_min" and problem.allowed == "below hebbian.weight_max (0.5)"


def test_to_data_round_trips_through_check_data() -> None:
    cfg = config.check_data({"memory": {"decay_base": 0.9, "tiers": {"core": 0.8}},
                             "paths": {"allowed_dirs": ["memory"]}}).config
    data = config.to_data(cfg)
    assert json.loads(json.dumps(data)) == data
    assert config.check_data(data) == config.Checked(cfg, (), ())


def test_config_is_frozen() -> None:
    with pytest.raises(dataclasses.FrozenInstanceError):
        config.Config().memory.decay_base = 0.5  # type: ignore[misc]  # assigning a frozen field is the case


def test_yaml_error_carries_a_hint_and_the_file_name() -> None:
    with pytest.raises(ConfigError) as info:
        config.check_text("a: [\n", path="custom.yaml")
    assert info.value.message.startswith("custom.yaml")
    assert info.value.hint is not None and "gitmem init" in info.value.hint


# --- load and its JSON cache --------------------------------------------------------

def _cache(repo_dir: Path) -> Path:
    found = [p for p in (repo_dir / ".git").rglob("config.json")]
    assert len(found) == 1, found
    return found[0]


def test_load_without_a_config_file_gives_the_defaults(tmp_path: Path) -> None:
    assert config.load(tmp_path) == config.Config()


def test_load_writes_a_cache_keyed_by_the_file_hash(repo_dir: Path) -> None:
    config.load(repo_dir)
    cached = json.loads(_cache(repo_dir).read_text())
    assert cached["sha256"] == hashlib.sha256((repo_dir / "gitmem.yaml").read_bytes()).hexdigest()
    assert cached["data"] == config.to_data(config.Config())


def test_load_uses_the_cache_when_it_matches(repo_dir: Path) -> None:
    config.load(repo_dir)
    cache = _cache(repo_dir)
    cached = json.loads(cache.read_text())
    cached["data"]["memory"]["decay_base"] = 0.75     # only the cache says so
    cache.write_text(json.dumps(cached))
    assert config.load(repo_dir).memory.decay_base == 0.75


def test_load_ignores_a_stale_cache_and_refreshes_it(repo_dir: Path) -> None:
    config.load(repo_dir)
    (repo_dir / "gitmem.yaml").write_text("memory:\n  decay_base: 0.95\n")
    assert config.load(repo_dir).memory.decay_base == 0.95
    assert json.loads(_cache(repo_dir).read_text())["data"]["memory"]["decay_base"] == 0.95


def test_load_ignores_a_cache_of_another_schema(repo_dir: Path) -> None:
    config.load(repo_dir)
    cache = _cache(repo_dir)
    cached = json.loads(cache.read_text())
    cached.update(schema=config.SCHEMA_VERSION + 1)
    cached["data"]["memory"]["decay_base"] = 0.75
    cache.write_text(json.dumps(cached))
    assert config.load(repo_dir).memory.decay_base == 0.99


@pytest.mark.parametrize("junk", ["", "{not json", '{"sha256": 1}', '{"data": {}}', "\xff"])
def test_load_ignores_a_corrupt_cache_and_rewrites_it(repo_dir: Path, junk: str) -> None:
    config.load(repo_dir)
    cache = _cache(repo_dir)
    cache.write_text(junk)
    assert config.load(repo_dir) == config.check_text((repo_dir / "gitmem.yaml").read_text()).config
    assert json.loads(cache.read_text())["schema"] == config.SCHEMA_VERSION


@pytest.mark.parametrize("junk", ["[]", "null", "3"])
def test_load_ignores_a_cache_that_is_not_a_mapping(repo_dir: Path, junk: str) -> None:
    config.load(repo_dir)
    _cache(repo_dir).write_text(junk)
    assert config.load(repo_dir).memory.decay_base == 0.99


@pytest.mark.parametrize("data", [5, {"memory": {"decay_base": 7}}])
def test_load_ignores_a_hash_matching_cache_with_bad_data(repo_dir: Path, data: object) -> None:
    (repo_dir / "gitmem.yaml").write_text("memory:\n  decay_base: 0.95\n")
    config.load(repo_dir)
    cache = _cache(repo_dir)
    cache.write_text(json.dumps({**json.loads(cache.read_text()), "data": data}))
    assert config.load(repo_dir).memory.decay_base == 0.95


def test_an_invalid_file_is_refused_naming_every_problem_and_not_cached(repo_dir: Path) -> None:
    config.load(repo_dir)
    before = _cache(repo_dir).read_text()
    (repo_dir / "gitmem.yaml").write_text("memory:\n  decay_base: 7\n  never_forget: -1\n")
    with pytest.raises(ConfigError) as info:
        config.load(repo_dir)
    assert info.value.message == ("invalid gitmem.yaml: memory.decay_base: 7 is not allowed (allowed: [0.5, 1.0]); "
                                  "memory.never_forget: -1 is not allowed (allowed: [0.0, 1.0])")
    assert info.value.hint is not None and "gitmem check config" in info.value.hint
    assert _cache(repo_dir).read_text() == before


def test_a_yaml_syntax_error_in_the_file_names_its_line(repo_dir: Path) -> None:
    (repo_dir / "gitmem.yaml").write_text("memory:\n  decay_base: 0.9\n  tiers: [\n")
    with pytest.raises(ConfigError, match=r"^gitmem\.yaml:\d+"):
        config.load(repo_dir)


# --- the environment ------------------------------------------------------------------

@pytest.mark.parametrize("raw, expected", [("memory", ("memory",)), ("memory:bank", ("memory", "bank")),
                                           ("memory, /bank/ ,, patterns", ("memory", "bank", "patterns")),
                                           ("", ())])
def test_env_allowed_dirs_splits_on_colons_and_commas(monkeypatch: pytest.MonkeyPatch, raw: str,
                                                      expected: tuple[str, ...]) -> None:
    monkeypatch.setenv("GITMEM_ALLOWED_DIRS", raw)
    assert config.env_allowed_dirs() == expected


def test_env_allowed_dirs_unset_is_none() -> None:
    assert config.env_allowed_dirs() is None


@pytest.mark.parametrize("raw, expected", [("1", True), ("yes", True), ("true", True), ("", False),
                                           ("0", False), ("false", False), ("no", False)])
def test_env_amplitude_override(monkeypatch: pytest.MonkeyPatch, raw: str, expected: bool) -> None:
    monkeypatch.setenv("GITMEM_ALLOW_GROWTH", raw)
    assert config.env_amplitude_override() is expected


def test_template_comments_carry_each_number_range() -> None:
    text = config.render_template()
    for name, _, meta in NUMBERS:
        leaf = name.rsplit(".", 1)[-1]
        lines = [l for l in text.splitlines() if l.strip().startswith(leaf + ":")]
        assert any(l.endswith(f"[{meta['lo']}..{meta['hi']}]") for l in lines), name


def test_a_changed_template_value_is_read_back() -> None:
    text = config.render_template().replace("decay_base: 0.99", "decay_base: 0.95")
    checked = config.check_text(text)
    assert checked.problems == () and checked.config.memory.decay_base == 0.95


@pytest.mark.parametrize("text", ["", "# only a comment\n", "version: 1\n", "memory:\n"])
def test_an_empty_config_file_gives_the_defaults(repo_dir: Path, text: str) -> None:
    (repo_dir / "gitmem.yaml").write_text(text)
    assert config.load(repo_dir) == config.Config()


def test_a_non_utf8_byte_in_a_comment_does_not_break_loading(repo_dir: Path) -> None:
    (repo_dir / "gitmem.yaml").write_bytes(b"# caf\xe9\nmemory:\n  decay_base: 0.9\n")
    assert config.load(repo_dir).memory.decay_base == 0.9


def test_check_config_cli_reports_a_syntax_error(repo_dir: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (repo_dir / "gitmem.yaml").write_text("memory: [\n")
    code, out, err = run_cli(["--repo", str(repo_dir), "check", "config"], capsys)
    assert code == 1 and "gitmem.yaml" in out + err
