"""An HTTP endpoint that accepts every request and holds its answer: ``python held.py --port P``.

It reads the request, then sleeps (10 s by default, ``--hold``) before it answers with an empty
JSON object: longer than a short ``mcp_contract_startup_timeout``, so the MCP handshake times out
while its requests are still in flight. Standard library only.
"""

from __future__ import annotations

import argparse
import http.server
import time

HOLD = 10.0


class Held(http.server.BaseHTTPRequestHandler):
    def do_POST(self) -> None:
        self.rfile.read(int(self.headers.get("Content-Length") or 0))
        time.sleep(HOLD)
        body = b"{}"
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    do_GET = do_DELETE = do_POST

    def log_message(self, *_args: object) -> None:
        pass


if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    parser.add_argument("--port", type=int, required=True)
    parser.add_argument("--hold", type=float, default=HOLD)
    options = parser.parse_args()
    HOLD = options.hold
    site = http.server.ThreadingHTTPServer(("127.0.0.1", options.port), Held)
    site.daemon_threads = True
    site.serve_forever()
