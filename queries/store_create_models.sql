-- One row per model: what it was trained on and the hyperparameters applied when it is bound for
-- scoring (they can be changed with UPDATE without retraining). No parameters.
CREATE TABLE IF NOT EXISTS nb.models (
    name           VARCHAR NOT NULL,   -- model name, unique
    label          VARCHAR NOT NULL,   -- label column
    label_type     VARCHAR NOT NULL,   -- DuckDB type of the label column
    weight         VARCHAR,            -- sample-weight column, NULL if unweighted
    source         VARCHAR NOT NULL,   -- table, query or file the model was trained on
    alpha          DOUBLE  NOT NULL,   -- additive smoothing for categorical and Bernoulli features
    var_smoothing  DOUBLE  NOT NULL,   -- Gaussian variance floor, as a fraction of the largest variance
    variance       VARCHAR NOT NULL,   -- 'class' (one per class), 'pooled' (shared by all classes) or 'sample' (n - 1)
    priors         VARCHAR NOT NULL,   -- 'fit', 'smoothed', 'uniform' or 'given' (nb.classes.prior)
    norm           BOOLEAN NOT NULL,   -- complement models: normalise the weights
    min_df         BIGINT  NOT NULL,   -- text: keep terms in at least this many training documents
    max_features   BIGINT  NOT NULL,   -- text: keep the most frequent terms (0: all)
    n_rows         BIGINT  NOT NULL,   -- training rows with a non-NULL label
    skipped_rows   BIGINT  NOT NULL,   -- training rows left out because their label was NULL
    created        TIMESTAMP NOT NULL,
    format_version INTEGER NOT NULL,
    generation     VARCHAR NOT NULL,   -- changes whenever the statistics change
    threshold      DOUBLE DEFAULT 0,   -- e1071's rule: probabilities ≤ eps count as threshold (0: off)
    eps            DOUBLE DEFAULT 0,
    reg_param      DOUBLE DEFAULT 0,   -- QDA: covariances regularised towards the identity (scikit-learn's reg_param)
    solver         VARCHAR DEFAULT 'svd', -- LDA: 'svd' (pooled, n - K) or 'lsqr' (prior-weighted, with shrinkage)
    shrinkage      DOUBLE DEFAULT 0,   -- LDA (lsqr): shrinkage towards a scaled identity
    c              DOUBLE DEFAULT 1,   -- logistic: inverse L2 penalty strength (scikit-learn's C)
    penalty        VARCHAR DEFAULT 'l2', -- logistic: 'l2' or 'none'
    tol            DOUBLE DEFAULT 1e-10, -- logistic: gradient tolerance of the Newton iterations
    max_iter       BIGINT DEFAULT 100, -- logistic: iteration limit
    incomplete_rows BIGINT DEFAULT 0,  -- labelled rows left out for a missing feature value (lda, qda, logistic)
    iterations     BIGINT DEFAULT 0,   -- logistic: Newton steps taken
    grad_norm      DOUBLE DEFAULT 0    -- logistic: final largest absolute gradient component
)
