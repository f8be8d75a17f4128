"""Recall's fusion point and the embedding model's switch, without the model: the reciprocal-rank fusion
(gitmem.engines.fusion), and a recall that stays lexical, imports neither numpy nor tokenizers, and warns
when ``gitmem.embed-model`` names what cannot load."""

from __future__ import annotations

import subprocess
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

import pytest

from gitmem.api import embedding
from gitmem.api.recall import recall_at
from gitmem.engines.fusion import fuse
from gitmem.store.current import open_index
from tests.conftest import run_python

NOW = datetime(2026, 11, 29, 12, 0, tzinfo=timezone.utc)


def test_a_memory_high_in_both_rankings_comes_first() -> None:
    fused = fuse(["a", "b", "c"], ["d", "b", "e"], k=5, weight=1.0, rrf_k=60.0)
    assert [key for key, _ in fused] == ["b", "a", "d", "c", "e"]   # b: 1/62 + 1/62; a and d: 1/61 alone
    assert fused[0][1] == pytest.approx((2 / 62) / (2 / 61))


def test_first_in_both_scores_one_and_a_tie_keeps_the_lexical_order() -> None:
    assert [(key, round(score, 9)) for key, score in fuse(["a"], ["a"], k=1)] == [("a", 1.0)]
    assert [key for key, _ in fuse(["x", "y"], ["y", "x"], k=2, weight=1.0)] == ["x", "y"]


def test_the_weight_and_the_depth_bound_what_the_dense_ranking_adds() -> None:
    assert [key for key, _ in fuse(["a", "b"], ["b", "a"], k=2, weight=2.0)] == ["b", "a"]
    assert [key for key, _ in fuse(["a"], ["z", "y"], k=3, depth=1)] == ["a", "z"]
    assert fuse([], [], k=5) == []


def remember(repo: Any, text: str) -> str:
    return str(repo.remember(text, now=NOW, dedupe=False).id)


def test_without_the_setting_recall_imports_no_model_library(repo: Any, repo_dir: Path) -> None:
    remember(repo, "The release train leaves every Tuesday")
    open_index(repo_dir).close()  # brings the index to HEAD: a fresh index imports no pygit2 either
    code = ("import sys; from pathlib import Path; from gitmem.api.recall import recall_at; "
            f"found = recall_at(Path({str(repo_dir)!r}), 'release train', log=False); "
            "print(len(found), 'numpy' in sys.modules, 'tokenizers' in sys.modules, 'pygit2' in sys.modules)")
    out = run_python(code, repo_dir)
    assert out.returncode == 0, out.stderr
    assert out.stdout.split() == ["1", "False", "False", "False"]


def git_config(repo_dir: Path, *args: str) -> None:
    subprocess.run(["git", "config", *args], cwd=repo_dir, check=True)


def test_the_setting_is_read_from_the_clone_then_the_user(repo_dir: Path, tmp_path: Path) -> None:
    assert embedding.setting(repo_dir) is None
    git_config(repo_dir, "--global", "gitmem.embed-model", "user-model")
    assert embedding.setting(repo_dir) == "user-model"
    git_config(repo_dir, "gitmem.embed-model", str(tmp_path / "clone-model"))
    assert embedding.setting(repo_dir) == str(tmp_path / "clone-model")


def test_a_setting_only_an_included_file_holds_is_found(repo_dir: Path, tmp_path: Path) -> None:
    extra = tmp_path / "extra.gitconfig"
    extra.write_text("[gitmem]\n\tembed-model = included-model\n", encoding="utf-8")
    git_config(repo_dir, "include.path", str(extra))
    assert embedding.setting(repo_dir) == "included-model"


def test_a_model_that_cannot_load_warns_and_recall_stays_lexical(repo: Any, repo_dir: Path, tmp_path: Path,
                                                                 capsys: pytest.CaptureFixture[str]) -> None:
    mid = remember(repo, "The release train leaves every Tuesday")
    git_config(repo_dir, "gitmem.embed-model", str(tmp_path / "no-such-model"))
    assert [r.id for r in recall_at(repo_dir, "release train", now=NOW, log=False)] == [mid]
    err = capsys.readouterr().err
    assert "gitmem.embed-model" in err and "recall stays lexical" in err
    assert "no-such-model" in err or "extra is not installed" in err
