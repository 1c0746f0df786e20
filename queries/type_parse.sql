-- The parse tree of a cast of NULL to the type text $1 (json_serialize_sql: parsed, never run), to check
-- that $1 is a type and nothing else before the text is used as one (sqlnb.checkTypeText).
SELECT CAST(json_serialize_sql('SELECT CAST(NULL AS ' || $1::VARCHAR || ')') AS VARCHAR)
