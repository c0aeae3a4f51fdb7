#!/usr/bin/env python3
"""Draws what `actorflow train rbm` and `actorflow train autoencoder` wrote.

    scripts/energy_to_png.py DIR

From the .npy files in DIR, whichever are there:
  filters.npy          [784, hidden]  -> filters.png, the first 100 filters
                                         as 28x28 images (an RBM's weights)
  reconstructions.npy  [2, 10, 784]   -> reconstructions.png, ten test
                                         images above their reconstructions
  codes.npy, labels.npy [n, d], [n]   -> codes.png, the test set's codes
                                         coloured by class (an autoencoder's;
                                         1-D by class, wider on their first
                                         two principal components)
Needs numpy and matplotlib (Debian's python3-numpy, python3-matplotlib).
"""
import os
import sys

import matplotlib
import numpy as np

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

CLASSES = ["T-shirt/top", "Trouser", "Pullover", "Dress", "Coat", "Sandal",
           "Shirt", "Sneaker", "Bag", "Ankle boot"]


def grid(images, rows, cols, path, title):
    fig, axes = plt.subplots(rows, cols, figsize=(cols * 0.9, rows * 0.9 + 0.4))
    for ax, image in zip(np.ravel(axes), images):
        ax.imshow(image.reshape(28, 28), cmap="gray")
        ax.axis("off")
    for ax in np.ravel(axes)[len(images):]:
        ax.axis("off")
    fig.suptitle(title)
    fig.savefig(path, dpi=100, bbox_inches="tight")
    plt.close(fig)


def code_plane(codes, labels):
    """The codes as points of a plane, and a title saying what they are:
    2-D codes as they are; 1-D codes against their class (spread a little
    so that they do not hide each other); wider codes on their first two
    principal components."""
    width = codes.shape[1]
    if width == 2:
        return codes, "the test set's 2-D codes"
    if width == 1:
        spread = np.random.default_rng(0).uniform(-0.3, 0.3, len(labels))
        return (np.column_stack([codes[:, 0], labels + spread]),
                "the test set's 1-D codes (x) by class (y)")
    centred = codes - codes.mean(axis=0)
    _, _, vt = np.linalg.svd(centred, full_matrices=False)
    return (centred @ vt[:2].T,
            "the test set's %d-D codes on their first two principal "
            "components" % width)


def main():
    if len(sys.argv) != 2 or sys.argv[1] in ("-h", "--help"):
        print(__doc__.strip())
        return 0 if len(sys.argv) == 2 else 2
    d = sys.argv[1]
    drawn = []
    path = os.path.join(d, "filters.npy")
    if os.path.exists(path):
        w = np.load(path)
        n = min(100, w.shape[1])
        grid([w[:, j] for j in range(n)], (n + 9) // 10, 10,
             os.path.join(d, "filters.png"),
             "the first %d of %d filters" % (n, w.shape[1]))
        drawn.append("filters.png")
    path = os.path.join(d, "reconstructions.npy")
    if os.path.exists(path):
        r = np.load(path)
        grid(list(r[0]) + list(r[1]), 2, 10,
             os.path.join(d, "reconstructions.png"),
             "test images (top) and their reconstructions")
        drawn.append("reconstructions.png")
    path = os.path.join(d, "codes.npy")
    if os.path.exists(path):
        codes = np.load(path)
        labels = np.load(os.path.join(d, "labels.npy"))
        xy, title = code_plane(codes.reshape(len(codes), -1), labels)
        fig, ax = plt.subplots(figsize=(8, 7))
        for c in range(10):
            pts = xy[labels == c]
            ax.scatter(pts[:, 0], pts[:, 1], s=2, label=CLASSES[c],
                       color=plt.cm.tab10(c))
        ax.legend(markerscale=6, fontsize=8)
        ax.set_title(title)
        fig.savefig(os.path.join(d, "codes.png"), dpi=100, bbox_inches="tight")
        plt.close(fig)
        drawn.append("codes.png")
    if not drawn:
        print("no filters.npy, reconstructions.npy or codes.npy in " + d,
              file=sys.stderr)
        return 1
    print("wrote " + ", ".join(os.path.join(d, p) for p in drawn))
    return 0


if __name__ == "__main__":
    sys.exit(main())
