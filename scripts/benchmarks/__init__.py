"""The baselines scripts/benchmark.py measures a build against: each is independent of the
package's code, so it measures what a user would otherwise run."""
