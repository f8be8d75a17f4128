"""Tests for gitmem.guards.pii.network: IPv4 and IPv6 host addresses, classified
by ``ipaddress``; versions, code and non-host addresses left out."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from gitmem.guards.pii.network import find_ipv4, find_ipv6
from tests.pii_samples import detect, kinds_at


@pytest.mark.parametrize("ip", [
    "10.20.30.40", "192.168.1.23", "8.34.217.14", "172.16.254.3", "100.64.0.1", "1.220.3.4", "223.255.255.254",
    "10.0.0.1", "169.254.10.20",
])
def test_ipv4_hosts_are_found(ip: str) -> None:
    for text in (f"host {ip}", f"{ip}", f"ssh root@{ip} -p 22", f"[{ip}]", f"ip={ip};", f"at {ip}."):
        assert detect(find_ipv4, text) == {("ipv4", ip)}, text


@pytest.mark.parametrize(("ip", "why"), [
    ("127.0.0.1", "loopback"),
    ("127.10.20.30", "loopback"),
    ("0.10.20.30", "this network"),
    ("224.10.20.30", "multicast"),
    ("239.255.255.250", "multicast"),
    ("240.10.20.30", "reserved"),
    ("255.255.255.255", "broadcast"),
    ("192.0.2.10", "documentation"),
    ("198.51.100.7", "documentation"),
    ("203.0.113.254", "documentation"),
    ("10.20.30.0", "a network, not a host"),
    ("256.1.2.3", "not an address"),
    ("10.20.30.999", "not an address"),
    ("1.2.3.4", "a version"),
    ("1.1.1.20", "a version"),
    ("2.14.3.7", "a version"),
])
def test_ipv4_non_hosts_are_left_out(ip: str, why: str) -> None:
    assert detect(find_ipv4, f"see {ip} here") == set(), why


@pytest.mark.parametrize("text", [
    "version 10.20.30.40", "v10.20.30.40", "pkg==10.20.30.40", "pkg~=10.20.30.40", "release: 12.0.13.20",
    "10.20.30.40.50", "x10.20.30.40", "10.20.30.40x", "a-10.20.30.40", "10.20.30.40_b", "1.10.20.30.40",
    "10.20.30.40.5",
])
def test_ipv4_in_versions_and_longer_tokens_is_left_out(text: str) -> None:
    assert detect(find_ipv4, text) == set()


def test_ipv4_with_leading_zeros_is_read_as_decimal() -> None:
    assert detect(find_ipv4, "gw 010.020.030.040 up") == {("ipv4", "010.020.030.040")}


def test_ipv4_needs_a_two_digit_octet() -> None:
    assert detect(find_ipv4, "") == set()
    assert detect(find_ipv4, "no dots 1000 2000") == set()


@pytest.mark.parametrize("ip", [
    "2a00:1450:4009:81f::200e", "fe80::1ff:fe23:4567:890a", "2607:f8b0:4005:80a::2004",
    "2001:4860:4860:0:0:0:0:8888", "2a01:4f8:c2c:1234::1", "::ffff:10.20.30.40", "64:ff9b::10.20.30.40",
    "FE80::1FF:FE23:4567:890A",
])
def test_ipv6_hosts_are_found(ip: str) -> None:
    for text in (f"addr {ip}", f"{ip}", f"[{ip}]:443", f'"{ip}"'):
        assert detect(find_ipv6, text) == {("ipv6", ip)}, text


def test_ipv6_after_a_word_ending_in_hex_letters() -> None:
    assert detect(find_ipv6, "inet6 addr:fe80::1ff:fe23:4567:890a/64") == {("ipv6", "fe80::1ff:fe23:4567:890a")}


@pytest.mark.parametrize(("text", "why"), [
    ("::1", "loopback"),
    ("::", "unspecified"),
    ("0:0:0:0:0:0:0:1", "loopback"),
    ("2001:db8::1", "documentation"),
    ("2001:db8:85a3::8a2e:370:7334", "documentation"),
    ("::ffff:127.0.0.1", "mapped loopback"),
    ("::127.0.0.1", "compatible loopback"),
    ("::0.10.20.30", "this network"),
    ("::ffff:192.0.2.1", "mapped documentation"),
    ("1::2::3", "two double colons"),
    ("1:2:3:4:5:6:7:8:9", "nine groups"),
    ("12345::1", "a group of five digits"),
    ("a::b", "code"),
    ("std::map", "code"),
    ("dead:beef::cafe", "no digit: words"),
    ("fe80::", "too short to tell from code"),
    ("10:30:45", "a time"),
    ("1:2:3:4:5:6:7", "seven groups"),
    ("::ffff:10.20.30.400", "a bad IPv4 tail"),
])
def test_ipv6_non_hosts_and_look_alikes_are_left_out(text: str, why: str) -> None:
    assert detect(find_ipv6, f"see {text} here") == set(), why


@pytest.mark.parametrize("text", [
    "fe80::1ff:fe23:4567:890a-x", "fe80::1ff:fe23:4567:890ag", "fe80::1ff:fe23:4567:890a_b",
])
def test_ipv6_glued_to_a_word_is_left_out(text: str) -> None:
    assert detect(find_ipv6, text) == set()


def test_ipv6_trailing_colon_or_dot_is_not_part_of_the_address() -> None:
    assert detect(find_ipv6, "reach fe80::1ff:fe23:4567:890a.") == {("ipv6", "fe80::1ff:fe23:4567:890a")}
    assert detect(find_ipv6, "reach 2a00:1450:4009:81f::200e: ok") == {("ipv6", "2a00:1450:4009:81f::200e")}


def test_addresses_in_a_full_scan() -> None:
    text = "client 10.20.30.40 via 2a00:1450:4009:81f::200e and 127.0.0.1"
    assert kinds_at(text) == [("ipv4", "10.20.30.40"), ("ipv6", "2a00:1450:4009:81f::200e")]


def test_ipaddress_is_imported_only_when_an_address_may_be_there() -> None:
    code = (
        "import sys\n"
        "from gitmem.guards import pii\n"
        "pii.scan('plain words, no numbers, version 1.2')\n"
        "print('ipaddress' in sys.modules)\n"
        "pii.scan('host 10.20.30.40')\n"
        "print('ipaddress' in sys.modules)\n"
    )
    root = Path(__file__).resolve().parent.parent
    out = subprocess.run([sys.executable, "-c", code], cwd=root, capture_output=True, text=True, check=True)
    assert out.stdout.split() == ["False", "True"]


@pytest.mark.parametrize("text", ["10.20.30.40AKIAghp_::2309", "x_::1", "a-::1 b", "path/::1", "v1.::1", "_::"])
def test_a_double_colon_glued_to_a_word_ends_the_scan(text: str) -> None:
    """These texts sent the scan of IPv6 candidates into an endless loop, hanging the hook."""
    code = f"from gitmem.guards import pii; print(pii.scan({text!r}))"
    root = Path(__file__).resolve().parent.parent
    out = subprocess.run([sys.executable, "-c", code], cwd=root, capture_output=True, text=True, timeout=60)
    assert out.returncode == 0, out.stderr
    assert "ipv6" not in out.stdout
