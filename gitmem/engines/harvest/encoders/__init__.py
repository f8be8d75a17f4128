"""The built-in encoders behind the encoder-command contract (``harvest.encoder``): a person's own model asked
with gitmem's own versioned prompt (``prompt.md``).

``claude`` (Claude Code's print mode, ``claude -p --output-format json``) and ``endpoint`` (an
OpenAI-compatible chat endpoint on loopback). Each takes the prompt and the session's payload and
returns the model's answer as bytes, or the problem; the contract module parses and checks it.
"""
