{#- Mean cell score per subcategory; per model, and pooled over all cells of models of kind
    'model' (macros/cell_score_means.sql). -#}
{{ cell_score_means('subcategory') }}
