{{- /*
train_kde_bins: pass 2 of kernel-density training, R's BinDist (massdist.c) as one GROUP BY. Each finite
value x of feature j in class c (NULL and NaN are missing; rows with a NULL label are left out) falls at
pos = (x - lo)/delta on the class's 512-point grid; with ix = floor(pos), fx = pos - ix it adds w·(1 - fx)
to bin ix (0 ≤ ix ≤ 511) and w·fx to bin ix + 1 (-1 ≤ ix ≤ 510), w = 1/n; other values are dropped.
Result: (class, j, bin, mass) ordered by class, j, bin; bins without mass are absent.
Data (queries.KDEBins): .From, .Label, .Features (.Name), .Grid: one entry per (class, feature) with the placeholders
.Class (VARCHAR), .J (BIGINT: the feature's position in .Features), .Lo, .Delta, .W (DOUBLE) of its bound
parameters, numbered after the source's.
*/ -}}
WITH grid(class, j, lo, delta, w) AS (
    VALUES {{range $i, $g := .Grid}}{{if $i}}, {{end}}(CAST({{$g.Class}} AS VARCHAR), CAST({{$g.J}} AS BIGINT), CAST({{$g.Lo}} AS DOUBLE), CAST({{$g.Delta}} AS DOUBLE), CAST({{$g.W}} AS DOUBLE)){{end}}
), src AS (
    SELECT CAST({{ident .Label}} AS VARCHAR) AS class
    {{- range $i, $f := .Features}}, CAST({{ident $f.Name}} AS DOUBLE) AS x{{$i}}{{end}}
    FROM {{.From}} __sqlnb_row
    WHERE {{ident .Label}} IS NOT NULL
), vals AS (
    {{- range $i, $f := .Features}}
    {{if $i}}UNION ALL {{end}}SELECT class, {{$i}} AS j, x{{$i}} AS x FROM src WHERE isfinite(x{{$i}})
    {{- end}}
), pos AS (
    SELECT vals.class, vals.j, grid.w, (vals.x - grid.lo) / grid.delta AS p
    FROM vals JOIN grid ON grid.class = vals.class AND grid.j = vals.j
), bins AS (
    SELECT class, j, w, CAST(floor(p) AS BIGINT) AS ix, p - floor(p) AS fx FROM pos
)
SELECT class, j, bin, fsum(mass) AS mass FROM (
    SELECT class, j, ix AS bin, w * (1 - fx) AS mass FROM bins WHERE ix BETWEEN 0 AND 511
    UNION ALL
    SELECT class, j, ix + 1 AS bin, w * fx AS mass FROM bins WHERE ix BETWEEN -1 AND 510
)
GROUP BY class, j, bin
ORDER BY class, j, bin
