"""Task-bootstrap percentile intervals for model scores, ranks and the headline metrics.

Method
- Tasks are resampled with replacement, B times. Tasks are ordered by task_id (code-point
  order) and models by model_id first, so nothing depends on the row order of the inputs.
- Resample b's task counts (``ResampleCounts``; the calibration bootstrap gets the same ones
  through ``run_bootstrap``'s ``on_counts``) follow numpy's documented way to run random
  streams in parallel: ``np.random.SeedSequence(seed).spawn(n_streams)`` gives one child per
  fixed block of RESAMPLES_PER_STREAM (100) resamples, and block s's resamples are the rows,
  in order, of ``np.random.Generator(np.random.PCG64(child_s)).integers(0, n_tasks,
  size=(resamples, n_tasks))``; ``counts[b, j]`` is how often task j (the j-th task_id)
  occurs in resample b's row. Streams are drawn by parallel threads, each carrying on where
  the previous chunk left it, so the counts depend on neither the thread count nor the
  chunks. Every statistic of resample b uses the same counts (a joint bootstrap), so paired
  differences and ranks are consistent with the score intervals.
- Resampled sums are one matrix product, ``counts @ design``, over a design matrix with one
  column per needed per-task sum (model scores, turn-type masks, recognized / not-routed
  counts, every model's per-dimension scores and "task has the dimension" masks). Ratios such as a
  dimension score (sum c*s*has / sum c*has) or the recognized-but-not-routed rate are
  re-estimated as ratios in every resample.
- Each design column is put on a power-of-two grid (scores rounded to at most
  2**-(52 - ceil(log2(n_tasks * column max))), i.e. ~1e-13 at 718 tasks and ~1e-11 at
  72,000) so that every sum in the product is an exact integer in float64. The product is
  then exact, whatever the BLAS, thread count or chunk shape, and the output is bitwise
  identical for any ``chunk_size`` and number of threads. (float32 would halve the product's
  cost but holds integers exactly only up to 2**24: scores would have to be rounded to
  ~2**-24 / n_tasks, i.e. coarser than 1e-9 at 718 tasks, so it is not used.) Point
  estimates go through the same path with every count equal to 1; they equal a direct float
  computation to ~1e-12.
- Intervals: percentile method, ``np.nanquantile(..., [alpha/2, 1 - alpha/2],
  method="linear")`` (Hyndman-Fan type 7). A resample in which a ratio has no denominator
  (no drawn task has the dimension, no single-turn task, no recognized pair) gives NaN for
  that statistic; those resamples are left out of its quantiles. A statistic that is NaN
  in every resample gets a NaN interval.
- Ranks: among the ranked models only (kind 'model' and, when the cells carry it, is_ranked:
  int_models_judged's like ranked with like; a model of kind 'model' that is not ranked
  gets its model_score interval and nothing else), rank = 1 + the number of models with a strictly
  higher score in that resample (so exact ties share the better rank). The 'rank' row gives
  the median rank over resamples and the (alpha/2, 1 - alpha/2) rank interval, both with
  ``method="inverted_cdf"`` so they are ranks that occurred. 'p_rank_1' is the share of
  resamples in which the model is ranked 1; when k models tie at the top each gets 1/k, so
  the probabilities sum to 1.
- Point ranking (for output order and 'pair_difference'): full-sample score descending,
  then model_id ascending for exact ties. 'pair_difference' pairs every two ranked models
  once, the higher-ranked first: estimate = score(model) - score(other), its percentile
  interval over the same resamples (estimates.pair_intervals, one model against all below it
  at a time, so memory holds B x k differences): unadjusted, the pair looked at alone.
- 'pair_difference_familywise': the same pairs' simultaneous intervals
  (estimates.familywise_intervals), a studentized max-statistic bootstrap: se_ij is the
  standard deviation over resamples of score(i) - score(j), from the k x k covariance of the
  resampled scores; c is the (1 - alpha) quantile over resamples of max over pairs of
  |d*_ij - d_ij| / se_ij; the interval is d_ij -/+ c * se_ij (one model against all below it
  at a time, so memory holds B x k values). Two models are clearly different when it
  excludes 0: the k(k-1)/2 intervals hold together at the 1 - alpha level.
- 'letters': each ranked model's compact letter display over the family-wise pairs
  (letters.py, Piepho 2004): two models share a letter exactly when they are not clearly
  different.
- 'dimension_score': every model's score per dimension (the clinician reference too), a
  ratio per resample like the best / median ones. 'subcategory_score' (when cells carry a
  subcategory): every model's mean cell score over the subcategory's drawn tasks, and the
  mean over the ranked models (model_id null); each subcategory's sums come from its own
  tasks' counts and score columns, so all of them cost one more pass of the model scores'
  product, not a dense column per subcategory and model in the design.

Inputs are the dbt models' rows, whose keys and values dbt tests already check; only what
would otherwise give a silently wrong result is checked again here (duplicate or missing
cells, a model with two kinds, a task with two turn types or subcategories, dimension rows
that do not cover every model, null or out-of-range scores), plus a clear error for no
ranked model.

The modules: inputs reads the dbt models' rows; checks holds the input checks; design builds
the design matrix; draws draws the resample counts; estimates turns resampled sums into
statistics, ranks and intervals (pair_intervals: every pair's unadjusted one;
familywise_intervals: the simultaneous ones); letters makes the compact
letter display; run runs it all (run_bootstrap) and lays out the rows.
"""
