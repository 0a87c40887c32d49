#!/usr/bin/env python3
"""An HTTP proxy in front of a ClickHouse server that fails some INSERTs into an events table, for the
export retry tests. Prints its port, then serves until killed.
  flaky_proxy.py UPSTREAM_URL LOST=N[,N...] REFUSED=N[,N...] [STALL=N[,N...]] [BAD=N[,N...]]
                 [FAIL500=N[,N...]] [BUSY500=N[,N...]]
LOST: the N-th events INSERT reaches the server, but the client gets 502 (the answer was lost).
REFUSED: the N-th events INSERT is answered 503 without reaching the server.
STALL: the N-th events INSERT is read, never forwarded and never answered (the connection stays open).
BAD: the N-th events INSERT is answered 400 without reaching the server (a deterministic refusal).
FAIL500: answered 500 with a deterministic ClickHouse exception (Code: 53, TYPE_MISMATCH).
BUSY500: answered 500 with a passing ClickHouse exception (Code: 241, MEMORY_LIMIT_EXCEEDED)."""
import http.server
import sys
import threading
import time
import urllib.error
import urllib.parse
import urllib.request

upstream = sys.argv[1].rstrip("/")
lists = {"LOST": set(), "REFUSED": set(), "STALL": set(), "BAD": set(), "FAIL500": set(), "BUSY500": set()}
for arg in sys.argv[2:]:
    key, _, values = arg.partition("=")
    lists[key] = {int(n) for n in values.split(",") if n}
inserts = 0
lock = threading.Lock()


class Proxy(http.server.BaseHTTPRequestHandler):
    def do_POST(self):
        global inserts
        body = self.rfile.read(int(self.headers.get("Content-Length", 0)))
        query = urllib.parse.parse_qs(urllib.parse.urlparse(self.path).query).get("query", [""])[0]
        n = 0
        if query.startswith("INSERT INTO") and ".events " in query:
            with lock:
                inserts += 1
                n = inserts
        if n in lists["STALL"]:
            while True:
                time.sleep(3600)
        if n in lists["BAD"]:
            return self.answer(400, b"refused for good by the test proxy\n")
        if n in lists["FAIL500"]:
            return self.answer(500, b"Code: 53. DB::Exception: Type mismatch (test proxy). (TYPE_MISMATCH)\n")
        if n in lists["BUSY500"]:
            return self.answer(500, b"Code: 241. DB::Exception: Memory limit exceeded (test proxy). "
                                    b"(MEMORY_LIMIT_EXCEEDED)\n")
        if n in lists["REFUSED"]:
            return self.answer(503, b"refused by the test proxy\n")
        headers = {k: v for k, v in self.headers.items() if k.lower() in ("content-encoding", "content-type")}
        request = urllib.request.Request(upstream + self.path, data=body, headers=headers, method="POST")
        try:
            with urllib.request.urlopen(request) as r:
                status, answer = r.status, r.read()
        except urllib.error.HTTPError as e:
            status, answer = e.code, e.read()
        if n in lists["LOST"]:
            return self.answer(502, b"answer lost by the test proxy\n")
        self.answer(status, answer)

    def answer(self, status, body):
        self.send_response(status)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args):
        pass


class Server(http.server.ThreadingHTTPServer):
    daemon_threads = True  # a stalled request does not keep the proxy from being killed


server = Server(("127.0.0.1", 0), Proxy)
print(server.server_address[1], flush=True)
server.serve_forever()
