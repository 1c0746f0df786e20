-- The classes of each model with their (weighted) counts and an optional given prior. No parameters.
CREATE TABLE IF NOT EXISTS nb.classes (
    model    VARCHAR NOT NULL,
    position INTEGER NOT NULL,   -- 0-based; classes are ordered by the label's own type
    label    VARCHAR NOT NULL,   -- the label as text
    count    BIGINT  NOT NULL,   -- training rows of this class
    weight   DOUBLE  NOT NULL,   -- sum of their sample weights (= count when unweighted)
    prior    DOUBLE              -- given prior when nb.models.priors = 'given', else NULL
)
