"""gitmem.yaml and the environment.

Each ``GITMEM_*`` variable is read in one place, by the module that owns its
concept: ``GITMEM_ALLOWED_DIRS``, ``GITMEM_ALLOW_GROWTH``, ``GITMEM_MCP_TOKEN`` and
``GITMEM_DAEMON_TICK`` in ``gitmem.base.environment`` (re-exported here),
``GITMEM_NOW`` in ``gitmem.base.clock``, ``GITMEM_DIR`` in ``gitmem.base.state``
(finding the repository must not load this schema: recall starts in milliseconds).

The schema of gitmem.yaml is parsed and validated once into a frozen ``Config``.
Each field carries its allowed range in its metadata, so validation,
``gitmem check config`` and the template test all read one table.

The pre-commit hooks must not import ruamel.yaml (it costs ~35 ms on every
commit), so a validated config is cached as JSON in the per-clone state folder,
keyed by the hash of gitmem.yaml; ``load`` uses the cache when it matches and is
the one reader of that cache (the hooks call ``cached``).
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from gitmem.base.environment import (env_allowed_dirs as env_allowed_dirs, env_amplitude_override as env_amplitude_override,
                                     env_daemon_tick as env_daemon_tick, env_mcp_token as env_mcp_token)
from gitmem.base.errors import ConfigError
from gitmem.base.model import MAX_CONTENT_BYTES as MAX_CONTENT_BYTES  # the readers' bound (re-exported)

CONFIG_FILE = "gitmem.yaml"
SCHEMA_VERSION = 1


def _f(default: Any, lo: float | None = None, hi: float | None = None, doc: str = "") -> Any:
    return field(default=default, metadata={"lo": lo, "hi": hi, "doc": doc})


def _lf(default: tuple[str, ...], doc: str = "") -> Any:
    return field(default=default, metadata={"lo": None, "hi": None, "doc": doc})


def _cf(default: str, choices: tuple[str, ...], doc: str = "") -> Any:
    return field(default=default, metadata={"lo": None, "hi": None, "doc": doc, "choices": choices})


@dataclass(frozen=True)
class Hebbian:
    initial_weight: float = _f(0.30, 0.0, 0.99, "weight of a new pattern")
    learning_rate: float = _f(0.05, 0.0, 1.0, "weight gained when a session activates a pattern")
    decay: float = _f(0.02, 0.0, 1.0, "weight lost when a session does not activate it")
    weight_min: float = _f(0.0, 0.0, 1.0, "floor of a pattern's weight")
    weight_max: float = _f(0.95, 0.0, 0.99, "ceiling; no weight ever reaches 1.0")
    delete_below: float = _f(0.10, 0.0, 1.0, "under this weight for atrophy_weeks, an atrophy branch deletes it")
    atrophy_weeks: int = _f(4, 1, 52, "weeks under delete_below before atrophy")
    emergent_after: int = _f(5, 1, 1000, "consecutive activated sessions: episodic -> emergent")
    strong_weight: float = _f(0.8, 0.0, 1.0, "weight above which a pattern may become strong")
    strong_after: int = _f(20, 1, 10000, "sessions above strong_weight: emergent -> strong")
    forced_review_after: int = _f(3, 1, 100, "consecutive automatic changes before a review is forced")


@dataclass(frozen=True)
class Drift:
    min_cosine: float = _f(0.7, 0.0, 1.0, "alert when Layers 1+2 drift below this cosine to the baseline")


@dataclass(frozen=True)
class Tiers:
    core: float = _f(0.7, 0.0, 1.0, "effective importance >= core: loaded at session start")
    active: float = _f(0.4, 0.0, 1.0, "active band from here up to core")
    background: float = _f(0.2, 0.0, 1.0, "background band (specific search only); below it: fading")


@dataclass(frozen=True)
class Memory:
    decay_base: float = _f(0.99, 0.5, 1.0, "effective importance = base x decay_base ^ days since last access")
    reinforce_boost: float = _f(0.10, 0.0, 1.0, "importance gained (relative) when a memory is reinforced")
    reinforce_similarity: float = _f(0.0, 0.0, 1.0, "similarity needed to reinforce instead of create; 0 = the encoder's default")
    tiers: Tiers = field(default_factory=Tiers)
    short_term_days: int = _f(7, 1, 365, "days a week-decay step lasts for short-term memories")
    decay_rate: float = _f(0.1, 0.0, 1.0, "each full week unaccessed costs a short-term memory this fraction")
    forget_threshold: float = _f(0.2, 0.0, 1.0, "a short-term memory under this is archived")
    reflect_trigger: int = _f(20, 1, 100000, "new memories that trigger a reflect")
    max_short_term: int = _f(100, 1, 10_000_000, "cap on short-term memories (lowest archived first)")
    max_long_term: int = _f(500, 1, 10_000_000, "cap on long-term memories (lowest archived first)")
    never_forget: float = _f(0.9, 0.0, 1.0, "importance at or above this is never forgotten")
    max_change_share: float = _f(0.10, 0.0, 1.0, "an automated run archiving more live memories than this "
                                 "share of them (and more than 50) opens an archive review instead")
    working_keep: float = _f(0.6, 0.0, 1.0, "working notes at or above this importance move to short-term memory at session end")


@dataclass(frozen=True)
class TypeWeights:
    error_fix: float = _f(2.0, 0.0, 10.0, "weight of an error fix in promotion priority")
    process: float = _f(1.5, 0.0, 10.0, "weight of a process")
    preference: float = _f(1.0, 0.0, 10.0, "weight of a preference")
    routine: float = _f(0.5, 0.0, 10.0, "weight of a routine")


@dataclass(frozen=True)
class Sediment:
    threshold: float = _f(15.0, 10, 30, "promotion priority threshold")
    type_weights: TypeWeights = field(default_factory=TypeWeights)
    burst_promotions: int = _f(3, 1, 100, "promotions within an hour that raise the threshold")
    burst_threshold: float = _f(20.0, 10, 30, "threshold for the hour after a burst")
    veto_streak: int = _f(3, 1, 100, "vetoes in a row that raise the threshold by step")
    approve_streak: int = _f(10, 1, 1000, "approvals in a row that lower it by step")
    step: float = _f(2.0, 0, 20, "threshold change after a streak")
    override_lock_seconds: int = _f(60, 0, 86400, "a manual override locks automatic changes this long")
    amplitude_max: float = _f(0.05, 0.0, 1.0, "an automated write may grow an existing file by this fraction at most")
    amplitude_floor_lines: int = _f(10, 0, 10_000, "... or by this many lines, whichever allows more")
    ttl_hours: int = _f(24, 1, 8760, "a deviation reflection is not written twice within this time (> 0)")
    veto_timeout_minutes: int = _f(10, 1, 525600, "a promotion that adds a capability, rewrites a rule or adds a "
                                   "dependency is rejected by default when no person accepts it within this")
    skills: tuple[str, ...] = _lf((), "skill names sedimentation knows (letters, digits, underscore; 1-64 "
                                  "characters); a process reflection naming another one proposes a new skill")
    max_content_bytes: int = _f(1_048_576, 1, MAX_CONTENT_BYTES, "largest file a write may carry (1 MiB)")
    min_free_mb: int = _f(50, 0, 1_000_000, "under this much free disk, sedimentation records only (no new file)")


@dataclass(frozen=True)
class Analyze:
    min_sessions: int = _f(3, 1, 100000, "analyze proposes merging two patterns only when at least this many "
                                         "sessions activated both")


@dataclass(frozen=True)
class Daemon:
    harvest_minutes: int = _f(5, 1, 10080, "the daemon harvests the session folders every N minutes")
    reflect_minutes: int = _f(30, 1, 10080, "reflect every N minutes, only after new writes")
    decay_hours: int = _f(24, 1, 8760, "run decay every N hours")
    session_folders: tuple[str, ...] = _lf(("~/.claude/projects", "~/.openclaw/agents"),
                                           "where agents write session logs (cron, the daemon and post-session harvest them)")


@dataclass(frozen=True)
class Budgets:
    claude_md_lines: int = _f(200, 20, 100000, "rendered CLAUDE.md stays within this many lines")
    core_chars: int = _f(10000, 200, 10_000_000, "load-core output stays within this many characters")


DEFAULT_ALLOWED = (
    "memory", "archive", "patterns", "episodes", "bank", "skills", ".gitmem",
    "CLAUDE.md", "HIPPOCAMPUS_CORE.md", "patterns.md",
)


@dataclass(frozen=True)
class Paths:
    allowed_dirs: tuple[str, ...] = _lf(DEFAULT_ALLOWED, "folders (and top-level files) automated writes may touch")


@dataclass(frozen=True)
class Allow:
    values: tuple[str, ...] = _lf((), "exact values never reported as PII or secrets")
    patterns: tuple[str, ...] = _lf((), "regexes (full match) never reported")


@dataclass(frozen=True)
class Pii:
    allowlist: Allow = field(default_factory=Allow)
    disabled_kinds: tuple[str, ...] = _lf((), "kinds not reported (secrets and email/phone/home_path cannot be disabled)")


@dataclass(frozen=True)
class Config:
    hebbian: Hebbian = field(default_factory=Hebbian)
    drift: Drift = field(default_factory=Drift)
    memory: Memory = field(default_factory=Memory)
    sediment: Sediment = field(default_factory=Sediment)
    analyze: Analyze = field(default_factory=Analyze)
    daemon: Daemon = field(default_factory=Daemon)
    budgets: Budgets = field(default_factory=Budgets)
    paths: Paths = field(default_factory=Paths)
    pii: Pii = field(default_factory=Pii)
    sharing: str = _cf("personal", ("personal", "team"),
                       "team: each person's user, self and relationship memories live in a folder of their own")


@dataclass(frozen=True)
class Problem:
    """One invalid field: its dotted name, the value found, the allowed range."""

    field: str
    value: Any
    allowed: str

    def __str__(self) -> str:
        return f"{self.field}: {self.value!r} is not allowed (allowed: {self.allowed})"


@dataclass(frozen=True)
class Checked:
    config: Config
    problems: tuple[Problem, ...]
    warnings: tuple[str, ...]


def fields_table(cls: type = Config, prefix: str = "") -> list[tuple[str, Any, dict[str, Any]]]:
    """Every leaf field as (dotted name, default, metadata), in declaration order."""
    rows: list[tuple[str, Any, dict[str, Any]]] = []
    for f in dataclasses.fields(cls):
        name = f"{prefix}{f.name}"
        if f.default_factory is not dataclasses.MISSING:  # a nested section
            rows.extend(fields_table(f.default_factory, name + "."))  # type: ignore[arg-type]  # a section's factory is its dataclass
        else:
            rows.append((name, f.default, dict(f.metadata)))
    return rows


# Keys earlier versions wrote into gitmem.yaml that nothing reads any more, with what took their place.
RETIRED = {
    "review": "a capability promotion times out after sediment.veto_timeout_minutes (review.expire_minutes "
              "was its earlier name and was never applied)",
}


def _build(cls: type, data: Any, prefix: str, problems: list[Problem], warnings: list[str]) -> Any:
    if data is None:
        data = {}
    if not isinstance(data, dict):
        problems.append(Problem(prefix.rstrip(".") or "(top)", data, "a mapping"))
        return cls()
    known = {f.name: f for f in dataclasses.fields(cls)}
    for key in data:
        if f"{prefix}{key}" in RETIRED:
            warnings.append(f"{prefix}{key} is no longer read: {RETIRED[f'{prefix}{key}']}; remove it")
        elif key not in known and key != "version":
            warnings.append(f"unknown key {prefix}{key} (ignored)")
    values: dict[str, Any] = {}
    for name, f in known.items():
        if name not in data:
            continue
        dotted = f"{prefix}{name}"
        raw = data[name]
        if f.default_factory is not dataclasses.MISSING:
            values[name] = _build(f.default_factory, raw, dotted + ".", problems, warnings)  # type: ignore[arg-type]  # a section's factory is its dataclass
            continue
        value = _coerce(dotted, f.default, f.metadata, raw, problems, is_int=f.type in ("int", int))
        if value is not None:
            values[name] = value
    return cls(**values)


def _coerce(dotted: str, default: Any, meta: Any, raw: Any, problems: list[Problem], is_int: bool) -> Any:
    lo, hi = meta.get("lo"), meta.get("hi")
    choices = meta.get("choices")
    if choices:
        if raw not in choices:
            problems.append(Problem(dotted, raw, " or ".join(choices)))
            return None
        return str(raw)
    if isinstance(default, tuple):
        if not isinstance(raw, list) or not all(isinstance(x, str) for x in raw):
            problems.append(Problem(dotted, raw, "a list of strings"))
            return None
        return tuple(raw)
    if isinstance(raw, bool) or not isinstance(raw, (int, float)) or (is_int and isinstance(raw, float) and not raw.is_integer()):
        problems.append(Problem(dotted, raw, f"{'an integer' if is_int else 'a number'} in [{lo}, {hi}]"))
        return None
    if (lo is not None and raw < lo) or (hi is not None and raw > hi):
        problems.append(Problem(dotted, raw, f"[{lo}, {hi}]"))
        return None
    return int(raw) if is_int else float(raw)


SKILL_NAME = r"[A-Za-z0-9_]{1,64}"


def skill_problem(name: object) -> str | None:
    """Why ``name`` is no skill name (ASCII letters, digits and underscore, 1-64 characters), or None."""
    import re

    if not isinstance(name, str) or not re.fullmatch(SKILL_NAME, name):
        return f"skill name {name!r} is not 1-64 letters, digits or underscores"
    return None


def _cross_checks(cfg: Config, problems: list[Problem]) -> None:
    t = cfg.memory.tiers
    if not t.core > t.active > t.background:
        problems.append(Problem("memory.tiers", {"core": t.core, "active": t.active, "background": t.background},
                                "core > active > background"))
    for name in cfg.sediment.skills:
        if skill_problem(name):
            problems.append(Problem("sediment.skills", name, "1-64 letters, digits or underscores"))
    h = cfg.hebbian
    if not h.weight_min < h.weight_max:
        problems.append(Problem("hebbian.weight_min", h.weight_min, f"below hebbian.weight_max ({h.weight_max})"))


def _meaning_checks(data: Any, cfg: Config, problems: list[Problem]) -> None:
    """Values of the right type that cannot mean what they say: a version this gitmem does not know, a regex
    that does not compile, a writable folder outside the repository, a session folder that is everything."""
    import re

    version = data.get("version", SCHEMA_VERSION) if isinstance(data, dict) else SCHEMA_VERSION
    if isinstance(version, bool) or version != SCHEMA_VERSION:
        problems.append(Problem("version", version, f"{SCHEMA_VERSION}, the version this gitmem reads"))
    for pattern in cfg.pii.allowlist.patterns:
        try:
            re.compile(pattern)
        except (re.error, RecursionError, OverflowError) as exc:
            problems.append(Problem("pii.allowlist.patterns", pattern, f"a regular expression that compiles ({exc})"))
    for folder in cfg.paths.allowed_dirs:
        parts = folder.replace("\\", "/").split("/")
        if (not folder.strip() or folder.startswith(("/", "~")) or ".." in parts or "." in parts
                or parts[0].lower() == ".git"):
            problems.append(Problem("paths.allowed_dirs", folder,
                                    "a folder or top-level file inside the repository: no '..', no absolute path, "
                                    "not .git"))
    for folder in cfg.daemon.session_folders:
        real = os.path.realpath(os.path.expandvars(os.path.expanduser(folder)))
        if real in (os.sep, os.path.realpath(os.path.expanduser("~"))) or not folder.strip():
            problems.append(Problem("daemon.session_folders", folder,
                                    "a folder agents write session logs to, not the root or the home folder"))


def check_data(data: Any) -> Checked:
    """Validate parsed YAML; never raises for bad values, reports them."""
    problems: list[Problem] = []
    warnings: list[str] = []
    cfg = _build(Config, data, "", problems, warnings)
    _cross_checks(cfg, problems)
    _meaning_checks(data, cfg, problems)
    return Checked(cfg, tuple(problems), tuple(warnings))


def check_text(text: str, path: str = CONFIG_FILE) -> Checked:
    """Parse and validate gitmem.yaml text; a YAML syntax error is a ConfigError."""
    from gitmem.base import yamlio

    try:
        data = yamlio.load_safe(text)
    except yamlio.YamlProblem as exc:
        where = f"{path}:{exc.line}" if exc.line else path
        raise ConfigError(f"{where}: {exc.problem}", hint="fix the YAML syntax, or compare with a fresh `gitmem init`") from None
    return check_data(data)


def _cache_path(root: Path) -> Path | None:
    """Where the validated config is cached (per work tree, found through git); None outside git."""
    from gitmem.base.errors import NotARepoError
    from gitmem.base.state import config_cache_path

    try:
        return Path(config_cache_path(root))
    except (NotARepoError, OSError):
        return None


def load(root: Path) -> Config:
    """The repository's validated config; raises ConfigError on invalid values."""
    path = root / CONFIG_FILE
    try:
        raw = path.read_bytes()
    except FileNotFoundError:
        return Config()
    digest = hashlib.sha256(raw).hexdigest()
    cache = _cache_path(root)
    try:
        cached = json.loads(cache.read_text()) if cache is not None else {}
        if isinstance(cached, dict) and cached.get("sha256") == digest and cached.get("schema") == SCHEMA_VERSION:
            from_cache = check_data(cached["data"])
            if not from_cache.problems and not from_cache.warnings:
                return from_cache.config
    except (OSError, ValueError, KeyError, TypeError):
        pass
    checked = check_text(raw.decode("utf-8", errors="replace"), str(path.name))
    if checked.problems:
        raise ConfigError(
            "invalid gitmem.yaml: " + "; ".join(str(p) for p in checked.problems),
            hint="run `gitmem check config` for the full list, then fix gitmem.yaml",
        )
    try:
        if cache is None:
            return checked.config
        from gitmem.base.files import write_atomic

        record = {"sha256": digest, "schema": SCHEMA_VERSION, "data": to_data(checked.config)}
        write_atomic(cache, json.dumps(record), make_folders=True)
    except OSError:
        pass  # a read-only clone still works, it just parses every time
    return checked.config


