"""Messages between the server and its analysis process: length-prefixed pickles over a pipe
both ends of which are jaxfix's own (never a socket, never anyone else's bytes)."""

from __future__ import annotations

import pickle
import struct
from typing import IO, Any

_HEADER = struct.Struct("!Q")


def send(stream: IO[bytes], message: Any) -> None:
    body = pickle.dumps(message, protocol=pickle.HIGHEST_PROTOCOL)
    stream.write(_HEADER.pack(len(body)) + body)
    stream.flush()


def receive(stream: IO[bytes]) -> Any:
    """The next message; EOFError when the other end is gone."""
    header = _read(stream, _HEADER.size)
    return pickle.loads(_read(stream, _HEADER.unpack(header)[0]))


def _read(stream: IO[bytes], size: int) -> bytes:
    data = b""
    while len(data) < size:
        chunk = stream.read(size - len(data))
        if not chunk:
            raise EOFError("the other end closed the pipe")
        data += chunk
    return data
