package grounding

// Synthetic is synthetic, for the benchmarks of package grounding_test.
var Synthetic = synthetic
