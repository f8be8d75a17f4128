"""The optional embedding model as the use cases use it: the model the git config names, loaded once per
process, the vectors of an index's memories, and the dense ranking recall fuses with the lexical one.

``git config [--global] gitmem.embed-model SPEC`` (a model folder or zip, or
the distribution name of an installed package that ships one; never
gitmem.yaml, which is committed) turns it on. Without it nothing here imports
numpy or the model: ``setting`` reads the git config files as text and asks
git only when one of them mentions the key (or includes another file).

A model loads once per process (``model``): ``recall --batch``, the daemon and
the MCP server keep it. The vectors of an index's memories are kept in the
clone's vector store (``gitmem.store.vectors``) and stacked once per index
state (``vectors_of``); a memory whose text has no vector yet is encoded then.

Encoding never holds a recall for long: one recall encodes at most
``RECALL_BUDGET`` missing texts (the newest memories first) and ranks the
rest lexically only (they are absent from the dense list, so fusion gives
them their lexical rank alone); the next recall goes on where it stopped, and
the stacked matrix is kept once every memory has its vector. ``recall --batch``
(``budget=None``) encodes all before its first question: a batch wants them all.
"""

from __future__ import annotations

import os

TYPE_CHECKING = False  # the recall path: annotations only
if TYPE_CHECKING:
    from pathlib import Path
    from typing import Any

    from collections.abc import Sequence

    from gitmem.base.embed.model import Model
    from gitmem.base.embed.vectors import Matrix
    from gitmem.engines.drift import Meaning
    from gitmem.engines.grouping import Near
    from gitmem.engines.recall import Dense
    from gitmem.store.index import Filters, Index
    from gitmem.store.vectors import Vectors

__all__ = ["KEY", "RECALL_BUDGET", "configured", "dense", "meaning", "model", "near", "ranker", "setting",
           "text_cosine", "vectors_of"]

KEY = "gitmem.embed-model"
RECALL_BUDGET = 32   # missing texts one recall encodes (about 7 s at 4.6 texts/s on a loaded 2-core machine)
_ENCODE_CHUNK = 256   # texts encoded, then stored, at a time: an interrupted first run keeps what it did
_models: dict[str, Model] = {}
_loading: dict[str, Any] = {}   # spec -> the lock its first load holds
_matrices: dict[tuple[str, str, str], Matrix] = {}
_warned: set[str] = set()


def _config_files(root: Path | str) -> list[str] | None:
    """The git config files that apply to the clone at ``root``, or None when the environment adds settings."""
    from gitmem.base import state

    env = os.environ
    if any(name in env for name in ("GIT_CONFIG", "GIT_CONFIG_COUNT", "GIT_CONFIG_PARAMETERS")):
        return None
    git_dir, common = state.git_dir_names(root)   # strings: no pathlib in a recall process
    files = [os.path.join(common, "config"), os.path.join(git_dir, "config.worktree")]
    if "GIT_CONFIG_GLOBAL" in env:
        files.append(env["GIT_CONFIG_GLOBAL"])
    else:
        home = os.path.expanduser("~")
        xdg = env.get("XDG_CONFIG_HOME") or os.path.join(home, ".config")
        files += [os.path.join(home, ".gitconfig"), os.path.join(xdg, "git", "config")]
    if env.get("GIT_CONFIG_NOSYSTEM", "").lower() not in ("1", "true", "yes", "on"):
        files.append(env.get("GIT_CONFIG_SYSTEM") or "/etc/gitconfig")
    return files


def _may_be_set(root: Path | str) -> bool:
    """Whether any git config could name the model (cheap: no git process, no pygit2): some config file
    mentions the key or includes another file, or the environment adds settings."""
    files = _config_files(root)
    if files is None:
        return True
    for path in files:
        try:
            with open(path, "rb") as f:
                text = f.read().lower()
        except OSError:
            continue
        if b"embed-model" in text or b"[include" in text:
            return True
    return False


def setting(root: Path | str) -> str | None:
    """The model ``gitmem.embed-model`` names for the clone at ``root`` (its config, then the user's), or None."""
    if not _may_be_set(root):
        return None
    from gitmem.base.gitio import attempt

    value = (attempt(root, "config", "--get", KEY) or b"").decode("utf-8", "replace").strip()
    return value or None


def model(spec: str) -> Model:
    """The model ``spec`` names, loaded on first use and kept for the life of the process."""
    found = _models.get(spec)
    if found is not None:
        return found
    import threading

    with _loading.setdefault(spec, threading.Lock()):   # the daemon's threads: one load, not one each
        found = _models.get(spec)
        if found is None:
            try:
                from gitmem.base.embed.model import load
            except ImportError as exc:
                from gitmem.base.errors import ConfigError

                raise ConfigError(f"{KEY} is set but the embedding extra is not installed ({exc.name} is missing)",
                                  hint="pip install 'gitmem-agent[embed]', or git config --unset "
                                       f"{KEY} for lexical recall") from None
            _models[spec] = found = load(spec)
    return found


def _encode_into(store: Vectors, encoder: Model, have: dict[bytes, bytes], todo: list[tuple[bytes, str]]) -> None:
    """Encode the (digest, text) pairs of ``todo`` into ``store`` and ``have``, a chunk at a time."""
    from gitmem.base.embed.vectors import blob

    for start in range(0, len(todo), _ENCODE_CHUNK):
        part = todo[start:start + _ENCODE_CHUNK]
        made = [(d, blob(v)) for (d, _), v in zip(part, encoder.encode([text for _, text in part]))]
        store.put(made)
        have.update(made)


