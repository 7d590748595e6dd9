"""Tuned comparisons (issue 45): every method gets the same Optuna budget on a validation
split, then its best settings run on fresh seeds and are tested on the test set.

`space` parses the search space, `objective` says what a tune may optimise, `study`
runs one method's trials, `protocol` states what was done under the tables."""
