-- The unlabelled rows of semi-supervised training (nb_em_rows): their number, the number with a weight,
-- the smallest weight and the total weight. No parameters.
SELECT count(*), count(__sqlnb_w), min(__sqlnb_w), coalesce(fsum(__sqlnb_w), 0) FROM nb_em_rows
