"""The source files of the tree, as the tree checks (check_circles.py,
check_format.py) read them: every file under the source folders, except
build trees, caches and test inputs (Inputs/ folders hold golden and hostile
files as they must be)."""
import os

SOURCE_DIRS = ("lang", "compiler", "runtime", "python", "bench", "test", "examples")
SKIP_DIRS = ("build", "node_modules", "__pycache__", "Inputs")


def tree_files(root, exts=None):
    """Paths relative to `root`, sorted, ending in one of `exts` (all if None)."""
    for top in SOURCE_DIRS:
        for d, dirs, files in os.walk(os.path.join(root, top)):
            dirs[:] = sorted(x for x in dirs if x not in SKIP_DIRS and not x.startswith("."))
            for f in sorted(files):
                if exts is None or f.endswith(exts):
                    yield os.path.relpath(os.path.join(d, f), root)
