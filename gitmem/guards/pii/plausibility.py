"""Could a value be a real secret? Placeholders, references and code are not.

The keyword detectors find a value after a name such as ``password``; these
tests decide, from the value and how it was written, whether to report it.
"""

from __future__ import annotations

import re

from gitmem.guards.pii.view import Patterns

_rx = Patterns(
    {
        # References and templates, not values: ${VAR} $VAR $(cmd) %VAR% %(name)s
        # {name} [REDACTED] [SECRET:kind] (our own placeholders: stripping is idempotent)
        # !vault !!tag *alias &anchor @Microsoft.KeyVault(…)
        "reference_start": (
            r"\$[{(A-Za-z_]|%[A-Za-z_]\w*%|%\(|\{[A-Za-z_][\w.]*\}|\[[A-Za-z _:-]*\]\Z|!!|![A-Za-z]+(?:\s|\Z)"
            r"|[*&][a-z_][a-z0-9_-]*\Z|@[A-Za-z_][\w.]*(?:\(|\Z)"
            # secret stores: vault:path, ref+vault://, op://vault/item, AWS and GCP secret names
            r"|vault:|ref\+[a-z0-9]+://|op://|arn:aws:secretsmanager:|secretsmanager:|sm://|gcp:secretmanager"
            r"|projects/[^/\s]+/secrets/"
        ),
        "reference": r"[A-Za-z_][A-Za-z0-9_]*(?:(?:\.|::)[A-Za-z_][A-Za-z0-9_]*)+|[a-z]+(?:_[a-z]+)+",
        "identifier_path": r"(?:[a-z][a-z0-9_]*|[A-Z][A-Z0-9_]*)(?:[:./](?:[a-z][a-z0-9_]*|[A-Z][A-Z0-9_]*))+",
        # lower-case words and short numbers joined, one of them a number: mdm-test-001, flags-v2
        "numbered_name": (
            r"[a-z]{2,}(?:[-.:/](?:[a-z]{2,}|[0-9]{1,4}|v[0-9]{1,3}))*[-.:/](?:[0-9]{1,4}|v[0-9]{1,3})"
            r"(?:[-.:/](?:[a-z]{2,}|[0-9]{1,4}|v[0-9]{1,3}))*"
        ),
        # code: a chained assignment (this.a=this.b=E), a parameter's name (debtToken_)
        "chained": r"[A-Za-z_$][\w$]*\.[A-Za-z_$][\w$.]*=|[A-Za-z][A-Za-z0-9]*_\Z",
        "code": r"[A-Za-z_][\w.]*[(\[]",
        "color": r"#(?:[0-9a-fA-F]{3}|[0-9a-fA-F]{6}|[0-9a-fA-F]{8})",
        "hyphenated": r"[a-z]+(?:-[a-z]+)+",
        "constant": r"[A-Z][A-Z0-9]*(?:_[A-Z0-9]+)+",
        # a value's words: letters of any script, camelCase split ("deinTokenHier")
        "digit": r"\d",
        "words_of": r"[A-Z]?[^\W\d_A-Z]+|[A-Z]+(?![^\W\d_A-Z])|\d+",
        # an identifier in code: camelCase words of three letters or more (apiKeyFromEnv)
        "not_separator": r"[^\w\s./:+-]",
        "camel": r"[a-z]{2,}(?:[A-Z][a-z]{2,})+",
        "camel_name": r"[a-z]+(?:[A-Z][a-z]+)+",
        "pathlike": r"(?:~|\.{1,2})?/|[A-Za-z]:[\\/]|.*\.(?:pem|key|crt|txt|json|env|ya?ml|p12|pfx|jks|gpg|asc)\Z"
                    # a relative path to a source or document file: patterns/pattern-000098.md, src/app-2.ts
                    r"|[\w.-]+(?:/[\w.-]+)+\.(?:md|markdown|rst|py|pyi|js|mjs|cjs|ts|tsx|jsx|go|rs|rb|java|kt|c|h"
                    r"|cc|cpp|hpp|cs|php|sh|toml|ini|cfg|conf|lock|html|css|sql|csv|log|xml|jsonl)\Z",
        # an auth scheme before a reference: Bearer $TOKEN, Bearer ${TOKEN}, Token $env:X
        "scheme_ref": r"(?i:bearer|token|basic)[ \t]+(?=\$|%|\{\{)",
        "amount": r"[0-9]{1,3}(?:[,.' ][0-9]{3})+(?:[.,][0-9]+)?",
        # a name that says what goes there: finance_app_secret, OLLAMA_API_KEY, my-app-token
        "named_slot": (
            r"(?i:(?:[a-z0-9]+[_-])+(?:secret|key|token|password|passwd|pass|pwd|apikey|credentials?|id))"
        ),
        # colon-separated names with ids: agent:main:subagent:<uuid>, user:42:profile
        "id_path": r"[a-z][a-z0-9_-]*(?::(?:[a-z][a-z0-9_-]*|[0-9]+|[0-9a-f]{8}(?:-[0-9a-f]{4}){3}-[0-9a-f]{12}))+",
        # a sentence: four words or more, ended like one
        "sentence": r"(?:\S+[ \t]+){3,}\S*[.!?\u3002\uff01\uff1f]\Z",
        # a vendor's prefix before a body far too short for that vendor's keys: sk-abc123, ghp_xyz
        "vendor_sample": r"(?:sk-(?:proj-|ant-)?|[rs]k_(?:live|test)_|gh[pousr]_|xox[abposr]-|glpat-|hf_|npm_|gsk_)[A-Za-z0-9_-]{0,15}\Z",
    }
)

