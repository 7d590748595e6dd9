"""A TCP proxy in front of Postgres that can lose the acknowledgement of a commit."""

from __future__ import annotations

import select
import socket
import threading

from sqlalchemy.engine import make_url

COMMIT = b"Q\x00\x00\x00\x0bCOMMIT\x00"  # psycopg commits with this simple query
READY = b"Z\x00\x00\x00\x05"  # ReadyForQuery, followed by the transaction status


class CommitProxy:
    """Forwards every connection to the server of `url`. Once `armed`, the next COMMIT
    reaches the server and is carried out, but its answer is withheld and the client's
    connection closed: the client sees a dropped connection for a committed transaction.
    `lost` counts the commits whose answer was withheld."""

    def __init__(self, url: str) -> None:
        parsed = make_url(url)
        self.upstream = (parsed.host or "127.0.0.1", parsed.port or 5432)
        self.listener = socket.create_server(("127.0.0.1", 0))
        port = self.listener.getsockname()[1]
        self.url = parsed.set(host="127.0.0.1", port=port).render_as_string(hide_password=False)
        self.armed = threading.Event()
        self.lost = 0
        threading.Thread(target=self._accept, daemon=True).start()

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
                    server.sendall(data)
                    if COMMIT in data and self.armed.is_set():
                        self.armed.clear()
                        self._withhold_answer(server)
                        return

    def _withhold_answer(self, server: socket.socket) -> None:
        """Read the server's answer to the commit up to its ReadyForQuery, and drop it."""
        answer = b""
        while answer[-6:-1] != READY:
            chunk = server.recv(1 << 16)
            if not chunk:
                break
            answer += chunk
        self.lost += 1
