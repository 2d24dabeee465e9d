"""The paper's tables, T1-T7, A1-A3, P and J1-J4: for each, the reporting model that holds its
rows, its title and caption, and its display columns (TABLES, in the paper's order)."""

from __future__ import annotations

from distressbench.outputs.tables.table import Column, Pivot, TableSpec

# The pivot column lists: (reporting model, key column, header column, order column); the
# spanner is its column_group.
MODEL_COLUMNS = ("rpt_model_order", "model_id", "display_name", "model_order")
DIMENSION_COLUMNS = ("rpt_dimension_columns", "dimension_id", "label", "display_order")

_MODEL = Column("Model", "text", ("label",))

# Captions and headers name the project's dbt vars they print as {level} (the intervals' level),
# {floor_mark}, {kappa_floor} and {min_pairs}; the tables are loaded with them filled in
# (formatting.Wording, load.load_tables). A dimension whose judge misses the calibration floor
# carries the floor mark (the dbt var calibration_floor_mark) in its labels; the reporting
# models put it there (rpt_dimension_columns.floor_mark), the captions explain it.
_FLOOR_NOTE = (
    " {floor_mark}: the judge misses the calibration floor on this dimension (Cohen's κ against the clinicians "
    "below the floor, or too few calibrated pairs; table J1), so its scores rest on a judge not shown to be "
    "trustworthy there."
)


T1 = TableSpec(
    key="T1",
    slug="corpus_stats",
    title="Corpus statistics",
    caption="Tasks, criteria, weights, replies and labels of the release. Shares in percent.",
    model="rpt_corpus_stats",
    columns=(
        Column("Section", "text", ("section_label",), collapse=True),
        Column("Item", "text", ("item_label",), collapse=True),
        Column("Statistic", "text", ("statistic_label",)),
        Column("Value", "statistic", ("value", "unit")),
    ),
)

T2 = TableSpec(
    key="T2",
    slug="leaderboard",
    title="Leaderboard",
    caption=(
        "Model score (mean weighted share of criteria met over all tasks, %) with its {level} bootstrap "
        "interval; rank among ranked models (equal scores share a rank); letters (a compact letter display over "
        "every pair of models at the family-wise level: two models that share a letter cannot be told apart once "
        "all pairs are allowed for, their simultaneous {level} bootstrap interval includes 0; two that "
        "share none can); the rank's {level} bootstrap interval (where the model's own rank falls over "
        "the resamples, not adjusted for the other models); the rank bound (the best rank that cannot be ruled "
        "out: 1 + the number of models clearly better at the family-wise level, so it can lie outside the rank "
        "interval); and the probability of ranking first. The clinician reference is shown beside the models, not "
        "ranked. Only models judged alike are ranked together: a model judged by other judges than the release's "
        "is shown below the ranked ones, with its score, its judges and why it is unranked, and moves no headline. "
        "{floor_mark} after a name: the judge misses its calibration floor on that model's replies (Cohen's κ "
        "against the clinicians below the floor, or too few calibrated pairs; table J4)."
    ),
    model="rpt_leaderboard",
    columns=(
        Column("Rank", "count", ("rank",)),
        _MODEL,
        Column("Score (%) [{level} CI]", "pct_ci", ("score", "ci_low", "ci_high")),
        Column("Letters", "text", ("letters",)),
        Column("Rank [{level} CI]", "interval", ("rank_ci_low", "rank_ci_high")),
        Column("Rank bound", "count", ("rank_upper_bound",)),
        Column("P(rank 1) (%)", "pct", ("p_rank_1",), latex_header=r"$P(\mathrm{rank}=1)$ (\%)"),
        Column("Judges", "text", ("judge_ids",)),
        Column("Unranked because", "text", ("unranked_reason",)),
    ),
)

T3 = TableSpec(
    key="T3",
    slug="dimension_scores",
    title="Scores by dimension",
    caption=(
        "Dimension score (%): over the tasks with at least one criterion in the dimension, the mean weighted share "
        "of its criteria met. Act dimensions ask the reply to do something; the withhold dimension asks it to hold "
        "back. Best and median are over ranked models (the median of an even count is the mean of the middle two). "
        "In brackets the {level} task-bootstrap interval. "
        "—: no criterion of the dimension in the release." + _FLOOR_NOTE
    ),
    model="rpt_dimension_scores",
    columns=(_MODEL,),
    pivot=Pivot(
        index=("release_id", "row_group", "model_id", "label"),
        columns=DIMENSION_COLUMNS,
        fmt="pct_ci",
        interval=True,
    ),
)

