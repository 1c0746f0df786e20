-- Occurrences (and their weight) of each term of each text feature per class. No parameters.
CREATE TABLE IF NOT EXISTS nb.terms (
    model   VARCHAR NOT NULL,
    feature VARCHAR NOT NULL,
    class   VARCHAR NOT NULL,
    term    VARCHAR NOT NULL,
    count   BIGINT  NOT NULL,   -- occurrences
    docs    BIGINT  NOT NULL,   -- documents that contain the term
    present BIGINT  NOT NULL,   -- documents with more occurrences than the feature's binarize threshold
    weight  DOUBLE  NOT NULL
)
