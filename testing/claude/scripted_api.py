"""A scripted stand-in for the Anthropic Messages API, served on 127.0.0.1 for the real Claude Code CLI.

Each request is answered by the first rule of the script that matches it (and has uses left); requests no
rule claims get a short text answer. Every request is recorded, so a test can assert on exactly what
reached the model: hook feedback, additional context, system prompts, the model a subagent ran on.
"""

from __future__ import annotations

import itertools
import json
import threading
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

# The CLI tags a subagent's requests in the billing line that opens the system prompt; the main thread's
# system prompt has the same opening without the tag (2.1.332, see docs/claude-code-findings.md).
SUBAGENT_MARKER = "cc_is_subagent=true"
# A compaction request is the main conversation (tools and all) plus this instruction as the last user text.
COMPACTION_MARKER = "Respond with TEXT ONLY"
DEFAULT_TEXT = "OK."
DEFAULT_SIDE_TEXT = "Scripted title"
DEFAULT_SUMMARY = "<analysis>Scripted.</analysis>\n<summary>Scripted summary of the conversation.</summary>"


@dataclass(frozen=True)
class Text:
    text: str


@dataclass(frozen=True)
class ToolUse:
    name: str
    input: Mapping[str, Any]


Block = Text | ToolUse


@dataclass(frozen=True)
class Reply:
    """One assistant message. It stops with `tool_use` when it calls a tool, else with `end_turn`."""

    blocks: tuple[Block, ...]

    @property
    def stop_reason(self) -> str:
        return "tool_use" if any(isinstance(b, ToolUse) for b in self.blocks) else "end_turn"


@dataclass(frozen=True)
class Failure:
    """An API error answer, e.g. Failure(400, "invalid_request_error", "prompt is too long")."""

    status: int
    error_type: str
    message: str


Answer = Reply | Failure


def text(message: str) -> Reply:
    return Reply((Text(message),))


def tool_use(name: str, tool_input: Mapping[str, Any], *, preface: str | None = None) -> Reply:
    blocks: tuple[Block, ...] = (ToolUse(name, dict(tool_input)),)
    return Reply((Text(preface), *blocks) if preface else blocks)


def bash(command: str, description: str = "Run a command") -> Reply:
    return tool_use("Bash", {"command": command, "description": description})


def write_file(path: Path, content: str) -> Reply:
    return tool_use("Write", {"file_path": str(path), "content": content})


def agent(subagent_type: str, prompt: str, description: str = "Verify the work", **extra: Any) -> Reply:
    # Foreground, so the subagent's whole life (and its hooks) happens inside this one CLI run.
    tool_input = {"description": description, "prompt": prompt, "subagent_type": subagent_type}
    return tool_use("Agent", {**tool_input, "run_in_background": False, **extra})


@dataclass(frozen=True)
class ApiRequest:
    """One request as the CLI sent it, with the views rules and assertions need."""

    method: str
    path: str
    headers: Mapping[str, str]
    body: Mapping[str, Any]

    @property
    def model(self) -> str:
        return str(self.body.get("model", ""))

    @property
    def system(self) -> str:
        return _flatten(self.body.get("system", ""))

    @property
    def messages(self) -> list[Mapping[str, Any]]:
        messages = self.body.get("messages", [])
        return messages if isinstance(messages, list) else []

    @property
    def tool_names(self) -> tuple[str, ...]:
        return tuple(str(t.get("name", "")) for t in self.body.get("tools", []) if isinstance(t, Mapping))

    @property
    def is_messages_call(self) -> bool:
        return self.method == "POST" and self.path == "/v1/messages"

    @property
    def is_compaction(self) -> bool:
        return self.is_messages_call and COMPACTION_MARKER in self.last_user_text()

    @property
    def is_side_request(self) -> bool:
        """Not an agent turn: a request offering no tools (titles and other asides), or a compaction."""
        return self.is_messages_call and (not self.tool_names or self.is_compaction)

    @property
    def is_subagent(self) -> bool:
        return not self.is_side_request and self.is_messages_call and SUBAGENT_MARKER in self.system

    @property
    def is_main_thread(self) -> bool:
        return not self.is_side_request and self.is_messages_call and SUBAGENT_MARKER not in self.system

    def last_user_text(self) -> str:
        """All text of the last user message, tool results and system reminders included."""
        for message in reversed(self.messages):
            if message.get("role") == "user":
                return _flatten(message.get("content", ""))
        return ""

    def last_user_has_tool_result(self) -> bool:
        for message in reversed(self.messages):
            if message.get("role") == "user":
                content = message.get("content")
                return isinstance(content, list) and any(
                    isinstance(b, Mapping) and b.get("type") == "tool_result" for b in content
                )
        return False

    def conversation_text(self) -> str:
        """Everything the model reads in this request: system prompt and every message."""
        return "\n".join([self.system, *(_flatten(m.get("content", "")) for m in self.messages)])


