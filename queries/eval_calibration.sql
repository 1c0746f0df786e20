-- Reliability diagram data of nb_eval_scored (group 0): per class c, one-vs-rest, the posteriors p(c) in
-- quantile bins as scikit-learn 1.2's calibration_curve(strategy='quantile', n_bins=10) makes them: the
-- edges are the 10% … 90% quantiles of p(c) (linear interpolation, as numpy.percentile), a row goes to
-- the bin numbered by how many edges lie below its p(c) (numpy.searchsorted), and empty bins are left
-- out. Per bin: the class, the bin number, the mean predicted probability, the observed frequency of c
-- and the number of rows. No parameters.
WITH long AS (
    SELECT y, unnest(map_keys(p)) AS c, unnest(map_values(p)) AS pc FROM nb_eval_scored WHERE g = 0
),
edges AS (
    SELECT c, quantile_cont(pc, [0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9]) AS e FROM long GROUP BY c
),
binned AS (
    SELECT l.c, l.pc, (l.y = l.c)::DOUBLE AS hit, len(list_filter(edges.e, x -> x < l.pc)) AS bin
    FROM long l JOIN edges USING (c)
)
SELECT c, bin::INTEGER AS bin, avg(pc) AS predicted, avg(hit) AS observed, count(*) AS n
FROM binned GROUP BY c, bin ORDER BY c, bin
