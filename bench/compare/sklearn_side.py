"""scikit-learn's side of `make bench-compare` (bench/compare/main.go drives it).

Run as `sklearn_side.py serve`, it reads commands from stdin, one a line, and answers each with one line,
"ok SECONDS" (the time of the operation alone) or "error MESSAGE":
    load KIND FILE         read FILE (CSV, column y is the label) into numpy arrays: X (float64) and y
    fit KIND               GaussianNB().fit(X, y) or MultinomialNB().fit(X, y)
    predict KIND           model.predict(X)
    predict_proba KIND     model.predict_proba(X)
    drop                   forget the arrays and the model
Run as `sklearn_side.py e2e KIND FILE OUT`, it does the whole job the way a user of pandas and scikit-learn
would, in one process: pandas.read_csv, fit, predict_proba, and DataFrame.to_csv of the posteriors to OUT.
KIND is gaussian or multinomial.
"""
import sys
import time

import numpy as np
import pandas as pd
from sklearn.naive_bayes import GaussianNB, MultinomialNB

MODELS = {"gaussian": GaussianNB, "multinomial": MultinomialNB}


def read(path):
    df = pd.read_csv(path)
    y = df.pop("y").to_numpy()
    return df.to_numpy(dtype=np.float64), y


def serve():
    X = y = model = None
    for line in sys.stdin:
        words = line.split()
        if not words:
            continue
        try:
            start = time.perf_counter()
            op = words[0]
            if op == "load":
                X, y = read(words[2])
            elif op == "fit":
                model = MODELS[words[1]]().fit(X, y)
            elif op == "predict":
                model.predict(X)
            elif op == "predict_proba":
                model.predict_proba(X)
            elif op == "drop":
                X = y = model = None
            else:
                raise ValueError("unknown command " + op)
            print("ok %.6f" % (time.perf_counter() - start), flush=True)
        except Exception as e:  # reported to the driver, which stops
            print("error %s" % str(e).replace("\n", " "), flush=True)


def e2e(kind, path, out):
    df = pd.read_csv(path)
    y = df.pop("y").to_numpy()
    model = MODELS[kind]().fit(df.to_numpy(dtype=np.float64), y)
    proba = model.predict_proba(df.to_numpy(dtype=np.float64))
    pd.DataFrame(proba, columns=["proba_" + str(c) for c in model.classes_]).to_csv(out, index=False)


if __name__ == "__main__":
    if sys.argv[1] == "serve":
        serve()
    else:
        e2e(*sys.argv[2:5])
