"""The certificates this host trusts beyond Debian's Mozilla set (a TLS-intercepting
proxy's, here): the image's build trusts them too (EXTRA_CA_CERTS)."""

from __future__ import annotations

import re
from pathlib import Path

BUNDLE = Path("/etc/ssl/certs/ca-certificates.crt")
MOZILLA = Path("/usr/share/ca-certificates/mozilla")
PEM = re.compile(r"-----BEGIN CERTIFICATE-----.+?-----END CERTIFICATE-----", re.S)


def pems(text: str) -> list[str]:
    return [" ".join(pem.split()) for pem in PEM.findall(text)]


def host_additions() -> str:
    """The host bundle's certificates that no Mozilla file holds, as PEM text."""
    if not BUNDLE.is_file():
        return ""
    known = {pem for file in MOZILLA.glob("*.crt") for pem in pems(file.read_text())}
    extra = [pem for pem in PEM.findall(BUNDLE.read_text()) if " ".join(pem.split()) not in known]
    return "\n".join(extra)