_PLACEHOLDER_WORDS = (
    "example", "xxxx", "***", "\u2022\u2022", "...", "\u2026", "your", "changeme", "change_me", "change-me",
    "placeholder", "redacted", "dummy", "replace", "insert", "sample", "fake", "notreal", "not_real",
    "not-a-real", "todo", "123456", "abcdefgh", "password", "passwd", "{{", "}}",
)
_STOPWORDS = frozenset(
    """none null nil true false yes no on off undefined required optional string str int bool boolean number
    bytes text hidden masked redacted empty default changeit admin root test guest pass pwd value foo bar baz
    qux secret token apikey api_key bearer basic digest oauth oauth2 jwt env environ environment config settings
    unset invalid incorrect wrong missing expired valid correct same different blank secretstr secretbytes
    optional any object dict list type hunter letmein qwerty user username login auth private public
    credentials credential disabled enabled sensitive strong weak random generated provided
    postgres mysql mariadb mongo redis rabbitmq minioadmin oracle elastic""".split()
)


def _has_run(value: str, n: int) -> bool:
    run = 1
    for a, b in zip(value, value[1:]):
        run = run + 1 if a == b else 1
        if run >= n:
            return True
    return False


# Publishable keys are public by design. Test-mode secret keys (sk_test_, rk_test_)
# are not here: a test key still opens the vendor account.
_PUBLIC_PREFIXES = ("pk_test_", "pk_live_")
# Keys vendors print in their public documentation for every reader to try.
_DOCUMENTED = frozenset({"sk_test_4eC39HqLyjWDarjtT1zdp7dc", "sk_test_BQokikJOvBiI2HlWgH4olfQ2"})

