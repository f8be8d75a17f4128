"""What one run of gitmem's hooks holds: the report it prints, the settings it reads (from
gitmem.yaml through a JSON cache), and the staged texts it checks. Kept light: the hooks
start on every ``git commit``."""

from __future__ import annotations

import os

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Sequence

    from gitmem.guards.pii import Finding

HINTS = {
    "pii": "PII was replaced by placeholders in the working tree: review with `git diff`, "
           "then `git add` and commit again",
    "secrets": "remove the secret and rotate it if it was real; "
               "a known-safe value goes in pii.allowlist in gitmem.yaml",
    "layers": "each `<!-- gitmem:layer N name -->` marker once, in order 1-4, closed by `<!-- /gitmem:layer -->`; "
              "text placed in layers 2 and 3 must be escaped (gitmem.guards.layers.escape)",
    "layers-msg": "Layers 1 and 4 change by a person's commit, or add a `Gitmem-Approved-By: NAME` trailer",
    "layers-agent": "Layers 1 and 4 are the person's: commit that change yourself, in your own terminal outside "
                    "the agent (a merge that only brings in a Layer 1 commit made elsewhere passes)",
    "secrets-msg": "nothing was committed: write the message again without the secret (`git commit` reopens "
                   "the editor), and rotate the secret if it was real",
    "amplitude": "the limit is sediment.amplitude_max in gitmem.yaml; for a deliberate larger edit: "
                 "GITMEM_ALLOW_GROWTH=1 git commit …",
    "drift": "Layers 1+2 moved far from the baseline (the last snapshot or a pinned commit); if that is "
             "intended, commit with --no-verify, then pin the new baseline: `gitmem check drift --pin`",
    "documents": "every gitmem command would skip such a file: correct the value the line names, "
                 "or let gitmem write the memory (`gitmem remember`)",
    "config": "each field's meaning and range is commented in a fresh gitmem.yaml (`gitmem init`); "
              "`gitmem check config` lists every problem",
}

_BINARY_SNIFF = 8000  # bytes git itself looks at to call a file binary


class Report:
    """Problems and hints collected by the checks, printed once at the end."""

    def __init__(self) -> None:
        self.lines: list[str] = []
        self.failed: list[str] = []  # hooks that found problems, in order

    def problem(self, hook: str, path: str | None, line: int | None, message: str, col: int | None = None) -> None:
        where = ":".join(str(part) for part in (path, line, col) if part is not None)
        self.lines.append(f"gitmem-{hook}: {where + ': ' if where else ''}{message}")
        if hook not in self.failed:
            self.failed.append(hook)

    def note(self, hook: str, path: str | None, message: str) -> None:
        """A warning: printed, but the check still passes."""
        self.lines.append(f"gitmem-{hook}: {path + ': ' if path else ''}warning: {message}")

    def finish(self, extra_hints: dict[str, str] | None = None) -> int:
        hints = {**HINTS, **(extra_hints or {})}
        out = self.lines + [f"hint: {hints[hook]}" for hook in self.failed if hook in hints]
        if out:
            print("\n".join(out))
        return 1 if self.failed else 0


class Settings:
    """The few config values the hooks need, from gitmem.yaml.

    A plain class, not a frozen dataclass: importing dataclasses (it pulls in
    inspect) is one of the largest costs of a hook run.
    """

    __slots__ = ("allow_values", "allow_patterns", "disabled_kinds", "amplitude_max", "amplitude_floor_lines",
                 "min_cosine")

    def __init__(self, allow_values: Sequence[str], allow_patterns: Sequence[str],
                 disabled_kinds: Sequence[str], amplitude_max: float, amplitude_floor_lines: int,
                 min_cosine: float = 0.7) -> None:
        self.allow_values = frozenset(allow_values)
        self.allow_patterns = tuple(allow_patterns)
        self.disabled_kinds = frozenset(disabled_kinds)
        self.amplitude_max = float(amplitude_max)
        self.amplitude_floor_lines = int(amplitude_floor_lines)
        self.min_cosine = float(min_cosine)


