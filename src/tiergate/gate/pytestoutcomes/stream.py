# mypy: ignore-errors
"""The stream of this run's outcomes to the gate's socket (`tiergate.gate.watchsocket`)."""

# What a stream sends through is taken as the plugin is imported (PYTEST_PLUGINS: before pytest imports any
# conftest, which could replace `socket.socket`'s methods): `_socket`'s type is C's, its methods fixed.
import _socket
import os
from json.encoder import encode_basestring_ascii as _quote

# The gate's socket (`tiergate.gate.imported`), and the check this run is for.
_WATCH = "TIERGATE_IMPORTED"
_WATCH_KEY = "TIERGATE_IMPORTED_KEY"
# How long the plugin waits on the gate's socket, to connect, for its answer, to send: never forever (a
# gate that does not answer must not hold the tests up); its stream then ends there, which the gate sees.
_WAIT = 10.0


class _Stream:
    """Each outcome sent to the gate's socket as the recorder sets it, the runner's parts found replaced as
    each test ends, and an end mark as the session finishes: once sent, out of this process's reach (the
    report file it writes at the end is not). Everything it calls was bound as the plugin was imported and
    as it connected (`_stream`): a conftest or code under test that replaces `socket`'s or `json`'s
    functions does not reach it."""

    def __init__(self, conn, send, quote):
        self.conn = conn  # held: the connection lives as long as the process
        self.send = send
        self.quote = quote
        self.named = set()  # the runner's parts already named

    def line(self, text):
        send = self.send
        if send is None:
            return
        try:
            send(text.encode())
        except Exception:
            self.send = None  # the gate gone, or too slow: the stream ends here, and the gate sees it did

    def outcome(self, nodeid, outcome):
        quote = self.quote
        self.line('{"o": [%s, %s]}\n' % (quote(nodeid), quote(outcome)))

    def patched(self, names):
        fresh = [n for n in names if n not in self.named]
        if fresh:
            self.named.update(fresh)
            self.line('{"p": [%s]}\n' % ", ".join(self.quote(n) for n in fresh))

    def end(self):
        self.line('{"end": true}\n')

    def worker(self, name):
        """An xdist worker this run started: the gate then waits for its own stream."""
        self.line('{"w": %s}\n' % self.quote(name))

    def down(self, name, crashed):
        """An xdist worker of this run gone down: as it finished, or crashed (its stream then has no end
        mark, which the gate accepts only for a worker named here as crashed)."""
        self.line('{"d": [%s, %s]}\n' % (self.quote(name), self.quote("crashed" if crashed else "done")))

    def crashed(self, name, nodeid):
        """The test an xdist worker of this run was running as it crashed: failed, whatever else says."""
        self.line('{"c": [%s, %s]}\n' % (self.quote(name), self.quote(nodeid)))


def _stream(report, worker=None):
    """The stream of this run's outcomes for its report at `report`, connected to the gate's socket; None
    when the gate gave none (the report alone then, as the gate reads it without one) or it cannot be
    reached. The gate answers once it has heard of the report, before the file is there. `worker`: the
    xdist worker this process is, of the run whose report that is (it writes no report of its own)."""
    where = os.environ.get(_WATCH)
    if not where:
        return None
    quote = _quote
    conn = _socket.socket(_socket.AF_UNIX, _socket.SOCK_STREAM)
    try:
        conn.settimeout(_WAIT)
        conn.connect("\0" + where[1:] if where.startswith("@") else where)
        send = conn.sendall
        key = os.environ.get(_WATCH_KEY, "")
        which = "" if worker is None else ', "worker": %s' % quote(worker)
        send(('{"key": %s}\n{"report": %s%s}\n' % (quote(key), quote(report), which)).encode())
        if conn.recv(16) != b"heard\n":
            raise OSError("the gate did not answer")
    except Exception:
        conn.close()
        return None
    return _Stream(conn, send, quote)
