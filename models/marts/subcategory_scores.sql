{#- Mean cell score per subcategory; per model, and pooled over all cells of models of kind
    'model' (macros/cell_score_means.sql), with the joint task bootstrap's interval. -#}
{{ cell_score_means('subcategory', interval_statistic='subcategory_score') }}
