"""Tests for gitmem.guards.pii.keywords: secrets around a keyword (URLs, assignments, headers, command lines, prose).

Every secret here is fabricated: random characters with a real prefix and length.
"""

from __future__ import annotations

import base64

import pytest

from gitmem.guards.pii.keywords import find_secrets
from gitmem.guards.pii.kinds import Cand
from gitmem.guards.pii.view import View
from tests.pii_samples import AWS_SECRET, GHP, PASSWORD, detect, kinds_at, only


@pytest.mark.parametrize(
    ("text", "span"),
    [
        (f"postgres://report:{PASSWORD}@db.acme.io:5432/dw", f"report:{PASSWORD}"),
        (f"mongodb+srv://app:{PASSWORD}@cluster0.x1y2.mongodb.net/prod", f"app:{PASSWORD}"),
        (f"REDIS_URL=redis://:{PASSWORD}@cache:6379/0", f":{PASSWORD}"),
        (f"git clone https://deploy:{PASSWORD}@github.com/acme/x.git", f"deploy:{PASSWORD}"),
        (f'{{"dsn": "mysql:\\/\\/svc:{PASSWORD}@db\\/shop"}}', f"svc:{PASSWORD}"),
    ],
)
def test_url_credentials_span_is_user_and_password(text: str, span: str) -> None:
    f = only(text)
    assert f.kind == "url_credentials"
    assert text[f.start : f.end] == span


def test_basic_auth_header_is_a_generic_secret() -> None:
    blob = base64.b64encode(f"admin:{PASSWORD}".encode()).decode()
    text = f"Authorization: Basic {blob}"
    assert kinds_at(text) == [("generic_api_key", blob)]


def keyword_kinds(text: str) -> set[tuple[str, str]]:
    return detect(find_secrets, text)


@pytest.mark.parametrize(("text", "kind"), [
    (f"DB_PASSWORD={PASSWORD}", "env_secret"),
    (f"export API_TOKEN='{PASSWORD}'", "env_secret"),
    (f"set DB_PASS={PASSWORD}", "env_secret"),
    (f"process.env.DB_PASSWORD = '{PASSWORD}'", "env_secret"),
    (f"ENV ADMIN_PASSWORD={PASSWORD}", "env_secret"),
    (f"  DB_PASSWORD: {PASSWORD}", "env_secret"),  # a compose environment map
    (f"export db_password={PASSWORD}", "env_secret"),  # export makes it an environment variable
    (f"dbPassword = '{PASSWORD}'", "generic_api_key"),
    (f'{{"DB_PASSWORD": "{PASSWORD}"}}', "generic_api_key"),  # a quoted JSON key
    (f"--password={PASSWORD}", "generic_api_key"),
    (f"-Ddb.password={PASSWORD}", "generic_api_key"),
    (f"https://api.acme.io/v1?token={PASSWORD}&x=1", "generic_api_key"),
    (f"client_secret => '{PASSWORD}'", "generic_api_key"),
    (f"<password>{PASSWORD}</password>", "generic_api_key"),
    (f'<add key="DbPassword" value="{PASSWORD}" />', "generic_api_key"),
    (f"the password is {PASSWORD}", "generic_api_key"),
    (f"my wifi password is now {PASSWORD}", "generic_api_key"),
    (f"API key: {PASSWORD}", "generic_api_key"),
    (f"I changed the db password to {PASSWORD}", "generic_api_key"),
    (f"password {PASSWORD}", "generic_api_key"),
    (f"curl -u admin:{PASSWORD} https://acme.io", "generic_api_key"),
    (f"mysql -u root -p{PASSWORD} shop", "generic_api_key"),
    (f"docker login -u bot -p {PASSWORD} registry.acme.io", "generic_api_key"),
    (f"sshpass -p {PASSWORD} ssh bot@host", "generic_api_key"),
    (f"redis-cli -h cache -a {PASSWORD} ping", "generic_api_key"),
    (f"CREATE USER app IDENTIFIED BY '{PASSWORD}';", "generic_api_key"),
    (f"mytool --token {PASSWORD}", "generic_api_key"),
])
def test_keyword_secret_kind_follows_how_it_was_written(text: str, kind: str) -> None:
    assert (kind, PASSWORD) in keyword_kinds(text), text


@pytest.mark.parametrize("text", [
    "password_field = forms.CharField()",
    "if token_count > max_tokens: break",
    "DB_PASSWORD=$DB_PASSWORD",
    "password: ${{ secrets.DB }}",
    "token: '****'",
    "the password is wrong",
    "POSTGRES_PASSWORD=postgres:postgres",
    "postgres://postgres:postgres@db/app",
    "postgres://user:password@localhost/db",
    "https://cache:6379@host",
    "mysql -u root -p shop",
    "docker login -u bot -p",
    "Authorization: Bearer <token>",
    "Authorization: Basic QWxhZGRpbjpvcGVuIHNlc2FtZQ==",  # RFC 7617's example
    "get the token from settings.API_TOKEN",
    "export PASSWORD_FILE=/run/secrets/db.key",
])
def test_keyword_look_alikes_are_left_out(text: str) -> None:
    assert keyword_kinds(text) == set(), text


def test_bearer_token_in_an_authorization_header() -> None:
    token = "Zq8XnVb2Lk9Mw3Rt7Yp1Hc5D.s6Fg4Jh0"
    assert ("generic_api_key", token) in keyword_kinds(f"Authorization: Bearer {token}")
    assert ("generic_api_key", token) in keyword_kinds(f"-H 'Authorization: token {token}'")


