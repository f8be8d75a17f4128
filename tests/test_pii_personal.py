"""Tests for gitmem.guards.pii.personal: email addresses and home paths.

Every secret here is fabricated: random characters with a real prefix and length.
"""

from __future__ import annotations


import pytest

from gitmem.guards import pii
from tests.pii_samples import only


@pytest.mark.parametrize(
    ("text", "prefix"),
    [
        ("cd /home/alice/src/gitmem", "/home/alice"),
        ("open /Users/bob/Library/Preferences", "/Users/bob"),
        ("dir C:\\Users\\dave\\Desktop", "C:\\Users\\dave"),
        ('{"cwd": "C:\\\\Users\\\\dave\\\\work"}', "C:\\\\Users\\\\dave"),
        ("ls ~carol/notes", "~carol"),
        ('{"path": "\\/home\\/erin\\/x"}', "\\/home\\/erin"),
        ("cd /mnt/c/Users/frank/Downloads", "/Users/frank"),
    ],
)
def test_home_path_span_is_the_identifying_prefix(text: str, prefix: str) -> None:
    f = only(text)
    assert f.kind == "home_path"
    assert text[f.start : f.end] == prefix


@pytest.mark.parametrize(
    "text",
    [
        "cd ~/projects && ls $HOME/.config ${HOME}/x",
        "sudo cat /root/.bashrc",
        "install to /home/user/bin or /home/<username>/bin or /Users/yourname",
        "/home/runner/build/app and C:\\Users\\Public\\Documents",
        "https://acme.io/home/about and https://acme.io/Users/guide",
        "HEAD~3, ~~strike~~ and it costs ~twice as much",
    ],
)
def test_home_path_placeholders_are_left_alone(text: str) -> None:
    assert pii.scan(text) == []
