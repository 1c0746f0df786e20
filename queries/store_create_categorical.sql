-- Counts of each value of each categorical or Bernoulli feature per class (NULL values are not counted).
-- Bernoulli features have the values 'false' and 'true'. No parameters.
CREATE TABLE IF NOT EXISTS nb.categorical (
    model   VARCHAR NOT NULL,
    feature VARCHAR NOT NULL,
    class   VARCHAR NOT NULL,
    value   VARCHAR NOT NULL,
    count   BIGINT  NOT NULL,
    weight  DOUBLE  NOT NULL
)
