#!/usr/bin/python3
"""Checks the entropy floor of docs/science.md ("The entropy floor") numerically, in long double.

B(T, s) = ln(1 + (T-1)b) + s sqrt(T(T-1)) b / (1 + (T-1)b), b = exp(-s sqrt(T/(T-1))), should be
  1. the entropy of the row with one logit s sqrt(T/(T-1)) and T-1 zeros (centred norm s), and
  2. the lowest softmax entropy of any row of centred norm s: rows of random direction (normal,
     Cauchy, cubed exponential, two-level) scaled to that norm, and projected-gradient descents of
     the entropy on that sphere, should never go below it.
Prints, per T, the largest |entropy - B| of (1) and the smallest entropy - B of (2).

Run with Debian's python3-numpy: /usr/bin/python3 tests/tools/check-entropy-bound.py
"""
import numpy as np

L = np.longdouble


def bound(T, s):
    T, s = L(T), L(s)
    b = np.exp(-s * np.sqrt(T / (T - 1)))
    return np.log1p((T - 1) * b) + s * np.sqrt(T * (T - 1)) * b / (1 + (T - 1) * b)


def entropy(z):
    z = np.asarray(z, dtype=L)
    z = z - z.max()
    e = np.exp(z)
    p = e / e.sum()
    return np.log(e.sum()) - (p * z).sum()


def centred(z, s):
    z = np.asarray(z, dtype=L)
    z = z - z.mean()
    return z * L(s) / np.sqrt((z * z).sum())


def descend(rng, T, s, steps=3000):
    """Projected gradient descent of the entropy on {sum z = 0, |z| = s}."""
    z = centred(rng.standard_normal(T), s)
    for _ in range(steps):
        p = np.exp(z - z.max())
        p /= p.sum()
        lp = np.log(p)
        g = -p * (lp - (p * lp).sum())  # dH/dz
        g -= g.mean()
        g -= (g @ z) / (z @ z) * z
        z = centred(z - L(0.5) * g, s)
    return z


def main():
    rng = np.random.default_rng(7)
    for T in (2, 3, 8, 32, 128, 2048):
        attained = max(
            abs(entropy([s * np.sqrt(L(T) / (T - 1))] + [0] * (T - 1)) - bound(T, s))
            for s in (0, 0.1, 1, 3, 10)
        )
        lowest = np.inf
        for s in (0.01, 0.5, 1, 3, 10, 30):
            for trial in range(2000):
                kind = trial % 4
                if kind == 0:
                    z = rng.standard_normal(T)
                elif kind == 1:
                    z = rng.standard_cauchy(T)
                elif kind == 2:
                    z = (np.arange(T) < 1 + trial % max(1, T - 1)).astype(float)
                else:
                    z = rng.exponential(size=T) ** 3
                if np.ptp(z) > 0:
                    lowest = min(lowest, entropy(centred(z, s)) - bound(T, s))
            for _ in range(5):
                lowest = min(lowest, entropy(descend(rng, T, s)) - bound(T, s))
        print(f'T {T:5d}: one large logit |H - B| <= {float(attained):.2g}; '
              f'lowest H - B over the other rows {float(lowest):.2g}')


if __name__ == '__main__':
    main()
