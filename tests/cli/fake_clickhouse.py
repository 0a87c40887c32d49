#!/usr/bin/env python3
"""The least of ClickHouse's HTTP interface that `ringscope export` needs, for tests/cli: every
request answered 200, `SELECT count()` with 0 (no file exported yet), each INSERT into an events
table after DELAY seconds (so that a progress line is drawn while a file is being sent). Prints its
port, then serves until killed.
  fake_clickhouse.py [DELAY]"""
import http.server
import sys
import time
import urllib.parse

delay = float(sys.argv[1]) if len(sys.argv) > 1 else 0.3


class Handler(http.server.BaseHTTPRequestHandler):
    def do_POST(self):
        if self.headers.get("Transfer-Encoding", "") == "chunked":
            body = b""
            while True:
                size = int(self.rfile.readline().strip(), 16)
                body += self.rfile.read(size + 2)[:size]
                if size == 0:
                    break
        else:
            body = self.rfile.read(int(self.headers.get("Content-Length", 0) or 0))
        query = urllib.parse.parse_qs(urllib.parse.urlparse(self.path).query).get("query", [""])[0]
        query = query or body.decode("latin1")
        if query.startswith("INSERT INTO") and ".events " in query:
            time.sleep(delay)
        answer = b"0\n" if query.startswith("SELECT count()") else b""
        self.send_response(200)
        self.send_header("Content-Length", str(len(answer)))
        self.end_headers()
        self.wfile.write(answer)

    do_GET = do_POST

    def log_message(self, *args):
        pass


server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
print(server.server_address[1], flush=True)
server.serve_forever()
