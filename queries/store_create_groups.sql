-- The groups of per-group models (train --by): one row per group with a model of its own. No parameters.
CREATE TABLE IF NOT EXISTS nb.groups (
    model           VARCHAR NOT NULL,
    group_id        BIGINT  NOT NULL,  -- 1, 2, ...: the group_id of its rows in nb.group_classes and the statistics tables
    key             VARCHAR NOT NULL,  -- the group columns' values as a JSON array of text, in nb.models.group_by's order
    n_rows          BIGINT  NOT NULL,  -- the group's training rows with a non-NULL label
    skipped_rows    BIGINT  NOT NULL,  -- the group's rows with a NULL label
    incomplete_rows BIGINT  NOT NULL   -- the group's rows left out for a missing feature value (lda, qda)
)