def _flatten(content: Any) -> str:
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "\n".join(_flatten(item) for item in content)
    if isinstance(content, Mapping):
        if isinstance(content.get("text"), str):
            return str(content["text"])
        if "content" in content:
            return _flatten(content["content"])
    return ""


Predicate = Callable[[ApiRequest], bool]


@dataclass
class Rule:
    """Answer `reply` to requests meeting every given condition, at most `times` times (None: always).

    `thread` is "main", "subagent" or "side" (a tool-less aside), or None for any.
    """

    reply: Answer | Callable[[ApiRequest], Answer]
    thread: str | None = None
    last_user_contains: str | None = None
    system_contains: str | None = None
    model_contains: str | None = None
    after_tool_result: bool | None = None
    when: Predicate | None = None
    times: int | None = None
    name: str = ""
    used: int = 0

    def matches(self, request: ApiRequest) -> bool:
        if self.times is not None and self.used >= self.times:
            return False
        checks = (
            self.thread is None or _thread_of(request) == self.thread,
            self.last_user_contains is None or self.last_user_contains in request.last_user_text(),
            self.system_contains is None or self.system_contains in request.system,
            self.model_contains is None or self.model_contains in request.model,
            self.after_tool_result is None or request.last_user_has_tool_result() == self.after_tool_result,
            self.when is None or self.when(request),
        )
        return all(checks)

    def answer(self, request: ApiRequest) -> Answer:
        return self.reply(request) if callable(self.reply) else self.reply


def _default_answer(request: ApiRequest) -> Reply:
    if request.is_compaction:
        return text(DEFAULT_SUMMARY)
    return text(DEFAULT_SIDE_TEXT if request.is_side_request else DEFAULT_TEXT)


def _thread_of(request: ApiRequest) -> str:
    if request.is_side_request:
        return "side"
    return "main" if request.is_main_thread else "subagent"


@dataclass(frozen=True)
class Exchange:
    """A recorded request and how it was answered (`rule` is None when no rule claimed it)."""

    request: ApiRequest
    reply: Answer | None
    rule: str | None
    status: int


