"""The small project the autopilot tests build: items.txt, and features.json with two features whose
acceptance checks run `sh app.sh`, which the tests write. `LIST` is an app.sh that does F01 only, `BOTH` one
that does both; the project's own check (`[checks] items`) only asks that items.txt is not empty."""

from __future__ import annotations

import json
from typing import Any

FEATURES: dict[str, list[dict[str, Any]]] = {
    "features": [
        {
            "id": "F01",
            "title": "List items",
            "description": "`sh app.sh list` prints every line of items.txt.",
            "checks": {"list": 'test "$(sh app.sh list)" = "$(cat items.txt)"'},
        },
        {
            "id": "F02",
            "title": "Filter by tag",
            "description": "`sh app.sh filter TAG` prints the lines of items.txt that end with TAG.",
            "checks": {"filter": "test \"$(sh app.sh filter red)\" = 'apple red'"},
        },
    ]
}
LIST = 'if [ "$1" = list ]; then cat items.txt; fi\n'
BOTH = 'if [ "$1" = list ]; then cat items.txt; else grep " $2$" items.txt; fi\n'


def autopilot_files() -> dict[str, str]:
    """The project's files before any app.sh: the items, the features file and the configured check."""
    return {
        "items.txt": "apple red\npear green\n",
        "features.json": json.dumps(FEATURES),
        ".tiergate.toml": '[checks]\nitems = "test -s items.txt"\n',
    }
