-- The (weighted) sum of each count column (multinomial and complement features) per class. No parameters.
CREATE TABLE IF NOT EXISTS nb.totals (
    model   VARCHAR NOT NULL,
    feature VARCHAR NOT NULL,
    class   VARCHAR NOT NULL,
    total   DOUBLE  NOT NULL
)
