"""The one reader of ``mkdocs.yml`` for code that runs outside a build: the test harness, the notebooks'
snippet expander, the browser tests' server and the benchmark. A hook never needs it: MkDocs hands every
event the validated config.

It reads the file as MkDocs does (``!ENV`` takes the environment's value, else its default), but it imports
nothing: a ``!!python/name:`` tag stays a :class:`PythonName`, and :func:`dump` writes it back unchanged, so
a changed copy of the config can be given to ``mkdocs build --config-file -``. Loading all of MkDocs' config
machinery (its plugins, the theme) would take seconds.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import yaml
from yaml_env_tag import construct_env_tag  # MkDocs' own !ENV, a dependency of MkDocs

CONFIG_FILE = Path(__file__).resolve().parent.parent / "mkdocs.yml"
PYTHON_NAME = "tag:yaml.org,2002:python/name:"


class PythonName(str):
    """The dotted name of a ``!!python/name:`` tag, not imported."""


class _Loader(yaml.SafeLoader):
    pass


_Loader.add_constructor("!ENV", construct_env_tag)
_Loader.add_multi_constructor(PYTHON_NAME, lambda loader, suffix, node: PythonName(suffix))


class _Dumper(yaml.SafeDumper):
    pass


_Dumper.add_representer(PythonName, lambda dumper, name: dumper.represent_scalar(PYTHON_NAME + name, ""))


def load(config_file: Path = CONFIG_FILE) -> dict[str, Any]:
    """``mkdocs.yml`` as a dict, ``!ENV`` values resolved now."""
    return yaml.load(Path(config_file).read_text(encoding="utf-8"), Loader=_Loader)


def dump(config: dict[str, Any]) -> str:
    """YAML that MkDocs reads as ``config``, its ``!!python/name:`` tags as they were."""
    return yaml.dump(config, Dumper=_Dumper, sort_keys=False, allow_unicode=True)


def snippet_options(config_file: Path = CONFIG_FILE) -> dict[str, Any]:
    """The ``pymdownx.snippets`` options of ``config_file``, as the site expands snippets with them."""
    for extension in load(config_file).get("markdown_extensions") or []:
        if isinstance(extension, dict) and "pymdownx.snippets" in extension:
            return dict(extension["pymdownx.snippets"] or {})
        if extension == "pymdownx.snippets":
            return {}
    raise ValueError(f"{config_file} does not enable pymdownx.snippets, which the pages use")
