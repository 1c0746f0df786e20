# scikit-learn comparison for BenchmarkLogistic: LogisticRegression(lbfgs, C=1) on the data the DuckDB
# benchmark generates (bench/discriminative_test.go, lrData): n rows of 20 features in [0, 1) and k classes,
# y = argmax_c sum_j W_cj x_j + 3 e_c, with the same deterministic pseudo-random formula, in memory (numpy).
# Prints the data generation and fit times on its last line. Usage: logreg_bench.py N K
import sys, time, warnings
import numpy as np
from sklearn.linear_model import LogisticRegression

n, k, m = int(sys.argv[1]), int(sys.argv[2]), 20
t = time.time()
i = np.arange(n, dtype=np.float64)[:, None]


def frac_sin(a, j, c, s):
    v = np.sin((i + 1) * a + j * c) * s
    return v - np.floor(v)


X = frac_sin(12.9898, np.arange(1, m + 1, dtype=np.float64)[None, :], 78.233, 43758.5453)
W = np.array([[((c + 1) * (j + 2) % 7 - 3) / 2 for j in range(1, m + 1)] for c in range(k)])
scores = X @ W.T + 3 * frac_sin(93.9898, np.arange(k, dtype=np.float64)[None, :], 67.345, 24634.6345)
y = scores.argmax(axis=1)
del scores
tgen = time.time() - t
t = time.time()
with warnings.catch_warnings(record=True) as w:
    warnings.simplefilter("always")
    model = LogisticRegression(C=1.0, solver="lbfgs", max_iter=1000).fit(X, y)
tfit = time.time() - t
warned = "; ".join(sorted({type(x.message).__name__ for x in w})) or "no warning"
print("scikit-learn %s LogisticRegression(lbfgs) fit %.1fs (%d iterations, %s; data generated in %.1fs)" % (
    __import__("sklearn").__version__, tfit, int(np.max(model.n_iter_)), warned, tgen), flush=True)
