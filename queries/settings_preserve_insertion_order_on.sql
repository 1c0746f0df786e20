-- Turns preserve_insertion_order on for the session (ranking metrics: see settings_preserve_insertion_order.sql).
-- No parameters.
SET preserve_insertion_order = true
