"""A stub provider for the key wizard's tests: accepts GOOD_KEY, answers 401 to any other key,
serves Ollama's /api/tags, and can hold its answers until a test lets them go."""

from __future__ import annotations

import json
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

GOOD_KEY = "sk-good-key-0123456789"
OLLAMA_MODELS = ["qwen2.5-coder:7b", "llama3:8b"]


class KeyStub:
    def __init__(self, *, hold: bool = False) -> None:
        self.paths: list[str] = []
        self.release = threading.Event()  # answers wait for it when `hold`
        self.answered = threading.Event()
        if not hold:
            self.release.set()
        owner = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, format: str, *args: Any) -> None:
                pass

            def do_GET(self) -> None:
                owner.paths.append(self.path)
                owner.release.wait(10)
                if self.path == "/api/tags":
                    self._send(200, {"models": [{"name": n} for n in OLLAMA_MODELS]})
                elif GOOD_KEY in " ".join(self.headers.values()):
                    self._send(200, {"data": []})
                else:
                    self._send(401, {"error": {"message": "Incorrect API key provided"}})
                owner.answered.set()

            def _send(self, status: int, body: dict[str, Any]) -> None:
                data = json.dumps(body).encode()
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.base = f"http://127.0.0.1:{self.httpd.server_address[1]}"
        threading.Thread(target=self.httpd.serve_forever, args=(0.05,), daemon=True).start()

    def close(self) -> None:
        self.release.set()
        self.httpd.shutdown()
        self.httpd.server_close()