class Run:
    """One hook invocation: the repository root, its settings (loaded once) and the report."""

    def __init__(self, root: str, report: Report) -> None:
        self.root = root
        self.report = report
        self._settings: Settings | None = None
        self.scans: dict[str, tuple[str, list[Finding]]] = {}
        self._texts: dict[str, str | None] = {}
        self.staged: dict[str, bytes | None] | None = None   # ``staged``: files read from the index

    def settings(self) -> Settings:
        if self._settings is None:
            self._settings = _cached_settings(self.root) or _loaded_settings(self.root)
        return self._settings

    def findings(self, path: str, text: str) -> list[Finding]:
        """Secrets and enabled PII kinds in ``text``; one scan per file even when two checks ask."""
        cached = self.scans.get(path)
        if cached is not None and cached[0] == text:
            return cached[1]
        from gitmem.guards import pii

        s = self.settings()
        allow = pii.Allowlist(values=s.allow_values, patterns=s.allow_patterns)
        found = [f for f in pii.scan(text, allow) if f.secret or f.kind not in s.disabled_kinds]
        self.scans[path] = (text, found)
        return found

    def read(self, path: str) -> str | None:
        """A staged text file as pre-commit leaves it in the work tree; None if binary or gone."""
        if path not in self._texts:
            self._texts[path] = self._read(path)
        return self._texts[path]

    def _read(self, path: str) -> str | None:
        if self.staged is not None:
            data = self.staged.get(path)
            if data is None:
                return None
        else:
            data = self._worktree(path)
            if data is None:
                return None
        if b"\0" in data[:_BINARY_SNIFF]:
            return None
        # surrogateescape: a stray non-UTF-8 byte survives a rewrite unchanged.
        return data.decode("utf-8", "surrogateescape")

    def _worktree(self, path: str) -> bytes | None:
        try:
            with open(os.path.join(self.root, path), "rb") as fh:
                return fh.read()
        except (FileNotFoundError, IsADirectoryError, NotADirectoryError):
            return None

    def write(self, path: str, text: str) -> bool:
        """Rewrite a staged file in the work tree; False (nothing written) when the work tree
        holds edits that are not staged, which a rewrite of the staged text would lose."""
        if self.staged is not None and self._worktree(path) != self.staged.get(path):
            return False
        with open(os.path.join(self.root, path), "wb") as fh:
            fh.write(text.encode("utf-8", "surrogateescape"))
        self._texts[path] = text
        return True


# --- config -----------------------------------------------------------------

def _cached_settings(root: str) -> Settings | None:
    """Settings from the JSON cache gitmem.base.config.load keeps (gitmem.base.state.config_cache_path).

    Loading the schema (gitmem.base.config: hashlib, pathlib, a dozen dataclasses)
    costs more than every check of a typical commit together, so the hooks
    read the cache config.load wrote when it is present and matches gitmem.yaml
    byte for byte.
    Anything unexpected returns None and the caller goes through config.load.
    """
    from gitmem.base.errors import GitmemError
    from gitmem.base.state import config_cache_path

    try:
        with open(os.path.join(root, "gitmem.yaml"), "rb") as fh:
            raw = fh.read()
        with open(config_cache_path(root), encoding="utf-8") as fh:
            import json

            cached = json.load(fh)
        # schema 1 is gitmem.base.config.SCHEMA_VERSION as of this writing; after a bump
        # this reads None and config.load (slower, always right) takes over.
        if cached.get("schema") != 1 or cached.get("sha256") != _sha256(raw):
            return None
        pii, sediment = cached["data"]["pii"], cached["data"]["sediment"]
        return Settings(pii["allowlist"]["values"], pii["allowlist"]["patterns"],
                        pii["disabled_kinds"], sediment["amplitude_max"], sediment["amplitude_floor_lines"],
                        cached["data"]["drift"]["min_cosine"])
    except (OSError, ValueError, KeyError, TypeError, AttributeError, GitmemError):
        return None


def _sha256(data: bytes) -> str:
    try:  # CPython 3.11's builtin module: hashlib would load OpenSSL first
        from _sha256 import sha256  # type: ignore[import-not-found]  # CPython's private module has no stub
    except ImportError:
        from hashlib import sha256
    return str(sha256(data).hexdigest())


def _loaded_settings(root: str) -> Settings:
    from pathlib import Path

    from gitmem.base import config

    cfg = config.load(Path(root))  # ConfigError propagates: the hooks fail closed
    return Settings(cfg.pii.allowlist.values, cfg.pii.allowlist.patterns,
                    cfg.pii.disabled_kinds, cfg.sediment.amplitude_max, cfg.sediment.amplitude_floor_lines,
                    cfg.drift.min_cosine)
