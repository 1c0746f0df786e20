{{- /*
em_drop: drops one of semi-supervised training's temporary tables (nb_em_rows, nb_em_post, nb_em_classes).
Data (queries.TableName): .Table. No parameters.
*/ -}}
DROP TABLE IF EXISTS {{ident .Table}}
