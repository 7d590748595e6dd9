"""A TCP proxy in front of Postgres that can lose a commit, or its acknowledgement."""

from __future__ import annotations

import select
import socket
import threading

from sqlalchemy.engine import make_url

COMMIT = b"Q\x00\x00\x00\x0bCOMMIT\x00"  # psycopg commits with this simple query
READY = b"Z\x00\x00\x00\x05"  # ReadyForQuery, followed by the transaction status


class CommitProxy:
    """Forwards every connection to the server of `url`. Once armed, it closes the
    client's connection at the next COMMIT: with `deliver`, after the server carried
    the commit out (its answer is withheld), else before the commit reaches the server
    (which rolls the transaction back). Either way the client sees a dropped connection.
    `lost` counts the commits so handled."""

    def __init__(self, url: str) -> None:
        parsed = make_url(url)
        self.upstream = (parsed.host or "127.0.0.1", parsed.port or 5432)
        self.listener = socket.create_server(("127.0.0.1", 0))
        port = self.listener.getsockname()[1]
        self.url = parsed.set(host="127.0.0.1", port=port).render_as_string(hide_password=False)
        self.armed = threading.Event()
        self.deliver = True
        self.lost = 0
        threading.Thread(target=self._accept, daemon=True).start()

    def arm(self, deliver: bool) -> None:
        self.deliver = deliver
        self.armed.set()

    def close(self) -> None:
        self.listener.close()

    def _accept(self) -> None:
        while True:
            try:
                client, _ = self.listener.accept()
            except OSError:  # closed
                return
            threading.Thread(target=self._forward, args=(client,), daemon=True).start()

    def _forward(self, client: socket.socket) -> None:
        server = socket.create_connection(self.upstream)
        with client, server:
            while True:
                ready, _, _ = select.select([client, server], [], [])
                for source in ready:
                    data = source.recv(1 << 16)
                    if not data:
                        return
                    if source is server:
                        client.sendall(data)
                        continue
                    if COMMIT in data and self.armed.is_set():
                        self.armed.clear()
                        self.lost += 1
                        if self.deliver:
                            server.sendall(data)
                            self._withhold_answer(server)
                        return
                    server.sendall(data)

    def _withhold_answer(self, server: socket.socket) -> None:
        """Read the server's answer to the commit up to its ReadyForQuery, and drop it."""
        answer = b""
        while answer[-6:-1] != READY:
            chunk = server.recv(1 << 16)
            if not chunk:
                break
            answer += chunk
