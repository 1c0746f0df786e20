{{- /* store_create_models: one row per model: what it was trained on and the hyperparameters (params, a JSON
   object; nb_set changes the ones applied at scoring without retraining). Data (queries.ModelsTable): .Table,
   the table's name in schema nb ("models"; the format-5 upgrade builds "models_v5" and renames it). No
   parameters. */ -}}
CREATE TABLE IF NOT EXISTS nb.{{ident .Table}} (
    name           VARCHAR NOT NULL,   -- model name, unique
    label          VARCHAR NOT NULL,   -- label column
    label_type     VARCHAR NOT NULL,   -- DuckDB type of the label column
    weight         VARCHAR,            -- sample-weight column, NULL if unweighted
    source         VARCHAR NOT NULL,   -- table, query or file the model was trained on
    params         VARCHAR NOT NULL,   -- hyperparameters as one JSON object by name (declared by the families; nb_show lists them)
    n_rows         BIGINT  NOT NULL,   -- training rows with a non-NULL label
    skipped_rows   BIGINT  NOT NULL,   -- training rows left out because their label was NULL
    created        TIMESTAMP NOT NULL,
    format_version INTEGER NOT NULL,
    generation     VARCHAR NOT NULL,   -- changes whenever the statistics change
    incomplete_rows BIGINT DEFAULT 0,  -- labelled rows left out for a missing feature value (lda, qda, logistic)
    iterations     BIGINT DEFAULT 0,   -- logistic: Newton steps taken
    grad_norm      DOUBLE DEFAULT 0,   -- logistic: final largest absolute gradient component
    unlabelled_rows BIGINT DEFAULT 0,  -- semi-supervised (EM): rows with a NULL label that took part
    log_likelihood DOUBLE DEFAULT 0,   -- semi-supervised (EM): final log-likelihood of the training rows
    group_by       VARCHAR             -- per-group models: the group columns as JSON [{"name", "type"}], else NULL
)
