{#- The release id of the build, for the release_id column every mart carries: the one row of
    stg_release__manifest, as a scalar subquery (instead of a cross join in each mart). -#}
{% macro release_id() -%}
    (select manifest.release_id from {{ ref('stg_release__manifest') }} as manifest)
{%- endmacro %}
