"""The three kinds of client of `sextant serve`, written with the Python
standard library only, each answering `call(method, verb, path, ids, body)`
the same way: (status, JSON body) as HTTP would give them.

- Http: HTTP/1.1 keep-alive, one connection per client;
- Ws: JSON-RPC over a WebSocket (the least of RFC 6455 a client needs);
- Stdio: JSON-RPC with LSP framing over the server's own stdin/stdout,
  shared by several threads (one session per server process).

JSON-RPC errors carry the HTTP status in `data.status`; a cancelled request
(-32800) is reported as status 499.
"""

import base64
import http.client
import json
import os
import socket
import struct
import threading


class Http:
    def __init__(self, addr, timeout=120):
        host, port = addr.rsplit(":", 1)
        self.host, self.port, self.timeout = host, int(port), timeout
        self.conn = None

    def call(self, method, verb, path, ids, body):
        if self.conn is None:
            self.conn = http.client.HTTPConnection(self.host, self.port, timeout=self.timeout)
        data = None if body is None else json.dumps(body)
        headers = {"Content-Type": "application/json"} if data is not None else {}
        try:
            self.conn.request(verb, "/tsp/api" + path, body=data, headers=headers)
            resp = self.conn.getresponse()
            text = resp.read()
        except (OSError, http.client.HTTPException):
            self.close()
            raise
        try:
            return resp.status, json.loads(text)
        except ValueError:
            return resp.status, {"title": "not JSON", "detail": text[:200].decode("utf-8", "replace")}

    def close(self):
        if self.conn is not None:
            self.conn.close()
            self.conn = None


def rpc_answer(msg):
    """A JSON-RPC response as (status, body)."""
    if "error" in msg:
        e = msg["error"]
        if e.get("code") == -32800:
            return 499, {"title": "cancelled", "detail": e.get("message", "")}
        data = e.get("data")
        status = data.get("status", 500) if isinstance(data, dict) else 500
        return status, data if isinstance(data, dict) else {"title": e.get("message"), "detail": data}
    return 200, msg.get("result")


def rpc_params(ids, body):
    params = dict(body or {})
    params.update(ids)
    return params


class Ws:
    """One WebSocket connection, one request at a time."""

    def __init__(self, addr, timeout=120):
        host, port = addr.rsplit(":", 1)
        self.sock = socket.create_connection((host, int(port)), timeout=timeout)
        key = base64.b64encode(os.urandom(16)).decode()
        self.sock.sendall(
            ("GET / HTTP/1.1\r\nHost: %s\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
             "Sec-WebSocket-Key: %s\r\nSec-WebSocket-Version: 13\r\n\r\n" % (addr, key)).encode())
        head = b""
        while b"\r\n\r\n" not in head:
            chunk = self.sock.recv(1)
            if not chunk:
                raise OSError("the WebSocket handshake was cut")
            head += chunk
        if b" 101 " not in head.split(b"\r\n")[0]:
            raise OSError("WebSocket handshake refused: %r" % head[:80])
        self.next_id = 0

    def _exact(self, n):
        out = bytearray()
        while len(out) < n:
            chunk = self.sock.recv(n - len(out))
            if not chunk:
                raise OSError("the WebSocket closed")
            out += chunk
        return bytes(out)

    def _frame(self, opcode, payload):
        head = bytes([0x80 | opcode])
        n = len(payload)
        if n < 126:
            head += bytes([0x80 | n])
        elif n < 1 << 16:
            head += bytes([0x80 | 126]) + struct.pack(">H", n)
        else:
            head += bytes([0x80 | 127]) + struct.pack(">Q", n)
        mask = os.urandom(4)
        masked = bytes(b ^ mask[i % 4] for i, b in enumerate(payload))
        self.sock.sendall(head + mask + masked)

    def send(self, obj):
        self._frame(1, json.dumps(obj).encode())

    def recv(self):
        """The next text message, as JSON."""
        message = b""
        while True:
            b0, b1 = self._exact(2)
            opcode, n = b0 & 0x0F, b1 & 0x7F
            if n == 126:
                n = struct.unpack(">H", self._exact(2))[0]
            elif n == 127:
                n = struct.unpack(">Q", self._exact(8))[0]
            payload = self._exact(n)
            if opcode == 8:
                raise OSError("the server closed the WebSocket")
            if opcode == 9:
                self._frame(10, payload)
                continue
            if opcode in (0, 1, 2):
                message += payload
                if b0 & 0x80:
                    return json.loads(message)

    def call(self, method, verb, path, ids, body):
        self.next_id += 1
        rid = self.next_id
        self.send({"jsonrpc": "2.0", "id": rid, "method": method, "params": rpc_params(ids, body)})
        while True:
            msg = self.recv()
            if msg.get("id") == rid and "method" not in msg:
                return rpc_answer(msg)

    def close(self):
        try:
            self._frame(8, b"")
        except OSError:
            pass
        self.sock.close()


class Stdio:
    """The server's stdin/stdout as one JSON-RPC session shared by threads."""

    def __init__(self, proc):
        self.proc = proc
        self.lock = threading.Lock()
        self.waiting = {}
        self.next_id = 0
        self.closed = False
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self):
        out = self.proc.stdout
        while True:
            length = None
            while True:
                line = out.readline()
                if not line:
                    self._end()
                    return
                line = line.strip()
                if not line:
                    break
                name, _, value = line.partition(b":")
                if name.strip().lower() == b"content-length":
                    length = int(value)
            msg = json.loads(out.read(length))
            if "id" in msg and "method" not in msg:
                with self.lock:
                    slot = self.waiting.pop(msg["id"], None)
                if slot is not None:
                    slot[1] = msg
                    slot[0].set()

    def _end(self):
        with self.lock:
            self.closed = True
            for slot in self.waiting.values():
                slot[0].set()
            self.waiting.clear()

    def send(self, obj):
        body = json.dumps(obj).encode()
        with self.lock:
            self.proc.stdin.write(b"Content-Length: %d\r\n\r\n" % len(body) + body)
            self.proc.stdin.flush()

    def start(self, method, params):
        """Sends a request; its id and the slot its answer will fill."""
        slot = [threading.Event(), None]
        with self.lock:
            if self.closed:
                raise OSError("the stdio session ended")
            self.next_id += 1
            rid = self.next_id
            self.waiting[rid] = slot
        self.send({"jsonrpc": "2.0", "id": rid, "method": method, "params": params})
        return rid, slot

    def wait(self, slot, timeout=120):
        if not slot[0].wait(timeout):
            raise OSError("no answer within %d s" % timeout)
        if slot[1] is None:
            raise OSError("the stdio session ended")
        return rpc_answer(slot[1])

    def call(self, method, verb, path, ids, body):
        _, slot = self.start(method, rpc_params(ids, body))
        return self.wait(slot)

    def cancel(self, rid):
        self.send({"jsonrpc": "2.0", "method": "$/cancelRequest", "params": {"id": rid}})