# Placeholders written in words, in any language: "your-api-key-here",
# "votre_cle_ici", "tu-contraseña", "ваш_ключ". A word of _MARKERS (your, here,
# insert, replace… in several languages) makes a value of words a placeholder;
# so does a value made only of the words of _VOCABULARY (credential nouns,
# articles, "my", "real", "test"…): "my-secret-api-key", "this_is_not_a_real_token".
_MARKERS = frozenset(
    """your yours here insert replace paste enter put fill goes generate provide obtain
    votre vos ton ta tes ici mettez mettre insérez inserez insérer inserer remplacez remplacer remplacez-par entrez saisir
    saisissez tu tus su sus aquí aqui pon ponga coloca coloque inserta inserte reemplaza reemplace introduce ingrese
    ingresa escribe seu sua seus suas teu tua insira insere substitua digite informe dein deine deinen deiner ihr ihre
    ihren hier einfügen einfuegen ersetzen eintragen eingeben tuo tuoi vostro vostra qui inserisci sostituisci metti
    jouw uw invullen vervang plak ваш ваша ваше ваши твой твоя твоё здесь сюда вставьте вставить введите замените
    укажите twoj twój twoja twoje wasz tutaj wstaw wpisz sizin senin buraya girin anahtariniz anahtarınız şifreniz
    sifreniz""".split()
)
_VOCABULARY = _MARKERS | frozenset(
    """api key keys secret secrets token tokens password passwords passwd pass pwd passphrase credential credentials
    auth access client app application bot user account admin db database jwt oauth private public session signing
    webhook my the a an of for to this that is not no real fake dummy sample example test tests testing fixture mock
    dev development local prod production staging default new some value string id super strong random change it
    in with please me and or only use
    clé cle clef jeton mot de passe secrète secrete la le les du des un une pour
    clave contraseña secreta secreto el los del para
    chave senha segredo da do
    schlüssel schluessel schlussel passwort kennwort geheim geheimer der die das
    chiave segreta di il
    sleutel wachtwoord het een
    ключ пароль токен секрет
    klucz hasło haslo
    anahtar şifre sifre
    khoa matkhau mat khau cua ban
    sk pk rk whsec ghp gho xoxb xoxp npm hf glpat
    ollama lmstudio llamacpp vllm localai lm studio""".split()   # local model servers take any key
)
# Scripts whose letters no vendor key or generated password is written in.
_NON_LATIN_FROM = 0x250
# Rows of a keyboard: "qwertyuiop", "asdfghjkl" are runs of keys, not secrets.
_KEY_ROWS = ("1234567890", "qwertyuiop", "asdfghjkl", "zxcvbnm", "1q2w3e4r5t6y7u8i9o0p", "1qaz2wsx3edc4rfv5tgb",
             "qazwsxedcrfvtgbyhnujm")
_LEET = str.maketrans("@40$5", "aaoss")
_ROW_GRAMS = frozenset(row[k : k + 4] for row in _KEY_ROWS for k in range(len(row) - 3))


def is_placeholder(value: str, run: int = 5, descending: bool = True) -> bool:
    """A documentation placeholder or sample, a mask or a reference rather than a secret.

    ``run``: this many equal characters in a row make a mask ("*****", "00000"); a vendor
    token's random body asks for more (five equal digits in a row happen by chance).
    ``descending``: runs down the alphabet count as sequences too (``9876…``); a
    vendor token's body is a placeholder only when it counts up, as people type one.
    """
    if not value or _rx.reference_start.match(value) or value.startswith(_PUBLIC_PREFIXES) or value in _DOCUMENTED:
        return True
    if "<" in value and ">" in value or value.startswith("<"):
        return True  # <your-key>, "<enter passphrase>" cut at its blank
    if _rx.scheme_ref.match(value) or value.startswith("*") or "**" in value:
        return True  # "Bearer $NOTION_TOKEN"; a masked value (**a7***7ec) shows a key only in part
    low = value.lower()
    if _rx.vendor_sample.match(value) or len(value) < 16 and "xxx" in low or low.endswith("xxx"):
        return True   # sk-abc123: a vendor's prefix on a sample; doxcnXXX: a mask
    if low in _STOPWORDS:
        return True
    if any(w in low for w in _PLACEHOLDER_WORDS) or "ssw" in low and "password" in low.translate(_LEET):
        return True   # p@ssw0rd is "password" too
    if len(value) >= run and _has_run(low, run):
        return True
    return len(value) >= 6 and sequential(low, descending) or in_words(value)