@dataclass
class ScriptedApi:
    """The server: a context manager (or `start()` / `stop()`); `url` is what ANTHROPIC_BASE_URL takes."""

    rules: list[Rule] = field(default_factory=list)
    log_path: Path | None = None
    exchanges: list[Exchange] = field(default_factory=list)
    _lock: threading.Lock = field(default_factory=threading.Lock)
    _server: ThreadingHTTPServer | None = None
    _thread: threading.Thread | None = None
    _ids: Iterator[int] = field(default_factory=lambda: itertools.count(1))

    def script(self, *rules: Rule) -> ScriptedApi:
        with self._lock:
            self.rules.extend(rules)
        return self

    def on(self, reply: Answer | Callable[[ApiRequest], Answer], **conditions: Any) -> ScriptedApi:
        return self.script(Rule(reply, **conditions))

    def sequence(self, *replies: Answer, **conditions: Any) -> ScriptedApi:
        """One reply per matching request, in order: "first answer X, then Y" for a thread or agent."""
        return self.script(*(Rule(reply, times=1, **conditions) for reply in replies))

    @property
    def url(self) -> str:
        assert self._server is not None, "the scripted API is not running"
        host, port = self._server.server_address[:2]
        return f"http://{host!s}:{port}"

    def start(self) -> ScriptedApi:
        self._server = ThreadingHTTPServer(("127.0.0.1", 0), _handler_for(self))
        self._server.daemon_threads = True
        self._thread = threading.Thread(
            target=self._server.serve_forever,
            kwargs={"poll_interval": 0.05},
            name="scripted-api",
            daemon=True,
        )
        self._thread.start()
        return self

    def stop(self) -> None:
        if self._server is not None:
            self._server.shutdown()
            self._server.server_close()
            self._server = None

    def __enter__(self) -> ScriptedApi:
        return self.start()

    def __exit__(self, *exc_info: object) -> None:
        self.stop()

    # What reached the model -------------------------------------------------------------------------------

    @property
    def requests(self) -> list[ApiRequest]:
        with self._lock:
            return [e.request for e in self.exchanges]

    def messages_calls(self, thread: str | None = None) -> list[ApiRequest]:
        """The Messages calls in order, optionally only one thread's ("main", "subagent", "side")."""
        calls = [r for r in self.requests if r.is_messages_call]
        return [r for r in calls if thread is None or _thread_of(r) == thread]

    def unknown_routes(self) -> list[ApiRequest]:
        with self._lock:
            return [e.request for e in self.exchanges if e.status == 404]

    def unmatched(self) -> list[ApiRequest]:
        """Agent turns (main or subagent) that no rule claimed: usually a script that missed a step."""
        with self._lock:
            exchanges = list(self.exchanges)
        return [
            e.request
            for e in exchanges
            if e.rule is None and e.request.is_messages_call and not e.request.is_side_request
        ]

    # Serving ----------------------------------------------------------------------------------------------

    def _answer(self, request: ApiRequest) -> tuple[Answer, str | None]:
        with self._lock:
            claimed = next(((i, r) for i, r in enumerate(self.rules) if r.matches(request)), None)
            if claimed is not None:
                claimed[1].used += 1
        if claimed is None:
            return _default_answer(request), None
        # Outside the lock: a reply function may itself look at what the API has recorded.
        index, rule = claimed
        return rule.answer(request), rule.name or f"rule {index}"

    def _record(self, exchange: Exchange) -> None:
        with self._lock:
            self.exchanges.append(exchange)
            if self.log_path is not None:
                with self.log_path.open("a") as log:
                    log.write(json.dumps(_log_record(exchange)) + "\n")

    def _next_id(self) -> int:
        with self._lock:
            return next(self._ids)


def stop_feedback(api: ScriptedApi) -> list[str]:
    """The Stop hook feedback each main request carried, in order (from "Stop hook feedback:" on)."""
    texts = [r.last_user_text() for r in api.messages_calls("main")]
    return [t[t.index("Stop hook feedback:") :] for t in texts if "Stop hook feedback:" in t]


def _log_record(exchange: Exchange) -> dict[str, Any]:
    request = exchange.request
    return {
        "method": request.method,
        "path": request.path,
        "status": exchange.status,
        "rule": exchange.rule,
        "reply": _logged_answer(exchange.reply),
        "body": request.body,
    }


def _logged_answer(answer: Answer | None) -> Any:
    if isinstance(answer, Reply):
        return _content(answer, "toolu_logged")
    if isinstance(answer, Failure):
        return {"status": answer.status, "type": answer.error_type, "message": answer.message}
    return None


