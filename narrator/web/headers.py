"""Headers added to every HTTP response of an ASGI application, as each response starts."""

from __future__ import annotations

from collections.abc import Callable, Sequence

from starlette.types import ASGIApp, Message, Receive, Scope, Send

Headers = Sequence[tuple[bytes, bytes]]


class ResponseHeaders:
    """`app` with the pairs `headers()` gives added to every HTTP response it starts (pages,
    JSON, static files, 404s), asked for as each response starts."""

    def __init__(self, app: ASGIApp, headers: Callable[[], Headers]) -> None:
        self.app = app
        self.headers = headers

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return

        async def with_headers(message: Message) -> None:
            if message["type"] == "http.response.start":
                message = {**message, "headers": [*message.get("headers", []), *self.headers()]}
            await send(message)

        await self.app(scope, receive, with_headers)
