# scikit-learn comparison for BenchmarkText: 1M documents x 100 tokens from a 1e5-term vocabulary, two classes,
# generated like the DuckDB benchmark (class-dependent term shifts); CountVectorizer + MultinomialNB timings.
import time, sys
import numpy as np
from sklearn.feature_extraction.text import CountVectorizer
from sklearn.naive_bayes import MultinomialNB
n = int(sys.argv[1]) if len(sys.argv) > 1 else 1000000
rng = np.random.default_rng(1)
ids = rng.integers(0, 100000, size=(n, 100))
y = np.arange(n) % 2
shift = (y[:, None] * (np.arange(100)[None, :] % 3) * 17)
ids = (ids + shift) % 100000
t = time.time()
docs = [" ".join("w%d" % v for v in row) for row in ids]
print("generate %.1fs" % (time.time() - t), flush=True)
t = time.time()
vec = CountVectorizer(token_pattern=r"[^\W_]+")
X = vec.fit_transform(docs)
tv = time.time() - t
t = time.time()
m = MultinomialNB().fit(X, y)
tf = time.time() - t
t = time.time()
Xt = vec.transform(docs)
p = m.predict(Xt)
tp = time.time() - t
print("CountVectorizer.fit_transform %.1fs (%.2f M tokens/s), MultinomialNB.fit %.1fs, transform+predict %.1fs (%.0f k docs/s)" % (
    tv, n * 100 / tv / 1e6, tf, tp, n / tp / 1e3), flush=True)
