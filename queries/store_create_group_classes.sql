-- The classes of each group of a per-group model, as nb.classes holds the model's. No parameters.
CREATE TABLE IF NOT EXISTS nb.group_classes (
    model    VARCHAR NOT NULL,
    group_id BIGINT  NOT NULL,
    position INTEGER NOT NULL,   -- 0-based, in the model's class order
    label    VARCHAR NOT NULL,
    count    BIGINT  NOT NULL,
    weight   DOUBLE  NOT NULL
)
