"""One renderer of the shipped story packs for the tests of a process, passed to their mailers.

Most tests render the unchanged shipped packs: each built its own ``Mailer(FileStore(), ...)``,
whose renderer compiled again every template the test's mails use (two dozen a test, most of a
whole game's time by mail).  :data:`SHIPPED_RENDERER` is built once, when a test module first
imports this one, and every mailer :func:`shipped_mailer` builds renders with it (``Mailer``'s
``shared``), so each template is compiled once per test process.  Nothing is hidden: a test
shares it only where its mailer is built so, by name.

It is safe to share because nothing can change what it renders: a renderer's store is fixed
(`stories.render.Renderer.store` is read only), the shipped packs on disk do not change during a
run, and a mailer never changes a renderer it was given (its reload renders from then on with one
of its own).  A test that renders other templates (its own store, a pack in a temporary folder,
the stories table) builds its own mailer, as do the daemon's tests (the daemon reloads its
mailer's stories and serves its pages with the mailer's renderer).
"""

from __future__ import annotations

from typing import Any

from narrator.service.mailer import Mailer
from stories import FileStore, Renderer

#: The renderer of the shipped packs (`stories/<ruleset>/<lang>/<theme>/`) shared by the mailers
#: of :func:`shipped_mailer`; it compiles each template at its first use.
SHIPPED_RENDERER = Renderer(FileStore())


def shipped_mailer(address: str, **settings: Any) -> Mailer:
    """A mailer of the shipped packs from `address` rendering with :data:`SHIPPED_RENDERER`
    (the other keywords are the Mailer's own: ``reply_addresses``, ``pages``...)."""
    return Mailer(SHIPPED_RENDERER.store, address, shared=SHIPPED_RENDERER, **settings)
