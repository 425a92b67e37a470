#!/usr/bin/env python3
"""The same bytes as `qapital-tui serve`, from Python's ThreadingHTTPServer (the floor in
docs/performance.md). Serves every file of DIR at /NAME, the query ignored, with keep-alive.

    python3 bench/static_server.py DIR PORT
"""
import os
import socket
import sys
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

root, port = sys.argv[1], int(sys.argv[2])
files = {}
for name in os.listdir(root):
    with open(os.path.join(root, name), "rb") as f:
        files["/" + name] = f.read()


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"  # keep-alive

    def setup(self):
        super().setup()
        # Without it the body waits for the client's delayed ACK of the header (40 ms a request).
        self.connection.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)

    def do_GET(self):
        body = files.get(self.path.split("?", 1)[0])
        if body is None:
            self.send_error(404)
            return
        self.send_response(200)
        self.send_header("Content-Type", "application/json; charset=utf-8")
        self.send_header("Content-Length", str(len(body)))
        # Header and body in one write, as serve and nginx do.
        self._headers_buffer.append(b"\r\n")
        self.wfile.write(b"".join(self._headers_buffer) + body)
        self._headers_buffer = []

    def log_message(self, *args):
        pass


class Server(ThreadingHTTPServer):
    daemon_threads = True
    request_queue_size = 1024

    def handle_error(self, request, client_address):
        pass  # clients that hang up (wrk at its end)


Server(("127.0.0.1", port), Handler).serve_forever()
