"""The decision log: one sealed JSON object per line in `<state_dir>/log.jsonl`, never on stdout.

One record shape (`decision_record`), two writers: `decision_log` (structlog) for the command line,
`write_decision` (a plain append) for the hooks. Each record goes out whole under a lock; the readers
yield only records whose seal holds (docs/state.md, "How the decision log is written").
"""

from __future__ import annotations

import contextlib
import errno
import fcntl
import json
import os

from tiergate import TYPE_CHECKING

# On the hook's path, which imports this module only to write or read a record: the imports above and
# these cost a hook nothing (it has read its input with json and located its project). What only some
# records need (structlog: the command line's writer; redact's `re`, datetime, traceback, pathlib) is
# imported where it is used.
from tiergate.project import STATE_FILE_MODE, state_name, tighten
from tiergate.seal import SealError, line_is_sealed, line_tag

if TYPE_CHECKING:
    from collections.abc import Iterator, Mapping, MutableMapping
    from pathlib import Path
    from typing import Any

    from structlog.typing import FilteringBoundLogger

    from tiergate.project import Project

LOG_NAME = "log.jsonl"
ERRORS_LOG_NAME = "errors.log"
SEAL_FIELD = "seal"
_SEAL_OPEN = ', "seal": "'
_SEAL_CLOSE = '"}'


def log_path(project: Project) -> Path:
    return project.state_dir / LOG_NAME


def decision_record(
    event: str, fields: Mapping[str, Any], *, level: str = "info", timestamp: str | None = None
) -> dict[str, Any]:
    """A decision-log record: the event first, then `fields` in their order, then level and timestamp.

    Credentials in the fields (a check's output quoted in a reason, a traceback) are redacted here, in
    the one place both writers pass through (`tiergate.redact`)."""
    from tiergate.redact import redact_data

    return {"event": event, **redact_data(fields), "level": level, "timestamp": timestamp or utc_timestamp()}


def write_decision(project: Project, event: str, fields: Mapping[str, Any], *, level: str = "info") -> None:
    """Append one decision record without structlog (the hooks' writer). Raises OSError if it cannot."""
    append_record(log_path(project), decision_record(event, fields, level=level))


def record(project: Project, level: str, event: str, **fields: object) -> None:
    """Append one record of something a hook met (an error while checking a claim), decision-shaped."""
    write_decision(project, event, fields, level=level)


def record_rejected(project: Project, event: str, path: Path, why: str) -> None:
    """Record a state file read as absent, not tiergate's writing as it is (`event`: whose, `why`: what
    is wrong with it). Never raised: a log that cannot be written must not turn a miss into an error."""
    with contextlib.suppress(OSError):
        record(project, "warning", event, file=state_name(project, path), reason=why)


def record_error(project: Project, event: str, session_id: str, exc: BaseException) -> None:
    """Record an error a hook met and went past (`event`, e.g. claim_check_error), with its traceback."""
    import traceback

    record(
        project,
        "error",
        event,
        session_id=session_id,
        error=f"{type(exc).__name__}: {exc}",
        traceback="".join(traceback.format_exception(exc)),
    )


def decision_log(project: Project, **context: Any) -> FilteringBoundLogger:
    """A structlog logger appending decision records to the project's log, with `context` bound to
    every record (the command line's writer): `log.info("cancel", session_id=..., reasons=[...])` writes
    what `decision_record("cancel", {"session_id": ..., "reasons": [...]})` builds. Raises OSError when
    a record cannot be written."""
    import structlog

    logger: FilteringBoundLogger = structlog.wrap_logger(
        _JsonLinesFile(log_path(project)),
        processors=[
            structlog.processors.add_log_level,
            structlog.processors.format_exc_info,
            _as_decision_record,
            structlog.processors.JSONRenderer(serializer=_dumps),
        ],
        wrapper_class=structlog.make_filtering_bound_logger(0),
        context_class=dict,
        cache_logger_on_first_use=False,
    )
    return logger.bind(**context)


def _as_decision_record(
    _logger: object, _method: str, event_dict: MutableMapping[str, Any]
) -> dict[str, Any]:
    """The structlog processor that gives a record the one shape (`decision_record`)."""
    fields = dict(event_dict)
    event = str(fields.pop("event", ""))
    level = str(fields.pop("level", "info"))
    timestamp = fields.pop("timestamp", None)
    return decision_record(event, fields, level=level, timestamp=timestamp)


class _JsonLinesFile:
    """The structlog "logger" at the end of the chain: every level appends the rendered line."""

    def __init__(self, path: Path) -> None:
        self.path = path

    def msg(self, message: str) -> None:
        append_line(self.path, sealed(self.path.name, message))

    debug = info = warning = warn = error = critical = fatal = exception = log = msg


def append_record(path: Path, record: Mapping[str, Any]) -> None:
    """Append `record` (made JSON-safe with `str()` where needed) as one sealed line."""
    append_line(path, sealed(path.name, _dumps(record)))


def sealed(name: str, text: str) -> str:
    """`text`, one JSON object, with its seal under the file name `name` as its last field.

    Without a key to seal with (none can be made: the user's state home is not writable; or it is
    damaged), the record goes out unsealed: the readers then leave it out as not tiergate's, which costs
    the history one record, where failing the write would cost the hook its decision."""
    try:
        return _with_seal(text, line_tag(name, text))
    except (OSError, SealError):
        return text


def _with_seal(text: str, tag: str) -> str:
    opening = _SEAL_OPEN[2:] if text == "{}" else _SEAL_OPEN  # no comma after the brace of an empty object
    return f"{text[:-1]}{opening}{tag}{_SEAL_CLOSE}"


