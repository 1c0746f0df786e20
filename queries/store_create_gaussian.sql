-- Sufficient statistics of each Gaussian feature per class, over its non-NULL values: count, mean and
-- M2 = sum of squared deviations from the mean, unweighted and weighted (equal when unweighted).
-- No parameters.
CREATE TABLE IF NOT EXISTS nb.gaussian (
    model   VARCHAR NOT NULL,
    feature VARCHAR NOT NULL,
    class   VARCHAR NOT NULL,
    count   BIGINT  NOT NULL,
    mean    DOUBLE,
    m2      DOUBLE  NOT NULL,
    weight  DOUBLE  NOT NULL,
    wmean   DOUBLE,
    wm2     DOUBLE  NOT NULL
)
