-- Loads one model's Gaussian statistics. Parameters: $1 model name.
SELECT feature, class, count, mean, m2, weight, wmean, wm2 FROM nb.gaussian WHERE model = $1
