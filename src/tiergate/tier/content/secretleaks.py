"""Rules for every text file: secrets written into the change.

A key or token in a diff is leaked the moment it is committed, whatever the file. The formats are the
providers' documented prefixes; the excerpt of such a hit is redacted (`tiergate.redact`) before it is
shown. Only added lines count: removing a leaked secret is the fix (the secret is still in history,
but that is the reviewer's next question, not a reason to re-verify the removal).
"""

from __future__ import annotations

from tiergate.tier.content.rule import Ecosystem, rules

# A value in quotes, four or more characters, not a placeholder made of dots, stars or x's.
_VALUE = r"""["']?[ \t]*(?:=|:)(?!=)[ \t]*["'](?![.*xX<{$%]*["'])[^"'\s]{4,}["']"""

COMMON = Ecosystem(
    "common",
    rules=(
        *rules(
            "private key block",
            r"-----BEGIN (?:RSA |EC |DSA |OPENSSH |ENCRYPTED |PGP )?PRIVATE KEY",
            sides="added",
        ),
        *rules(
            "cloud or service token",
            r"AKIA(?<![A-Za-z0-9]AKIA)[0-9A-Z]{16}(?![0-9A-Za-z])",
            r"ASIA(?<![A-Za-z0-9]ASIA)[0-9A-Z]{16}(?![0-9A-Za-z])",
            r"gh(?<![A-Za-z0-9]gh)[pousr]_[A-Za-z0-9]{36}",
            r"github_pat_[A-Za-z0-9_]{22,}",
            r"xox(?<![A-Za-z0-9]xox)[baprs]-[0-9A-Za-z-]{10,}",
            r"sk_live_[0-9A-Za-z]{16,}",
            sides="added",
        ),
        *rules(
            "hard-coded password",
            "assword" + _VALUE,
            "ASSWORD" + _VALUE,
            "asswd" + _VALUE,
            sides="added",
        ),
    ),
    names=("*",),
)