def test_aws_secret_by_its_name() -> None:
    for text in (f"aws_secret_access_key = {AWS_SECRET}", f"AWS_SECRET_ACCESS_KEY={AWS_SECRET}",
                 f"aws configure set aws_secret_access_key {AWS_SECRET}"):
        assert ("aws_secret_key", AWS_SECRET) in keyword_kinds(text), text


def test_aws_secret_base64_encoded_in_a_kubernetes_secret() -> None:
    encoded = base64.b64encode(AWS_SECRET.encode()).decode()
    assert ("aws_secret_key", encoded) in keyword_kinds(f"  aws_secret_access_key: {encoded}")


def test_basic_auth_hiding_a_vendor_token_takes_its_kind() -> None:
    blob = base64.b64encode(f"x-access-token:{GHP}".encode()).decode()
    assert ("github_token", blob) in keyword_kinds(f"Authorization: Basic {blob}")


def test_url_credentials_with_a_vendor_password_take_the_vendor_kind() -> None:
    assert kinds_at(f"https://x:{GHP}@github.com/acme/x.git") == [("github_token", GHP)]


def test_query_string_value_stops_at_the_next_parameter() -> None:
    assert ("generic_api_key", PASSWORD) in keyword_kinds(f"GET /cb?token={PASSWORD}&next=/home")


def test_discord_webhook_token() -> None:
    token = "Zq8XnVb2Lk9Mw3Rt7Yp1Hc5Ds6Fg4Jh0Ka2Lq9Wz3Xc8Vb7Nm4Qw1Er6Ty"
    text = f"https://discord.com/api/webhooks/123456789012345678/{token}"
    assert ("generic_api_key", token) in keyword_kinds(text)


def test_secret_name_verdicts_are_cached_within_bounds() -> None:
    from gitmem.guards.pii import credname

    for i in range(5000):
        credname.secret_name(f"name_{i}_password")
    assert len(credname._NAME_CACHE) <= 4096
    assert credname.secret_name("aws_secret_access_key") == "aws"
    assert credname.secret_name("DB_PASSWORD") == "yes"
    assert credname.secret_name("primary_key") is None
    assert credname.secret_name("password_field") is None


@pytest.mark.parametrize(("text", "expected"), [
    (f"password: '{PASSWORD}' # old", {("generic_api_key", PASSWORD)}),  # the comment is not the value
    (f"PASSWORD={PASSWORD}.", {("env_secret", PASSWORD)}),  # a full stop ends the sentence
    (f"token={PASSWORD},next", {("generic_api_key", PASSWORD)}),
    (f'API_KEY="{PASSWORD}"\\n', {("env_secret", PASSWORD)}),  # an escaped newline after the quote
    (f"  - DB_PASSWORD={PASSWORD}", {("env_secret", PASSWORD)}),  # a compose list item
    (f"secret_key_base: {PASSWORD}", {("generic_api_key", PASSWORD)}),
    (f"x-api-key: {PASSWORD}", {("generic_api_key", PASSWORD)}),
    (f"passphrase for the key is {PASSWORD}", {("generic_api_key", PASSWORD)}),
    (f"password:{PASSWORD}", {("generic_api_key", PASSWORD)}),
    (f"password=={PASSWORD}", set()),  # a comparison, not an assignment
    (f"ftp://anonymous:{PASSWORD}@ftp.acme.io", {("url_credentials", f"anonymous:{PASSWORD}")}),
    (f"jdbc:postgresql://db/shop?user=app&password={PASSWORD}", {("generic_api_key", PASSWORD)}),
    (f"DATABASE_URL=postgres://app:{PASSWORD}@db/shop", {("url_credentials", f"app:{PASSWORD}")}),
    ("redis://:@cache:6379", set()),
    ("Authorization: Bearer abc", set()),  # too short to be a token
    ("Authorization: Basic dXNlcjp1c2Vy", set()),  # user:user
])
def test_keyword_forms(text: str, expected: set[tuple[str, str]]) -> None:
    assert keyword_kinds(text) == expected


@pytest.mark.parametrize(("name", "verdict"), [
    ("password", "yes"), ("DB_PASSWORD", "yes"), ("dbPassword", "yes"), ("api_key", "yes"), ("apiKey", "yes"),
    ("client_secret", "yes"), ("authToken", "yes"), ("GITHUB_PAT", "yes"), ("sas", "yes"),
    ("AWS_SECRET_ACCESS_KEY", "aws"), ("aws_secret_key", "aws"), ("secretAccessKey", "aws"),
    ("pw", "yes"), ("PWD", None), ("OLDPWD", None), ("foreign_key", None), ("sort_key", None),
    ("cache_key", None), ("ssh_key", None), ("public_key", None), ("password_field", None),
    ("token_count", None), ("max_tokens", None), ("", None), ("___", None),
])
def test_secret_name_verdicts(name: str, verdict: str | None) -> None:
    from gitmem.guards.pii import credname

    assert credname._classify_name(name) == verdict


def test_values_are_trimmed_of_trailing_punctuation() -> None:
    for tail in (".", ",", ";", ")", "?", "'"):
        assert keyword_kinds(f"the password is {PASSWORD}{tail}") == {("generic_api_key", PASSWORD)}, tail


def test_a_keyword_secret_is_reported_once_per_value() -> None:
    text = f"secret_key={PASSWORD}"  # two keywords in one name, one visit
    assert keyword_kinds(text) == {("generic_api_key", PASSWORD)}  # lowercase: not an environment variable
    out: list[Cand] = []
    find_secrets(View(text), out)
    assert len({(s, e) for _, s, e, _ in out}) == 1


def test_keyword_scan_of_a_long_text_without_keywords_finds_nothing() -> None:
    text = "The quick brown fox jumps over the lazy dog. " * 2000
    assert keyword_kinds(text) == set()
