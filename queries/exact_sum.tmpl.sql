{{- /*
exact_sum: the sum of a DOUBLE column (the template's argument, a column name written in the calling
template) that does not depend on the order in which DuckDB's threads add the rows, to the last bit in
practice: each value x splits into k·2⁻³² (k = x·2³² rounded, a BIGINT: its HUGEINT sum is exact) and the
rest x − k·2⁻³² (exact, |rest| ≤ 2⁻³³, summed by fsum, whose order-dependent error is far below the
total's last bit). Used for the per-row log-loss and Brier terms (finite: the posteriors are clipped), so
that eval and cv print the same metrics run after run. NULLs are skipped; a NaN or infinite value gives NaN.
Data: a string, the column's name (no type: the calling templates pass it as a string constant, template "exact_sum" "ll").
*/ -}}
{{define "exact_sum"}}(sum(TRY_CAST({{.}} * 4294967296.0 AS BIGINT))::DOUBLE / 4294967296.0 + fsum({{.}} - coalesce(TRY_CAST({{.}} * 4294967296.0 AS BIGINT), 0) / 4294967296.0)){{end}}
