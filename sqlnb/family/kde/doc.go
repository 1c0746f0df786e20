// Package kde is the kernel-density naive Bayes family (kind kde): per class and feature, the density of the
// class's training values as R 4.2's density(x, bw = "nrd0", kernel = "gaussian", n = 512, cut = 3) computes
// it, with the convolution summed exactly instead of by FFT. Training is two SQL passes (the bandwidth's
// statistics, then the binned weights); Go convolves the bins with the kernel and keeps the 512-point curve.
// Scoring interpolates the curve linearly (R's approx), 0 outside it, floored at 1e-300.
package kde
