"""Run the solved labs side by side while the site is built, instead of one after another.

mkdocs-jupyter runs each lab in a kernel when MkDocs reaches its page, one at a time: on a fresh clone (nothing in
its cache, ``.cache/labs``) the eleven labs took 40 s of a build's 110. Here, once the files are known, every lab
it would run starts at once (as many as the machine has cores), through the plugin's own ``on_pre_page`` and
page renderer, which store their HTML in its cache; when MkDocs reaches a lab's page, it waits for that lab and
renders it from the cache. A lab already in the cache costs nothing, as before.
"""

from __future__ import annotations

import os
from concurrent.futures import Future, ThreadPoolExecutor

from mkdocs.config.defaults import MkDocsConfig
from mkdocs.plugins import event_priority
from mkdocs.structure.files import Files
from mkdocs.structure.nav import Navigation
from mkdocs.structure.pages import Page

PLUGIN = "mkdocs-jupyter"
_RUNNING: dict[str, Future] = {}  # a lab's source path: its render, under way


@event_priority(-100)  # after notebooks.py has pointed each lab at its solved copy
def on_nav(nav: Navigation, *, config: MkDocsConfig, files: Files) -> Navigation:
    plugin = config.plugins.get(PLUGIN)
    if plugin is None:
        return nav
    _RUNNING.clear()
    pool = ThreadPoolExecutor(max_workers=os.cpu_count() or 2, thread_name_prefix="lab")
    for file in files.documentation_pages():
        if plugin.should_include(file):
            page = file.page
            early = Page(None, file, config)  # a stand-in: the plugin binds its renderer to the page it is given
            file.page = page  # which Page() made the file's own: the nav's page stays it
            plugin.on_pre_page(early, config, files)
            _RUNNING[file.src_uri] = pool.submit(early.render, config, files)
    pool.shutdown(wait=False)
    return nav


def on_pre_page(page: Page, *, config: MkDocsConfig, files: Files) -> Page:
    """The plugin's renderer, bound to this page by its own on_pre_page, runs once this lab's early run ended."""
    running = _RUNNING.pop(page.file.src_uri, None)
    if running is not None:
        render = page.render

        def render_when_run(config: MkDocsConfig, files: Files) -> None:
            running.result()  # raises what the early run raised: a lab that fails fails the build
            render(config, files)

        page.render = render_when_run
    return page
