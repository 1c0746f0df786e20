-- Reliability diagram data of nb_eval_scored (group 0): the posteriors of every class, one-vs-rest, in 10
-- equal-width bins: mean predicted probability, observed frequency and count per bin. No parameters.
WITH long AS (
    SELECT y, unnest(map_keys(p)) AS c, unnest(map_values(p)) AS pc FROM nb_eval_scored WHERE g = 0
)
SELECT least(floor(pc * 10), 9)::INTEGER AS bin, avg(pc) AS predicted, avg((y = c)::DOUBLE) AS observed, count(*) AS n
FROM long GROUP BY bin ORDER BY bin
