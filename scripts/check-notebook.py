"""Check an executed Jupyter notebook for failed cells.

Usage: /usr/bin/python3 scripts/check-notebook.py EXECUTED.ipynb

nbconvert --allow-errors keeps going after a failing cell, and GoNB reports a failing `!`/`!*`
shell line only as "exit status N" on the cell's stderr (nbconvert still exits 0). This script
fails (exit 1) on any cell with an error output, a stderr line "exit status N", or "panic:" in
stderr, and prints each such cell's first source line and its messages. Exit 2: unreadable file.
"""
import json
import re
import sys


def text_of(v):
    return "".join(v) if isinstance(v, list) else (v or "")


def main(path):
    try:
        with open(path, encoding="utf-8") as f:
            nb = json.load(f)
    except (OSError, ValueError) as e:
        print("check-notebook: %s: %s" % (path, e))
        return 2
    bad = 0
    for i, cell in enumerate(nb.get("cells", [])):
        msgs = []
        for out in cell.get("outputs", []):
            if out.get("output_type") == "error":
                msgs.append("error: %s: %s" % (out.get("ename", ""), out.get("evalue", "")))
            elif out.get("output_type") == "stream" and out.get("name") == "stderr":
                t = text_of(out.get("text"))
                if re.search(r"^exit status \d+$", t, re.M) or "panic:" in t:
                    msgs.append("stderr: " + t)
        if msgs:
            bad += 1
            src = text_of(cell.get("source")).splitlines()
            print("  cell %d: %s" % (i, src[0] if src else "(empty)"))
            for m in msgs:
                print("    " + m.strip().replace("\n", "\n    ")[:4000])
    return 1 if bad else 0


if __name__ == "__main__":
    if len(sys.argv) != 2:
        print("usage: check-notebook.py EXECUTED.ipynb")
        sys.exit(2)
    sys.exit(main(sys.argv[1]))
