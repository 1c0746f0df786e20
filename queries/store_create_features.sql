-- The features of each model in training order, with their distribution. No parameters.
CREATE TABLE IF NOT EXISTS nb.features (
    model    VARCHAR NOT NULL,
    position INTEGER NOT NULL,   -- 0-based training order (the positional argument order)
    name     VARCHAR NOT NULL,   -- column name
    kind     VARCHAR NOT NULL,   -- the feature's kind (sqlnb kinds: gaussian, categorical, ...)
    type     VARCHAR NOT NULL,   -- DuckDB type of the training column
    ngrams   INTEGER NOT NULL,   -- text: word n-grams up to this length (0 or 1: words)
    stop_words VARCHAR NOT NULL, -- text: '' or 'english'
    binarize DOUBLE  NOT NULL    -- Bernoulli and text_bernoulli: present when the value (count) exceeds this
)
