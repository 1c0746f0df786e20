-- The unlabelled part of semi-supervised training's log-likelihood: Σ w log p(x) over nb_em_post, and the
-- number of rows scored. No parameters.
SELECT coalesce(fsum(ll), 0), count(ll) FROM nb_em_post
