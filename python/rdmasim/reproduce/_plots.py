"""Plot plumbing shared by the studies: a headless pyplot (or None when matplotlib is missing,
since plots are optional) and saving a figure into a directory that may not exist yet."""
from __future__ import annotations

from pathlib import Path
from typing import Any


def pyplot() -> Any:
    """``matplotlib.pyplot`` on the non-interactive Agg backend, or None without matplotlib."""
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:  # plotting is optional
        return None
    return plt


def save(fig: Any, path: Path, **savefig_kw: Any) -> Path:
    """Writes ``fig`` to ``path`` (creating its directory), closes it and returns the path."""
    import matplotlib.pyplot as plt

    path.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path, **savefig_kw)
    plt.close(fig)
    return path
