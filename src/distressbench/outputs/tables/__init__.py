"""The paper's tables, read from the reporting models and rendered as CSV, Markdown, LaTeX or HTML.

One definition layer, several renderers, so the formats cannot diverge:

- a `TableSpec` names the dbt reporting model that holds its rows (models/reporting/rpt_*.sql:
  the marts with labels and display order, in `row_order`) plus display columns; a `Pivot`
  turns a long model into one column per dimension / model, its columns listed by a second
  reporting model. Python only reshapes and formats: every row, label and order comes from
  dbt; nothing is computed here.
- `load_tables` reads every spec and returns `Table`s: the raw fields and rows, and the
  display columns that say how to format them.
- the renderers (`to_csv`, `to_markdown`, `to_latex`, `to_html`) read the same `Table`.

Number formats. CSV carries the raw values: one column per stored field, scores and rates
as fractions in [0, 1] with every digit (Python's shortest round-trip repr), so a CSV reads
back to exactly the numbers in the marts. Markdown, LaTeX and HTML show what the paper
prints: percentages with one decimal (the CSV value rounded half up), bootstrap intervals (at
the level 1 - the dbt var bootstrap_alpha) in brackets after the value, differences in
percentage points with a sign, Cohen's kappa with three decimals, "—" for a missing value.
Models are ordered by overall score (then model_id); the clinician reference has its own row
after the ranked models and the summary rows, and is never ranked.

The modules: formatting holds the number formats (and `Wording`: the dbt vars the captions
and headers print, read once from the command's Settings and filled in when the tables are
loaded); table the `Column`, `Pivot`, `TableSpec` and `Table` types; specs the paper's tables
(TABLES); load reads them from the warehouse (`load_tables`); render holds the renderers;
export writes every table in one format (`export_tables`, the `distressbench tables` command).
"""
