"""Harvest: agent transcripts become episodes and memories.

``sources`` (the events a reader yields, discovery, format detection), one
module per format (``claude_code``, ``openclaw``, ``generic``), ``reader``
(bytes and resume points), ``content`` (text inside JSON values),
``signals`` (what to remember), ``durability`` (whether it outlives the
session), ``encoder`` (a person's own encoder command, optional),
``episodes`` (what happened, as a document),
``screen`` (a secret anywhere rejects the session), ``subagents`` (a
session's sub-agent files belong to it) and ``planning`` (files to read and
one session's commit).

``encoders`` holds the built-in encoders: Claude Code's print mode and an
OpenAI-compatible chat endpoint on loopback.
"""
