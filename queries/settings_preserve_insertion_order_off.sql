-- Turns preserve_insertion_order off again (a session that had it off gets it back). No parameters.
SET preserve_insertion_order = false