def to_data(cfg: Any) -> Any:
    """A config (or section) as plain JSON-able data."""
    if dataclasses.is_dataclass(cfg):
        return {f.name: to_data(getattr(cfg, f.name)) for f in dataclasses.fields(cfg)}
    if isinstance(cfg, tuple):
        return list(cfg)
    return cfg


def render_template() -> str:
    """gitmem.yaml with every default and a comment on each (templates/gitmem.yaml)."""
    lines = ["# gitmem configuration. Every value below is the default; `gitmem check config`",
             "# validates this file (exit 1 names each bad field, its value and the allowed range).",
             f"version: {SCHEMA_VERSION}"]
    last: list[str] = []
    for name, default, meta in fields_table():
        parts = name.split(".")
        common = 0
        while common < min(len(last), len(parts) - 1) and last[common] == parts[common]:
            common += 1
        for depth in range(common, len(parts) - 1):
            if depth == 0:
                lines.append("")
            lines.append("  " * depth + parts[depth] + ":")
        if len(parts) == 1 and last:
            lines.append("")
        last = parts[:-1]
        indent = "  " * (len(parts) - 1)
        value = "[" + ", ".join(default) + "]" if isinstance(default, tuple) else \
            default if isinstance(default, str) else repr(default)
        rng = f" [{meta['lo']}..{meta['hi']}]" if meta.get("lo") is not None else \
            f" ({' | '.join(meta['choices'])})" if meta.get("choices") else ""
        lines.append(f"{indent}{parts[-1]}: {value}  # {meta.get('doc', '')}{rng}")
    return "\n".join(lines) + "\n"
