"""Tests for gitmem.guards.pii.commands and the command lines the keyword detectors read.

Every secret here is fabricated.
"""

from __future__ import annotations

import pytest

from gitmem.guards import pii

PW = "Vq7#Lm2xRk9w"


def secrets(text: str) -> list[str]:
    return [text[f.start : f.end] for f in pii.scan(text) if f.secret]


@pytest.mark.parametrize(
    "command",
    [
        "mysql -u root -p{v} appdb",
        "mysql --user=app --password={v} appdb",
        "PGPASSWORD='{v}' pg_dump -h db01 -U app app",
        "MYSQL_PWD={v} mysql -u app",
        "sshpass -p '{v}' ssh app@db01",
        "curl -u app:{v} https://db01/api",
        "curl -s -H \"Authorization: Bearer {v}\" https://db01/v1/me",
        "http -a app:{v} https://db01/api",
        "https --auth=app:{v} db01/login",
        "htpasswd -b -c .htpasswd app {v}",
        "htpasswd -nb app {v}",
        "ldapsearch -x -D cn=admin,dc=acme,dc=io -w {v} -b dc=acme,dc=io",
        "sqlcmd -S db01 -U sa -P {v} -Q 'select 1'",
        "az login --service-principal -u app -p {v} --tenant acme",
        "gh auth login --with-token <<< {v}",
        "echo '{v}' | docker login --username app --password-stdin",
        "ssh app@db01 'echo {v} | sudo -S systemctl restart app'",
        "net use Z: \\\\db01\\share /user:app {v}",
        "git clone https://oauth2:{v}@gitlab.acme.io/team/app.git",
    ],
)
def test_a_password_on_a_command_line_is_a_secret(command: str) -> None:
    text = command.format(v=PW)
    assert any(PW in s for s in secrets(text)), text


@pytest.mark.parametrize(
    "command",
    [
        "mysql -u root -p appdb",
        "PGPASSWORD=$PGPASS psql -h db01 -U app",
        "curl -u app https://db01/api",
        "curl -H \"Authorization: Bearer $TOKEN\" https://db01/v1/me",
        "curl -H 'Authorization: Bearer ${API_TOKEN}' https://db01",
        "http -a app https://db01/api",
        "htpasswd -c .htpasswd app",
        "ldapsearch -x -W -D cn=admin",
        "echo $PASSWORD | docker login --username app --password-stdin",
        "gh auth login --with-token < token.txt",
        "docker login -u app --password-stdin registry.acme.io",
    ],
)
def test_a_command_without_a_password_value_stays_quiet(command: str) -> None:
    assert secrets(command) == [], command