def _handler_for(api: ScriptedApi) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def do_POST(self) -> None:
            request = self._read_request()
            if request.path == "/v1/messages":
                self._messages(request)
            elif request.path == "/v1/messages/count_tokens":
                self._json(200, {"input_tokens": _estimate_tokens(request)})
                api._record(Exchange(request, None, None, 200))
            else:
                self._not_found(request)

        def do_GET(self) -> None:
            self._not_found(self._read_request())

        def do_HEAD(self) -> None:
            # Connectivity probes: an empty success is the least surprising answer.
            request = self._read_request()
            api._record(Exchange(request, None, None, 200))
            self.send_response(200)
            self.send_header("Content-Length", "0")
            self.end_headers()

        def log_message(self, format: str, *args: Any) -> None:
            # Requests are recorded in the exchanges; stderr noise would only bury pytest's output.
            pass

        def _read_request(self) -> ApiRequest:
            length = int(self.headers.get("Content-Length") or 0)
            raw = self.rfile.read(length) if length else b""
            try:
                body = json.loads(raw) if raw else {}
            except ValueError:
                body = {"_unparsed": raw.decode("utf-8", "replace")}
            headers = {k.lower(): v for k, v in self.headers.items()}
            return ApiRequest(self.command, urlsplit(self.path).path, headers, body)

        def _messages(self, request: ApiRequest) -> None:
            reply, rule = api._answer(request)
            if isinstance(reply, Failure):
                api._record(Exchange(request, reply, rule, reply.status))
                error = {"type": reply.error_type, "message": reply.message}
                self._json(reply.status, {"type": "error", "error": error})
                return
            api._record(Exchange(request, reply, rule, 200))
            message_id = f"msg_scripted_{api._next_id():04d}"
            if request.body.get("stream"):
                self._stream(_sse_events(reply, request.model, message_id))
            else:
                self._json(200, _message(reply, request.model, message_id))

        def _not_found(self, request: ApiRequest) -> None:
            api._record(Exchange(request, None, None, 404))
            error = {"type": "not_found_error", "message": f"scripted API has no route {request.path}"}
            self._json(404, {"type": "error", "error": error})

        def _json(self, status: int, payload: Mapping[str, Any]) -> None:
            data = json.dumps(payload).encode()
            self.send_response(status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

        def _stream(self, events: Sequence[tuple[str, Mapping[str, Any]]]) -> None:
            data = "".join(f"event: {name}\ndata: {json.dumps(payload)}\n\n" for name, payload in events)
            encoded = data.encode()
            self.send_response(200)
            self.send_header("Content-Type", "text/event-stream")
            self.send_header("Cache-Control", "no-cache")
            self.send_header("Content-Length", str(len(encoded)))
            self.end_headers()
            self.wfile.write(encoded)

    return Handler


def _estimate_tokens(request: ApiRequest) -> int:
    return max(1, len(request.conversation_text()) // 4)


def _content(reply: Reply, id_prefix: str) -> list[dict[str, Any]]:
    content: list[dict[str, Any]] = []
    for index, block in enumerate(reply.blocks):
        if isinstance(block, Text):
            content.append({"type": "text", "text": block.text})
        else:
            tool_id = f"{id_prefix}_{index}"
            content.append({"type": "tool_use", "id": tool_id, "name": block.name, "input": {**block.input}})
    return content


def _usage(output_tokens: int) -> dict[str, int]:
    return {
        "input_tokens": 10,
        "output_tokens": output_tokens,
        "cache_creation_input_tokens": 0,
        "cache_read_input_tokens": 0,
    }


def _message(reply: Reply, model: str, message_id: str) -> dict[str, Any]:
    return {
        "id": message_id,
        "type": "message",
        "role": "assistant",
        "model": model,
        "content": _content(reply, f"toolu_{message_id}"),
        "stop_reason": reply.stop_reason,
        "stop_sequence": None,
        "usage": _usage(5),
    }


def _sse_events(reply: Reply, model: str, message_id: str) -> list[tuple[str, Mapping[str, Any]]]:
    start = {**_message(reply, model, message_id), "content": [], "stop_reason": None, "usage": _usage(1)}
    events = [_event("message_start", message=start)]
    for index, block in enumerate(_content(reply, f"toolu_{message_id}")):
        opening: dict[str, Any]
        if block["type"] == "text":
            opening = {"type": "text", "text": ""}
            delta = {"type": "text_delta", "text": block["text"]}
        else:
            opening = {**block, "input": {}}
            delta = {"type": "input_json_delta", "partial_json": json.dumps(block["input"])}
        events += [
            _event("content_block_start", index=index, content_block=opening),
            _event("content_block_delta", index=index, delta=delta),
            _event("content_block_stop", index=index),
        ]
    stop = {"stop_reason": reply.stop_reason, "stop_sequence": None}
    events += [
        _event("message_delta", delta=stop, usage={"output_tokens": 5}),
        _event("message_stop"),
    ]
    return events


def _event(name: str, **fields: Any) -> tuple[str, Mapping[str, Any]]:
    return name, {"type": name, **fields}
