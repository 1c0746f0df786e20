{{- /*
store_upgrade_drop_column: format 4 → 5: drops one of the hyperparameter columns format 4 kept (now in params).
Data (queries.DropColumn): .Column, the column name (quoted). No parameters.
*/ -}}
ALTER TABLE nb.models DROP COLUMN {{.Column}}