T4 = TableSpec(
    key="T4",
    slug="recognized_not_routed",
    title="Recognized but not routed",
    caption=(
        "Of the replies that met every recognition criterion of a task with routing criteria (recognized), those "
        "that failed routing (not routed), and the rate (%). Pooled over ranked models, with its {level} "
        "bootstrap interval. —: no recognized reply, so the rate is undefined."
    ),
    model="rpt_recognized_not_routed",
    columns=(
        _MODEL,
        Column("Recognized", "count", ("n_recognized",)),
        Column("Not routed", "count", ("n_not_routed",)),
        Column("Rate (%)", "pct_ci", ("rate", "rate_ci_low", "rate_ci_high")),
    ),
)

T5 = TableSpec(
    key="T5",
    slug="turn_type_scores",
    title="Single-turn and multi-turn conversations",
    caption=(
        "Mean cell score (%) over single-turn conversations (one user turn) and multi-turn ones, per model and "
        "pooled over all cells of ranked models (with {level} bootstrap intervals)."
    ),
    model="rpt_turn_type_scores",
    columns=(
        _MODEL,
        Column("Single-turn (%)", "pct_ci", ("single_score", "single_ci_low", "single_ci_high")),
        Column("Multi-turn (%)", "pct_ci", ("multi_score", "multi_ci_low", "multi_ci_high")),
    ),
)

T6 = TableSpec(
    key="T6",
    slug="subcategory_scores",
    title="Scores by subcategory",
    caption=(
        "Mean cell score (%) per crisis subcategory: pooled over ranked models, and per model (models ordered by "
        "overall score; the clinician reference last), each with its {level} task-bootstrap interval in "
        "brackets."
    ),
    model="rpt_subcategory_scores",
    columns=(
        Column("Subcategory", "text", ("label",)),
        Column("Tasks", "count", ("n_tasks",)),
        Column("All ranked models (%)", "pct_ci", ("pooled_score", "pooled_ci_low", "pooled_ci_high")),
    ),
    pivot=Pivot(
        index=("release_id", "subcategory", "label", "n_tasks", "pooled_score", "pooled_ci_low", "pooled_ci_high"),
        columns=MODEL_COLUMNS,
        fmt="pct_ci",
        field_prefix="score_",
        group_in_markdown=False,
        interval=True,
    ),
    wide=True,
)

T7 = TableSpec(
    key="T7",
    slug="judge_calibration",
    title="Judge calibration",
    caption=(
        "The judge's verdicts against the clinicians' majority label on the calibrated pairs (pairs where the "
        "clinicians tie are dropped), with 'met' as the positive class: agreement, Cohen's kappa, precision, recall "
        "and F1 (%), overall and per dimension."
    ),
    model="rpt_judge_calibration",
    columns=(
        Column("Dimension", "text", ("label",)),
        Column("Pairs", "count", ("n",)),
        Column("Ties dropped", "count", ("n_ties_dropped",)),
        Column("Agreement (%)", "pct", ("agreement",)),
        Column("Cohen's κ", "ratio", ("kappa",)),
        Column("Precision (%)", "pct", ("precision",)),
        Column("Recall (%)", "pct", ("recall",)),
        Column("F1 (%)", "pct", ("f1",)),
    ),
)

A1 = TableSpec(
    key="A1",
    slug="redteam_summary",
    title="Red-team annex",
    caption=(
        "The long-horizon red-team transcripts of the annex: turns by role and length in characters. "
        "'—': the transcript names no model."
    ),
    model="rpt_redteam_summary",
    columns=(
        Column("Transcript", "text", ("transcript_id",)),
        Column("Model", "text", ("model_label",)),
        Column("Turns", "count", ("n_turns",)),
        Column("User turns", "count", ("n_user_turns",)),
        Column("Assistant turns", "count", ("n_assistant_turns",)),
        Column("Characters", "count", ("n_characters",)),
    ),
)

