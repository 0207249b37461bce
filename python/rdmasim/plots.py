"""Plot plumbing shared by the studies, the doctor and `Fabric`: a headless pyplot (or None when
matplotlib is missing, since plots are optional) and writing a figure or other artifact into a
directory that may not exist yet, or may not be writable."""
from __future__ import annotations

import sys
from contextlib import contextmanager
from pathlib import Path
from typing import Any, Callable, Iterator, List, Optional

#: Where :func:`artifact` records what it wrote while :func:`collecting` is open (the reproduce
#: command's page shows each study's plots), else None.
_written: Optional[List[Path]] = None


@contextmanager
def collecting() -> Iterator[List[Path]]:
    """Collects the paths of the artifacts written inside the block, in order."""
    global _written
    outer, _written = _written, []
    try:
        yield _written
    finally:
        if outer is not None:
            outer.extend(_written)
        _written = outer


def pyplot() -> Any:
    """``matplotlib.pyplot`` on the non-interactive Agg backend, or None without matplotlib."""
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:  # plotting is optional
        return None
    return plt


def artifact(path: Path, write: Callable[[Path], Any]) -> Optional[Path]:
    """Writes one artifact of a study (a plot, a capture, a table) with ``write(path)``, creating
    its directory, and returns ``path``. One that cannot be written is named on stderr and
    skipped (None): the study's rows, computed before, are not lost to an unwritable directory."""
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        write(path)
    except OSError as e:
        # mkdir says "File exists" when a file stands where a directory should be: name it.
        blocking = next((p for p in [path.parent, *path.parent.parents] if p.exists() and not p.is_dir()), None)
        why = f"{blocking} is a file, not a directory" if blocking is not None else (e.strerror or str(e))
        print(f"rdmasim: warning: cannot write {path}: {why}; skipped", file=sys.stderr)
        return None
    if _written is not None:
        _written.append(path)
    return path


def save(fig: Any, path: Path, **savefig_kw: Any) -> Optional[Path]:
    """Writes ``fig`` to ``path`` (see :func:`artifact`), closes it and returns the path, or None
    when it could not be written."""
    import matplotlib.pyplot as plt

    try:
        return artifact(path, lambda p: fig.savefig(p, **savefig_kw))
    finally:
        plt.close(fig)