def append_line(path: Path, line: str) -> None:
    """Append one line to `path` (created if missing), whole or not at all, even beside concurrent writers.

    Under the file's lock: a write that fails part-way is cut back to the size the file had, and when the
    file does not end in a newline (a line cut short by something else), the line starts on a new one.
    The file is the user's alone (0600; a file once wider is tightened on this write)."""
    data = (line.replace("\n", " ") + "\n").encode("utf-8", "backslashreplace")
    # Read as well as write: the last byte tells whether the file ends in a newline.
    fd = os.open(path, os.O_RDWR | os.O_APPEND | os.O_CREAT | os.O_CLOEXEC, STATE_FILE_MODE)
    try:
        tighten(fd, STATE_FILE_MODE)
        fcntl.flock(fd, fcntl.LOCK_EX)
        size = os.fstat(fd).st_size
        if size and os.pread(fd, 1, size - 1) != b"\n":
            data = b"\n" + data
        _write_whole(fd, data, size)
    finally:
        os.close(fd)  # also releases the lock


def _write_whole(fd: int, data: bytes, size: int) -> None:
    """Write all of `data` at the end of the file `fd`, which is `size` bytes long; or, failing that, put
    the file back to `size` bytes and raise."""
    try:
        view = memoryview(data)
        while view:
            written = os.write(fd, view)
            if not written:
                raise OSError(errno.ENOSPC, "the log took none of the record")
            view = view[written:]
    except BaseException:
        with contextlib.suppress(OSError):  # the write's own error is the one to report
            os.ftruncate(fd, size)
        raise


def read_log(project: Project, env: Mapping[str, str] | None = None) -> LogRecords:
    """The records tiergate wrote to the project's log, oldest first (see `read_records`)."""
    return read_records(log_path(project), env)


def read_records(path: Path, env: Mapping[str, str] | None = None) -> LogRecords:
    """The sealed records of the log file `path`, checked with the key of `env`'s user (None: this
    process's); what is left out is counted."""
    return LogRecords(path, env)


class LogRecords:
    """The records tiergate wrote to one log file, oldest first, without their seal; iterable again.

    After an iteration, `damaged` counts the lines that are not whole JSON objects (a record cut short
    by a crash, garbage), and `foreign` the whole records whose seal is missing or wrong (not written by
    tiergate, or edited since)."""

    def __init__(self, path: Path, env: Mapping[str, str] | None = None) -> None:
        self.path = path
        self.env = env
        self.damaged = 0
        self.foreign = 0

    def __iter__(self) -> Iterator[dict[str, Any]]:
        self.damaged = self.foreign = 0
        try:
            f = self.path.open("rb")
        except FileNotFoundError:
            return
        with f:
            for raw in f:
                try:
                    record = json.loads(raw)
                except (ValueError, RecursionError):  # RecursionError: "[[[[..." nested past the stack
                    record = None
                if not isinstance(record, dict):
                    self.damaged += raw.strip() != b""
                elif self._sealed(raw, record):
                    yield record
                else:
                    self.foreign += 1

    def _sealed(self, raw: bytes, record: dict[str, Any]) -> bool:
        """Whether `raw` ends in the seal of the rest of it; the seal is taken out of `record`."""
        found = record.pop(SEAL_FIELD, None)
        if not isinstance(found, str):
            return False
        line = raw.rstrip(b"\r\n").decode("utf-8", "surrogateescape")
        suffix = f"{_SEAL_OPEN}{found}{_SEAL_CLOSE}"
        if line.endswith(suffix) and len(line) > len(suffix):
            body = line[: -len(suffix)] + "}"
        elif line == _with_seal("{}", found):
            body = "{}"
        else:
            return False
        try:
            return line_is_sealed(self.path.name, body, found, self.env)
        except SealError:
            return False  # a damaged key: nothing reads as sealed, which fails closed

    def left_out(self) -> str:
        """One line saying what the last iteration left out; "" when nothing."""
        parts = []
        if self.damaged:
            parts.append(f"{self.damaged} damaged line{'s' if self.damaged != 1 else ''}")
        if self.foreign:
            parts.append(f"{self.foreign} record{'s' if self.foreign != 1 else ''} not written by tiergate")
        return f"tiergate: left out of {self.path}: {' and '.join(parts)}" if parts else ""


def record_incident(state_dir: Path | None, record: Mapping[str, Any]) -> Path:
    """Write a record of something that went wrong (a crash, an ignored event) to the project's log, or
    to the user-wide errors log when the state folder is unknown or unusable. Returns where it went;
    raises OSError if it could go nowhere. Credentials in it are redacted, as in a decision record."""
    from tiergate.redact import redact_data

    record = redact_data(record)
    if state_dir is not None:
        try:
            path = state_dir / LOG_NAME
            append_record(path, record)
            return path
        except OSError:
            pass
    path = errors_log_path()
    path.parent.mkdir(parents=True, exist_ok=True)
    append_record(path, record)
    return path


def errors_log_path() -> Path:
    """`${XDG_STATE_HOME:-~/.local/state}/tiergate/errors.log`."""
    from pathlib import Path

    state_home = os.environ.get("XDG_STATE_HOME", "")
    # The XDG spec says a relative value is invalid and must be ignored.
    base = Path(state_home) if Path(state_home).is_absolute() else Path.home() / ".local" / "state"
    return base / "tiergate" / ERRORS_LOG_NAME


def utc_timestamp() -> str:
    """Now, in the format structlog's TimeStamper(fmt="iso", utc=True) writes."""
    from datetime import UTC, datetime

    return datetime.now(UTC).isoformat().replace("+00:00", "Z")


def _dumps(value: object, **_: object) -> str:
    return json.dumps(value, ensure_ascii=True, default=str)
