"""The build: write-audit-publish on DuckDB (the pipeline's stages, dbt, history) and on Spark."""
