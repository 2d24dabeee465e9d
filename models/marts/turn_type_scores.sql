{#- turn-type score = mean cell score over the cells of that turn type; per model, and pooled
    over all cells of models of kind 'model' (macros/cell_score_means.sql). -#}
{{ cell_score_means('turn_type') }}