def sequential(low: str, descending: bool = True) -> bool:
    """Letters and digits in order, repeated or along a keyboard row: ``1234567890``,
    ``abcdef123456``, ``qwertyuiop``, ``a1b2c3d4``, ``abcabcabc`` (``low`` is lower case).

    Runs of three or more cover the value (three quarters of a long one: a
    vendor body such as ``51H8xYzAbCdEf…0123456789``); a random key almost never
    holds a run of three.
    """
    n = len(low)
    covered = [False] * n
    i = 0
    while i < n - 2:
        step = ord(low[i + 1]) - ord(low[i])
        j = i + 1
        if (step in (0, 1) or step == -1 and descending) and low[i].isalnum():
            while j + 1 < n and ord(low[j + 1]) - ord(low[j]) == step and low[j + 1].isalnum():
                j += 1
        if j - i >= 2:
            covered[i : j + 1] = [True] * (j - i + 1)
            i = j + 1
        else:
            i += 1
    for at in range(n - 3):
        if low[at : at + 4] in _ROW_GRAMS:
            covered[at : at + 4] = [True] * 4
    alnum = sum(ch.isalnum() for ch in low)   # separators (123:abc, abc-123) need no run
    need = alnum if alnum < 12 else (3 * alnum + 3) // 4
    if sum(covered) >= need:
        return True
    for period in (1, 2, 3, 4):   # abcabc…, and a1b2c3: two sequences interleaved
        if n >= 3 * period and low == (low[:period] * (n // period + 1))[:n]:
            return True
    # a1b2c3d4…: two short sequences interleaved (a long value made so is a made-up
    # key, but one a person could have used: still reported)
    return 12 <= n <= 16 and sequential(low[0::2], descending) and sequential(low[1::2], descending)


def in_words(value: str) -> bool:
    """A placeholder written in words, in any language (``your-api-key-here``, ``votre_cle_ici``,
    ``tu-contraseña``, ``你的密钥``, ``ваш_ключ_api``, ``test_api_key_123``, ``hunter2``), not a value."""
    if not value.isascii() and any(ch.isalpha() and ord(ch) >= _NON_LATIN_FROM for ch in value):
        ascii_alnum = sum(ch.isascii() and ch.isalnum() for ch in value)
        digits = sum(ch.isdigit() for ch in value)
        letters = sum(ch.isalpha() and ord(ch) >= _NON_LATIN_FROM for ch in value)
        # words of a script keys are not written in (a sentence of them, numbers and all): the
        # words after a label, not its value; 密码：2277 has a detector of its own (words.py)
        return ascii_alnum < 8 and digits < 2 or letters >= 2
    tokens = _rx.words_of.findall(value)
    if not tokens or sum(map(len, tokens)) + len(tokens) - 1 < len(value) or _rx.not_separator.search(value):
        return False   # more than one separator between the words, or a character a password mixes in
    numbers = [t for t in tokens if t.isdigit()]
    if sum(map(len, numbers)) > 3:
        return False   # hunter2 and mysecret123 are typed for a value; hunter2422 may be one
    words = [t.lower() for t in tokens if not t.isdigit()]
    if not words or any(len(w) < 2 and w not in _VOCABULARY for w in words):
        return False   # K&3tK!Yb: letters between digits and signs, no words
    if any(w in _MARKERS for w in words):
        return True
    # words a person types for a value, maybe run together and numbered: my-secret-api-key, mysecret123
    return all(_known(w, 3) for w in words) and (len(words) >= 2 or bool(numbers) or len(words[0]) > 8)


def _known(word: str, depth: int) -> bool:
    """A word of the placeholder vocabulary, or up to ``depth`` of them run together (``mysecretkey``)."""
    if word in _VOCABULARY or word in _STOPWORDS:
        return True
    return depth > 1 and any(
        (word[:i] in _VOCABULARY or word[:i] in _STOPWORDS) and _known(word[i:], depth - 1)
        for i in range(2, len(word) - 1)
    )


def classes(value: str) -> int:
    """How many of digits, upper case, lower case and other characters ``value`` mixes."""
    return (
        any(ch.isdigit() for ch in value)
        + any(ch.isupper() for ch in value)
        + any(ch.islower() for ch in value)
        + any(not ch.isalnum() for ch in value)
    )


def plausible(value: str, style: str, quoted: bool) -> bool:
    """Could ``value`` be a real secret, given how it was written?

    ``style`` is ``env`` (X=…), ``colon`` (JSON/YAML key), ``code`` (x = …),
    ``prose`` (typed in chat) or ``strict`` (a bare word after a keyword).
    """
    if len(value) < 6 or len(value) > 2000 or is_placeholder(value):
        return False
    if quoted and (value[0] in " \t,+)" or value[-1] in " \t,+("):
        return False  # "Token:", TOKEN_ADDRESS: the text between two string literals, not one
    if _rx.amount.fullmatch(value) or _rx.id_path.fullmatch(value) or _rx.named_slot.fullmatch(value):
        return False  # 2,000,000 tokens; agent:main:<uuid>; "finance_app_secret" names the slot
    if quoted and _rx.numbered_name.fullmatch(value) or not quoted and _rx.chained.match(value):
        return False  # "mdm-test-001": a name; this.a=this.b=E, debtToken_: code
    if " " in value and _rx.sentence.match(value):
        return False  # a quoted sentence after "key": prose, not a passphrase
    if _rx.camel_name.fullmatch(value) or _rx.constant.fullmatch(value) and _rx.named_slot.fullmatch(value):
        return False  # "replyToMode", "movingAvg": an identifier, quoted or not
    if not quoted and (value[0] == "#" and style != "env" or _rx.code.match(value) or "(" in value or "[" in value):
        return False  # a YAML comment; a call or subscript such as get_token(…), environ[…]
    if value.startswith(("ssh-", "ecdsa-sha2-", "sk-ssh-", "-----")):
        return False  # a public key or a PEM block (private keys have their own detector)
    if _rx.identifier_path.fullmatch(value):
        return False  # agent:main:main, config/default.yaml: names, not secrets
    if _rx.pathlike.match(value):
        return False
    if not quoted and _rx.reference.fullmatch(value):
        return False  # settings.SECRET_KEY, os.environ, request_password
    bare = value.strip(value[0]) if value[0] in "*_`" and value[-1] == value[0] else value
    if _rx.color.fullmatch(value) or bare != value and bare.isalpha() or bare.replace(" ", "").isalpha() and " " in bare:
        return False  # "#f8f8f2", *negative*, 'some value': a colour, an emphasised word, words
    if not quoted and (_rx.constant.fullmatch(value.strip(",;<>")) or _rx.camel.fullmatch(value.rstrip(",;"))):
        return False  # FG_DEFAULT, apiKeyFromEnv: a constant or variable named, not a value
    if style == "prose" and not quoted and _rx.hyphenated.fullmatch(value):
        return False  # "the key is lower-case"
    n_classes = classes(value)
    if value.isalpha():
        if style == "strict" or style == "prose" and not quoted:
            return False
        if style == "code" and not quoted:
            return False
        if style == "colon" and not quoted:
            return len(value) >= 10 and not (value[0].isupper() and any(ch.isupper() for ch in value[1:]))
        return len(value) >= 8
    if value.isdigit():
        # "the passcode is 482913" in chat; elsewhere short numbers are counts.
        return len(value) >= (6 if style == "prose" else 8) and style != "strict" and "0123" not in value
    if style == "strict":
        return len(value) >= 8 and any(ch.isdigit() for ch in value) and any(ch.isalpha() for ch in value) and (
            not re.fullmatch(r"[0-9a-fA-F-]+", value)
        )
    return n_classes >= 2


def looks_aws_secret(value: str) -> bool:
    """Forty characters of mixed case and digits: the shape of an AWS secret access key."""
    return (
        len(value) == 40
        and any(ch.isdigit() for ch in value)
        and any(ch.isupper() for ch in value)
        and any(ch.islower() for ch in value)
        and not is_placeholder(value)
        and not value.startswith(("AKIA", "ASIA"))
    )
