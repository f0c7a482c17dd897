"""Waiting on an ENC_CACHE_DIR entry: the first load of a safetensors file
writes its packed copy from a forked process that the loading process does
not wait for (docs/weights.md#the-cache-directory), so a test or benchmark
that needs the entry polls for it."""
import os
import time


def settled_entries(directory, seconds=60.0):
    """The sorted names in `directory` once it holds one whole entry (a
    single .encw, no temporary file), or as they are after `seconds`."""
    deadline = time.monotonic() + seconds
    while True:
        names = sorted(os.listdir(directory)) if os.path.isdir(directory) else []
        if (len(names) == 1 and names[0].endswith(".encw")) or time.monotonic() > deadline:
            return names
        time.sleep(0.02)