def vectors_of(index: Index, encoder: Model, store: Vectors, budget: int | None = None) -> tuple[Matrix, int]:
    """The unit vectors of the memories of ``index`` (not its episodes) and how many still lack one:
    the texts ``store`` lacks are encoded, at most ``budget`` of them (None: all), newest memories first;
    a memory left without a vector is left out of the matrix."""
    from gitmem.base.embed.vectors import Matrix, stack
    from gitmem.store.index import EPISODE
    from gitmem.store.vectors import digest

    rows = [(r.id, r.content, r.created) for r in index.rows() if r.type != EPISODE]
    digests = [digest(content) for _, content, _ in rows]
    have = store.get(digests)
    missing: dict[bytes, tuple[str, str]] = {}
    for d, (_, content, created) in zip(digests, rows):
        if d not in have and (d not in missing or created > missing[d][1]):
            missing[d] = (content, created)
    todo = sorted(missing.items(), key=lambda item: item[1][1], reverse=True)[:budget]
    _encode_into(store, encoder, have, [(d, content) for d, (content, _) in todo])
    kept = [i for i, d in enumerate(digests) if d in have]
    left = len(rows) - len(kept)
    return Matrix([rows[i][0] for i in kept], stack([have[digests[i]] for i in kept], encoder.dim)), left


def ranker(index: Index, encoder: Model, matrix: Matrix) -> Dense:
    """The dense ranking over ``matrix`` for the engine: memories nearest a query that pass the filters."""

    def rank(query: str, n: int, filters: Filters) -> list[tuple[str, float]]:
        vector = encoder.encode([query])[0]
        wanted, kept = 4 * n, []
        while True:
            near = matrix.nearest(vector, wanted)
            ok = set()
            for start in range(0, len(near), 500):
                ok |= index.passing([key for key, _ in near[start:start + 500]], filters)
            kept = [(key, cos) for key, cos in near if key in ok][:n]
            if len(kept) >= n or len(near) >= len(matrix):
                return kept
            wanted *= 8   # the filters keep few: look further down
    return rank


def configured(root: Path | str, use: str) -> Model | None:
    """The model the clone at ``root`` names, loaded; None when it names none or it cannot load (then a
    warning, once per process, says why and that ``use`` stays lexical)."""
    spec = setting(root)
    if spec is None:
        return None
    from gitmem.base.errors import ConfigError

    try:
        return model(spec)
    except ConfigError as exc:
        if exc.message not in _warned:
            from gitmem.base.notice import warn

            _warned.add(exc.message)
            warn(f"{exc.message}; {use} stays lexical" + (f" ({exc.hint})" if exc.hint else ""))
        return None


def meaning(root: Path) -> Meaning | None:
    """The model's cosine of two texts for drift, or None without a model. A text is encoded line by line
    (a CLAUDE.md layer is longer than the model reads at once) and stands for the mean of its lines."""
    encoder = configured(root, "drift")
    return None if encoder is None else text_cosine(encoder)


def text_cosine(encoder: Model) -> Meaning:
    """The cosine of two texts by ``encoder``, each the unit mean of its non-empty lines' vectors."""
    from gitmem.base.embed.vectors import centroid, cosine

    def of(text: str) -> Any:
        return centroid(encoder.encode([line for line in text.splitlines() if line.strip()] or [text]))

    return lambda a, b: cosine(of(a), of(b))


def near(root: Path) -> Near | None:
    """The model's close pairs of texts for reflect's grouping (``gitmem.engines.grouping.Near``), or None
    without a model. The texts are memories: their vectors come from the clone's store, and those it
    lacks are encoded and kept there (all of them: reflect is a job, not a question waiting)."""
    encoder = configured(root, "reflect's grouping")
    if encoder is None:
        return None
    from gitmem.base import state
    from gitmem.base.embed.vectors import close_pairs, stack
    from gitmem.engines.grouping import DENSE_FLOOR
    from gitmem.store.vectors import FILE, Vectors, digest

    def pairs(texts: Sequence[str]) -> dict[tuple[int, int], float]:
        digests = [digest(t) for t in texts]
        store = Vectors(state.shared_dir(root) / FILE, encoder.key)
        try:
            have = store.get(digests)
            _encode_into(store, encoder, have, list({d: t for d, t in zip(digests, texts) if d not in have}.items()))
        finally:
            store.close()
        return close_pairs(stack([have[d] for d in digests], encoder.dim), DENSE_FLOOR)

    return pairs


def dense(root: Path | str, index: Index, budget: int | None = RECALL_BUDGET) -> Dense | None:
    """The dense ranking over the open ``index`` of the clone at ``root``, or None when no model is configured
    (or it cannot load: then a warning says why, and recall stays lexical). At most ``budget`` memories
    without a vector are encoded now (None: all); those still without one are ranked lexically only."""
    encoder = configured(root, "recall")
    if encoder is None:
        return None
    key = (index.path, index.get_meta("commit") or "", encoder.key)
    matrix = _matrices.get(key) if key[1] else None
    if matrix is None:
        from gitmem.base import state
        from gitmem.store.vectors import FILE, Vectors

        store = Vectors(state.shared_dir(root) / FILE, encoder.key)
        try:
            matrix, left = vectors_of(index, encoder, store, budget)
        finally:
            store.close()
        if key[1] and not left:   # an incomplete matrix is stacked again by the next recall, which goes on
            _matrices.clear()   # one index state per process is enough: the daemon follows HEAD
            _matrices[key] = matrix
    return ranker(index, encoder, matrix)
