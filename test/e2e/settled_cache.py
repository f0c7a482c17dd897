"""Prints the names in a cache directory (ENC_CACHE_DIR) once it holds one
whole entry, or as they are after 60 s (enc_dev.cache_dir).

usage: settled_cache.py DIR
"""
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "python"))
from enc_dev.cache_dir import settled_entries  # noqa: E402

if __name__ == "__main__":
    print("\n".join(settled_entries(sys.argv[1])))
