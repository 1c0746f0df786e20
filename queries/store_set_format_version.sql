-- Marks every model as upgraded to format $1. Parameters: $1 format version.
UPDATE nb.models SET format_version = $1 WHERE format_version < $1
