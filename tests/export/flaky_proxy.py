#!/usr/bin/env python3
"""An HTTP proxy in front of a ClickHouse server that fails some INSERTs into an events table, for the
export retry tests. Prints its port, then serves until killed.
  flaky_proxy.py UPSTREAM_URL LOST=N[,N...] REFUSED=N[,N...]
LOST: the N-th events INSERT reaches the server, but the client gets 502 (the answer was lost).
REFUSED: the N-th events INSERT is answered 503 without reaching the server."""
import http.server
import sys
import urllib.error
import urllib.parse
import urllib.request

upstream = sys.argv[1].rstrip("/")
lost = {int(n) for n in sys.argv[2].split("=", 1)[1].split(",") if n}
refused = {int(n) for n in sys.argv[3].split("=", 1)[1].split(",") if n}
inserts = 0


class Proxy(http.server.BaseHTTPRequestHandler):
    def do_POST(self):
        global inserts
        body = self.rfile.read(int(self.headers.get("Content-Length", 0)))
        query = urllib.parse.parse_qs(urllib.parse.urlparse(self.path).query).get("query", [""])[0]
        n = 0
        if query.startswith("INSERT INTO") and ".events " in query:
            inserts += 1
            n = inserts
        if n in refused:
            return self.answer(503, b"refused by the test proxy\n")
        headers = {k: v for k, v in self.headers.items() if k.lower() in ("content-encoding", "content-type")}
        request = urllib.request.Request(upstream + self.path, data=body, headers=headers, method="POST")
        try:
            with urllib.request.urlopen(request) as r:
                status, answer = r.status, r.read()
        except urllib.error.HTTPError as e:
            status, answer = e.code, e.read()
        if n in lost:
            return self.answer(502, b"answer lost by the test proxy\n")
        self.answer(status, answer)

    def answer(self, status, body):
        self.send_response(status)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args):
        pass


server = http.server.HTTPServer(("127.0.0.1", 0), Proxy)
print(server.server_address[1], flush=True)
server.serve_forever()