A2 = TableSpec(
    key="A2",
    slug="anchored_scores",
    title="Scores anchored to the clinicians",
    caption=(
        "Each model's score from the judge alone (%) beside its score anchored to the clinicians: a "
        "prediction-powered estimate (PPI), the judge's score plus the clinicians' correction (majority label minus "
        "verdict, each pair weighted as it counts in the score) measured on the model's calibrated pairs, with "
        "{level} bootstrap intervals from the same resampled tasks. Pairs: the calibrated pairs behind it. "
        "It assumes the calibrated pairs are a random share of each model's pairs within each dimension "
        "(docs/judge-reliability.md). The leaderboard (T2) and the paper's headline stay the judge's. —: too few "
        "calibrated pairs (var anchored_min_pairs), said in the note."
    ),
    model="rpt_anchored_scores",
    columns=(
        _MODEL,
        Column("Judge (%) [{level} CI]", "pct_ci", ("score", "ci_low", "ci_high")),
        Column("Anchored (%) [{level} CI]", "pct_ci", ("anchored_score", "anchored_ci_low", "anchored_ci_high")),
        Column("Correction (pp)", "pp", ("anchored_minus_score",)),
        Column("Pairs", "count", ("n_clinician_pairs",)),
        Column("Note", "text", ("note",)),
    ),
)

A3 = TableSpec(
    key="A3",
    slug="anchored_headline_metrics",
    title="Headline scores anchored to the clinicians",
    caption=(
        "The headline scores that are means of verdicts, from the judge alone (%, as table P) and anchored to the "
        "clinicians, with {level} bootstrap intervals: best and median over the ranked models that have "
        "an anchored score (Models; Pairs: their calibrated pairs), taken within each resample, and the clinician "
        "reference's. The paper's headline stays the judge's." + _FLOOR_NOTE
    ),
    model="rpt_anchored_headline_metrics",
    columns=(
        Column("Metric", "text", ("label",)),
        Column("Judge (%) [{level} CI]", "pct_ci", ("value", "ci_low", "ci_high")),
        Column("Anchored (%) [{level} CI]", "pct_ci", ("anchored_value", "anchored_ci_low", "anchored_ci_high")),
        Column("Models", "count", ("n_models",)),
        Column("Pairs", "count", ("n_clinician_pairs",)),
        Column("Note", "text", ("note",)),
    ),
)

P = TableSpec(
    key="P",
    slug="paper_comparison",
    title="Comparison with the paper",
    caption=(
        "Headline metrics of this release (%) with {level} bootstrap intervals, the value the paper "
        "reports, and the difference (this release minus the paper, in percentage points). The judge's Cohen's κ and "
        "Krippendorff's α are ratios, shown × 100. A metric the release leaves undefined (—) says why in the note "
        "(e.g. no criterion of a dimension in the release)." + _FLOOR_NOTE
    ),
    model="rpt_paper_comparison",
    columns=(
        Column("Metric", "text", ("label",)),
        Column("This release (%) [{level} CI]", "pct_ci", ("value", "ci_low", "ci_high")),
        Column("Paper (%)", "pct", ("paper_value",)),
        Column("Difference (pp)", "pp", ("difference_from_paper",)),
        Column("Note", "text", ("note",)),
    ),
)

J1 = TableSpec(
    key="J1",
    slug="judge_reliability",
    title="Judge reliability by dimension",
    caption=(
        "How far the judge's verdicts can be trusted. Against the clinicians' majority label (calibrated pairs, "
        "clinician ties dropped): Cohen's κ, agreement and F1 (%) with {level} bootstrap intervals (tasks "
        "resampled); a dimension meets the calibration floor when κ reaches the floor (var calibration_kappa_floor, "
        "{kappa_floor} by default) on at least calibration_min_pairs "
        "({min_pairs}) pairs. Against itself (reply × criterion pairs of "
        "non-empty replies with at least two labels): the share of pairs whose labels all agree, the share "
        "tied (decided by the tie rule), the observed agreement between labels of a pair (%) and "
        "Krippendorff's α (nominal; — when undefined)."
    ),
    model="rpt_judge_reliability",
    columns=(
        Column("Dimension", "text", ("label",)),
        Column("Calibrated pairs", "count", ("n",), group="Against the clinicians"),
        Column(
            "Cohen's κ [{level} CI]",
            "ratio_ci",
            ("kappa", "kappa_ci_low", "kappa_ci_high"),
            group="Against the clinicians",
        ),
        Column("Meets floor", "text", ("meets_floor_label",), group="Against the clinicians"),
        Column(
            "Agreement (%) [{level} CI]",
            "pct_ci",
            ("agreement", "agreement_ci_low", "agreement_ci_high"),
            group="Against the clinicians",
        ),
        Column("F1 (%) [{level} CI]", "pct_ci", ("f1", "f1_ci_low", "f1_ci_high"), group="Against the clinicians"),
        Column("Pairs with ≥ 2 labels", "count", ("n_consistency_pairs",), group="Against itself"),
        Column("Unanimous (%)", "pct", ("unanimous_share",), group="Against itself"),
        Column("Tied (%)", "pct", ("tie_share",), group="Against itself"),
        Column("Observed agreement (%)", "pct", ("observed_agreement",), group="Against itself"),
        Column("Krippendorff's α", "ratio", ("krippendorff_alpha",), group="Against itself"),
    ),
    wide=True,
)

