"""Pack the real letter crops into ``realdata/letters.npz`` for the tests and the bench.

The source is a checkout of the shared real-data folder (crops cut from jheidel/scrabble-opencv,
MIT licence): ``labels.csv`` names each crop, its set and its letter.  The reader works on grey
levels, so the 64x64 colour face crops are kept grey (a third of the size); the binarised
letters are kept as they are (36x36, white ink on black).  Scrabble's Q is stored as "Q": the
reader's face for it is "QU".

    python scripts/pack_realdata.py SOURCE_DIR [--out realdata/letters.npz]
"""

from __future__ import annotations

import argparse
import csv
from pathlib import Path
from typing import Any

import cv2
import numpy as np

ROOT = Path(__file__).resolve().parents[1]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("source", type=Path)
    parser.add_argument("--out", type=Path, default=ROOT / "realdata/letters.npz")
    args = parser.parse_args()
    sets: dict[str, tuple[list[np.ndarray], list[str], list[str]]] = {}
    with (args.source / "labels.csv").open(newline="") as fh:
        for row in csv.DictReader(fh):
            image = cv2.imread(str(args.source / row["file"]), cv2.IMREAD_GRAYSCALE)
            if image is None:
                raise SystemExit(f"cannot read {row['file']}")
            crops, labels, names = sets.setdefault(row["set"], ([], [], []))
            crops.append(image)
            labels.append(row["label"])
            names.append(Path(row["file"]).stem)
    arrays: dict[str, Any] = {}
    for name, (crops, labels, names) in sets.items():
        arrays[f"{name}_crops"] = np.stack(crops)
        arrays[f"{name}_labels"] = np.array(labels)
        arrays[f"{name}_names"] = np.array(names)
    np.savez_compressed(args.out, **arrays)
    print(", ".join(f"{k}: {len(v[1])}" for k, v in sets.items()), "->", args.out)


if __name__ == "__main__":
    main()
