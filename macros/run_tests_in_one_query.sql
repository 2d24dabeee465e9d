{#- The generic data tests of a release build, run as one query at the end of the run instead
    of one dbt node each (a test node costs ~40 ms of dbt's own Python per build, whatever
    its query). An on-run-end hook: `test_ids` are the tests' unique_ids, which the release
    build lists (distressbench.build.dbt_process) and leaves out of its node selection; plain dbt
    passes none and runs every test as its node. Each test is its own generic test's SQL,
    called with the arguments and `where` of its yml, on the relation of the model it tests;
    the query counts each test's failing rows. A test whose model did not build in this run
    is not run (dbt reports that model's failure). When a test fails, the hook fails, and
    with it the run, naming each failing test, its model, its count and its first failing
    rows. -#}

{% macro run_tests_in_one_query(results, test_ids) -%}
    {%- if execute and test_ids -%}
        {%- set not_built = [] -%}
        {%- for result in results if result.status != 'success' -%}
            {%- do not_built.append(result.node.unique_id) -%}
        {%- endfor -%}
        {%- set tests = {} -%}
        {%- for test_id in test_ids -%}
            {%- set node = graph.nodes[test_id] -%}
            {%- set upstream = node.depends_on.nodes | reject('in', not_built) | list -%}
            {%- if upstream | length == node.depends_on.nodes | length -%}
                {%- do tests.update({test_id: failing_rows_sql(node)}) -%}
            {%- endif -%}
        {%- endfor -%}
        {%- if tests -%}
            {%- set counts = [] -%}
            {%- for test_id, failing_rows in tests.items() -%}
                {%- do counts.append(
                    'select ' ~ string_literal(test_id) ~ ' as test_id, count(*) as n_failures'
                    ~ ' from (' ~ failing_rows ~ '\n) as failing_rows'
                ) -%}
            {%- endfor -%}
            {%- set failed = [] -%}
            {%- for row in run_query(counts | join('\nunion all\n')) if row[1] > 0 -%}
                {%- set node = graph.nodes[row[0]] -%}
                {%- set examples = [] -%}
                {%- for example in run_query('select * from (' ~ tests[row[0]] ~ '\n) as failing_rows limit 3') -%}
                    {%- do examples.append('(' ~ example | join(', ') ~ ')') -%}
                {%- endfor -%}
                {%- do failed.append(
                    node.name ~ ' on ' ~ tested_relation(node) ~ ': ' ~ row[1] ~ ' failing row(s), e.g. '
                    ~ examples | join('; ')
                ) -%}
            {%- endfor -%}
            {%- if failed -%}
                {{ fail_the_hook(
                    failed | length ~ ' of ' ~ tests | length ~ ' data tests run in one query failed:\n'
                    ~ failed | join('\n')
                ) }}
            {%- endif -%}
        {%- endif -%}
    {%- endif -%}
{%- endmacro %}

{#- A generic test's SQL (the rows that fail it) from its node in the graph. -#}
{% macro failing_rows_sql(node) -%}
    {%- set arguments = {} -%}
    {%- for name, value in node.test_metadata.kwargs.items() if name != 'model' -%}
        {%- do arguments.update({name: value}) -%}
    {%- endfor -%}
    {%- set relation = tested_relation(node) -%}
    {%- set model = '(select * from ' ~ relation ~ ' where ' ~ node.config.where ~ ') as dbt_subquery'
        if node.config.where else relation -%}
    {{ return(context['test_' ~ node.test_metadata.name](model=model, **arguments)) }}
{%- endmacro %}

{#- The relation of the model (or seed) a generic test is attached to. -#}
{% macro tested_relation(node) -%}
    {%- set tested = graph.nodes[node.attached_node] -%}
    {{ return(api.Relation.create(database=tested.database, schema=tested.schema, identifier=tested.alias)) }}
{%- endmacro %}

{#- The SQL of a hook that fails with `message`: on DuckDB a statement that raises it, so that
    dbt reports the hook as failed with the message (a compilation error ends dbt's run as if
    interrupted). -#}
{% macro fail_the_hook(message) -%}
    {{ return(adapter.dispatch('fail_the_hook', 'distressbench')(message)) }}
{%- endmacro %}

{% macro default__fail_the_hook(message) -%}
    {%- do exceptions.raise_compiler_error(message) -%}
{%- endmacro %}

{% macro duckdb__fail_the_hook(message) -%}
    select error({{ string_literal(message) }})
{%- endmacro %}