J2 = TableSpec(
    key="J2",
    slug="ranking_sensitivity",
    title="Ranking sensitivity to the judge",
    caption=(
        "The leaderboard recomputed from a subset of the judge labels: each judge alone (all its samples, majority "
        "with the tie rule) and each single sample of a judge. Coverage (%): the reply × criterion pairs the subset "
        "labels. Over the ranked models whose every pair the subset labels (each judge's ranking over the models it "
        "labelled): the best and median model score (%) under it, Kendall's τ-b between their scores under it and "
        "their published scores, the models whose rank among them changes and the largest change; — for a subset "
        "that labels no ranked model completely."
    ),
    model="rpt_ranking_sensitivity",
    columns=(
        Column("Labels", "text", ("label",)),
        Column("Coverage (%)", "pct", ("coverage",)),
        Column("Best model (%)", "pct", ("best_model_score",)),
        Column("Median model (%)", "pct", ("median_model_score",)),
        Column("Kendall's τ-b", "ratio", ("kendall_tau_b",), latex_header=r"Kendall's $\tau_b$"),
        Column("Rank changes", "count", ("n_rank_changes",)),
        Column("Largest rank change", "count", ("max_rank_change",)),
    ),
)

J3 = TableSpec(
    key="J3",
    slug="judge_agreement_by_judge",
    title="Judge self-consistency by judge",
    caption=(
        "Each judge against itself over all criteria: the reply × criterion pairs of non-empty replies with at "
        "least two labels of that judge, the share whose labels all agree, the share tied, the observed agreement "
        "between labels of a pair (%) and Krippendorff's α (nominal; — when undefined) with its {level} "
        "task-bootstrap interval. The first row pools every judge's labels of a pair. The headline judge α is the "
        "primary judge's alone: the judge the manifest names (primary_judge), else the judge with the most labels "
        "(ties: the smallest id); the Headline column marks it and says which rule chose it."
    ),
    model="rpt_judge_agreement_by_judge",
    columns=(
        Column("Judge", "text", ("label",)),
        Column("Headline", "text", ("primary_judge_reason",)),
        Column("Pairs with ≥ 2 labels", "count", ("n_pairs",)),
        Column("Labels", "count", ("n_labels",)),
        Column("Unanimous (%)", "pct", ("unanimous_share",)),
        Column("Tied (%)", "pct", ("tie_share",)),
        Column("Observed agreement (%)", "pct", ("observed_agreement",)),
        Column(
            "Krippendorff's α [{level} CI]",
            "ratio_ci",
            ("krippendorff_alpha", "alpha_ci_low", "alpha_ci_high"),
        ),
    ),
)

J4 = TableSpec(
    key="J4",
    slug="judge_calibration_by_model",
    title="Judge calibration by model",
    caption=(
        "How far the judge can be trusted on each model's replies: its verdicts against the clinicians' majority "
        "label on the calibrated pairs of that model (clinician ties dropped, 'met' the positive class), over all "
        "criteria and per dimension. Cohen's κ, agreement and F1 (%) with {level} bootstrap intervals "
        "(tasks resampled, the same resamples as every other interval), precision and recall (%); the floor as in "
        "J1: κ at least calibration_kappa_floor on at least calibration_min_pairs pairs. A judge more lenient with "
        "one model's replies than another's moves that model's rank."
    ),
    model="rpt_judge_calibration_by_model",
    columns=(
        Column("Model", "text", ("model_label",), collapse=True),
        Column("Dimension", "text", ("label",)),
        Column("Pairs", "count", ("n",)),
        Column("Cohen's κ [{level} CI]", "ratio_ci", ("kappa", "kappa_ci_low", "kappa_ci_high")),
        Column("Meets floor", "text", ("meets_floor_label",)),
        Column("Agreement (%) [{level} CI]", "pct_ci", ("agreement", "agreement_ci_low", "agreement_ci_high")),
        Column("Precision (%)", "pct", ("precision",)),
        Column("Recall (%)", "pct", ("recall",)),
        Column("F1 (%) [{level} CI]", "pct_ci", ("f1", "f1_ci_low", "f1_ci_high")),
    ),
    wide=True,
)

TABLES: tuple[TableSpec, ...] = (T1, T2, T3, T4, T5, T6, T7, A1, A2, A3, P, J1, J2, J3, J4)
