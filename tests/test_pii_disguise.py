"""Tests for gitmem.guards.pii.disguise: invisible characters, look-alike
separators and whitespace inside a vendor token do not hide it.

Every token here is fabricated: random characters with a real prefix and length.
"""

from __future__ import annotations

import pytest

from gitmem.guards import pii
from gitmem.guards.pii.disguise import visible
from gitmem.guards.redact import strip

GHP = "ghp_Q7mZx2Lk9Rt4Vw8Yb1Nc6Hd3Fg5Js0KaP2qL"
AKIA = "AKIAQ3EGTZ7R2LWN5XHD"
SK = "sk-proj-T3kq9ZLmw2XbR7cVn4Hp8Jd1Fs6Gy0QaE5oUiPlKzMxNbVcWe"
XOXB = "xoxb-23874619023-498127364512-Q7mZx2Lk9Rt4Vw8Yb1Nc6Hd3"
STRIPE = "sk_live_Q7mZx2Lk9Rt4Vw8Yb1Nc6Hd3"


def secret_spans(text: str) -> list[tuple[str, str]]:
    return [(f.kind, text[f.start : f.end]) for f in pii.scan(text) if f.secret]


@pytest.mark.parametrize("hidden", ["\u200b", "\u200c", "\u200d", "\u2060", "\ufeff", "\u00ad", "\u200e", "\u202e", "\u2066"])
def test_invisible_characters_inside_a_token_do_not_hide_it(hidden: str) -> None:
    token = GHP[:9] + hidden + GHP[9:20] + hidden + GHP[20:]
    text = f"my token: {token} thanks"
    assert secret_spans(text) == [("github_token", token)]
    assert strip(text) == "my token: [SECRET:github_token] thanks"  # the hidden characters go too


@pytest.mark.parametrize("dash", ["\u2010", "\u2011", "\u2013", "\u2212", "\uff0d", "\ufe63"])
def test_look_alike_separators_do_not_hide_a_token(dash: str) -> None:
    token = SK.replace("-", dash)
    assert secret_spans(f"key {token}") == [("openai_key", token)]
    fullwidth = STRIPE.replace("_", "\uff3f")
    assert secret_spans(fullwidth) == [("stripe_key", fullwidth)]


@pytest.mark.parametrize(
    "split",
    [
        GHP[:14] + "\n" + GHP[14:],
        GHP[:14] + "\r\n  " + GHP[14:30] + " " + GHP[30:],
        "AKIA " + " ".join(AKIA[i : i + 4] for i in range(4, 20, 4)),
        "ghp " + GHP[4:],
        "ghp-" + GHP[4:],
        "xoxb " + XOXB[5:],
        "sk - proj-" + SK[8:],
        "sk_live_ " + STRIPE[8:20] + "\n" + STRIPE[20:],
    ],
)
def test_a_token_cut_by_whitespace_or_a_swapped_separator_is_joined(split: str) -> None:
    text = f"here it is: {split}\nnext line"
    found = secret_spans(text)
    assert found and found[0][1] == split, found


def test_escaped_line_breaks_inside_a_token_are_joined() -> None:
    text = '{"text": "' + GHP[:20] + "\\n" + GHP[20:] + '"}'
    assert [k for k, _ in secret_spans(text)] == ["github_token"]


@pytest.mark.parametrize(
    "text",
    [
        "Use ghp_ tokens for classic GitHub personal access tokens in your CI",
        "The prefix sk- marks OpenAI keys; sk-ant- marks Anthropic keys.",
        "AKIA is the prefix of long-term AWS access key ids",
        "xoxb- tokens are bot tokens in Slack",
        "npm_ tokens can be granular, hf_ tokens come from the hub",
        "sk\u2011learn is a machine learning library",
        "soft\u00adhyphen\u00adated words are common in long German compounds",
        "\u202eevil filename.txt",
        "AKIA IOSF ODNN 7EXA MPLE",
        "ghp_\u200bexample\u200btoken",
        "sk_test_4eC39HqLyjWDarjtT1zdp7dc",
        "stripe.api_key = 'sk_test_4eC39HqLyjWDarjtT1zdp7dc'",
        "ghp_xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx",
    ],
)
def test_prefixes_prose_and_samples_are_not_joined_into_tokens(text: str) -> None:
    assert secret_spans(text) == [], text


def test_visible_maps_every_character_back() -> None:
    assert visible("plain ascii") is None
    assert visible("caf\u00e9") is None  # nothing hidden, nothing look-alike
    text = "a\u200bb\u2013c\uff3f\u00ad\u00add"
    seen = visible(text)
    assert seen is not None
    shown, original = seen
    assert shown == "ab-c_d"
    assert [original(i) for i in range(len(shown))] == [0, 2, 3, 4, 5, 8]
    assert [text[original(i)] for i in range(len(shown))] == ["a", "b", "\u2013", "c", "\uff3f", "d"]
