{{- /*
train_logistic_sample: the rows a logistic regression fit keeps in memory for its Hessian: the complete
labelled rows whose hash (of the label, the weight and the raw feature values) falls in the first .Keep of
every .Mod values — a fixed subset, whatever the order or the threads of the scan — or every such row
when .Sample is false. With .Token (the fit's token as a string literal) the rows go with their hash to
nb_logistic_pass, which keeps them for the fit (and the query returns their number); without, the query
returns them ordered by hash (then by the values), so the fit sums them in a fixed order.
Output (without .Token): the class index (0 for the first class), the weight (with .Weight), the design
columns unstandardised (the fit standardises them in memory, by the sample's own mean and spread).
Data (queries.LogisticSample): .From, .Label, .Weight (may be empty), .Features (.Name, .Numeric), .Cols (.Raw), .Classes (the
parameter of each class label), .Sample, .Mod and .Keep (the parameters of the modulus and of the kept
residues), .Token.
Parameters: the source's, then those named in .Cols' .Raw and .Classes, and with .Sample .Mod and .Keep.
*/ -}}
SELECT {{if .Token}}count(nb_logistic_pass({{.Token}}, k{{if .Weight}}, w{{end}}{{range $i, $c := .Cols}}, x{{add $i 1}}{{end}}, h)){{else}}k{{if .Weight}}, w{{end}}{{range $i, $c := .Cols}}, x{{add $i 1}}{{end}}{{end}}
FROM (
    SELECT h, CAST(CASE CAST({{ident .Label}} AS VARCHAR){{range $c, $p := .Classes}} WHEN {{$p}} THEN {{$c}}{{end}} END AS INTEGER) AS k
        {{- if .Weight}}, CAST({{ident .Weight}} AS DOUBLE) AS w{{end}}
        {{- range $i, $c := .Cols}},
        CAST({{$c.Raw}} AS DOUBLE) AS x{{add $i 1}}
        {{- end}}
    FROM (
        SELECT *, hash({{ident .Label}}{{if .Weight}}, {{ident .Weight}}{{end}}{{range .Features}}, {{ident .Name}}{{end}}) AS h
        FROM {{.From}} __sqlnb_row
        WHERE {{ident .Label}} IS NOT NULL{{range .Features}} AND {{ident .Name}} IS NOT NULL{{if .Numeric}} AND NOT isnan(CAST({{ident .Name}} AS DOUBLE)){{end}}{{end}}
    ) t
    {{- if .Sample}}
    WHERE h % CAST({{.Mod}} AS UBIGINT) < CAST({{.Keep}} AS UBIGINT)
    {{- end}}
)
{{- if not .Token}}
ORDER BY h, k{{if .Weight}}, w{{end}}{{range $i, $c := .Cols}}, x{{add $i 1}}{{end}}
{{- end}}
