{{- /*
order_labels: class labels (text, as training stores them) in the order of the label column's type, the
order training gives classes (ORDER BY label). Data (queries.TypeName): .Type, a DuckDB type name the caller checked to be a
plain name with an optional list of numbers (DECIMAL(18,3)). Parameters: $1 the labels, VARCHAR[].
*/ -}}
SELECT s FROM (SELECT unnest($1::VARCHAR[]) AS s) ORDER BY CAST(s AS {{.Type}}), s
