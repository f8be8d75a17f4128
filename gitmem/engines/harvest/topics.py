"""What a session is about: its tags, from the languages of the files it touched, the programs it ran,
the words of its own turns and the tools it called.

Keys, hashes, ids, numbers and the parts of paths never become tags.
"""

from __future__ import annotations

import re
import unicodedata
from collections import Counter

from gitmem.engines.harvest.signals import is_own_words, unique
from gitmem.engines.harvest.sources import Event

__all__ = ["MAX_TAGS", "tags_of"]

MAX_TAGS = 12

_LANGUAGES = {
    "py": "python", "ts": "typescript", "tsx": "typescript", "js": "javascript", "jsx": "javascript", "mjs": "javascript",
    "cjs": "javascript", "vue": "vue", "svelte": "svelte", "go": "go", "rs": "rust", "java": "java", "kt": "kotlin",
    "rb": "ruby", "php": "php", "cs": "csharp", "cpp": "cpp", "cc": "cpp", "hpp": "cpp", "c": "c", "h": "c",
    "swift": "swift", "md": "markdown", "sql": "sql", "sh": "shell", "bash": "shell", "ps1": "powershell",
    "html": "html", "css": "css", "scss": "css", "yaml": "yaml", "yml": "yaml", "toml": "toml", "json": "json",
    "xml": "xml", "ipynb": "jupyter", "tf": "terraform", "dockerfile": "docker", "lua": "lua", "dart": "dart",
}
_SHELL_NOISE = frozenset({
    "cd", "echo", "ls", "cat", "grep", "rg", "head", "tail", "sed", "awk", "find", "mkdir", "rm", "cp", "mv", "export",
    "set", "source", "sleep", "wc", "sort", "uniq", "pwd", "true", "false", "test", "xargs", "tee", "chmod", "touch",
    "which", "for", "do", "done", "if", "then", "fi", "while", "env", "sudo", "time", "printf", "dir", "type", "where",
    "powershell", "cmd", "bash", "sh", "timeout", "tr", "cut", "diff", "stat", "du", "df", "file", "less", "more",
})
_STOP = frozenset("""
the and for that this with you your are was were have has had not but all can will would should could what when
where which who why how into from then than them they their there here also just like want need make please file
files code some more only over such very much many any each other about after before again because being both
does doing done down during few further its itself let lets now off once out own same she should so too under
until use used using well while yes okay thanks thank sure need know think look see get got give take put way
new add check help try run work working still right need make sure able going want wanted one two also ok
avec pour dans que qui est pas les des une sur par plus mais comme cette tout fait faire sont été être aussi
donc bien très peut nous vous ils elles leur leurs sans sous entre encore même alors fichier merci
dont cant wont isnt doesnt didnt always never really maybe something anything everything
remember call keep first oublie plutot desormais jamais toujours
""".split())
# Keys, hashes, ids and numbers are not topics (and a key must not become a tag).
_ID_LIKE = re.compile(r"\d.*\d.*\d|^\d+$|[a-z]{16,}|^(?=.*\d).{10,}$")
_PATHISH = re.compile(r"\S*[\\/]\S*")
_WORD = re.compile(r"[A-Za-zÀ-ÿ][A-Za-zÀ-ÿ0-9_+#.-]{2,}")


def _tag(word: str) -> str:
    ascii_word = unicodedata.normalize("NFKD", word).encode("ascii", "ignore").decode().lower()
    return re.sub(r"[^a-z0-9]+", "-", ascii_word).strip("-")


def _extension(path: str) -> str:
    name = re.split(r"[\\/]", path)[-1].lower()
    return name.rsplit(".", 1)[-1] if "." in name else name


def tags_of(events: list[Event], files: tuple[str, ...], commands: tuple[str, ...]) -> tuple[str, ...]:
    tools = Counter(_tag(e.tool) for e in events if e.role == "tool_call" and e.tool)
    langs = Counter(_LANGUAGES[ext] for f in files if (ext := _extension(f)) in _LANGUAGES)
    progs: Counter[str] = Counter()
    for command in commands:
        for segment in re.split(r"&&|\|\||[;|]", command):
            tokens = segment.split()
            while tokens and "=" in tokens[0]:
                tokens.pop(0)  # VAR=value before the program
            if tokens:
                prog = _tag(re.split(r"[\\/]", tokens[0])[-1])
                if prog and prog not in _SHELL_NOISE and len(prog) <= 20 and not prog[0].isdigit():
                    progs[prog] += 1
    words: Counter[str] = Counter()
    for e in events:
        if is_own_words(e) or (e.role == "summary" and not e.meta):
            prose = _PATHISH.sub(" ", e.text[:1000])  # path and URL parts are not topics
            for w in _WORD.findall(prose):
                if (t := _tag(w)) and t not in _STOP and 4 <= len(t) <= 24 and not _ID_LIKE.search(t):
                    words[t] += 1
    ranked = [t for t, _ in langs.most_common(3)] + [t for t, _ in progs.most_common(4)]
    ranked += [t for t, _ in words.most_common(5)] + [t for t, _ in tools.most_common(4)]
    return unique(t for t in ranked if t)[:MAX_TAGS]
